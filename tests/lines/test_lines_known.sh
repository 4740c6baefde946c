#!/usr/bin/env bash
# The line sampler end to end, from the recorder to `scope-tui lines`, on a
# workload whose per-line costs are known by construction and measured by
# the program itself (progs/lines_known.c prints each kernel's thread CPU
# time): single- and multi-threaded, with and without frame pointers, under
# `scope-tui record`, killed mid-run, and blocking the sampling signal.
#
# Each kernel's share of the kernels' samples must lie within 3 standard
# deviations of its share of their measured CPU time (sigma from the true
# share and the samples counted); the hottest line is kernel_three's loop;
# libm's time is charged to kernel_libm's line (project) or to libm (--raw);
# the sampled CPU time is within 10% of getrusage.
#
# Usage: test_lines_known.sh SCOPE_TUI PROGS_DIR SOURCE_DIR
set -euo pipefail
tui=$1
progs=$2
src=$3
. "$src/../e2e/lib.sh"

export SCOPE_LINES_PROJECT=$src SCOPE_QUIET=1
hz=250

# sample RUN PROG ARGS...: records PROG into RUN with lines on, its truth in RUN.truth.
sample() {
    local run=$1 prog=$2
    shift 2
    SCOPE_LINES=1 SCOPE_LINES_HZ=$hz "$prog" "$run" "$@" >"$run.truth" 2>"$run.err" ||
        fail "$prog $run $*: exit $?: $(cat "$run.err")"
}

# check_shares RUN: the checks above, on `lines --json` of RUN.
check_shares() {
    local run=$1
    "$tui" lines --json --top 0 "$run" >"$run.project.json" 2>"$run.lines.err" ||
        { fail "lines $run: $(cat "$run.lines.err")"; return; }
    "$tui" lines --json --top 0 --raw "$run" >"$run.self.json" ||
        { fail "lines --raw $run"; return; }
    "$tui" lines --json --top 0 --phase three "$run" >"$run.three.json" ||
        { fail "lines --phase three $run"; return; }
    python3 - "$run" "$src" <<'PY' || fail "$run: shares (see above)"
import json, sys
run = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from known_shares import check_kernel_shares
truth_cpu, line_of, rusage = {}, {}, None
for ln in open(run + ".truth"):
    f = ln.split()
    if f[0] == "CPU":
        truth_cpu[f[1]] = int(f[2])
    elif f[0] == "LINE":
        line_of[f[1]] = int(f[2])
    elif f[0] == "RUSAGE":
        rusage = int(f[1]) / 1e9
proj = json.load(open(run + ".project.json"))
raw = json.load(open(run + ".self.json"))
three = json.load(open(run + ".three.json"))
bad = []

def fn_samples(doc, name):
    return sum(r["samples"] for r in doc["lines"] if r["function"] == name)

kernels = sorted(truth_cpu)
got = {k: fn_samples(proj, k) for k in kernels}
n = sum(got.values())
print(f"{run}: {proj['samples']} samples, {n} in the kernels, {proj['seconds']:.3f}s sampled, "
      f"{rusage:.3f}s rusage")
if n < 100:
    bad.append(f"only {n} samples in the kernels")
check_kernel_shares(truth_cpu, got, bad)

# The hottest line: kernel_three's loop.
top = proj["lines"][0]
if top["function"] != "kernel_three" or top["line"] != line_of["kernel_three"]:
    bad.append(f"hottest line {top['function']}:{top['line']}, not kernel_three:{line_of['kernel_three']}")

# libm's time: on kernel_libm's loop line (project), in libm (--raw).
libm_line = [r for r in proj["lines"] if r["function"] == "kernel_libm"]
on_line = sum(r["samples"] for r in libm_line if r["line"] == line_of["kernel_libm"])
if not libm_line or on_line < 0.9 * got["kernel_libm"]:
    bad.append(f"kernel_libm: {on_line} of {got['kernel_libm']} samples on its loop line")
in_libm = sum(r["samples"] for r in raw["lines"] if "libm" in (r["module"] or ""))
if in_libm < 0.5 * got["kernel_libm"]:
    bad.append(f"--raw: {in_libm} samples in libm, of kernel_libm's {got['kernel_libm']}")
if fn_samples(raw, "kernel_libm") >= got["kernel_libm"]:
    bad.append("--raw charges libm's time to kernel_libm")

# --phase three: kernel_three alone.
t3 = fn_samples(three, "kernel_three")
if three["samples"] == 0 or t3 < 0.95 * three["samples"]:
    bad.append(f"--phase three: {t3} of {three['samples']} samples in kernel_three")

# Sampled CPU against getrusage.
if abs(proj["seconds"] - rusage) > 0.10 * rusage:
    bad.append(f"sampled {proj['seconds']:.3f}s against getrusage {rusage:.3f}s")
for b in bad:
    print("  BAD:", b)
sys.exit(1 if bad else 0)
PY
}

