#!/usr/bin/env bash
# End to end: `scope-tui compare` and `scope-tui check` on runs of a small
# instrumented program (cmp_workload.c): a baseline, a rerun of the same
# work, a run whose "compute" phase sleeps twice as long, a run with a
# phase the others lack, and a run of half the iterations whose "compute"
# sleeps twice as long (the same total, twice the mean).
#
# Verdicts that rest on the time of those sleeps (what got slower, by how
# much, what passes a threshold) are judged on the five runs as recorded
# once (tests/fixtures/compare-runs, README.md there): recorded live on a
# loaded machine the sleeps stretch by whatever the scheduler adds, and the
# verdict would be the machine's.  The same five shapes are recorded live
# here too, on whatever machine this is, and asked only what holds whatever
# its load: entry counts, phases on one side only, layout, JSON, refusals.
# usage: test_compare_check.sh SCOPE_TUI CMP_WORKLOAD
set -euo pipefail
scope_tui=$1
workload=$2
recorded=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures/compare-runs" && pwd)
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

expect_not_in() { # FILE EXTENDED_REGEX
    if grep -qE -- "$2" "$1"; then
        fail "$1 has '$2':
$(grep -E -- "$2" "$1" | head -5)"
    fi
}

# A bad input: exit 2, nothing on stdout, one line on stderr with the prefix.
expect_bad() { # PREFIX CMD...
    local prefix=$1
    shift
    expect_rc 2 "$@"
    [ ! -s out ] || fail "'$*' wrote to stdout: $(head -3 out)"
    [ "$(wc -l <err)" = 1 ] || fail "'$*' wrote $(wc -l <err) lines to stderr, wanted 1:
$(cat err)"
    expect_in err "$prefix"
}

# The five runs, live.
"$workload" base 1
"$workload" rerun 1
"$workload" slow 2
"$workload" extra 1 extra
"$workload" half 2 half

# The first table row under the header of the first role.
first_row() { awk '/^phase / { getline; print $1; exit }' out; }

# ---- live runs: what holds on any machine ----------------------------------

# A run against itself: every change is exactly zero.
expect_rc 0 "$scope_tui" compare --width 200 base base
expect_in out "compute"
expect_in out "+ items"
expect_in out "0.0%"
# The interval column is the noise of the mean, symmetric about 0 here (a
# run against itself); every change is 0.
grep -qE '^compute .* -[0-9.]+%\.\.\+[0-9.]+% ' out || fail "no interval about 0: $(cat out)"
sed -E 's/ [+-][0-9.]+%\.\.[+-][0-9.]+% / /' out >out.changes
expect_not_in out.changes '[+-][0-9]+\.[0-9]%|only in|new|gone|n/a'

# Half the entries: the table says that the entry counts differ, and names
# the first such row (which one is first, by impact, is the sleeps'); a
# rerun of the same work has the same counts.
expect_rc 0 "$scope_tui" compare --width 200 base half
grep -E '^phase ' out | grep -qE 'change +mean ' || fail "no mean column: $(grep -E '^phase ' out)"
expect_in out "Entry counts differ in 4 phases"
grep -qE '\((prepare|prepare/load|compute|write): 12 (→|->) 6 entries\)' out ||
    fail "the entry counts not named: $(cat out)"
expect_rc 0 "$scope_tui" compare --width 200 base rerun
expect_not_in out "Entry counts differ"

# Narrow terminals keep the essential columns and say what was left out.
expect_rc 0 "$scope_tui" compare --width 60 base slow
expect_in out "left out for width"
widest=$(LC_ALL=C.UTF-8 wc -L <out)
[ "$widest" -le 60 ] || fail "compare --width 60 wrote a line $widest columns wide"

# A phase in one run only is marked on the side it is on.
expect_rc 0 "$scope_tui" compare --width 200 base extra
grep -E '^cleanup ' out | grep -qF "only in B" || fail "cleanup not marked 'only in B': $(cat out)"
expect_rc 0 "$scope_tui" compare --width 200 extra base
grep -E '^cleanup ' out | grep -qF "only in A" || fail "cleanup not marked 'only in A': $(cat out)"

