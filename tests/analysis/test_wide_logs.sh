#!/usr/bin/env bash
# What the reader holds per phase node (docs/trust.md, "What a reader holds"),
# on logs written by scope_gen_wide (bench/gen_wide.c), whose every figure is
# known:
#
#   - an honest log of 262,144 nodes (a program naming every request):
#     `report` lists every one with the generator's counts, says no caveat,
#     and peaks at most 512 MiB (2.2 GB when every phase held a dense
#     976-bucket histogram); `compare` of it with itself lists every phase
#     unchanged;
#   - a smaller honest log read back through --json: every phase's count,
#     total, minimum, maximum, percentiles, histogram and per-process total;
#   - a forged log of 1,100,000 nodes of two names at the default caps: the
#     browser's overview says the 51,424 nodes past the cap of 1,048,576 a
#     log were left out, and the reader peaks at most 1.5 GiB;
#   - caps lowered with SCOPE_READ_MAX_NODES: past the cap of a log (the log
#     read whole, and from its snapshot) and of a run (five logs), the nodes
#     left out are counted exactly, in the text, --json and the browser's
#     overview, the figures of those kept are whole, and the time of those
#     left out is their parent's self time; past the cap on histogram
#     buckets, the nodes without one are counted and their phases' percentiles
#     say on how many entries they rest.
#
# Each reader runs under `ulimit -v`, so that a reader without the caps fails
# here rather than taking the machine's memory.  A sanitizer build (SANITIZED
# ON) reads the same logs but the two large ones, whose peaks it cannot be
# held to: AddressSanitizer's shadow and quarantine are most of its memory,
# and ThreadSanitizer cannot map its shadow under a `ulimit -v` at all.
#
# Usage: test_wide_logs.sh SCOPE_TUI SCOPE_GEN_WIDE [SANITIZED]
set -euo pipefail
tui=$1
gen=$2
sanitized=${3:-OFF}
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

# peak_kib LIMIT_KIB OUT CMD... : runs CMD under ulimit -v LIMIT_KIB with
# stdout in OUT and stderr in OUT.err; prints its peak resident KiB (its
# VmHWM, as getrusage reports it for a waited-for child) and fails when CMD
# does.
peak_kib() {
    local limit=$1 out=$2
    shift 2
    python3 - "$limit" "$out" "$@" <<'EOF'
import resource, subprocess, sys
limit, out, cmd = int(sys.argv[1]) * 1024, sys.argv[2], sys.argv[3:]
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
with open(out, "w") as o, open(out + ".err", "w") as e:
    rc = subprocess.call(cmd, stdout=o, stderr=e, preexec_fn=cap)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)
EOF
}

# ---- the large logs: 262,144 honest nodes, 1,100,000 forged ones --------------------

# In a build without sanitizers: their peaks.
large_logs() {
    # 262,144 honest nodes: every row, no caveat, at most 512 MiB.
    expect_rc 0 "$gen" --out honest --nodes 262144
    kib=0
    kib=$(peak_kib 3000000 report.txt "$tui" report honest) ||
        fail "report of 262,144 nodes failed ($(tail -3 report.txt.err))"
    echo "report, 262,144 honest nodes: peak ${kib} KiB"
    [ "$kib" -le $((512 * 1024)) ] || fail "report of 262,144 nodes peaked at ${kib} KiB, over 512 MiB"
    python3 - report.txt <<'EOF' || fail "report of 262,144 nodes: rows differ from the generator's"
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*(serve|request-\d{7})\s.*\s(\d+)\s*$", line)
    if m:
        rows[m.group(1)] = int(m.group(2))
want = {"request-%07d" % k: 1 + k % 3 + (2 if k % 4 == 0 else 0) for k in range(2, 262145)}
want["serve"] = 1
bad = [k for k in want if rows.get(k) != want[k]]
if bad or len(rows) != len(want):
    print("rows %d, wanted %d; first wrong: %s" % (len(rows), len(want), bad[:3]))
    sys.exit(1)
EOF
    if grep -q "^CAVEATS" report.txt; then
        fail "report of an honest log has caveats: $(grep -A3 '^CAVEATS' report.txt)"
    fi

    # compare finds each phase's namesake among its 262,143 siblings: a scan
    # of them for each made it quadratic (a quarter of an hour, past this
    # test's timeout).  Every row is there, unchanged.
    kib=$(peak_kib 3000000 compare.txt "$tui" compare honest honest) ||
        fail "compare of 262,144 nodes failed ($(tail -3 compare.txt.err))"
    echo "compare, 262,144 honest nodes twice: peak ${kib} KiB"
    rows=$(grep -cE '^serve(/request-[0-9]{7})? +[^ ]+ +[^ ]+ +0\.0% ' compare.txt || true)
    [ "$rows" = 262144 ] || fail "compare of 262,144 nodes: $rows unchanged rows, wanted 262144"

    # A forged log past the default cap: left out, said, bounded.
    expect_rc 0 "$gen" --out forged --forged --nodes 1100000
    kib=0
    kib=$(peak_kib 3000000 overview.txt "$tui" forged --view overview --size 200x40 --keys '' --print) ||
        fail "the browser on 1,100,000 forged nodes failed ($(tail -3 overview.txt.err))"
    echo "browser, 1,100,000 forged nodes: peak ${kib} KiB"
    [ "$kib" -le $((1536 * 1024)) ] || fail "1,100,000 forged nodes: peak ${kib} KiB, over 1.5 GiB"
    expect_in overview.txt "capped: forged pid 1000 on node01: the reader left out 51,424 phase nodes (past the cap of 1,048,576 a log)"
}
if [ "$sanitized" = ON ]; then
    echo "note: a sanitizer build: the logs of 262,144 and 1,100,000 nodes and their peaks are left out"
