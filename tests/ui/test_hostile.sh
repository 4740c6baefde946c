#!/usr/bin/env bash
# The browser against a log made to attack it (tests/e2e/hostile_names.c):
# names with bidi overrides, invisible format characters and controls are
# drawn escaped, and `o` never lets a recorded source path reach the editor
# as an option or reach the shell: "-c:!touch PWNED" is a file name to an
# editor that takes -c for a command, as vim does, and
# "$(touch SHELLED)`touch SHELLED`" is a file name to the shell.
#
# Usage: test_hostile.sh SCOPE_TUI HOSTILE_NAMES
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
prog=$2
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
export LC_ALL=C.UTF-8
export XDG_CONFIG_HOME="$tmp/config"
unset SCOPE_THEME NO_COLOR VISUAL EDITOR || true
command -v python3 >/dev/null || { echo "FAIL: python3 is missing (scripts/setup.sh installs it)" >&2; exit 1; }

# The program records in rec/, so rec/ is its recorded working directory;
# the browser runs in browse/.
mkdir rec browse
(cd rec && "$prog" "$tmp/run") >prog.out 2>&1 || fail "hostile_names: $(cat prog.out)"

# ---- names on the screen -------------------------------------------------------------
for loc in C.UTF-8 C; do
    LC_ALL=$loc "$tui" run --size 160x64 --keys '*' --print >"screen.$loc" 2>&1 ||
        fail "screen under $loc: $(head -5 "screen.$loc")"
    LC_ALL=$loc "$tui" run --size 160x60 --keys '5' --print >"screen2.$loc" 2>&1 ||
        fail "processes under $loc: $(head -5 "screen2.$loc")"
    python3 "$here/../support/check_no_raw.py" "screen.$loc" "screen2.$loc" ||
        fail "a raw control or format character reached the screen under $loc"
    for cp in 202a 202e 2066 2069 200e 200f 061c 200b 200d 2060 feff 2028 2029 0085 009b; do
        expect_in "screen.$loc" "c_$cp\\u${cp}z"
    done
    expect_in "screen.$loc" 'c_007f\x7fz'
    expect_in "screen.$loc" 'c_001b\x1bz'
    expect_in "screen2.$loc" 'role\u202eevil'
done
echo "ok: names escaped on screen"

# ---- o: the recorded path is a file name, never an option or a command -----------------
# An editor stand-in that records its arguments and, as vim does, runs the
# command of a -c or a +: argument.
cat >editor.sh <<'EDIT'
#!/bin/sh
printf '%s\n' "$@" >"$EDITOR_LOG"
for a in "$@"; do
    case "$a" in
    -c:!*) sh -c "${a#-c:!}" ;;
    +:!*) sh -c "${a#+:!}" ;;
    esac
done
EDIT
chmod +x editor.sh
export EDITOR_LOG="$tmp/editor.log"
hostile='-c:!touch PWNED'

# edit KEYS: runs `o` from browse/ with the stand-in, the screen in browse/o.txt.
edit() {
    rm -f "$EDITOR_LOG"
    (cd browse && EDITOR="$tmp/editor.sh" "$tui" ../run --size 120x40 --keys "$1" --print \
        </dev/null >o.txt 2>&1) || fail "o: scope-tui failed: $(head -5 browse/o.txt)"
}
# no_command_ran WHAT: nothing the paths hold was run, anywhere.
no_command_ran() {
    local found
    found=$(find "$tmp" -name PWNED -o -name SHELLED)
    [ -z "$found" ] || fail "$1: a recorded path ran a command: $found"
    find "$tmp" \( -name PWNED -o -name SHELLED \) -delete
}

# The file only where the browser runs: it gets ./ in front.
echo 'int x;' >"browse/$hostile"
edit '/opened<Enter>o'
no_command_ran "the browser's directory"
[ "$(tr '\n' '|' <editor.log 2>/dev/null)" = "+37|./$hostile|" ] ||
    fail "the editor got '$(tr '\n' '|' <editor.log 2>/dev/null)', wanted '+37|./$hostile|'"
expect_in browse/o.txt "edited ./$hostile:37"

# The file in the recorded working directory too: that one wins.
echo 'int y;' >"rec/$hostile"
edit '/opened<Enter>o'
no_command_ran "the recorded directory"
[ "$(tr '\n' '|' <editor.log 2>/dev/null)" = "+37|$tmp/rec/$hostile|" ] ||
    fail "the editor got '$(tr '\n' '|' <editor.log 2>/dev/null)', wanted '+37|$tmp/rec/$hostile|'"

# A path the shell would run: it reaches the editor untouched.
shelled='$(touch SHELLED)`touch SHELLED`'
echo 'int z;' >"browse/$shelled"
edit '/shelled<Enter>o'
no_command_ran "a path with shell syntax"
[ "$(tr '\n' '|' <editor.log 2>/dev/null)" = "+43|./$shelled|" ] ||
    fail "the editor got '$(tr '\n' '|' <editor.log 2>/dev/null)', wanted '+43|./$shelled|'"

# And vim itself, when it is installed, in its batch mode (-es, reading
# commands from stdin, which is empty): it must open the file, not run it.
if command -v vim >/dev/null; then
    rm -f "rec/$hostile"
    (cd browse && EDITOR="vim -u NONE -i NONE -es" timeout 60 "$tui" ../run --size 120x40 \
        --keys '/opened<Enter>o' --print </dev/null >vim.txt 2>&1) || true
    no_command_ran "vim"
    # It ran (and, in batch mode, finds no line 37 in a one-line file).
    grep -qE "edited|exited with status" browse/vim.txt || fail "vim did not run: $(tail -3 browse/vim.txt)"
else
    echo "skipped: vim is not installed (the stand-in behaves as it does)"
fi
echo "ok: o passes recorded paths as file names"
finish
echo "hostile browser: all checks passed"