# JSON: parseable, with the schema and nulls for what one side lacks.
expect_rc 0 "$scope_tui" compare --json base extra
expect_in out '"schema":	"scope-compare/1"'
python3 - out <<'PY' || fail "compare --json: $(head -c 400 out)"
import json, sys
doc = json.load(open(sys.argv[1]))
phases = {p["path"]: p for p in doc["roles"][0]["phases"]}
c = phases["cleanup"]
assert c["side"] == "only_in_b", c["side"]
assert c["total_ns"]["a"] is None and c["total_ns"]["change"] is None
assert c["total_ns"]["b"] > 0 and c["impact_ns"] == c["total_ns"]["b"]
assert phases["compute"]["side"] == "both"
PY
expect_rc 0 "$scope_tui" report --json base
expect_in out '"schema":	"scope-report/1"'
python3 - out <<'PY' || fail "report --json: $(head -c 400 out)"
import json, sys
doc = json.load(open(sys.argv[1]))
role = doc["roles"][0]
assert role["name"] == "worker", role["name"]
top = {p["name"]: p for p in role["phases"]}
assert top["compute"]["count"] == 12, top["compute"]["count"]
assert top["compute"]["counters"][0]["total"] == 12 * 64
assert [k["name"] for k in top["prepare"]["children"]] == ["load"]
assert top["prepare"]["children"][0]["path"] == "prepare/load"
assert top["compute"]["io"] is None  # not measured: null, never 0
assert doc["workers"][0]["end"] == "exit"
PY

# check: a run against itself passes; a phase that disappeared fails only
# when it was named (and only it is watched then).
expect_rc 0 "$scope_tui" check base base
expect_in out "0 of 4 watched phases failed"
expect_rc 0 "$scope_tui" check --json base base
expect_rc 1 "$scope_tui" check extra base --phase cleanup --max-regression 50
expect_in out "GONE: cleanup (role worker) disappeared"
expect_rc 0 "$scope_tui" check base extra --phase cleanup
expect_in out "only in the candidate"

# ---- recorded runs: verdicts on the time of the sleeps ---------------------

cp -r "$recorded" recorded
cd recorded

# One phase slowed: it moves to the top and shows the change.
expect_rc 0 "$scope_tui" compare --width 200 base slow
[ "$(first_row)" = compute ] || fail "compare base slow: first row is '$(first_row)', wanted compute:
$(cat out)"
grep -E '^compute ' out | grep -qE '\+(9[0-9]|1[01][0-9])\.[0-9]%' ||
    fail "compute did not change by about +100%: $(grep -E '^compute ' out)"

# Half the entries, each twice as long: the total barely moves, the mean per
# entry doubles.
expect_rc 0 "$scope_tui" compare --width 200 base half
compute_mean=$(awk '$1 == "compute" { print $5 }' out)
echo "$compute_mean" | grep -qE '^\+(9[0-9]|1[01][0-9])\.[0-9]%$' ||
    fail "compute's mean did not rise by about +100%: $(grep -E '^compute ' out)"
expect_in out "Entry counts differ in 4 phases"
grep -qE '\(prepare: 12 (→|->) 6 entries\)' out || fail "the entry counts not named: $(cat out)"

# check.  A rerun of the same work passes a loose threshold (sleeps jitter
# a little).
expect_rc 0 "$scope_tui" check --max-regression 50 base rerun

# The slowed phase fails the check and is named with its figures.
expect_rc 1 "$scope_tui" check base slow --max-regression 20
expect_in out "REGRESSED: compute (role worker): mean"
expect_in out "limit +20.0%"
grep -E '^worker +compute ' out | grep -qF REGRESSED || fail "compute row not REGRESSED: $(cat out)"

# --json for CI: the same verdicts and exit status, parsed.
expect_rc 0 "$scope_tui" check --json --max-regression 50 base rerun
python3 - out <<'PY' || fail "check --json on a passing pair: $(head -c 400 out)"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "scope-check/1", doc["schema"]
assert doc["passed"] is True and doc["failed"] == 0 and doc["watched"] == 4, doc
assert doc["metric"] == "mean" and doc["max_regression"] == 0.5
assert all(p["verdict"] == "OK" and p["failed"] is False for p in doc["phases"])
PY
expect_rc 1 "$scope_tui" check --json base half
python3 - out <<'PY' || fail "check --json on a failing pair: $(head -c 400 out)"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["passed"] is False and doc["failed"] >= 1, doc
rows = {p["path"]: p for p in doc["phases"]}
c = rows["compute"]
assert c["role"] == "worker" and c["verdict"] == "REGRESSED" and c["failed"] is True, c
assert 0.9 < c["metric"]["change"] < 1.2, c["metric"]
assert c["metric"]["b"] > c["metric"]["a"] > 0
PY

# Watching other phases only: it passes.
expect_rc 0 "$scope_tui" check base slow --phase prepare --phase write --max-regression 50
expect_not_in out "compute"
# A bare name matches at any depth; a full path matches exactly.
expect_rc 0 "$scope_tui" check base slow --phase load --max-regression 50
expect_in out "prepare/load"
expect_rc 1 "$scope_tui" check base slow --role worker --metric total --phase compute

