#!/usr/bin/env bash
# What telling on-CPU from off-CPU costs the wall-clock sampler: bench_lines'
# overhead (bench_lines.c: the median over rounds of (on - off) / off, each
# chunk's process CPU time) with SCOPE_LINES_CLOCK=wall at 997 Hz, for this
# build's libscope and for another's (a build of the commit before, whose
# wall samples say nothing of the thread's state), alternated so that the
# machine's load falls on both alike.  Each wall-clock sample now reads the
# thread's CPU clock and its schedstat (two system calls and a check of the
# descriptor) besides the unwind.
#
# Usage: bench/bench_offcpu.sh BUILD_DIR BASE_BUILD_DIR [ROUNDS] [REPEATS]
#        (default 61 rounds, 3 repeats of each; about a minute)
set -euo pipefail

build=${1:?usage: bench_offcpu.sh BUILD_DIR BASE_BUILD_DIR [ROUNDS] [REPEATS]}
base=${2:?usage: bench_offcpu.sh BUILD_DIR BASE_BUILD_DIR [ROUNDS] [REPEATS]}
rounds=${3:-61}
repeats=${4:-3}
bench=$build/bench/bench_lines
for lib in "$build/recorder/libscope.so.0" "$base/recorder/libscope.so.0"; do
    if [[ ! -e $lib ]]; then
        echo "bench_offcpu.sh: no $lib: build libscope first" >&2
        exit 2
    fi
done
if [[ ! -x $bench ]]; then
    echo "bench_offcpu.sh: no $bench: build first (cmake --build $build)" >&2
    exit 2
fi

echo "== wall-clock sampling at 997 Hz: overhead on a CPU-bound thread, $rounds rounds each"
"$bench" control "$rounds"
for ((i = 1; i <= repeats; i++)); do
    for which in before after; do
        dir=$build/recorder
        [[ $which = before ]] && dir=$base/recorder
        printf '%-7s ' "$which"
        LD_LIBRARY_PATH=$dir SCOPE_LINES_CLOCK=wall SCOPE_LINES_HZ=997 SCOPE_QUIET=1 \
            "$bench" scope "$rounds"
    done
done
