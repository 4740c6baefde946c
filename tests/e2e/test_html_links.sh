#!/usr/bin/env bash
# report --html's links and spread plots, read from the page as written
# (no browser needed):
#
#  - a run of 1,000 phases (scope_gen_wide --forged: a binary tree, whose
#    phases past the 400 the phase table shows hold as much time as those
#    before, so the dominant and spread tables name some of them): every
#    href="#ID" on the page leads to an element of that id (the phases past
#    the table are named, not linked), and the page says the table is cut;
#  - a run of 9 processes (scope_gen_run): each spread plot's min, quartiles,
#    median and max equal those check_html.py computes from the phase's
#    per_proc_ns in report --json (linear between neighbours), and no link
#    is dead either.
#
# Usage: test_html_links.sh SCOPE_TUI SCOPE_GEN_WIDE SCOPE_GEN_RUN
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
gen_wide=$2
gen_run=$3
# shellcheck source=lib.sh
source "$here/lib.sh"

"$gen_wide" --out wide --nodes 1000 --procs 2 --forged >gen.out 2>&1 ||
    fail "scope_gen_wide: $(tail -3 gen.out)"
expect_rc 0 "$tui" report wide --html -o wide.html
expect_in wide.html "The first 400 of 1000 phases"
expect_in wide.html "past the first 400 phases the table shows"
python3 "$here/check_html.py" links wide.html || fail "wide.html: dead links (see above)"

"$gen_run" --out many --procs 9 --hours 0.02 --lines >gen.out 2>&1 ||
    fail "scope_gen_run: $(tail -3 gen.out)"
expect_rc 0 "$tui" report many --html -o many.html
expect_rc 0 "$tui" report many --json
cp out many.json
python3 "$here/check_html.py" links many.html || fail "many.html: dead links (see above)"
python3 "$here/check_html.py" spread many.html many.json || fail "many.html: spread (see above)"
finish
