#!/usr/bin/env bash
# A recorded phase's CPU time next to one clock_gettime's, robust to load.
#
# bench_recorder's overhead table times each mode by the wall clock, so on a
# shared machine its figures move with whatever else runs.  This counts the
# CPU time (user + system) of BUILD_DIR/bench/bench_recorder --loop MODE N
# instead, which contention barely changes: a process that waits for a CPU
# is not charged for it.  Each figure is the median of RUNS processes; the
# empty loop is subtracted from both sides of the ratio.
#
# usage: bench/cpu_ratio.sh [BUILD_DIR]   (default: build; N, RUNS from the
#        environment, default 30000000 and 3)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
bench=$build/bench/bench_recorder
[ -x "$bench" ] || { echo "cpu_ratio.sh: $bench not built (cmake --build $build)" >&2; exit 1; }
n=${N:-30000000} runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cpu_s MODE CPU_TIME: CPU seconds of one process of n iterations
cpu_s() {
    local TIMEFORMAT='%3U %3S'
    { time env -u SCOPE_PROFILE -u SCOPE_RUN_ID -u SCOPE_TRACE SCOPE_QUIET=1 \
        SCOPE_RUN_DIR="$tmp/run" SCOPE_CPU_TIME="$2" "$bench" --loop "$1" "$n" >/dev/null 2>&1; } 2>&1 |
        awk '{ print $1 + $2 }'
}

# median_ns MODE CPU_TIME: ns of CPU per iteration, median of runs
median_ns() {
    for ((r = 0; r < runs; r++)); do cpu_s "$1" "$2"; done |
        sort -g | awk -v n="$n" '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] * 1e9 / n }'
}

empty=$(median_ns empty off)
clock=$(median_ns clock off)
printf 'CPU ns per iteration (user + system, median of %d processes of %d; load %s)\n\n' \
    "$runs" "$n" "$(cut -d' ' -f1 /proc/loadavg)"
printf '  %-44s %8s %16s\n' what ns "x clock_gettime"
printf '  %-44s %8s\n' "empty loop" "$empty"
printf '  %-44s %8s %16s\n' "clock_gettime(CLOCK_MONOTONIC)" "$clock" 1.00
for m in "enabled off recorded phase, CPU time off" "adaptive adaptive recorded phase, adaptive CPU time"; do
    read -r mode cpu label <<<"$m"
    v=$(median_ns "$mode" "$cpu")
    printf '  %-44s %8s %16s\n' "$label" "$v" \
        "$(awk -v v="$v" -v c="$clock" -v e="$empty" 'BEGIN { printf "%.2f", (v - e) / (c - e) }')"
done
