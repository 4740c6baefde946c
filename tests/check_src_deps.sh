#!/usr/bin/env bash
# Check that the files of a tree of C sources depend on each other one way.
#
# src/ is split into folders, bottom first (FOLDERS below; src/CMakeLists.txt
# builds each as a library linked to the one before it):
#
#   base  model  load  render  export  cmd
#
# A file of src/ lies in one of them and includes headers of its own folder
# and of the folders before it only; inside a folder, the graph of #include
# "..." lines has no cycle.  ui/ is one flat folder: the graph of its files
# has no cycle.
#
# A .c file and the header it includes first are one node: the header it
# implements (run_model.c implements run_builder.h, run_merge.c run_merge.h).
# When that header is named after another .c file, which implements it
# (cmd_check.c includes cmd_util.h first, a view style.h), the .c file is a
# node of its own.  Every other #include of a header of the tree is an edge
# from that node to the header's node.  Since each file includes the header
# that declares what it calls, the include graph is the call graph, and a
# cycle in it is two parts calling each other.
#
# Usage: tests/check_src_deps.sh [REPO_ROOT [TREE]]   (default: this repository, src)
#        tests/check_src_deps.sh --self-test [REPO_ROOT]  (fails on trees made to break it)
# Exit status: 0 one way, 1 a cycle, an include against the order or a file
# in no folder (each printed), 2 usage error.
set -euo pipefail

# The folders of a tree, bottom first; a tree not named here is one flat folder.
declare -A FOLDERS=([src]="base model load render export cmd api")

# check ROOT TREE: the verdict on ROOT/TREE.
check() {
    local root=$1 tree=$2
    if [[ ! -d "$root/$tree" ]]; then
        echo "check_src_deps.sh: $root has no $tree/" >&2
        return 2
    fi
    # shellcheck disable=SC2086 # the folders, one word each
    (cd "$root/$tree" && check_here "$tree" ${FOLDERS[$tree]:-})
}

