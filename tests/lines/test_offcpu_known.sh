#!/usr/bin/env bash
# Off-CPU stacks end to end, from the wall-clock sampler to `lines`,
# `lines --folded`, `--callers`, the speedscope export and the Flame view,
# on a workload whose waits are known and measured by the program itself
# (progs/offcpu_known.c: in phase wait, a -> wait_in_read blocks in read()
# on a pipe, a -> wait_in_sleep in clock_nanosleep, a -> spin runs):
#
#  - with SCOPE_LINES_CLOCK=wall, the phase's off-CPU share of samples is
#    its measured wall time less its CPU time, within 3 sigma + 0.03 (the
#    few samples whose interval mixed running and waiting); the off-CPU
#    samples split between wait_in_read and wait_in_sleep as the program's
#    clocks measured their waits, within 3 sigma + 0.02, most of them
#    blocked (the rest queued: woken, waiting for a CPU); spin holds almost
#    none of the blocked samples and the waits almost none of the on-CPU
#    ones (at most 5%: a loaded machine holds spin off its CPU, queued);
#  - the off-CPU folded stacks name the blocking frames down to the C
#    library's read and clock_nanosleep; --callers wait_in_read --off-cpu
#    has a as its caller;
#  - speedscope's file holds the role's on-CPU and off-CPU profiles, valid;
#  - the Flame view, headless at 80x24 (UTF-8 and ASCII): w shows off-CPU
#    samples with the waits' frames, ww on-CPU ones;
#  - with CPU-time sampling nothing off-CPU appears: --off-cpu says why
#    (exit 2), and the waits hold almost none of the samples;
#  - a log of format 1.9 (the header's minor version set back) still
#    reads, and --off-cpu says its wall-clock samples do not tell.
#
# Usage: test_offcpu_known.sh SCOPE_TUI PROGS_DIR SOURCE_DIR
set -euo pipefail
tui=$1
progs=$2
src=$3
. "$src/../e2e/lib.sh"

export SCOPE_LINES_PROJECT=$src SCOPE_QUIET=1
SCOPE_LINES=1 SCOPE_LINES_CLOCK=wall "$progs/offcpu_known" run --rounds 4 >truth 2>err ||
    fail "offcpu_known (wall): exit $?: $(cat err)"

for set in all off-cpu on-cpu blocked queued; do
    opt=--$set
    [ "$set" = all ] && opt=
    # shellcheck disable=SC2086
    "$tui" lines --folded --phase wait $opt run >"folded.$set" 2>"err.$set" || true
