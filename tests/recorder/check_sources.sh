#!/usr/bin/env bash
# The recorder's data sources stay one place each, and their table stays
# documented.  Read from the sources:
#
#   1. Each recorder/source_*.c keeps its file-level variables in one
#      struct: at most one mutable variable at file scope (a `static`
#      definition at column 0 that is neither const nor a function).
#   2. docs/architecture.md's "The data-source table" names, in backticks,
#      every row of rec_sources[] (recorder/sources.c) and every member of
#      struct rec_source (recorder/source.h).
#
# Usage: check_sources.sh [REPO_ROOT]   (default: this repository)
# Exit status: 0 clean, 1 violations (each printed), 2 usage error.
set -euo pipefail

root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
rec=$root/recorder
doc=$root/docs/architecture.md
for f in "$rec/source.h" "$rec/sources.c" "$doc"; do
    [[ -f "$f" ]] || {
        echo "check_sources.sh: no $f" >&2
        exit 2
    }
done
violations=0

# Rule 1.  A definition may span lines (a struct's body): only its first
# line is at column 0.
for f in "$rec"/source_*.c; do
    vars=$(perl -0777 -ne '
        s{/\*.*?\*/}{}gs; s{//[^\n]*}{}g;
        # a struct body defined in place: its name follows the closing brace
        s/^static\s+struct\s*\w*\s*\{.*?^\}\s*(\w+)/static struct_in_place $1/gms;
        for (split /\n/) {
            next unless /^static\b/;
            next if /^static\s+(inline\s+)?[^=;(]*\(/;   # a function
            next if /^static\s+const\b/ || /^static\s+[\w\s]*\bconst\s+\w+\s*(\[|=|;)/;
            print "$1\n" if /(\w+)\s*(\[[^\]]*\])*\s*(=.*)?;\s*$/;
        }' "$f")
    n=$(grep -c . <<<"$vars" || true)
    if ((n > 1)); then
        echo "${f#"$root"/}: $n file-level variables ($(tr '\n' ' ' <<<"$vars")): gather them in one static struct"
        violations=$((violations + 1))
    fi
done

# Rule 2.
section=$(awk '/^### The data-source table/ { on = 1; next } on && /^##/ { exit } on' "$doc")
rows=$(perl -ne 'print "$1\n" if /&(rec_source_\w+)/' "$rec/sources.c")
members=$(perl -0777 -ne '
    /typedef struct rec_source \{(.*?)\} rec_source;/s or exit;
    my $b = $1; $b =~ s{/\*.*?\*/}{}gs;
    print "$1\n" while $b =~ /\(\*(\w+)\)\s*\(/g;
    print "$1\n" while $b =~ /^\s*[\w\s\*]*?\b(\w+)\s*;/mg;
' "$rec/source.h" | sort -u)
if [[ -z "$rows" || -z "$members" ]]; then
    echo "check_sources.sh: found no rows in sources.c or no members in source.h" >&2
    exit 2
fi
for name in $rows $members; do
    if ! grep -qE "\`$name(\`|\()" <<<"$section"; then
        echo "docs/architecture.md: \"The data-source table\" does not name \`$name\`"
        violations=$((violations + 1))
    fi
done

if ((violations > 0)); then
    exit 1
fi
echo "check_sources.sh: $(wc -w <<<"$rows") sources, $(wc -w <<<"$members") members, each source's state in one struct"
