#!/usr/bin/env bash
# Instructions per call of libscope's hot paths, counted by callgrind.
#
# Instruction counts do not drift with machine load the way nanoseconds do.
# Each mode runs N and 2N iterations under `valgrind --tool=callgrind`; the
# difference of the two totals divided by N is the cost of one iteration with
# start-up, calibration and shutdown cancelled out.  An iteration includes
# the loop's own increment and branch and the call through the PLT.
#
# The last line is the figure docs/recorder.md budgets: one recorded phase
# (an empty SCOPE_PHASE block of a phase already seen, CPU time off) less the
# empty loop, that is what the program pays for the phase: the macro's test,
# the two calls and libscope's enter and exit.
#
# usage: bench/callgrind.sh [--phase] [--max N] [BUILD_DIR]   (default: build)
#   --phase  that last line alone (two modes: a few seconds)
#   --max N  exit 1 when the recorded phase costs more than N instructions
#            (the bench_phase_instructions test); exit 77 without valgrind
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
phase_only=0 max=
while [ $# -gt 0 ]; do
    case $1 in
    --phase) phase_only=1; shift ;;
    --max) max=$2; shift 2 ;;
    *) break ;;
    esac
done
build=${1:-$root/build}
bench=$build/bench/bench_recorder
[ -x "$bench" ] || { echo "callgrind.sh: $bench not built (cmake --build $build)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "SKIP: callgrind.sh: valgrind not installed (scripts/setup.sh)" >&2; exit 77; }
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

# per_iteration MODE CPU_TIME TRACE PER: (Ir(2N) - Ir(N)) / N / PER
per_iteration() {
    local a b
    a=$(total_ir "$1" "$n" "$2" "$3")
    b=$(total_ir "$1" $((2 * n)) "$2" "$3")
    awk -v a="$a" -v b="$b" -v n="$n" -v p="$4" 'BEGIN { printf "%.1f", (b - a) / n / p }'
}

phase=$(per_iteration enabled off - 1)
empty=$(per_iteration empty off - 1)
if [ "$phase_only" = 0 ]; then
    printf 'libscope instructions per iteration (callgrind, (Ir(2N) - Ir(N)) / N, N = %d)\n\n' "$n"
    printf '  %-44s %10s\n' "what" "instr"
    printf '  %-44s %10s\n' "empty loop" "$empty"
    while read -r mode cpu trace per label; do
        if [ "$mode $trace" = "enabled -" ]; then
            v=$phase
        else
            v=$(per_iteration "$mode" "$cpu" "$trace" "$per")
        fi
        printf '  %-44s %10s\n' "$label" "$v"
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
    echo
fi
net=$(awk -v a="$phase" -v b="$empty" 'BEGIN { printf "%.1f", a - b }')
printf 'recorded phase: %s instructions (%s per iteration - %s empty loop)\n' "$net" "$phase" "$empty"
if [ -n "$max" ] && awk -v v="$net" -v m="$max" 'BEGIN { exit !(v > m) }'; then
    echo "callgrind.sh: a recorded phase costs $net instructions, over the limit of $max" >&2
    exit 1
fi
