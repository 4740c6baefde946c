#!/usr/bin/env bash
# Symbolizing once (issue 30, item 7) on a real multi-process run:
# `scope-tui record -- make -j2` of a small C project (gcc's driver, cc1,
# as, ld, the shells, make), then `scope-tui lines`:
#
#   - the output is byte for byte the same whether the run is symbolized by
#     one symbolizer with each module's symbol index (the default), by one
#     asking libdwfl every address (SCOPE_SYMBOLIZE=no-index), or by one
#     per process (SCOPE_SYMBOLIZE=per-process): text, --json, --raw;
#   - the shared symbolizer opens each module (path and build-id) once: the
#     files it opened are the distinct modules the samples' stacks name, as
#     `scope-tui dump` lists them; one per process opens each again in every
#     process, which is what the dump's per-process count says;
#   - the index leaves fewer whole symbol tables searched than addresses
#     looked up (every one of them without it).
#
# Usage: test_lines_symcache.sh SCOPE_TUI PROGS_SOURCE_DIR
set -euo pipefail
tui=$1
progs=$2
. "$progs/../../e2e/lib.sh"

command -v make >/dev/null && command -v cc >/dev/null || {
    echo "SKIP: no make or cc"
    exit 77
}
"$progs/gen_cproject.sh" proj 6
# Under AddressSanitizer its runtime goes first in the preload list of the
# programs record runs (as in test_lines_known.sh).
asan=$(ldd "$tui" | awk '/libasan/ {print $3}')
env ${asan:+LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0} SCOPE_QUIET=1 "$tui" record -o run -- make -C proj -j2 >record.out 2>&1 ||
    fail "record -- make -j2 failed: $(tail -5 record.out)"

nprocs=$(find run -name '*.scope' | wc -l)
[ "$nprocs" -ge 10 ] || fail "make -j2 of 6 files recorded $nprocs processes, expected at least 10"

# The modules the stacks name, from the logs themselves: per process, the
# MODULE records (id -> path and build-id) that a STACK's frames use.
for log in $(find run -name '*.scope' | sort); do
    "$tui" dump "$log" | awk -v lf="$log" '
        $1 == "MODULE" { for (i = 1; i <= NF; i++) { if ($i == "build-id") b = $(i + 1); if ($i == "path") p = $(i + 1) }
                         mod[$2] = p " " b }
        $1 == "STACK" { for (i = 4; i <= NF; i++) { split($i, f, "+"); if (f[1] != "0") used[f[1]] = 1 } }
        END { for (m in used) if (m in mod) print lf, mod[m] }'
done >modules.txt
distinct=$(cut -d' ' -f2- modules.txt | sort -u | wc -l)
per_process=$(sort -u modules.txt | wc -l)
[ "$distinct" -ge 3 ] || fail "the stacks name $distinct modules: $(head modules.txt)"

counts() { # MODE: the symbolizer's counts line for lines --json in that mode
    SCOPE_SYMBOLIZE=$1 SCOPE_SYMBOLIZE_COUNTS=1 "$tui" lines --json run 2>&1 >/dev/null |
        sed -n 's/^scope-tui lines: symbolized: //p'
}
field() { # LINE WORD: the number before WORD
    echo "$1" | tr ',' '\n' | grep -F " $2" | grep -oE '[0-9]+' | head -1
}

shared=$(counts "")
[ "$(field "$shared" "module files opened")" = "$distinct" ] ||
    fail "shared: $shared; the stacks name $distinct distinct modules"
[ "$(field "$shared" "modules")" = "$distinct" ] || fail "shared: $shared; modules != $distinct"
unshared=$(counts per-process)
[ "$(field "$unshared" "module files opened")" = "$per_process" ] ||
    fail "per-process: $unshared; the processes' stacks name $per_process modules in all"
[ "$per_process" -gt "$distinct" ] ||
    fail "no module is sampled in two processes ($per_process, $distinct): the run shows no sharing"
noindex=$(counts no-index)
searched=$(field "$shared" "whole symbol tables")
searched_noindex=$(field "$noindex" "whole symbol tables")
addresses=$(field "$shared" "addresses")
[ "$searched" -lt "$searched_noindex" ] && [ "$searched" -lt "$addresses" ] ||
    fail "the index searched $searched whole tables for $addresses addresses (without it: $searched_noindex)"

echo "$nprocs processes; their stacks name $distinct distinct modules, $per_process counted per process"
echo "shared: $shared"
echo "no-index: $noindex"
echo "per-process: $unshared"

for args in "" "--json" "--raw --json" "--raw"; do
    # shellcheck disable=SC2086
    "$tui" lines $args run >shared.out 2>&1 || fail "lines $args failed: $(head -5 shared.out)"
    for mode in no-index per-process; do
        # shellcheck disable=SC2086
        SCOPE_SYMBOLIZE=$mode "$tui" lines $args run >"$mode.out" 2>&1 || fail "lines $args ($mode) failed"
        cmp -s shared.out "$mode.out" ||
            fail "lines $args: shared and $mode differ: $(diff shared.out "$mode.out" | head -10)"
    done
done
grep -q "cc1" shared.out || fail "lines shows no cc1 row: $(head -20 shared.out)"

finish
