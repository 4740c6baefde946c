#!/usr/bin/env bash
# The Diff view (scope-tui A B) on two real recorded runs with a known
# slowdown, read back from the screen, headless:
#
#  - cmp_workload.c sleeps 6 ms in "compute" per iteration, 12 ms with SLOW
#    2, and the same in every other phase.  On its runs recorded once
#    (tests/fixtures/compare-runs, whose means are the sleeps within 10%):
#    compute's row, and only its row, carries the '*' of a change beyond
#    the noise, with a + sign, the change and interval `compare --json`
#    gives (one code path); s puts it first (sorted by |change|).  The same
#    in the C locale (ASCII only), with NO_COLOR set.
#  - The same program's runs recorded now, whatever the load did to them:
#    every phase's change on the screen is compare's, '*' exactly where
#    compare's JSON says "significant".
#  - cmp_lines_workload.c's kernels sampled for real: kernel_a's share falls
#    from 2/3 to 2/5, kernel_b's rises from 1/3 to 3/5; the Lines part of
#    the view shows the signs and marks, and the shares compare --json gives.
#  - The line under the table gives check's verdict on the selected phase:
#    REGRESSED for compute, as `check base slow` says, and OK for write.
#  - b: the other views show run A (its run id in the header), b again B.
#  - P saves the screen as shown; a run directory named with an escape
#    sequence is shown escaped, never sent to the terminal.
# usage: test_diff.sh SCOPE_TUI CMP_WORKLOAD CMP_LINES_WORKLOAD
set -euo pipefail
tui=$1
workload=$2
lines_workload=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
export LC_ALL=C.UTF-8 XDG_CONFIG_HOME="$tmp/config" SCOPE_QUIET=1
unset SCOPE_THEME NO_COLOR VISUAL EDITOR || true

# A row of the screen by its name (the tree's mark dropped): the cells after it.
row() { # SCREEN NAME
    awk -v n="$2" '{ sub(/^>/, " "); sub(/^ *(▾|▸|-|\+) /, " ") } $1 == n { $1 = ""; print; exit }' "$1"
}

# change TEXT: a fraction as fmt_change prints it.
change_text() { python3 -c "import sys; p = float(sys.argv[1]) * 100; print('0.0%' if abs(p) < 0.05 else '%+.1f%%' % p)" "$1"; }

# ---- the runs ------------------------------------------------------------------------
# base and slow: tests/fixtures/compare-runs, cmp_workload recorded once by
# the real recorder (its README: a sleep recorded live on a loaded machine
# stretches by whatever the scheduler adds, so a verdict on live runs would
# judge the machine).  Each verdict below has one right answer on them.
cp -r "$here/../fixtures/compare-runs/base" "$here/../fixtures/compare-runs/slow" .
expect_rc 0 "$tui" compare --json base slow
cp out cmp.json
read -r a_ms b_ms change lo < <(python3 - <<'PY'
import json
d = json.load(open("cmp.json"))
p = next(p for p in d["roles"][0]["phases"] if p["path"] == "compute")
m = p["mean_ns"]
print(m["a"] / 1e6, m["b"] / 1e6, m["change"], m["change_low"])
PY
) || fail "compare --json has no compute mean: $(head -c 1500 cmp.json)"
# The truth the verdicts rest on, from the program's own sleeps: 6 ms an
# entry in base, 12 in slow, what the recorder measured within 10%.
python3 -c "
a, b = $a_ms, $b_ms
assert 6 <= a < 6.6 and 12 <= b < 13.2, (a, b)
" || fail "compute's mean per entry: A $a_ms ms, B $b_ms ms, not the program's 6 and 12 ms sleeps"

