#!/usr/bin/env bash
# The recorder's memory stays bounded in a program that runs for weeks
# (progs/rt_churn.c): 10,000 short threads, a few at a time, and a million
# phase names that never repeat.  Figures are read back through the report
# a user runs.
#
#   threads  10,000 threads each entering "request" { "handle" }: peak
#            resident memory at most 64 MiB (2 MiB without the recorder),
#            and every entry in the report.
#   names    distinct names past the recorder's limit go into one "(other)"
#            row: peak memory for a million names no more than a quarter
#            above what the limit's worth of names costs; with a lower limit
#            (SCOPE_NAMES_MAX), the report's "(other)" row holds the entries
#            of the names past it and a caveat says how many names it folded.
#
# Usage: test_memory.sh PROGS_DIR SCOPE_TUI
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
progs=$1
tui=$2
# shellcheck source=tests/e2e/lib.sh
source "$here/../e2e/lib.sh"
export LC_ALL=C.UTF-8
unset SCOPE_RUN_ID SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_ROLE

# vmhwm RUN MODE N [ENV...]: rt_churn's peak resident memory, in KiB.
vmhwm() {
    local run=$1 mode=$2 n=$3
    shift 3
    env "$@" "$progs/rt_churn" "$mode" "$n" "$run" >churn.out 2>churn.err ||
        fail "rt_churn $mode $n exited $?: $(cat churn.err)"
    sed -n 's/^vmhwm_kb=//p' churn.out
}

# A sanitizer's runtime holds memory of its own (shadow, quarantine, stacks
# kept for reports): there the figures say nothing, and only what the
# report holds is checked, on fewer threads.
sanitized=0
if ldd "$progs/rt_churn" | grep -Eq 'lib(a|t)san'; then
    sanitized=1
    echo "note: a sanitizer build: memory figures are not checked"
fi

# ---- threads ------------------------------------------------------------------

threads=10000
((sanitized)) && threads=1000
kb=$(vmhwm threads threads $threads)
off=$(vmhwm off-threads threads $threads SCOPE_PROFILE=0)
echo "threads: $threads short threads, peak $kb KiB recorded, $off KiB without"
((sanitized)) || { [ -n "$kb" ] && [ "$kb" -le 65536 ]; } ||
    fail "$threads short threads took $kb KiB at the peak, over 64 MiB ($off KiB without the recorder)"
expect_rc 0 "$tui" report threads --json
python3 - out "$threads" <<'PY' || fail "report --json of the threads: $(head -c 600 out)"
import json, sys
doc = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
def walk(ps):
    for p in ps:
        yield p
        yield from walk(p["children"])
phases = {p["path"]: p for r in doc["roles"] for p in walk(r["phases"])}
assert phases["request"]["count"] == n, phases["request"]
assert phases["request/handle"]["count"] == n, phases["request/handle"]
# Nothing lost or out of place (a report that starts at a snapshot may say
# its resource series are approximate: not about this).
assert [c for c in doc["caveats"] if c["kind"] != "resources"] == [], doc["caveats"]
PY

# ---- names ----------------------------------------------------------------------

# The default limit: memory stops growing once it is reached.
if ((!sanitized)); then
    at_limit=$(vmhwm at-limit names 70000)
    million=$(vmhwm million names 1000000)
    echo "names: peak $at_limit KiB for 70,000 names, $million KiB for 1,000,000"
    [ -n "$million" ] && [ "$million" -le $((at_limit + at_limit / 4)) ] ||
        fail "a million names took $million KiB at the peak, 70,000 took $at_limit KiB: still growing"
    [ -n "$million" ] && [ "$million" -le 131072 ] || fail "a million names took $million KiB, over 128 MiB"
fi

# A lower limit, so that the report of every name is quick to read.
names=5000
limit=1000
kb=$(vmhwm folded names $names SCOPE_NAMES_MAX=$limit)
expect_rc 0 "$tui" report folded --json
python3 - out "$names" <<'PY' || fail "report --json of the folded names: $(head -c 600 out)"
import json, re, sys
doc = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
phases = {p["path"]: p for r in doc["roles"] for p in r["phases"]}  # all top-level
named = [p for p in phases if p.startswith("name-")]
other = phases["(other)"]["count"]
# Every entry is somewhere, once: under its name or under (other).
assert sum(phases[p]["count"] for p in named) + other == n, (len(named), other)
assert 0 < len(named) < n and other == n - len(named), (len(named), other)
texts = [c["text"] for c in doc["caveats"] if "(other)" in c["text"]]
assert len(texts) == 1, doc["caveats"]
m = re.search(r"([0-9][0-9,]*) (?:distinct )?(?:phase and counter )?names", texts[0])
folded = int(m.group(1).replace(",", ""))
# An estimate: within 2% of the names that went there.
assert abs(folded - other) <= other // 50 + 1, (folded, other, texts[0])
PY
expect_rc 0 "$tui" report folded
expect_in out "(other)"
expect_in out "names past"

finish
