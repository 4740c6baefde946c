#!/usr/bin/env bash
# The pages a newcomer reads first lead the right way:
#   - docs/recorder.md section 1 (A first run) ends at the browser and
#     `scope-tui report`, never at `scope-tui dump`;
#   - no page says the browser is still to come;
#   - examples/pipeline/README.md says what the README's main command
#     (scripts/run-example.sh) does: it samples lines (SCOPE_LINES=1) and
#     opens the browser on build/example-run, and its table names every phase
#     and counter the example's sources record.
#
# Usage: tests/check_docs_newcomer.sh [REPO_ROOT]   (default: this script's repository)
# Exit status: 0 all hold, 1 one does not (each is printed).
set -euo pipefail

root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# ---- recorder.md, section 1 -----------------------------------------------------------
first_run=$(sed -n '/^## 1\. /,/^## 2\. /p' "$root/docs/recorder.md")
grep -q 'scope-tui dump' <<<"$first_run" && fail "recorder.md section 1 leads to scope-tui dump"
grep -q 'scope-tui profile' <<<"$first_run" || fail "recorder.md section 1 does not open the browser (scope-tui profile)"
grep -q 'scope-tui report profile' <<<"$first_run" || fail "recorder.md section 1 does not show scope-tui report"
# The section's last words are the report's or the browser's, not another tool's.
last=$(grep -v '^\s*$' <<<"$first_run" | grep -v '^## 2\. ' | tail -3)
grep -Eq 'dump|record by record' <<<"$last" && fail "recorder.md section 1 ends at dump: $last"

# ---- no page says the browser is still to come ---------------------------------------------
while IFS= read -r hit; do
    fail "a page says the browser is to come: $hit"
done < <(cd "$root" && grep -n -i -E 'browser[^.]*(comes|will come|to come|is planned|later)|(later|future)[^.]*(browser|views)' \
    README.md docs/*.md examples/pipeline/README.md src/*/*.h ui/*.h || true)

# ---- the example's README and the main command -----------------------------------------------
readme="$root/examples/pipeline/README.md"
main="$root/scripts/run-example.sh"
if grep -q 'SCOPE_LINES=1' "$main"; then
    grep -q 'SCOPE_LINES=1' "$readme" || fail "the main command samples lines (SCOPE_LINES=1); the example's README does not say so"
fi
if grep -q '"$build_dir/src/scope-tui" "$run_dir"' "$main"; then
    grep -q 'scope-tui build/example-run`' "$readme" ||
        fail "the main command opens the browser (scope-tui build/example-run); the example's README does not say so"
fi
# Every phase and counter the sources record is named in the README.
names=$(cat "$root"/examples/pipeline/*.c |
    sed -n -E 's/.*SCOPE_(PHASE|PHASE_IO|COUNT)\("([^"]+)".*/\2/p' | sort -u)
[ -n "$names" ] || fail "no SCOPE_PHASE or SCOPE_COUNT found in examples/pipeline (did the macros change?)"
for n in $names; do
    grep -q "\`$n\`" "$readme" || fail "the example records '$n'; its README's table does not name it"
done

if ((failures)); then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "ok: recorder.md's first run, the pages and the example's README lead the right way"
