#!/usr/bin/env bash
# The quick loop (`ctest -L quick`, scripts/test.sh --quick) stays what the
# README says it is: every unit test is in it, and no test that records a
# program end to end (label e2e) is.  Reads the build's test list (ctest -N).
#
# Usage: check_quick_label.sh BUILD_DIR
set -euo pipefail
build=$1

# names LABEL...: the tests carrying every label given, one a line, sorted.
names() {
    local args=() label
    for label in "$@"; do
        args+=(-L "^$label\$")
    done
    ctest --test-dir "$build" -N "${args[@]}" | sed -nE 's/^ *Test +#[0-9]+: (.*)$/\1/p' | sort
}

failures=0
quick=$(names quick)
if [[ -z "$quick" ]]; then
    echo "FAIL: no test is labelled quick" >&2
    failures=$((failures + 1))
fi
missing=$(comm -23 <(names unit) <(printf '%s\n' "$quick"))
if [[ -n "$missing" ]]; then
    echo "FAIL: unit tests left out of the quick loop:" $missing >&2
    failures=$((failures + 1))
fi
slow=$(names quick e2e)
if [[ -n "$slow" ]]; then
    echo "FAIL: end-to-end tests in the quick loop:" $slow >&2
    failures=$((failures + 1))
fi
((failures == 0)) || exit 1
echo "ok: $(wc -l <<<"$quick") tests labelled quick, every unit test among them, no e2e test"
