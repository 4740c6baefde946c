#!/usr/bin/env bash
# The scale targets of issue 16, each printed beside the figure measured
# before the log held snapshots (the "before" table of bench/README.md,
# section bench/bench_scale.sh) and the target:
#
#   1,024 processes x 12 h with resources: `scope-tui report` wall time and
#     peak memory; the browser's first screen; its keys after it;
#   64 x 12 h with resources: `report` wall time;
#   10,000 x 1 h with resources: `report` wall time;
#   log bytes per process-hour with 1 Hz resources: of scope_gen_run's runs,
#     and of the real recorder (bench_recorder --log-size, about 80 s): a
#     12-hour process's, and its first hour's.
#
# Usage: bench/bench_scale.sh BUILD_DIR [--runs N] [--only LIST] [--cache DIR]
#                             [--keep]
#   --runs N      timed runs of each command (default 3); the median is shown
#   --only LIST   some of: 1024x12 64x12 10000x1 recorder (default all)
#   --cache DIR   where generated runs are kept (default $TMPDIR/scope-bench-report,
#                 or /tmp/..., named as bench/bench_report.sh names them)
#   --keep        keep the 1,024 x 12 h and 10,000 x 1 h runs (about 5 to 12 GB
#                 each); without it they are removed at the end
#
# Runs are written by BUILD_DIR's scope_gen_run --resources, once per
# generator build, and read once before timing so that the figures are CPU
# and memory, not disk.  Each command runs under /usr/bin/time -v.  The
# browser is timed headless (`scope-tui RUN --keys KEYS` with
# SCOPE_TUI_TIMINGS): its first screen from main(), loading included, and
# each key from reading it to the screen drawn in memory, without a
# terminal's output (bench/bench_tui.sh times a real terminal; the drawing is
# the same).  Wall times swing with the machine's other load; the CPU times
# (user + system) are printed beside them.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

build=""
runs=3
only="1024x12 64x12 10000x1 recorder"
cache="${TMPDIR:-/tmp}/scope-bench-report"
keep=0
while (($#)); do
    case "$1" in
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --only) only="${2:?--only needs a list}"; shift 2 ;;
    --cache) cache="${2:?--cache needs a directory}"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "bench_scale.sh: unknown option $1" >&2; exit 2 ;;
    *)
        [[ -z "$build" ]] || { echo "bench_scale.sh: one BUILD_DIR only" >&2; exit 2; }
        build="$1"; shift ;;
    esac
done
[[ -n "$build" ]] || { usage >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "bench_scale.sh: --runs: a positive number" >&2; exit 2; }
for w in $only; do
    case "$w" in 1024x12 | 64x12 | 10000x1 | recorder) ;;
    *) echo "bench_scale.sh: --only: unknown '$w' (1024x12 64x12 10000x1 recorder)" >&2; exit 2 ;;
    esac
done
wants() { [[ " $only " == *" $1 "* ]]; }

here=$(cd "$(dirname "$0")" && pwd)
readme="$here/README.md"
tui="$build/src/scope-tui"
gen="$build/bench/scope_gen_run"
rec="$build/bench/bench_recorder"
for exe in "$tui" "$gen"; do
    [[ -x "$exe" ]] || { echo "bench_scale.sh: no $exe; build first (cmake --build $build)" >&2; exit 2; }
done
if wants recorder && [[ ! -x "$rec" ]]; then
    echo "bench_scale.sh: no $rec; build with SCOPE_BUILD_BENCH=ON" >&2
    exit 2