# Single- and multi-threaded (the second thread starts after sampling did),
# then -O2 without frame pointers: libm's leaf must still reach its caller.
# The three run at once, each in a subshell that fails when its sample did
# (its FAIL line printed there): what each is held to is its own CPU time
# and the samples it took of it, which a neighbour does not change.
pids=()
for variant in "one lines_known" "threads lines_known --threads" "nofp lines_known_nofp"; do
    read -r run prog args <<<"$variant"
    (
        sample "$run" "$progs/$prog" $args
        ((failures == 0))
    ) &
    pids+=($!)
done
for pid in "${pids[@]}"; do
    wait "$pid" || failures=$((failures + 1))
done
check_shares one
check_shares threads
check_shares nofp

# The text: line_profiler's layout, the loop line and its text.
expect_rc 0 "$tui" lines one
read -r _ _ three_line < <(grep '^LINE kernel_three ' one.truth)
expect_in_output "Function: kernel_three at lines $three_line-$three_line"
expect_in_output "x = x * 0.999997 + 0.000005;"

# A program never built against scope, run twice by a shell under record:
# three processes, two of them sampled, the hottest line kernel_three's.
# (Under AddressSanitizer its runtime goes first in the preload list.)
asan=$(ldd "$tui" | awk '/libasan/ {print $3}')
expect_rc 0 env ${asan:+LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0} \
    "$tui" record -o rec -- sh -c "'$progs/lines_known_plain' x >/dev/null; '$progs/lines_known_plain' x >/dev/null"
expect_in_output "the run is in $PWD/rec"
expect_in_output "kernel_three"
expect_rc 0 "$tui" lines --json rec
python3 -c '
import json
d = json.load(open("out"))
assert d["sampled_processes"] >= 2, d["sampled_processes"]
assert d["lines"][0]["function"] == "kernel_three", d["lines"][0]
' || fail "record: not two sampled processes with kernel_three hottest: $(head -c 600 out)"

# SIGKILL mid-run: the frames written before the kill keep their samples.
SCOPE_LINES=1 SCOPE_LINES_HZ=$hz SCOPE_FRAME_INTERVAL=0.2 "$progs/lines_known" killed --units 8 \
    >/dev/null 2>&1 &
pid=$!
# Killed once its frames hold 50 samples (an event; the bound is for a
# sampler that never writes them, not for a loaded machine).
sampled=0 deadline=$((SECONDS + 120))
while ((SECONDS < deadline)); do
    if "$tui" lines --json killed >killed.json 2>/dev/null &&
        python3 -c 'import json; exit(0 if json.load(open("killed.json"))["samples"] >= 50 else 1)'; then
        sampled=1
        break
    fi
    sleep 0.1
done
kill -KILL "$pid"
((sampled)) || fail "killed: no 50 samples on disk in 120 s"
wait "$pid" 2>/dev/null || true
expect_rc 0 "$tui" lines killed
expect_in_output "Function: kernel_one"
expect_rc 0 "$tui" report killed
expect_in_output "never shut down cleanly"

# A program that blocks the sampling signal is told about, not broken.
sample blocked "$progs/lines_known" --block-sigprof --threads --units 1
expect_rc 0 "$tui" lines blocked
expect_in_output "blocked the sampling signal"
expect_in_output "kernel_two"

finish