done
expect_rc 0 "$tui" lines --phase wait --off-cpu run
cp out lines.off
expect_in lines.off "Hot lines of phase wait, off-CPU samples"
expect_in lines.off "Threads were on a CPU in 0.0% of these samples"
expect_rc 0 "$tui" lines --phase wait run
expect_in_output "of wall time"
expect_in_output "Threads were on a CPU in"
expect_rc 0 "$tui" lines --callers wait_in_read --off-cpu run
cp out callers
expect_rc 0 "$tui" export run --format speedscope -o run.speedscope.json
python3 "$src/check_speedscope.py" run.speedscope.json || fail "speedscope: not in its format"
logs=(run/workers/*/*.scope)
expect_rc 0 "$tui" dump "${logs[0]}"
expect_in_output "OFFCPU_SAMPLES thread"

python3 - <<'PY' || fail "off-CPU shares (see above)"
import json, math, sys
truth, phase = {}, None
for ln in open("truth"):
    f = ln.split()
    if f[0] == "WALL":
        truth[f[1]] = int(f[2])
    elif f[0] == "PHASE":
        phase = (int(f[1]), int(f[2]))

def folded(name):
    out = []
    for ln in open(name):
        stack, count = ln.rstrip("\n").rsplit(" ", 1)
        out.append((stack.split(";"), int(count)))
    return out

def on(paths, fn):
    return sum(c for s, c in paths if fn in s)

bad = []
every = folded("folded.all")
n = sum(c for _, c in every)
off = sum(c for _, c in folded("folded.off-cpu"))
oncpu = folded("folded.on-cpu")
blocked = folded("folded.blocked")
queued = sum(c for _, c in folded("folded.queued"))
n_on, n_blocked = sum(c for _, c in oncpu), sum(c for _, c in blocked)
print(f"phase wait: {n} samples: {n_on} on a CPU, {off} off it ({n_blocked} blocked, {queued} queued)")
if n < 300:
    bad.append(f"only {n} samples in phase wait")
if off + n_on != n or n_blocked + queued != off:
    bad.append("the sets do not add up: on + off != all, or blocked + queued != off")

# Off-CPU share: the phase's wall time less its CPU time, as the program measured.
p = 1 - phase[1] / phase[0]
s = off / n if n else 0
sd = math.sqrt(p * (1 - p) / n) if n else 1
print(f"  off-CPU share: truth {p:.3f}  sampled {s:.3f}")
if abs(s - p) > 3 * sd + 0.03:
    bad.append(f"off-CPU share {s:.3f}, truth {p:.3f} +- (3 x {sd:.3f} + 0.03)")

# The off-CPU samples: read against sleep, as their waits measured (on a
# loaded machine a wait ends queued, woken but not yet on a CPU: off-CPU
# still, and in the wall time the program measured).
offcpu = folded("folded.off-cpu")
r, z = on(offcpu, "wait_in_read"), on(offcpu, "wait_in_sleep")
p = truth["wait_in_read"] / (truth["wait_in_read"] + truth["wait_in_sleep"])
s = r / (r + z) if r + z else 0
sd = math.sqrt(p * (1 - p) / (r + z)) if r + z else 1
print(f"  off-CPU in read of read + sleep: truth {p:.3f}  sampled {s:.3f} ({r} + {z})")
if abs(s - p) > 3 * sd + 0.02:
    bad.append(f"off-CPU: read {s:.3f} of the waits, truth {p:.3f} +- (3 x {sd:.3f} + 0.02)")
if on(blocked, "wait_in_read") + on(blocked, "wait_in_sleep") < 0.5 * (r + z):
    bad.append("most off-CPU samples of the waits are not blocked")
if on(blocked, "spin") > 0.05 * n_blocked:
    bad.append(f"spin holds {on(blocked, 'spin')} of {n_blocked} blocked samples")
waits_on = on(oncpu, "wait_in_read") + on(oncpu, "wait_in_sleep")
if waits_on > 0.05 * n_on + 2:
    bad.append(f"the waits hold {waits_on} of {n_on} on-CPU samples")
# The blocking frames, down to the C library's calls.
stacks = [";".join(s) for s, _ in blocked]
if not any("a;wait_in_read;" in s and "read" in s.split(";")[-1] for s in stacks):
    bad.append("no blocked stack a;wait_in_read;...read")
if not any("a;wait_in_sleep;sleep_until;" in s and "nanosleep" in s.split(";")[-1] for s in stacks):
    bad.append("no blocked stack a;wait_in_sleep;sleep_until;...clock_nanosleep")

# speedscope: the role's off-CPU profile weighs the run's off-CPU samples.
doc = json.load(open("run.speedscope.json"))
profs = {pr["name"]: pr for pr in doc["profiles"]}
if set(profs) != {"offcpu", "offcpu (on-CPU)", "offcpu (off-CPU)"}:
    bad.append(f"speedscope profiles {sorted(profs)}")
else:
    w_all = sum(profs["offcpu"]["weights"])
    w_split = sum(profs["offcpu (on-CPU)"]["weights"]) + sum(profs["offcpu (off-CPU)"]["weights"])
    if abs(w_all - w_split) > 1e-6 * w_all + 10:
        bad.append(f"speedscope: on + off weigh {w_split}, all {w_all}")
for ln in open("callers"):
    if ln.startswith("Callers"):
        break
rows = [l.split() for l in open("callers")]
if not any(len(r) >= 4 and r[3] == "a" and r[1] == "100.0" for r in rows):
    bad.append("--callers wait_in_read --off-cpu: a is not its one caller")
for b in bad:
    print("  BAD:", b)
sys.exit(1 if bad else 0)
PY

# JSON: the selection's split, the same as the folded sets'.
expect_rc 0 "$tui" lines --json --phase wait run
python3 - <<'PY' || fail "lines --json: samples_by_state (see above)"
import json, sys
d = json.load(open("out"))
st = d["samples_by_state"]
tot = lambda name: sum(int(l.rsplit(" ", 1)[1]) for l in open(name))
want = {"on_cpu": tot("folded.on-cpu"), "blocked": tot("folded.blocked"), "queued": tot("folded.queued"),
        "off_unknown": 0}
print("json:", d["cpu"], st, d["samples"])
sys.exit(0 if st == want and sum(st.values()) == d["samples"] and d["cpu"] == "all" else 1)
PY

# The Flame view: w shows the off-CPU samples, w again the on-CPU ones.
expect_rc 0 "$tui" run --size 80x24 --keys 'Fw' --print
cp out flame.off
expect_in flame.off "off-CPU samples"
expect_in flame.off "wait_in_read"
expect_rc 0 env LC_ALL=C "$tui" run --size 80x24 --keys 'Fw' --print
cp out flame.off.ascii
expect_in flame.off.ascii "off-CPU samples"
LC_ALL=C grep -q '[^ -~]' flame.off.ascii && fail "flame.off.ascii: non-ASCII in the C locale"
expect_rc 0 "$tui" run --size 100x30 --keys 'Fww' --print
cp out flame.on
expect_in flame.on "on-CPU samples"
grep -q "wait_in_read" flame.on && fail "the on-CPU flame shows wait_in_read"

# CPU-time sampling: nothing off-CPU.
SCOPE_LINES=1 "$progs/offcpu_known" cpu --rounds 2 --spin-ms 150 >truth.cpu 2>err ||
    fail "offcpu_known (cpu): exit $?: $(cat err)"
expect_rc 2 "$tui" lines --off-cpu cpu
expect_in_output "this run sampled CPU time"
expect_rc 0 "$tui" cpu --size 80x24 --keys 'Fw' --print
expect_in_output "no off-CPU samples: this run sampled CPU time"
expect_rc 0 "$tui" lines --folded --phase wait cpu
awk '{ n += $NF } /wait_in_(read|sleep)/ { w += $NF } END { exit !(n >= 30 && w <= 0.05 * n) }' out ||
    fail "cpu run: the waits hold more than 5% of the samples (or too few samples): $(cat out)"
expect_rc 0 "$tui" lines --on-cpu cpu

# An older log: the header's minor version set back to 9 (its check
# recomputed); wall-clock samples of 1.9 do not say on- or off-CPU.
cp -r run old
python3 - old <<'PY'
import glob, sys
for path in glob.glob(sys.argv[1] + "/**/*.scope", recursive=True):
    b = bytearray(open(path, "rb").read())
    b[18:20] = (9).to_bytes(2, "little")
    h = 2166136261
    for x in b[8:28]:
        h = ((h ^ x) * 16777619) & 0xFFFFFFFF
    b[28:32] = h.to_bytes(4, "little")
    open(path, "wb").write(bytes(b))
PY
expect_rc 2 "$tui" lines --off-cpu old
expect_in_output "before log format 1.10"
expect_rc 0 "$tui" lines --phase wait old
expect_in_output "on or off a CPU not said"
expect_rc 0 "$tui" lines --folded old

# Bad input: two sets at once.
expect_rc 2 "$tui" lines --on-cpu --off-cpu run
expect_in_output "choose one set of samples"
finish
