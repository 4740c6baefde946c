#!/usr/bin/env bash
# End to end in a real terminal: `scope-tui RUN` driven through tmux, on a run
# of the example pipeline recorded here.  Five terminals (xterm-256color,
# xterm and vt100, UTF-8 and not, NO_COLOR) each walk the same path: the
# header, moving, expanding, an incremental search, sorting, the process
# filter, P (the saved file against tmux's own copy of the screen), resizing
# to 70x20, to too small and back, the name filter from F4 and the reversed
# sort, and q with exit status 0.  Every screen on
# the way must be, character for character, what headless
# `scope-tui RUN --keys ... --print` draws for the same keys and locale.
# Then the colours as tmux received them (capture-pane -e), true colour on
# xterm-direct when its terminfo is installed (ncurses-term), `r` on a run
# still being recorded and on one deleted under it, and the refusals:
# no terminfo entry, TERM unset, TERM=dumb (no cursor addressing), stdout
# not a terminal.
#
# usage: test_tmux.sh SCOPE_TUI PIPELINE
#        test_tmux.sh BUILD_DIR     (BUILD_DIR/src/scope-tui and
#                                    BUILD_DIR/examples/pipeline/scope-example-pipeline)
# Exit status 77 (skipped) when tmux is not installed.
set -euo pipefail

