#!/usr/bin/env bash
# A C++ program as a user records it: progs/lines_cxx.cpp, compiled here with
# g++ -g, run under `scope-tui record`.  Its hot functions (a class
# template's operator in a namespace, a lambda, a static function in an
# anonymous namespace, a template member whose demangled name is thousands
# of characters) must read as C++ names in `lines`, its JSON (with the
# linkage name beside each), the HDF5 export and the browser's Lines
# screen; each name must be what c++filt (binutils) makes of the linkage
# name, and each linkage name one of the program's symbols (nm).  Their
# shares are known by construction (4:3:2:1 parts of the same loop).  The
# location column stays in one place however long a name is.
#
# Usage: test_lines_cxx.sh SCOPE_TUI SOURCE_DIR
set -euo pipefail
tui=$1
src=$2
. "$src/../e2e/lib.sh"

for tool in g++ c++filt nm; do
    command -v "$tool" >/dev/null || { echo "SKIP: no $tool" >&2; exit 77; }
done
export LC_ALL=C.UTF-8

# The program's source in the project folder (this scratch directory), so
# its lines are the project's.
# Named through a folder and back ("sub/../lines_cxx.cpp"), as a build in
# another folder names its sources: the debug info keeps that spelling, and
# every file shown is the normalised path.
cp "$src/progs/lines_cxx.cpp" .
mkdir sub
g++ -O0 -g -fno-omit-frame-pointer -o lines_cxx sub/../lines_cxx.cpp
nm lines_cxx | awk '{print $NF}' >symbols.txt
# (Under AddressSanitizer its runtime goes first in the preload list.)
asan=$(ldd "$tui" | awk '/libasan/ {print $3}')
expect_rc 0 env ${asan:+LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0} \
    "$tui" record --hz 250 -o rec -- ./lines_cxx 40