fi
[[ -x /usr/bin/time ]] || { echo "bench_scale.sh: /usr/bin/time is missing: apt-get install time" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/scope-bench-scale.XXXXXX")
generated=()
cleanup() {
    rm -rf "$tmp"
    if ((!keep)); then
        local d
        for d in "${generated[@]+"${generated[@]}"}"; do rm -rf "$d"; done
    fi
}
trap cleanup EXIT

# ---- runs ------------------------------------------------------------------------

gen_id=$(cksum <"$gen" | cut -d' ' -f1)
mkdir -p "$cache"
# run_dir PROCS HOURS: the run's directory, generated when missing (its
# generator's figures into $tmp/gen.PROCS.HOURS).
run_dir() {
    local procs=$1 hours=$2 key old
    key="p${procs}_h${hours}_r1_g${gen_id}"
    if [[ ! -d "$cache/$key" ]]; then
        for old in "$cache/p${procs}_h${hours}_r1_g"*; do
            [[ -e "$old" ]] && rm -rf "$old" # an older generator's, or half written
        done
        echo "generating $procs processes x $hours h into $cache/$key" >&2
        "$gen" --out "$cache/$key.tmp" --procs "$procs" --hours "$hours" --resources \
            --jobs "$(nproc)" >"$tmp/gen.$procs.$hours"
        mv "$cache/$key.tmp" "$cache/$key"
        ((procs < 1000)) || generated+=("$cache/$key")
    fi
    echo "$cache/$key"
}

# log_kib_ph DIR PROCS HOURS: the run's log KiB per process-hour.
log_kib_ph() {
    find "$1/workers" -type f -name '*.scope' -printf '%s\n' |
        awk -v n="$2" -v h="$3" '{ b += $1 } END { printf "%.1f", b / 1024 / (n * h) }'
}

# ---- timing ----------------------------------------------------------------------

# timed OUT -- CMD...: runs CMD under /usr/bin/time -v, appends
# "WALL_S CPU_S MAX_RSS_MB" to OUT.
timed() {
    local out=$1
    shift 2
    if ! /usr/bin/time -v -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err"; then
        echo "bench_scale.sh: $* failed:" >&2
        tail -5 "$tmp/err" >&2
        exit 1
    fi
    awk -F': ' '
        /Elapsed \(wall clock\)/ { n = split($NF, t, ":"); s = 0
                                   for (i = 1; i <= n; i++) s = s * 60 + t[i] }
        /Maximum resident set size/ { kib = $NF }
        /User time \(seconds\)|System time \(seconds\)/ { cpu += $NF }
        END { printf "%.3f %.3f %.1f\n", s, cpu, kib / 1024 }' "$tmp/time" >>"$out"
}

# median FILE COLUMN
median() {
    awk -v c="$2" '{ print $c }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# A browser session as bench/bench_tui.sh drives it, in --keys notation:
# moves, pages, ends, expanding, sorting, every view, the Processes view
# and a process's own phases, a search and its matches.
keys='1gjjjjjjjjjjjjkkkk<Enter><Enter><Enter>*<PgDn><PgDn><PgDn><PgDn><PgUp><PgUp><PgUp><PgUp>'
keys+='Gg-jjjjjj<Enter><Right>h<Left>hsssss<Tab><Tab><Tab><Tab>3jjj<PgDn>4<PgDn><PgUp>'
keys+='5jjjjjjjjjjjj<PgDn><PgUp>sss<Enter>jjjjjj*<PgDn><Esc>/mcts<Enter>nnnnNN/xyz<Esc>'
keys+='6jjj<PgDn>7<PgDn><PgUp>1q'

# report_figures DIR NAME: `report RUN` RUNS times into $tmp/report.NAME.
report_figures() {
    local i
    find "$1/workers" -type f -name '*.scope' -exec cat {} + >/dev/null # into the page cache
    for ((i = 0; i < runs; i++)); do
        timed "$tmp/report.$2" -- "$tui" report "$1"
    done
}

# browser_figures DIR: RUNS headless sessions; first screens into
# $tmp/first, every key's milliseconds into $tmp/keys.
browser_figures() {
    local i
    : >"$tmp/first"
    : >"$tmp/keys"
    for ((i = 0; i < runs; i++)); do
        rm -f "$tmp/t"
        SCOPE_TUI_TIMINGS="$tmp/t" "$tui" "$1" --keys "$keys" >/dev/null 2>"$tmp/err" || {
            echo "bench_scale.sh: scope-tui $1 --keys ... failed: $(tail -3 "$tmp/err")" >&2
            exit 1
        }
        awk '$1 == "first-screen" { print $2 / 1000 }' "$tmp/t" >>"$tmp/first"
        awk '$1 == "key" { print $2 }' "$tmp/t" >>"$tmp/keys"
    done
}

# ---- the table -------------------------------------------------------------------

# The "before" figures: rows "| KEY | what | target | before |" of the
# README's table, found by KEY.
before() {
    awk -F'|' -v k="$1" '{ gsub(/ /, "", $2) } $2 == k { gsub(/^ +| +$/, "", $5); print $5; exit }' \
        "$readme"
}

: >"$tmp/rows"
row() { # KEY WHAT TARGET NOW
    printf '%s\t%s\t%s\t%s\n' "$2" "$3" "$(before "$1")" "$4" >>"$tmp/rows"
}

if wants 1024x12; then
    dir=$(run_dir 1024 12)
    row size_1024x12 "1,024 x 12 h: log size, GB" "" \
        "$(find "$dir/workers" -type f -name '*.scope' -printf '%s\n' | awk '{ b += $1 } END { printf "%.2f", b / 1e9 }')"
    report_figures "$dir" 1024x12
    row report_1024x12_wall "1,024 x 12 h: report, wall s" "<= 5" "$(median "$tmp/report.1024x12" 1)"
    row report_1024x12_cpu "1,024 x 12 h: report, CPU s" "" "$(median "$tmp/report.1024x12" 2)"
    row report_1024x12_rss "1,024 x 12 h: report, peak MB" "<= 1024" "$(median "$tmp/report.1024x12" 3)"
    browser_figures "$dir"
    row first_1024x12 "1,024 x 12 h: first screen, s" "<= 6" "$(sort -g "$tmp/first" | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }')"
    row keys_1024x12_p99 "1,024 x 12 h: keys, p99 ms" "<= 16" "$(sort -g "$tmp/keys" | awk '{ v[NR] = $1 } END { r = int(0.99 * NR); if (r < 0.99 * NR) r++; printf "%.2f", v[r] }')"
    row keys_1024x12_max "1,024 x 12 h: keys, max ms" "<= 16" "$(sort -g "$tmp/keys" | tail -1)"
fi
if wants 64x12; then
    dir=$(run_dir 64 12)
    report_figures "$dir" 64x12
    row report_64x12_wall "64 x 12 h: report, wall s" "<= 0.3" "$(median "$tmp/report.64x12" 1)"
    row report_64x12_cpu "64 x 12 h: report, CPU s" "" "$(median "$tmp/report.64x12" 2)"
    row logsize_gen "scope_gen_run: log KiB per process-hour" "<= 250" "$(log_kib_ph "$dir" 64 12)"
fi
if wants 10000x1; then
    dir=$(run_dir 10000 1)
    report_figures "$dir" 10000x1
    row report_10000x1_wall "10,000 x 1 h: report, wall s" "<= 15" "$(median "$tmp/report.10000x1" 1)"
    row report_10000x1_cpu "10,000 x 1 h: report, CPU s" "" "$(median "$tmp/report.10000x1" 2)"
    row report_10000x1_rss "10,000 x 1 h: report, peak MB" "" "$(median "$tmp/report.10000x1" 3)"
fi
if wants recorder; then
    echo "bench_recorder --log-size (about 80 s)" >&2
    "$rec" --log-size >"$tmp/rec" 2>&1 || { cat "$tmp/rec" >&2; exit 1; }
    # A 12-hour process's log per hour, samples and snapshots included; its
    # first hour, the dearest, beside it.
    row logsize_recorder "recorder: log KiB per process-hour (12 h)" "<= 250" \
        "$(awk '/a 12-hour process, per hour/ { print $(NF - 1) }' "$tmp/rec")"
    row logsize_recorder_first "recorder: log KiB, first process-hour" "" \
        "$(awk '/the same with snapshots/ { print $(NF - 1) }' "$tmp/rec")"
fi

echo "issue 16's targets: before (bench/README.md) and now, median of $runs, $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
awk -F'\t' '
    BEGIN { printf "%-42s %9s %10s %10s\n", "figure", "target", "before", "now" }
    { printf "%-42s %9s %10s %10s\n", $1, $2, $3 == "" ? "-" : $3, $4 }' "$tmp/rows"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
