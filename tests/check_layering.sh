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

violations=0

# check DIR FORBIDDEN_HEADER_RE WHY FORBIDDEN_DIR...
# (SKIP=FOLDER in the environment leaves the files under DIR/FOLDER out.)
#
# One awk reads the folders' file lists and then every #include line of DIR's
# sources (grep -Hn), so a tree costs a few processes, not a few per include.
# A name N is "in" a list when a path there ends in /N: awk keeps every
# suffix of every path that starts at a "/", so that is one lookup.
check() {
    local dir=$1 bad_re=$2 why=$3 skip=${SKIP:+$1/$SKIP}
    shift 3
    [[ -d "$dir" ]] || return 0
    local other found
    found=$(
        {
            files_under "$dir" | sed 's/^/own /'
            for other in "$@"; do
                files_under "$other" | sed "s|^|$other |"
            done
            echo "--"
            sources_in "$dir" "$skip" | tr '\n' '\0' |
                xargs -0 -r grep -Hn -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]+[>"]' /dev/null || true
        } | DIR=$dir BAD_RE=$bad_re WHY=$why FOREIGN="$*" awk '
            BEGIN { nforeign = split(ENVIRON["FOREIGN"], foreign, " ") }
            !includes && $0 == "--" { includes = 1; next }
            !includes {
                list = $1
                path = substr($0, length(list) + 2)
                for (i = 1; i <= length(path); i++)
                    if (substr(path, i, 1) == "/")
                        has[list, substr(path, i)] = 1
                next
            }
            {
                # FILE:LINE:#include <NAME> or "NAME"
                file = $0; sub(/:.*/, "", file)
                rest = substr($0, length(file) + 2)
                line = rest; sub(/:.*/, "", line)
                text = substr(rest, length(line) + 2)
                sub(/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]/, "", text)
                name = text; sub(/[>"].*/, "", name)
                # What "read -r line name" made of it: no blanks around.
                sub(/^[[:space:]]+/, "", name); sub(/[[:space:]]+$/, "", name)
                # Leading ./ and ../ say nothing about which folder a header comes from.
                bare = name
                while (bare ~ /^\.\.?\//) sub(/^\.\.?\//, "", bare)
                if (("own", "/" bare) in has)
                    next
                if (name ~ ENVIRON["BAD_RE"])
                    printf "%s:%s: %s/ must not include %s (%s)\n", file, line, ENVIRON["DIR"], name, ENVIRON["WHY"]
                for (k = 1; k <= nforeign; k++)
                    if ((foreign[k], "/" bare) in has)
                        printf "%s:%s: %s/ must not include %s, a header of %s/\n", file, line, ENVIRON["DIR"], name, foreign[k]
            }'
    )
    if [[ -n "$found" ]]; then
        echo "$found"
        violations=$((violations + $(wc -l <<<"$found")))
    fi
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
