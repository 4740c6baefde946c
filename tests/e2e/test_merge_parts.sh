#!/usr/bin/env bash
# Partial models merged by the model's own code (run_merge_parts,
# docs/reduce.md "A bounded SUMMARY"): a run read in N parts as reduce cuts
# it, each part merged on its own, the N models merged into one, whose
# report --json must be the whole run's byte for byte (run.dir aside): at 1
# to 5 parts of 6 host folders (cuts between hosts, then between logs), with
# a damaged log and a file that is no log among them, and on a run of two
# roles whose ranks interleave across the parts' cuts.
#
# Usage: test_merge_parts.sh SCOPE_TUI GEN_RUN MERGE_PARTS
set -uo pipefail
tui=$(realpath "$1")
gen_run=$(realpath "$2")
merge=$(realpath "$3")
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE SCOPE_LINES
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$gen_run" --out run --procs 24 --hours 0.005 --hosts 6 --resources --trace >gen.out 2>&1 ||
    { echo "FAIL: scope_gen_run: $(tail -3 gen.out)" >&2; exit 1; }
"$gen_run" --out mixed --procs 30 --hours 0.005 --hosts 5 --roles actor:10,learner:1,actor:19 \
    --seed 7 >gen.out 2>&1 || { echo "FAIL: scope_gen_run: $(tail -3 gen.out)" >&2; exit 1; }
# The first host's folder renamed to sort last: its ranks, first in each
# role's order, are read by the last part, so the parts' processes
# interleave in the merged roles.
mv mixed/workers/node01 mixed/workers/node99
mapfile -t logs < <(find run/workers -name '*.scope' | sort)
# A log damaged in the middle: 64 bytes of 0xff, the rest intact.
damaged=${logs[9]}
size=$(stat -c %s "$damaged")
head -c 64 /dev/zero | tr '\0' '\377' |
    dd of="$damaged" bs=1 seek=$((size / 2)) conv=notrunc status=none
head -c 300 /dev/urandom >"$(dirname "${logs[14]}")/w_not_a_log.scope"

for r in run mixed; do
    "$tui" report --json "$r" 2>report.err | jq 'del(.run.dir)' >"$r.json" ||
        fail "report --json $r: $(cat report.err)"
done
jq -e '[.caveats[] | select(.kind == "damaged")] | length >= 1' run.json >/dev/null ||
    fail "the run's report has no damaged caveat"

for r in run mixed; do
    for n in 1 2 3 4 5; do
        "$merge" "$r" "$n" "$r-$n.raw" 2>merge.err || { fail "$r in $n parts: $(cat merge.err)"; continue; }
        jq 'del(.run.dir)' "$r-$n.raw" >"$r-$n.json"
        cmp -s "$r.json" "$r-$n.json" || fail "$r in $n parts: report --json differs from the run's:
$(diff "$r.json" "$r-$n.json" | head -20)"
    done
done
ok "partial models merged: report --json equal to the whole run's at 1 to 5 parts"
finish
