#!/usr/bin/env bash
# The sampled I/O by phase against bytes known by construction
# (split_workload.c): 70 chunks of 1 MiB written at a steady pace, 4 of
# them outside any phase, 33 in "load", 22 in "train" and 11 in
# "train/save".  Each 1 s interval's bytes are shared over the phases open
# during it by their time in it, so each phase's share of the bytes
# written is its share of the chunks, within SPLIT_TOLERANCE points (the
# pace is steady, not exact), and the shares with "(no phase open)" add
# up to 100 %.  Before the sharing, each interval went whole to the phase
# open as it began: "(no phase open)" read about 30 % here.
#
# Usage: test_io_split.sh SCOPE_TUI SPLIT_WORKLOAD
set -euo pipefail
tui=$1
workload=$2
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ "$(stat -f -c %T .)" = tmpfs ]; then
    echo "FAIL: the scratch directory $PWD is on tmpfs, which has no disk bytes: set TMPDIR to a disk" >&2
    exit 1
fi
mkdir data
if ! "$workload" run data >workload.out 2>&1; then
    echo "FAIL: the workload failed: $(cat workload.out)" >&2
    exit 1
fi

expect_rc 0 "$tui" report --json run
cp out report.json
python3 - report.json "${SPLIT_TOLERANCE:-5}" <<'PY' || fail "sampled shares by phase (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
tol = float(sys.argv[2])
role = doc["roles"][0]
res = doc["resources"]
if res is None:
    print("no resources: the sampler wrote no samples")
    sys.exit(1)
all_w = res["io"]["char_write"]
MiB = 1 << 20
bad = 0
if all_w != 70 * MiB:
    print(f"sampled char_write {all_w}, expected the {70 * MiB} bytes written")
    bad += 1
truth = {"load": 33, "train": 22, "train/save": 11}
phases = {}
def walk(ps):
    for p in ps:
        phases[p["path"]] = p
        walk(p["children"])
walk(role["phases"])
got = {}
for path in truth:
    smp = phases.get(path, {}).get("sampled_io")
    got[path] = smp["char_write"] if smp else 0
got["(no phase open)"] = res["no_phase"]["char_write"]
truth["(no phase open)"] = 4
total = 0.0
for k, chunks in truth.items():
    share = 100.0 * got[k] / all_w
    total += share
    want = 100.0 * chunks / 70
    ok = abs(share - want) <= tol
    print(f"{k:18} {share:6.1f} %  truth {want:5.1f} %  {'ok' if ok else 'OFF'}")
    bad += not ok
print(f"{'sum':18} {total:6.1f} %")
if abs(total - 100.0) > 0.01:
    print("the shares do not add up to 100 %")
    bad += 1
sys.exit(1 if bad else 0)
PY
finish
