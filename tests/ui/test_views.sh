#!/usr/bin/env bash
# The browser's views are one table: the names --view takes, the tab bar,
# the help's Views lines, the keys that show each view and the usage text
# must all list the same views, in the same order.  Each name the error for
# an unknown view gives is opened with --view and with its key from the
# help, and what P saves says which view was shown.
#
# Usage: test_views.sh SCOPE_TUI SCOPE_GEN_RUN
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
gen=$2
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"

export LC_ALL=C.UTF-8
export XDG_CONFIG_HOME="$tmp/config"
unset SCOPE_THEME NO_COLOR VISUAL EDITOR || true

"$gen" --out run --procs 3 --hours 0.02 --seed 4 >/dev/null

# The names, from the refusal of a name that is none of them.
expect_rc 2 "$tui" run --view no-such-view
names=$(sed -n "s/.*no view 'no-such-view' (\([^)]*\)).*/\1/p" err | tr -d ',')
read -r -a views <<<"$names"
[ "${#views[@]}" -ge 4 ] || fail "--view lists ${#views[@]} views: '$names'"

# The usage names them in the same order: "open on a, b, c or d".
expect_rc 0 "$tui" run --help
usage=$(sed -n 's/.*--view NAME *open on //p' out | sed 's/,//g; s/ or / /')
[ "$usage" = "${views[*]}" ] || fail "usage lists '$usage', --view '${views[*]}'"

# The help: a line "KEY   NAME: what it shows" per view, in the same order.
expect_rc 0 "$tui" run --size 120x80 --keys '?' --print
help_names=$(sed -n 's/^ *\([^ ]\) \{2,\}\([a-z]*\): .*/\2/p' out | tr '\n' ' ')
[ "$help_names" = "${views[*]} " ] || fail "help lists '$help_names', --view '${views[*]}'"
tabs=$(sed -n 2p out)

for i in "${!views[@]}"; do
    name=${views[$i]}
    rm -f scope-*.txt
    # --view NAME opens it: P saves scope-NAME-1.txt.
    expect_rc 0 "$tui" run --view "$name" --size 100x30 --keys P
    [ -f "scope-$name-1.txt" ] || fail "--view $name then P saved $(ls scope-*.txt 2>/dev/null)"
    # Its key from the help shows it, from another view.
    expect_rc 0 "$tui" run --size 120x80 --keys '?' --print
    key=$(sed -n "s/^ *\([^ ]\) \{2,\}$name: .*/\1/p" out)
    [ -n "$key" ] || fail "help has no key for $name"
    rm -f scope-*.txt
    other=${views[$(((i + 1) % ${#views[@]}))]}
    expect_rc 0 "$tui" run --view "$other" --size 100x30 --keys "${key}P"
    [ -f "scope-$name-1.txt" ] || fail "key '$key' then P saved $(ls scope-*.txt 2>/dev/null), not $name's"
    # The tab bar shows it as "KEY Title", in the table's order.
    [[ "$tabs" =~ \ $key\ [A-Z] ]] || fail "tab bar '$tabs' has no tab for key '$key'"
    # Tab steps to the next view in the same order, wrapping around.
    rm -f scope-*.txt
    expect_rc 0 "$tui" run --view "$name" --size 100x30 --keys "<Tab>P"
    [ -f "scope-$other-1.txt" ] || fail "Tab from $name saved $(ls scope-*.txt 2>/dev/null), not $other's"
done

finish
