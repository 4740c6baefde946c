#!/usr/bin/env bash
# Symbolizing the line samples of a many-process run (issue 30, item 7):
# `scope-tui record -- make -j2` of a small C project
# (tests/lines/progs/gen_cproject.sh), then how long `scope-tui lines RUN`
# and the browser's Lines view take to open it, the three ways the reader
# can symbolize (SCOPE_SYMBOLIZE, src/model/run_lines.c):
#
#   per-process  a symbolizer per process, libdwfl asked every address
#                (nothing shared: what the issue measured)
#   no-index     one symbolizer for the run, libdwfl asked every address
#                (each module opened once; main before the symbol index)
#   shared       one symbolizer, each module's symbol table indexed once
#                (src/model/lines_symindex.c; the default)
#
# Each `lines --json` is run ROUNDS times under /usr/bin/time: the median
# wall time and CPU time (user + system), and the symbolizer's counts
# (SCOPE_SYMBOLIZE_COUNTS=1).  The browser: headless, SCOPE_TUI_TIMINGS,
# keys H (open Lines), P (Phases), H (Lines again): the time of each key.
# The outputs of the three ways are compared byte for byte.
#
# Usage: bench/bench_symbolize.sh [BUILD_DIR] [--files N] [--rounds N] [--run DIR]
#   --run DIR   use a recorded run instead of recording make -j2 (kept)
set -euo pipefail

build=build
files=30
rounds=5
run=
while [ $# -gt 0 ]; do
    case $1 in
    --files) files=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --run) run=$2; shift 2 ;;
    -*) echo "bench_symbolize.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done
tui=$build/src/scope-tui
here=$(cd "$(dirname "$0")" && pwd)
if [[ ! -x $tui ]]; then
    echo "bench_symbolize.sh: no $tui: build first (cmake --build $build)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
if [[ -z $run ]]; then
    "$here/../tests/lines/progs/gen_cproject.sh" "$tmp/proj" "$files"
    run=$tmp/run
    SCOPE_QUIET=1 "$tui" record -o "$run" -- make -C "$tmp/proj" -j2 >"$tmp/record.out" 2>&1 || {
        echo "bench_symbolize.sh: record -- make -j2 failed:" >&2
        tail -5 "$tmp/record.out" >&2
        exit 1
    }
fi
echo "run: $(find "$run" -name '*.scope' | wc -l) processes"

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-12s %10s %10s   %s\n' way "wall (s)" "CPU (s)" "what the symbolizer did"
for way in per-process no-index shared; do
    mode=$way
    [[ $way == shared ]] && mode=
    for ((r = 0; r < rounds; r++)); do
        SCOPE_SYMBOLIZE=$mode SCOPE_SYMBOLIZE_COUNTS=1 /usr/bin/time -f "%e %U %S" -o "$tmp/time" \
            "$tui" lines --json "$run" >"$tmp/$way.json" 2>"$tmp/$way.err"
        read -r wall user sys <"$tmp/time"
        echo "$wall" >>"$tmp/$way.wall"
        awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }' >>"$tmp/$way.cpu"
    done
    printf '%-12s %10s %10s   %s\n' "$way" "$(median <"$tmp/$way.wall")" "$(median <"$tmp/$way.cpu")" \
        "$(sed -n 's/^scope-tui lines: symbolized: //p' "$tmp/$way.err")"
done
for way in per-process no-index; do
    cmp -s "$tmp/shared.json" "$tmp/$way.json" && echo "lines --json: $way and shared are byte-identical" ||
        echo "lines --json: $way and shared DIFFER"
done

echo "browser, headless: ms to handle each key (H opens Lines, P Phases, H Lines again)"
for way in no-index shared; do
    mode=$way
    [[ $way == shared ]] && mode=
    rm -f "$tmp/t"
    SCOPE_SYMBOLIZE=$mode SCOPE_TUI_TIMINGS=$tmp/t "$tui" "$run" --keys HPH >/dev/null
    printf '%-12s %s\n' "$way" "$(awk '$1 == "key" { printf "%s%.1f", n++ ? " / " : "", $2 }' "$tmp/t")"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
