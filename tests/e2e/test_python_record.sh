#!/usr/bin/env bash
# A Python program records through scope.init/phase/count/flush
# (py_workload.py) while a C library it loads with ctypes records with
# SCOPE_PHASE into the same process, and it forks (os.fork, multiprocessing
# fork and spawn); `scope-tui report --json` reads back what it did:
#   - one log per process, four in all, every one of role "pyapp", their
#     pids the program's own and its children's, none unbalanced;
#   - the phase tree and entries known by construction: the C phase under
#     the Python phase open around the call, a decorated function's phase
#     closed by the exception it raised (else later phases would nest under
#     it), a generator's phase once per resumption, two threads' phases;
#   - the counters' totals (Python's and C's);
#   - wall times against the program's own clocks: Python's perf_counter
#     around each `with`, the C library's clock_gettime around its block.
#     The recorder's window lies inside that one: at most it (plus 1 % and
#     50 us for the two clocks' calibration), and at least the sleeps inside
#     it (30 ms, 6 x 5 ms, 4 x 2 ms), which hold on any machine, loaded or not.
#
# Usage: test_python_record.sh SCOPE_TUI PYTHON PYTHONPATH MIXLIB
set -euo pipefail
tui=$1
python=$2
pypath=$3
mixlib=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/e2e/lib.sh
source "$here/lib.sh"

unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE
export SCOPE_QUIET=1
expect_rc 0 env PYTHONPATH="$pypath" "$python" "$here/py_workload.py" run "$mixlib" truth.json
expect_rc 0 "$tui" report run --json
python3 - truth.json out <<'PY' || fail "the Python program's run (above)"
import json, sys
truth = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
bad = []
def check(ok, msg):
    if not ok:
        bad.append(msg)

check(truth["init"] is True and truth["flush"] is True, f"init/flush returned {truth['init']}/{truth['flush']}")
check(truth.get("crunch_raised") is True, "the decorated function's exception did not reach the caller")
check(truth["walk"] == [0, 1], f"the decorated generator gave {truth['walk']}")
check(truth["exit_mp_fork"] == 0 and truth["exit_mp_spawn"] == 0, "a multiprocessing child failed")

workers = doc["workers"]
pids = sorted(w["pid"] for w in workers)
want_pids = sorted([truth["pid"], *truth["children"].values()])
check(pids == want_pids, f"logs of pids {pids}, expected one each for {want_pids}")
check({w["role"] for w in workers} == {"pyapp"}, f"roles {[w['role'] for w in workers]}")
check(all(w["unbalanced"] == 0 for w in workers), f"unbalanced {[w['unbalanced'] for w in workers]}")
check(len({w["path"] for w in workers}) == len(workers), "two processes share a log")

roles = {r["name"]: r for r in doc["roles"]}
check(list(roles) == ["pyapp"], f"roles {list(roles)}")
phases = {}
def walk(ps):
    for p in ps:
        phases[p["path"]] = p
        walk(p["children"])
walk(roles["pyapp"]["phases"])
want = {"warmup": 1, "load": 1, "train": 1, "train/step": 6, "crunch": 3, "mixed": 1,
        "mixed/c_kernel": 4, "walk": 3, "worker": 8, "os_fork": 1, "mp_fork": 1, "mp_spawn": 1}
got = {k: v["count"] for k, v in phases.items()}
check(got == want, f"phases {sorted(got.items())}, expected {sorted(want.items())}")
for child in ("os_fork", "mp_fork", "mp_spawn"):
    if child in phases:
        check(phases[child]["nprocs"] == 1, f"{child} recorded by {phases[child]['nprocs']} processes")
        check(phases[child]["total_ns"] >= 10e6, f"{child}: {phases[child]['total_ns']} ns < its 10 ms sleep")
if "worker" in phases:
    check(phases["worker"]["total_ns"] >= 8 * 3e6, f"worker: {phases['worker']['total_ns']} ns < 8 x 3 ms")

def counters(path):
    return {c["name"]: (c["calls"], c["total"]) for c in phases.get(path, {}).get("counters", [])}
check(counters("train/step") == {"samples": (6, 192)}, f"step's counters {counters('train/step')}")
check(counters("mixed/c_kernel") == {"cells": (4, 4000)}, f"c_kernel's counters {counters('mixed/c_kernel')}")

# Each phase keeps the place of its first use, as a C site keeps __FILE__
# and __LINE__: the decorator's line for crunch, the C file for c_kernel.
src = open(truth["workload"]).read().splitlines()
deco_line = 1 + next(i for i, l in enumerate(src) if l.startswith('@scope.phase("crunch")'))
if "crunch" in phases:
    check((phases["crunch"]["file"], phases["crunch"]["line"]) == (truth["workload"], deco_line),
          f"crunch's place {phases['crunch']['file']}:{phases['crunch']['line']}, expected line {deco_line}")
if "mixed/c_kernel" in phases:
    check(str(phases["mixed/c_kernel"]["file"]).endswith("py_mix_lib.c"),
          f"c_kernel's file {phases['mixed/c_kernel']['file']}")

for path, key, floor_ns in (("load", "load_ns", 30e6), ("train", "train_ns", 30e6),
                            ("train/step", "step_ns", 30e6), ("mixed", "mixed_ns", 8e6),
                            ("mixed/c_kernel", "c_kernel_ns", 8e6)):
    if path not in phases:
        continue
    rec, clock = phases[path]["total_ns"], truth[key]
    print(f"{path:16} recorded {rec / 1e6:9.3f} ms, the program's clock {clock / 1e6:9.3f} ms")
    check(floor_ns <= rec <= clock * 1.01 + 50e3,
          f"{path}: recorded {rec} ns, outside [{floor_ns:.0f}, {clock} ns on the program's clock]")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
finish
