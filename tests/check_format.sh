#!/usr/bin/env bash
# The C sources keep the repository's clang-format style: a formatting change
# that slips in shows up here, not as noise in someone's later diff.
# usage: check_format.sh SOURCE_DIR
set -euo pipefail
cd "$1"
mapfile -t files < <(git ls-files -- '*.c' '*.h' 2>/dev/null || find formats recorder src ui tests bench examples -name '*.[ch]')
[ "${#files[@]}" -gt 0 ] || { echo "no C sources found under $1" >&2; exit 1; }
# Tracked files deleted in the working tree are not checked.
present=()
for f in "${files[@]}"; do
    [ -f "$f" ] && present+=("$f")
done
# One clang-format for all the files, not one per file: starting it once per
# file was most of this test's time.  It names each place a file departs
# from the style; any other failure of it fails the check too.
rc=0
report=$(printf '%s\0' "${present[@]}" | xargs -0 clang-format --dry-run -Werror 2>&1 >/dev/null) ||
    rc=$?
mapfile -t bad < <(grep -E '^.+:[0-9]+:[0-9]+: error: code should be clang-formatted' <<<"$report" |
    sed -E 's/:[0-9]+:[0-9]+: error: .*//' | sort -u)
for f in "${bad[@]}"; do
    echo "not clang-formatted: $f (run: clang-format -i $f)" >&2
done
if [ "${#bad[@]}" -gt 0 ]; then
    exit 1
fi
if [ "$rc" -ne 0 ]; then
    echo "clang-format failed (exit $rc):" >&2
    echo "$report" >&2
    exit 1
fi
echo "${#present[@]} files formatted"
