#!/usr/bin/env bash
# The first screen of a `scope-tui record` run, a run without phases: the
# browser opens on Lines, roles come by their line samples, hottest first,
# (not by name), the order said; `report` prints each role's hottest lines
# instead of empty phase blocks and points at `lines`.  Then attempts: a
# second record into the same directory keeps the first, reachable by
# --attempt and the Overview's A.  Then the sample count: the default rate
# gives a short run a useful count, measured against the program's own CPU
# clock, and too few samples are said to be too few.
#
# Usage: test_record_first_screen.sh SCOPE_TUI PROGS_DIR SOURCE_DIR
set -euo pipefail
tui=$1
progs=$2
src=$3
. "$src/../e2e/lib.sh"

asan_first "$tui"

# Roles named against their cost: aa_light does nothing, zz_heavy computes.
cp /bin/true aa_light
cp "$progs/lines_known_plain" zz_heavy
expect_rc 0 "$tui" record -o run -- sh -c './aa_light; ./zz_heavy x --units 1 >/dev/null'

# The order, from the JSON: by line samples, most first; zz_heavy first.
expect_rc 0 "$tui" report --json run
python3 - <<'PY' || fail "roles not by line samples: $(head -c 600 out)"
import json
d = json.load(open("out"))
names = [r["name"] for r in d["roles"]]
print("roles:", names)
assert names[0] == "zz_heavy", names
assert d["role_order"] == "line_samples", d.get("role_order")
PY

# The browser opens on Lines, zz_heavy's row first, the order said.
expect_rc 0 "$tui" run --print --size 120x30
expect_in_output "role / line"
expect_in_output "roles by samples"
first=$(grep -m1 -E '^[> ][A-Z_]+ x[0-9]' out || true)
case $first in *ZZ_HEAVY*) ;; *) fail "first role row is not ZZ_HEAVY: '$first'" ;; esac
# --view still opens where it says.
expect_rc 0 "$tui" run --view phases --print --size 120x30
grep -q "role / line" out && fail "--view phases opened on Lines"
expect_in_output "no phases recorded: roles by line samples, most first"
expect_rc 0 "$tui" run --view overview --print --size 120x30
expect_in_output "roles by line samples, most first"

# report: hot lines per role, no empty phase blocks, a pointer at lines.
expect_rc 0 "$tui" report run
grep -qF "no phase recorded" out && fail "report prints empty phase blocks: $(head -20 out)"
expect_in_output "(by line samples, most first)"
expect_in_output "kernel_three"
expect_in_output "Every line, by function: scope-tui lines run"
[ "$(grep -m1 -E '^(ZZ_HEAVY|SH|AA_LIGHT) ' out | cut -d' ' -f1)" = ZZ_HEAVY ] ||
    fail "report's first role block is not ZZ_HEAVY: $(grep -E '^(ZZ_HEAVY|SH|AA_LIGHT) ' out)"

# A second record into the same directory: the first run is kept as
# attempt 1, the second shown by default, each reachable.
expect_rc 0 "$tui" record -o run -- ./aa_light
expect_in_output "already held 1 earlier attempt, kept; this run is attempt 2"
expect_rc 0 "$tui" lines run
expect_in_output "Attempt 2 of 2 shown (the newest"
expect_rc 0 "$tui" lines --attempt 1 run
expect_in_output "Attempt 1 of 2 shown (chosen"
expect_in_output "kernel_three"
expect_rc 0 "$tui" report --attempt 1 run
expect_in_output "attempt 1 of 2 is shown, as chosen"
expect_rc 0 "$tui" export run --attempt 1 --format json -o a1.json
python3 -c 'import json; d = json.load(open("a1.json")); assert d["roles"][0]["name"] == "zz_heavy", d["roles"]' ||
    fail "export --attempt 1 is not the first run"
expect_rc 2 "$tui" lines --attempt 3 run
expect_in_output "no attempt 3: the run holds 2"
# compare and check take an attempt of each side: the directory's first
# attempt against its newest.
expect_rc 0 "$tui" compare run run --attempt-a 1 --no-lines --width 120
expect_in_output "aa_light 1 → 1, sh vanished (1 process), zz_heavy vanished (1 process)"
expect_rc 2 "$tui" compare run run --attempt-b 3 --no-lines
expect_in_output "no attempt 3: the run holds 2"
expect_rc 0 "$tui" check run run --base-attempt 1 --attempt 1
expect_rc 2 "$tui" check run run --base-attempt 3
expect_in_output "no attempt 3: the run holds 2"
expect_rc 2 "$tui" report --attempt 0 run
# The browser: --attempt, and A in the Overview steps to the older one.
expect_rc 0 "$tui" run --attempt 1 --view overview --print --size 120x30
expect_in_output "(older: the one shown, chosen)"
expect_rc 0 "$tui" run --view overview --keys A --print --size 120x30
expect_in_output "(older: the one shown, chosen)"
expect_in_output "attempt 1 of 2 shown"

# Enough samples: a short shell loop (a few tenths of a second of CPU, as
# its own `times` says) gets at least 200 samples at the default rate, and
# half of what its CPU time at 997 a second gives.  (How many independent
# looks they hold depends on the kernel's tick: the caveat judges that.)
loop='i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done; times'
expect_rc 0 "$tui" record -o short -- sh -c "$loop"
cpu=$(awk 'NR == 1 { sub("m", " ", $1); sub("s", "", $1); split($1, a, " "); print a[1] * 60 + a[2]; exit }' out)
expect_rc 0 "$tui" lines --json short
python3 - "$cpu" <<'PY' || fail "a short run got too few samples: $(head -c 300 out)"
import json, sys
cpu = float(sys.argv[1])
n = json.load(open("out"))["samples"]
print(f"{n} samples for {cpu:.3f} s of the shell's own CPU time")
assert n >= 200, n
assert n >= 0.5 * cpu * 997, (n, cpu)
PY
# Each share's +- rests on the signals that brought the samples, as the
# log says them (a signal above the kernel's tick carries several periods),
# not on the periods counted: sqrt(p (1 - p) / signals), within 1 %.
signals=0
for log in short/workers/*/*.scope; do
    n=$("$tui" dump "$log" | awk '/^  LINES/ { s = 0; for (i = 1; i < NF; i++) if ($i == "signals") s = $(i + 1) } END { print s + 0 }')
    signals=$((signals + n))
done
python3 - "$signals" <<'PY' || fail "the +- does not rest on the $signals signals: $(head -c 400 out)"
import json, math, sys
signals = int(sys.argv[1])
d = json.load(open("out"))
assert signals > 0, "the log says no signals"
for r in d["lines"][:5]:
    want = math.sqrt(r["share"] * (1 - r["share"]) / signals)
    assert abs(r["share_sd"] - want) <= 0.01 * want, (r["share_sd"], want, signals)
print(f"{d['samples']} samples from {signals} signals; +- of the top row {d['lines'][0]['share_sd']:.4f}")
PY

# Too few: the same loop at 20 a second (under 100 samples for anything
# under 5 s of CPU; at the old default of 99, 0.4 s gave some 40).
expect_rc 0 "$tui" record --hz 20 -o few -- sh -c "$loop"
expect_in_output "too few for the shares shown"
expect_rc 0 "$tui" lines few
expect_in_output "line samples: too few for the shares shown"
expect_in_output "raise the rate (scope-tui record --hz N, or SCOPE_LINES_HZ=N; now 20 Hz)"
expect_rc 0 "$tui" few --print --size 200x30
expect_in_output "too few: a 50% share is +-"

finish
