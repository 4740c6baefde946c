#!/usr/bin/env bash
# End to end: compare's hot lines, roles and rates on real runs.
#
#  - Hot lines: cmp_lines_workload.c's two kernels, sampled for real (CPU
#    time, so the shares hold on a loaded machine): 2:1 units of work in the
#    base, 2:3 with --slow, so kernel_a's share of the worker role's samples
#    falls from 2/3 to 2/5 and kernel_b's rises from 1/3 to 3/5; each is
#    checked against those ratios within 4 of the standard deviations the
#    comparison states for the change (at least 8 points: CPU-time signals
#    come at the kernel's tick, 250 Hz here, so a few hundred samples are
#    far fewer independent looks), and the change marked
#    beyond the samples' noise.  The moved build is the same source five
#    lines lower: its lines are matched by function, "moved", with both line
#    numbers as the program prints them.
#  - Roles: a run with a "helper" role and 3 workers against one without
#    and 2: the helper appeared (or vanished), the workers went 2 -> 3.
#  - Rates: an exact I/O phase's disk rate reads "X/s -> Y/s (change)",
#    never "X -> Y (change)/s".
# usage: test_compare_lines.sh SCOPE_TUI WORKLOAD WORKLOAD_MOVED IO_WORKLOAD
set -euo pipefail
scope_tui=$1
workload=$2
moved=$3
io_workload=$4
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export SCOPE_LINES=1 SCOPE_LINES_HZ=500 SCOPE_LINES_PROJECT=$src SCOPE_QUIET=1

record() { # RUN PROGRAM ARGS...
    local run=$1 prog=$2
    shift 2
    "$prog" "$run" "$@" >"$run.lines" || fail "$prog $run $* failed"
}

record base "$workload"
record slow "$workload" --slow --procs 3 --helper
record moved "$moved"
line_of() { awk -v k="$2" '$1 == "LINE" && $2 == k { print $3 }' "$1.lines"; }
a_base=$(line_of base a)
b_base=$(line_of base b)
a_moved=$(line_of moved a)
[ "$a_moved" = $((a_base + 5)) ] || fail "the moved build's kernel_a is at $a_moved, not $a_base + 5"

# ---- hot lines: shares within 4 sd (8 points at least) of the work's ratios --
expect_rc 0 "$scope_tui" compare --json base slow
python3 - out "$a_base" "$b_base" <<'PY' || fail "hot lines of base -> slow: $(cat out | head -c 3000)"
import json, sys
d = json.load(open(sys.argv[1]))
la, lb = int(sys.argv[2]), int(sys.argv[3])
role = next(r for r in d["roles"] if r["name"] == "worker")
lines = role["lines"]
assert lines["sampled_a"] and lines["sampled_b"], lines
rows = {(r["function"], r["line_a"]): r for r in lines["rows"]}
a, b = rows[("kernel_a", la)], rows[("kernel_b", lb)]
for r in (a, b):
    assert r["side"] == "both" and not r["moved"] and r["line_b"] == r["line_a"], r
    assert r["file"].endswith("cmp_lines_workload.c"), r
    assert r["significant"] is True, r
    s = r["share"]
    assert abs(s["delta"] - (s["b"] - s["a"])) < 1e-9, s
# A kernel's loop may be sampled on its header's line too (a sanitizer's
# build splits it): each function's lines together hold its share.
want = {"kernel_a": (2 / 3, 2 / 5), "kernel_b": (1 / 3, 3 / 5)}
for fn, (wa, wb) in want.items():
    sa = sum(r["share"]["a"] or 0 for r in lines["rows"] if r["function"] == fn)
    sb = sum(r["share"]["b"] or 0 for r in lines["rows"] if r["function"] == fn)
    # The change's sd bounds each side's own (it is both sides' together).
    sds = [r["delta_sd"] for r in lines["rows"] if r["function"] == fn and r["delta_sd"]]
    tol = max(0.08, 4 * max(sds))
    assert tol < 0.25, (fn, "too few samples to judge", tol)
    assert abs(sa - wa) < tol and abs(sb - wb) < tol, (fn, sa, sb, wa, wb, tol)
