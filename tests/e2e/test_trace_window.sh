#!/usr/bin/env bash
# End to end: trace windows (SCOPE_TRACE, scope_trace_window) recorded by
# real programs and exported as Chrome traces, checked event by event
# against what the programs know of themselves (check_chrome_trace.py).
# usage: test_trace_window.sh SCOPE_TUI TRACE_WORKLOAD PIPELINE
set -euo pipefail
scope_tui=$1
workload=$2
pipeline=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
check="$here/check_chrome_trace.py"
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE SCOPE_TRACE SCOPE_TRACE_EVENTS
# shellcheck source=tests/e2e/lib.sh
source "$here/lib.sh"

# check_trace RUN OUT ARGS...: exports RUN, then check_chrome_trace.py on it.
check_trace() {
    local run=$1 json=$2
    shift 2
    expect_rc 0 "$scope_tui" export "$run" --format chrome -o "$json"
    python3 "$check" "$json" "$@" 2>check.err || fail "$run: $(cat check.err)"
}

# Steps 5 to 8 of 20 of a process, its forked child and a second thread in
# each: exactly those steps, their inner phases, the polls inside them, the
# counts made in them; nothing before step 5 began or after step 8 ended.
SCOPE_RUN_DIR=$PWD/env SCOPE_TRACE=step:5-8 expect_rc 0 "$workload" env.times 20 --thread --fork
check_trace env env.json window env.times 5 8
# Each process and thread named by its role and pid (no launcher: no rank),
# as the run records them, none named like another.
"$scope_tui" report --json env >env.run.json
python3 "$check" env.json names env.run.json 2>check.err || fail "env names: $(cat check.err)"

# The first entry and a window of one: the bounds are inclusive.
SCOPE_RUN_DIR=$PWD/one SCOPE_TRACE=step:1-1 expect_rc 0 "$workload" one.times 4
check_trace one one.json window one.times 1 1

# scope_trace_window from the program wins over SCOPE_TRACE.
SCOPE_RUN_DIR=$PWD/api SCOPE_TRACE=step:1-2 expect_rc 0 "$workload" api.times 10 --api 3-4
check_trace api api.json window api.times 3 4

# Asked for once "step" has a node: its entries 2 and 3 after the call,
# steps 4 and 5, through the test every entry makes until the window opens.
SCOPE_RUN_DIR=$PWD/late-api expect_rc 0 "$workload" late-api.times 8 --thread --api-late 2-3
check_trace late-api late-api.json window late-api.times 4 5

# A cap of 12 events, reached in the window's second step: the window ends
# there, capped; the report says so and the trace holds no more than 12.
SCOPE_RUN_DIR=$PWD/cap SCOPE_TRACE=step:2-30 SCOPE_TRACE_EVENTS=12 expect_rc 0 "$workload" cap.times 40
check_trace cap cap.json window cap.times 2 30 --capped 12
expect_rc 0 "$scope_tui" report cap
expect_in_output "trace window step:2-30 ended early at its cap of 12"

# SIGKILL inside step 6 of a 3-9 window, after a flush: what was flushed is
# kept (steps 3 to 5, step 6's inner phases and count) and the window reads
# as still open.
SCOPE_RUN_DIR=$PWD/kill SCOPE_TRACE=step:3-9 expect_rc 137 "$workload" kill.times 12 --kill-at 6
check_trace kill kill.json window kill.times 3 9 --killed-at 6

# Bad values: one line on stderr per process, no window, the program runs on.
for bad in step step: step:0-3 step:5-3 :1-2 step:1-2x step:-1-2 step:1 "step:1-99999999999999999999"; do
    SCOPE_RUN_DIR=$PWD/bad SCOPE_TRACE=$bad expect_rc 0 "$workload" bad.times 3
    expect_in err "SCOPE_TRACE='$bad' is not PHASE:FIRST-LAST"
done
expect_rc 2 "$scope_tui" export bad --format chrome -o bad.json
expect_in_output "the run has no trace window: record one with SCOPE_TRACE=PHASE:FIRST-LAST"
[ ! -e bad.json ] || fail "a failed export left bad.json"

# A window that never opened (entry 50 of 3) says so.
SCOPE_RUN_DIR=$PWD/late SCOPE_TRACE=step:50-60 expect_rc 0 "$workload" late.times 3
expect_rc 2 "$scope_tui" export late --format chrome -o late.json
expect_in_output "the run's trace window never opened"

# One run on two hosts whose CLOCK_MONOTONIC differ by 1000 s (the second
# in a time and host-name namespace of its own), run at the same time: each
# host is placed on the wall clock, so their windows line up within seconds
# rather than 1000 s apart, and each process's events still match its own
# clock.  Skipped where namespaces cannot be made (not root, old kernel).
if unshare -T --monotonic=1000 -u true 2>/dev/null; then
    SCOPE_RUN_ID=two-hosts SCOPE_RUN_DIR=$PWD/hosts SCOPE_TRACE=step:2-4 \
        "$workload" hosts.times 6 >/dev/null 2>&1 &
    first=$!
    SCOPE_RUN_ID=two-hosts SCOPE_RUN_DIR=$PWD/hosts SCOPE_TRACE=step:2-4 expect_rc 0 \
        unshare -T --monotonic=1000 -u sh -c 'hostname trace-host-b && exec "$0" "$@"' \
        "$workload" hosts.times 6
    wait "$first" || fail "the first host's program failed"
    check_trace hosts hosts.json window hosts.times 2 4
    python3 "$check" hosts.json hosts 2 30 2>check.err || fail "two hosts: $(cat check.err)"
else
    echo "note: no time namespace here; the two-host case is skipped" >&2
fi

# The example pipeline, a learner and two actors, iterations 3 to 5 of 10:
# three iterations in each process, and the document's schema.
SCOPE_TRACE=iteration:3-5 expect_rc 0 "$pipeline" --quick --actors 2 --run-dir pipe --out ckpt
check_trace pipe pipe.json phase iteration 3 3
python3 "$check" pipe.json phase load_batch 1 3 2>check.err || fail "learner: $(cat check.err)"
# The two actors are told apart by pid (not both "actor @ HOST"), and their
# threads too (not all "exe", the name of a program spawned by /proc/self/exe).
"$scope_tui" report --json pipe >pipe.run.json
python3 "$check" pipe.json names pipe.run.json 2>check.err || fail "pipeline names: $(cat check.err)"
# Each log says how its window went: its newest TRACE_WINDOW (snapshot
# frames restate it) says closed.
closed=0
for log in pipe/workers/*/*.scope; do
    expect_rc 0 "$scope_tui" dump "$log"
    grep TRACE_WINDOW out | tail -n 1 | grep -q 'TRACE_WINDOW phase [0-9]* entries 3-5 closed' &&
        closed=$((closed + 1))
done
[ "$closed" = 3 ] || fail "not three closed windows in the pipeline's logs: $closed"

finish
