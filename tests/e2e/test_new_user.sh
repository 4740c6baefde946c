#!/usr/bin/env bash
# What a new user meets first on the command line, each as perf, git or
# cargo would answer it:
#   - a misspelled command suggests the nearest one (`reprot` -> `report`),
#     however many arguments follow it, never "'RUN' is one too many";
#   - `record -- /nonexistent` says the program could not run and prints no
#     run path (none was made), with the shell's status 127;
#   - a scope-profiler file without a line profile gets Python advice
#     (ProfileManager.setup(use_line_profiler=True)), not SCOPE_LINES; its
#     processes' pids, which the file does not keep, are null in the JSON.
#
# Usage: test_new_user.sh SCOPE_TUI FIXTURES_DIR
set -euo pipefail
tui=$1
fixtures=$2
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# ---- misspelled commands -----------------------------------------------------------
mkdir run # a run directory's name, so that "one too many" would be the old answer
for typo in reprot:report lnies:lines lines2:lines exprot:export recrod:record chek:check \
    comapre:compare dupm:dump rep:report; do
    word=${typo%%:*} want=${typo#*:}
    expect_rc 2 "$tui" "$word" run
    expect_in_output "'$word' is neither a command nor a run directory; did you mean '$want'?"
    grep -q "one too many" output && fail "$word run: still says one too many: $(cat output)"
done
expect_rc 2 "$tui" reprot
expect_in_output "did you mean 'report'?"
expect_rc 2 "$tui" help reprot
expect_in_output "no command 'reprot'; did you mean 'report'?"
# Nothing near: no guess.
expect_rc 2 "$tui" zzzzzz run
expect_in_output "'zzzzzz' is neither a command nor a run directory (see 'scope-tui --help')"
grep -q "did you mean" output && fail "zzzzzz: a guess for a word near no command: $(cat output)"
# A run directory with a command's near name is a run, not a typo.
mkdir reprot
expect_rc 2 "$tui" reprot --print
grep -q "did you mean" output && fail "an existing directory named reprot was taken for a typo"
rmdir reprot
echo "ok: misspelled commands"

# ---- record of a program that is not there ----------------------------------------------
expect_rc 127 "$tui" record -o "$tmp/rec" -- /nonexistent
expect_in_output "cannot run '/nonexistent': No such file or directory"
grep -q "the run is in" output && fail "record printed a run path for a program that never ran: $(cat output)"
[ -e "$tmp/rec" ] && fail "record left $tmp/rec for a program that never ran"
mkdir cwd && (cd cwd && "$tui" record -- /nonexistent >../out 2>../err) || true
grep -q "scope-run-" err && fail "record without -o printed a run path: $(cat err)"
[ -z "$(ls cwd)" ] || fail "record without -o left $(ls cwd)"
echo "ok: record of a program that is not there"

# ---- a scope-profiler file without a line profile ------------------------------------------
sp="$fixtures/mpi-3-ranks.h5"
expect_rc 3 "$tui" lines "$sp"
expect_in_output "ProfileManager.setup(use_line_profiler=True)"
grep -q "SCOPE_LINES" output && fail "lines of a scope-profiler file advises SCOPE_LINES: $(cat output)"
"$tui" "$sp" --size 100x24 --keys 2 --print >sp-lines.txt
expect_in sp-lines.txt "ProfileManager.setup(use_line_profiler=True)"
grep -q "SCOPE_LINES" sp-lines.txt && fail "the Lines view of a scope-profiler file advises SCOPE_LINES"
"$tui" "$sp" --size 100x24 --keys H --print >sp-hottest.txt
expect_in sp-hottest.txt "H: this run has no line samples (ProfileManager.setup(use_line_profiler=True)"
"$tui" report --json "$sp" | python3 -c '
import json, sys
d = json.load(sys.stdin)
bad = [(w["pid"], w["ppid"]) for w in d["workers"] if w["pid"] is not None or w["ppid"] is not None]
sys.exit(f"pids of a scope-profiler file are not null: {bad}" if bad else 0)' ||
    fail "the JSON gives a scope-profiler file's processes a pid"
# A file that holds a line profile shows it.
expect_rc 0 "$tui" lines "$fixtures/line-profile.h5"
echo "ok: a scope-profiler file gets Python advice and no pid"

finish
echo "new user's command line: all checks passed"
