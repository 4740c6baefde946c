#!/usr/bin/env bash
# Symbolizing reads only regular files, wherever their names come from.  A
# stripped copy of progs/lines_selfrec whose .gnu_debuglink names a named
# pipe (beside it, and in its .debug/ folder), in a run whose log also names
# a character device as a module: `scope-tui lines`, the browser's Lines
# view and `export --format hdf5` each finish, with the functions from the
# symbol table and a caveat naming the refused debug file, and a caveat for
# the device.  Opening a named pipe for reading waits for a writer that
# never comes (elfutils' own finder of debug files opens them so), so every
# command runs under `timeout -s KILL`: a regression fails here, not hangs.
#
# Then the debug file is a real one again, found where perf and gdb look
# for it by its debuglink: beside the binary, then in its .debug/ folder;
# lines come back.  (Under /usr/lib/debug, by directory or by build-id, is
# the system's: test_lines_cli's libm lines come from there where Debian's
# libc6-dbg is installed.)
#
# Usage: test_lines_debuglink.sh SCOPE_TUI PROGS_DIR SOURCE_DIR
set -euo pipefail
tui=$1
progs=$2
src=$3
. "$src/../e2e/lib.sh"

limit=30 # seconds; each command takes well under one

cp "$progs/lines_selfrec" selfrec
objcopy --only-keep-debug selfrec selfrec.debug
strip --strip-debug selfrec
objcopy --add-gnu-debuglink=selfrec.debug selfrec
mv selfrec.debug real.debug
mkfifo selfrec.debug
mkdir .debug
mkfifo .debug/selfrec.debug

# A character device named as a module: one made here where this user may
# (CAP_MKNOD), else /dev/zero.
device=/dev/zero
if mknod zero c 1 5 2>/dev/null; then device=$PWD/zero; fi

./selfrec run "$src" --bad-module "$device" >lines.txt
read -r _ lb _ < <(sed -E 's/LINE_A=([0-9]+) LINE_B=([0-9]+) LINE_L=([0-9]+)/\1 \2 \3/' lines.txt)

pipe="not a regular file (a named pipe (FIFO))"
refused="$PWD/selfrec: it has no debug info: functions from its symbol table; not read as its debug file: $PWD/selfrec.debug ($pipe); $PWD/.debug/selfrec.debug ($pipe)"
expect_rc 0 timeout -s KILL "$limit" "$tui" lines --raw run
expect_in_output "kernel_b"
expect_in_output "$refused"
expect_in_output "$device: not a regular file (a character device), not read"
ok "lines: the named pipes and the device refused"

# The Lines view (2), then the overview (6), which lists the caveats the
# symbolizing added.
expect_rc 0 timeout -s KILL "$limit" "$tui" run --size 400x40 --keys 2 --print
expect_in_output "kernel_b"
expect_rc 0 timeout -s KILL "$limit" "$tui" run --size 400x40 --keys 26 --print
expect_in_output "lines: $refused"
ok "the browser's Lines view and caveats"

expect_rc 0 timeout -s KILL "$limit" "$tui" export run --format hdf5 -o run.h5
expect_rc 0 timeout -s KILL "$limit" "$tui" lines --raw run.h5
expect_in_output "kernel_b"
ok "export --format hdf5"

# The real debug file in each place it is looked for: lines again.
lines_found() { # WHERE: the run's kernel_b has its line
    expect_rc 0 timeout -s KILL "$limit" "$tui" lines --raw run
    grep -qE "^ *$lb .*p\.pc = here\(\);" out || fail "$1: no line $lb of kernel_b: $(head -40 out)"
    if grep -q "selfrec: .*no debug info" output; then fail "$1: still no debug info"; fi
}
rm selfrec.debug .debug/selfrec.debug
cp real.debug selfrec.debug
lines_found "beside the binary"
rm selfrec.debug
cp real.debug .debug/selfrec.debug
lines_found "in .debug/"
ok "the debug file found beside the binary and in .debug/"

finish
