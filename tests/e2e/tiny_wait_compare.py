"""Compares a run's reported wait% with the truth its program printed.

Usage: python3 tiny_wait_compare.py TRUTH REPORT_JSON REPORT_TEXT RULE

TRUTH holds "PATH WALL_NS CPU_NS" lines (tiny_workload's stdout), REPORT_JSON
the output of `scope-tui report --json`, REPORT_TEXT that of
`scope-tui report --width 160` (its FROM PART OF THE ENTRIES block).  Prints
the figures (true and reported mean wait of the 300 tiny phases, how many
read exactly 0 %, the worst phase, spin1's and micro's) and exits 1 with a
FAIL line for each bound broken.

The bounds are the test's tolerance, from runs beside two busy loops:
  - the 300 phases' mean reported wait within 2 points of their true mean
    (the issue read 8.1 % against 11.1 % on another machine; here it holds
    to 0.2 points with the per-entry cap or without);
  - how many phases read on all their entries are more than 10 points off
    their truth, and how many truly waiting 10 % or more read 0 %, is
    printed, not judged (see below);
  - under SCOPE_CPU_TIME=always, spin1 and micro (1 us entries) within 3
    points, and their CPU time within 10 % of the truth, less the wall time
    the recorder's window holds beyond the program's (its own code): a read
    of the CPU clock left in would be 15 to 20 %;
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
    true_mean = sum(truth[p] for p in tiny) / len(tiny)
    got_mean = sum(got[p] for p in tiny) / len(tiny)
    zeros = sum(1 for p in tiny if got[p] == 0)
    # Phases read on every entry; one whose wait% rests on fewer says so
    # ("wait% from 4 of 5 entries"), and the mean judges those.
    whole = [p for p in tiny if figures[p]["cpu_count"] == figures[p]["count"]] or tiny
    worst = max(whole, key=lambda p: abs(got[p] - truth[p]))
    hidden = [p for p in whole if truth[p] >= 10 and got[p] == 0]
    print(f"{rule}: tiny phases: true mean wait {true_mean:.1f} %, reported {got_mean:.1f} %, "
          f"{zeros} of {len(tiny)} at 0 %; worst {worst}: true {truth[worst]:.1f} %, "
          f"reported {got[worst]:.1f} %")
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
        within = lo is not None and lo - 1 <= truth[p] <= hi + 1
        if abs(got[p] - truth[p]) > 3 and not within:
            failures.append(f"{p} reads {got[p]:.1f} %, true {truth[p]:.1f} %, {said}")
    for p in ("spin1", "micro") if rule == "always" else ():
        if abs(got[p] - truth[p]) > 3:
            failures.append(f"{p} reads {got[p]:.1f} %, true {truth[p]:.1f} %")
        # The CPU time itself, which preemption does not move: what the
        # recorder read beyond the truth, less the wall time its window
        # holds beyond the program's (its own code, all CPU), per entry.
        f = figures[p]
        n = f["count"]
        wall, cpu = clocks[p]
        extra = (f["cpu_ns"] - cpu) / n - (f["total_ns"] - wall) / n
        print(f"{rule}: {p}: CPU time {f['cpu_ns'] / n:.0f} ns an entry, true {cpu / n:.0f}; "
              f"{extra:+.0f} ns an entry beyond the recorder's own code")
        if abs(extra) > 0.10 * cpu / n:
            failures.append(f"{p}: {extra:+.0f} ns of CPU time an entry beyond the truth "
                            f"({100 * extra / (cpu / n):+.1f} % of its CPU time)")
    for f in failures:
        print(f"FAIL: {rule}: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
