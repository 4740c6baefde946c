#!/usr/bin/env bash
# scripts/test.sh --under-load: two busy loops run beside ctest for its whole
# duration and are gone once the script ends, whether ctest passes, fails or
# is interrupted (Ctrl-C: SIGINT to the script's process group); without the
# flag, none.  --quick runs the tests labelled quick alone, and only with it.
# cmake and ctest are stand-ins first on PATH (a build is not what this
# checks): the stand-in ctest notes its arguments and the script's other
# children, the loops, and whether each is running.
#
# Usage: check_test_script.sh REPO
set -euo pipefail
repo=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

mkdir "$tmp/bin"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/cmake"
# The stand-in ctest: the pids of its parent's other children (the busy
# loops) in $tmp/loops, each with its state; then it sleeps until killed
# (CTEST_MODE=wait), or exits with CTEST_MODE's status.
cat >"$tmp/bin/ctest" <<'SH'
#!/bin/bash
printf '%s\n' "$@" >"$LOOPS_FILE.args"
for pid in $(pgrep -P "$PPID"); do
    [ "$pid" = $$ ] || echo "$pid $(ps -o stat= -p "$pid")"
done >"$LOOPS_FILE"
if [ "$CTEST_MODE" = wait ]; then
    : >"$LOOPS_FILE.ready"
    while :; do sleep 0.1; done
fi
exit "$CTEST_MODE"
SH
chmod +x "$tmp/bin/cmake" "$tmp/bin/ctest"

# run NAME MODE ARGS...: scripts/test.sh ARGS with the stand-ins, its output
# in $tmp/NAME.out, its loops in $tmp/NAME.loops, its status in $status.
run() {
    local name=$1 mode=$2
    shift 2
    status=0
    PATH="$tmp/bin:$PATH" LOOPS_FILE="$tmp/$name.loops" CTEST_MODE=$mode \
        bash "$repo/scripts/test.sh" --build-dir "$tmp/build" "$@" >"$tmp/$name.out" 2>&1 || status=$?
}

# expect_loops NAME N: N busy loops were running beside ctest, and none is
# left now.
expect_loops() {
    local name=$1 n=$2 pid state
    if [ ! -e "$tmp/$name.loops" ]; then
        fail "$name: ctest never ran: $(cat "$tmp/$name.out")"
        return
    fi
    [ "$(wc -l <"$tmp/$name.loops")" = "$n" ] ||
        fail "$name: $(wc -l <"$tmp/$name.loops") processes beside ctest, wanted $n: $(cat "$tmp/$name.loops")"
    while read -r pid state; do
        [[ $state == R* ]] || fail "$name: busy loop $pid was not running ($state)"
        # Gone, or at most a zombie its parent (gone too) left to init.
        if kill -0 "$pid" 2>/dev/null && [[ $(ps -o stat= -p "$pid") != Z* ]]; then
            fail "$name: busy loop $pid outlived the script"
            kill "$pid"
        fi
    done <"$tmp/$name.loops"
}

run plain 0
[ "$status" = 0 ] || fail "plain: exit $status: $(cat "$tmp/plain.out")"
expect_loops plain 0
grep -q "under load" "$tmp/plain.out" && fail "plain: says it ran under load"
grep -qx quick "$tmp/plain.loops.args" && fail "plain: ctest ran the quick tests alone: $(cat "$tmp/plain.loops.args")"

# --quick: ctest is given -L quick, and with --tsan its own label too.
run quick 0 --quick
[ "$status" = 0 ] || fail "--quick: exit $status: $(cat "$tmp/quick.out")"
grep -qxF -- "-L" "$tmp/quick.loops.args" && grep -qx quick "$tmp/quick.loops.args" ||
    fail "--quick: ctest not given -L quick: $(tr '\n' ' ' <"$tmp/quick.loops.args")"
expect_loops quick 0
run quick_tsan 0 --quick --tsan
[ "$(grep -cxF -- "-L" "$tmp/quick_tsan.loops.args")" = 2 ] && grep -qx quick "$tmp/quick_tsan.loops.args" ||
    fail "--quick --tsan: ctest not given both labels: $(tr '\n' ' ' <"$tmp/quick_tsan.loops.args")"

run passed 0 --under-load
[ "$status" = 0 ] || fail "passed: exit $status: $(cat "$tmp/passed.out")"
grep -q "==> under load: two busy loops run beside ctest" "$tmp/passed.out" ||
    fail "passed: does not say it ran under load: $(cat "$tmp/passed.out")"
expect_loops passed 2

run failed 8 --under-load
[ "$status" = 8 ] || fail "failed: exit $status, wanted ctest's 8"
expect_loops failed 2

run sanitize 0 --sanitize --under-load
[ "$status" = 0 ] || fail "--sanitize --under-load: exit $status: $(cat "$tmp/sanitize.out")"
expect_loops sanitize 2

# Ctrl-C while ctest runs: the terminal sends SIGINT to the whole process
# group, here a job of its own (job control on, so that the job does not
# start with SIGINT ignored, as a non-interactive shell's background
# commands do).
set -m
PATH="$tmp/bin:$PATH" LOOPS_FILE="$tmp/interrupted.loops" CTEST_MODE=wait \
    bash "$repo/scripts/test.sh" --build-dir "$tmp/build" --under-load \
    >"$tmp/interrupted.out" 2>&1 &
script=$!
set +m
for _ in $(seq 600); do
    [ -e "$tmp/interrupted.loops.ready" ] && break
    kill -0 "$script" 2>/dev/null || break
    sleep 0.1
done
if [ -e "$tmp/interrupted.loops.ready" ]; then
    kill -INT -- -"$script"
    status=0
    wait "$script" || status=$?
    [ "$status" = 130 ] || fail "interrupted: exit $status, wanted 130"
    expect_loops interrupted 2
else
    fail "interrupted: ctest never started: $(cat "$tmp/interrupted.out")"
    kill -KILL -- -"$script" 2>/dev/null || true
fi

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "ok: --under-load starts two busy loops beside ctest and ends them on every exit"
