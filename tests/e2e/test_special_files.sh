#!/usr/bin/env bash
# End to end: a named pipe and a device file among a run's logs, and given to
# `scope-tui dump`, are refused without being opened for reading: opening a
# named pipe waits for a writer that never comes, and a device like /dev/zero
# never ends.  report, check, compare and the browser name each in a caveat
# and read the real logs; dump refuses each with a message.  Every command
# runs under `timeout`: a reader that opens them hangs.
# usage: test_special_files.sh SCOPE_TUI CMP_WORKLOAD
set -euo pipefail
scope_tui=$1
workload=$2
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Seconds a command may take: each takes well under one here, a reader
# that opens a FIFO forever; the bound is for that, generous for a loaded
# machine under a sanitizer.
limit=60

"$workload" run 1
host=$(ls run/workers)
logs=run/workers/$host
real=$(find "$logs" -type f -name '*.scope')
mkfifo "$logs/w_pipe.scope"
# A character device like /dev/zero (1, 5): read, it never ends.  Making one
# needs root (CAP_MKNOD); without it the test says so and checks the pipe.
device=1
if ! mknod "$logs/w_zero.scope" c 1 5 2>/dev/null; then
    echo "note: cannot make a device node (not root): only the named pipe is tested" >&2
    device=0
fi

check_caveats() { # the last command's output names each special file
    expect_in_output "w_pipe.scope: could not be read (is a named pipe (FIFO), not a log file)"
    if ((device)); then
        expect_in_output "w_zero.scope: could not be read (is a character device, not a log file)"
    fi
}

expect_rc 0 timeout "$limit" "$scope_tui" report run
check_caveats
expect_in_output "compute" # the real log is read
expect_rc 0 timeout "$limit" "$scope_tui" report --json run
expect_in_output "w_pipe.scope"
expect_rc 0 timeout "$limit" "$scope_tui" check run run
expect_rc 0 timeout "$limit" "$scope_tui" compare run run
expect_in_output "compute"

# The browser, headless: it opens on the run and lists the caveats.
expect_rc 0 timeout "$limit" "$scope_tui" run --size 150x40 --print
if ((device)); then expect_in_output "2 caveats"; else expect_in_output "1 caveat"; fi

# dump: each refused (status 2) with a message saying what it is.
expect_rc 2 timeout "$limit" "$scope_tui" dump "$logs/w_pipe.scope"
expect_in err "w_pipe.scope: is a named pipe (FIFO), not a log file"
if ((device)); then
    expect_rc 2 timeout "$limit" "$scope_tui" dump "$logs/w_zero.scope"
    expect_in err "w_zero.scope: is a character device, not a log file"
fi
# With a real log next to them, that log is still dumped.
expect_rc 2 timeout "$limit" "$scope_tui" dump --summary "$logs/w_pipe.scope" "$real"
expect_in out "nothing skipped"

finish
