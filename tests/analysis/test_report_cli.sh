#!/usr/bin/env bash
# `scope-tui report` as a user meets it: wrong paths of every kind give one
# clear line and exit 2; names full of escapes are printed escaped and
# aligned by display width; colour only when asked for or on a terminal;
# --iteration that matches nothing says so; --strict exits 3 on a damaged
# run; --help and `help COMMAND` explain every option; export --format json
# writes report --json's document, whole or not at all.
#
# With MPIRUN and RT_BASIC also given, the header of a run started by
# mpirun: its ranks, and one attempt for all of them.
#
# Usage: test_report_cli.sh SCOPE_TUI AN_WORKLOAD [MPIRUN RT_BASIC]
set -uo pipefail
tui=$1
workload=$2
mpirun=${3:-}
rt_basic=${4:-}
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# expect_error WHAT PATTERN ARGS...: exit 2, nothing on stdout, exactly one
# line on stderr matching PATTERN.
expect_error() {
    local what=$1 pattern=$2
    shift 2
    "$tui" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    local lines
    lines=$(wc -l <"$tmp/err")
    if [[ $rc -ne 2 ]]; then
        fail "$what: exit $rc, want 2"
    elif [[ -s $tmp/out ]]; then
        fail "$what: printed to stdout: $(head -c 200 "$tmp/out")"
    elif [[ $lines -ne 1 ]]; then
        fail "$what: $lines lines on stderr: $(cat "$tmp/err")"
    elif ! grep -q -- "$pattern" "$tmp/err"; then
        fail "$what: stderr '$(cat "$tmp/err")' lacks '$pattern'"
    else
        echo "ok: $what: $(cat "$tmp/err")"
    fi
}

# ---- wrong paths ----------------------------------------------------------------
expect_error "missing path" "no such run directory" report "$tmp/nowhere"
echo hello >"$tmp/plain.txt"
expect_error "a file" "is a file, not a run directory" report "$tmp/plain.txt"
echo hello >"$tmp/w_1.scope"
expect_error "one log" "scope-tui dump" report "$tmp/w_1.scope"
mkdir "$tmp/empty"
expect_error "empty directory" "is empty" report "$tmp/empty"
mkdir "$tmp/unrelated"
echo a >"$tmp/unrelated/notes.md"
mkdir "$tmp/unrelated/src"
expect_error "unrelated files" "not a scope run directory" report "$tmp/unrelated"
mkdir -p "$tmp/nologs/workers/host1"
echo a >"$tmp/nologs/workers/host1/readme"
expect_error "workers/ without logs" "holds no scope logs" report "$tmp/nologs"
mkdir -p "$tmp/garbage/workers/host1"
head -c 4096 /dev/urandom >"$tmp/garbage/workers/host1/w_x_1_abcdef01.scope"
expect_error "only unreadable logs" "none of its 1 log" report "$tmp/garbage"
expect_error "no run given" "which run" report
expect_error "two runs given" "one run at a time" report "$tmp/empty" "$tmp/empty"
expect_error "bad width" "--width" report --width 7 "$tmp/empty"
expect_error "unknown option" "unknown option '--bogus'" report --bogus "$tmp/empty"
expect_error "option without its value" "'--width' needs a value" report "$tmp/empty" --width

# No permission: root reads anything, so drop to nobody when root.
mkdir -p "$tmp/locked/workers/h"
chmod 000 "$tmp/locked"
if [[ $(id -u) -eq 0 ]]; then
    if command -v setpriv >/dev/null; then
        chmod 755 "$tmp"
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$tui" report "$tmp/locked" \
            >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [[ $rc -ne 2 ]] || ! grep -q "permission denied" "$tmp/err"; then
            fail "no permission: exit $rc, stderr $(cat "$tmp/err")"
        else
            echo "ok: no permission: $(cat "$tmp/err")"
        fi
    else
        echo "skip: no permission (root, and no setpriv to drop it)"
    fi
else
    expect_error "no permission" "permission denied" report "$tmp/locked"
fi
chmod 755 "$tmp/locked"

