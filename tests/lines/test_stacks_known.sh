#!/usr/bin/env bash
# The stacks end to end, from the recorder to `scope-tui lines --folded`,
# `export --format speedscope` and the browser's Flame view, on a workload
# whose call stacks and their costs are known by construction and measured
# by the program itself (progs/stacks_known.c: main -> a -> b -> c, a -> d in
# phase work; main -> e in phase rest; each function's own CPU time):
#
#  - each known path's share of the folded samples lies within 3 standard
#    deviations of its share of the measured CPU time (sigma from the true
#    share and the samples counted);
#  - --phase work holds a's paths only, --role the same paths without the
#    role's name in front;
#  - the speedscope file conforms to speedscope's file format
#    (check_speedscope.py) and holds the same paths and weights;
#  - `lines --callers a` and the browser's Callers view give a's callees
#    (b, d, itself) the shares of a's time the program measured, within 3
#    sigma, and b's one caller a at 100%;
#  - the Flame view, headless at 80x24 and 160x40 (UTF-8 and ASCII),
#    shows a above b and d on the row under it, and says its search's
#    matches and their share;
#  - on a run still being recorded, the Flame view's refresh shows the
#    samples written since it opened (more of them, the run in progress).
#
# Usage: test_stacks_known.sh SCOPE_TUI PROGS_DIR SOURCE_DIR
set -euo pipefail
tui=$1
progs=$2
src=$3
. "$src/../e2e/lib.sh"

export SCOPE_LINES_PROJECT=$src SCOPE_QUIET=1
SCOPE_LINES=1 SCOPE_LINES_HZ=250 "$progs/stacks_known" run --units 2 >truth 2>err ||
    fail "stacks_known: exit $?: $(cat err)"

expect_rc 0 "$tui" lines --folded run
cp out folded
expect_rc 0 "$tui" lines --folded --phase work run
cp out folded.work
expect_rc 0 "$tui" lines --folded --role stacks run
cp out folded.role
expect_rc 0 "$tui" export run --format speedscope -o run.speedscope.json
python3 "$src/check_speedscope.py" run.speedscope.json || fail "speedscope: not in its format"

python3 - <<'PY' || fail "stacks: shares (see above)"
import json, math, sys

truth = {}
for ln in open("truth"):
    f = ln.split()
    if f[0] == "SELF":
        truth[f[1]] = int(f[2])
known = {"main", "a", "b", "c", "d", "e"}

def paths(name):
    """Folded lines summed by known path: the frames from main in, cut at the
    first frame not of the program (the clock read inside a function is that
    function's time, as the program measured it)."""
    got, total = {}, 0
    for ln in open(name):
        stack, count = ln.rstrip("\n").rsplit(" ", 1)
        count = int(count)
        total += count
        frames = stack.split(";")
        if "main" not in frames:
            continue
        frames = frames[frames.index("main"):]
        cut = []
        for f in frames:
            if f not in known:
                break
            cut.append(f)
        key = ";".join(cut)
        got[key] = got.get(key, 0) + count
    return got, total

bad = []
got, total = paths("folded")
n = sum(got.get(p, 0) for p in truth)
tsum = sum(truth.values())
print(f"folded: {total} samples, {n} on the known paths")
if n < 200:
    bad.append(f"only {n} samples on the known paths")
for p in sorted(truth):
    share_true = truth[p] / tsum
    share = got.get(p, 0) / n if n else 0
    sd = math.sqrt(share_true * (1 - share_true) / n) if n else 1
    print(f"  {p:16s} truth {share_true:.3f}  sampled {share:.3f}  ({(share - share_true) / sd:+.1f} sigma)")
    if abs(share - share_true) > 3 * sd:
        bad.append(f"{p}: sampled share {share:.3f}, truth {share_true:.3f} +- 3 x {sd:.3f}")
# Every line starts with the role's name when no role is named.
for ln in open("folded"):
    if not ln.startswith("stacks;"):
        bad.append(f"a folded line without its role: {ln.strip()}")
        break

