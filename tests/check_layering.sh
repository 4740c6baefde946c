#!/usr/bin/env bash
# Enforce the layering rules (README.md, "Repository layout") on #include lines:
#
#   formats/   libc and zstd: no ncurses, HDF5, libyaml or elfutils (libdw,
#              libelf, dwarf.h) headers, and nothing from src/, ui/ or recorder/;
#              formats/h5/ alone, a target of its own, may include HDF5's.
#   recorder/  runs inside other people's programs: no ncurses, HDF5, libyaml or
#              elfutils headers, and nothing from src/ or ui/.
#   src/       the analysis core: no ncurses headers and nothing from ui/, so
#              the report, JSON and the TUI always show the same figures.
#
# A header "from" a folder is one that exists under it and that the including
# folder does not have itself; "../ui/x.h", "ui/x.h" and "x.h" all match ui/x.h.
#
# Usage: tests/check_layering.sh [REPO_ROOT]   (default: the repository of this script)
# Exit status: 0 clean, 1 violations (each printed as file:line), 2 usage error.
set -euo pipefail

root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
if [[ ! -d "$root/formats" || ! -d "$root/src" ]]; then
    echo "check_layering.sh: $root does not look like the scope repository" >&2
    exit 2
fi
cd "$root"

# Extended regular expressions, matched against the name between <> or "".
curses_re='^(n?cursesw?/|n?cursesw?\.h$|ncurses_dll\.h$|term\.h$|termcap\.h$|unctrl\.h$|panelw?\.h$|menuw?\.h$|formw?\.h$)'
hdf5_re='^(hdf5[^/]*\.h$|H5[^/]*\.h$|hdf5/)'
heavy_but_hdf5_re="$curses_re"'|^yaml\.h$|^(elfutils/|libdw[^/]*\.h$|libdwfl\.h$|dwarf\.h$|libelf\.h$|gelf\.h$)'
heavy_re="$heavy_but_hdf5_re|$hdf5_re"

# Source files whose #include lines are checked: those under $1, less those
# under the folder $2 when given (checked by a rule of its own).
sources_in() {
    find "$1" ${2:+-path "$2" -prune -o} -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' -o -name '*.def' \) -print | sort
}

# All files under the given folders, as "/path" so a suffix match on "/NAME"
# only ever matches whole path components.
files_under() {
    local d
    for d in "$@"; do
        [[ -d "$d" ]] && find "$d" -type f -printf '/%p\n'
    done
    return 0
}

# Print "LINE NAME" for each #include of FILE.
includes_of() {
    grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]+[>"]' "$1" |
        sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"].*/\1 \2/'
}

# Does a path in the newline-separated LIST end in /NAME?
in_list() {
    local name=$1 list=$2
    # Leading ./ and ../ say nothing about which folder a header comes from.
    while [[ "$name" == ./* || "$name" == ../* ]]; do
        name=${name#./}
        name=${name#../}
    done
    awk -v suffix="/$name" '
        length($0) >= length(suffix) && substr($0, length($0) - length(suffix) + 1) == suffix { found = 1; exit }
        END { exit !found }' <<<"$list"
}

violations=0
report() {
    echo "$1: $2"
    violations=$((violations + 1))
}

# check DIR FORBIDDEN_HEADER_RE WHY FORBIDDEN_DIR...
# (SKIP=FOLDER in the environment leaves the files under DIR/FOLDER out.)
check() {
    local dir=$1 bad_re=$2 why=$3 skip=${SKIP:+$1/$SKIP}
    shift 3
    [[ -d "$dir" ]] || return 0
    local own file line name other
    own=$(files_under "$dir")
    local -A foreign=()
    for other in "$@"; do
        foreign[$other]=$(files_under "$other")
    done
    while IFS= read -r file; do
        while read -r line name; do
            # A header the folder has itself is its own, whatever its name.
            if in_list "$name" "$own"; then
                continue
            fi
            if [[ "$name" =~ $bad_re ]]; then
                report "$file:$line" "$dir/ must not include $name ($why)"
            fi
            for other in "$@"; do
                if in_list "$name" "${foreign[$other]}"; then
                    report "$file:$line" "$dir/ must not include $name, a header of $other/"
                fi
            done
        done < <(includes_of "$file")
    done < <(sources_in "$dir" "$skip")
}

SKIP=h5 check formats "$heavy_re" "libc and zstd only" src ui recorder
check formats/h5 "$heavy_but_hdf5_re" "HDF5 and libc only" src ui recorder
check recorder "$heavy_re" "nothing heavier than libc, pthreads, zstd, libunwind" src ui
check src "$curses_re" "the analysis core knows nothing about the terminal" ui

if ((violations > 0)); then
    echo "check_layering.sh: $violations layering violation(s); see 'Repository layout' in README.md" >&2
    exit 1
fi
echo "check_layering.sh: formats/, recorder/ and src/ respect the layering"
