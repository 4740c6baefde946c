#!/usr/bin/env bash
# The Flame view builds its flame once when it is the first to load the
# run's line data.  Loading the lines adds their caveats (here: a module
# whose file is gone, lines_fixture --hostile), and the views that list
# caveats are built again; the Flame view, the one building, was among them,
# so its flame was built twice (run_flame_build called twice for one F).
# Counted with gdb: a breakpoint on run_flame_build that only counts.
# The screen itself is test_screens' (flame-*.txt), unchanged.
#
# Usage: test_flame_builds_once.sh SCOPE_TUI LINES_FIXTURE
# Exits 77 (skipped) where gdb is missing or may not trace a program.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
fixture=$2
if ! command -v gdb >/dev/null; then
    echo "SKIP: no gdb (scripts/setup.sh installs it)"
    exit 77
fi
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
export LC_ALL=C.UTF-8 XDG_CONFIG_HOME="$tmp/config"
# LeakSanitizer cannot run under a tracer; the sanitizer build's other checks can.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
unset SCOPE_THEME NO_COLOR || true

"$fixture" hot --hostile || fail "lines_fixture --hostile: exit $?"
cat >count.gdb <<'GDB'
set pagination off
set confirm off
break run_flame_build
commands 1
silent
continue
end
run
info breakpoints
GDB
# builds KEYS: how often run_flame_build ran while the browser handled
# KEYS (the screen and gdb's count in gdb.out).
builds() {
    timeout 240 gdb -batch -x count.gdb --args "$tui" hot --size 120x40 --keys "$1" --print \
        >gdb.out 2>&1 || true
    local n
    n=$(sed -n 's/.*breakpoint already hit \([0-9]*\) time.*/\1/p' gdb.out | head -1)
    # No count where gdb could not start or trace the program at all.
    if [ -z "$n" ] && grep -qiE 'ptrace|not permitted' gdb.out; then
        echo "SKIP: gdb may not trace here: $(grep -iE 'ptrace|not permitted' gdb.out | head -2)" >&2
        exit 77
    fi
    echo "${n:-0}"
}
n=$(builds F)
expect_in gdb.out "Flame of role sim: 1,230 samples"
[ "$n" = 1 ] || fail "F: the flame was built $n times, wanted once"
# w: every sample -> off-CPU, one build more (a CPU-time run has none).
n=$(builds Fw)
expect_in gdb.out "role sim, off-CPU samples"
[ "$n" = 2 ] || fail "Fw: the flame was built $n times, wanted twice"
finish
