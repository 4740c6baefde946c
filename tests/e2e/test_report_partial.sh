#!/usr/bin/env bash
# Figures that rest on part of the entries say so, in the text report, the
# JSON and the browser's detail pane (partial_workload.c: percentiles from
# 80 of 85 entries after a SIGKILL, a wait% read on few of 30 entries: 1
# on a quiet machine, a few more when an entry is preempted, which gives the
# phase the time the adaptive rule wants for another read).
#
# Usage: test_report_partial.sh SCOPE_TUI PARTIAL_WORKLOAD
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
prog=$2
# shellcheck source=tests/e2e/lib.sh
source "$here/lib.sh"
export LC_ALL=C.UTF-8

SCOPE_FRAME_INTERVAL=0.1 "$prog" run >prog.out 2>prog.err &
pid=$!
for _ in $(seq 300); do
    grep -q ready prog.out 2>/dev/null && break
    sleep 0.1
done
grep -q ready prog.out || fail "partial_workload never said ready: $(cat prog.err)"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true

# How many entries of "brief" had their CPU time read, from the JSON.
expect_rc 0 "$tui" report run --json
python3 - out <<'PY' || fail "report --json: hist_count and cpu_count"
import json, sys
doc = json.load(open(sys.argv[1]))
phases = {p["path"]: p for r in doc["roles"] for p in r["phases"]}
assert phases["step"]["count"] == 85 and phases["step"]["hist_count"] == 80, phases["step"]
assert phases["brief"]["count"] == 30 and 1 <= phases["brief"]["cpu_count"] <= 5, phases["brief"]
open("cpu_count", "w").write(str(phases["brief"]["cpu_count"]))
PY
n=$(cat cpu_count)

expect_rc 0 "$tui" report run --width 100
expect_in out "FROM PART OF THE ENTRIES"
expect_in out "percentiles as of 80 of 85 entries"
expect_in out "wait% from $n of 30 entries"
grep -E '^  step +percentiles as of 80 of 85 entries$' out >/dev/null ||
    fail "no line for step: $(grep -A4 'PART OF' out)"

# The browser's detail pane, on "step" and on "brief".
expect_rc 0 "$tui" run --size 120x40 --keys '/step<Enter>' --print
expect_in out "(as of 80 of 85 entries)"
expect_rc 0 "$tui" run --size 120x40 --keys '/brief<Enter>' --print
expect_in out "(from $n of 30 entries)"

finish
