#!/usr/bin/env bash
# Check that the codec is built with its invariants: formats/ states some as
# asserts, and every object built from a .c file of formats/ that states one
# calls __assert_fail, so that SCOPE_ASSERTS (top-level CMakeLists.txt)
# reaches formats/ and its h5/ library and no flag there takes them out.
#
# Usage: tests/check_codec_asserts.sh SOURCE_DIR BUILD_DIR
# Exit status: 0 all built with their asserts, 1 not, 2 usage error.
set -euo pipefail

if (($# != 2)) || [[ ! -d "$1/formats" || ! -d "$2/formats" ]]; then
    echo "usage: check_codec_asserts.sh SOURCE_DIR BUILD_DIR" >&2
    exit 2
fi
src=$1 build=$2

# The .c files of formats/ with a runtime assert (static_assert is left out).
mapfile -t files < <(cd "$src" &&
    grep -rlE '(^|[^_[:alnum:]])assert[[:space:]]*\(' formats --include='*.c' | sort)
if ((${#files[@]} == 0)); then
    echo "check_codec_asserts.sh: no .c file of formats/ states an invariant as an assert" >&2
    exit 1
fi

bad=0
for f in "${files[@]}"; do
    rel=${f#formats/}
    mapfile -t objs < <(find "$build/formats" -path "*.dir/$rel.o" -type f)
    if ((${#objs[@]} == 0)); then
        echo "$f: no object built from it under $build/formats" >&2
        bad=1
        continue
    fi
    for o in "${objs[@]}"; do
        if ! nm -u "$o" | grep -q '__assert_fail'; then
            echo "$f: built without its asserts ($o)" >&2
            bad=1
        fi
    done
done
if ((bad)); then
    echo "check_codec_asserts.sh: formats/ must be built with SCOPE_ASSERTS whenever the tests are" >&2
    exit 1
fi
echo "check_codec_asserts.sh: ${#files[@]} files of formats/ built with their asserts"
