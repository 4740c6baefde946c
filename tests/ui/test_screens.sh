#!/usr/bin/env bash
# The browser's screens, headless: each case replays keys through the real
# dispatcher and drawing code (scope-tui RUN --keys KEYS --size WxH --print)
# on deterministic runs written by scope_gen_run, and the screen must equal
# the expected file in tests/ui/screens/ byte for byte.  Then what `P` saves
# must equal what --print shows, and names full of escapes must never reach
# the terminal.
#
# Usage: test_screens.sh SCOPE_TUI SCOPE_GEN_RUN LINES_FIXTURE [AN_WORKLOAD] [--update]
#   --update  rewrites the expected files from this build (review the diff!)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
gen=$2
lines_fixture=$3
workload=""
update=0
for arg in "${@:4}"; do
    case "$arg" in
    --update) update=1 ;;
    *) workload=$arg ;;
    esac
done
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"

# The same locale and no theme from the user's config, whoever runs this.
export LC_ALL=C.UTF-8
export XDG_CONFIG_HOME="$tmp/config"
unset SCOPE_THEME NO_COLOR VISUAL EDITOR || true

# ---- fixtures: the same seed writes the same bytes ------------------------------
"$gen" --out run --procs 6 --hours 0.1 --seed 3 >/dev/null
# "res": the same processes with the 1 Hz sampler's records (I/O, memory,
# and GPUs on the learner) for the I/O and GPU views.
"$gen" --out res --procs 6 --hours 0.1 --seed 3 --resources >/dev/null
# "trace": the same processes with a trace window's record each, one of
# them capped, for the Overview's TRACE WINDOWS.
"$gen" --out trace --procs 6 --hours 0.1 --seed 3 --trace >/dev/null
# "caveats": the same run with an older, shorter attempt beside it and one
# log cut in its last frame, so attempts and caveats have something to show.
"$gen" --out older --procs 3 --hours 0.05 --seed 9 >/dev/null
cp -r run caveats
cp older/workers/*/*.scope caveats/workers/node01/
victim=$(find caveats/workers/node01 -name '*_43553_*.scope' | head -1)
[ -n "$victim" ] || { echo "FAIL: fixture: no log of pid 43553 (did scope_gen_run change?)" >&2; exit 1; }
# Cut inside its exit frame: 100 bytes short of the snapshot that follows it.
exit_snap=$("$tui" dump --frames "$victim" | sed -n 's/^frame [0-9]* at byte \([0-9]*\), exit, snapshot,.*/\1/p')
[ -n "$exit_snap" ] || { echo "FAIL: fixture: no snapshot after the exit frame in $victim" >&2; exit 1; }
truncate -s $((exit_snap - 100)) "$victim"
# "hot": line samples of lines_fixture's own statements, known counts;
# its sources (recorded under /scope-fixture) are found with --source-dir.
# "hot-hostile" adds a process whose hot function and file hold escapes.
"$lines_fixture" hot
"$lines_fixture" hot-hostile --hostile
# "hot-wall": the same, sampled on the wall clock, with off-CPU samples.
"$lines_fixture" hot-wall --wall
cp -r "$here/lines" fixture-src
# "line-profile.h5": a real line_profiler record imported from a
# scope-profiler file, its program's source beside it in lineprof-src.
mkdir lineprof-src
cp "$here/../fixtures/scope-profiler-h5/line-profile.h5" .
# "compare-runs": real recorded runs of cmp_workload.c, base and slow
# (compute sleeps 12 ms an entry instead of 6), for the Diff view.
cp -r "$here/../fixtures/compare-runs" .
# "mpi-3-ranks.h5": a scope-profiler file without a line profile and without pids.
cp "$here/../fixtures/scope-profiler-h5/mpi-3-ranks.h5" .
cp "$here/../fixtures/scope-profiler-h5/line_profile_work.py" lineprof-src/

