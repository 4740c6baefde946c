#!/usr/bin/env bash
# A Debian program whose library has no debug info and no symbol table
# (xz: liblzma.so.5 keeps only .dynsym, which names none of its hot,
# hidden functions), recorded with `scope-tui record` and with perf on the
# same input, top functions side by side.
#
# perf, without symbols, reports each sampled address on its own row; the
# script groups its addresses by the function ranges `readelf
# --debug-dump=frames` lists for the library (its FDEs), which is what scope
# names FILE+0xSTART, and takes perf's user-space samples only (scope
# samples user CPU time).  Tolerance, generous for a loaded machine: each of
# perf's three hottest functions is among scope's five hottest, and its
# share differs from perf's by at most 3 combined binomial sigmas (from each
# tool's sample count) plus 3 percentage points.  Without perf, xz or
# permission to record here, it says why and is skipped (exit 77).  The
# caveat names the debug file (by build-id) and the -dbgsym package that
# would give lines.
#
# Usage: test_lines_perf.sh SCOPE_TUI SOURCE_DIR
set -euo pipefail
tui=$1
src=$2
. "$src/../e2e/lib.sh"

skip() {
    echo "SKIP: $*"
    exit 77
}
command -v xz >/dev/null || skip "no xz"
command -v perf >/dev/null || skip "no perf (Debian's linux-perf)"
command -v readelf >/dev/null || skip "no readelf"
export SCOPE_QUIET=1

# About 3 MB of text from a fixed vocabulary: a second or two of xz -6.
python3 - <<'PY'
import random
random.seed(30)
words = ["".join(random.choice("abcdefghijklmnop") for _ in range(random.randint(2, 9)))
         for _ in range(3000)]
open("input.txt", "w").write(" ".join(random.choice(words) for _ in range(500000)))
PY

if ! perf record -e cpu-clock -F 999 -o perf.data -- xz -6 -T1 -k -f input.txt \
    >perf.log 2>&1; then
    skip "perf cannot record here: $(tail -3 perf.log)"
fi
perf report -i perf.data --stdio -n --sort dso,sym >perf.txt 2>perf.err ||
    skip "perf report failed: $(tail -3 perf.err)"
lib=$(ldd "$(command -v xz)" | awk '/liblzma/ {print $3}')
[ -n "$lib" ] || skip "xz does not load liblzma here"
readelf --debug-dump=frames "$(readlink -f "$lib")" >fdes.txt

asan=$(ldd "$tui" | awk '/libasan/ {print $3}')
expect_rc 0 env ${asan:+LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0} \
    "$tui" record --hz 250 -o run -- xz -6 -T1 -k -f input.txt
expect_rc 0 "$tui" lines --json --raw --top 0 run
cp out scope.json

python3 - <<'PY' || fail "scope's top functions disagree with perf's (see above)"
import json, math, re

def lib_key(dso):
    base = dso.split("/")[-1]
    return base.split(".so")[0]

# liblzma's function ranges, from its FDEs.
ranges = []
for ln in open("fdes.txt"):
    m = re.search(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", ln)
    if m:
        ranges.append((int(m.group(1), 16), int(m.group(2), 16)))
ranges.sort()

def fn_of(addr):
    for lo, hi in ranges:
        if lo <= addr < hi:
            return "+0x%x" % lo
    return "+0x%x?" % addr

perf, perf_n = {}, 0
for ln in open("perf.txt"):
    m = re.match(r"\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(.*\S)", ln)
    if not m or m.group(4) != ".":  # user space only
        continue
    n, dso, sym = int(m.group(2)), m.group(3), m.group(5)
    a = re.fullmatch(r"0x([0-9a-f]+)", sym)
    key = lib_key(dso) + (fn_of(int(a.group(1), 16)) if a and "liblzma" in dso else " " + sym)
    perf[key] = perf.get(key, 0) + n
    perf_n += n

doc = json.load(open("scope.json"))
ours, ours_n = {}, 0
for r in doc["lines"]:
    name = r["function"] or "??"
    m = re.fullmatch(r"(.*)\+0x([0-9a-f]+)", name)
    key = lib_key(r["module"] or "") + ("+0x%x" % int(m.group(2), 16) if m else " " + name)
    ours[key] = ours.get(key, 0) + r["samples"]
    ours_n += r["samples"]

top_perf = sorted(perf, key=lambda k: -perf[k])[:5]
top_ours = sorted(ours, key=lambda k: -ours[k])[:5]
print(f"perf: {perf_n} user-space samples; scope: {ours_n} samples")
print(f"{'function':32s} {'perf':>7s} {'scope':>7s}")
for k in sorted(set(top_perf) | set(top_ours), key=lambda k: -perf.get(k, 0)):
    print(f"{k:32s} {100 * perf.get(k, 0) / perf_n:6.1f}% {100 * ours.get(k, 0) / ours_n:6.1f}%")
bad = []
if ours_n < 100 or perf_n < 100:
    bad.append(f"too few samples: perf {perf_n}, scope {ours_n}")
for k in top_perf[:3]:
    p, q = perf[k] / perf_n, ours.get(k, 0) / ours_n
    sd = math.sqrt(p * (1 - p) / perf_n + p * (1 - p) / max(ours_n, 1))
    if k not in top_ours:
        bad.append(f"{k}: perf's top 3, not in scope's top 5")
    if abs(p - q) > 3 * sd + 0.03:
        bad.append(f"{k}: perf {p:.3f}, scope {q:.3f}, beyond 3 x {sd:.3f} + 0.03")
if any(k.endswith(" ??") for k in top_ours[:3]):
    bad.append("an unnamed row among scope's top 3")
for b in bad:
    print("BAD:", b)
exit(1 if bad else 0)
PY

# The caveat names what would give lines: the debug file by build-id and,
# where dpkg says which package installed the library, its -dbgsym package.
bid=$(readelf -n "$(readlink -f "$lib")" | awk '/Build ID/ {print $3}')
# (Where that debug file is installed, the library has lines instead.)
if [ -n "$bid" ] && [ ! -e "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ]; then
    expect_rc 0 "$tui" lines run
    expect_in_output "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug would give lines"
    expect_in_output "unwind tables"
    if pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null); then
        expect_in_output "Debian: ${pkg%%:*}-dbgsym"
    fi
fi

finish
