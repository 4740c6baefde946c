#!/usr/bin/env bash
# The exit line in a real terminal (tmux): a run of three processes
# (progs/rt_family.c: the parent, a forked child, an exec'd child) prints
# where its run went once, from the process that started it; nothing with
# SCOPE_QUIET=1, nothing when stderr is a pipe or a file; a run directory
# whose name a shell would split is quoted.
#
# usage: test_exit_line.sh RT_FAMILY
# Exit status 77 (skipped) when tmux is not installed.
set -euo pipefail

prog=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
if ! command -v tmux >/dev/null 2>&1; then
    echo "skipped: tmux is not installed (scripts/setup.sh installs it)"
    exit 77
fi
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE SCOPE_QUIET SCOPE_WARNED TMUX TMUX_PANE

# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

sock=scope-exit-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
tm new-session -d -s idle -x 160 -y 20 cat
tm set-option -g remain-on-exit on >/dev/null

# in_terminal NAME COMMAND: runs COMMAND (in the scratch directory) in a
# pane of its own and leaves what the pane showed when it ended in NAME.txt,
# its history included (a window made in a detached session scrolls its
# first lines out of sight as it takes its size).
# It waits for the pane to say "ended" up to 60 s of wall time: a bound for
# a command that never ends, not for a loaded machine's slow one.
in_terminal() {
    local name=$1 cmd=$2 deadline=$((SECONDS + 60))
    tm new-window -d -n "$name" "cd '$tmp' && $cmd; echo \"ended \$?\""
    while ((SECONDS < deadline)); do
        tm capture-pane -p -S - -t "$name" >"$name.txt" 2>/dev/null || true
        grep -q '^ended ' "$name.txt" && break
        sleep 0.05
    done
    grep -q '^ended 0$' "$name.txt" || fail "$name: '$cmd' did not end with 0: $(cat "$name.txt")"
}

lines() { grep -c "^scope: run recorded in" "$1" || true; }

in_terminal tty "'$prog' run"
[ "$(lines tty.txt)" = 1 ] || fail "a run of 3 processes on a terminal: $(lines tty.txt) exit lines: $(cat tty.txt)"
expect_in tty.txt "scope: run recorded in run; open it with: scope-tui run"
[ -d run/workers ] || fail "no run where the line said"

in_terminal quiet "SCOPE_QUIET=1 '$prog' quiet-run"
[ "$(lines quiet.txt)" = 0 ] || fail "SCOPE_QUIET=1: $(cat quiet.txt)"

in_terminal pipe "'$prog' pipe-run 2>&1 | cat"
[ "$(lines pipe.txt)" = 0 ] || fail "stderr a pipe: $(cat pipe.txt)"

in_terminal file "'$prog' file-run 2>err.txt"
[ "$(lines file.txt)" = 0 ] || fail "stderr a file, on the terminal: $(cat file.txt)"
[ "$(lines err.txt)" = 0 ] || fail "stderr a file: $(cat err.txt)"

in_terminal spaced "'$prog' 'my run'"
expect_in spaced.txt "scope: run recorded in 'my run'; open it with: scope-tui 'my run'"

finish
