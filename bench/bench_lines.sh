#!/usr/bin/env bash
# The line sampler's figures: its overhead at 99 Hz (the old default) and
# 997 Hz (the default) next to
# perf record -e cpu-clock and gperftools' CPU profiler at the same rates,
# on the same workload (bench_lines.c says how it is measured), the rate
# each really delivers here, and the log's growth with lines on at 100 Hz.
#
# Usage: bench/bench_lines.sh [BUILD_DIR] [ROUNDS]   (default build, 61 rounds; about 2 min)
set -euo pipefail

build=${1:-build}
rounds=${2:-61}
bench=$build/bench/bench_lines
if [[ ! -x $bench ]]; then
    echo "bench_lines.sh: no $bench: build first (cmake --build $build)" >&2
    exit 2
fi
tui=$build/src/scope-tui
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== overhead: median of (on - off) / off over $rounds rounds of ~40 ms chunks, process CPU time"
"$bench" control "$rounds"
for hz in 99 997; do
    echo "-- $hz Hz"
    SCOPE_LINES_HZ=$hz "$bench" scope "$rounds"
    if command -v perf >/dev/null 2>&1; then
        rm -f "$tmp/ctl" "$tmp/ack"
        mkfifo "$tmp/ctl" "$tmp/ack"
        # -D -1: events start disabled; the program switches them per chunk.
        BENCH_PERF_CTL=$tmp/ctl BENCH_PERF_ACK=$tmp/ack \
            perf record -q -e cpu-clock -F "$hz" -D -1 --control "fifo:$tmp/ctl,$tmp/ack" \
            -o "$tmp/perf.data" -- "$bench" perf "$rounds" 2>/dev/null || echo "perf     (failed)"
    else
        echo "perf     (not installed: linux-perf)"
    fi
    if [[ -x ${bench}_gperf ]]; then
        CPUPROFILE_FREQUENCY=$hz BENCH_GPERF_OUT=$tmp/gperf.prof "${bench}_gperf" gperf "$rounds" \
            2>/dev/null
    else
        echo "gperf    (not built: libgoogle-perftools-dev)"
    fi
done

echo "== rate delivered: what the samples add up to against the CPU time the process used"
for hz in 99 997; do
    rm -rf "$tmp/run"
    /usr/bin/time -f "%U %S" -o "$tmp/cpu" env SCOPE_PROFILE=1 SCOPE_RUN_DIR="$tmp/run" \
        SCOPE_LINES=1 SCOPE_LINES_HZ=$hz SCOPE_QUIET=1 "$bench" control 25 >/dev/null
    cpu=$(awk '{ print $1 + $2 }' "$tmp/cpu")
    "$tui" dump "$tmp"/run/workers/*/*.scope | awk -v hz="$hz" -v cpu="$cpu" '
        /^  LINES/ { for (i = 1; i <= NF; i++) { if ($i == "samples") s = $(i + 1); if ($i == "period") p = $(i + 1) } }
        /STACK_SAMPLES/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+x[0-9]+$/) { split($i, a, "x"); n++ } }
        END { sub("ns", "", p)
              printf "%5d Hz asked: %d samples (overruns included) x %.2f ms = %.2f s; the process used %.2f s of CPU\n",
                     hz, s, p / 1e6, s * p / 1e9, cpu }'
done

echo "== log growth with lines at 100 Hz (frames every 5 s, as in a run's first 5 minutes)"
size_after() {
    rm -rf "$tmp/run"
    SCOPE_PROFILE=1 SCOPE_RUN_DIR=$tmp/run SCOPE_LINES=1 SCOPE_QUIET=1 SCOPE_FRAME_INTERVAL=5 \
        timeout "$1" "$bench" control 100000 >/dev/null || true
    stat -c %s "$tmp"/run/workers/*/*.scope
}
# SIGTERM at the deadline: the recorder writes its last frame.
a=$(size_after 12)
b=$(size_after 42)
echo "log after 12 s: $a bytes, after 42 s: $b bytes: $(((b - a) * 120)) bytes per process-hour"
