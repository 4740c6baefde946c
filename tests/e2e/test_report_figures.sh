#!/usr/bin/env bash
# The text report of a run built to stress its layout and units
# (fig_workload.c): every pair of neighbouring columns is apart at every
# width, a phase left open says "open", a huge counter and its tiny time per
# unit keep their magnitude, a counter of bytes reads in bytes, and the JSON
# says which phase was left open.
#
# Usage: test_report_figures.sh SCOPE_TUI FIG_WORKLOAD
set -euo pipefail
tui=$1
workload=$2
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Its sleeps set the phases' durations, which a loaded machine stretches:
# every check below holds whatever they came to (a figure's unit included).
if ! "$workload" run >"workload.out" 2>&1; then
    echo "FAIL: the workload failed: $(cat "workload.out")" >&2
    exit 1
fi

for width in 60 80 100 118 140 200; do
    "$tui" report --width "$width" --color never run >"report.$width" 2>&1 ||
        fail "report --width $width exited $?"
    # Each heading of the phase table ends where its column ends (figures
    # are right-aligned); the cell of the next column must start with a
    # space there on every phase row.
    python3 - "report.$width" "$width" <<'PY' || fail "width $width: columns run together"
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
width = int(sys.argv[2])
bad = 0
for i, line in enumerate(lines):
    if not line.startswith("phase "):
        continue
    heads = [(m.start(), m.end()) for m in re.finditer(r"spread min/med/max|\S+", line)][1:]
    # The name column ends where the first figure column begins: its
    # width is the cell's, share's 7 columns.
    ends = [heads[0][1] - 7] + [e for _, e in heads[:-1]]
    for row in lines[i + 1:]:
        if not row.strip():
            break
        if len(row) > width:
            print(f"row wider than {width}: {row!r}")
            bad += 1
        if row.lstrip().startswith("+ "):
            continue  # counter rows: their own columns, checked below
        if len(row) > width:
            print(f"row wider than {width}: {row!r}")
            bad += 1
        for e in ends:
            if e < len(row) and row[e] != " ":
                print(f"no space at column {e}: {row!r}")
                bad += 1
sys.exit(1 if bad else 0)
PY
done

# At 80 columns self stays: it is the column a profile is read by first.
head80=$(grep -m1 '^phase ' report.80)
[[ "$head80" == *" self "* ]] || fail "width 80 gave up self: $head80"
# Long dominant paths that differ in their last name are cut from the left,
# so each still reads as itself.
python3 - report.60 <<'PY' || fail "width 60: dominant paths cut from the right"
import sys
text = open(sys.argv[1], encoding="utf-8").read()
rows = text.split("DOMINANT PHASES", 1)[1].split("\n\n", 1)[0].split("\n")[1:]
names = [r.split()[0] for r in rows if r and not r.lstrip().startswith("+ ")]
for leaf in ("mcts_a", "mcts_b"):
    if not any(n.startswith("\u2026") and n.endswith("/" + leaf) for n in names):
        print(f"no row '\u2026/{leaf}' among {names}")
        sys.exit(1)
PY

report=report.140
# A phase left open and never completed: "open", never 0ns and 0.0%.
grep -Eq '^stuck +open +open +open ' "$report" || fail "the open phase: $(grep '^stuck' "$report")"
grep -Eq '^stuck .*open \(1/3\)$' "$report" || fail "the open phase's spread: $(grep '^stuck' "$report")"
# One completed entry and one left open: its total is at least what it shows.
grep -Eq '^  again +[0-9.]+% +[0-9.]+m?s\+ ' "$report" || fail "the phase open again: $(grep '^  again' "$report")"
# 4e18 in about a millisecond: some e+21 per second, about 2.5e-13 ns each.
# A loaded machine stretches the 1 ms sleep tenfold or a hundredfold (11 ms
# under ASan beside a build), so the magnitudes are held in form (peta, exa
# or scientific, never a plain or a zero figure) and in value to what the
# phase really lasted: the JSON's rate and time per unit, to the printed
# digits.
# Every row of it (the phase table's and the dominant phases') is checked.
"$tui" report --json run >"report.json" || fail "report --json exited $?"
while IFS= read -r huge; do
    if [[ ! "$huge" =~ ^\ +\+\ huge\ +4,000,000,000,000,000,000\ \ ([0-9]{1,3}\.[0-9][PE]|[0-9]\.[0-9]e\+[0-9]{2})/s\ \ ([0-9]\.[0-9]e-[0-9]{2})ns/ea$ ]]; then
        fail "the huge counter: $huge"
        continue
    fi
    python3 - report.json "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" <<'PY' || fail "the huge counter's figures: $huge"
import json, sys
doc, rate_text, unit_text = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
def find(phases):
    for p in phases:
        for c in p["counters"]:
            if c["name"] == "huge":
                return c
        got = find(p["children"])
        if got:
            return got
huge = next(c for c in (find(r["phases"]) for r in doc["roles"]) if c)
# Each printed with one decimal: off by at most half of its last digit.
if rate_text[-1] in "PE":
    scale = 1e18 if rate_text[-1] == "E" else 1e15
    rate, digit = float(rate_text[:-1]) * scale, scale / 10
else:
    rate, digit = float(rate_text), 10.0 ** (int(rate_text.split("e")[1]) - 1)
assert abs(rate - huge["rate_per_s"]) <= digit * 0.5001, (rate_text, huge["rate_per_s"])
unit, digit = float(unit_text), 10.0 ** (int(unit_text.split("e")[1]) - 1)
assert abs(unit - huge["ns_per_unit"]) <= digit * 0.5001, (unit_text, huge["ns_per_unit"])
PY
done < <(grep '+ huge' "$report" || echo "no + huge row")
# 2.5 MB in a phase of about 10 ms: MB/s (kB/s past 2.5 s), and bytes per call.
grep -Eq '\+ bytes_written +2\.5 MB  [0-9.]+ [kM]B/s  2\.5 MB/call$' "$report" ||
    fail "the bytes counter: $(grep '+ bytes_written' "$report")"
grep -Eq '^  \+ counter +total  rate  per unit$' "$report" || fail "no counter headings"
# Two of three processes entered "part": the spread says so, apart from the count.
grep -Eq '^part .* 2  [0-9.]+m?s/[0-9.]+m?s/[0-9.]+m?s \(2/3\)$' "$report" ||
    fail "part's count and spread: $(grep '^part' "$report")"

python3 - "report.json" <<'PY' || fail "the JSON's open_threads"
import json, sys
m = json.load(open(sys.argv[1]))
open_ = {}
def walk(phases):
    for p in phases:
        open_[p["path"]] = p["open_threads"]
        walk(p["children"])
for role in m["roles"]:
    walk(role["phases"])
assert open_["stuck"] == 1 and open_["stuck/again"] == 1, open_
assert open_["stuck/inner"] == 0 and open_["part"] == 0 and open_["tick"] == 0, open_
PY

finish
echo "all report figure checks passed"
