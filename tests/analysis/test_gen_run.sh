#!/usr/bin/env bash
# scope_gen_run writes logs in the shape of format 1.7 (docs/format.md
# 5.2.1): snapshot frames on the recorder's schedule, each complete, with
# resource series made of the process's own RESOURCE intervals.
#
#   - a finished run with resources, a learner's GPUs and a trace window:
#     --verify passes (bench/gen_verify.c and gen_verify_snapshot.c: the
#     schedule, every definition, aggregate, mark copy and series bucket of
#     every snapshot, and the log read from its newest snapshot alone); each
#     log ends in a snapshot after its exit frame;
#   - independently of the generator's own check, from `scope-tui dump`: the
#     exit snapshot's series sums and sample counts equal the sums and counts
#     of the RESOURCE intervals before it, figure by figure, and it holds no
#     event record;
#   - a --live run leaves snapshots too, and they pass the same check;
#   - two --live runs of one seed, seconds apart (other wall-clock times,
#     other compressed sizes), put their snapshots after the same frames and
#     report the same figures: the browser's live screens are compared with
#     saved ones;
#   - --jobs 2 writes the same bytes as one process;
#   - the existing reader reads the runs: `report` succeeds on both and the
#     logs read without damage.
#
# Usage: test_gen_run.sh SCOPE_TUI GEN_RUN
set -euo pipefail
tui=$1
gen_run=$2
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

# ---- a finished run ----------------------------------------------------------------

expect_rc 0 "$gen_run" --out done --procs 3 --hours 0.5 --resources --trace --verify
expect_in_output "verified 3 files: ok"
mapfile -t logs < <(find done/workers -name '*.scope' | sort)
[ "${#logs[@]}" = 3 ] || fail "finished run: ${#logs[@]} logs, wanted 3"

for log in "${logs[@]}"; do
    expect_rc 0 "$tui" dump --frames "$log"
    expect_in_output "nothing skipped"
    snaps=$(grep -c ', snapshot,' out || true)
    [ "$snaps" -ge 3 ] || fail "$log: $snaps snapshot frames, wanted several"
    # The last two frames: the exit frame, then its snapshot.
    tail -3 out | head -2 >last2
    sed -n 1p last2 | grep -q ', exit, mono' || fail "$log: the next to last frame is not the exit frame: $(cat last2)"
    sed -n 2p last2 | grep -q ', exit, snapshot,' || fail "$log: no snapshot after the exit frame: $(cat last2)"
done

# dump_sums LOG: from the whole dump, per figure, the RESOURCE intervals'
# count and sum before the last snapshot, against that snapshot's series.
series_vs_events() {
    "$tui" dump "$1" | python3 -c '
import re, sys
fields = {"rss": 1, "user_ns": 2, "sys_ns": 3, "disk_r": 4, "disk_w": 5, "chars_r": 6,
          "chars_w": 7, "rss_peak": 8}
frames, cur = [], None
for line in sys.stdin:
    if line.startswith("frame "):
        cur = {"snap": ", snapshot," in line, "recs": []}
        frames.append(cur)
    elif cur is not None and line.startswith("  "):
        cur["recs"].append(line.strip())
last = max(i for i, f in enumerate(frames) if f["snap"])
events = {}
for f in frames[:last]:
    for r in f["recs"]:
        if not r.startswith("RESOURCE at ") or " thread " in r:
            continue
        for name, fig in fields.items():
            m = re.search(r"\b%s (\d+)" % name, r)
            if m:
                n, s = events.get(fig, (0, 0))
                events[fig] = (n + 1, s + int(m.group(1)))
series, bad = {}, []
for r in frames[last]["recs"]:
    kind = r.split()[0]
    if kind in ("RESOURCE", "MARK", "TRACE", "TRACE_COUNTS"):
        bad.append("an event in the snapshot: " + r[:80])
    if kind != "RESOURCE_SERIES" or not r.startswith("RESOURCE_SERIES thread 0 "):
        continue
    fig = int(re.search(r"figure (\d+)", r).group(1))
    if re.search(r"device [1-9]", r) or fig not in fields.values():
        continue
    total = int(re.search(r"(\d+) samples in", r).group(1))
    buckets = re.findall(r"\d+=(\d+)x\[\d+\.\.\d+\]/(\d+)", r)
    series[fig] = (total, sum(int(n) for n, _ in buckets), sum(int(s) for _, s in buckets))
for fig, (n, s) in sorted(events.items()):
    if fig not in series:
        bad.append("figure %d: no series" % fig)
    elif series[fig] != (n, n, s):
        bad.append("figure %d: series %s, events %d intervals summing to %d" % (fig, series[fig], n, s))
if not events:
    bad.append("no RESOURCE interval before the last snapshot")
print("\n".join(bad) if bad else "series match events: %d figures" % len(events))
'
}

for log in "${logs[@]}"; do
    out=$(series_vs_events "$log")
    [ "$out" = "series match events: 8 figures" ] || fail "$log: $out"
done

expect_rc 0 "$tui" report done
expect_in_output "Processes 3"

# --jobs: the same bytes, written by child processes.
expect_rc 0 "$gen_run" --out jobs --procs 3 --hours 0.5 --resources --trace --jobs 2
diff -r done jobs >/dev/null || fail "--jobs 2 wrote other bytes than one process"

# ---- a live run ----------------------------------------------------------------------

expect_rc 0 "$gen_run" --out live --procs 2 --hours 0.3 --resources --live
mapfile -t live < <(find live/workers -name '*.scope' | sort)
expect_rc 0 "$gen_run" --check-snapshots "${live[@]}"
expect_in_output "verified 2 files: ok"
for log in "${live[@]}"; do
    expect_rc 0 "$tui" dump --frames "$log"
    grep -q ', snapshot,' out || fail "$log: a live run's log without snapshots"
    grep -q ', exit,' out && fail "$log: a live run's log with an exit frame"
    out=$(series_vs_events "$log")
    [ "$out" = "series match events: 8 figures" ] || fail "$log (live): $out"
done
expect_rc 0 "$tui" report live

# Two live runs of one seed, the second's wall clock 1.2 s later.  64
# processes: with the byte rule alone, at least one of them put a snapshot
# after another frame in each of 4 tries.
expect_rc 0 "$gen_run" --out seed-a --procs 64 --hours 0.1 --live
sleep 1.2
expect_rc 0 "$gen_run" --out seed-b --procs 64 --hours 0.1 --live
snapshot_frames() { # the numbers of a log's snapshot frames, one line
    "$tui" dump --frames "$1" | awk '/^frame .*, snapshot,/ {printf "%s ", $2}'
}
mapfile -t seeded < <(find seed-a/workers -name '*.scope' | sort)
[ "${#seeded[@]}" -eq 64 ] || fail "seed-a: ${#seeded[@]} logs, not 64"
for log in "${seeded[@]}"; do
    again=seed-b/${log#seed-a/}
    [ -f "$again" ] || fail "$again: the second live run has no such log"
    [ "$(snapshot_frames "$log")" = "$(snapshot_frames "$again")" ] ||
        fail "$log: snapshots after other frames in a second run of the seed:" \
            "$(snapshot_frames "$log") / $(snapshot_frames "$again")"
done
# Every figure but the times of day and the directory's name.
figures() {
    "$tui" report "$1" | grep -v -E '[0-9]{4}-[0-9]{2}-[0-9]{2}|ago|^Run ' || true
}
[ -n "$(figures seed-a)" ] || fail "report seed-a printed nothing"
diff <(figures seed-a) <(figures seed-b) >diff.out ||
    fail "two live runs of one seed report other figures: $(head -20 diff.out)"

finish
