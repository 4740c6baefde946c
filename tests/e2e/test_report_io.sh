#!/usr/bin/env bash
# The report's I/O figures against known bytes (io_workload.c), recorded by
# the real recorder into a real run directory:
#   - I/O BY PHASE is exact: the fsync'd checkpoint reads its bytes written,
#     the cold read its bytes from disk, the warm read its bytes from the
#     page cache, in text and in JSON;
#   - the sampler's totals hold every byte the program moved and nothing of
#     the recorder's own log writes, the "spill" phase gets the bytes written
#     while it was open, and --no-samples leaves the sampled blocks out;
#   - the browser's I/O view shows the same.
#
# Usage: test_report_io.sh SCOPE_TUI IO_WORKLOAD
set -euo pipefail
tui=$1
workload=$2
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

run_on_disk "$workload"

MiB=1048576
ckpt=$((4 * MiB)) data=$((2 * MiB)) spill=$((30 * 256 * 1024))

expect_rc 0 "$tui" report --width 100 --color never run
cp out report.txt
# Exact: "r <disk read>   w <disk write>   <rate>", then the page-cache line.
grep -Eq '^  checkpoint +r +0 B +w +4\.2 MB ' report.txt || fail "checkpoint: $(grep -A1 '^  checkpoint' report.txt)"
grep -Eq '^  cold_read +r +2\.1 MB +w +0 B ' report.txt || fail "cold_read: $(grep -A1 '^  cold_read' report.txt)"
grep -Eq '^  warm_read +r +0 B +w +0 B ' report.txt || fail "warm_read: $(grep -A1 '^  warm_read' report.txt)"
grep -A1 '^  warm_read' report.txt | grep -q '+ 2.1 MB read from page cache' ||
    fail "warm_read's page-cache line: $(grep -A1 '^  warm_read' report.txt)"

expect_rc 0 "$tui" report --json run
cp out report.json
python3 - report.json "$ckpt" "$data" "$spill" <<'PY' || fail "JSON figures (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
ckpt, data, spill = (int(x) for x in sys.argv[2:5])
role = doc["roles"][0]
phases = {p["path"]: p for p in role["phases"]}
bad = 0
def want(what, got, expected):
    global bad
    if got != expected:
        print(f"{what}: {got}, expected {expected}")
        bad += 1
io = {k: phases[k]["io"] for k in ("checkpoint", "cold_read", "warm_read")}
# write_bytes counts the pages the thread dirtied, and an fsync on ext4 may
# dirty a block of the file system's own metadata on the way (a bitmap, an
# extent, the inode): the file's bytes exactly, plus at most a few such pages.
dw = io["checkpoint"]["disk_write"]
if not ckpt <= dw <= ckpt + 16 * 4096:
    print(f"checkpoint disk_write: {dw}, expected {ckpt} plus at most 16 pages of metadata")
    bad += 1
want("checkpoint char_write", io["checkpoint"]["char_write"], ckpt)
want("cold_read disk_read", io["cold_read"]["disk_read"], data)
want("cold_read cache_read", io["cold_read"]["cache_read"], 0)
want("warm_read disk_read", io["warm_read"]["disk_read"], 0)
want("warm_read cache_read", io["warm_read"]["cache_read"], data)
res = doc["resources"]
if res is None:
    print("no resources: the sampler wrote no samples")
    sys.exit(1)
# Every byte the program wrote, none of the recorder's log writes.
want("sampled char_write", res["io"]["char_write"], ckpt + data + spill)
cr = res["io"]["char_read"]
if not 2 * data <= cr <= 2 * data + 65536:
    print(f"sampled char_read {cr}: expected {2 * data} and at most the recorder's own reads of its counters")
    bad += 1
if res["io"]["disk_write"] < ckpt:
    print(f"sampled disk_write {res['io']['disk_write']} < the fsync'd {ckpt}")
    bad += 1
# The spill phase was open for about 3 s, and a flush's sample began and
# ended its writes: its bytes land on it.  An interval's bytes are shared
# over the phases open in it by their time, and under load (beside
# e2e_io_split's fsyncs) a few hundred of them (488 seen) went to the
# moment before it opened: within 1/1000, not exactly.
got = phases["spill"]["sampled_io"]
if got is None or abs(got["char_write"] - spill) > spill // 1000:
    print(f"spill's sampled_io {got}: expected the {spill} bytes it wrote, within 1/1000")
    bad += 1
sys.exit(1 if bad else 0)
PY

expect_in report.txt "I/O  (sampled about once a second:"
expect_in report.txt "Read (from page cache)"
expect_in report.txt "MEMORY"
expect_rc 0 "$tui" report --width 100 --color never --no-samples run
grep -q 'sampled about once' out && fail "--no-samples still printed the sampled block"
grep -q '^MEMORY' out && fail "--no-samples still printed MEMORY"
expect_in out "I/O BY PHASE"

# The browser's I/O view: the same exact figures, and the spill phase.
expect_rc 0 "$tui" run --size 120x40 --keys 3 --print
expect_in out "I/O BY PHASE (exact)"
grep -Eq '^   warm_read +0 B +2\.1 MB +0 B ' out || fail "the I/O view's warm_read: $(grep warm_read out)"
expect_in out "spill"
finish
