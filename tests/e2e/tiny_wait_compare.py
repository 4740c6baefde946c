"""Compares a run's reported wait% with the truth its program printed.

Usage: python3 tiny_wait_compare.py TRUTH REPORT_JSON REPORT_TEXT RULE [SANITIZED]

TRUTH holds "PATH WALL_NS CPU_NS" lines (tiny_workload's stdout), REPORT_JSON
the output of `scope-tui report --json` (its wait_range too), REPORT_TEXT that of
`scope-tui report --width 160` (its FROM PART OF THE ENTRIES block).  Prints
the figures (true and reported mean wait of the 300 tiny phases, how many
read exactly 0 %, the worst phase, spin1's and micro's) and exits 1 with a
FAIL line for each bound broken.

The bounds are the test's tolerance, from runs beside two busy loops:
  - the mean reported wait of those of the 300 phases read on every entry
    within 2 points of their true mean (the issue read 8.1 % against 11.1 %
    on another machine; here it holds to 0.2 points with the per-entry cap
    or without); each phase read on part of its entries (the adaptive rule)
    with its truth inside the range report --json's wait_range says, to
    the point, but for at most 2 % of them (none by more than 5 points: the
    entries read carry a short entry's measurement error);
  - how many phases read on all their entries are more than 10 points off
    their truth, and how many truly waiting 10 % or more read 0 %, is
    printed, not judged (see below);
  - under SCOPE_CPU_TIME=always, spin1 and micro (1 us entries) within 3
    points, and their CPU time from -8 % to +12 % beyond the truth (the
    recorder's own code between its reads and the program's): a read of the
    CPU clock left in would be 20 % or more;
  - under the adaptive rule, which reads a sample of their entries, spin1
    and micro within 3 points, or the truth inside the range the report
    says for all their entries ("83 to 92% over all"), to the point: the
    range holds the wait% read and the truth alike, and is said from 3
    points wide, so a figure more than 3 points off says it.
"""
import json
import re
import sys