else
    large_logs
fi

# ---- every figure of an honest log, through --json --------------------------------

# check_honest JSON NODES [LEFT_OUT]: the role "wide" of JSON holds node 1
# ("serve") and nodes 2 .. NODES - LEFT_OUT with the generator's figures,
# merged over the processes that kept them; PROCS logs.
check_honest() {
    python3 - "$@" <<'EOF'
import json, math, sys
doc = json.load(open(sys.argv[1]))
nodes, kept = int(sys.argv[2]), int(sys.argv[2]) - int(sys.argv[3])
def bucket(ns):  # scope/log_hist.h
    if ns < 16:
        return ns
    e = ns.bit_length() - 1
    return 16 * e - 48 + ((ns >> (e - 4)) & 15)
def lower(b):
    if b < 16:
        return b
    e = (b - 16) // 16 + 4
    return (16 + (b - 16) % 16) << (e - 4)
def upper(b):
    return b if b < 16 else lower(b) + (1 << ((b - 16) // 16)) - 1
def entries(k):
    d = 1000 + k * 7919 % 1000 * 97
    return [d] * (1 + k % 3) + ([3 * d] * 2 if k % 4 == 0 else [])
def pct(durs, q):  # the middle of the bucket of rank ceil(q n), kept within min and max
    hist = {}
    for x in durs:
        hist[bucket(x)] = hist.get(bucket(x), 0) + 1
    rank, seen = max(1, math.ceil(q * len(durs))), 0
    for b in sorted(hist):
        seen += hist[b]
        if seen >= rank:
            return min(max((lower(b) + upper(b)) / 2, min(durs)), max(durs)), hist
role = [r for r in doc["roles"] if r["name"] == "wide"][0]
serve = role["phases"][0]
problems = []
def check(p, durs, self_ns=None):
    name, d = p["name"], p
    p50, hist = pct(durs, 0.5)
    got = (d["count"], d["total_ns"], d["min_ns"], d["max_ns"], d["p50_ns"], d["p99_ns"],
           {(h["lower_ns"], h["count"]) for h in p["histogram"]}, p["per_proc_ns"], p["hist_count"])
    want = (len(durs), sum(durs), min(durs), max(durs), p50, pct(durs, 0.99)[0],
            {(lower(b), c) for b, c in hist.items()}, [sum(durs)], len(durs))
    wait = 1.0 - (sum(durs) // 2) / sum(durs)  # half its time on CPU, to the nanosecond
    if got != want or abs(p["wait"] - wait) > 1e-12:
        problems.append("%s: %s wait %r, wanted %s wait %r" % (name, got, p["wait"], want, wait))
    if self_ns is not None and p["self_ns"] != self_ns:
        problems.append("%s: self %d, wanted %d" % (name, p["self_ns"], self_ns))
kids = {c["name"]: c for c in serve["children"]}
all_kids = sum(sum(entries(k)) for k in range(2, nodes + 1))
kept_kids = sum(sum(entries(k)) for k in range(2, kept + 1))
if serve["name"] != "serve" or len(kids) != kept - 1:
    problems.append("serve with %d children, wanted %d" % (len(kids), kept - 1))
check(serve, [1000000 + all_kids], 1000000 + all_kids - kept_kids)
for k in range(2, kept + 1):
    check(kids["request-%07d" % k], entries(k), sum(entries(k)))
print("\n".join(problems[:5]))
sys.exit(1 if problems else 0)
EOF
}

expect_rc 0 "$gen" --out honest20k --nodes 20000
expect_rc 0 "$tui" report --json honest20k
cp out honest20k.json
check_honest honest20k.json 20000 0 || fail "honest 20,000 nodes: figures differ from the generator's"

# ---- lowered caps: a log, a log from its snapshot, a run, histograms ---------------

# A log read whole (under 256 KiB): its snapshot restates what was left out.
expect_rc 0 "$gen" --out small --nodes 3000
[ "$(stat -c %s small/workers/node01/*.scope)" -lt 262144 ] || fail "small's log is not small"
SCOPE_READ_MAX_NODES=2500 expect_rc 0 "$tui" report --json small
cp out small.json
check_honest small.json 3000 500 || fail "cap of 2,500 nodes: kept figures differ"
python3 - small.json <<'EOF' || fail "cap of 2,500 nodes: caveats in --json differ"
import json, sys
cav = [c for c in json.load(open(sys.argv[1]))["caveats"]]
want = ("the reader left out 500 phase nodes (past the cap of 2,500 a log)")
if [c["kind"] for c in cav] != ["capped"] or want not in cav[0]["text"]:
    print(cav)
    sys.exit(1)
EOF
SCOPE_READ_MAX_NODES=2500 expect_rc 0 "$tui" report small
expect_in_output "the reader left out 500 phase nodes (past the cap of 2,500 a log)"
SCOPE_READ_MAX_NODES=2500 expect_rc 0 "$tui" small --view overview --size 200x40 --keys '' --print
expect_in_output "capped: wide pid 1000 on node01: the reader left out 500 phase nodes (past the cap of 2,500 a log)"

# A log read from its snapshot (over 256 KiB): counted there once.
expect_rc 0 "$gen" --out big --nodes 40000
SCOPE_READ_MAX_NODES=30000 expect_rc 0 "$tui" report --json big
cp out big.json
check_honest big.json 40000 10000 || fail "cap of 30,000 nodes: kept figures differ"
grep -qF "the reader left out 10,000 phase nodes (past the cap of 30,000 a log)" big.json ||
    fail "cap of 30,000 nodes: no caveat counting 10,000 in --json"

# Five logs of 1,000 nodes against a run's cap of 4 x 1,200: 200 left out,
# from whichever logs were read last.
expect_rc 0 "$gen" --out five --nodes 1000 --procs 5
SCOPE_READ_MAX_NODES=1200 expect_rc 0 "$tui" report --json five
cp out five.json
python3 - five.json <<'EOF' || fail "a run's cap of 4,800 nodes: figures or caveats differ"
import json, re, sys
doc = json.load(open(sys.argv[1]))
left = 0
for c in doc["caveats"]:
    m = re.search(r"left out ([\d,]+) phase nodes? \(past the cap of 4,800 a run\)", c["text"])
    if c["kind"] != "capped" or not m:
        print("unexpected caveat", c)
        sys.exit(1)
    left += int(m.group(1).replace(",", ""))
serve = doc["roles"][0]["phases"][0]
entered = sum(k["nprocs"] for k in serve["children"])
if left != 200 or entered != 5 * 999 - 200 or serve["nprocs"] != 5:
    print("left out %d, request phases entered %d times" % (left, entered))
    sys.exit(1)
EOF

# Histograms past 16 buckets a node on average: 1,000 nodes of 100 buckets
# each, 160 keep theirs.
expect_rc 0 "$gen" --out bins --forged --nodes 1000 --bins 100
SCOPE_READ_MAX_NODES=1000 expect_rc 0 "$tui" report --json bins
cp out bins.json
python3 - bins.json <<'EOF' || fail "a cap of 16,000 buckets: figures or caveats differ"
import json, sys
doc = json.load(open(sys.argv[1]))
texts = [c["text"] for c in doc["caveats"] if c["kind"] == "capped"]
want = "the reader left out the histograms of 840 phase nodes (past the cap of 16,000 histogram buckets a log)"
phases = []
def walk(p):
    phases.append(p)
    for k in p["children"]:
        walk(k)
for p in doc["roles"][0]["phases"]:
    walk(p)
with_hist = [p for p in phases if p["histogram"] is not None]
partial = [p for p in phases if p["hist_count"] < p["count"]]
if len(texts) != 1 or want not in texts[0] or len(phases) != 1000 or len(with_hist) != 160 \
        or len(partial) != 840 or any(p["count"] != 100 for p in phases):
    print(texts, len(phases), len(with_hist), len(partial))
    sys.exit(1)
EOF

finish
