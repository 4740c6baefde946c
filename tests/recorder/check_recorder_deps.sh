#!/usr/bin/env bash
# The recorder's files depend on each other one way (recorder/recorder.h says
# in which order).  A module is a file name without its extension: x.c and x.h
# are module x.  Two rules, read from the sources:
#
#   1. The graph of #include "..." between modules has no cycle.
#   2. A file that uses a function, object or macro named rec_* that another
#      module's header declares includes that header itself, so the include
#      graph is the graph of calls and rule 1 is about calls.
#   3. What x.h declares (other than macros and inline functions) is defined
#      in x.c: a header exports its own module's names, not another's.
#
# A function a module defines with external linkage under a name that is not
# rec_* (one libscope interposes, like pthread_create, or a public scope_*
# one) is called through no recorder header, so no include shows the call:
# each call to one from another module adds an edge to the graph of rule 1.
#
# Usage: check_recorder_deps.sh [RECORDER_DIR]   (default: recorder/ of this repository)
#        check_recorder_deps.sh --self-test      (both rules fail on trees made to break them)
# Exit status: 0 clean, 1 violations (each printed), 2 usage error.
set -euo pipefail

# The names a header declares: functions, extern objects and macros named
# rec_* (types and upper-case constants are left out: using one calls
# nothing).  Declarations start at column 0; a function's name is the first
# rec_* followed by "(", an object's the one before ";", "[" or an attribute.
declared_in() {
    perl -ne '
        if (/^#define\s+(rec_[a-z0-9_]+)/) { print "$1\n" unless $ENV{EXPORTED}; next }
        next unless /^[A-Za-z_]/;
        next if $ENV{EXPORTED} && /^static\b/;
        if (/^extern\b.*?\b(rec_[a-z0-9_]+)\s*(;|\[|__attribute__)/) { print "$1\n"; next }
        print "$1\n" if /\b(rec_[a-z0-9_]+)\s*\(/;
    ' "$1" | sort -u
}

# Whether FILE defines NAME: at column 0, not a declaration (extern) nor a
# file's own (static).
defines() {
    NAME=$2 perl -ne '
        $found = 1 if !/^(extern|static)\b/ && /^[A-Za-z_].*\b\Q$ENV{NAME}\E\s*(\(|=|\[|;|__attribute__)/;
        END { $? = $found ? 0 : 1 }
    ' "$1"
}

# The rec_* names FILE uses outside comments and string literals.
used_in() {
    perl -0777 -ne '
        s{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s{"(?:\\.|[^"\\\n])*"}{""}g;
        my %seen; $seen{$1}++ while /\b(rec_[a-z0-9_]+)\b/g;
        print "$_\n" for sort keys %seen;
    ' "$1"
}

# The functions FILE defines with external linkage under a name that is not
# rec_*: a definition at column 0 that is not static.
defined_unprefixed() {
    perl -0777 -ne '
        s{/\*.*?\*/}{}gs; s{//[^\n]*}{}g;
        while (/^([A-Za-z_][^\n;{}#=]*?)\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{/mg) {
            my ($head, $name) = ($1, $2);
            next if $head =~ /\bstatic\b/ || $name =~ /^rec_/;
            print "$name\n";
        }
    ' "$1" | sort -u
}

# The names FILE calls (a name followed by "("), outside comments and
# string literals.
called_in() {
    perl -0777 -ne '
        s{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s{"(?:\\.|[^"\\\n])*"}{""}g;
        my %seen; $seen{$1}++ while /\b([A-Za-z_]\w*)\s*\(/g;
        print "$_\n" for sort keys %seen;
    ' "$1"
}

# "CALLER DEFINER NAME" for each call from one module to a function another
# defines under a name no recorder header declares.
hidden_calls() {
    local f m name
    local -A definer=()
    for f in "$@"; do
        [[ "$f" == *.c ]] || continue
        m=$(module_of "$f")
        for name in $(defined_unprefixed "$f"); do
            definer[$name]=$m
        done
    done
    for f in "$@"; do
        m=$(module_of "$f")
        for name in $(called_in "$f"); do
            local d=${definer[$name]:-}
            if [[ -n "$d" && "$d" != "$m" ]]; then echo "$m $d $name"; fi
        done
    done | sort -u
}

# Quoted includes of FILE, as module names.
includes_of() {
    sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$1" |
        sed -E 's#.*/##; s/\.[ch]$//'
}

module_of() {
    local base=${1##*/}
    echo "${base%.*}"
}

check_dir() {
    local dir=$1 f h m name
    local violations=0
    shopt -s nullglob
    local files=("$dir"/*.c "$dir"/*.h)
    local headers=("$dir"/*.h)
    if ((${#files[@]} == 0)); then
        echo "check_recorder_deps.sh: no C files in $dir" >&2
        return 2
    fi

    # Rule 1: tsort reports a loop in the module graph: its includes and the
    # calls no include shows.
    local edges calls
    calls=$(hidden_calls "${files[@]}")
    edges=$(
        for f in "${files[@]}"; do
            m=$(module_of "$f")
            echo "$m $m"
            for name in $(includes_of "$f"); do
                [[ -e "$dir/$name.h" ]] && echo "$m $name"
            done
        done
        [[ -z "$calls" ]] || cut -d' ' -f1,2 <<<"$calls"
    )
    edges=$(awk '$1 != $2 || NF == 2' <<<"$edges" | sort -u)
    local loop
    if ! loop=$(tsort <<<"$edges" 2>&1 >/dev/null) || [[ -n "$loop" ]]; then
        echo "recorder modules include or call each other in a cycle:"
        sed -nE 's/^tsort: //p' <<<"$loop" | grep -v 'input contains a loop' | sed 's/^/  /'
        # The hidden calls between modules of the loop.
        [[ -z "$calls" ]] || awk -v loop="$loop" '
            BEGIN { n = split(loop, w, /[ \n]+/); for (i = 1; i <= n; i++) in_loop[w[i]] = 1 }
            in_loop[$1] && in_loop[$2] {
                print "  (" $1 " calls " $3 ", which " $2 ".c defines: no include shows it)"
            }' <<<"$calls"
        violations=$((violations + 1))
    fi

    # Rule 2: who declares what.
    local -A owner=()
    for h in "${headers[@]}"; do
        m=$(module_of "$h")
        for name in $(declared_in "$h"); do
            owner[$name]=$m
        done
    done
    for h in "${headers[@]}"; do
        for name in $(EXPORTED=1 declared_in "$h"); do
            defines "${h%.h}.c" "$name" 2>/dev/null && continue
            echo "$h: declares $name, which ${h##*/} does not define in ${h%.h}.c"
            violations=$((violations + 1))
        done
    done
    for f in "${files[@]}"; do
        m=$(module_of "$f")
        local inc
        inc=" $m $(includes_of "$f" | tr '\n' ' ') "
        for name in $(used_in "$f"); do
            local o=${owner[$name]:-}
            [[ -z "$o" || "$inc" == *" $o "* ]] && continue
            echo "$f: uses $name, declared in $o.h, without including it"
            violations=$((violations + 1))
        done
    done
    if ((violations > 0)); then
        return 1
    fi
    echo "check_recorder_deps.sh: ${#files[@]} files in $dir depend on each other one way"
}

self_test() {
    local tmp status
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    mkdir "$tmp/good" "$tmp/loop" "$tmp/hidden"
    printf 'void rec_a(void);\n' >"$tmp/good/a.h"
    printf '#include "a.h"\nvoid rec_b(void);\n' >"$tmp/good/b.h"
    printf '#include "b.h"\n#include "a.h"\nvoid rec_b(void) { rec_a(); }\n' >"$tmp/good/b.c"
    printf '#include "a.h"\nvoid rec_a(void) {}\n' >"$tmp/good/a.c"
    cp "$tmp/good/"* "$tmp/loop/"
    printf '#include "a.h"\n#include "b.h"\nvoid rec_a(void) { rec_b(); }\n' >"$tmp/loop/a.c"
    cp "$tmp/good/"* "$tmp/hidden/"
    printf '#include "b.h"\nvoid rec_b(void) { rec_a(); }\n' >"$tmp/hidden/b.c"
    # b.c defines an interposed function that a.c calls: a call from a to b
    # that no include shows closes a loop with b's include of a.
    mkdir "$tmp/interposed"
    cp "$tmp/good/"* "$tmp/interposed/"
    printf '#include "b.h"\n#include "a.h"\nvoid rec_b(void) { rec_a(); }\nint open(void) { return 0; }\n' >"$tmp/interposed/b.c"
    printf '#include "a.h"\nint open(void);\nvoid rec_a(void) { open(); }\n' >"$tmp/interposed/a.c"
    mkdir "$tmp/elsewhere"
    cp "$tmp/good/"* "$tmp/elsewhere/"
    printf '#include "b.h"\n#include "a.h"\nvoid rec_b(void) { rec_a(); }\nvoid rec_c(void) {}\n' >"$tmp/elsewhere/b.c"
    printf 'void rec_a(void);\nvoid rec_c(void);\n' >"$tmp/elsewhere/a.h"
    status=0
    check_dir "$tmp/good" >/dev/null || { echo "self-test: a clean tree failed"; status=1; }
    if check_dir "$tmp/loop" >/dev/null; then
        echo "self-test: a cycle passed"
        status=1
    fi
    # b.c reaches a.h only through b.h: rule 2 must catch the hidden use.
    if check_dir "$tmp/hidden" >/dev/null; then
        echo "self-test: a call through an indirect include passed"
        status=1
    fi
    if check_dir "$tmp/interposed" >/dev/null; then
        echo "self-test: a cycle through an interposed function passed"
        status=1
    fi
    # a.h exports rec_c, which b.c defines: rule 3.
    if check_dir "$tmp/elsewhere" >/dev/null; then
        echo "self-test: a header declaring another module's function passed"
        status=1
    fi
    ((status == 0)) && echo "check_recorder_deps.sh: self-test passed"
    return "$status"
}

case "${1:-}" in
--self-test) self_test ;;
-h | --help) sed -n '2,14s/^# \{0,1\}//p' "$0" ;;
*)
    dir=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../recorder" && pwd)}
    [[ -d "$dir" ]] || {
        echo "check_recorder_deps.sh: $dir is not a directory" >&2
        exit 2
    }
    check_dir "$dir"
    ;;
esac
