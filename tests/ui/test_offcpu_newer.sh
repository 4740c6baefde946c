#!/usr/bin/env bash
# Off-CPU states a newer recorder may write (docs/format.md, OFFCPU_SAMPLES:
# "a state a reader does not know is off a CPU, of an unknown kind"), read
# back through `lines`.  lines_fixture --wall-newer writes, through the log
# writer, the --wall run's 240 blocked and 60 queued samples of each sim
# process's physics phase, and 25 samples of state 7 and 15 of state
# 0xFFFFFFFF (the largest a log can say) besides; two sim processes:
#
#  - --off-cpu --json counts 480 blocked, 120 queued and 80 off of a kind
#    unknown, 680 in all, none on a CPU; every sample (no option) is in one
#    of the four buckets, none called a recorder before 1.10's;
#  - --blocked and --queued leave the unknown states out; --off-cpu keeps
#    them (the folded stacks hold all 680);
#  - the text heading gives the unknown share: 80 of 680, 11.8%;
#  - the Flame view's w shows the 680 and says they include the unknown.
#
# Usage: test_offcpu_newer.sh SCOPE_TUI LINES_FIXTURE SOURCE_DIR
set -euo pipefail
tui=$1
fixture=$2
src=$3
. "$src/../e2e/lib.sh"

"$fixture" run --wall-newer || fail "lines_fixture --wall-newer: exit $?"

for set in all off-cpu blocked queued; do
    opt=--$set
    [ "$set" = all ] && opt=
    expect_rc 0 "$tui" lines $opt --json --top 0 run
    cp out "$set.json"
done
python3 - <<'PY' || fail "off-CPU buckets (see above)"
import json, sys
bad = []
def want(name, got, expected):
    if got != expected:
        bad.append(f"{name}: {got}, wanted {expected}")
for sel, on, blocked, queued, unknown in [("off-cpu", 0, 480, 120, 80),
                                          ("blocked", 0, 480, 0, 0),
                                          ("queued", 0, 0, 120, 0)]:
    d = json.load(open(f"{sel}.json"))
    st = d["samples_by_state"]
    want(f"{sel} on_cpu", st["on_cpu"], on)
    want(f"{sel} blocked", st["blocked"], blocked)
    want(f"{sel} queued", st["queued"], queued)
    want(f"{sel} off_unknown", st["off_unknown"], unknown)
    want(f"{sel} samples", d["samples"], on + blocked + queued + unknown)
d = json.load(open("all.json"))
st = d["samples_by_state"]
want("all: samples in the four buckets", sum(st.values()), d["samples"])
want("all off_unknown", st["off_unknown"], 80)
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

expect_rc 0 "$tui" lines --off-cpu run
expect_in_output "off of a kind this reader does not know 11.8% (a newer recorder's)"
expect_in_output "off it in 100.0%: blocked 70.6%, queued for a CPU 17.6%"
expect_rc 0 "$tui" lines run
if grep -q "before log format 1.10" output; then
    fail "samples of states a newer recorder wrote called an older recorder's: $(cat output)"
fi
expect_rc 0 "$tui" lines --folded --off-cpu run
folded=$(awk '{ n += $NF } END { print n }' out)
[ "$folded" = 680 ] || fail "--folded --off-cpu holds $folded samples, wanted 680: $(cat out)"
# The Flame view's w: the off-CPU set, all 680, and what it holds.
expect_rc 0 env LC_ALL=C.UTF-8 XDG_CONFIG_HOME="$tmp/config" "$tui" run --size 120x30 --keys Fw --print
expect_in_output "680 samples"
expect_in_output "off-CPU samples: where the threads waited, blocked, queued or of a kind this reader does not know"
finish
