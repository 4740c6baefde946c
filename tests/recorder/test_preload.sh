#!/usr/bin/env bash
# LD_PRELOAD: a program that was never built against libscope records when
# the library is preloaded with SCOPE_PROFILE=1 (how `scope-tui record --
# CMD` profiles an uninstrumented program), and so do the programs it
# execs, all into one run.  Without SCOPE_PROFILE nothing is written.
# usage: test_preload.sh LIBSCOPE_SO SCOPE_TUI
set -euo pipefail
lib=$1
scope_tui=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Under AddressSanitizer the runtime must come first in the preload list.
asan=$(ldd "$lib" | awk '/libasan/ {print $3}')
preload="${asan:+$asan:}$lib"

# sh runs `sleep` as a child: two uninstrumented programs, two logs.
env -u SCOPE_RUN_ID LD_PRELOAD="$preload" SCOPE_PROFILE=1 SCOPE_RUN_DIR="$tmp/run" \
    ASAN_OPTIONS=detect_leaks=0 /bin/sh -c '/bin/sleep 0.01; exit 0'
mapfile -t logs < <(find "$tmp/run/workers" -name '*.scope' | sort)
[ "${#logs[@]}" = 2 ] || fail "wanted 2 logs (sh and sleep), found ${#logs[@]}"
roles="" runs=""
for log in "${logs[@]}"; do
    out=$("$scope_tui" dump "$log") || fail "dump of $log exited $?"
    # Snapshot frames restate the PROCESS record: the first says it.
    roles+=$(sed -n 's/.* role "\([^"]*\)".*/\1/p' <<<"$out" | head -n 1)" "
    runs+=$(sed -n 's/.*PROCESS run "\([^"]*\)".*/\1/p' <<<"$out" | head -n 1)" "
    grep -q 'PROCESS run' <<<"$out" || fail "$log has no PROCESS record: $out"
    # sleep returns from main (atexit runs); dash leaves by _exit().
    if grep -q 'role "sleep"' <<<"$out"; then
        grep -q 'MARK shutdown' <<<"$out" || fail "$log has no shutdown mark: $out"
    fi
done
for want in sh sleep; do
    grep -qw "$want" <<<"$roles" || fail "no log with role $want (roles: $roles)"
done
read -r a b <<<"$runs"
[ -n "$a" ] && [ "$a" = "$b" ] || fail "two run ids: $runs"

# Preloaded but not asked to record: no files, not even the run directory.
env -u SCOPE_PROFILE LD_PRELOAD="$preload" SCOPE_RUN_DIR="$tmp/off" \
    ASAN_OPTIONS=detect_leaks=0 /bin/sh -c '/bin/sleep 0.01'
[ ! -e "$tmp/off" ] || fail "SCOPE_PROFILE unset, yet $tmp/off was created"
echo "preload: 2 logs of one run (roles: $roles)"
