#!/usr/bin/env bash
# Names that try to disguise themselves (bidi overrides, zero-width and
# other invisible format characters, DEL, C1 and C0 controls: see
# hostile_names.c) never reach an output raw: report, check and dump print
# them escaped (\u202e), and report --json and compare --json write each as
# a \uXXXX escape, so the document's bytes hold none of them while its
# decoded strings are the recorded names exactly.
#
# Usage: test_hostile_names.sh SCOPE_TUI HOSTILE_NAMES
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
prog=$2
# shellcheck source=lib.sh
source "$here/lib.sh"
export LC_ALL=C.UTF-8
command -v python3 >/dev/null || { echo "FAIL: python3 is missing (scripts/setup.sh installs it)" >&2; exit 1; }

"$prog" a >prog.out 2>&1 || fail "hostile_names a: $(cat prog.out)"
"$prog" b >prog.out 2>&1 || fail "hostile_names b: $(cat prog.out)"

# no_raw [--json] FILE: FILE is UTF-8 holding none of the characters, byte
# by byte (--json allows the tab that indents a JSON document).
no_raw() {
    python3 "$here/../support/check_no_raw.py" "$@" || fail "${*: -1} holds a raw control or format character"
}

# ---- text: escaped as \uXXXX, the code point readable ---------------------------------
expect_rc 0 "$tui" report a
cp out report.txt
no_raw report.txt
for cp in 202a 202b 202c 202d 202e 2066 2067 2068 2069 200e 200f 061c 200b 200c 200d 2060 \
    feff 2028 2029 0085 009b; do
    expect_in report.txt "c_$cp\\u${cp}z"
done
expect_in report.txt 'c_001b\x1bz'
expect_in report.txt 'c_007f\x7fz'
expect_in report.txt 'ROLE\u202eEVIL'
expect_rc 0 "$tui" report --width 200 --top 100 --color always a
cp out report-color.txt
# Colour: the report's own SGR sequences, nothing else.
sed 's/\x1b\[[0-9;]*m//g' report-color.txt >report-color.plain
no_raw report-color.plain
expect_rc 0 "$tui" compare a b
cp out compare.txt
no_raw compare.txt
expect_in compare.txt 'c_202e\u202ez'
# The phase is named in its escaped form, as the text output shows it.
"$tui" check a b --phase 'top/c_202e\u202ez' --max-regression 0 >check.txt 2>&1 || true
no_raw check.txt
expect_in check.txt 'top/c_202e\u202ez'
expect_in check.txt 'role\u202eevil'

for f in a/workers/*/*.scope; do
    "$tui" dump "$f" >dump.txt 2>&1 || fail "dump $f: $(head -5 dump.txt)"
    no_raw dump.txt
    expect_in dump.txt 'c_202e\u202ez'
done
echo "ok: text output escapes them"

# ---- JSON: \uXXXX in the bytes, the recorded names after decoding ------------------------
expect_rc 0 "$tui" report --json a
cp out report.json
no_raw --json report.json
expect_in report.json '"c_202e\u202ez"'
expect_in report.json '"c_007f\u007fz"'
expect_in report.json '"c_0085\u0085z"'
expect_in report.json '"c_001b\u001bz"'
expect_rc 0 "$tui" compare --json a b
cp out compare.json
no_raw --json compare.json
python3 - report.json compare.json <<'PY' || fail "the JSON does not decode to the recorded names"
import json, sys
want = {"c_%04x%sz" % (c, chr(c)) for c in
        [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E,
         0x200F, 0x061C, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x2028, 0x2029, 0x7F,
         0x85, 0x9B, 0x1B]}
def names(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "name" and isinstance(v, str):
                out.add(v)
            names(v, out)
    elif isinstance(node, list):
        for v in node:
            names(v, out)
    return out
for path in sys.argv[1:]:
    got = names(json.load(open(path, encoding="utf-8")), set())
    missing = want - got
    assert not missing, f"{path}: names missing: {sorted(map(ascii, missing))}"
    assert "role\u202eevil" in got, f"{path}: the role's name is not as recorded"
PY
echo "ok: JSON escapes them"
finish
echo "hostile names: all checks passed"
