#!/usr/bin/env bash
# The browser follows a run while a real program records it: headless, it
# saves a screen (P), the program records ten more entries of "step" and
# flushes, r (then the refresh timer, <refresh>) reads what was appended,
# and so on; r says it read one log on, and the screens show
# 10, 20, 30 entries (never one counted twice), the run in progress, and
# after the program shut down the run ended with its final figures, as a
# fresh start shows them.
#
# Usage: test_follow.sh SCOPE_TUI FOLLOW_PROG
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
prog=$2
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"

export LC_ALL=C.UTF-8
export XDG_CONFIG_HOME="$tmp/config"
unset SCOPE_THEME NO_COLOR VISUAL EDITOR || true

"$prog" "$tmp/run" "$tmp" 3 >prog.out 2>&1 &
pid=$!
for ((i = 0; i < 6000; i++)); do
    [ -e flushed-1 ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
done
[ -e flushed-1 ] || fail "follow_prog never flushed: $(cat prog.out)"

keys='P<wait:flushed-2>rP<wait:flushed-3><refresh>P<wait:done><refresh>P'
expect_rc 0 "$tui" run --view phases --size 120x30 --refresh 5 --keys "$keys"
wait "$pid" || fail "follow_prog failed: $(cat prog.out)"

# The count of "step" (the last column of its row) on screen N.
count() {
    awk '$1 == "step" || $2 == "step" { print $NF; exit }' "scope-phases-$1.txt"
}
for n in 1 2 3 4; do
    [ -f "scope-phases-$n.txt" ] || fail "screen $n was not saved: $(cat err)"
done
want=(10 20 30 30)
for n in 1 2 3 4; do
    got=$(count "$n")
    [ "$got" = "${want[$((n - 1))]}" ] ||
        fail "screen $n shows $got entries of step, not ${want[$((n - 1))]}: $(cat "scope-phases-$n.txt")"
done
for n in 1 2 3; do
    grep -q "IN PROGRESS" "scope-phases-$n.txt" || fail "screen $n does not say the run is in progress"
done
grep -q "reloaded: 1 process, 0 caveats, runtime .* (1 log read on)" scope-phases-2.txt ||
    fail "r does not say it read the log on: $(tail -1 scope-phases-2.txt)"
grep -q "the run has ended" scope-phases-4.txt || fail "screen 4 does not say the run ended: $(cat scope-phases-4.txt)"

# The last screen is a fresh start's but for its message line.
mv scope-phases-4.txt last.txt
rm -f scope-phases-*.txt
expect_rc 0 "$tui" run --view phases --size 120x30 --keys P
diff <(sed '$d' last.txt) <(sed '$d' scope-phases-1.txt) >screen.diff ||
    fail "after following, the screen differs from a fresh start's: $(cat screen.diff)"
finish