# check_here TREE [FOLDER...]: the verdict on the current directory, the tree
# TREE, whose files lie in the folders FOLDER... (bottom first), or directly
# in it when none is given.
check_here() {
    local tree=$1
    shift
    local -a folders=("$@")
    local -A rank=() header=() node_of=()
    local f d h i problems=0
    if ((${#folders[@]} == 0)); then
        rank[.]=0
    fi
    for i in "${!folders[@]}"; do
        rank[${folders[i]}]=$i
    done

    local -a files=()
    mapfile -t files < <(find . -type f \( -name '*.c' -o -name '*.h' \) -printf '%P\n' | sort)
    if ((${#files[@]} == 0)); then
        echo "check_src_deps.sh: no C files in $tree/" >&2
        return 2
    fi

    # Where each header lies; a name twice would make a bare #include ambiguous.
    for f in "${files[@]}"; do
        d=$(dirname "$f")
        if [[ -z "${rank[$d]+set}" ]]; then
            echo "$tree/$f: lies in no folder of $tree/ (${folders[*]:-its files lie directly in it})"
            problems=$((problems + 1))
            continue
        fi
        [[ "$f" == *.h ]] || continue
        h=${f##*/}
        if [[ -n "${header[$h]:-}" ]]; then
            echo "$tree/$f: $h is also $tree/${header[$h]}: a bare #include \"$h\" is ambiguous"
            problems=$((problems + 1))
        fi
        header[$h]=$f
    done

    # FILE LINE HEADER for every quoted include of a header of the tree.
    local includes
    includes=$(for f in "${files[@]}"; do
        [[ -n "${rank[$(dirname "$f")]+set}" ]] && printf '%s\0' "$f"
    done | xargs -0 -r grep -Hn -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' /dev/null |
        sed -E 's/^([^:]+):([0-9]+):[^"]*"([^"]+)".*/\1 \2 \3/' |
        while read -r f line h; do
            h=${h##*/}
            [[ -n "${header[$h]:-}" ]] && echo "$f $line ${header[$h]}"
        done || true)

    # Each file's node: a header is its own; a .c file is the header it
    # includes first, in its own folder and implemented by no other .c file.
    local first
    for f in "${files[@]}"; do
        node_of[$f]=${f%.*}
    done
    while read -r f first; do
        [[ "$f" == *.c && -n "$first" ]] || continue
        [[ "$(dirname "$first")" == "$(dirname "$f")" ]] || continue
        [[ -f "${first%.h}.c" && "${first%.h}.c" != "$f" ]] && continue
        node_of[$f]=${first%.h}
    done < <(awk '!seen[$1]++ { print $1, $3 }' <<<"$includes")

    # The order between folders, with the line that breaks it.
    local line df dh
    while read -r f line h; do
        [[ -n "$f" ]] || continue
        df=$(dirname "$f")
        dh=$(dirname "$h")
        if ((${rank[$dh]} > ${rank[$df]})); then
            echo "$tree/$f:$line: includes ${h##*/}, a header of $tree/$dh/, which comes after $tree/$df/ (bottom first: ${folders[*]})"
            problems=$((problems + 1))
        fi
    done <<<"$includes"

    # No cycle inside a folder (one across folders needs an include against
    # the order, reported above).  Every node also gets "NODE NODE" so that
    # tsort lists it even without edges.
    local edges loop
    edges=$(
        for f in "${files[@]}"; do
            echo "${node_of[$f]} ${node_of[$f]}"
        done
        while read -r f line h; do
            if [[ -n "$f" && "${node_of[$f]}" != "${h%.h}" ]]; then
                echo "${node_of[$f]} ${h%.h}"
            fi
        done <<<"$includes"
    )
    for d in "${folders[@]:-.}"; do
        if ! loop=$(awk -v d="$d" '{ a = $1; b = $2; sub(/\/[^\/]*$/, "", a); sub(/\/[^\/]*$/, "", b)
                                     if ($1 !~ /\//) a = "."; if ($2 !~ /\//) b = "."
                                     if (a == d && b == d) print }' <<<"$edges" | tsort 2>&1 >/dev/null) ||
            [[ -n "$loop" ]]; then
            echo "the files of $tree/${d#.} include each other in a cycle:"
            sed -nE 's/^tsort: //p' <<<"$loop" | grep -v 'input contains a loop' | sed 's/^/  /'
            problems=$((problems + 1))
        fi
    done

    if ((problems > 0)); then
        echo "check_src_deps.sh: $tree/ does not depend on itself one way ($problems problem(s) above)" >&2
        return 1
    fi
    if ((${#folders[@]} > 0)); then
        echo "check_src_deps.sh: the ${#files[@]} files of $tree/ depend on each other one way, folders bottom first: ${folders[*]}"
    else
        echo "check_src_deps.sh: the ${#files[@]} files of $tree/ depend on each other one way"
    fi
}

# self_test [REPO_ROOT]: trees made to break each rule must fail, clean ones pass.
self_test() {
    local root=$1 tmp status=0 out
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    # expect VERDICT WHAT ROOT TREE [PATTERN]: check ROOT/TREE gives VERDICT
    # (pass or fail) and, when failing, prints a line matching PATTERN.
    expect() {
        local verdict=$1 what=$2 r=$3 t=$4 pattern=${5:-}
        if out=$(check "$r" "$t" 2>&1); then
            [[ "$verdict" == pass ]] && return 0
            echo "self-test: $what passed"
        elif [[ "$verdict" == fail ]] && { [[ -z "$pattern" ]] || grep -q -- "$pattern" <<<"$out"; }; then
            return 0
        else
            echo "self-test: $what: wanted $verdict, got:"
            sed 's/^/  /' <<<"$out"
        fi
        status=1
    }
    mk() { mkdir -p "$(dirname "$1")" && printf '%b' "$2" >"$1"; }

    # A clean layered tree: model/ uses base/; run.c implements build.h.
    mk "$tmp/good/src/base/arena.h" ''
    mk "$tmp/good/src/base/arena.c" '#include "arena.h"\n'
    mk "$tmp/good/src/model/run.h" '#include "arena.h"\n'
    mk "$tmp/good/src/model/build.h" '#include "run.h"\n'
    mk "$tmp/good/src/model/run.c" '#include "build.h"\n#include "arena.h"\n'
    mk "$tmp/good/src/cmd/cmd_a.c" '#include "build.h"\n'
    expect pass "a clean tree" "$tmp/good" src

    cp -r "$tmp/good" "$tmp/wrong"
    mk "$tmp/wrong/src/base/arena.c" '#include "arena.h"\n#include "run.h"\n'
    expect fail "base/ including a header of model/" "$tmp/wrong" src \
        'base/arena.c:2: includes run.h, a header of src/model/, which comes after src/base/'

    cp -r "$tmp/good" "$tmp/cycle"
    mk "$tmp/cycle/src/model/other.h" '#include "run.h"\n'
    mk "$tmp/cycle/src/model/other.c" '#include "other.h"\n#include "build.h"\n'
    mk "$tmp/cycle/src/model/run.c" '#include "build.h"\n#include "other.h"\n'
    expect fail "a cycle inside model/" "$tmp/cycle" src 'src/model include each other in a cycle'

    cp -r "$tmp/good" "$tmp/flat"
    mk "$tmp/flat/src/loose.c" '#include "run.h"\n'
    expect fail "a file lying directly in src/" "$tmp/flat" src 'src/loose.c: lies in no folder'

    cp -r "$tmp/good" "$tmp/twice"
    mk "$tmp/twice/src/cmd/arena.h" ''
    expect fail "one header name in two folders" "$tmp/twice" src 'ambiguous'

    # A flat tree: a view that includes style.h first is not style.c's node,
    # so app.c including style.h makes no cycle; app and lines calling each
    # other do.
    mk "$tmp/ui/ui/style.h" ''
    mk "$tmp/ui/ui/style.c" '#include "style.h"\n'
    mk "$tmp/ui/ui/app.h" ''
    mk "$tmp/ui/ui/app.c" '#include "app.h"\n#include "style.h"\n'
    mk "$tmp/ui/ui/view_a.c" '#include "style.h"\n#include "app.h"\n'
    mk "$tmp/ui/ui/lines.h" '#include "app.h"\n'
    mk "$tmp/ui/ui/lines.c" '#include "lines.h"\n'
    expect pass "a flat tree" "$tmp/ui" ui
    mk "$tmp/ui/ui/app.c" '#include "app.h"\n#include "style.h"\n#include "lines.h"\n'
    expect fail "app and lines calling each other" "$tmp/ui" ui 'ui/ include each other in a cycle'

    # The repository's own src/, with one include planted against the order.
    if [[ -n "$root" && -d "$root/src/model" ]]; then
        mkdir -p "$tmp/planted"
        cp -r "$root/src" "$tmp/planted/"
        expect pass "the repository's src/" "$tmp/planted" src
        echo '#include "report_text.h"' >>"$tmp/planted/src/model/run_model.c"
        expect fail "model/run_model.c including render/report_text.h" "$tmp/planted" src \
            'src/model/run_model.c:[0-9]*: includes report_text.h, a header of src/render/'
    fi
    ((status == 0)) && echo "check_src_deps.sh: self-test passed"
    return "$status"
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case "${1:-}" in
--self-test) self_test "${2:-$here}" ;;
-h | --help) sed -n '2,26s/^# \{0,1\}//p' "$0" ;;
*) check "${1:-$here}" "${2:-src}" ;;
esac
