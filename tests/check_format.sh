#!/usr/bin/env bash
# The C sources keep the repository's clang-format style: a formatting change
# that slips in shows up here, not as noise in someone's later diff.
# usage: check_format.sh SOURCE_DIR
set -euo pipefail
cd "$1"
mapfile -t files < <(git ls-files -- '*.c' '*.h' 2>/dev/null || find formats recorder src ui tests bench examples -name '*.[ch]')
[ "${#files[@]}" -gt 0 ] || { echo "no C sources found under $1" >&2; exit 1; }
bad=0
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "not clang-formatted: $f (run: clang-format -i $f)" >&2
        bad=$((bad + 1))
    fi
done
[ "$bad" -eq 0 ] || exit 1
echo "${#files[@]} files formatted"
