#!/usr/bin/env bash
# Wall time and peak memory of `scope-tui report` on synthetic runs of growing
# size: N processes x H hours written by bench/gen_run.c (scope_gen_run) as the
# recorder writes them at its default settings.  The target: 64 processes x 12
# hours in <= 2 s and <= 250 MB.
#
# Usage: bench/bench_report.sh BUILD_DIR [--runs N] [--grid "P:H ..."]
#                              [--cmd "ARGS"] [--resources] [--cache DIR]
#   --runs N      timed runs per grid point (default 5); the table shows the median
#   --grid LIST   runs to measure as procs:hours (default "16:12 32:12 64:12 64:3 64:6")
#   --cmd ARGS    scope-tui arguments; RUN stands for the run directory, FILES
#                 for its log files (default "report RUN"), e.g. "dump --summary FILES";
#                 OUT for a file to write ("export RUN --format hdf5 -o OUT"), H5
#                 for the run exported to HDF5 beforehand, untimed ("report H5")
#   --resources   runs with 1 Hz RESOURCE records (scope_gen_run --resources)
#   --cache DIR   where generated runs are kept between invocations
#                 (default $TMPDIR/scope-bench-report, or /tmp/...)
#
# Each run is measured with /usr/bin/time -v (Debian package `time`), after its
# logs were read once so they are in the page cache: the figures are CPU and
# memory, not disk.  A run is generated once per parameters and generator
# build, so reruns start at once (a rebuilt generator replaces them); delete the
# cache directory to reclaim its disk (64 x 12 h is about 190 MB).
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

build=""
runs=5
grid="16:12 32:12 64:12 64:3 64:6"
cmd="report RUN"
resources=0
cache="${TMPDIR:-/tmp}/scope-bench-report"
while (($#)); do
    case "$1" in
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --grid) grid="${2:?--grid needs a list}"; shift 2 ;;
    --cmd) cmd="${2:?--cmd needs arguments}"; shift 2 ;;
    --resources) resources=1; shift ;;
    --cache) cache="${2:?--cache needs a directory}"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "bench_report.sh: unknown option $1" >&2; exit 2 ;;
    *)
        [[ -z "$build" ]] || { echo "bench_report.sh: one BUILD_DIR only" >&2; exit 2; }
        build="$1"; shift ;;
    esac
done
[[ -n "$build" ]] || { usage >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "bench_report.sh: --runs: a positive number" >&2; exit 2; }

tui="$build/src/scope-tui"
gen="$build/bench/scope_gen_run"
for exe in "$tui" "$gen"; do
    [[ -x "$exe" ]] || { echo "bench_report.sh: no $exe; build first (cmake --build $build)" >&2; exit 2; }
done
if [[ ! -x /usr/bin/time ]]; then
    echo "bench_report.sh: /usr/bin/time is missing: apt-get install time" >&2
    exit 2
fi
[[ "$cmd" == *RUN* || "$cmd" == *FILES* || "$cmd" == *H5* ]] || cmd="$cmd RUN"

# Grid points as given, each once.
points=()
for pt in $grid; do
    [[ "$pt" =~ ^[1-9][0-9]*:[0-9]*\.?[0-9]+$ ]] || { echo "bench_report.sh: bad grid point '$pt' (procs:hours)" >&2; exit 2; }
    [[ " ${points[*]-} " == *" $pt "* ]] || points+=("$pt")
done

# A generated run is keyed by its parameters and the generator's build, so a
# changed generator never reuses runs written by the old one.
gen_id=$(cksum <"$gen" | cut -d' ' -f1)
mkdir -p "$cache"

# Prints the directory of the run for procs $1 x hours $2, generating it first
# when it is not cached.
run_dir() {
    local procs="$1" hours="$2" extra=() key
    key="p${procs}_h${hours}_r${resources}_g${gen_id}"
    ((resources)) && extra+=(--resources)
    if [[ ! -d "$cache/$key" ]]; then
        local old
        for old in "$cache/p${procs}_h${hours}_r${resources}_g"*; do
            [[ -e "$old" ]] && rm -rf "$old" # written by an older generator, or half written
        done
        echo "generating $procs processes x $hours h into $cache/$key" >&2
        "$gen" --out "$cache/$key.tmp" --procs "$procs" --hours "$hours" "${extra[@]}" >&2
        mv "$cache/$key.tmp" "$cache/$key" # only whole runs under the final name
    fi
    echo "$cache/$key"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/scope-bench-time.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# One timed run: prints "WALL_SECONDS MAX_RSS_KIB CPU_SECONDS" (user + system:
# steadier than the wall time on a shared machine, for a reader that uses
# several threads).
measure() {
    local out="$tmp/time" err="$tmp/stderr"
    if ! /usr/bin/time -v -o "$out" "$tui" "$@" >/dev/null 2>"$err"; then
        echo "bench_report.sh: scope-tui $* failed:" >&2
        tail -5 "$err" >&2
        grep -E 'Exit status|Command terminated' "$out" >&2 || true
        return 1
    fi
    awk -F': ' '
        /Elapsed \(wall clock\)/ { n = split($NF, t, ":"); s = 0
                                   for (i = 1; i <= n; i++) s = s * 60 + t[i] }
        /Maximum resident set size/ { kib = $NF }
        /User time \(seconds\)|System time \(seconds\)/ { cpu += $NF }
        END { printf "%.3f %d %.3f\n", s, kib, cpu }' "$out"
}

# Median, min and max of the numbers on stdin: "MED MIN MAX".
stats() {
    sort -g | awk '{ v[NR] = $1 }
        END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              print m, v[1], v[NR] }'
}