# ---- names are data --------------------------------------------------------------
run="$tmp/names"
SCOPE_CPU_TIME=always "$workload" "$run" names >"$tmp/wl.out" 2>&1 || fail "an_workload names: $(cat "$tmp/wl.out")"
LC_ALL=C.UTF-8 "$tui" report --width 100 "$run" >"$tmp/report" 2>"$tmp/err" || fail "report of names: $(cat "$tmp/err")"
if grep -q $'\x1b' "$tmp/report"; then
    fail "a raw ESC reached the output"
fi
if LC_ALL=C grep -q $'\xff' "$tmp/report"; then
    fail "a raw 0xff byte reached the output"
fi
grep -qF 'compute\x1b[31m\xff' "$tmp/report" || fail "escaped name missing: $(cat "$tmp/report")"
grep -qF '休息\u009b' "$tmp/report" || fail "wide name with C1 missing: $(cat "$tmp/report")"
# Every row of the phase tables fills the width exactly, by display columns
# (wide characters count two), so the columns line up under the names.
rows=$(grep -E '^ *(iteration|compute|休息|wait_children)' "$tmp/report")
[[ -n $rows ]] || fail "no phase rows found"
while IFS= read -r row; do
    width=$(printf '%s\n' "$row" | LC_ALL=C.UTF-8 wc -L)
    [[ $width -eq 100 ]] || fail "row is $width columns, want 100: '$row'"
done <<<"$rows"
echo "ok: names escaped and aligned"

# ---- colour ------------------------------------------------------------------------
"$tui" report "$run" >"$tmp/plain" 2>&1
grep -q $'\x1b' "$tmp/plain" && fail "colour sent to a pipe"
"$tui" report --color always "$run" >"$tmp/color" 2>&1
grep -q $'\x1b\[1m' "$tmp/color" || fail "--color always gave no colour"
NO_COLOR=1 "$tui" report --color auto "$run" >"$tmp/nocolor" 2>&1
grep -q $'\x1b' "$tmp/nocolor" && fail "NO_COLOR ignored"
# In ASCII locales the rules are ASCII too.
LC_ALL=C "$tui" report "$run" >"$tmp/ascii" 2>&1
LC_ALL=C grep -q $'\xe2\x94\x80' "$tmp/ascii" && fail "box drawing in the C locale"
echo "ok: colour and locale"

# ---- --iteration that matches nothing ------------------------------------------------
# One line on stderr naming the name and the top-level phases, the report
# still on stdout; a name that matches says nothing.
"$tui" report --iteration nosuch "$run" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc -ne 0 || ! -s $tmp/out || $(wc -l <"$tmp/err") -ne 1 ]] ||
    ! grep -q "no phase is named 'nosuch' (--iteration); top-level phases: .*iteration" "$tmp/err"; then
    fail "--iteration nosuch: exit $rc, stderr '$(cat "$tmp/err")'"
else
    echo "ok: --iteration nosuch: $(cat "$tmp/err")"
fi
"$tui" report --json --iteration nosuch "$run" 2>/dev/null | python3 -c 'import json,sys; json.load(sys.stdin)' ||
    fail "--iteration nosuch --json: stdout is not one JSON document"
"$tui" report --iteration iteration "$run" >/dev/null 2>"$tmp/err"
[[ -s $tmp/err ]] && fail "--iteration iteration warned: $(cat "$tmp/err")"

