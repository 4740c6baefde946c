#!/usr/bin/env bash
# Check that docs/architecture.md points at the code as it is:
#
#   - every .c file of the product (formats/, recorder/, src/, ui/) is named
#     in it, as a `code span` holding its name (with or without a folder,
#     with or without .c: `run_model.c`, `src/model/run_model.c`, `clock`);
#   - every row of the recorder's data-source table (rec_sources[] in
#     recorder/sources.c) is named (`rec_source_phases`);
#   - every hook of a data source (the function pointers of struct
#     rec_source in recorder/source.h) is named (`encode(f)` or `encode`);
#   - every .c or .h file it names exists (placeholders such as
#     `source_NAME.c` aside).
#
# The doc keeps its own words for each file; this keeps the lists whole and
# none of them stale, so a file added or removed without its line fails.
#
# Usage: tests/check_architecture_doc.sh [REPO_ROOT]   (default: this script's repository)
# Exit status: 0 the doc is whole, 1 something is missing or stale (listed), 2 usage error.
set -euo pipefail

root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
doc=$root/docs/architecture.md
if [[ ! -f "$doc" || ! -f "$root/recorder/sources.c" || ! -f "$root/recorder/source.h" ]]; then
    echo "check_architecture_doc.sh: $root has no docs/architecture.md or recorder/sources.c" >&2
    exit 2
fi
cd "$root"

# Every code span of the doc, one a line, reduced to the name it holds: the
# part after the last '/', without a call's "(...)" or a ".c", ".h" or
# ".[ch]" ending.  A span of several words ("run_builder_add_workers →")
# gives each word.
names_in_doc() {
    grep -o '`[^`]*`' "$doc" | tr -d '`' | tr ' ,' '\n\n' |
        sed -E -e 's|.*/||' -e 's/\(.*//' -e 's/\.(c|h|\[ch\])$//' | sed '/^$/d' | sort -u
}

# The product's C files, as "stem path".
product_files() {
    find formats recorder src ui -name '*.c' -type f | sort | while IFS= read -r f; do
        local b=${f##*/}
        echo "${b%.c} $f"
    done
}

# The rows of rec_sources[]: "&rec_source_NAME," between its braces.
source_rows() {
    sed -n '/rec_sources\[\][^;]*=/,/};/p' recorder/sources.c |
        grep -o '&rec_source_[a-z_0-9]*' | tr -d '&'
}

# The hooks: the function pointers of struct rec_source, "(*name)(".
source_hooks() {
    sed -n '/^typedef struct rec_source {/,/^} rec_source;/p' recorder/source.h |
        grep -o '(\*[a-z_0-9]*)' | tr -d '(*)'
}

# Paths the doc names that end in .c or .h, but for placeholders in capitals.
files_in_doc() {
    grep -o '`[^`]*`' "$doc" | tr -d '`' | tr ' ,' '\n\n' |
        grep -E '^[A-Za-z0-9_./]+\.(c|h)$' | grep -v '[A-Z]' | sort -u
}

known=$(names_in_doc)
missing=()
while read -r stem path; do
    grep -qxF "$stem" <<<"$known" || missing+=("file $path")
done < <(product_files)
while read -r row; do
    grep -qxF "$row" <<<"$known" || missing+=("data-source row $row (recorder/sources.c)")
done < <(source_rows)
while read -r hook; do
    grep -qxF "$hook" <<<"$known" || missing+=("data-source hook $hook (recorder/source.h)")
done < <(source_hooks)

# A named file exists when some file of the repository ends in that path.
all_files=$(git ls-files 2>/dev/null || find . -type f | sed 's|^\./||')
stale=()
while read -r named; do
    grep -qE "(^|/)${named//./\\.}$" <<<"$all_files" || stale+=("$named")
done < <(files_in_doc)

status=0
if ((${#missing[@]})); then
    printf 'docs/architecture.md does not name %s\n' "${missing[@]}" >&2
    status=1
fi
if ((${#stale[@]})); then
    printf 'docs/architecture.md names %s, which is not in the repository\n' "${stale[@]}" >&2
    status=1
fi
if ((status)); then
    echo "check_architecture_doc.sh: ${#missing[@]} missing, ${#stale[@]} stale (listed above)" >&2
    exit 1
fi
echo "check_architecture_doc.sh: docs/architecture.md names all $(product_files | wc -l) product files," \
    "$(source_rows | wc -l) data sources and $(source_hooks | wc -l) hooks, and nothing stale"
