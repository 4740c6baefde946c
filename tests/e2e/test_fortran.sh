#!/usr/bin/env bash
# A Fortran program records through the module `scope` (fortran_workload.f90)
# and `scope-tui report --json` reads back what it did, known by
# construction: its role, its three phases with their entries (a name's
# trailing blanks dropped), the counters of 8- and 4-byte integers, and
# solve's total against the program's own clock around its begin and end
# (the recorder's window lies inside it: at most that, and at least 98 % of
# it less 1 ms, the calls' own cost).
#
# Usage: test_fortran.sh SCOPE_TUI FORTRAN_WORKLOAD
set -euo pipefail
tui=$1
prog=$2
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

expect_rc 0 "$prog" run
cp out truth.txt
expect_rc 0 "$tui" report run --json
python3 - truth.txt out <<'PY' || fail "the Fortran program's run (above)"
import json, sys
truth = dict(line.split(None, 1) for line in open(sys.argv[1]))
solve_ns = int(truth["solve_ns"])
rcs = truth["rc"].split()
doc = json.load(open(sys.argv[2]))
bad = []
if rcs != ["0", "0", "0", "0"]:
    bad.append(f"scope_init, scope_lines_begin, scope_lines_end, scope_flush returned {rcs}")
roles = {r["name"]: r for r in doc["roles"]}
if list(roles) != ["fsolver"]:
    bad.append(f"roles {list(roles)}, expected fsolver")
else:
    phases = {}
    def walk(ps):
        for p in ps:
            phases[p["path"]] = p
            walk(p["children"])
    walk(roles["fsolver"]["phases"])
    want = {"warmup": 1, "solve": 1, "solve/assemble": 50, "solve/smooth": 50}
    if {k: v["count"] for k, v in phases.items()} != want:
        bad.append(f"phases {sorted((k, v['count']) for k, v in phases.items())}, expected {want}")
    else:
        counters = {c["name"]: c["total"] for c in phases["solve/assemble"]["counters"]}
        if counters != {"cells": 50000, "faces": 150}:
            bad.append(f"assemble's counters {counters}, expected cells 50000 and faces 150")
        got = phases["solve"]["total_ns"]
        print(f"solve: recorded {got} ns, the program's clock around it {solve_ns} ns")
        if not (0.98 * solve_ns - 1e6 <= got <= solve_ns):
            bad.append(f"solve's total {got} ns against {solve_ns} ns on the program's clock")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
finish