for mode in utf8 ascii; do
    loc=C.UTF-8 nc=
    [ "$mode" = ascii ] && loc=C nc=1
    LC_ALL=$loc NO_COLOR=$nc "$tui" base slow --size 100x24 --print >"$mode.txt" 2>err ||
        fail "$mode: scope-tui base slow exited $?: $(cat err)"
    compute=$(row "$mode.txt" compute)
    [ -n "$compute" ] || fail "$mode: no compute row: $(cat "$mode.txt")"
    want=$(change_text "$change")
    [[ "$compute" == *" $want * "* ]] ||
        fail "$mode: compute reads '$compute', not the change $want marked '*'"
    want_lo=$(change_text "$lo")
    [[ "$compute" == *"$want_lo.."* ]] || fail "$mode: compute's interval is not from $want_lo: '$compute'"
    for other in prepare load write; do
        r=$(row "$mode.txt" "$other")
        [ -n "$r" ] || fail "$mode: no $other row"
        [[ "$r" != *" * "* && "$r" != *" *" ]] || fail "$mode: $other is marked beyond the noise: '$r'"
    done
    if [ "$mode" = ascii ]; then
        LC_ALL=C grep -q '[^ -~]' ascii.txt && fail "ascii: bytes beyond ASCII on the screen: $(LC_ALL=C grep -n '[^ -~]' ascii.txt | head -3)"
        expect_in ascii.txt "A base -> B slow"
    fi
    # s: sorted by |change|, compute first.
    LC_ALL=$loc "$tui" base slow --size 100x24 --keys s --print >sorted.txt 2>err || fail "s: $(cat err)"
    first=$(sed -n 6p sorted.txt | awk '{ sub(/^>/, " ") } { print $1 }')
    [ "$first" = compute ] || fail "$mode: sorted by |change|, the first phase is '$first': $(head -8 sorted.txt)"
done

# ---- compare without a terminal keeps printing its table ---------------------------------
expect_rc 0 "$tui" compare base slow
expect_in out "Rows by impact"
grep -q $'\e' out && fail "compare piped wrote escape sequences: the browser, not the table?"

# ---- check's verdict on the selected phase: what `check base slow` says ---------------
expect_rc 1 "$tui" check base slow
expect_in out "REGRESSED: compute (role worker)"
write_verdict=$(awk '$1 == "worker" && $2 == "write" { print $NF }' out)
compute_least=$(awk '$1 == "worker" && $2 == "compute" { print $(NF - 1) }' out)
[ "$write_verdict" = OK ] || fail "check base slow: write is '$write_verdict', not OK: $(cat out)"
"$tui" base slow --size 100x24 --keys '/compute<Enter>' --print >sel.txt
# The bound check's verdict tested, as check printed it.
expect_in sel.txt "check: REGRESSED, mean $(change_text "$change"): past +10.0%, at least $compute_least beyond the noise"
"$tui" base slow --size 100x24 --keys '/write<Enter>' --print >sel.txt
expect_in sel.txt "check: $write_verdict, mean"

# ---- b: the other views show A, then B again -----------------------------------
run_id() { sed -n '1s/.*  run \([^ ]*\) .*/\1/p' "$1"; }
"$tui" base --size 100x24 --print >a.txt
"$tui" slow --size 100x24 --print >b.txt
"$tui" base slow --size 100x24 --keys 1 --print >b1.txt
"$tui" base slow --size 100x24 --keys b1 --print >a1.txt
"$tui" base slow --size 100x24 --keys b1b --print >b2.txt
[ "$(run_id b1.txt)" = "$(run_id b.txt)" ] || fail "Phases of a diff shows $(run_id b1.txt), not B $(run_id b.txt)"
[ "$(run_id a1.txt)" = "$(run_id a.txt)" ] || fail "after b, Phases shows $(run_id a1.txt), not A $(run_id a.txt)"
[ "$(run_id b2.txt)" = "$(run_id b.txt)" ] || fail "after b b, Phases shows $(run_id b2.txt), not B"
expect_in a1.txt " scope  A:"
expect_in b1.txt " scope  B:"

