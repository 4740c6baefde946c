#!/usr/bin/env bash
# `scope-tui record -- sh -c '...'` and `bash -c`: a shell that leaves by
# _exit (dash does, for every -c) or by exec (bash runs its last command
# that way) is not killed, and its runtime is its life, checked against
# this test's own clock: at least the sleep it waited for, at most the
# wall time of the whole record.
#
# Usage: test_record_wrappers.sh SCOPE_TUI SOURCE_DIR
set -euo pipefail
tui=$1
src=$2
. "$src/../e2e/lib.sh"

asan_first "$tui"

# check RUN ROLE WALL_NS: the process of ROLE ended by exit and lived at
# least 0.5 s (its sleep) and at most WALL_NS.
check() {
    "$tui" report --json "$1" >"$1.json" || fail "report --json $1 exited $?"
    python3 - "$1.json" "$2" "$3" <<'PY' || fail "$1: $2's end or runtime is wrong: $(head -c 800 "$1.json")"
import json, sys
d = json.load(open(sys.argv[1]))
role, wall = sys.argv[2], int(sys.argv[3])
ws = [w for w in d["workers"] if w["role"] == role]
assert len(ws) == 1, [(w["role"], w["end"]) for w in d["workers"]]
w = ws[0]
print(f"{role}: end {w['end']}, runtime {w['runtime_ns'] / 1e9:.3f} s of a {wall / 1e9:.3f} s record")
assert w["end"] == "exit", w["end"]
assert 500_000_000 <= w["runtime_ns"] <= wall, (w["runtime_ns"], wall)
for o in d["workers"]:
    assert o["end"] == "exit", (o["role"], o["end"])
PY
}

# dash: a loop after the sleep, then _exit; then the same ending in exec.
for script in 'sleep 0.5; i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done' \
    'sleep 0.5; exec /bin/true'; do
    t0=$(date +%s%N)
    expect_rc 0 "$tui" record -o rec-sh -- sh -c "$script"
    t1=$(date +%s%N)
    check rec-sh sh $((t1 - t0))
    expect_rc 0 "$tui" report --strict rec-sh
    rm -rf rec-sh
done

# bash execs its last command: the shell's life ends there, by exec.
t0=$(date +%s%N)
expect_rc 0 "$tui" record -o rec-bash -- bash -c 'sleep 0.5; /bin/true'
t1=$(date +%s%N)
check rec-bash bash $((t1 - t0))
expect_rc 0 "$tui" report --strict rec-bash
grep -qF "never shut down cleanly" output && fail "a process of bash -c reads as killed: $(cat output)"

finish
