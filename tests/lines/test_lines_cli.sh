#!/usr/bin/env bash
# scope-tui lines and scope-tui record as a user runs them, on runs whose
# lines are known by construction (progs/lines_selfrec.c logs its own
# modules and the addresses of its own lines).
#
# Usage: test_lines_cli.sh SCOPE_TUI PROGS_DIR SOURCE_DIR
set -euo pipefail
tui=$1
progs=$2
src=$3
. "$src/../e2e/lib.sh"

"$progs/lines_selfrec" run "$src" >lines.txt
read -r la lb ll < <(sed -E 's/LINE_A=([0-9]+) LINE_B=([0-9]+) LINE_L=([0-9]+)/\1 \2 \3/' lines.txt)

# The tables: kernel_b's line first, libm's time on the line that called it.
expect_rc 0 "$tui" lines run
expect_in_output "Function: kernel_b at lines $lb-$lb"
expect_in_output "Function: calls_libm"
expect_in_output "$(printf '%6d %11s' "$ll" 10)"
expect_in_output "Top lines"
expect_in_output "5 samples (4.8%) had no frame under the project folder"
grep -m1 -A0 -E '^ +1 ' out | grep -qF "kernel_b" || fail "rank 1 is not kernel_b: $(cat out)"

# --raw: self attribution puts those 10 samples in libm.
expect_rc 0 "$tui" lines --raw run
grep -E "libm|exp" out | grep -qF " 10 " || fail "--raw: no libm row of 10 samples: $(cat out)"

# --phase by path and by unique name; --function; --top; --min-time-us; --sort.
expect_rc 0 "$tui" lines --phase compute/inner run
expect_in_output "Hot lines of phase compute/inner: 30 samples"
expect_rc 0 "$tui" lines --phase inner --json run
python3 -c 'import json,sys; d=json.load(open("out")); assert d["samples"]==30, d["samples"]' ||
    fail "--phase inner --json: not 30 samples"
expect_rc 0 "$tui" lines --function kernel_a run
expect_in_output "Function: kernel_a"
grep -qF "Function: kernel_b" out && fail "--function kernel_a shows kernel_b"
expect_rc 0 "$tui" lines --top 1 run
[ "$(grep -c '^Function:' out)" = 1 ] || fail "--top 1: $(grep -c '^Function:' out) functions"
expect_rc 0 "$tui" lines --min-time-us 400000 run
[ "$(grep -c '^Function:' out)" = 1 ] || fail "--min-time-us 400000 keeps only kernel_b"
expect_rc 0 "$tui" lines --sort line --json run
python3 - <<'PY' || fail "--sort line --json"
import json
d = json.load(open("out"))
keys = [(r["file"] or "", r["line"] or 0) for r in d["lines"]]
assert keys == sorted(keys), keys
for r in d["lines"]:
    for k in ("file", "line", "function", "samples", "seconds"):
        assert k in r, (k, r)
PY

# Bad input: clear messages and exit statuses.
expect_rc 2 "$tui" lines --phase nosuch run
expect_in_output "no phase 'nosuch'"
expect_rc 2 "$tui" lines --role nobody run
expect_in_output "no role 'nobody'"
expect_rc 2 "$tui" lines --function nosuch run
expect_in_output "no sampled function is named 'nosuch'"
expect_rc 2 "$tui" lines --sort fastest run
expect_rc 2 "$tui" lines
expect_rc 2 "$tui" lines nosuchrun
expect_rc 0 "$tui" help lines
expect_in_output "--min-time-us"

# A run without line samples: exit 3 and what to do.
"$progs/lines_selfrec" nolines "$src" --no-lines >/dev/null
expect_rc 3 "$tui" lines nolines
expect_in_output "has no line samples: record them with SCOPE_LINES=1"

# Source files: missing (debug info naming a folder that does not exist),
# then found with --source-dir.
"$progs/lines_selfrec_moved" moved /nonexistent/scope-src >/dev/null
expect_rc 0 "$tui" lines moved
expect_in_output "Function: kernel_b"
expect_in_output "(no source text: source not found"
expect_rc 0 "$tui" lines --source-dir "$src" moved
expect_in_output "    p.pc = here();"
grep -qF "(no source text" out && fail "--source-dir: still no source text"

# Hostile module paths: escaped, never raw.
"$progs/lines_selfrec" hostile "$src" --bad-module "$(printf '/tmp/\033[31mred\033[0m')" >/dev/null
expect_rc 0 "$tui" lines --raw hostile
if grep -q $'\033' output; then fail "a raw escape in the output"; fi
expect_in_output '\x1b[31mred'

# record: the program's exit status, 128 + N for signal N, 127 for no program.
# Under AddressSanitizer its runtime must come first in the preload list:
# record keeps what LD_PRELOAD already holds first.
asan=$(ldd "$tui" | awk '/libasan/ {print $3}')
if [ -n "$asan" ]; then
    export LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0
fi
expect_rc 7 "$tui" record -o rec-exit -- sh -c 'exit 7'
expect_in_output "the run is in $PWD/rec-exit"
expect_rc 143 "$tui" record -o rec-term -- sh -c 'kill -TERM $$'
expect_rc 127 "$tui" record -o rec-none -- ./no-such-program
expect_in_output "cannot run './no-such-program'"
expect_rc 2 "$tui" record -o rec-none
expect_rc 2 "$tui" record --hz 0 -- true

finish
