#!/usr/bin/env bash
# Figures that rest on part of the entries say so, in the text report, the
# JSON and the browser's detail pane (partial_workload.c: percentiles from
# 80 of 85 entries after a SIGKILL).  Which entries read CPU time is set for
# each run, never left to the adaptive rule's measured default, which
# varies with the machine (the cost of one read) and its load (preempted
# entries buy reads): a machine whose read cost 1.4 us read "step" on 12 of
# 85 entries where this test once expected all of them.
#   run-all:  SCOPE_CPU_TIME=always, every entry reads: the percentiles'
#               note alone, for "step", and none for "brief";
#   run-one:  SCOPE_CPU_MIN_US=1000000000, each phase reads its first
#               entry alone: "wait% from 1 of 30 entries" for "brief", and
#               both notes on one line for "step".
#
# Usage: test_report_partial.sh SCOPE_TUI PARTIAL_WORKLOAD
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
prog=$2
# shellcheck source=tests/e2e/lib.sh
source "$here/lib.sh"
export LC_ALL=C.UTF-8

# record RUN ENV... : runs partial_workload into RUN with the settings ENV,
# waits until it has stopped itself after the frame that carries its last
# entries (an event, not a length of time; the bound is for a recorder that
# never writes it), and kills it as a crash would.
record() {
    local run=$1 pid state=""
    shift
    env SCOPE_FRAME_INTERVAL=0.5 SCOPE_HIST_INTERVAL=86400 SCOPE_SAMPLE_INTERVAL=0 "$@" "$prog" "$run" \
        >"$run.out" 2>"$run.err" &
    pid=$!
    for _ in $(seq 1200); do
        state=$(ps -o stat= -p "$pid" 2>/dev/null || true)
        [[ $state == [TZ]* || -z $state ]] && break
        sleep 0.1
    done
    [[ $state == T* ]] || fail "$run: partial_workload did not stop itself (state '$state'): $(cat "$run.err")"
    grep -q ready "$run.out" || fail "$run: partial_workload never said ready: $(cat "$run.err")"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
}

# counts RUN : "PHASE count hist_count cpu_count" for each phase of RUN,
# from the report's JSON.
counts() {
    "$tui" report "$1" --json | python3 -c '
import json, sys
doc = json.load(sys.stdin)
for r in doc["roles"]:
    for p in r["phases"]:
        print(p["path"], p["count"], p["hist_count"], p["cpu_count"])
'
}

# expect_counts RUN LINE... : counts RUN prints these lines.
expect_counts() {
    local run=$1 got want
    shift
    got=$(counts "$run")
    want=$(printf '%s\n' "$@")
    [[ $got == "$want" ]] || fail "$run: phase, count, hist_count, cpu_count
$got
wanted
$want"
}

# expect_part RUN PHASE NOTE...: the text report's lines under FROM PART OF
# THE ENTRIES are exactly these, one per PHASE NOTE pair, in order: the
# phase's name, then its note.
expect_part() {
    local run=$1 got want=""
    shift
    expect_rc 0 "$tui" report "$run" --width 100
    expect_in out "FROM PART OF THE ENTRIES"
    got=$(sed -n '/^FROM PART OF THE ENTRIES/,/^$/p' out | sed '1d;/^$/d' | sed -E 's/^  ([^ ]+) +/\1|/')
    while (($# >= 2)); do
        want+="$1|$2"$'\n'
        shift 2
    done
    [[ $got == "${want%$'\n'}" ]] || fail "$run: under FROM PART OF THE ENTRIES
$got
wanted (phase|note)
$want"
}

record run-all SCOPE_CPU_TIME=always
expect_counts run-all "step 85 80 85" "brief 30 30 30"
expect_part run-all step "percentiles as of 80 of 85 entries"
expect_rc 0 "$tui" run-all --size 120x40 --keys '/step<Enter>' --print
expect_in out "(as of 80 of 85 entries)"
ok "every entry read: the percentiles' note alone"

record run-one SCOPE_CPU_TIME=adaptive SCOPE_CPU_MIN_US=1000000000
expect_counts run-one "step 85 80 1" "brief 30 30 1"
expect_part run-one step "percentiles as of 80 of 85 entries; wait% from 1 of 85 entries" \
    brief "wait% from 1 of 30 entries"
expect_rc 0 "$tui" run-one --size 120x40 --keys '/brief<Enter>' --print
expect_in out "(from 1 of 30 entries)"
ok "the first entry read alone: the wait% note"

finish
