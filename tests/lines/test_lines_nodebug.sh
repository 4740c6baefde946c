#!/usr/bin/env bash
# Modules without debug info, end to end (issue 30, items 1 and 2).
#
# (1) progs/lines_known.c built -O2 without -g and never instrumented
#     (lines_known_nog), copied into the project folder, recorded with
#     `scope-tui record` as it is (functions from .symtab) and stripped with
#     `strip -s` (no .symtab: functions from its unwind tables, named
#     FILE+0xADDRESS).  Each kernel's share of the kernels' samples must lie
#     within 3 standard deviations of its share of their CPU time, which the
#     program measures itself (sigma from the true share and the samples
#     counted); the stripped copy's rows are mapped to kernels by the
#     addresses `nm` gives for the copy with symbols.  Both runs' caveats say
#     that a build with -g gives lines.
# (2) docs/recorder.md's first example, built as it shows but without -g and
#     run with SCOPE_LINES=1: the hottest row is one of its own functions by
#     name (busy_ms, or main or actor where -O2 inlined it), the kernel's
#     vDSO shows by function (never "??"), and the caveat says that -g gives
#     lines.
#
# Usage: test_lines_nodebug.sh SCOPE_TUI LINES_KNOWN_NOG SOURCE_ROOT LIBSCOPE CC
set -euo pipefail
tui=$1
prog=$2
root=$3
libscope=$4
cc=$5
. "$root/tests/e2e/lib.sh"

export SCOPE_QUIET=1
asan=$(ldd "$tui" | awk '/libasan/ {print $3}')
preload=(env ${asan:+LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0})

cp "$prog" known
cp "$prog" known_stripped
strip -s known_stripped
if readelf -S known_stripped | grep -q '\.symtab'; then
    fail "strip -s left a .symtab"
fi
nm known >known.nm

# check_kernels RUN TRUTH: each kernel's share against its CPU time.
check_kernels() {
    local run=$1 truth=$2
    "$tui" lines --json --top 0 "$run" >"$run.json" 2>"$run.err" ||
        { fail "lines $run: $(cat "$run.err")"; return; }
    python3 - "$run" "$truth" "$root/tests/lines" <<'PY' || fail "$run: kernel shares (see above)"
import json, re, sys
run, truth_file = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
from known_shares import check_kernel_shares
truth = {}
for ln in open(truth_file):
    f = ln.split()
    if f and f[0] == "CPU":
        truth[f[1]] = int(f[2])
# The kernels' addresses, from the copy with symbols (a clone such as
# kernel_one.constprop.0 is its kernel).
addr = {}
for ln in open("known.nm"):
    f = ln.split()
    if len(f) == 3 and f[2].split(".")[0] in truth:
        addr[int(f[0], 16)] = f[2].split(".")[0]
doc = json.load(open(run + ".json"))
got = {k: 0 for k in truth}
other = {}
for r in doc["lines"]:
    name = r["function"] or "??"
    m = re.fullmatch(r"known_stripped\+0x([0-9a-f]+)", name)
    k = addr.get(int(m.group(1), 16)) if m else name.split(".")[0]
    if k in got:
        got[k] += r["samples"]
    else:
        other[name] = other.get(name, 0) + r["samples"]
n = sum(got.values())
print(f"{run}: {doc['samples']} samples, {n} in the kernels; elsewhere: "
      f"{sorted(other.items(), key=lambda kv: -kv[1])[:4]}")
bad = []
if n < 100:
    bad.append(f"only {n} samples in the kernels")
if n < 0.9 * doc["samples"]:
    bad.append(f"{doc['samples'] - n} of {doc['samples']} samples outside the kernels")
check_kernel_shares(truth, got, bad)
if not any("a build with -g gives lines" in c for c in doc.get("caveats", [])):
    bad.append(f"no caveat says -g gives lines: {doc.get('caveats')}")
for b in bad:
    print("  BAD:", b)
sys.exit(1 if bad else 0)
PY
}

for variant in known known_stripped; do
    expect_rc 0 "${preload[@]}" "$tui" record --hz 250 -o "run_$variant" -- \
        sh -c "./$variant x >truth_$variant"
    check_kernels "run_$variant" "truth_$variant"
done
# The stripped copy's rows are named by address, never one row for it all.
expect_rc 0 "$tui" lines run_known_stripped
expect_in_output "Function: known_stripped+0x"
expect_in_output "unwind tables"

# ---- docs/recorder.md's first example, without -g ------------------------------
sed -n '/^## 1\. /,/^## 2\. /p' "$root/docs/recorder.md" |
    awk '/^```c$/ {on = 1; next} /^```$/ {on = 0} on' >pipeline.c
[ -s pipeline.c ] || fail "no C example in docs/recorder.md section 1"
san=()
# grep reads all of ldd's output: with pipefail, grep -q could leave ldd to a
# SIGPIPE and the test to build without the sanitizer now and then.
if ldd "$libscope" | grep libasan >/dev/null; then
    san=(-fsanitize=address,undefined)
fi
libdir=$(dirname "$libscope")
"$cc" -O2 -Wall "${san[@]}" -o pipeline pipeline.c -I"$root/recorder/include" -L"$libdir" \
    -Wl,-rpath,"$libdir" -lscope || fail "the first example does not build"
expect_rc 0 env SCOPE_LINES=1 SCOPE_LINES_HZ=250 ./pipeline
expect_rc 0 "$tui" lines --json --top 0 profile
cp out example.json
expect_rc 0 "$tui" lines --json --top 0 --raw profile
cp out example_raw.json
python3 - <<'PY' || fail "the first example without -g (see above)"
import json
proj, raw = json.load(open("example.json")), json.load(open("example_raw.json"))
bad = []
top = proj["lines"][0]
print("project rows:", [(r["function"], r["samples"]) for r in proj["lines"][:4]])
print("raw rows:", [(r["function"], (r["module"] or "").split("/")[-1], r["samples"])
                    for r in raw["lines"][:6]])
if top["function"] not in ("busy_ms", "main", "actor") or \
        not (top["module"] or "").endswith("/pipeline"):
    bad.append(f"hottest function {top['function']} in {top['module']}, not the example's own")
vdso = [r for r in raw["lines"] if "vdso" in (r["module"] or "")]
if any(r["function"] in (None, "??") for r in vdso):
    bad.append("a vDSO row without a function: " + str(vdso))
unknown = sum(r["samples"] for r in raw["lines"] if r["function"] in (None, "??"))
if unknown > 0.05 * raw["samples"]:
    bad.append(f"{unknown} of {raw['samples']} samples in no named function")
if not any("a build with -g gives lines" in c and "pipeline" in c for c in proj["caveats"]):
    bad.append(f"no caveat tells to build with -g: {proj['caveats']}")
for b in bad:
    print("BAD:", b)
exit(1 if bad else 0)
PY

finish