# ---- the cases ----------------------------------------------------------------------
# cases.txt: NAME <tab> RUN <tab> SIZE <tab> KEYS (KEYS may be empty; '#'
# starts a comment line; cases named ascii-* run under LC_ALL=C).  RUN may
# carry options after the run's name ("hot --source-dir fixture-src").
checked=0
while IFS=$'\t' read -r name run size keys; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    want="$here/screens/$name.txt"
    read -r -a run_args <<<"$run"
    # "live": a run still going, its newest frames written a few seconds
    # ago on other hosts, so the browser judges it running by how recent
    # they are: written afresh for each case, however long the others took.
    if [[ "${run_args[0]}" == live ]]; then
        rm -rf live
        "$gen" --out live --procs 6 --hours 0.1 --seed 3 --live >/dev/null
    fi
    # Cases named ascii-* run in the C locale: ASCII drawing, names escaped.
    loc=C.UTF-8
    [[ "$name" == ascii-* ]] && loc=C
    if ! LC_ALL=$loc "$tui" "${run_args[@]}" --size "$size" --keys "$keys" --print >"$name.got" 2>"$name.err"; then
        fail "$name: scope-tui exited non-zero: $(cat "$name.err")"
        continue
    fi
    checked=$((checked + 1))
    if ((update)); then
        cp "$name.got" "$want"
        continue
    fi
    if [ ! -f "$want" ]; then
        fail "$name: no expected screen $want (run with --update and review it)"
    elif ! diff -u "$want" "$name.got" >"$name.diff"; then
        fail "$name: screen differs from $want:
