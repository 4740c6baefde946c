#!/usr/bin/env bash
# How fast the browser, `scope-tui RUN`, answers in a real terminal: tmux
# panes of 120x40 (TERM=xterm-256color, LANG=C.UTF-8) running it with
# SCOPE_TUI_TIMINGS set, so that it writes how long its first screen took
# (from main(), loading the run included) and each key (from reading it to
# the refreshed screen).
#
# Usage: bench/bench_tui.sh BUILD_DIR [--runs N] [--rounds N] [--reloads N]
#                           [--gap MS] [--example-run DIR] [--grid P:H]
#                           [--cache DIR]
#   --runs N           starts timed per run (default 10): the first screen's
#                      median and max; as many headless `--keys q` for their
#                      wall time
#   --rounds N         rounds of the key sequence on the synthetic run, about
#                      100 keys each (default 3)
#   --reloads N        `r` (reload) timed apart from the other keys (default 5)
#   --gap MS           pause after each key (default 20; 60 after Escape, which
#                      ncurses holds 25 ms to tell it from an escape sequence)
#   --example-run DIR  the run of the example pipeline for the first-screen
#                      figures (default: recorded once, full length, into the cache)
#   --grid P:H         the synthetic run: P processes x H hours (default 64:12)
#   --cache DIR        where runs are kept between invocations (default
#                      $TMPDIR/scope-bench-report, or /tmp/..., shared with
#                      bench/bench_report.sh: same names for generated runs)
#
# Keys go one per `tmux send-keys` call with a pause after each, so that each
# is read and drawn alone: ncurses leaves a refresh unfinished when input is
# already waiting, which would flatter keys sent in a burst.  A key slower than
# the pause is reported, since the one after it may then have been waiting.
# It needs tmux and /usr/bin/time (scripts/setup.sh installs both).
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

build=""
runs=10
rounds=3
reloads=5
gap_ms=20
example_run=""
grid="64:12"
cache="${TMPDIR:-/tmp}/scope-bench-report"
while (($#)); do
    case "$1" in
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --rounds) rounds="${2:?--rounds needs a number}"; shift 2 ;;
    --reloads) reloads="${2:?--reloads needs a number}"; shift 2 ;;
    --gap) gap_ms="${2:?--gap needs milliseconds}"; shift 2 ;;
    --example-run) example_run="${2:?--example-run needs a directory}"; shift 2 ;;
    --grid) grid="${2:?--grid needs procs:hours}"; shift 2 ;;
    --cache) cache="${2:?--cache needs a directory}"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "bench_tui.sh: unknown option $1" >&2; exit 2 ;;
    *)
        [[ -z "$build" ]] || { echo "bench_tui.sh: one BUILD_DIR only" >&2; exit 2; }
        build="$1"; shift ;;
    esac
done
[[ -n "$build" ]] || { usage >&2; exit 2; }
for n in runs rounds reloads gap_ms; do
    [[ "${!n}" =~ ^[1-9][0-9]*$ ]] || { echo "bench_tui.sh: --${n%_ms}: a positive number" >&2; exit 2; }
done
[[ "$grid" =~ ^([1-9][0-9]*):([0-9]*\.?[0-9]+)$ ]] || { echo "bench_tui.sh: bad --grid '$grid' (procs:hours)" >&2; exit 2; }
procs=${BASH_REMATCH[1]} hours=${BASH_REMATCH[2]}

shown_build=${build%/} # as given, for the commands printed at the end
build=$(cd "$build" && pwd)
tui="$build/src/scope-tui"
gen="$build/bench/scope_gen_run"
pipeline="$build/examples/pipeline/scope-example-pipeline"
for exe in "$tui" "$gen" "$pipeline"; do
    [[ -x "$exe" ]] || { echo "bench_tui.sh: no $exe; build first (cmake --build $build)" >&2; exit 2; }
