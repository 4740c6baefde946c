#!/usr/bin/env bash
# Long work shows progress (issue 30, item 8): reading a run, symbolizing
# its line samples, exporting it.  SCOPE_PROGRESS_AFTER_MS=0 shows it from
# the first step, so nothing here waits on the clock (by default only work
# past a second shows it):
#
#   - stderr not a terminal (a pipe, a file): no progress line at all, the
#     same stderr as without it;
#   - stderr a terminal (a pty): `lines` writes "scope-tui lines: reading
#     the run: ... logs", "symbolizing the line samples: N of M processes
#     (P%)", rewritten in place (\r, cleared with ESC [K) and taken away at
#     the end; `export --format hdf5` writes "exporting to HDF5: k of 8
#     parts"; the counts are the run's own (its logs, its sampled
#     processes);
#   - the browser (in tmux): opening Lines draws "symbolizing the line
#     samples" on its last line (the terminal's byte stream, from tmux's
#     pipe-pane), and the screen after it is the Lines view.
#
# Usage: test_progress.sh SCOPE_TUI
# Exit status 77 (skipped) without python3 or tmux.
set -euo pipefail
tui=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
unset SCOPE_TUI_TIMINGS TMUX TMUX_PANE

# Three processes with line samples: a shell and two children.
# Under AddressSanitizer its runtime goes first in the preload list of the
# programs record runs (as in test_lines_known.sh).
asan=$(ldd "$tui" | awk '/libasan/ {print $3}')
env ${asan:+LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0} SCOPE_QUIET=1 "$tui" record -o run -- sh -c \
    'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; sh -c "j=0; while [ \$j -lt 30000 ]; do j=\$((j+1)); done" & sh -c "k=0; while [ \$k -lt 30000 ]; do k=\$((k+1)); done"; wait' \
    >record.out 2>&1 || fail "record failed: $(tail -5 record.out)"
logs=$(find run -name '*.scope' | wc -l)
sampled=$("$tui" lines --json run | python3 -c 'import json,sys; print(json.load(sys.stdin)["sampled_processes"])' 2>/dev/null || echo "?")

# Not a terminal: nothing, with or without the delay.
SCOPE_PROGRESS_AFTER_MS=0 "$tui" lines run >out 2>err || fail "lines failed: $(cat err)"
[ ! -s err ] || fail "lines wrote to a stderr that is no terminal: $(cat -v err | head -3)"
SCOPE_PROGRESS_AFTER_MS=0 "$tui" export run --format hdf5 -o run.h5 >out 2>err || fail "export failed"
grep -q "exporting\|symbolizing\|reading the run" err && fail "export wrote progress to a pipe: $(cat -v err)"

# A terminal: a pty for stderr (stdout to a file), what the command wrote to it.
on_pty() { # OUTFILE CMD...: runs CMD with stderr on a pty, its bytes into OUTFILE
    local outfile=$1
    shift
    python3 - "$outfile" "$@" <<'PY'
import os, pty, select, subprocess, sys
out = sys.argv[1]
master, slave = pty.openpty()
with open(os.devnull, "wb") as devnull:
    p = subprocess.Popen(sys.argv[2:], stdout=devnull, stderr=slave, stdin=subprocess.DEVNULL)
# The slave stays open here until the command has ended and everything it
# wrote is read: once every slave descriptor is closed, Linux may answer the
# master with EIO and drop what was still buffered (an empty pty.txt now
# and then).
data = b""
while True:
    if select.select([master], [], [], 0.05)[0]:
        data += os.read(master, 65536)
    elif p.poll() is not None:
        while select.select([master], [], [], 0)[0]:
            data += os.read(master, 65536)
        break
os.close(slave)
rc = p.wait()
open(out, "wb").write(data)
sys.exit(rc)
PY
}
SCOPE_PROGRESS_AFTER_MS=0 on_pty pty.txt "$tui" lines run || fail "lines on a pty failed: $(cat -v pty.txt)"
expect_in pty.txt "scope-tui lines: reading the run: 0 of $logs logs"
expect_in pty.txt "scope-tui lines: symbolizing the line samples: 0 of $sampled processes (0%)"
grep -q $'\r\033\[K$' pty.txt || fail "the progress line is not taken away at the end: $(tail -c 200 pty.txt | cat -v)"
# Work shorter than the delay shows nothing.  The delay is set far past what
# this work takes on any machine (ten minutes): with the default of one second
# a loaded 2-core machine took longer than that and rightly showed progress.
SCOPE_PROGRESS_AFTER_MS=600000 on_pty pty2.txt "$tui" lines run || fail "lines on a pty failed"
grep -q "symbolizing\|reading the run" pty2.txt &&
    fail "progress shown for work shorter than its delay: $(cat -v pty2.txt)"
SCOPE_PROGRESS_AFTER_MS=0 on_pty pty3.txt "$tui" export run --format hdf5 -o run2.h5 ||
    fail "export on a pty failed: $(cat -v pty3.txt)"
expect_in pty3.txt "scope-tui export: exporting to HDF5: 1 of 8 parts (12%)"
expect_in pty3.txt "scope-tui export: symbolizing the line samples: 0 of $sampled processes"

# The browser, in tmux: the status line while Lines symbolizes.
if command -v tmux >/dev/null; then
    sock=scope-progress-$$
    tm() { tmux -L "$sock" -f /dev/null "$@"; }
    trap 'tm kill-server >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
    tm new-session -d -s idle -x 120 -y 40 cat
    tm set-option -g remain-on-exit on >/dev/null
    # The browser starts once the pane's bytes are piped to a file: its
    # symbolizing may come before its first screen (a first view that needs
    # the lines) or at H.
    tm new-session -d -s b -x 120 -y 40 \
        "while [ ! -e '$tmp/go' ]; do sleep 0.05; done; exec env SCOPE_PROGRESS_AFTER_MS=0 TERM=xterm-256color LANG=C.UTF-8 '$tui' --view processes '$tmp/run'"
    tm pipe-pane -o -t b "cat >>'$tmp/pane.bytes'"
    touch go
    shows() { # TEXT: waits for the pane to show TEXT (a browser that never draws it fails)
        local waited=0
        until tm capture-pane -p -t b | grep -q "$1"; do
            sleep 0.1
            waited=$((waited + 1))
            [ $waited -lt 600 ] || { fail "the browser never showed '$1': $(tm capture-pane -p -t b)"; return; }
        done
    }
    shows "Processes" # the first screen
    tm send-keys -t b H
    shows "samples" # the Lines view
    tm send-keys -t b q
    sleep 0.5
    grep -aq "symbolizing the line samples: 0 of $sampled processes" pane.bytes ||
        fail "the browser's status line never showed the symbolizing: $(tr -c '[:print:]' ' ' <pane.bytes | grep -o 'symbol.\{0,60\}' | head -3)"
else
    echo "tmux not installed: the browser's part is skipped"
fi
finish
