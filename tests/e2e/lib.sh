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

# attempts SCOPE_TUI RUN : one line per attempt of RUN, oldest first, from
# the report's JSON: "<launcher> ranks=<sorted ranks> job=<id> steps=<ids>
# task=<array task> restarts=<n>", each process's own fields; "-" where none.
attempts() {
    "$1" report --json "$2" | python3 -c '
import json, sys
d = json.load(sys.stdin)
def one(v):
    return "-" if v is None or v == "" else str(v)
for i, a in enumerate(d["attempts"]):
    ws = [w for w in d["workers"] if w["attempt"] == i]
    ranks = ",".join(str(r) for r in sorted(w["rank"] for w in ws if w["rank"] is not None))
    def field(k):
        return "/".join(sorted(set(one(w[k]) for w in ws)))
    steps = ",".join(sorted(set(one(w["step_id"]) for w in ws)))
    print("%s ranks=%s job=%s steps=%s task=%s restarts=%s" % (field("launcher"), ranks or "-",
          field("job_id"), steps, field("array_task"), field("restarts")))
'
}

# expect_attempts RUN LINE... : the attempts of RUN (as `attempts` prints
# them, with the scope-tui in $tui) are these lines, in order.
expect_attempts() {
    local run=$1
    shift
    local got want
    got=$(attempts "$tui" "$run")
    want=$(printf '%s\n' "$@")
    [[ $got == "$want" ]] || fail "$run: attempts
$got
wanted
$want"
}

# ok TEXT : "ok: TEXT" when no check failed since the last ok, else
# "not ok: TEXT".
failures_at_ok=0
ok() {
    if [ "$failures" -eq "$failures_at_ok" ]; then
        echo "ok: $*"
    else
        echo "not ok: $*"
    fi
    failures_at_ok=$failures
}

# run_on_disk WORKLOAD : runs `WORKLOAD run data` in the scratch directory,
# which must be on a disk (tmpfs has no disk bytes), for the I/O tests; a
# failure of either ends the test.
run_on_disk() {
    if [ "$(stat -f -c %T .)" = tmpfs ]; then
        echo "FAIL: the scratch directory $PWD is on tmpfs, which has no disk bytes: set TMPDIR to a disk" >&2
        exit 1
    fi
    mkdir data
    if ! "$1" run data >workload.out 2>&1; then
        echo "FAIL: the workload failed: $(cat workload.out)" >&2
        exit 1
    fi
}

# h5py_python: prints a python3 that imports h5py as Debian packages it
# (python3-h5py, scripts/setup.sh), or nothing: the first python3 on PATH may
# be another installation without it.
h5py_python() {
    local candidate
    for candidate in python3 /usr/bin/python3; do
        if "$candidate" -c 'import h5py' 2>/dev/null; then
            echo "$candidate"
            return
        fi
    done
}

# asan_first BINARY : when BINARY is built with AddressSanitizer, its runtime
# goes first in LD_PRELOAD for what it runs (`scope-tui record` keeps what
# LD_PRELOAD holds first), with leak checks off in the recorded programs.
asan_first() {
    local asan
    asan=$(ldd "$1" | awk '/libasan/ {print $3}')
    if [ -n "$asan" ]; then
        export LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0
    fi
}