done
command -v tmux >/dev/null || { echo "bench_tui.sh: tmux is missing: apt-get install tmux" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench_tui.sh: /usr/bin/time is missing: apt-get install time" >&2; exit 2; }
if [[ -n "$example_run" ]]; then
    [[ -d "$example_run" ]] || { echo "bench_tui.sh: --example-run: no directory $example_run" >&2; exit 2; }
    example_run=$(cd "$example_run" && pwd)
fi
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE SCOPE_THEME SCOPE_TUI_TIMINGS NO_COLOR TMUX TMUX_PANE
mkdir -p "$cache"

# ---- the runs --------------------------------------------------------------------

# The synthetic run, named as bench_report.sh names it (parameters and the
# generator's build), generated when missing.  Runs of other generator builds
# are left alone: another benchmark may be reading them.
synthetic_run() {
    local key
    key="p${procs}_h${hours}_r0_g$(cksum <"$gen" | cut -d' ' -f1)"
    if [[ ! -d "$cache/$key" ]]; then
        echo "generating $procs processes x $hours h into $cache/$key" >&2
        rm -rf "$cache/$key.tmp"
        "$gen" --out "$cache/$key.tmp" --procs "$procs" --hours "$hours" >&2
        mv "$cache/$key.tmp" "$cache/$key"
    fi
    echo "$cache/$key"
}

# The full example pipeline (70 iterations, 12 to 15 s), recorded once per
# build of it.
recorded_example() {
    local key
    key="example_g$(cksum <"$pipeline" | cut -d' ' -f1)"
    if [[ ! -d "$cache/$key" ]]; then
        echo "recording the example pipeline into $cache/$key" >&2
        rm -rf "$cache/$key.tmp" "$cache/$key.ckpt"
        "$pipeline" --run-dir "$cache/$key.tmp" --out "$cache/$key.ckpt" >&2
        rm -rf "$cache/$key.ckpt"
        mv "$cache/$key.tmp" "$cache/$key"
    fi
    echo "$cache/$key"
}

[[ -n "$example_run" ]] || example_run=$(recorded_example)
big_run=$(synthetic_run)

# "N processes, SIZE": the run's logs, which reading puts in the page cache.
run_size() {
    local files
    mapfile -t files < <(find "$1" -type f -name '*.scope')
    cat "${files[@]}" >/dev/null
    du -cb "${files[@]}" | awk -v n="${#files[@]}" 'END {
        printf "%d processes, ", n
        if ($1 >= 1e6) printf "%.1f MB", $1 / 1e6; else printf "%.0f KB", $1 / 1e3 }'
}
example_size=$(run_size "$example_run")
big_size=$(run_size "$big_run")

# ---- tmux ----------------------------------------------------------------------

tmp=$(mktemp -d "${TMPDIR:-/tmp}/scope-bench-tui.XXXXXX")
sock=scope-bench-$$
sock_path=""
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1 || true; [[ -z "$sock_path" ]] || rm -f "$sock_path"; rm -rf "$tmp"' EXIT
tm new-session -d -s idle -x 120 -y 40 cat
sock_path=$(tm display-message -p '#{socket_path}')
tm set-option -g default-size 120x40 >/dev/null
tm set-option -g remain-on-exit on >/dev/null # to show what a failed start said

term_env=(-u NO_COLOR -u COLORTERM -u LC_CTYPE TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8)
gap=$(awk -v ms="$gap_ms" 'BEGIN { printf "%.3f", ms / 1000 }')
esc_gap=$(awk -v ms="$gap_ms" 'BEGIN { printf "%.3f", (ms < 60 ? 60 : ms) / 1000 }')

# start NAME RUN TIMINGS: a 120x40 session running the browser on RUN, which
# writes its timings to TIMINGS and its exit status to TIMINGS.rc.
start() {
    local s=$1 run=$2 timings=$3
    rm -f "$timings" "$timings.rc"
    {
        printf 'cd %q\n' "$tmp"
        printf '%q ' env "${term_env[@]}" SCOPE_TUI_TIMINGS="$timings" "$tui" "$run"
        printf '\necho $? >%q && mv %q %q\n' "$timings.part" "$timings.part" "$timings.rc"
    } >"$tmp/$s.sh"
    tm new-session -d -s "$s" -x 120 -y 40 "sh $(printf %q "$tmp/$s.sh")"
}

# wait_for NAME TEXT [SECONDS]: polls the pane every 20 ms until it shows TEXT.
wait_for() {
    local s=$1 text=$2 limit=$((${3:-30} * 50)) i
    for ((i = 0; i < limit; i++)); do
        tm capture-pane -p -t "$s" 2>/dev/null | grep -qF -- "$text" && return 0
        sleep 0.02
    done
    echo "bench_tui.sh: '$text' did not show in ${3:-30} s; the screen:" >&2
    tm capture-pane -p -t "$s" >&2 || true
    exit 1
}

# finish NAME TIMINGS: q, then waits for the exit; it must be 0.
finish_tui() {
    local s=$1 timings=$2 i
    tm send-keys -t "$s" q
    for ((i = 0; i < 1500; i++)); do
        [[ -e "$timings.rc" ]] && break
        sleep 0.02
    done
    [[ "$(cat "$timings.rc" 2>/dev/null)" == 0 ]] || {
        echo "bench_tui.sh: scope-tui did not exit 0 after q; the screen:" >&2
        tm capture-pane -p -t "$s" >&2 || true
        exit 1
    }
    tm kill-session -t "$s"
    [[ -s "$timings" ]] || { echo "bench_tui.sh: $timings is empty: is SCOPE_TUI_TIMINGS supported?" >&2; exit 1; }
}

