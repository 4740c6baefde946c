#!/usr/bin/env bash
# Wall time, CPU time and peak memory of `scope-tui report` on a
# scope-profiler HDF5 file of N calls (default 10 million over 4 ranks),
# written once by bench/gen_sp_file.c and kept in a cache folder.
#
# Usage: bench/bench_sp_import.sh BUILD_DIR [--events N] [--ranks R]
#                                 [--schema 1|2|3] [--runs N] [--cache DIR]
#   --runs N      timed runs (default 3); each is printed, then the median
#   --cache DIR   where the file is kept (default $TMPDIR/scope-bench-sp, or /tmp/...)
#
# Each run is measured with /usr/bin/time -v (Debian package `time`) after the
# file was read once, so it is in the page cache: the figures are CPU and
# memory, not disk.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

build="" events=10000000 ranks=4 schema=1 runs=3
cache="${TMPDIR:-/tmp}/scope-bench-sp"
while (($#)); do
    case "$1" in
    --events) events="${2:?--events needs a number}"; shift 2 ;;
    --ranks) ranks="${2:?--ranks needs a number}"; shift 2 ;;
    --schema) schema="${2:?--schema needs 1, 2 or 3}"; shift 2 ;;
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --cache) cache="${2:?--cache needs a directory}"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "bench_sp_import.sh: unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
    esac
done
[[ -n "$build" ]] || { usage >&2; exit 2; }
tui="$build/src/scope-tui" gen="$build/bench/gen_sp_file"
for exe in "$tui" "$gen" /usr/bin/time; do
    [[ -x "$exe" ]] || { echo "bench_sp_import.sh: $exe is missing (build first)" >&2; exit 2; }
done

mkdir -p "$cache"
file="$cache/sp-${events}-${ranks}-s${schema}.h5"
if [[ ! -s "$file" || "$gen" -nt "$file" ]]; then
    echo "writing $file ($events calls, $ranks ranks, schema $schema)"
    "$gen" "$file.tmp" --events "$events" --ranks "$ranks" --schema "$schema"
    mv "$file.tmp" "$file"
fi
cat "$file" >/dev/null
echo "file: $file, $(du -m "$file" | cut -f1) MB"
printf '%-4s %9s %9s %11s\n' run wall_s cpu_s peak_rss_mb
walls=()
for ((i = 1; i <= runs; i++)); do
    log="$(mktemp)"
    /usr/bin/time -v "$tui" report "$file" >/dev/null 2>"$log"
    wall="$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0;
        for (k = 1; k <= n; k++) s = s * 60 + t[k]; print s}' "$log")"
    cpu="$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.2f", u + s}' "$log")"
    rss="$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2 / 1024}' "$log")"
    rm -f "$log"
    printf '%-4s %9s %9s %11s\n' "$i" "$wall" "$cpu" "$rss"
    walls+=("$wall")
done
printf 'median wall: %s s\n' "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")"
