#!/usr/bin/env bash
# `scope-tui export`'s output file, in each format (json, hdf5, and chrome on
# a run with a trace window):
#
#   - an OUT that exists keeps its mode (0600 stays 0600); a new OUT gets
#     0666 less the umask; an OUT that is not a regular file (a named pipe
#     here; /dev/null as root) is refused, not replaced;
#   - the temporary file beside OUT is written through the descriptor that
#     created it: its name is opened once, by the O_EXCL create, and never
#     again (a name opened again could be a link swapped in meanwhile, in a
#     directory others can write);
#   - SIGTERM, SIGINT or SIGHUP arriving mid-export (delivered by strace at
#     the export's first write into the file: a real signal at a known
#     point, on any machine) ends it with the signal's status (128 + N), no
#     OUT.tmpXXXXXX left behind, and OUT as it was.
#
# The last two need strace (scripts/setup.sh installs it) allowed to trace a
# child; where it is not, they are reported as not run and the test exits 77
# (skipped) once the mode checks pass.
#
# Usage: test_export_output.sh SCOPE_TUI GEN_RUN
set -euo pipefail
tui=$1
gen_run=$2
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE SCOPE_LINES
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

"$gen_run" --out run --procs 4 --hours 0.5 --resources --trace >/dev/null
formats=(json hdf5 chrome)

leftovers() { # the temporary files left in the working directory
    find . -maxdepth 1 -name '*.tmp*' -printf '%f\n'
}

mode_of() { stat -c %a "$1"; }

# ---- modes -----------------------------------------------------------------------
for fmt in "${formats[@]}"; do
    echo old >"keep.$fmt"
    chmod 600 "keep.$fmt"
    expect_rc 0 "$tui" export run --format "$fmt" -o "keep.$fmt"
    [ "$(mode_of "keep.$fmt")" = 600 ] || fail "$fmt: an OUT of mode 600 became $(mode_of "keep.$fmt")"
    [ "$(head -c 3 "keep.$fmt")" = old ] && fail "$fmt: OUT was not replaced"
    rm -f "new.$fmt"
    (umask 027 && "$tui" export run --format "$fmt" -o "new.$fmt") || fail "$fmt: export to a new OUT failed"
    [ "$(mode_of "new.$fmt")" = 640 ] || fail "$fmt: a new OUT under umask 027 has mode $(mode_of "new.$fmt"), wanted 640"
done
[ -z "$(leftovers)" ] || fail "temporary files left: $(leftovers)"
ok "modes kept and given"

# ---- an OUT that is not a regular file is not replaced ---------------------------
# (as root, -o /dev/null would otherwise become a regular file.)
mkfifo pipe.out
expect_rc 2 "$tui" export run --format json -o pipe.out
expect_in err "pipe.out: is a named pipe (FIFO), not a regular file; -o wants a file"
[ -p pipe.out ] || fail "the named pipe OUT was replaced"
[ -z "$(leftovers)" ] || fail "temporary files left: $(leftovers)"
ok "a named pipe as OUT is refused"

# LeakSanitizer cannot run under ptrace: a sanitized scope-tui traced here
# leaves leak checking to the untraced runs above.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if ! strace -f -o /dev/null true 2>/dev/null; then
    echo "note: strace is missing or may not trace here: the descriptor and signal checks were not run" >&2
    finish
    exit 77
fi

# ---- the temporary file is opened once, when it is created -----------------------
for fmt in "${formats[@]}"; do
    expect_rc 0 strace -f -e trace=open,openat,openat2,creat -o "opens.$fmt" \
        "$tui" export run --format "$fmt" -o "traced.$fmt"
    mapfile -t opens < <(grep -F "\"traced.$fmt.tmp" "opens.$fmt" || true)
    if [ "${#opens[@]}" != 1 ] || [[ ${opens[0]} != *O_CREAT*O_EXCL* ]]; then
        fail "$fmt: the temporary file's name was opened ${#opens[@]} times, wanted once (its O_EXCL create):
$(printf '%s\n' "${opens[@]}")"
    fi
done
ok "the temporary file is written through its own descriptor"

# ---- stopped by a signal mid-export --------------------------------------------
for fmt in "${formats[@]}"; do
    for sig in TERM INT HUP; do
        echo old >"sig.$fmt"
        rc=0
        strace -f -o /dev/null -e trace=write,pwrite64 -e inject=write,pwrite64:signal="SIG$sig":when=1 \
            "$tui" export run --format "$fmt" -o "sig.$fmt" >out 2>err || rc=$?
        want=$((128 + $(kill -l "$sig")))
        [ "$rc" = "$want" ] || fail "$fmt, SIG$sig at the first write: exit $rc, wanted $want: $(cat err)"
        [ -z "$(leftovers)" ] || fail "$fmt, SIG$sig: temporary files left: $(leftovers)"
        rm -f ./*.tmp*
        [ "$(cat "sig.$fmt")" = old ] || fail "$fmt, SIG$sig: OUT was changed"
    done
done
ok "a signal mid-export leaves no temporary file"

finish