# Statistics of the numbers on stdin (nearest rank): "N MEDIAN P95 P99 MAX".
stats() {
    sort -g | awk '{ v[NR] = $1 }
        function rank(p,   r) { r = int(p * NR); if (r < p * NR) r++; return v[r < 1 ? 1 : r] }
        END { if (!NR) { print 0, "-", "-", "-", "-"; exit }
              m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              print NR, m, rank(0.95), rank(0.99), v[NR] }'
}

# ---- first screen --------------------------------------------------------------

# first_screens RUN: RUNS starts in a pane, each waiting for the tab row
# before q; prints the first-screen milliseconds, one a line.
first_screens() {
    local run=$1 i
    for ((i = 1; i <= runs; i++)); do
        start first "$run" "$tmp/first.t"
        wait_for first "1 Phases"
        finish_tui first "$tmp/first.t"
        awk '$1 == "first-screen" { print $2; exit }' "$tmp/first.t"
    done
}

# headless RUN: `scope-tui RUN --keys q` under /usr/bin/time, RUNS times;
# prints "WALL_MS MAX_RSS_KB" a run.  The wall time is taken around
# /usr/bin/time (whose %e counts hundredths only), so it includes starting
# it, well under a millisecond.
headless() {
    local i t0 t1
    for ((i = 1; i <= runs; i++)); do
        t0=$EPOCHREALTIME
        /usr/bin/time -f %M -o "$tmp/rss" "$tui" "$1" --keys q >/dev/null 2>"$tmp/err" || {
            echo "bench_tui.sh: scope-tui $1 --keys q failed: $(tail -3 "$tmp/err")" >&2
            exit 1
        }
        t1=$EPOCHREALTIME
        awk -v a="$t0" -v b="$t1" -v kb="$(tail -1 "$tmp/rss")" \
            'BEGIN { printf "%.3f %d\n", (b - a) * 1000, kb }'
    done
}

echo "first screens: $runs starts on each run" >&2
first_screens "$example_run" >"$tmp/fs.example"
first_screens "$big_run" >"$tmp/fs.big"
headless "$example_run" >"$tmp/headless.example"
headless "$big_run" >"$tmp/headless.big"

# ---- keys --------------------------------------------------------------------------

# The sequence: tmux key names, with the kind each is counted under.
seq_keys=()
seq_kinds=()
k() { # KIND KEY...
    local kind=$1 key
    shift
    for key in "$@"; do
        seq_keys+=("$key")
        seq_kinds+=("$kind")
    done
}
rep() { # N KIND KEY
    local i
    for ((i = 0; i < $1; i++)); do k "$2" "$3"; done
}
for ((r = 0; r < rounds; r++)); do
    k view 1
    k ends g
    rep 12 move j
    rep 4 move k
    k expand Enter Enter Enter
    k expand-all '*'
    rep 4 page PgDn
    rep 4 page PgUp
    k ends G g
    k collapse-all -
    rep 6 move j
    k expand Enter Right
    k collapse h Left h
    rep 5 sort s
    rep 4 view Tab
    k view 5
    rep $((5 + 7 * r)) move j
    k page PgDn PgUp
    rep 3 sort s
    k filter Enter # this process's phases
    rep 6 move j
    k expand-all '*'
    k page PgDn
    k clear Escape # every process again
    k search-type / m c t s
    k search-enter Enter
    rep 4 search-next n
    rep 2 search-next N
    k search-type / x y z
    k search-cancel Escape
    k view 6
    rep 3 move j
    k page PgDn
    k view 7
    k page PgDn PgUp
    k view 1
