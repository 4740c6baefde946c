#!/usr/bin/env bash
# The libraries of src/'s folders call one way too: no object of a folder's
# library uses a symbol that only the library of a folder after it defines.
# check_src_deps.sh holds the #include lines; this holds what they cannot
# see, a header of a lower folder declaring what a higher one defines (so
# that a program linking the lower library alone does not link).
#
# Usage: tests/check_src_links.sh LIBRARY...   (the folders' static libraries, bottom first)
# Exit status: 0 one way, 1 an upward use (each printed), 2 usage error.
set -euo pipefail

if (($# == 0)); then
    echo "usage: check_src_links.sh LIBRARY... (bottom first)" >&2
    exit 2
fi
for lib in "$@"; do
    [[ -f "$lib" ]] || {
        echo "check_src_links.sh: no library $lib" >&2
        exit 2
    }
done

# "RANK LIBRARY SYMBOL" for what each library defines, then "use RANK
# LIBRARY(OBJECT) SYMBOL" for what each object of it leaves undefined.
{
    rank=0
    for lib in "$@"; do
        nm -g --defined-only "$lib" 2>/dev/null | awk -v r=$rank -v l="${lib##*/}" 'NF == 3 { print r, l, $3 }'
        rank=$((rank + 1))
    done
    rank=0
    for lib in "$@"; do
        nm -A -u "$lib" 2>/dev/null |
            awk -v r=$rank -v l="${lib##*/}" '{ obj = $1; sub(/:$/, "", obj); sub(/^.*:/, "", obj)
                                                print "use", r, l "(" obj ")", $NF }'
        rank=$((rank + 1))
    done
} | awk '
    $1 != "use" { if (!($3 in owner) || $1 < rank[$3]) { owner[$3] = $2; rank[$3] = $1 }; next }
    ($4 in owner) && rank[$4] > $2 {
        printf "%s uses %s, which only %s, after it, defines\n", $3, $4, owner[$4]; bad++
    }
    END { exit bad > 0 }' || {
    echo "check_src_links.sh: a folder's library uses one after it (above)" >&2
    exit 1
}
echo "check_src_links.sh: the $# libraries of src/ use each other one way"
