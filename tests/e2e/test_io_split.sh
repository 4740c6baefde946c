#!/usr/bin/env bash
# The sampled I/O by phase against bytes known by construction
# (split_workload.c): 70 chunks of 1 MiB written at a steady pace, 4 of
# them outside any phase, 33 in "load", 22 in "train" and 11 in
# "train/save", which first reaps a child; then 8 more, at a quarter of
# that pace over 1.3 s, in the SCOPE_PHASE_IO "train/checkpoint", whose
# share is its exact bytes, counted so far at each sample it is open at
# (before, the bytes it moved before a sample were shared by time with
# "train/save": it read 2.8 % against its exact 10.3 % when a sample fell
# inside it).  Each 1 s interval's bytes are
# shared over the phases open during it by their time in it, so each
# phase's share in the I/O view is its share of the chunks, within
# SPLIT_TOLERANCE points (the pace is steady, not exact), and the shares
# with the two rows of bytes no phase explains add up to 100 %: the 2
# chunks between "load" and "train", written by the recording thread with
# no phase open, are "(outside every phase)"; the 2 before "load", written
# before the thread's first phase made it a recording thread, are "(not
# attributable)": no record of a thread says whether a phase was open; the sampled total holds every
# byte, the interval of the reaped child included (its thread's records).  Before,
# each interval went whole to the phase open as it began: "(no phase
# open)" read about 33 % here, and the shares added past 100 %.
#
# Usage: test_io_split.sh SCOPE_TUI SPLIT_WORKLOAD
set -euo pipefail
tui=$1
workload=$2
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

run_on_disk "$workload"

expect_rc 0 "$tui" report --json run
cp out report.json
# The I/O view's "of all" column, as the user reads it.
expect_rc 0 "$tui" run --size 120x40 --keys 3 --print
sed -n '/PHASES OPEN/,/(not attributable)/p' out >view.txt
python3 - report.json view.txt "${SPLIT_TOLERANCE:-5}" <<'PY' || fail "sampled shares by phase (above)"
import json, re, sys
doc = json.load(open(sys.argv[1]))
tol = float(sys.argv[3])
role = doc["roles"][0]
res = doc["resources"]
if res is None:
    print("no resources: the sampler wrote no samples")
    sys.exit(1)
MiB = 1 << 20
bad = 0
# The process's record of the interval in which the child was reaped has
# no I/O; the thread's records of it make the total every byte written.
for what, got in (("sampled char_write", res["io"]["char_write"]),
                  ("the bytes shared over phases", res["no_phase"].get("shared"))):
    if got != 78 * MiB:
        print(f"{what}: {got}, expected the {78 * MiB} written")
        bad += 1
# The two parts of what no phase explains add up to it; the 2 chunks
# written before the thread recorded are exactly the part not attributable.
parts = (res["outside_phases"], res["not_attributable"])
if parts[0]["char_write"] + parts[1]["char_write"] != res["no_phase"]["char_write"]:
    print(f"outside {parts[0]} and not attributable {parts[1]} do not add up to {res['no_phase']}")
    bad += 1
if parts[1]["char_write"] != 2 * MiB:
    print(f"{parts[1]['char_write']} bytes not attributable, expected the {2 * MiB} written "
          "before the thread's first phase")
    bad += 1
truth = {"load": 33, "train": 22, "train/save": 11, "train/checkpoint": 8,
         "(outside every phase)": 2, "(not attributable)": 2}
# The checkpoint's bytes are its exact figure: to the rounding of the view.
tolerance = {"train/checkpoint": 0.3}
view = {}
for line in open(sys.argv[2]):
    m = re.match(r"^\s+(\S+(?: \S+)*?)\s{2,}.*\s(\d+\.\d)%\s*$", line)
    if m:
        view[m.group(1)] = float(m.group(2))
total = 0.0
for k, chunks in truth.items():
    share = view.get(k)
    if share is None:
        print(f"the I/O view has no row {k}: {view}")
        bad += 1
        continue
    total += share
    want = 100.0 * chunks / 78
    ok = abs(share - want) <= tolerance.get(k, tol)
    print(f"{k:18} {share:6.1f} %  truth {want:5.1f} %  {'ok' if ok else 'OFF'}")
    bad += not ok
print(f"{'sum':18} {total:6.1f} %")
if abs(total - 100.0) > 0.35:  # six rows rounded to 0.1
    print("the shares do not add up to 100 %")
    bad += 1
sys.exit(1 if bad else 0)
PY
finish