done
nkeys=${#seq_keys[@]}

echo "keys: $nkeys on $procs x $hours h, then $reloads reloads" >&2
timings=$tmp/keys.t
start keys "$big_run" "$timings"
wait_for keys "1 Phases"
for ((i = 0; i < nkeys; i++)); do
    tm send-keys -t keys -- "${seq_keys[i]}"
    if [[ "${seq_keys[i]}" == Escape ]]; then sleep "$esc_gap"; else sleep "$gap"; fi
done
# Reloads, each awaited; C-l (redraw) between them clears the message so the
# next one shows.
for ((i = 0; i < reloads; i++)); do
    tm send-keys -t keys r
    wait_for keys "reloaded: "
    tm send-keys -t keys C-l
    wait_for keys "P save"
done
finish_tui keys "$timings"

# The key lines, in order: the sequence, then r and C-l pairs, then q.
grep '^key ' "$timings" | cut -d' ' -f2 >"$tmp/key.ms"
got=$(wc -l <"$tmp/key.ms")
want=$((nkeys + 2 * reloads + 1))
if [[ "$got" != "$want" ]]; then
    echo "bench_tui.sh: $got key timings for $want keys sent: some were merged or lost" >&2
    exit 1
fi
for ((i = 0; i < nkeys; i++)); do
    printf '%s\t%s\t%s\n' "${seq_kinds[i]}" "${seq_keys[i]}" "$((i + 1))"
done >"$tmp/key.names"
head -n "$nkeys" "$tmp/key.ms" | paste "$tmp/key.names" - >"$tmp/nav" # kind key pos ms
sed -n "$((nkeys + 1)),$((nkeys + 2 * reloads))p" "$tmp/key.ms" | awk 'NR % 2' >"$tmp/reload.ms"

# ---- the table -------------------------------------------------------------------

echo "scope-tui RUN in tmux 120x40, TERM=xterm-256color, LANG=C.UTF-8: $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
printf ' %-48s %5s %9s %9s\n' "first screen, from main() (loading included)" runs "median ms" "max ms"
row() { # LABEL FILE [COLUMN]
    read -r n med _ _ max < <(cut -d' ' -f"${3:-1}" "$2" | stats)
    printf ' %-48s %5s %9.1f %9.1f\n' "$1" "$n" "$med" "$max"
}
row "example: $example_size" "$tmp/fs.example"
row "$procs x $hours h: $big_size" "$tmp/fs.big"
row "headless --keys q, wall: example" "$tmp/headless.example"
row "headless --keys q, wall: $procs x $hours h" "$tmp/headless.big"
read -r _ rss_ex _ < <(cut -d' ' -f2 "$tmp/headless.example" | stats)
read -r _ rss_big _ < <(cut -d' ' -f2 "$tmp/headless.big" | stats)
printf ' %-48s %5s %9.1f %9.1f\n' "headless --keys q, max RSS MB: example, $procs x $hours h" "" \
    "$(awk -v k="$rss_ex" 'BEGIN { print k / 1024 }')" "$(awk -v k="$rss_big" 'BEGIN { print k / 1024 }')"
echo
read -r n med p95 p99 max < <(cut -f4 "$tmp/nav" | stats)
echo "keys on $procs x $hours h (read to refreshed screen), ms:"
printf ' %-16s %5s %7s %7s %7s %7s\n' kind keys median p95 p99 max
printf ' %-16s %5s %7.2f %7.2f %7.2f %7.2f\n' "all but r" "$n" "$med" "$p95" "$p99" "$max"
mapfile -t kinds < <(cut -f1 "$tmp/nav" | awk '!seen[$0]++')
for kind in "${kinds[@]}"; do
    read -r n med p95 p99 max < <(awk -F'\t' -v k="$kind" '$1 == k { print $4 }' "$tmp/nav" | stats)
    printf '   %-14s %5s %7.2f %7.2f %7.2f %7.2f\n' "$kind" "$n" "$med" "$p95" "$p99" "$max"
done
read -r n med p95 p99 max < <(stats <"$tmp/reload.ms")
printf ' %-16s %5s %7.1f %7s %7s %7.1f\n' "r (reload)" "$n" "$med" "" "" "$max"
sort -t$'\t' -k4,4gr "$tmp/nav" | head -5 |
    awk -F'\t' '{ printf "%s%s (%s, key %d) %.2f", (NR > 1 ? ",  " : " slowest: "), $2, $1, $3, $4 }
                 END { print "" }'
slow=$(awk -F'\t' -v g="$gap_ms" '$4 > g' "$tmp/nav" | wc -l)
((slow == 0)) || echo " note: $slow key(s) took longer than the ${gap_ms} ms pause; the key after each may have waited"
echo
echo "commands:"
echo "  tmux -L $sock -f /dev/null new-session -d -x 120 -y 40 \\"
echo "    'env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 SCOPE_TUI_TIMINGS=FILE $shown_build/src/scope-tui RUN'"
echo "  tmux send-keys -t SESSION KEY      one key a call, ${gap_ms} ms apart (Escape: $(awk -v g="$esc_gap" 'BEGIN { print g * 1000 }') ms)"
echo "  /usr/bin/time -f %M $shown_build/src/scope-tui RUN --keys q      wall time taken around it"
echo "  example RUN: $example_run"
echo "  synthetic RUN: $big_run"