usage() {
    sed -n '/^# usage:/,/^# Exit status/{s/^# \{0,1\}//;p}' "$0" >&2
    exit 2
}
if [ $# = 1 ] && [ -d "$1" ]; then
    scope_tui=$1/src/scope-tui
    pipeline=$1/examples/pipeline/scope-example-pipeline
elif [ $# = 2 ]; then
    scope_tui=$1
    pipeline=$2
else
    usage
fi
for exe in "$scope_tui" "$pipeline"; do
    [ -x "$exe" ] || { echo "test_tmux.sh: no executable $exe; build first" >&2; exit 2; }
done
# Absolute: lib.sh moves into its scratch directory.
scope_tui=$(cd "$(dirname "$scope_tui")" && pwd)/$(basename "$scope_tui")
pipeline=$(cd "$(dirname "$pipeline")" && pwd)/$(basename "$pipeline")
if ! command -v tmux >/dev/null 2>&1; then
    echo "skipped: tmux is not installed (scripts/setup.sh installs it)"
    exit 77
fi
if ! command -v perl >/dev/null 2>&1; then
    echo "skipped: perl is not installed (it reads tmux's escape sequences)"
    exit 77
fi
# Nothing of the caller's may leak in: recording settings, a theme, timings,
# or an outer tmux.
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE SCOPE_THEME SCOPE_TUI_TIMINGS \
    NO_COLOR TMUX TMUX_PANE

# shellcheck source=tests/e2e/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

# A private tmux server, killed on exit with the scratch directory; its
# socket file too, which tmux leaves behind.
sock=scope-test-$$
sock_path=""
tm() { tmux -L "$sock" -f /dev/null "$@"; }
# A pipeline held stopped (the auto refresh case) is ended too.
held=""
trap 'tm kill-server >/dev/null 2>&1 || true; [ -z "$sock_path" ] || rm -f "$sock_path"; [ -z "$held" ] || kill -KILL -- -"$held" 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config # no user config.yaml choosing a theme

# die MESSAGE: a failure after which the rest of the walk means nothing.
die() {
    fail "$*"
    finish
    exit 1 # finish returns only when nothing failed before
}

# ---- the run ---------------------------------------------------------------------

# With its lines sampled, for H.
SCOPE_LINES=1 "$pipeline" --quick --run-dir run --out ckpt >pipeline.out 2>&1 ||
    die "the example pipeline failed: $(tail -5 pipeline.out)"
run_id=$(sed -n 's/^recorded: run \([^ ]*\) in .*/\1/p' pipeline.out)
[ -n "$run_id" ] || die "the example pipeline named no run: $(tail -5 pipeline.out)"
run=$tmp/run

# ---- tmux --------------------------------------------------------------------------

# One idle session keeps the server up between cases; dead panes stay, so the
# screen a program left when it exited can still be read.
tm new-session -d -s idle -x 120 -y 40 cat
sock_path=$(tm display-message -p '#{socket_path}')
tm set-option -g remain-on-exit on >/dev/null
tm set-option -g default-size 120x40 >/dev/null

# screen NAME / screen_e NAME: the pane's text; with -e its attributes too.
screen() { tm capture-pane -p -t "$1"; }
screen_e() { tm capture-pane -p -e -t "$1"; }
keys() {
    local s=$1
    shift
    tm send-keys -t "$s" "$@"
}

# Every wait below is for an event (a screen, a file, a run's state), polled
# every 50 ms up to poll_s seconds of wall time: a bound for a browser that
# never draws it, generous enough for a loaded machine, where each poll
# (tmux's capture, a report) takes far longer than on a quiet one.
poll_s=60
# before_deadline: true until poll_s seconds after the last `deadline`.
deadline() { poll_end=$((SECONDS + poll_s)); }
before_deadline() { ((SECONDS < poll_end)); }

# poll NAME WHAT PREDICATE...: polls until PREDICATE holds on the pane's
# text, which is left in $case_dir/screen.  On timeout, the function named
# by $explain (if any) says more.
explain=""
poll() {
    local s=$1 what=$2
    shift 2
    deadline
    while before_deadline; do
        screen "$s" >"$case_dir/screen" 2>/dev/null || true
        if "$@" "$case_dir/screen"; then return 0; fi
        sleep 0.05
    done
    die "$label: $what after $poll_s s${explain:+; $($explain)}; the screen:
$(cat "$case_dir/screen")"
}
has_text() { grep -qF -- "$1" "$2"; }
has_re() { grep -qE -- "$1" "$2"; }
# wait_for NAME TEXT / wait_re NAME REGEX: the screen shows it.
wait_for() { poll "$1" "no '$2' on the screen" has_text "$2"; }
wait_re() { poll "$1" "nothing matching /$2/ on the screen" has_re "$2"; }

# expected KEYS: what headless scope-tui draws for KEYS, in the case's
# environment, at 120x40.
expected() {
    env "${case_env[@]}" "$scope_tui" "$run" --size 120x40 --keys "$1" --print \
        >"$case_dir/expected" 2>"$case_dir/expected.err" ||
        die "$label: headless scope-tui --keys '$1' failed: $(cat "$case_dir/expected.err")"
}
same_as_expected() { cmp -s "$case_dir/expected" "$1"; }
# wait_screen NAME KEYS: the pane shows exactly the headless screen for KEYS.
wait_screen() {
    expected "$2"
    explain=diff_expected
    poll "$1" "the screen is not headless scope-tui's for '$2'" same_as_expected
    explain=""
}
diff_expected() {
    echo "diff -u headless tmux:"
    diff -u "$case_dir/expected" "$case_dir/screen" | head -30
}

# Reads `capture-pane -p -e` on stdin.  Prints a line per screen row: flags
# of its first cell (r reverse, b a background colour, - neither), a tab,
# its text; then "sgr c16=N c256=N rgb=N reverse=N": the colour parameters
# seen (30-37, 90-97, 40-47, 100-107; 38/48;5;N; 38/48;2;R;G;B, in ; or :
# form) and how often reverse (7) was set.
sgr_scan() {
    perl -e '
        my ($rev, $bg, %n) = (0, 0, c16 => 0, c256 => 0, rgb => 0, reverse => 0);
        sub sgr {
            my @g = split /;/, ($_[0] eq "" ? "0" : $_[0]), -1;
            for (my $i = 0; $i < @g; $i++) {
                my $p = $g[$i];
                if ($p =~ /:/) {    # 38:2::R:G:B, 38:5:N
                    my @s = split /:/, $p;
                    if ($s[0] == 38 || $s[0] == 48) {
                        $n{ $s[1] == 2 ? "rgb" : "c256" }++;
                        $bg = 1 if $s[0] == 48;
                    }
                    next;
                }
                $p = 0 if $p eq "";
                if ($p == 38 || $p == 48) {
                    my $kind = $g[$i + 1] // "";
                    $n{ $kind eq "2" ? "rgb" : "c256" }++;
                    $bg = 1 if $p == 48;
                    $i += $kind eq "2" ? 4 : 2;
                } elsif ($p == 0) { $rev = $bg = 0 }
                elsif ($p == 7) { $rev = 1; $n{reverse}++ }
                elsif ($p == 27) { $rev = 0 }
                elsif ($p == 49) { $bg = 0 }
                elsif (($p >= 30 && $p <= 37) || ($p >= 90 && $p <= 97)) { $n{c16}++ }
                elsif (($p >= 40 && $p <= 47) || ($p >= 100 && $p <= 107)) { $n{c16}++; $bg = 1 }
            }
        }
        while (my $line = <STDIN>) {
            chomp $line;
            my ($flags, $text) = (undef, "");
            for my $tok (split /(\e\[[0-9;:]*m)/, $line) {
                if ($tok =~ /^\e\[([0-9;:]*)m$/) { sgr($1); next }
                next if $tok eq "";
                $flags //= ($rev ? "r" : "") . ($bg ? "b" : "") || "-";
                $text .= $tok;
            }
            print(($flags // "-"), "\t", $text, "\n");
        }
        print "sgr c16=$n{c16} c256=$n{c256} rgb=$n{rgb} reverse=$n{reverse}\n";'
}

# ---- the walk, in one terminal -----------------------------------------------------

ncase=0
# walk LABEL VAR=VALUE...: the whole path in a 120x40 pane whose program gets
# exactly these locale and terminal settings.
walk() {
    label=$1
    shift
    ncase=$((ncase + 1))
    case_dir=$tmp/case$ncase
    mkdir -p "$case_dir"
    case_env=(-u NO_COLOR -u LC_ALL -u LC_CTYPE -u COLORTERM "$@")
    local s=walk$ncase utf8=1 nocolor=0 term="" v
    for v in "$@"; do
        case "$v" in
        LANG=C | LC_ALL=C) utf8=0 ;;
        NO_COLOR=?*) nocolor=1 ;;
        TERM=*) term=${v#TERM=} ;;
        esac
    done
    launch "$s" "${case_env[@]}"

    # The first screen: header, tabs, the tree.
    wait_for "$s" "run $run_id"
    wait_screen "$s" ""
    sed -n 2p "$case_dir/screen" | grep -qE '1 Phases +2 Lines +F Flame +3 I/O +4 GPU +5 Processes +6 Overview +7 Help' ||
        fail "$label: no tabs on row 2: $(sed -n 2p "$case_dir/screen")"
    if ((utf8)); then
        has_text "▾" "$case_dir/screen" || fail "$label: no ▾ in a UTF-8 terminal"
    fi

    # Moving, expanding: the detail panel follows the cursor, so equal
    # screens mean the same row selected.
    keys "$s" j j
    wait_screen "$s" "jj"
    keys "$s" Enter
    wait_screen "$s" "jj<Enter>"
    keys "$s" '*'
    wait_screen "$s" "jj<Enter>*"

    # Search: incremental, then kept.
    keys "$s" /
    keys "$s" -l mcts
    wait_re "$s" '^/mcts +Enter keeps'
    keys "$s" Enter
    wait_re "$s" "^ [0-9]+ rows? match 'mcts'"
    wait_screen "$s" "jj<Enter>*/mcts<Enter>"
    grep -qE '^ iteration/self_play/mcts ' "$case_dir/screen" ||
        fail "$label: the detail panel is not mcts's after /mcts"
    # The row drawn selected, as tmux has it: reverse video without colour,
    # a background colour otherwise; and no other phase row.
    screen_e "$s" | sgr_scan >"$case_dir/attrs"
    local selected
    selected=$(sed '1,2d;$d' "$case_dir/attrs" | sed '$d' | grep -E '^[rb]+	' |
        grep -E '^[rb]+	[^ ]* +(▾|▸|-|[+])? *[a-z_]+ ' | cut -f2- || true)
    if [ "$(wc -l <<<"$selected")" != 1 ] || ! grep -qE '^[^ ]* +(▾|▸|-|[+]) mcts ' <<<"$selected"; then
        fail "$label: after /mcts the row drawn selected is not mcts alone: '$selected'"
    fi
    local sgr
    sgr=$(tail -1 "$case_dir/attrs")
    if ((nocolor)); then
        [[ "$sgr" == *" c16=0 c256=0 rgb=0 "* ]] || fail "$label: colours with NO_COLOR=1: $sgr"
        grep -qE '^r	[^ ]* +(▾|▸|-|[+]) mcts ' "$case_dir/attrs" ||
            fail "$label: the selected row is not in reverse video with NO_COLOR=1"
    fi
    case "$term,$nocolor" in
    xterm-256color,0)
        [[ "$sgr" != *" c256=0 "* ]] || fail "$label: no 256-colour codes on xterm-256color: $sgr" ;;
    xterm,0)
        [[ "$sgr" != *" c16=0 "* ]] || fail "$label: no colour codes on xterm: $sgr" ;;
    vt100,*)
        [[ "$sgr" == *" c16=0 c256=0 rgb=0 "* ]] || fail "$label: colour codes on a vt100: $sgr" ;;
    esac
    if ! ((utf8)) && LC_ALL=C grep -q '[^ -~]' "$case_dir/screen"; then
        fail "$label: characters beyond ASCII in a non-UTF-8 locale: $(LC_ALL=C grep -n '[^ -~]' "$case_dir/screen" | head -3)"
    fi

    # Sort, then the Processes view and its filter.
    keys "$s" s
    wait_for "$s" "sorted by self"
    wait_screen "$s" "jj<Enter>*/mcts<Enter>s"
    keys "$s" 5
    wait_screen "$s" "jj<Enter>*/mcts<Enter>s5"
    keys "$s" Enter
    wait_re "$s" '^ only actor .* Esc clears$'
    wait_screen "$s" "jj<Enter>*/mcts<Enter>s5<Enter>"

    # P: the screen as it was, saved; then the status line says where.
    keys "$s" P
    wait_for "$s" "saved the screen to scope-phases-1.txt"
    local saved=$case_dir/wd/scope-phases-1.txt
    if [ ! -f "$saved" ]; then
        fail "$label: P said it saved scope-phases-1.txt, which is not there"
    else
        cmp -s <(sed '$d' "$saved") <(sed '$d' "$case_dir/screen") ||
            fail "$label: the saved screen is not tmux's (status line aside):
$(diff -u <(sed '$d' "$saved") <(sed '$d' "$case_dir/screen") | head -20)"
        [ "$(wc -l <"$saved")" = 40 ] || fail "$label: the saved screen has $(wc -l <"$saved") lines, not 40"
        cmp -s "$saved" "$case_dir/expected" || fail "$label: the saved screen is not the one before P:
$(diff -u "$case_dir/expected" "$saved" | head -20)"
    fi
    if ! ((utf8)) && LC_ALL=C grep -q '[^ -~]' "$saved"; then
        fail "$label: the saved screen has characters beyond ASCII in a non-UTF-8 locale"
    fi

    # Smaller: laid out again for 70x20.
    tm resize-window -t "$s" -x 70 -y 20
    wait_screen "$s" "jj<Enter>*/mcts<Enter>s5<Enter><resize:70x20>"
    [ "$(wc -l <"$case_dir/screen")" = 20 ] || fail "$label: $(wc -l <"$case_dir/screen") rows at 70x20"
    local widest
    widest=$(LC_ALL=C.UTF-8 wc -L <"$case_dir/screen")
    [ "$widest" -le 70 ] || fail "$label: a row $widest columns wide at 70x20"
    [ "$(head -1 "$case_dir/screen" | LC_ALL=C.UTF-8 wc -L)" -ge 60 ] ||
        fail "$label: the header does not fill 70 columns: $(head -1 "$case_dir/screen")"

    # Too small, and back.
    tm resize-window -t "$s" -x 50 -y 10
    wait_for "$s" "scope-tui: terminal too small"
    if ((utf8)); then wait_for "$s" "needs 60×16, has 50×10"; else wait_for "$s" "needs 60x16, has 50x10"; fi
    tm resize-window -t "$s" -x 120 -y 40
    wait_screen "$s" "jj<Enter>*/mcts<Enter>s5<Enter><resize:70x20><resize:50x10><resize:120x40>"
    has_text "only actor" "$case_dir/screen" || fail "$label: the process filter was lost by resizing"

    # H: the hottest line of the run's first role, in the Source view, and
    # Backspace back to the phase tree.
    local walked="jj<Enter>*/mcts<Enter>s5<Enter><resize:70x20><resize:50x10><resize:120x40>"
    keys "$s" Escape
    wait_screen "$s" "$walked<Esc>"
    keys "$s" g H
    wait_screen "$s" "$walked<Esc>gH"
    has_text "n/N hotter lines" "$case_dir/screen" || fail "$label: H opened no source: $(tail -1 "$case_dir/screen")"
    keys "$s" BSpace
    wait_screen "$s" "$walked<Esc>gH<BS>"

    # The name filter from F4, as the terminal sends it (an escape sequence
    # terminfo names), typed live; I reverses the sort and marks its
    # heading; Esc clears the filter.
    keys "$s" F4 t r a i n
    wait_re "$s" " filter 'train': [0-9]+ matching rows?, with their parents"
    keys "$s" Enter I
    wait_screen "$s" "$walked<Esc>gH<BS><F4>train<Enter>I"
    if ((utf8)); then has_text "▲self" "$case_dir/screen"; else has_text "^self" "$case_dir/screen"; fi ||
        fail "$label: I marked no reversed heading: $(sed -n 4p "$case_dir/screen")"
    keys "$s" Escape
    wait_screen "$s" "$walked<Esc>gH<BS><F4>train<Enter>I<Esc>"

    keys "$s" q
    wait_rc
    [ "$(cat "$case_dir/rc")" = 0 ] || fail "$label: q: exit status $(cat "$case_dir/rc"), wanted 0"
    tm kill-session -t "$s"
}

# launch NAME ENV-ARGS...: a 120x40 session whose pane runs, in
# $case_dir/wd, `env ENV-ARGS scope-tui RUN TUI-ARGS` ($tui_args) and
# writes its exit status to $case_dir/rc.  With $gate set, it starts only
# once $case_dir/go exists.
gate=0
tui_args=()
launch() {
    local s=$1
    shift
    mkdir -p "$case_dir/wd"
    {
        echo "cd $(printf %q "$case_dir/wd")"
        ((gate)) && echo 'while [ ! -e ../go ]; do sleep 0.02; done'
        printf '%q ' env "$@" "$scope_tui" "$run" ${tui_args[@]+"${tui_args[@]}"}
        echo
        echo 'echo $? >../rc.part && mv ../rc.part ../rc'
    } >"$case_dir/launch.sh"
    tm new-session -d -s "$s" -x 120 -y 40 "sh $(printf %q "$case_dir/launch.sh")"
}
wait_rc() {
    deadline
    while before_deadline; do
        [ -e "$case_dir/rc" ] && return 0
        sleep 0.05
    done
    die "$label: scope-tui did not exit within $poll_s s; the screen:
$(screen "walk$ncase" 2>/dev/null || true)"
}

walk "xterm-256color, UTF-8" TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
walk "xterm, UTF-8" TERM=xterm LANG=C.UTF-8 LC_ALL=C.UTF-8
walk "vt100, C locale" TERM=vt100 LANG=C LC_ALL=C
walk "xterm-256color, C locale" TERM=xterm-256color LANG=C LC_ALL=C
walk "NO_COLOR=1, xterm-256color, UTF-8" NO_COLOR=1 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8

# ---- true colour ---------------------------------------------------------------------

# On xterm-direct the theme's colours go out as 38;2;R;G;B (terminfo's
# 38:2::R:G:B).  tmux keeps a cell's colour as it came, so capture-pane -e
# shows RGB only if the program sent RGB; the bytes it sent, logged by
# pipe-pane from before it started, must hold them too.
if infocmp xterm-direct >/dev/null 2>&1; then
    ncase=$((ncase + 1))
    label="xterm-direct"
    case_dir=$tmp/case$ncase
    mkdir -p "$case_dir"
    gate=1
    launch direct -u NO_COLOR -u COLORTERM TERM=xterm-direct LANG=C.UTF-8 LC_ALL=C.UTF-8
    gate=0
    tm pipe-pane -t direct -o "cat >$(printf %q "$case_dir/raw")"
    touch "$case_dir/go"
    wait_for direct "run $run_id"
    screen_e direct | sgr_scan >"$case_dir/attrs"
    sgr=$(tail -1 "$case_dir/attrs")
    [[ "$sgr" != *" rgb=0 "* ]] || fail "xterm-direct: no true-colour codes in the pane: $sgr"
    [[ "$sgr" == *" c256=0 "* ]] || fail "xterm-direct: 256-colour codes in the pane: $sgr"
    keys direct q
    wait_rc
    [ "$(cat "$case_dir/rc")" = 0 ] || fail "xterm-direct: q: exit status $(cat "$case_dir/rc")"
    grep -qaE $'\e\\[[0-9;:]*(38[:;]2[:;])' "$case_dir/raw" ||
        fail "xterm-direct: the program's output holds no 38;2 / 38:2 sequence"
    tm kill-session -t direct
else
    echo "skipped: no xterm-direct terminfo (apt-get install ncurses-term)"
fi

# ---- r: a run that grows while it is open, then one that is gone -----------------------

label="reload"
ncase=$((ncase + 1))
case_dir=$tmp/case$ncase
mkdir -p "$case_dir"
case_env=(TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8)
main_run=$run
run=$tmp/growing
"$pipeline" --quick --run-dir "$run" --out ckpt-growing >growing.out 2>&1 &
growing=$!
# Opened as soon as there is something to show, while the run goes on.
deadline
while before_deadline; do
    "$scope_tui" report "$run" >/dev/null 2>&1 && break
    sleep 0.05
done
launch reload "${case_env[@]}"
wait_for reload "1 Phases"
wait "$growing" || die "reload: the example pipeline failed: $(tail -5 growing.out)"
keys reload r
wait_for reload "reloaded: 5 processes"
# Now it shows the finished run exactly as a fresh start does; a second r
# reads nothing, as r after a fresh start, so the messages agree too.
keys reload r
wait_screen reload "r"
rm -rf "$run"
keys reload r
wait_for reload "reload failed, still showing what was loaded"
has_text "LEARNER" "$case_dir/screen" || fail "reload: a failed reload lost the figures on screen"
keys reload q
wait_rc
[ "$(cat "$case_dir/rc")" = 0 ] || fail "reload: q: exit status $(cat "$case_dir/rc")"
tm kill-session -t reload
run=$main_run

# ---- a run in progress refreshes by itself, keeping the place ------------------------

# The example pipeline, framing every 0.2 s, is opened while it runs with a
# refresh every 0.5 s.  The selected row (a role's first phase, collapsed)
# must stay selected and collapsed, and the role expanded, through the
# refreshes that show the run growing; once it ends the browser says so and
# stops refreshing.  The pipeline runs in a process group of its own, held
# stopped (SIGSTOP) from the moment its run has a phase to fold until the
# browser has folded it: a quick run could otherwise end before a loaded
# machine has the browser drawn.  Stopped, its processes are still running
# and none is stale (that is judged against the run's newest frame).
label="auto refresh"
ncase=$((ncase + 1))
case_dir=$tmp/case$ncase
mkdir -p "$case_dir"
main_run=$run
run=$tmp/live
SCOPE_FRAME_INTERVAL=0.2 setsid "$pipeline" --quick --actors 2 --run-dir "$run" \
    --out ckpt-live >live.out 2>&1 &
live=$!
# setsid makes the group as it starts, a moment after the fork that gave
# $live: wait for it.
deadline
until [ "$(ps -o pgid= -p "$live" | tr -d ' ')" = "$live" ]; do
    before_deadline || die "auto refresh: the pipeline is not in a process group of its own"
    sleep 0.01
done
# The headless browser draws what the live one will: the role's first phase
# with children to fold, the run in progress.
deadline
while before_deadline; do
    "$scope_tui" "$run" --size 120x40 --print 2>/dev/null >"$case_dir/ready" &&
        grep -q "IN PROGRESS" "$case_dir/ready" && grep -qE '^ +▾ iteration' "$case_dir/ready" &&
        break
    sleep 0.05
done
held=$live
kill -STOP -- -"$live"
grep -qE '^ +▾ iteration' "$case_dir/ready" || die "auto refresh: no phase to fold: $(cat "$case_dir/ready")"
tui_args=(--refresh 0.5)
launch live TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
tui_args=()
wait_for live "IN PROGRESS, refresh 500ms"
# The cursor starts on the role's row, so j selects that phase and Left
# collapses it.
wait_re live '^ +▾ iteration'
keys live j Left
# The selected row, and the header's runtime, as they are now.
selected_row() { grep -m1 '^>' "$1" | sed 's/^>[^A-Za-z_]*\([A-Za-z_][^ ]*\).*/\1/'; }
runtime_of() { head -1 "$1" | sed -n 's/.*  \([0-9][^ ]*\)  [0-9]* process.*/\1/p'; }
poll live "no row selected and collapsed" has_re '^> +▸ '
before_row=$(selected_row "$case_dir/screen")
before_rt=$(runtime_of "$case_dir/screen")
kill -CONT -- -"$live"
held=""
refreshed() { [ "$(runtime_of "$1")" != "$before_rt" ]; }
poll live "the runtime never moved on from $before_rt (no automatic refresh)" refreshed
[ "$(selected_row "$case_dir/screen")" = "$before_row" ] ||
    fail "auto refresh: the selection moved from '$before_row' to '$(selected_row "$case_dir/screen")'"
has_re '^> +▸ ' "$case_dir/screen" || fail "auto refresh: the selected phase was expanded by a refresh"
has_re '^ [A-Z]' "$case_dir/screen" || fail "auto refresh: the role rows are gone"
wait "$live" || die "auto refresh: the example pipeline failed: $(tail -5 live.out)"
wait_for live "the run has ended"
has_text "IN PROGRESS" "$case_dir/screen" && fail "auto refresh: the header still says in progress"
[ "$(selected_row "$case_dir/screen")" = "$before_row" ] ||
    fail "auto refresh: the last refresh moved the selection from '$before_row'"
keys live q
wait_rc
[ "$(cat "$case_dir/rc")" = 0 ] || fail "auto refresh: q: exit status $(cat "$case_dir/rc")"
tm kill-session -t live
run=$main_run

# ---- refusals ----------------------------------------------------------------------

# refused LABEL ENV-ARGS...: in a pane, the program says in one line how to
# get the figures without it, and exits 2.
refused() {
    label=$1
    shift
    ncase=$((ncase + 1))
    case_dir=$tmp/case$ncase
    mkdir -p "$case_dir"
    launch refused$ncase "$@"
    wait_rc
    [ "$(cat "$case_dir/rc")" = 2 ] || fail "$label: exit status $(cat "$case_dir/rc"), wanted 2"
    # The pane is dead but kept; -J joins the message's wrapped lines, and -S -
    # takes the history too: tmux may have scrolled the first line off.
    tm capture-pane -p -J -S - -t refused$ncase >"$case_dir/screen"
    has_text "'scope-tui report $run'" "$case_dir/screen" ||
        fail "$label: no 'scope-tui report $run' in the message: $(cat "$case_dir/screen")"
    [ "$(grep -c 'scope-tui' "$case_dir/screen")" = 1 ] ||
        fail "$label: not one line: $(cat "$case_dir/screen")"
    tm kill-session -t refused$ncase
}
refused "TERM=no-such-term" TERM=no-such-term LANG=C.UTF-8 LC_ALL=C.UTF-8
has_text "no terminfo entry for TERM 'no-such-term'" "$case_dir/screen" ||
    fail "TERM=no-such-term: the message does not name the terminal type"
refused "TERM unset" -u TERM LANG=C.UTF-8 LC_ALL=C.UTF-8
has_text "TERM is not set" "$case_dir/screen" || fail "TERM unset: the message does not say so"
# A terminal that cannot address its cursor gets no screens of garbage.
refused "TERM=dumb" TERM=dumb LANG=C.UTF-8 LC_ALL=C.UTF-8
has_text "TERM 'dumb', which cannot move the cursor" "$case_dir/screen" ||
    fail "TERM=dumb: the message does not say why: $(cat "$case_dir/screen")"

# ---- two runs: scope-tui A B, and compare A B on a terminal, open the Diff view -------------

main_run=$run
for how in browse compare; do
    label="diff ($how)"
    ncase=$((ncase + 1))
    case_dir=$tmp/case$ncase
    mkdir -p "$case_dir"
    if [ "$how" = browse ]; then
        tui_args=("$main_run")
    else
        run=compare
        tui_args=("$main_run" "$main_run")
    fi
    launch diff$ncase TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
    wait_for diff$ncase "*: beyond the noise at 95%"
    screen diff$ncase >"$case_dir/screen"
    has_text " scope  B:" "$case_dir/screen" || fail "$label: no 'B:' header: $(head -3 "$case_dir/screen")"
    has_text " D Diff " "$case_dir/screen" || fail "$label: no Diff tab: $(head -3 "$case_dir/screen")"
    has_text "role / phase" "$case_dir/screen" || fail "$label: no phase tree: $(head -6 "$case_dir/screen")"
    keys diff$ncase q
    wait_rc
    [ "$(cat "$case_dir/rc")" = 0 ] || fail "$label: q: exit status $(cat "$case_dir/rc")"
    tm kill-session -t diff$ncase
    run=$main_run
    tui_args=()
done

# No terminal at all: stdout into a file.
expect_rc 2 env TERM=xterm-256color "$scope_tui" "$run"
expect_in_output "'scope-tui report $run'"
[ "$(wc -l <err)" = 1 ] || fail "stdout not a terminal: $(wc -l <err) lines on stderr, wanted 1"
[ ! -s out ] || fail "stdout not a terminal: something was written to stdout: $(head -c 200 out)"

finish
echo "scope-tui in tmux: all checks passed ($ncase terminals)"
