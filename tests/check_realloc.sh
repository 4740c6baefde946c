#!/usr/bin/env bash
# Check that arrays in product code (src/, ui/, formats/, recorder/) grow by
# the one rule of formats/include/scope/vec.h: no call of realloc, or of
# anything named like it (reallocarray, rec_realloc, a local wrapper), outside
# that header and the recorder's allocator (recorder/alloc.c and alloc.h),
# which holds the program's signals off around the one realloc it makes.
# The recorder grows through it with SCOPE_VEC_RESERVE_WITH(..., rec_realloc),
# which names the function without calling it.
#
# Comments are left out, so a comment may still say "realloc(".
#
# Usage: tests/check_realloc.sh [REPO_ROOT]   (default: the repository of this script)
# Exit status: 0 none, 1 a call outside the helper (each is printed), 2 usage error.
set -euo pipefail

root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
for d in src ui formats recorder; do
    if [[ ! -d "$root/$d" ]]; then
        echo "check_realloc.sh: $root has no $d/" >&2
        exit 2
    fi
done
cd "$root"

allowed_re='^(formats/include/scope/vec\.h|recorder/alloc\.[ch]):'

# file:line:text of every call, comments blanked first.  The awk keeps a
# comment's state across lines, so text inside /* ... */ never counts.
calls() {
    find src ui formats recorder -type f \( -name '*.c' -o -name '*.h' \) -print0 | sort -z |
        xargs -0 awk '
            FNR == 1 { in_comment = 0 }
            {
                line = $0; out = ""
                while (line != "") {
                    if (in_comment) {
                        end = index(line, "*/")
                        if (!end) { line = ""; break }
                        line = substr(line, end + 2); in_comment = 0
                        continue
                    }
                    open_at = index(line, "/*"); slash_at = index(line, "//")
                    if (slash_at && (!open_at || slash_at < open_at)) {
                        out = out substr(line, 1, slash_at - 1); line = ""
                    } else if (open_at) {
                        out = out substr(line, 1, open_at - 1)
                        line = substr(line, open_at + 2); in_comment = 1
                    } else {
                        out = out line; line = ""
                    }
                }
                if (out ~ /[A-Za-z0-9_]*realloc[A-Za-z0-9_]*[ \t]*\(/)
                    print FILENAME ":" FNR ":" $0
            }'
}

found=$(calls | grep -Ev "$allowed_re" || true)
if [[ -n "$found" ]]; then
    echo "$found" >&2
    n=$(wc -l <<<"$found")
    echo "check_realloc.sh: $n realloc call(s) above outside formats/include/scope/vec.h and recorder/alloc.c: grow with SCOPE_VEC_RESERVE (or SCOPE_VEC_RESERVE_WITH(..., rec_realloc) in the recorder's program threads), or size exactly with SCOPE_VEC_RESIZE" >&2
    exit 1
fi
echo "check_realloc.sh: every array in src/, ui/, formats/ and recorder/ grows through scope/vec.h"
