#!/usr/bin/env bash
# Check that the files of src/ depend on each other one way: the graph of
# their #include "..." lines has no cycle.
#
# A .c file and the header it implements are one node: the header it
# includes first (run_model.c implements run_builder.h, run_merge.c
# run_merge.h).  Every other #include "X.h" is an edge from that node to
# X.h's node.  Since each file includes the header that declares what it
# calls, the include graph is the call graph, and a cycle in it is two parts
# calling each other.
#
# Usage: tests/check_src_deps.sh [REPO_ROOT]   (default: the repository of this script)
# Exit status: 0 no cycle, 1 a cycle (its nodes are printed), 2 usage error.
set -euo pipefail

root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
if [[ ! -d "$root/src" ]]; then
    echo "check_src_deps.sh: $root has no src/" >&2
    exit 2
fi
cd "$root/src"

# The quoted includes of FILE that name a header of src/, in order.
local_includes() {
    sed -n -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$1" |
        while IFS= read -r h; do
            [[ -f "$h" ]] && echo "${h%.h}"
        done
    return 0
}

# Edges "FROM TO", one a line; every node also gets "NODE NODE" so that tsort
# lists it even without edges.
edges() {
    local f node dep first
    for f in *.c *.h; do
        [[ -f "$f" ]] || continue
        node=${f%.*}
        if [[ "$f" == *.c ]]; then
            first=$(local_includes "$f" | head -n 1)
            [[ -n "$first" ]] && node=$first
        fi
        echo "$node $node"
        while IFS= read -r dep; do
            [[ "$dep" != "$node" ]] && echo "$node $dep"
        done < <(local_includes "$f")
    done
}

if ! out=$(edges | tsort 2>&1 >/dev/null) || [[ -n "$out" ]]; then
    echo "$out" >&2
    echo "check_src_deps.sh: the files of src/ include each other in a cycle (listed above)" >&2
    exit 1
fi
echo "check_src_deps.sh: the files of src/ depend on each other one way"
