#!/usr/bin/env bash
# `scope-tui export RUN --format hdf5` and reading the file back: every
# figure of `report --json` (and of `lines --json`, and the text report)
# is the same from the exported file as from the run directory, for
#
#   - the example pipeline, line samples on (two roles, lines, resources);
#   - a synthetic run of two attempts, two roles and resource series, one
#     log of the newest attempt cut inside a frame and one damaged;
#   - an_workload with a worker killed by SIGKILL inside a phase, and one
#     with names full of escapes and invalid UTF-8.
#
# check, the browser and a second export see the same run in the file.  The
# model part of the file (/roles, /phases, ...) holds the report's figures, docs/hdf5.md's h5py snippet runs on it, and bad files of the
# layout (wrong version, a missing table, a field of the wrong type, rows
# naming what does not exist, truncated) give one line naming the file and
# exit 2.
#
# Usage: test_h5_export.sh SCOPE_TUI GEN_RUN PIPELINE AN_WORKLOAD HDF5_DOC
set -uo pipefail
tui=$1
gen_run=$2
pipeline=$3
workload=$4
doc=$5
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE SCOPE_LINES
fixtures=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures/scope-profiler-h5" && pwd)
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

py=$(h5py_python)
[ -n "$py" ] || { echo "FAIL: no python3 with h5py (scripts/setup.sh installs python3-h5py)" >&2; exit 1; }

