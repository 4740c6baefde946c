#!/usr/bin/env bash
# The build step of the README's main command (scripts/run-example.sh), from
# nothing, as it was (every target: the test suite's programs too) and as it
# is (scope-tui and the example, which links libscope): wall seconds of
# `cmake -S -B` plus `cmake --build -j$(nproc)` for each, in fresh build
# folders, without ccache.  The machine's load is printed beside each.
#
# Usage: bench/bench_example_build.sh [SCRATCH_DIR]   (default: a temporary one)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch=${1:-$(mktemp -d)}
export CCACHE_DISABLE=1
jobs=$(nproc 2>/dev/null || echo 2)
build() { # NAME TARGETS...
    local name=$1 dir="$scratch/build" start end
    shift
    rm -rf "$dir"
    start=$(date +%s.%N)
    cmake -S "$root" -B "$dir" >/dev/null
    cmake --build "$dir" -j "$jobs" "$@" >/dev/null
    end=$(date +%s.%N)
    printf '%-40s %7.1f s   load %s\n' "$name" "$(echo "$end - $start" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
    rm -rf "$dir"
}
build "every target (before)"
build "scope-tui scope-example-pipeline (now)" --target scope-tui scope-example-pipeline