def main():
    truth_path, report_path, text_path, rule = sys.argv[1:5]
    sanitized = len(sys.argv) > 5 and sys.argv[5] == "1"
    ranges = {}
    with open(text_path) as f:
        for line in f:
            m = re.match(r"  (\S+) +wait% from .* entries: (\d+) to (\d+)% over all$", line)
            if m:
                ranges[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    truth, clocks = {}, {}
    with open(truth_path) as f:
        for line in f:
            path, wall, cpu = line.split()
            wall, cpu = int(wall), int(cpu)
            truth[path] = max(0.0, min(1.0, 1.0 - cpu / wall)) * 100 if wall else 0.0
            clocks[path] = (wall, cpu)
    with open(report_path) as f:
        doc = json.load(f)
    got, figures = {}, {}

    def walk(phases):
        for p in phases:
            figures[p["path"]] = p
            if p.get("wait") is not None:
                got[p["path"]] = p["wait"] * 100
            walk(p.get("children") or [])

    for role in doc["roles"]:
        walk(role["phases"])
    failures = []
    tiny = sorted(p for p in truth if p.startswith("tiny/"))
    missing = [p for p in tiny + ["spin1", "micro"] if p not in got]
    if missing:
        print(f"FAIL: no wait% for {len(missing)} phases, first {missing[0]}")
        return 1
    zeros = sum(1 for p in tiny if got[p] == 0)
    # Phases read on every entry are judged by their mean; one whose wait%
    # rests on fewer says so ("wait% from 4 of 5 entries") and the range it
    # allows over all of them (report --json's wait_range), which must hold
    # its truth: the adaptive rule's reads are not a fair sample of short
    # entries (docs/recorder.md), so their mean leans (under a load average
    # of 20, 41.8 % against a true 43.9 %).
    whole = [p for p in tiny if figures[p]["cpu_count"] == figures[p]["count"]]
    part = [p for p in tiny if p not in whole]
    judged = whole or tiny
    true_mean = sum(truth[p] for p in judged) / len(judged)
    got_mean = sum(got[p] for p in judged) / len(judged)
    worst = max(judged, key=lambda p: abs(got[p] - truth[p]))
    # The range is exact about the entries left unread; the entries read
    # carry the measurement error of any short entry (a phase of 5 entries
    # read on every one, beside two busy loops, is up to 5 points off its
    # truth, which is why those are printed, not judged, above).  So a range
    # may miss its truth by that error's share of it now and then: judged
    # are a missing range, a truth more than 5 points outside, and more than
    # 2 % of the phases more than a point outside (1 of 263 by 0.3 points
    # under scripts/test.sh --under-load).
    outside, far = [], []
    for p in part:
        r = figures[p].get("wait_range")
        if not r:
            far.append(f"{p}: no wait_range")
            continue
        miss = max(r["low"] * 100 - truth[p], truth[p] - r["high"] * 100, 0)
        if miss > 1:
            outside.append(f"{p} true {truth[p]:.1f} %, range {r}")
        if miss > 5:
            far.append(f"{p} true {truth[p]:.1f} %, range {r}")
    hidden = [p for p in whole if truth[p] >= 10 and got[p] == 0]
    print(f"{rule}: tiny phases read on every entry: {len(whole)} of {len(tiny)}, "
          f"true mean wait {true_mean:.1f} %, reported {got_mean:.1f} %, "
          f"{zeros} of {len(tiny)} at 0 %; worst {worst}: true {truth[worst]:.1f} %, "
          f"reported {got[worst]:.1f} %")
    print(f"{rule}: tiny phases read on part of their entries: {len(part)}, "
          f"{len(part) - len(outside)} with the truth inside the range they say")
    failures += [f"far outside its range: {o}" for o in far[:5]]
    if len(outside) > 0.02 * len(part):
        failures += [f"outside its range: {o}" for o in outside[:5]]
    elif outside:
        print(f"{rule}: within the 2 % allowed outside their range: " + "; ".join(outside))
    for p in ("spin1", "micro"):
        print(f"{rule}: {p}: true wait {truth[p]:.1f} %, reported {got[p]:.1f} %")
    if abs(got_mean - true_mean) > 2:
        failures.append(f"mean wait of the tiny phases {got_mean:.1f} %, true {true_mean:.1f} %")
    # Said, not judged: now and then one phase of 5 entries reads tens of
    # us more CPU time than its program measured in the same windows
    # (362120 against 338372 ns, wall 362003 against 361695), and so 0 %
    # against a true 6 to 13 %; which one, and whether any, varies run to
    # run, and the mean stays within the bound above.
    off = [p for p in whole if abs(got[p] - truth[p]) > 10]
    print(f"{rule}: {len(off)} of {len(whole)} phases read on every entry are more than "
          f"10 points off, {len(hidden)} truly waiting 10 % or more read 0 %")
    for p in ("spin1", "micro") if rule != "always" else ():
        lo, hi = ranges.get(p, (None, None))
        said = f"said {lo} to {hi} % over all" if lo is not None else "no range said"
        print(f"{rule}: {p}: {said}")
        # The JSON says the range the text says, unrounded (and also where
        # the text leaves a narrow one out).
        jr = figures[p].get("wait_range")
        jr = (jr["low"] * 100, jr["high"] * 100) if jr else None
        if lo is not None and (not jr or abs(jr[0] - lo) > 1 or abs(jr[1] - hi) > 1):
            failures.append(f"{p}: report --json's wait_range {jr} is not the text's {said}")
        within = lo is not None and lo - 1 <= truth[p] <= hi + 1
        if abs(got[p] - truth[p]) > 3 and not within:
            failures.append(f"{p} reads {got[p]:.1f} %, true {truth[p]:.1f} %, {said}")
    for p in ("spin1", "micro") if rule == "always" else ():
        # The recorder's window holds its own code beyond the program's
        # (band b an entry, all CPU): a true wait w reads w * W / (W + b).
        # That share is allowed beside the 3 points; it is ~1 % of a point
        # in a plain build and 3 points in a sanitizer's, whose recorder
        # code is several times slower.
        f = figures[p]
        n = f["count"]
        wall, cpu = clocks[p]
        band = max(0.0, (f["total_ns"] - wall) / n)
        own = truth[p] * band / (wall / n + band)
        if sanitized:
            # Under a sanitizer its code in the CPU window (between its
            # reads and the clock's) is slow too: the CPU time it reads
            # beyond the truth, over the entry's wall time, is allowed.
            own += 100 * max(0.0, (f["cpu_ns"] - cpu) / n) / (wall / n)
        if abs(got[p] - truth[p]) > 3 + own:
            failures.append(f"{p} reads {got[p]:.1f} %, true {truth[p]:.1f} % "
                            f"(the recorder's own code in its window: {own:.1f} points)")
        # The CPU time itself, which preemption does not move: what the
        # recorder read beyond the truth per entry is its own code between
        # its reads and the program's (100 to 250 ns an entry, 3 to 8 %
        # here, quiet or under a load average of 20), never less.  A read's
        # share left in would be 20 % or more; a share fixed at start read
        # -11 % to +17 % under load.  (The wall time the recorder's window
        # holds beyond the program's is printed, not judged: a preemption
        # that falls between the two windows adds milliseconds to it.)
        f = figures[p]
        n = f["count"]
        wall, cpu = clocks[p]
        beyond = (f["cpu_ns"] - cpu) / n
        band = (f["total_ns"] - wall) / n
        share = 100 * beyond / (cpu / n)
        print(f"{rule}: {p}: CPU time {f['cpu_ns'] / n:.0f} ns an entry, true {cpu / n:.0f}: "
              f"{beyond:+.0f} ns ({share:+.1f} %); wall beyond the program's {band:+.0f} ns")
        # The recorder's own code in its window, as the wall time beyond the
        # program's measures it, widens the upper bound: a sanitizer's build
        # runs that code several times slower (150 ns an entry against 70).
        upper = 12 + 100 * max(0.0, band) / (cpu / n)
        if not -8 <= share <= upper:
            failures.append(f"{p}: {beyond:+.0f} ns of CPU time an entry beyond the truth "
                            f"({share:+.1f} % of its CPU time, not within -8 to +{upper:.1f} %)")
    for f in failures:
        print(f"FAIL: {rule}: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