results="$tmp/results"
: >"$results"
for pt in "${points[@]}"; do
    procs="${pt%%:*}" hours="${pt#*:}"
    dir=$(run_dir "$procs" "$hours")
    mapfile -t files < <(find "$dir/workers" -type f -name '*.scope' | sort)
    args=()
    for word in $cmd; do
        case "$word" in
        RUN) args+=("$dir") ;;
        FILES) args+=("${files[@]}") ;;
        OUT) args+=("$tmp/out") ;;
        H5)
            [[ -f "$tmp/run.h5" && "$(cat "$tmp/run.h5.of" 2>/dev/null)" == "$dir" ]] ||
                { "$tui" export "$dir" --format hdf5 -o "$tmp/run.h5" && echo "$dir" >"$tmp/run.h5.of"; }
            args+=("$tmp/run.h5")
            ;;
        *) args+=("$word") ;;
        esac
    done
    cat "${files[@]}" >/dev/null # into the page cache
    mb=$(du -cb "${files[@]}" | awk 'END { printf "%.1f", $1 / 1e6 }')
    : >"$tmp/runs"
    for ((i = 0; i < runs; i++)); do
        measure "${args[@]}" >>"$tmp/runs"
    done
    read -r s_med s_min s_max < <(cut -d' ' -f1 "$tmp/runs" | stats)
    read -r m_med m_min m_max < <(cut -d' ' -f2 "$tmp/runs" | stats)
    read -r c_med _ < <(cut -d' ' -f3 "$tmp/runs" | stats)
    echo "$procs $hours $mb $s_med $s_min $s_max $m_med $m_min $m_max $c_med" >>"$results"
    # What a command wrote, or read, besides the logs.
    for f in "$tmp/out" "$tmp/run.h5"; do
        [[ -f "$f" && " ${args[*]} " == *" $f "* ]] &&
            echo "$procs x $hours h: $(basename "$f") $(du -b "$f" | awk '{ printf "%.1f", $1 / 1e6 }') MB" >>"$tmp/sizes"
    done
    rm -f "$tmp/out"
done

echo "scope-tui ${cmd}: median of $runs runs (min..max), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
awk '
    BEGIN { printf "%6s %6s %9s   %-22s %6s   %-24s\n", "procs", "hours", "log MB", "wall s",
                   "cpu s", "max RSS MB" }
    { printf "%6d %6s %9.1f   %6.2f (%5.2f..%5.2f)   %6.2f   %7.1f (%6.1f..%6.1f)\n",
             $1, $2, $3, $4, $5, $6, $10, $7 / 1024, $8 / 1024, $9 / 1024 }' "$results"

[[ -f "$tmp/sizes" ]] && sed 's/^/  /' "$tmp/sizes"

# Growth along each dimension: the slope between the smallest and largest
# point among those that share the other dimension's most common value (the
# largest, on a tie), e.g. procs at 12 h, hours at 64 processes.
awk '
    { n++; p[n] = $1; h[n] = $2 + 0; s[n] = $4; c[n] = $10; m[n] = $7 / 1024
      np[$1]++; nh[$2 + 0]++ }
    function mode(cnt,   k, best) {
        for (k in cnt)
            if (best == "" || cnt[k] > cnt[best] || (cnt[k] == cnt[best] && k + 0 > best + 0))
                best = k
        return best + 0
    }
    function slope(by_procs, fixed, label,   i, x, lo, hi, xlo, xhi) {
        for (i = 1; i <= n; i++) {
            if ((by_procs ? h[i] : p[i]) != fixed) continue
            x = by_procs ? p[i] : h[i]
            if (lo == "" || x < xlo) { lo = i; xlo = x }
            if (hi == "" || x > xhi) { hi = i; xhi = x }
        }
        if (lo == "" || xhi == xlo) return
        printf "  per %s at %s: %+.1f ms wall, %+.1f ms CPU, %+.2f MB\n",
               by_procs ? "process" : "hour", label, 1000 * (s[hi] - s[lo]) / (xhi - xlo),
               1000 * (c[hi] - c[lo]) / (xhi - xlo), (m[hi] - m[lo]) / (xhi - xlo)
    }
    END { print "growth (medians, between the smallest and largest grid point):"
          fh = mode(nh); fp = mode(np)
          slope(1, fh, fh " h"); slope(0, fp, fp " processes") }' "$results"