# ---- P saves the screen as shown ----------------------------------------------------
rm -f scope-diff-*.txt
"$tui" base slow --size 100x24 --keys P --print >shown.txt
[ -f scope-diff-1.txt ] || fail "P on the Diff view saved $(ls scope-*.txt 2>/dev/null)"
head -23 shown.txt >shown.top
head -23 scope-diff-1.txt >saved.top
cmp -s shown.top saved.top || fail "the saved Diff screen differs: $(diff shown.top saved.top | head)"

# ---- a run directory named with an escape sequence ---------------------------------------
evil=$'evil\e[31mred'
cp -r slow "$evil"
"$tui" base "$evil" --size 100x24 --print >evil.txt
grep -q $'\e' evil.txt && fail "an escape sequence reached the screen"
expect_in evil.txt 'evil\x1b[31mred'

# ---- runs recorded now: the view shows what compare --json says ---------------------------
# Whatever the load did to their sleeps, each phase's change on the screen
# (sorted by |change|, so each row is named by its path) is compare's, and
# carries '*' exactly where compare's JSON says "significant".
"$workload" live 1 || fail "cmp_workload live failed"
"$workload" live-slow 2 extra || fail "cmp_workload live-slow failed"
expect_rc 0 "$tui" compare --json live live-slow
cp out live.json
"$tui" live live-slow --size 120x30 --keys s --print >live.txt
python3 - live.json live.txt <<'PY' || fail "live runs: the Diff view disagrees with compare --json: $(cat live.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {}
for line in open(sys.argv[2]).read().splitlines()[4:]:
    cells = line.lstrip(">").split()
    if cells:
        rows[cells[0]] = cells
def text(frac):
    p = frac * 100
    return "0.0%" if abs(p) < 0.05 else "%+.1f%%" % p
seen = 0
for p in d["roles"][0]["phases"]:
    cells = rows[p["path"]]
    if p["side"] != "both":
        assert "only" in cells, (p["path"], cells)
        continue
    m = p["mean_ns"]
    assert text(m["change"]) in cells, (p["path"], cells, m)
    assert ("*" in cells) == m["significant"], (p["path"], cells, m)
    seen += 1
assert seen == 4, seen
PY

# ---- colour in a real terminal (tmux): red slower, blue faster, none with NO_COLOR ----------
# The SGR codes right before compute's change, as tmux received them: the
# theme's "slower" for base -> slow, "faster" for slow -> base (the same
# change the other way), and no colour at all under NO_COLOR; write, within
# the noise, has none either way.
if command -v tmux >/dev/null 2>&1; then
    sock=scope-diff-$$
    tm() { tmux -L "$sock" -f /dev/null "$@"; }
    trap 'tm kill-server >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
    tm new-session -d -s idle -x 100 -y 30 cat
    tm set-option -g remain-on-exit on >/dev/null
    # sgr_before SESSION NAME: the SGR parameters just before the change on
    # the row of NAME, ';'-joined ("1;38;5;203"), "-" for none.
    sgr_before() {
        tm capture-pane -p -e -t "$1" | python3 -c '
import re, sys
for line in sys.stdin:
    plain = re.sub(r"\x1b\[[0-9;:]*m", "", line)
    if re.search(r"\b%s\b" % sys.argv[1], plain) and "%" in plain:
        m = re.search(r"((?:\x1b\[[0-9;:]*m)*)[+-][0-9.]+%", line)
        codes = [c for c in re.findall(r"\x1b\[([0-9;:]*)m", m.group(1)) if c not in ("0", "39", "49")]
        print(";".join(codes) or "-")
        break
' "$2"
    }
    shown() { # SESSION: waits for the Diff view's title
        for _ in $(seq 1 600); do
            tm capture-pane -p -t "$1" | grep -q "beyond the noise" && return 0
            sleep 0.05
        done
        fail "tmux $1: the Diff view never showed: $(tm capture-pane -p -t "$1")"
        return 1
    }
    tm new-session -d -s up -x 100 -y 30 "env TERM=xterm-256color LC_ALL=C.UTF-8 $(printf %q "$tui") base slow"
    tm new-session -d -s down -x 100 -y 30 "env TERM=xterm-256color LC_ALL=C.UTF-8 $(printf %q "$tui") slow base"
    tm new-session -d -s plain -x 100 -y 30 "env NO_COLOR=1 TERM=xterm-256color LC_ALL=C.UTF-8 $(printf %q "$tui") base slow"
    if shown up && shown down && shown plain; then
        up=$(sgr_before up compute)
        down=$(sgr_before down compute)
        plain=$(sgr_before plain compute)
        calm=$(sgr_before up write)
        [[ "$up" == *38* ]] || fail "base -> slow: compute's change has no colour: '$up'"
        [[ "$down" == *38* ]] || fail "slow -> base: compute's change has no colour: '$down'"
        [ "$up" != "$down" ] || fail "slower and faster have the same colour: '$up'"
        [[ "$plain" != *38* && "$plain" != *3[0-7]* ]] || fail "NO_COLOR: compute's change is coloured: '$plain'"
        [[ "$calm" != *38* ]] || fail "write, within the noise, is coloured: '$calm'"
        # The default theme's slower is #ff5f5f (203), faster #5fafff (75).
        [[ "$up" == *38\;5\;203* ]] || fail "slower is not the theme's red (203): '$up'"
        [[ "$down" == *38\;5\;75* ]] || fail "faster is not the theme's blue (75): '$down'"
    fi
    for s in up down plain; do tm send-keys -t "$s" q; done
    tm kill-server >/dev/null 2>&1 || true
