#!/usr/bin/env bash
# Tiny phases read the wait their program measured on its own clocks
# (tiny_workload.c: 300 sibling phases of 5 entries of 20 to 100 us, each
# spinning part of its length and sleeping the rest, and "micro", 20000
# entries of about 1 us), beside two busy loops this test starts, so that
# the program is also preempted.  The truth and the report come from the
# same run, so the verdict rests on agreement, not on how long anything
# took; tiny_wait_compare.py states the tolerance.
#   always:   SCOPE_CPU_TIME=always, every entry reads CPU time;
#   adaptive: the default rule, a sample of micro's entries read.
#
# Usage: test_report_tiny_wait.sh SCOPE_TUI TINY_WORKLOAD
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
prog=$2
# shellcheck source=tests/e2e/lib.sh
source "$here/lib.sh"
export LC_ALL=C.UTF-8

# A sanitizer's build runs the recorder's own code several times slower,
# which a 1 us entry's CPU window holds: tiny_wait_compare.py allows it.
sanitized=0
if ldd "$prog" | grep libasan >/dev/null; then
    sanitized=1
fi

busy=()
stop_busy() {
    local pid
    for pid in "${busy[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap stop_busy EXIT
for _ in 1 2; do
    (while :; do :; done) &
    busy+=($!)
done

# judge RULE ENV... : runs tiny_workload with the settings ENV and compares
# its report's wait% with the truth it printed.
judge() {
    local rule=$1
    shift
    env SCOPE_SAMPLE_INTERVAL=0 "$@" "$prog" "run-$rule" >"$rule.truth" 2>"$rule.err" ||
        { fail "$rule: tiny_workload failed: $(cat "$rule.err")"; return; }
    "$tui" report "run-$rule" --json >"$rule.json" || { fail "$rule: report --json failed"; return; }
    "$tui" report "run-$rule" --width 160 >"$rule.txt" || { fail "$rule: report failed"; return; }
    python3 "$here/tiny_wait_compare.py" "$rule.truth" "$rule.json" "$rule.txt" "$rule" \
        "$sanitized" >"$rule.verdict" ||
        fail "$(cat "$rule.verdict")"
    cat "$rule.verdict"
}

judge always SCOPE_CPU_TIME=always
judge adaptive SCOPE_CPU_TIME=adaptive

finish