# --phase work: a's paths, not e's; their samples as in the whole run.
work, _ = paths("folded.work")
if any(p.startswith("main;e") for p in work):
    bad.append("--phase work holds e's samples")
for p in truth:
    if p.startswith("main;a") and work.get(p, 0) != got.get(p, 0):
        bad.append(f"--phase work: {p} has {work.get(p, 0)} samples, the whole run {got.get(p, 0)}")

# --role: the same lines, without the role's name.
whole = sorted(l.split(";", 1)[1] for l in open("folded"))
if sorted(open("folded.role")) != [l if l.endswith("\n") else l + "\n" for l in whole]:
    bad.append("--role stacks: not the run's lines without the role's name")

# speedscope: one profile for the role, the same paths and their samples'
# time: each path's weight is its samples x the 4 ms period.
doc = json.load(open("run.speedscope.json"))
names = [f["name"] for f in doc["shared"]["frames"]]
prof = doc["profiles"]
if len(prof) != 1 or prof[0]["name"] != "stacks":
    bad.append(f"speedscope: profiles {[p['name'] for p in prof]}, wanted one named stacks")
else:
    ss = {}
    for stack, w in zip(prof[0]["samples"], prof[0]["weights"]):
        ss[";".join(names[i] for i in stack)] = w
    for ln in open("folded"):
        stack, count = ln.rstrip("\n").rsplit(" ", 1)
        stack = stack.split(";", 1)[1]
        w = ss.get(stack)
        if w is None or abs(w - int(count) * 4e6) > 1:
            bad.append(f"speedscope: {stack} weighs {w}, folded {count} samples of 4 ms")
            break
for b in bad:
    print("  BAD:", b)
sys.exit(1 if bad else 0)
PY

expect_rc 0 "$tui" lines --callers a run
cp out callers.a
expect_rc 0 "$tui" lines --callers b --phase work run
cp out callers.b
# The browser: the Flame of the role (selected in Phases at start), a
# searched for by its callee d's name, then c on d's frame: d's callers.
for size in 80x24 160x40; do
    expect_rc 0 "$tui" run --size $size --keys 'F/d<Enter>' --print
    cp out "flame.$size"
    expect_rc 0 env LC_ALL=C "$tui" run --size $size --keys 'F/d<Enter>' --print
    cp out "flame.ascii.$size"
done
python3 - <<'PY' || fail "stacks: callers and the Flame view (see above)"
import math, re, sys
truth = {}
for ln in open("truth"):
    f = ln.split()
    if f[0] == "SELF":
        truth[f[1]] = int(f[2])
bad = []

def table(name):
    """Function -> (samples, share) of the Callers and Callees sections."""
    out, section, total = {"Callers": {}, "Callees": {}}, None, None
    for ln in open(name):
        m = re.match(r"Samples: (\d+) of", ln)
        if m:
            total = int(m.group(1))
        if ln.startswith("Callers") or ln.startswith("Callees"):
            section = ln.split()[0]
            continue
        f = ln.split()
        if section and len(f) >= 4 and f[0].isdigit():
            out[section][f[3]] = (int(f[0]), float(f[1]) / 100)
    return out, total

# a's callees: b (b and c's time), d, and a itself.
a_total = truth["main;a"] + truth["main;a;b"] + truth["main;a;b;c"] + truth["main;a;d"]
want = {"b": (truth["main;a;b"] + truth["main;a;b;c"]) / a_total,
        "d": truth["main;a;d"] / a_total,
        "(self:": truth["main;a"] / a_total}
got, n = table("callers.a")
print(f"callers of a: {n} samples")
if not n or n < 100:
    bad.append(f"lines --callers a: {n} samples")
else:
    for k, p in want.items():
        s = got["Callees"].get(k, (0, 0.0))[1]
        sd = math.sqrt(p * (1 - p) / n)
        print(f"  callee {k:7s} truth {p:.3f}  shown {s:.3f}  ({(s - p) / sd:+.1f} sigma)")
        if abs(s - p) > 3 * sd:
            bad.append(f"callee {k}: {s:.3f}, truth {p:.3f} +- 3 x {sd:.3f}")
    if list(got["Callers"]) != ["main"] or got["Callers"]["main"][1] != 1.0:
        bad.append(f"a's callers: {got['Callers']}, wanted main at 100%")
