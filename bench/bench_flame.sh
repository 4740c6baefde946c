#!/usr/bin/env bash
# How fast the Flame view opens and answers keys on a large run: a run of
# P processes x H hours from scope_gen_run --lines (every process with line
# samples of the generator's own code: 400 stacks 3-14 frames deep, 8-31
# of them under each phase node of each thread), opened headless with
# SCOPE_TUI_TIMINGS set, so the browser writes how long its first screen
# took (loading the run) and each key (reading it to the drawn screen).
#
#   F        the Flame view's first opening: symbolizing every process's
#            stacks, building the flame, drawing it
#   keys     then moves, zooms, search, names and colours, every one timed
#
# Prints the median and the largest of each over the runs.
#
# Usage: bench/bench_flame.sh BUILD_DIR [--procs P] [--hours H] [--runs N] [--size WxH]
#                             [--cache DIR]
#   defaults: 1024 processes, 0.1 hours (the stacks do not depend on the
#   hours), 5 runs, 200x60, cache $TMPDIR/scope-bench-flame
set -euo pipefail

build=""
procs=1024
hours=0.1
runs=5
size=200x60
cache="${TMPDIR:-/tmp}/scope-bench-flame"
while (($#)); do
    case "$1" in
    --procs) procs="${2:?--procs needs a number}"; shift 2 ;;
    --hours) hours="${2:?--hours needs a number}"; shift 2 ;;
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --size) size="${2:?--size needs WxH}"; shift 2 ;;
    --cache) cache="${2:?--cache needs a directory}"; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "bench_flame.sh: unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
    esac
done
[[ -n "$build" ]] || { echo "usage: bench/bench_flame.sh BUILD_DIR [options]" >&2; exit 2; }
tui=$build/src/scope-tui
gen=$build/bench/scope_gen_run
[[ -x $tui && -x $gen ]] || { echo "bench_flame.sh: build $build first" >&2; exit 2; }

mkdir -p "$cache"
# Named by the generator's checksum too: the samples are of its own code,
# which a rebuild moves (and the run would then rightly show no lines).
run="$cache/lines-${procs}x${hours}-$(md5sum <"$gen" | cut -c1-8)"
if [[ ! -f "$run/.done" ]]; then
    rm -rf "$run"
    echo "writing $procs processes x $hours h with line samples into $run ..."
    "$gen" --out "$run" --procs "$procs" --hours "$hours" --lines --jobs 2 >/dev/null
    touch "$run/.done"
fi
echo "run: $procs processes x $hours h, $(du -sh "$run" | cut -f1), $("$tui" lines --folded "$run" | wc -l) distinct stacks"

# F opens the flame; then each key: down the widest path, along a row, zoom
# in and out, the root, a search and its next match, file:line and back,
# the colours, the callers of a frame and back.
keys='F'
moves='jjjj]][[<Enter>jj<Enter><BS><BS>kk<Home>/gen_fn_3<Enter>nnNffmmjjc<BS>'
timings=$(mktemp)
trap 'rm -f "$timings"' EXIT
for ((i = 0; i < runs; i++)); do
    SCOPE_TUI_TIMINGS=$timings "$tui" "$run" --size "$size" --keys "$keys$moves" >/dev/null
done
python3 - "$timings" "$runs" <<'PY'
import statistics, sys
path, runs = sys.argv[1], int(sys.argv[2])
first, opens, keys = [], [], []
k = 0
for ln in open(path):
    what, ms = ln.split()
    ms = float(ms)
    if what == "first-screen":
        first.append(ms)
        k = 0
        continue
    k += 1
    (opens if k == 1 else keys).append(ms)
def show(name, v):
    print(f"{name:34s} median {statistics.median(v):8.1f} ms   max {max(v):8.1f} ms   ({len(v)} timed)")
show("first screen (loading the run)", first)
show("F: the Flame view opens", opens)
show("each key after it", keys)
PY
