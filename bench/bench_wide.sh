#!/usr/bin/env bash
# Wall time, CPU time and peak memory of `scope-tui report` on logs of many
# phase nodes, written by bench/gen_wide.c (scope_gen_wide): what the reader
# holds per node (docs/trust.md, "What a reader holds").  The target: the
# honest log of 262,144 nodes in <= 10 s and <= 512 MB.
#
# Usage: bench/bench_wide.sh BUILD_DIR [--runs N] [--tui PATH] [--cache DIR]
#   --runs N     timed runs of each (default 3); the median is shown
#   --tui PATH   the scope-tui to time (default BUILD_DIR/src/scope-tui): another
#                build's, for figures before and after a change
#   --cache DIR  where the generated runs are kept (default
#                $TMPDIR/scope-bench-wide, or /tmp/...)
#
# The runs:
#   honest-262k  one process naming 262,144 requests, as the recorder writes it
#                (a snapshot after the exit frame; 8 MB)
#   forged-1.1M  a forged log of 1,100,000 nodes of two names, each its own
#                phase, past the reader's cap of 1,048,576 a log (7 MB)
#   forged-bins  a forged log of 200,000 nodes of 100 histogram buckets each,
#                past the reader's cap of 16 buckets a node on average
# Each is read once before timing, so the figures are CPU and memory, not
# disk; each run under /usr/bin/time -v (Debian package `time`).  A reader
# without the caps needs about 10 GB for forged-1.1M: to time one, set a
# limit first (`ulimit -v 4000000`), and the row says it failed.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

build=""
runs=3
tui=""
cache="${TMPDIR:-/tmp}/scope-bench-wide"
while (($#)); do
    case "$1" in
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --tui) tui="${2:?--tui needs a path}"; shift 2 ;;
    --cache) cache="${2:?--cache needs a directory}"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "bench_wide.sh: unknown option $1" >&2; exit 2 ;;
    *)
        [[ -z "$build" ]] || { echo "bench_wide.sh: one BUILD_DIR only" >&2; exit 2; }
        build="$1"; shift ;;
    esac
done
[[ -n "$build" ]] || { usage >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "bench_wide.sh: --runs: a positive number" >&2; exit 2; }
tui=${tui:-$build/src/scope-tui}
gen="$build/bench/scope_gen_wide"
for exe in "$tui" "$gen"; do
    [[ -x "$exe" ]] || { echo "bench_wide.sh: no $exe; build first (cmake --build $build)" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "bench_wide.sh: /usr/bin/time is missing: apt-get install time" >&2; exit 2; }

# A run is generated once per generator build.
gen_id=$(cksum <"$gen" | cut -d' ' -f1)
mkdir -p "$cache"
run_dir() {
    local name=$1 dir
    shift
    dir="$cache/${name}_g${gen_id}"
    if [[ ! -d "$dir" ]]; then
        "$gen" --out "$dir.tmp" "$@" >/dev/null
        mv "$dir.tmp" "$dir"
    fi
    cat "$dir"/workers/*/*.scope >/dev/null
    echo "$dir"
}

# median of the numbers on stdin
median() {
    sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

printf 'scope-tui report on logs of many phase nodes: %s, median of %d, %s CPUs, %s\n' \
    "$tui" "$runs" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-12s %10s %8s %8s %8s %10s\n' run nodes "log MB" "wall s" "cpu s" "peak MB"
bench() {
    local name=$1 nodes=$2 dir walls=() cpus=() rss=() stats
    shift 2
    dir=$(run_dir "$name" "$@")
    for ((i = 0; i < runs; i++)); do
        /usr/bin/time -v -o "$cache/time.txt" "$tui" report "$dir" >/dev/null 2>"$cache/err.txt" || {
            printf '%-12s %10s: report failed: %s\n' "$name" "$nodes" "$(tail -1 "$cache/err.txt")"
            return 0
        }
        stats=$(awk -F': ' '/Elapsed \(wall/ {n = split($2, t, ":"); w = 0; for (k = 1; k <= n; k++) w = w * 60 + t[k]}
                       /User time/ {u = $2} /System time/ {s = $2} /Maximum resident/ {m = $2}
                       END {printf "%.2f %.2f %.1f\n", w, u + s, m / 1024}' "$cache/time.txt")
        read -r w c m <<<"$stats"
        walls+=("$w"); cpus+=("$c"); rss+=("$m")
    done
    printf '%-12s %10s %8s %8s %8s %10s\n' "$name" "$nodes" \
        "$(stat -c %s "$dir"/workers/*/*.scope | awk '{s += $1} END {printf "%.1f", s / 1e6}')" \
        "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)" \
        "$(printf '%s\n' "${rss[@]}" | median)"
}
bench honest-262k 262144 --nodes 262144
bench forged-1.1M 1100000 --forged --nodes 1100000
bench forged-bins 200000 --forged --nodes 200000 --bins 100
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
