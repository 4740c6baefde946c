#!/usr/bin/env bash
# The report's and the browser's GPU figures against a stand-in NVML
# (tests/support/fake_nvml.c, built as libnvidia-ml.so.1 and named by
# SCOPE_NVML_LIBRARY, which the recorder loads instead of any driver) that
# scripts them: device 0 busy 90% with this process's
# own samples at 30% and 2 GB of its memory; device 1 busy 8% with no sample
# of it ever, whose share must read n/a, not 0.0%.  Without NVML there is no
# GPU block and nothing on stderr.
#
# Usage: test_report_gpu.sh SCOPE_TUI IO_WORKLOAD FAKE_NVML_DIR
set -euo pipefail
tui=$1
workload=$2
nvml=$3
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir data
if ! env SCOPE_NVML_LIBRARY="$nvml/libnvidia-ml.so.1" SCOPE_SAMPLE_INTERVAL=0.2 \
    FAKE_NVML_DEVICES='90,30,9000000000,80000000000,2000000000;8,-,500000000,80000000000,-' \
    "$workload" run data >workload.out 2>&1; then
    echo "FAIL: the workload failed: $(cat workload.out)" >&2
    exit 1
fi
[ -s workload.out ] && fail "the workload printed: $(cat workload.out)"

expect_rc 0 "$tui" report --width 100 --color never run
cp out report.txt
grep -Eq '^GPU 0 +90\.0% +30\.0% +10\.0%$' report.txt || fail "GPU 0: $(grep -A4 '^GPU' report.txt)"
grep -Eq '^GPU 1 +8\.0% +n/a +92\.0%$' report.txt || fail "GPU 1: $(grep -A4 '^GPU' report.txt)"
grep -Eq '^VRAM, GPU 0 +2\.0 GB +peak 2\.0 GB of 80\.0 GB$' report.txt ||
    fail "VRAM of GPU 0: $(grep VRAM report.txt)"

expect_rc 0 "$tui" report --json run
python3 - out <<'PY' || fail "JSON GPU figures (above)"
import json, sys
gpus = json.load(open(sys.argv[1]))["resources"]["gpus"]
bad = 0
def want(what, got, expected):
    global bad
    if got != expected:
        print(f"{what}: {got!r}, expected {expected!r}")
        bad += 1
want("devices", [g["index"] for g in gpus], [0, 1])
want("GPU 0 busy", round(gpus[0]["busy"], 6), 0.9)
want("GPU 0 this_run", round(gpus[0]["this_run"], 6), 0.3)
want("GPU 0 vram_this_run_peak", gpus[0]["vram_this_run_peak"], 2000000000)
want("GPU 0 running", gpus[0]["running"], 1)
want("GPU 1 busy", round(gpus[1]["busy"], 6), 0.08)
want("GPU 1 this_run", gpus[1]["this_run"], None)
want("GPU 1 running", gpus[1]["running"], 0)
sys.exit(1 if bad else 0)
PY

expect_rc 0 "$tui" run --size 100x30 --keys 4 --print
expect_in out "GPU 0   busy 90.0% (peak 90.0%)   this run 30.0% (peak 30.0%)   idle 10.0%"
expect_in out "GPU 1   busy 8.0% (peak 8.0%)   this run n/a (peak n/a)   idle 92.0%"
expect_in out "n/a: NVML never attributed a sample to these processes"

# No NVML (none where SCOPE_NVML_LIBRARY points, and then nothing else is
# tried, a driver on this machine included): no GPU block, no GPU figures,
# nothing said.
rm -rf run data && mkdir data
if ! env SCOPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 SCOPE_SAMPLE_INTERVAL=0.2 \
    "$workload" run data >workload.out 2>&1; then
    echo "FAIL: the workload without NVML failed: $(cat workload.out)" >&2
    exit 1
fi
[ -s workload.out ] && fail "without NVML the workload printed: $(cat workload.out)"
expect_rc 0 "$tui" report --width 100 --color never run
grep -q '^GPU' out && fail "a GPU block without NVML: $(grep -A3 '^GPU' out)"
expect_rc 0 "$tui" run --size 100x30 --keys 4 --print
expect_in out "No GPU figures: NVML (libnvidia-ml.so.1) was not found"
finish