$(head -60 "$name.diff")"
    fi
    # Every screen is exactly as tall as asked (or as the last resize
    # made it), and no line is wider, counted in display columns.
    final=$size
    if [[ "$keys" =~ .*\<resize:([0-9]+x[0-9]+)\> ]]; then
        final=${BASH_REMATCH[1]}
    fi
    w=${final%x*} h=${final#*x}
    [ "$(wc -l <"$name.got")" = "$h" ] || fail "$name: $(wc -l <"$name.got") lines, wanted $h"
    widest=$(wc -L <"$name.got")
    [ "$widest" -le "$w" ] || fail "$name: a line is $widest columns wide, the screen $w"
done <"$here/screens/cases.txt"
((update)) && { echo "updated $checked expected screens"; exit 0; }
[ "$checked" -ge 30 ] || fail "only $checked cases ran"
echo "ok: $checked screens as expected"

# ---- the process filter's line on every view it narrows ---------------------------------
# A view whose ops say narrowed is built for the process filter, so it says
# so: the filter line (the third row) shows over the I/O and GPU views too,
# as over the phase tree, the hot lines and the source.
filter_line() { # NAME KEYS WANT
    "$tui" res --size 120x40 --keys "$2" --print >"$1.txt"
    [ "$(sed -n 3p "$1.txt")" = "$3" ] ||
        fail "$1: the third row is not the process filter's line '$3':
$(head -5 "$1.txt")"
}
# The line as the phase tree shows it (filter-process.txt): the worker's
# label, and "Esc clears" right-aligned in the last 14 columns.
filter_line io-filter-line '5jjj<Enter>3' "$(sed -n 3p "$here/screens/filter-process.txt")"
filter_line gpu-filter-line '5G<Enter>4' "$(printf '%-109s%s' ' only learner rank 5 (pid 43568 on node01)' 'Esc clears')"
echo "ok: the process filter's line shows over the I/O and GPU views"

# ---- P saves what is on the screen -------------------------------------------------------
mkdir saves && cd saves
"$tui" ../run --size 120x40 --keys 'jj<Enter>P' --print >shown.txt
[ -f scope-phases-1.txt ] || fail "P saved no scope-phases-1.txt"
# The status line now reports the save; every other row is the same.
head -n 39 shown.txt >shown.top
head -n 39 scope-phases-1.txt >saved.top
cmp -s shown.top saved.top || fail "the saved screen differs from the shown one: $(diff shown.top saved.top | head)"
expect_in shown.txt "saved the screen to scope-phases-1.txt"
"$tui" ../run --size 80x24 --keys '5PP' --print >shown2.txt
if [ ! -f scope-processes-1.txt ] || [ ! -f scope-processes-2.txt ]; then
    fail "two saves did not make scope-processes-1.txt and -2.txt: $(ls)"
fi
expect_in shown2.txt "saved the screen to scope-processes-2.txt"
chmod a-w .
if [ "$(id -u)" != 0 ]; then
    "$tui" ../run --size 80x24 --keys 'P' --print >denied.txt
    expect_in denied.txt "cannot save the screen"
fi
chmod u+w .
cd ..
echo "ok: P saves the screen as shown"

# ---- o opens the phase's source in the editor --------------------------------------------
# scope_gen_run records call sites such as src/actor_io.c:36, relative, as a
# build would: they are looked for as given, then under the processes' cwd.
cat >editor.sh <<'EDIT'
#!/bin/sh
printf '%s\n' "$@" >"$EDITOR_LOG"
exit "${EDITOR_EXIT:-0}"
EDIT
chmod +x editor.sh
export EDITOR_LOG="$tmp/editor.log"
EDITOR="$tmp/editor.sh" "$tui" run --size 120x40 --keys '/frame<Enter>o' --print >o-missing.txt
expect_in o-missing.txt "source src/actor_io.c:36 not found here"
[ -e editor.log ] && fail "the editor ran for a file that does not exist"
mkdir -p src && echo 'int frame;' >src/actor_io.c
EDITOR="$tmp/editor.sh" "$tui" run --size 120x40 --keys '/frame<Enter>o' --print >o-found.txt
expect_in o-found.txt "edited ./src/actor_io.c:36"
[ "$(tr '\n' ' ' <editor.log 2>/dev/null)" = "+36 ./src/actor_io.c " ] ||
    fail "the editor got '$(cat editor.log 2>/dev/null)', wanted +36 ./src/actor_io.c"
rm -f editor.log
VISUAL="$tmp/editor.sh" EDITOR=false "$tui" run --size 120x40 --keys '/frame<Enter>o' --print >o-visual.txt
expect_in o-visual.txt "edited ./src/actor_io.c:36"
EDITOR_EXIT=3 EDITOR="$tmp/editor.sh" "$tui" run --size 120x40 --keys '/frame<Enter>o' --print >o-fail.txt
expect_in o-fail.txt "exited with status 3"
"$tui" run --size 120x40 --keys '5o' --print >o-wrong-view.txt
expect_in o-wrong-view.txt "select a phase in the Phases view"
# On a hot line, and on the Source view's cursor line: the file found where
# the text was (--source-dir), as ./PATH with +LINE.
EDITOR="$tmp/editor.sh" "$tui" hot --source-dir fixture-src --size 120x40 --keys '2jo' --print >o-line.txt
expect_in o-line.txt "edited ./fixture-src/app/kernels.c:15"
[ "$(tr '\n' ' ' <editor.log 2>/dev/null)" = "+15 ./fixture-src/app/kernels.c " ] ||
    fail "o on a line: the editor got '$(cat editor.log 2>/dev/null)'"
rm -f editor.log
EDITOR="$tmp/editor.sh" "$tui" hot --source-dir fixture-src --size 120x40 --keys '2j<Enter>nkko' --print >o-source.txt
expect_in o-source.txt "edited ./fixture-src/app/kernels.c:15"
[ "$(tr '\n' ' ' <editor.log 2>/dev/null)" = "+15 ./fixture-src/app/kernels.c " ] ||
    fail "o on the Source view: the editor got '$(cat editor.log 2>/dev/null)'"
rm -f editor.log
EDITOR="$tmp/editor.sh" "$tui" hot --size 120x40 --keys '2jo' --print >o-line-missing.txt
expect_in o-line-missing.txt "source /scope-fixture/app/kernels.c:15 not found here"
[ -e editor.log ] && fail "the editor ran for a line whose file is nowhere"
EDITOR="$tmp/editor.sh" "$tui" hot-hostile --source-dir fixture-src --size 120x40 --keys '2G<Up><Up>o' --print >o-hostile.txt
expect_in o-hostile.txt 'source /scope-fixture/app/ev\x1b[2Jil\x9b.c:4 not found here'
[ -e editor.log ] && fail "the editor ran for a hostile file name"
echo "ok: o opens the source"

# ---- bad input ---------------------------------------------------------------------------
expect_rc 2 "$tui" run --keys '<Nope>' --print
expect_in err "unknown key <Nope>"
expect_rc 2 "$tui" run --size 10 --print
expect_in err "--size: expected WxH"
expect_rc 2 "$tui" run --view nowhere --print
expect_in err "no view 'nowhere'"
expect_rc 2 "$tui" run --view source --print
expect_in err "no view 'source'"
expect_rc 2 "$tui" run --source-dir ./no-such-dir --print
expect_in err "--source-dir: './no-such-dir' is not a folder"
expect_rc 2 "$tui" nowhere-at-all
expect_in err "neither a command nor a run directory"
expect_rc 2 "$tui" ./nowhere --print
expect_in err "no such run directory"
"$tui" report ./nowhere 2>report.err >/dev/null || true
msg=$(sed 's/^scope-tui report: //' report.err)
expect_in err "$msg"
expect_rc 2 "$tui" run --theme ./no-such-theme.yaml --print
expect_in err "no-such-theme.yaml"
# Themes: a broken file names its line and column; an unknown name lists
# the themes there are; the chosen one is named in the help.
printf 'name: broken\nstyles:\n  header: { fg: blu }\n' >broken.yaml
expect_rc 2 "$tui" run --theme ./broken.yaml --print
expect_in err "broken.yaml:3:"
expect_in err "unknown colour 'blu'"
SCOPE_THEME=no-such-theme expect_rc 2 "$tui" run --print
expect_in err "unknown theme 'no-such-theme'"
expect_in err "high-contrast"
for t in default light high-contrast mono; do
    "$tui" run --theme "$t" --keys 7G --print >"theme.$t" 2>&1 || fail "--theme $t: $(cat "theme.$t")"
    expect_in "theme.$t" "theme: $t"
done
mkdir -p config/scope && echo 'theme: light' >config/scope/config.yaml
"$tui" run --keys 7G --print >theme.config
expect_in theme.config "theme: light"
rm -r config/scope
echo "ok: bad input"

# ---- damaged runs ------------------------------------------------------------------------------
# Every view, every sort, the filter and search over runs whose logs are
# damaged in the middle, cut short, replaced by garbage or emptied: the
# browser draws what can be read and says what could not (the sanitizer
# build runs this too).
mkdir damaged
cp -r run damaged/mid && cp -r run damaged/cut && cp -r run damaged/junk
logs=(damaged/mid/workers/node01/*.scope)
for f in "${logs[@]}"; do
    size=$(stat -c %s "$f")
    # 64 bytes of 0xa5 over the middle of every log.
    printf '%*s' 64 '' | tr ' ' '\245' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none
done
for f in damaged/cut/workers/node01/*.scope; do truncate -s $(($(stat -c %s "$f") * 3 / 10)) "$f"; done
junk=(damaged/junk/workers/node01/*.scope)
head -c 5000 /dev/urandom >"${junk[0]}"
: >"${junk[1]}"
walk='*G5s<Enter>ssss<Enter>6G7G3G4G1/a<Enter>nNs<Esc>sssssssr5jjjjjjjjj<Enter><PgDn>3G4G'
for d in mid cut junk; do
    if ! "$tui" "damaged/$d" --size 100x30 --keys "$walk" --print >"damaged.$d" 2>"damaged.$d.err"; then
        fail "damaged run '$d': scope-tui failed: $(head -5 "damaged.$d.err")"
        continue
    fi
    "$tui" "damaged/$d" --size 100x30 --keys 6 --print >"damaged.$d.overview"
    expect_in "damaged.$d.overview" "CAVEATS ("
    grep -q "CAVEATS (0)" "damaged.$d.overview" && fail "damaged run '$d': no caveat shown"
done
echo "ok: damaged runs browse"

# ---- names are data ------------------------------------------------------------------------
if [ -n "$workload" ]; then
    SCOPE_CPU_TIME=always "$workload" names names >wl.out 2>&1 || fail "an_workload names: $(cat wl.out)"
    for loc in C.UTF-8 C; do
        LC_ALL=$loc "$tui" names --size 120x40 --keys '*' --print >"names.$loc" 2>&1 ||
            fail "names under $loc: $(cat "names.$loc")"
        if grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "names.$loc"; then
            fail "a control character reached the screen under $loc"
        fi
        expect_in "names.$loc" 'compute\x1b[31m\xff'
    done
    LC_ALL=C grep -q $'[\x80-\xff]' names.C && fail "non-ASCII on the screen under LC_ALL=C"
    # Typed characters beyond ASCII search too (some share numbers with
    # ncurses' KEY_ codes: U+0102 must not move the cursor down).
    LC_ALL=C.UTF-8 "$tui" names --size 120x40 --keys '/休<Enter>' --print >names.search
    expect_in names.search "1 row match '休'"
    LC_ALL=C.UTF-8 "$tui" names --size 120x40 --keys 'Ă' --print >names.key
    expect_in names.key "U+0102 does nothing here"
    expect_in names.C.UTF-8 '休息\u009b'
    expect_in names.C '\u4f11\u606f\u009b'
    echo "ok: names escaped on screen"
fi
finish
echo "screens: all checks passed"