# ---- export --format json ---------------------------------------------------------
# The same document as report --json; a failed export leaves an earlier OUT
# as it was and no temporary file behind.
"$tui" export "$run" --format json -o "$tmp/run.json" 2>"$tmp/err" || fail "export json: $(cat "$tmp/err")"
"$tui" report --json "$run" | cmp -s - "$tmp/run.json" || fail "export json differs from report --json"
echo keep >"$tmp/keep.json"
expect_error "export of a missing run" "no such run directory" export "$tmp/nowhere" --format json -o "$tmp/keep.json"
[[ $(cat "$tmp/keep.json") == keep ]] || fail "a failed export replaced OUT"
expect_error "export: unknown format" "unknown format 'nosuch'" export "$run" --format nosuch -o "$tmp/x"
expect_error "export: no -o" "where to" export "$run" --format json
expect_error "export: -o a directory" "is a directory" export "$run" --format json -o "$tmp"
expect_error "export: unwritable -o" "cannot write" export "$run" --format json -o "$tmp/no/such/dir/x.json"
ls "$tmp"/*.tmp* >/dev/null 2>&1 && fail "export left a temporary file: $(ls "$tmp"/*.tmp*)"
echo "ok: export --format json"

# ---- --strict -----------------------------------------------------------------------
# Exit 3 when the run is damaged (here every log cut by 10 bytes: truncated
# and never shut down), with the report still printed; 0 for a clean run.
"$tui" report --strict "$run" >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc -eq 0 && ! -s $tmp/err ]] || fail "--strict on a clean run: exit $rc, stderr '$(cat "$tmp/err")'"
cp -r "$run" "$tmp/cut"
for log in "$tmp"/cut/workers/*/*.scope; do truncate -s -10 "$log"; done
for fmt in "" --json; do
    "$tui" report --strict $fmt "$tmp/cut" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [[ $rc -ne 3 || ! -s $tmp/out ]] || ! grep -q "^scope-tui report: --strict: the run is damaged (.*truncated" "$tmp/err"; then
        fail "--strict $fmt on a cut run: exit $rc, stderr '$(cat "$tmp/err")'"
    else
        echo "ok: --strict $fmt: $(cat "$tmp/err")"
    fi
done
"$tui" report "$tmp/cut" >/dev/null 2>&1 || fail "a cut run without --strict: exit $?, want 0"

# ---- help ---------------------------------------------------------------------------
"$tui" --help >"$tmp/out" 2>"$tmp/err" || fail "--help: exit $?"
for word in report compare check dump --theme --iteration --print SCOPE_THEME NO_COLOR \
    LC_ALL VISUAL EDITOR COLUMNS docs/recorder.md; do
    grep -qF -- "$word" "$tmp/out" || fail "--help does not name $word"
done
for cmd in report compare check dump; do
    "$tui" help "$cmd" >"$tmp/out" 2>"$tmp/err" || fail "help $cmd: exit $?"
    "$tui" "$cmd" --help >"$tmp/out2" 2>&1 || fail "$cmd --help: exit $?"
    grep -q "^usage: scope-tui $cmd " "$tmp/out" || fail "help $cmd: $(head -2 "$tmp/out")"
    cmp -s "$tmp/out" "$tmp/out2" || fail "help $cmd differs from $cmd --help"
done
"$tui" help report | grep -q -- "--strict" || fail "help report does not explain --strict"
expect_error "help for no such command" "no command 'bogus'" help bogus
echo "ok: help"

# ---- ranks from a launcher ---------------------------------------------------------
if [[ -n $mpirun && -x $mpirun ]]; then
    mpi_run="$tmp/mpi"
    env -u SCOPE_RUN_ID -u SCOPE_PROFILE -u SCOPE_RUN_DIR \
        "$mpirun" --oversubscribe --allow-run-as-root -np 3 "$rt_basic" init "$mpi_run" ranked \
        >"$tmp/mpi.out" 2>&1 || fail "mpirun: $(tail -5 "$tmp/mpi.out")"
    "$tui" report --width 100 "$mpi_run" >"$tmp/mpi.report" 2>&1 || fail "report of the mpirun run"
    head -3 "$tmp/mpi.report"
    grep -q "Processes 3 " "$tmp/mpi.report" || fail "mpirun: not 3 processes"
    grep -q "Roles ranked x3" "$tmp/mpi.report" || fail "mpirun: roles"
    grep -q "Ranks 0-2" "$tmp/mpi.report" || fail "mpirun: ranks"
    grep -q "attempts" "$tmp/mpi.report" && fail "mpirun: the ranks were split into attempts"
    grep -q "^RANKED  (3 processes, phase time" "$tmp/mpi.report" || fail "mpirun: role block"
    echo "ok: ranks from mpirun"
else
    echo "skip: ranks from mpirun (no mpirun given)"
fi

if ((failures)); then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "all report CLI checks passed"