got, n = table("callers.b")
if list(got["Callers"]) != ["a"] or got["Callers"]["a"] != (n, 1.0):
    bad.append(f"b's callers in phase work: {got['Callers']}, wanted a with all {n} samples")

# The Flame view: the search's share is the folded stacks' share of d.
folded = [l.rstrip("\n").rsplit(" ", 1) for l in open("folded")]
total = sum(int(c) for _, c in folded)
d = sum(int(c) for s, c in folded if "d" in s.split(";")[1:])
for name in ("flame.80x24", "flame.160x40", "flame.ascii.80x24", "flame.ascii.160x40"):
    screen = open(name).read()
    m = re.search(r"/d: (\d+) frames?, ([0-9.]+)% \+- ([0-9.]+)% of the samples \(([0-9,]+)\)", screen)
    if not m:
        bad.append(f"{name}: no search line")
        continue
    # 'd' matches every frame whose name holds a d (smart case): the share is
    # of the samples under any of them, each once.
    if "Flame of role stacks" not in screen:
        bad.append(f"{name}: not the role's flame")
    rows = screen.splitlines()
    a_row = next((i for i, r in enumerate(rows) if re.search(r"[|>*]a\b", r)), None)
    if a_row is None or not re.search(r"[|>*]b\b", rows[a_row + 1]) or not re.search(r"[|>*]d\b", rows[a_row + 1]):
        bad.append(f"{name}: b and d not on the row under a")
    if "ascii" in name and any(ord(ch) > 127 for ch in screen):
        bad.append(f"{name}: non-ASCII characters in the C locale")
for b in bad:
    print("  BAD:", b)
sys.exit(1 if bad else 0)
PY

# A run in progress: the Flame view opened (P saves it), then, once the
# program has written at least 50 more samples, the refresh timer fires and
# it is saved again.  The watcher waits on events, not on time; its bound
# is for a program that never writes them.
SCOPE_LINES=1 SCOPE_LINES_HZ=250 SCOPE_FRAME_INTERVAL=0.2 "$progs/stacks_known" live --units 6 \
    >/dev/null 2>&1 &
prog=$!
samples_of() { # the samples the flame's heading states, of a saved screen
    sed -n 's/.*Flame of role stacks: \([0-9,]*\) samples.*/\1/p' "$1" | tr -d ,
}
folded_total() {
    "$tui" lines --folded live 2>/dev/null | awk '{ n += $NF } END { print n + 0 }'
}
deadline=$((SECONDS + 120))
until (($(folded_total) >= 50)) || ((SECONDS > deadline)); do sleep 0.1; done
(
    until [ -f scope-flame-1.txt ] || ((SECONDS > deadline)); do sleep 0.1; done
    first=$(samples_of scope-flame-1.txt)
    until (($(folded_total) >= ${first:-0} + 50)) || ((SECONDS > deadline)); do sleep 0.1; done
    touch grown
) &
watcher=$!
expect_rc 0 "$tui" live --size 100x24 --refresh 5 --keys 'FP<wait:grown><refresh>P'
wait "$watcher" || true
kill "$prog" 2>/dev/null || true
wait "$prog" 2>/dev/null || true
n1=$(samples_of scope-flame-1.txt 2>/dev/null || true)
n2=$(samples_of scope-flame-2.txt 2>/dev/null || true)
if [[ -z "$n1" || -z "$n2" ]] || ((n2 < n1 + 50)); then
    fail "live: the Flame view's samples went from '${n1}' to '${n2}' across a refresh, not up by 50"
fi
echo "live: the Flame view showed $n1 samples, then $n2 after a refresh"
expect_in scope-flame-2.txt "IN PROGRESS"

# Bad input: --folded with --json, a role the run lacks.
expect_rc 2 "$tui" lines --folded --json run
expect_in_output "--folded prints every sampled path"
expect_rc 2 "$tui" lines --folded --role nosuch run
finish
