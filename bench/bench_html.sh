#!/usr/bin/env bash
# Size and time of `scope-tui report RUN --html` on a synthetic run (by
# default 1,024 processes x 12 hours with resource samples and line samples,
# bench/gen_run.c), next to the text `report RUN` and `report RUN --json` on
# the same run: the text report loads the same and prints little, so the
# difference is the page's own cost (symbolizing the line samples included,
# which the text report of a run with phases does not do).  The targets (issue 27):
# the page <= 2 MB, written in <= 2 s.
#
# Usage: bench/bench_html.sh BUILD_DIR [--run DIR] [--procs N] [--hours H] [--runs N]
#   --run DIR   an existing run to measure (else one is generated into
#               $TMPDIR/scope-bench-html, kept for reruns; 1,024 x 12 h is several GB)
#   --procs N, --hours H   the generated run's size (default 1024, 12)
#   --runs N    timed runs of each command (default 3); the median is shown
set -euo pipefail
build=""
run=""
procs=1024
hours=12
runs=3
while (($#)); do
    case "$1" in
    --run) run="${2:?--run needs a directory}"; shift 2 ;;
    --procs) procs="${2:?}"; shift 2 ;;
    --hours) hours="${2:?}"; shift 2 ;;
    --runs) runs="${2:?}"; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "bench_html.sh: unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
    esac
done
[[ -n "$build" ]] || { echo "usage: bench_html.sh BUILD_DIR [--run DIR] ..." >&2; exit 2; }
tui="$build/src/scope-tui"
gen="$build/bench/scope_gen_run"
[[ -x "$tui" && -x "$gen" ]] || { echo "bench_html.sh: build $build first" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench_html.sh: /usr/bin/time is missing: apt-get install time" >&2; exit 2; }
if [[ -z "$run" ]]; then
    run="${TMPDIR:-/tmp}/scope-bench-html/run-${procs}x${hours}"
    if [[ ! -d "$run" ]]; then
        echo "generating $procs processes x $hours h into $run ..." >&2
        mkdir -p "$(dirname "$run")"
        "$gen" --out "$run.tmp" --procs "$procs" --hours "$hours" --resources --lines --jobs 2 >&2
        mv "$run.tmp" "$run"
    fi
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat "$run"/workers/*/*.scope >/dev/null # into the page cache: the figures are CPU, not disk

# median WALL CPU RSS of `runs` runs of the command
measure() {
    local i rows=()
    for ((i = 0; i < runs; i++)); do
        /usr/bin/time -f '%e %U %S %M' -o "$out/time" "$@" >/dev/null 2>"$out/err" ||
            { echo "bench_html.sh: $* failed: $(tail -3 "$out/err")" >&2; exit 1; }
        rows+=("$(awk '{printf "%.2f %.2f %.1f\n", $1, $2 + $3, $4 / 1024}' "$out/time")")
    done
    printf '%s\n' "${rows[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}
read -r hw hc hm < <(measure "$tui" report "$run" --html -o "$out/report.html")
read -r jw jc jm < <(measure "$tui" report "$run" --json -o "$out/report.json")
read -r tw tc tm < <(measure "$tui" report "$run" -o "$out/report.txt")
size=$(stat -c %s "$out/report.html")
jsize=$(stat -c %s "$out/report.json")
nlogs=$(find "$run/workers" -name '*.scope' | wc -l)
echo "run: $run ($nlogs logs, $(du -sh "$run" | cut -f1)), load average $(cut -d' ' -f1 /proc/loadavg)"
echo "| command | wall s | CPU s | peak MB | output |"
echo "|---|---|---|---|---|"
echo "| report --html | $hw | $hc | $hm | $(awk -v b="$size" 'BEGIN{printf "%.2f MB", b / 1e6}') |"
echo "| report --json | $jw | $jc | $jm | $(awk -v b="$jsize" 'BEGIN{printf "%.2f MB", b / 1e6}') |"
echo "| report (text) | $tw | $tc | $tm | $(stat -c %s "$out/report.txt") bytes |"
awk -v h="$hc" -v t="$tc" -v hw="$hw" -v tw="$tw" \
    'BEGIN{printf "the page over the text report: %+.2f s of CPU, %+.2f s wall\n", h - t, hw - tw}'