# A phase that disappeared, not named: a note, and the rest passes.
expect_rc 0 "$scope_tui" check extra base --max-regression 50
expect_in out "note: cleanup (role worker) is not in the candidate"

# The noise.  Each change has its interval and the one-sided bound the
# verdict tests; --threshold is --max-regression.
expect_rc 1 "$scope_tui" check --threshold 20 base slow
grep -E '^worker +compute ' out | grep -qE ' \+[0-9.]+%\.\.\+[0-9.]+% +\+[0-9.]+% +REGRESSED$' ||
    fail "compute's interval and bound not shown: $(cat out)"
# One base run does not measure the run-to-run noise: the bound is the
# interval's lower end, one-sided 97.5%.
expect_in out "limit +20.0%; at least +"
expect_in out "% at 97.5% one-sided, 95% interval +"
# Several base runs: the base is their mean, their spread the run-to-run
# noise.  base and rerun agree, so slow's compute is beyond it; with half
# among them (its compute entries take twice as long) the base runs disagree
# by more than the growth, which is then NOISE: noted, not a failure.
expect_rc 1 "$scope_tui" check --json base rerun slow
python3 - out <<'PY' || fail "check with 2 base runs: $(head -c 600 out)"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["base_runs"] == 2 and doc["confidence"] == 0.95, doc
c = next(p for p in doc["phases"] if p["path"] == "compute")["metric"]
assert c["change_low"] > 0.5 and c["change_high"] < 1.5 and c["significant"] is True, c
# Two base runs measured the run-to-run noise: the bound is one-sided at the
# stated confidence, inside the two-sided interval, below the change.
assert c["at_least_confidence"] == 0.95, c
assert c["change_low"] < c["change_at_least"] < c["change"], c
PY
expect_rc 0 "$scope_tui" check --json base rerun half slow
python3 - out <<'PY' || fail "check with 3 disagreeing base runs: $(head -c 600 out)"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["base_runs"] == 3 and doc["passed"] is True, doc
p = next(p for p in doc["phases"] if p["path"] == "compute")
m = p["metric"]
assert p["verdict"] == "NOISE" and p["failed"] is False, p
assert m["noise_a"] == "runs" and m["noise_b"] == "runs", m
assert m["change"] > 0.1 and m["change_low"] <= 0.1, m
PY
expect_rc 0 "$scope_tui" check base rerun half slow
grep -qE '^note: compute \(role worker\): mean \+[0-9.]+% is past the limit \+10\.0% but within the noise' out ||
    fail "no NOISE note: $(cat out)"
expect_in out "the base figures are the mean of 3 runs"
cd ..

# A directory of runs is its runs, in name order; a link in it is not
# followed; one with no run in it is refused.
mkdir bases empty
cp -r base rerun bases/
ln -s ../slow bases/zz-link
expect_rc 0 "$scope_tui" check --json --threshold 1000 bases/ rerun
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["base_runs"] == 2, d["base_runs"]' out ||
    fail "bases/ did not read as 2 runs: $(head -c 300 out)"
expect_bad "scope-tui check: " "$scope_tui" check empty rerun
expect_bad "scope-tui check: " "$scope_tui" check --confidence 20 base rerun
expect_bad "scope-tui compare: " "$scope_tui" compare --confidence 100 base rerun

# Bad inputs: exit 2 and one line on stderr.
: >a-file
expect_bad "scope-tui compare: " "$scope_tui" compare base does-not-exist
expect_bad "scope-tui compare: " "$scope_tui" compare a-file base
expect_bad "scope-tui compare: " "$scope_tui" compare base
expect_bad "scope-tui compare: " "$scope_tui" compare --bogus base base
expect_bad "scope-tui compare: " "$scope_tui" compare --width 5 base base
expect_bad "scope-tui check: " "$scope_tui" check does-not-exist base
expect_bad "scope-tui check: " "$scope_tui" check base a-file
expect_bad "scope-tui check: " "$scope_tui" check base slow --phase no_such_phase
expect_bad "scope-tui check: " "$scope_tui" check base slow --role no_such_role
expect_bad "scope-tui check: " "$scope_tui" check base slow --metric median
expect_bad "scope-tui check: " "$scope_tui" check base slow --max-regression ten
expect_bad "scope-tui check: " "$scope_tui" check base slow --phase
expect_rc 0 "$scope_tui" compare --help
expect_in out "usage: scope-tui compare"
expect_rc 0 "$scope_tui" check --help
expect_in out "usage: scope-tui check"

finish
echo "compare/check end-to-end: all checks passed"
