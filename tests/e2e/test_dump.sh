#!/usr/bin/env bash
# End to end: real logs written through the real writer, damaged the way
# crashes and bad disks damage them, read back by `scope-tui dump`.
# usage: test_dump.sh SCOPE_TUI WRITE_SAMPLE_LOG
set -euo pipefail
scope_tui=$1
write_log=$2
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The writer prints one data-frame offset per line, then "size N".
"$write_log" good.scope 6 7 >offsets
mapfile -t frame_at < <(grep -v '^size' offsets)
size=$(awk '/^size/ {print $2}' offsets)
[ "${#frame_at[@]}" = 6 ] || fail "writer reported ${#frame_at[@]} frames, wanted 6"

# Intact.
expect_rc 0 "$scope_tui" dump good.scope
expect_in_output "summary: 6 frames"
expect_in_output "nothing skipped"
expect_in_output "PROCESS run"
# Names are data: the sample log holds an ESC and an invalid byte in names.
if grep -q $'\x1b' output; then fail "dump wrote a raw ESC byte to the terminal"; fi
expect_in_output '\x1b'

# Truncated inside the last frame, as a SIGKILL mid-write leaves it.
cut=$((frame_at[5] + 7))
head -c "$cut" good.scope >truncated.scope
expect_rc 1 "$scope_tui" dump --frames truncated.scope
expect_in_output "summary: 5 frames"
expect_in_output "bytes ${frame_at[5]}..$((cut - 1)) ($((cut - frame_at[5])) bytes, to the end of the file) skipped: the file ends inside a frame"
for i in 0 1 2 3 4; do expect_in_output "frame $i at byte ${frame_at[$i]},"; done

# One byte flipped in the middle of frame 2: only frame 2 is lost.
cp good.scope corrupt.scope
mid=$(((frame_at[2] + frame_at[3]) / 2))
orig=$(od -An -tu1 -j "$mid" -N1 corrupt.scope | tr -d ' ')
printf "$(printf '\\%03o' $((orig ^ 0x5a)))" | dd of=corrupt.scope bs=1 seek="$mid" conv=notrunc 2>/dev/null
expect_rc 1 "$scope_tui" dump --frames corrupt.scope
expect_in_output "summary: 5 frames"
expect_in_output "bytes ${frame_at[2]}..$((frame_at[3] - 1)) ($((frame_at[3] - frame_at[2])) bytes) skipped: frame damaged"
expect_in_output "1 frame lost"
for i in 0 1 3 4 5; do expect_in_output "frame $i at byte ${frame_at[$i]},"; done
if grep -q "^frame 2 " output; then fail "damaged frame 2 was listed as read"; fi

# Garbage in the middle of the file costs the garbage only.
{ head -c "${frame_at[3]}" good.scope; head -c 500 /dev/urandom; tail -c +$((frame_at[3] + 1)) good.scope; } >garbage-inside.scope
expect_rc 1 "$scope_tui" dump --summary garbage-inside.scope
expect_in_output "summary: 6 frames"
expect_in_output "bytes ${frame_at[3]}..$((frame_at[3] + 499)) (500 bytes) skipped"

# Bad inputs: a clear line and exit 2, never a crash.
: >empty.scope
expect_rc 2 "$scope_tui" dump empty.scope
expect_in_output "empty file"
head -c 4096 /dev/urandom >random.bin
expect_rc 2 "$scope_tui" dump random.bin
expect_in_output "not a scope event log"
expect_rc 2 "$scope_tui" dump "$tmp"
expect_in_output "is a directory"
expect_rc 2 "$scope_tui" dump "$tmp/does-not-exist"
expect_in_output "No such file or directory"
head -c 20 good.scope >header-only.scope
expect_rc 2 "$scope_tui" dump header-only.scope
expect_in_output "ends inside its header"
expect_rc 2 "$scope_tui" dump
expect_in_output "no log file given"
expect_rc 2 "$scope_tui" no-such-command
expect_in_output "neither a command nor a run directory"

[ "$size" = "$(stat -c %s good.scope)" ] || fail "writer reported size $size"
finish
echo "dump end-to-end: all checks passed"