# The roles: worker 2 -> 3 processes, helper only in B.
helper = next(r for r in d["roles"] if r["name"] == "helper")
assert helper["side"] == "only_in_b", helper["side"]
assert role["nprocs"]["a"] == 2 and role["nprocs"]["b"] == 3, role["nprocs"]
PY
expect_rc 0 "$scope_tui" compare --width 120 base slow
expect_in out "Roles (processes A → B): "
grep -qE 'helper appeared \(1 process\)' out || fail "no 'helper appeared': $(head -12 out)"
grep -qE 'worker 2 (→|->) 3' out || fail "no 'worker 2 -> 3': $(head -12 out)"
expect_in out "Hot lines (share of the role's line samples"
grep -qE "^  kernel_b +cmp_lines_workload\.c:$b_base +[0-9.]+% (→|->) [0-9.]+% +\+[0-9.]+ pts \*$" out ||
    fail "no kernel_b row with its rise marked: $(grep -A6 'Hot lines' out)"
expect_rc 0 "$scope_tui" compare --width 120 slow base
grep -qE 'helper vanished \(1 process\)' out || fail "no 'helper vanished': $(head -12 out)"
ok "hot lines and roles, base -> slow"

# ---- lines that moved: matched by function ----------------------------------
expect_rc 0 "$scope_tui" compare --json base moved
python3 - out "$a_base" "$a_moved" <<'PY' || fail "moved lines: $(cat out | head -c 3000)"
import json, sys
d = json.load(open(sys.argv[1]))
la, lm = int(sys.argv[2]), int(sys.argv[3])
rows = next(r for r in d["roles"] if r["name"] == "worker")["lines"]["rows"]
a = next(r for r in rows if r["function"] == "kernel_a" and r["line_a"] == la)
assert a["side"] == "both" and a["moved"] is True, a
assert a["line_b"] == lm, a
# Every line of the kernels moved by the same five lines: every line both
# runs sampled, and every line with 5% of the samples on either side (a
# line sampled a handful of times, a loop's header, may be in one run only).
for r in rows:
    if r["function"] not in ("kernel_a", "kernel_b"):
        continue
    big = max(v or 0 for v in (r["share"]["a"], r["share"]["b"])) >= 0.05
    if big or r["side"] == "both":
        assert r["side"] == "both" and r["line_b"] == r["line_a"] + 5, r
PY
expect_rc 0 "$scope_tui" compare --width 120 base moved
grep -qE "^  kernel_a +cmp_lines_workload\.c:$a_base(→|->)$a_moved " out ||
    fail "kernel_a not shown as moved: $(grep -A6 'Hot lines' out)"
# --no-lines leaves them out.
expect_rc 0 "$scope_tui" compare --no-lines base moved
grep -q "Hot lines" out && fail "--no-lines still shows hot lines"
ok "moved lines"

# ---- a rate reads as a rate ---------------------------------------------------
if [ "$(stat -f -c %T .)" = tmpfs ]; then
    fail "the scratch directory $PWD is on tmpfs, which has no disk bytes: set TMPDIR to a disk"
else
    mkdir d1 d2
    "$io_workload" io1 d1 >io1.out 2>&1 || fail "io workload: $(cat io1.out)"
    "$io_workload" io2 d2 >io2.out 2>&1 || fail "io workload: $(cat io2.out)"
    expect_rc 0 "$scope_tui" compare --no-lines --width 200 io1 io2
    grep -E '^I/O of checkpoint \(exact\)' out >io.line || fail "no exact I/O line: $(cat out)"
    grep -qE ', disk [0-9.]+ [kMG]?B/s (→|->) [0-9.]+ [kMG]?B/s( \([^)]*\))?$' io.line ||
        fail "the disk rate does not read as a rate: $(cat io.line)"
    grep -q ')/s' io.line && fail "a unit after the change: $(cat io.line)"
    ok "rates"
fi
finish