else
    echo "skipped: the colours in a real terminal (no tmux)"
fi

# ---- hot lines: shares and marks --------------------------------------------------------
export SCOPE_LINES=1 SCOPE_LINES_HZ=500 SCOPE_LINES_PROJECT=$here/../e2e
"$lines_workload" lbase >/dev/null || fail "cmp_lines_workload lbase failed"
"$lines_workload" lslow --slow >/dev/null || fail "cmp_lines_workload lslow failed"
expect_rc 0 "$tui" compare --json lbase lslow
cp out lines.json
"$tui" lbase lslow --size 100x30 --print >lines.txt
python3 - lines.json lines.txt <<'PY' || fail "the Diff view's hot lines: $(cat lines.txt)"
import json, re, sys
d = json.load(open(sys.argv[1]))
screen = open(sys.argv[2]).read().splitlines()
role = next(r for r in d["roles"] if r["name"] == "worker")
rows = role["lines"]["rows"]
want = {"kernel_a": -1, "kernel_b": 1}  # 2/3 -> 2/5 and 1/3 -> 3/5
for fn, sign in want.items():
    x = max((r for r in rows if r["function"] == fn), key=lambda r: r["share"]["a"] or 0)
    line = next(l for l in screen if re.search(r"\b%s  cmp_lines_workload\.c:%d\b" % (fn, x["line_a"]), l))
    cells = line.split()
    pa, pb = "%.1f%%" % (x["share"]["a"] * 100), "%.1f%%" % (x["share"]["b"] * 100)
    pts = "%+.1f" % (x["share"]["delta"] * 100)
    assert cells[-4:] == [pa, pb, pts, "*"], (fn, cells, pa, pb, pts)
    assert (x["share"]["delta"] > 0) == (sign > 0) and x["significant"], x
    # The work's own ratios, within 8 points: the samples' noise at 500 Hz.
    truth = {"kernel_a": (2 / 3, 2 / 5), "kernel_b": (1 / 3, 3 / 5)}[fn]
    sa = sum(r["share"]["a"] or 0 for r in rows if r["function"] == fn)
    sb = sum(r["share"]["b"] or 0 for r in rows if r["function"] == fn)
    assert abs(sa - truth[0]) < 0.08 and abs(sb - truth[1]) < 0.08, (fn, sa, sb, truth)
PY

finish