# ---- JSON: demangled names, linkage names, shares ------------------------------------
expect_rc 0 "$tui" lines --json rec
cp out lines.json
python3 - lines.json symbols.txt "$PWD/lines_cxx.cpp" <<'PY' || fail "lines --json: $(head -c 1500 lines.json)"
import json, math, subprocess, sys
d = json.load(open(sys.argv[1]))
symbols = set(open(sys.argv[2]).read().split())
source = sys.argv[3]
# The source file, normalised; nothing else of the program's.
files = {r["file"] for r in d["lines"] + d["functions"] if r["file"] and "lines_cxx" in r["file"]}
assert files == {source}, (files, source)
fns = sorted(d["functions"], key=lambda f: -f["samples"])
n = d["samples"]
assert n >= 100, f"only {n} samples"
LONG = "an_extraordinarily_long_template_name_for_checking_that_columns_stay_in_place<"
want = [  # name (or its start and end), parts of 10 of the CPU time
    ("geo::Grid<int>::operator()(int) const", 4),
    ("main::{lambda(int)#1}::operator()(int) const", 3),
    ("(anonymous namespace)::scramble(int)", 2),
    ((LONG, "::run_the_work_for_a_while_with_all_of_these_types("), 1),
]
top = fns[:4]
for name, parts in want:
    if isinstance(name, tuple):
        got = [f for f in top if f["function"].startswith(name[0]) and name[1] in f["function"]]
    else:
        got = [f for f in top if f["function"] == name]
    assert len(got) == 1, (name, [f["function"][:120] for f in top])
    f = got[0]
    # The linkage name is the program's symbol, and c++filt reads it as shown.
    assert f["linkage_name"] in symbols, (f["linkage_name"], "not a symbol of the program")
    filt = subprocess.run(["c++filt", f["linkage_name"]], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert filt == f["function"], (filt[:200], f["function"][:200])
    # Shares: the truth within 4 standard deviations and 2 points.
    truth = parts / 10
    sd = math.sqrt(truth * (1 - truth) / n)
    assert abs(f["share"] - truth) <= 4 * sd + 0.02, (name, f["share"], truth, sd)
# Every mangled name of every row reads as c++filt reads it.
for r in d["lines"]:
    if r["linkage_name"] and r["linkage_name"].startswith("_Z"):
        filt = subprocess.run(["c++filt", r["linkage_name"]], capture_output=True, text=True,
                              check=True).stdout.strip()
        assert filt == r["function"], (filt[:200], r["function"][:200])
    # C's main is its own linkage name.
    if r["function"] == "main":
        assert r["linkage_name"] == "main", r
PY

# --function takes the name as shown or as linked.
expect_rc 0 "$tui" lines --function 'geo::Grid<int>::operator()(int) const' rec
expect_in_output "Function: geo::Grid<int>::operator()(int) const at lines"
expect_rc 0 "$tui" lines --function _ZNK3geo4GridIiEclEi rec
expect_in_output "Function: geo::Grid<int>::operator()(int) const at lines"

# ---- text: the names, and the location in one column ---------------------------------
expect_rc 0 "$tui" lines --top 4 rec
cp out lines.txt
expect_in lines.txt "Function: (anonymous namespace)::scramble(int) at lines"
expect_in lines.txt "Function: main::{lambda(int)#1}::operator()(int) const at lines"
python3 - lines.txt <<'PY' || fail "lines: the top table's columns: $(sed -n '/^Top lines/,$p' lines.txt)"
import sys, unicodedata
text = open(sys.argv[1]).read().split("\n")
i = text.index("Top lines")
head = text[i + 2]
col = head.index("Location")
rows = [l for l in text[i + 3:] if l[:4].strip().isdigit()]
assert len(rows) == 4, rows
def at(line, col):  # the text from display column col (all of these are one column wide)
    return line[col:]
for r in rows:
    assert at(r, col).startswith("lines_cxx.cpp:") or "/lines_cxx.cpp:" in at(r, col).split(" ")[0], r
    assert r[col - 1] == " ", r
    assert len(r) - len(r.lstrip()) <= 4 and len(r[:col]) == col, r
# The long name, shortened in the middle, keeps its own name and the ellipsis.
long_row = [r for r in rows if "an_extraordin" in r]
assert long_row and "\u2026" in long_row[0] and "types(\u2026)" in long_row[0], rows
assert any("geo::Grid<int>::operator()(int) const" in r for r in rows), rows
PY

# ---- HDF5: the linkage name beside the name ------------------------------------------
py=$(h5py_python)
if [ -z "$py" ]; then
    fail "no python3 with h5py (scripts/setup.sh installs python3-h5py)"
else
    expect_rc 0 "$tui" export rec --format hdf5 -o rec.h5
    "$py" - rec.h5 lines.json <<'PY' || fail "export hdf5: /lines"
import h5py, json, sys
rows = h5py.File(sys.argv[1], "r")["/lines"][()]
d = json.load(open(sys.argv[2]))
def s(v):
    return v.decode() if isinstance(v, bytes) else v
got = {(s(r["function"]), s(r["linkage_name"])) for r in rows}
for r in d["lines"]:
    assert (r["function"], r["linkage_name"] or "") in got, (r["function"][:100], r["linkage_name"])
PY
fi

# ---- the browser's Lines screen, headless, at every width ----------------------------
for size in 60x20 80x24 120x30 200x40; do
    expect_rc 0 "$tui" rec --keys 2 --size "$size" --print
    cp out "screen-$size.txt"
    python3 - "screen-$size.txt" "$size" <<'PY' || fail "Lines at $size: $(cat "screen-$size.txt")"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
width = int(sys.argv[2].split("x")[0])
rows = [l for l in lines if re.search(r"lines_cxx\.cpp:\d+ ", l)]
assert len(rows) >= 4, rows
# Each row: the location from column 3, the function after it, the share
# and the time right-aligned in their columns, whatever the name.
share_col = {re.search(r"\d+\.\d%", r).end() for r in rows}
assert len(share_col) == 1, share_col
fn_col = {r.index(":", r.index("lines_cxx.cpp")) for r in rows}
assert len(fn_col) == 1, fn_col
for r in rows:
    assert len(r) <= width, (len(r), r)
if width >= 200:
    for name in ("geo::Grid<int>::operator()(int) const",
                 "main::{lambda(int)#1}::operator()(int) const",
                 "(anonymous namespace)::scramble(int)"):
        assert any(name in r for r in rows), (name, rows)
    # The source text's column (from 200 columns) leaves the longest name
    # its two ends, cut in the middle, never its location or its share.
    assert any("an_extraordinarily_" in r and "types(\u2026)" in r for r in rows), rows
PY
done
finish