# same_json A B WHAT: the two JSON documents are equal field by field, the
# run's path ("dir", where each was loaded from) aside.
same_json() {
    "$py" - "$1" "$2" <<'PY' || fail "$3: the exported file's figures differ (above)"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.get("run", {}).pop("dir", None)
diffs = []
def walk(x, y, path):
    if type(x) != type(y):
        diffs.append(f"{path}: {x!r} != {y!r}")
    elif isinstance(x, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y:
                diffs.append(f"{path}.{k}: only in {'the run' if k in x else 'the export'}")
            else:
                walk(x[k], y[k], f"{path}.{k}")
    elif isinstance(x, list):
        if len(x) != len(y):
            diffs.append(f"{path}: {len(x)} entries != {len(y)}")
        for i, (u, v) in enumerate(zip(x, y)):
            walk(u, v, f"{path}[{i}]")
    elif x != y:
        diffs.append(f"{path}: {x!r} != {y!r}")
for d in diffs[:20]:
    print(d, file=sys.stderr)
sys.exit(1 if diffs else 0)
PY
}

# round_trip RUN WHAT [lines]: export RUN, then compare report --json, the
# text report and, with "lines", lines --json, from both.
round_trip() {
    local run=$1 what=$2
    expect_rc 0 "$tui" export "$run" --format hdf5 -o "$run.h5"
    [ -s "$run.h5" ] || { fail "$what: no file written"; return; }
    "$tui" report --json "$run" >"$run.a.json" 2>&1 || fail "$what: report --json of the run"
    expect_rc 0 "$tui" report --json "$run.h5"
    cp out "$run.b.json"
    same_json "$run.a.json" "$run.b.json" "$what: report --json"
    "$tui" report "$run" >"$run.a.txt" 2>&1
    "$tui" report "$run.h5" >"$run.b.txt" 2>&1
    # The text report names no path, so it is the same to the byte.
    cmp -s "$run.a.txt" "$run.b.txt" || fail "$what: the text reports differ:
$(diff "$run.a.txt" "$run.b.txt" | head -20)"
    if [ "${3:-}" = lines ]; then
        "$tui" lines --json "$run" >"$run.la.json" 2>&1 || fail "$what: lines --json of the run"
        "$tui" lines --json "$run.h5" >"$run.lb.json" 2>&1 || fail "$what: lines --json of the file"
        same_json "$run.la.json" "$run.lb.json" "$what: lines --json"
    fi
    echo "ok: $what: the exported file reads back to the same figures"
}

# ---- the example pipeline, lines sampled ----------------------------------------------
SCOPE_LINES=1 "$pipeline" --quick --run-dir pipe --out ckpt >pipe.out 2>&1 ||
    fail "pipeline: $(tail -5 pipe.out)"
grep -q '"samples"' <("$tui" lines --json pipe 2>/dev/null) || fail "pipeline: no line samples recorded"
round_trip pipe "example pipeline" lines

# ---- two attempts, roles, resources, damage ---------------------------------------------
"$gen_run" --out gen --procs 6 --hours 0.1 --roles actor:4,learner:2 --resources --seed 3 >/dev/null &&
    "$gen_run" --out gen --procs 5 --hours 0.2 --roles actor:3,learner:2 --resources --seed 4 \
        >/dev/null || fail "scope_gen_run"
mapfile -t newest < <(ls -t gen/workers/*/*.scope | head -5 | sort)
if [ "${#newest[@]}" -ge 3 ]; then
    # Cut inside the exit frame: 300 bytes short of the snapshot after it.
    exit_snap=$("$tui" dump --frames "${newest[0]}" |
        sed -n 's/^frame [0-9]* at byte \([0-9]*\), exit, snapshot,.*/\1/p')
    [ -n "$exit_snap" ] || fail "no snapshot after the exit frame in ${newest[0]}"
    truncate -s $((${exit_snap:-300} - 300)) "${newest[0]}"
    printf 'XXXXXXXXXXXXXXXX' | dd of="${newest[2]}" bs=1 seek=3000 conv=notrunc 2>/dev/null
fi
"$tui" report gen >gen.txt 2>&1
for caveat in "earlier attempt" "ends inside a frame" "never shut down cleanly" "damaged and skipped"; do
    expect_in gen.txt "$caveat"
done
expect_in gen.txt "LEARNER"
expect_in gen.txt "sampled about once a second"
round_trip gen "two attempts, damaged and cut logs, resources"
# Wherever a run is opened: check against the run itself, the browser's
# phases and overview, an export of the export.
expect_rc 0 "$tui" check gen gen.h5
expect_in_output "0 of"
for keys in "" "6" "5"; do
    # The overview names where the run was loaded from.
    "$tui" gen --keys "$keys" --size 120x40 --print 2>&1 | grep -v '^ *directory ' >screen.a
    "$tui" gen.h5 --keys "$keys" --size 120x40 --print 2>&1 | grep -v '^ *directory ' >screen.b
    cmp -s screen.a screen.b || fail "the browser's screen after '$keys' differs:
$(diff screen.a screen.b | head -10)"
done
expect_rc 0 "$tui" export gen.h5 --format hdf5 -o again.h5
"$tui" report --json again.h5 >again.json 2>&1
same_json gen.a.json again.json "an export of the exported file"
echo "ok: check, the browser and a second export see the same run"

# ---- a worker killed inside a phase; hostile names ------------------------------------
SCOPE_CPU_TIME=always "$workload" killed victim >wl.out 2>&1 || fail "an_workload victim: $(cat wl.out)"
"$tui" report killed >killed.txt 2>&1
expect_in killed.txt "never shut down cleanly"
round_trip killed "a worker killed inside a phase"
SCOPE_CPU_TIME=always "$workload" names names >wl.out 2>&1 || fail "an_workload names: $(cat wl.out)"
round_trip names "names with escapes and invalid UTF-8"

# ---- an imported line_profiler file: measured lines -------------------------------------
# Each rank's measured lines, with their kind and hits, read back from the
# export as from the file imported: whole, per rank, and as text.  (The
# text report is not compared: the import's names its source file.)
cp "$fixtures/line-profile.h5" lp.h5
expect_rc 0 "$tui" export lp.h5 --format hdf5 -o lp.h5.h5
"$tui" report --json lp.h5 >lp.a.json 2>&1 || fail "report --json of the line profile"
"$tui" report --json lp.h5.h5 >lp.b.json 2>&1 || fail "report --json of its export"
same_json lp.a.json lp.b.json "the line profile: report --json"
"$tui" lines --json --top 0 lp.h5 >lp.all.json 2>&1 || fail "lines --json of the line profile"
"$tui" lines --json --top 0 lp.h5.h5 >lp.all.b.json 2>&1 || fail "lines --json of its export"
same_json lp.all.json lp.all.b.json "the line profile: lines --json"
grep -q '"kind":[[:space:]]*"measured"' lp.all.b.json || fail "the export's lines --json has no measured row"
for rank in 0 1; do
    "$tui" lines --json --rank "$rank" lp.h5 >lp.ra.json 2>&1 || fail "lines --json --rank $rank"
    "$tui" lines --json --rank "$rank" lp.h5.h5 >lp.rb.json 2>&1 ||
        fail "lines --json --rank $rank of the export"
    same_json lp.ra.json lp.rb.json "the line profile's rank $rank: lines --json"
    "$tui" lines --rank "$rank" lp.h5 >lp.ra.txt 2>&1
    "$tui" lines --rank "$rank" lp.h5.h5 >lp.rb.txt 2>&1
    cmp -s lp.ra.txt lp.rb.txt || fail "the line profile's rank $rank: the lines texts differ:
$(diff lp.ra.txt lp.rb.txt | head -20)"
done
echo "ok: the line profile's measured lines read back from its export"
# /lines names each row's kind and hits as lines --json does.
"$py" - lp.h5.h5 lp.all.json <<'PY' || fail "/lines differs from lines --json (above)"
import h5py, json, sys
rows = h5py.File(sys.argv[1], "r")["lines"][:]
want = sorted((r["file"], r["line"], r["function"], r["kind"], r["hits"])
              for r in json.load(open(sys.argv[2]))["lines"])
got = sorted((r["file"].decode(), int(r["line"]), r["function"].decode(), r["kind"].decode(),
              int(r["hits"])) for r in rows)
if got != want:
    print("file:", got[:4], "\nlines --json:", want[:4], file=sys.stderr)
    sys.exit(1)
assert any(k == "measured" for _, _, _, k, _ in got)
PY
echo "ok: /lines holds each row's kind and hits"
# An export made before measured lines were exported (no /line_measured, no
# kind or hits in /lines) reads as before: sampled lines only.
cp pipe.h5 old_lines.h5
"$py" - old_lines.h5 <<'PY' || fail "could not make old_lines.h5"
import h5py, sys
import numpy.lib.recfunctions as rf
f = h5py.File(sys.argv[1], "r+")
c = f["lines"][:]
del f["lines"], f["line_measured"]
f["lines"] = rf.drop_fields(c, ["kind", "hits"], usemask=False)
PY
"$tui" lines --json old_lines.h5 >old_lines.json 2>&1 || fail "lines --json of an older export"
same_json pipe.lb.json old_lines.json "an export without measured lines"

# ---- the model part, read with h5py ------------------------------------------------------
"$py" - pipe.h5 pipe.a.json <<'PY' || fail "the model tables differ from report --json (above)"
import h5py, json, math, sys
f = h5py.File(sys.argv[1], "r")
rep = json.load(open(sys.argv[2]))
assert f.attrs["scope_layout"] == b"scope-run" and f.attrs["scope_layout_version"] == 1
roles, phases, hist = f["roles"][:], f["phases"][:], f["phase_histograms"]
dominant, per_proc = f["dominant_phases"][:], f["phase_processes"][:]
assert len(roles) == len(rep["roles"]), (len(roles), len(rep["roles"]))
bad = []
def same(a, b):
    """JSON prints doubles to 15 significant digits; the file keeps them whole."""
    if b is None:
        return isinstance(a, float) and math.isnan(a)
    if isinstance(b, float) or isinstance(a, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)
    return a == b
def flat(tree):
    for p in tree:
        yield p
        yield from flat(p["children"])
for i, (r, jr) in enumerate(zip(roles, rep["roles"])):
    assert r["name"].decode() == jr["name"], (r["name"], jr["name"])
    rows = [k for k in range(len(phases)) if phases["role"][k] == i]
    jphases = list(flat(jr["phases"]))
    assert len(rows) == len(jphases) == r["nphases"], (len(rows), len(jphases), r["nphases"])
    for k, jp in zip(rows, jphases):
        p = phases[k]
        if p["path"].decode() != jp["path"]:
            bad.append(("path", p["path"], jp["path"]))
        for field in ("count", "total_ns", "self_ns", "mean_ns", "p50_ns", "p95_ns", "p99_ns",
                      "share", "wait", "queued", "cpu_count", "open_threads", "depth"):
            if not same(p[field].item(), jp[field]):
                bad.append((jp["path"], field, p[field], jp[field]))
        if p["count"] and (p["min_ns"] != jp["min_ns"] or p["max_ns"] != jp["max_ns"]):
            bad.append((jp["path"], "min/max", p["min_ns"], p["max_ns"]))
        if p["has_histogram"] and int(hist[k].sum()) != p["count"]:
            bad.append((jp["path"], "histogram sums to", int(hist[k].sum()), p["count"]))
        if jp["spread"] is not None:
            for field in ("min_ns", "median_ns", "max_ns"):
                if not same(p["spread_" + field].item(), jp["spread"][field]):
                    bad.append((jp["path"], "spread", field))
        # The per-process totals: one row per process that entered the phase.
        mine = sorted((int(q["process"]), q["total_ns"]) for q in per_proc[per_proc["phase"] == k])
        want = sorted((w, t) for w, t in zip(jr["workers"], jp["per_proc_ns"]) if t is not None)
        if len(mine) != len(want) or any(a[0] != b[0] or not same(a[1], b[1])
                                         for a, b in zip(mine, want)):
            bad.append((jp["path"], "per-process totals", mine[:3], want[:3]))
    dom = dominant[dominant["role"] == i]
    if [phases["path"][d["phase"]].decode() for d in dom] != jr["dominant"]:
        bad.append((jr["name"], "dominant phases"))
    if (jr["iterations"] is None) != (not r["has_iterations"]):
        bad.append((jr["name"], "has_iterations"))
    elif jr["iterations"] is not None:
        for field in ("count", "total_ns", "mean_ns", "p50_ns", "p95_ns", "p99_ns", "min_ns",
                      "max_ns"):
            if not same(r["iterations_" + field].item(), jr["iterations"][field]):
                bad.append((jr["name"], "iterations", field))
assert len(f["caveats"]) == len(rep["caveats"]), (len(f["caveats"]), len(rep["caveats"]))
assert len(f["processes"]) >= rep["run"]["processes"]
for b in bad[:20]:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "ok: /roles and /phases hold the report's figures"

# docs/hdf5.md's snippet, as a user would paste it, on an exported file.
awk '/<!-- h5py-snippet -->/{on=1; next} on && /^```python/{grab=1; next} grab && /^```/{exit} grab' \
    "$doc" >snippet.py
[ -s snippet.py ] || fail "docs/hdf5.md has no h5py snippet"
cp pipe.h5 run.h5
"$py" snippet.py >snippet.out 2>&1 || fail "the snippet of docs/hdf5.md fails: $(cat snippet.out)"
expect_in snippet.out "iteration/train"
expect_in snippet.out "actor"
echo "ok: docs/hdf5.md's snippet runs"

# ---- bad files of the layout ------------------------------------------------------------
# expect_bad FILE PATTERN: report FILE exits 2 with one line on stderr that
# names the file and holds PATTERN, and nothing on stdout.
expect_bad() {
    local file=$1 pattern=$2 rc=0
    "$tui" report "$file" >out 2>err || rc=$?
    if [ "$rc" != 2 ]; then
        fail "$file: exit $rc, wanted 2: $(head -3 err)"
    elif [ -s out ]; then
        fail "$file: printed a report"
    elif [ "$(wc -l <err)" != 1 ]; then
        fail "$file: $(wc -l <err) lines on stderr: $(cat err)"
    elif ! grep -qF -- "$file" err || ! grep -qF -- "$pattern" err; then
        fail "$file: '$(cat err)' lacks the file's name or '$pattern'"
    else
        echo "ok: $file: $(cat err)"
    fi
}

# mutate NAME PYTHON: a copy of gen.h5 as NAME.h5, changed by PYTHON (f is
# the file, open for writing; retype(TABLE, FIELD) rewrites TABLE with FIELD
# as a variable-length string).
mutate() {
    cp gen.h5 "$1.h5"
    "$py" - "$1.h5" "$2" <<'PY' || fail "could not make $1.h5"
import h5py, numpy as np, sys
f = h5py.File(sys.argv[1], "r+")
def retype(table, field):
    c = f[table][:]
    dt = np.dtype([(n, h5py.string_dtype() if n == field else c.dtype[n]) for n in c.dtype.names])
    new = np.zeros(len(c), dtype=dt)
    for n in c.dtype.names:
        new[n] = [str(v).encode() for v in c[n]] if n == field and c.dtype[n].kind != "S" else c[n]
    del f[table]
    f[table] = new
exec(sys.argv[2])
f.close()
PY
}

mutate version 'f.attrs["scope_layout_version"] = np.int64(2)'
expect_bad version.h5 "version 2 of scope's HDF5 layout; this scope reads version 1"
mutate version_text 'f.attrs["scope_layout_version"] = "1"'
expect_bad version_text.h5 "scope_layout_version of / is not an integer"
mutate no_nodes 'del f["phase_nodes"]'
expect_bad no_nodes.h5 "/phase_nodes is missing"
mutate group_nodes 'del f["phase_nodes"]; f.create_group("phase_nodes")'
expect_bad group_nodes.h5 "/phase_nodes is not a dataset"
mutate flat_counters 'del f["counters"]; f["counters"] = np.arange(4)'
expect_bad flat_counters.h5 "/counters is not a table"
# calls as a string, the other fields kept.
mutate string_calls 'retype("counters", "calls")'
expect_bad string_calls.h5 "/counters: field calls is not an integer"
mutate no_field 'c = f["phase_nodes"][:]
import numpy.lib.recfunctions as rf
del f["phase_nodes"]; f["phase_nodes"] = rf.drop_fields(c, "wall_ns", usemask=False)'
expect_bad no_field.h5 "/phase_nodes has no field wall_ns"
mutate far_process 'c = f["counters"][:]; c["process"][0] = 99; f["counters"][...] = c'
expect_bad far_process.h5 "/counters row 0 names process 99; the file has"
mutate bad_end 'p = f["processes"][:]; p["end"][0] = b"gone"; f["processes"][...] = p'
expect_bad bad_end.h5 "end 'gone' is none of exit, signal, killed, unknown"
# Variable-length strings live in HDF5's global heap, whose reader a damaged
# file crashes: refused before anything is read.
mutate vlen_host 'retype("processes", "host")'
expect_bad vlen_host.h5 "/processes: field host is not a fixed-length string"
mutate bad_bucket 'b = f["phase_node_bins"][:]; b["bucket"][0] = 100000; f["phase_node_bins"][...] = b'
expect_bad bad_bucket.h5 "bucket 100000 out of order or past"
mutate no_procs 'p = f["processes"]; p.resize((0,))'
expect_bad no_procs.h5 "/processes holds no processes"
mutate huge 'f["phase_nodes"].resize((1 << 40,))'
expect_bad huge.h5 "/phase_nodes claims 1099511627776 rows"
size=$(stat -c %s gen.h5)
head -c $((size / 2)) gen.h5 >truncated.h5
expect_bad truncated.h5 "not a readable HDF5 file (truncated or damaged)"
# Not ours: another layout is not claimed by this loader.
"$py" -c 'import h5py; h5py.File("other.h5", "w").create_dataset("x", data=[1])'
"$tui" report other.h5 >out 2>err && fail "other.h5: a report of a foreign HDF5 file"
grep -q "scope-run\|scope_layout" err && fail "other.h5: worded as a bad scope file: $(cat err)"

# ---- the export's own failures -----------------------------------------------------------
echo keep >keep.h5
chmod -w . 2>/dev/null
if [ "$(id -u)" != 0 ]; then
    expect_rc 2 "$tui" export gen --format hdf5 -o keep.h5
    [ "$(cat keep.h5)" = keep ] || fail "a failed export replaced OUT"
fi
chmod u+w .
# A full disk: a tmpfs too small for the file.  One line, exit 2, the
# earlier OUT kept and no temporary file left (libhdf5 1.10 once crashed at
# exit after a close that failed).
mkdir small
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
    trap 'umount "$tmp/small" 2>/dev/null; rm -rf "$tmp"' EXIT
    echo keep >small/out.h5
    expect_rc 2 "$tui" export gen --format hdf5 -o small/out.h5
    expect_in_output "small/out.h5: cannot write"
    [ "$(wc -l <err)" = 1 ] || fail "a full disk: $(cat err)"
    [ "$(cat small/out.h5)" = keep ] || fail "a failed export replaced OUT on a full disk"
    [ "$(ls small)" = out.h5 ] || fail "a failed export left $(ls small)"
    umount small
    echo "ok: a full disk"
else
    echo "skipped: a full disk (needs root to mount a small tmpfs)"
fi
expect_rc 2 "$tui" export gen --format hdf5 -o no/such/dir/x.h5
expect_in_output "cannot write"
expect_rc 0 "$tui" export --help
expect_in_output "hdf5"
finish
