#!/usr/bin/env bash
# Instructions per call of libscope's hot paths, counted by callgrind.
#
# Instruction counts do not drift with machine load the way nanoseconds do.
# Each mode runs N and 2N iterations under `valgrind --tool=callgrind`; the
# difference of the two totals divided by N is the cost of one iteration with
# start-up, calibration and shutdown cancelled out.  An iteration includes
# the loop's own increment and branch and the call through the PLT.
#
# usage: bench/callgrind.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
bench=$build/bench/bench_recorder
[ -x "$bench" ] || { echo "callgrind.sh: $bench not built (cmake --build $build)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not installed (scripts/setup.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=200000

# total_ir MODE ITERATIONS CPU_TIME TRACE ("-": no SCOPE_TRACE)
total_ir() {
    local trace=()
    [ "$4" = - ] || trace=(SCOPE_TRACE="$4")
    env -u SCOPE_PROFILE -u SCOPE_RUN_ID -u SCOPE_TRACE SCOPE_QUIET=1 SCOPE_RUN_DIR="$tmp/run" \
        SCOPE_CPU_TIME="$3" "${trace[@]}" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
        "$bench" --loop "$1" "$2" 2>"$tmp/vg.log" >/dev/null
    sed -n 's/^summary: *//p' "$tmp/cg.out"
}

printf 'libscope instructions per iteration (callgrind, (Ir(2N) - Ir(N)) / N, N = %d)\n\n' "$n"
printf '  %-44s %10s\n' "what" "instr"
while read -r mode cpu trace per label; do
    a=$(total_ir "$mode" "$n" "$cpu" "$trace")
    b=$(total_ir "$mode" $((2 * n)) "$cpu" "$trace")
    printf '  %-44s %10.1f\n' "$label" "$(awk -v a="$a" -v b="$b" -v n="$n" -v p="$per" 'BEGIN { print (b - a) / n / p }')"
done <<'MODES'
disabled off - 1 phase enter+exit, recorder disabled
enabled off - 1 phase enter+exit, recording
nested off - 3 phase enter+exit, 3 nested, per phase
explicit off - 1 scope_phase_begin(name)/end
count off - 1 SCOPE_COUNT, recording
count-off off - 1 SCOPE_COUNT, recorder disabled
enabled off other:1-2 1 phase enter+exit, a trace window waiting
enabled off bench:1-1000000 1 phase enter+exit, inside a trace window
count off bench:1-1 1 SCOPE_COUNT, a trace window waiting
MODES
