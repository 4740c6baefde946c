# shellcheck shell=bash
# What the end-to-end shell tests share.  Sourced after `set -euo pipefail`:
# a scratch directory (the working directory from here on, removed at exit),
# failures that are counted rather than fatal, so one run reports them all,
# and `finish`, the exit status.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# expect_rc WANT CMD... : runs CMD with stdout in ./out, stderr in ./err and
# both in ./output, and checks its exit status.
expect_rc() {
    local want=$1 rc=0
    shift
    "$@" >out 2>err || rc=$?
    cat out err >output
    [ "$rc" = "$want" ] || fail "'$*' exited $rc, wanted $want; output:
$(head -30 out err)"
}

# expect_in FILE TEXT : FILE holds TEXT (fixed string).
expect_in() {
    grep -qF -- "$2" "$1" || fail "$1 lacks '$2':
$(head -40 "$1")"
}

# expect_in_output TEXT : the last expect_rc command's stdout or stderr
# holds TEXT.
expect_in_output() {
    expect_in output "$1"
}

finish() {
    if [ "$failures" -gt 0 ]; then
        echo "$failures check(s) failed" >&2
        exit 1
    fi
}
