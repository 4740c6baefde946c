#!/usr/bin/env bash
# The Python reader's figures (issue 26): opening the 1,024-process, 12-hour
# run from Python (target <= 1 s), `.phases()` (<= 100 ms), and the memory
# that adds to the interpreter, next to the C reader API's own open and
# peak RSS (bench_reader) and the DataFrames' bytes (target: Python's <= the
# C reader's + the frames).  Median of --runs, each in a fresh process,
# after one untimed read has put the logs in the page cache.
#
# Usage: bench/bench_reader.sh BUILD_DIR [--run DIR] [--runs N] [--cache DIR]
#   --run DIR     the run to open (default: 1,024 x 12 h with 1 Hz samples,
#                 scope_gen_run --resources, generated once into the cache
#                 bench_report.sh uses: about 5.8 GB, 10-30 min on 2 cores)
#   --runs N      timed runs of each side (default 3)
#   --cache DIR   where the generated run is kept (default $TMPDIR/scope-bench-report)
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="" run="" runs=3 cache="${TMPDIR:-/tmp}/scope-bench-report"
while (($#)); do
    case "$1" in
    --run) run="${2:?--run needs a directory}"; shift 2 ;;
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --cache) cache="${2:?--cache needs a directory}"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "bench_reader.sh: unknown option $1" >&2; exit 2 ;;
    *) [[ -z "$build" ]] || { echo "bench_reader.sh: one BUILD_DIR only" >&2; exit 2; }
       build="$1"; shift ;;
    esac
done
[[ -n "$build" ]] || { usage >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "bench_reader.sh: --runs: a positive number" >&2; exit 2; }
lib="$build/recorder/libscope-reader.so.1"
for f in "$build/bench/bench_reader" "$build/bench/scope_gen_run" "$lib"; do
    [[ -e "$f" ]] || { echo "bench_reader.sh: no $f; build first (cmake --build $build)" >&2; exit 2; }
done
python=$(sed -n 's/^SCOPE_PYTHON:FILEPATH=//p' "$build/CMakeCache.txt")
[[ -x "$python" ]] || { echo "bench_reader.sh: no SCOPE_PYTHON in $build (scripts/setup.sh)" >&2; exit 2; }

if [[ -z "$run" ]]; then # bench_report.sh's key, so either script reuses the other's run
    gen="$build/bench/scope_gen_run"
    key="p1024_h12_r1_g$(cksum <"$gen" | cut -d' ' -f1)"
    run="$cache/$key"
    if [[ ! -d "$run" ]]; then
        mkdir -p "$cache"
        echo "generating 1024 processes x 12 h into $run" >&2
        "$gen" --out "$run.tmp" --procs 1024 --hours 12 --resources --jobs 2 >&2
        mv "$run.tmp" "$run"
    fi
fi
find "$run" -type f -exec cat {} + >/dev/null # into the page cache

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# field NAME LINES...: the value after NAME in each line
field() { local name=$1; shift; printf '%s\n' "$@" | awk -v k="$name" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

c=() py=()
for ((i = 0; i < runs; i++)); do
    c+=("$("$build/bench/bench_reader" "$run")")
    py+=("$(SCOPE_READER_LIB="$lib" PYTHONPATH="$root/python" "$python" "$root/bench/bench_reader_python.py" "$run")")
done
c_open=$(field open_ms "${c[@]}" | median)
c_rss=$(field maxrss_kb "${c[@]}" | median)
py_open=$(field open_ms "${py[@]}" | median)
py_phases=$(field phases_ms "${py[@]}" | median)
py_samples=$(field samples_ms "${py[@]}" | median)
py_import=$(field import_ms "${py[@]}" | median)
base=$(field base_rss_kb "${py[@]}" | median)
peak=$(field maxrss_kb "${py[@]}" | median)
frames=$(field frames_kb "${py[@]}" | median)
rows=$(field phases_rows "${py[@]}" | median)
srows=$(field samples_rows "${py[@]}" | median)

echo "the Python reader on $run, median of $runs, $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-52s %8s %10s\n' figure target measured
printf '%-52s %8s %10.0f\n' "import scope + cffi, numpy, pandas, ms (once)" "" "$py_import"
printf '%-52s %8s %10.0f\n' "scope.open(RUN), ms" "<= 1000" "$py_open"
printf '%-52s %8s %10.0f\n' "  the C reader's open (bench_reader), ms" "" "$c_open"
printf '%-52s %8s %10.1f\n' "run.phases(), ms ($rows rows)" "<= 100" "$py_phases"
printf '%-52s %8s %10.0f\n' "run.samples(), ms ($srows rows)" "" "$py_samples"
printf '%-52s %8s %10.1f\n' "Python's added peak RSS (peak - interpreter), MB" "" "$(awk -v p="$peak" -v b="$base" 'BEGIN { print (p - b) / 1024 }')"
printf '%-52s %8s %10.1f\n' "  the C reader's peak RSS + the frames, MB" "" "$(awk -v c="$c_rss" -v f="$frames" 'BEGIN { print (c + f) / 1024 }')"
printf '%-52s %8s %10.1f\n' "  of which the frames (phases + samples), MB" "" "$(awk -v f="$frames" 'BEGIN { print f / 1024 }')"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
