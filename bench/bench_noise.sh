#!/usr/bin/env bash
# How often `scope-tui check` calls a change, on real runs of
# bench/noise_workload.c (8 processes of 400 entries of CPU work each, with
# seeded per-entry noise): 20 pairs of runs of the same build, 20 where phase "step" does 10%
# more work, and 20 where it does 2% more, judged at a 5% threshold and 95%
# confidence; on the machine as it is ("quiet") and beside two busy loops.
# The runs of each condition are recorded interleaved (base, same, +10%,
# +2%, then the next seed), so that a drift in the machine's load falls on
# every kind alike.  It also judges each candidate against 5 and 10 base
# runs (its own base and the next ones), and prints what the threshold
# alone (check before it knew noise) would have called, the changes measured
# and the bounds check tested ("at least"); by the mean wall time per entry
# (the default metric) and by the CPU time (--metric cpu).
#
# 400 entries a process, not fewer: the seeded spread of the work (25% an
# entry) then moves a run's figure by 0.25 / sqrt(8 x 400) = 0.4%, below the
# machine's own run-to-run noise, so the bench measures the verdicts against
# the machine rather than against its own generator (at 100 entries it
# was 0.9%, as large as a quiet machine's).
#
#   bash bench/bench_noise.sh [--quiet-only | --busy-only] [--metrics "mean cpu"]
#        [--entries N] [--bases "1 5 10"] [--keep DIR | --runs DIR] BUILD_DIR [PAIRS]
#   (about 12 minutes on a quiet 2-core machine; each condition half that)
#
# --keep DIR keeps the recorded runs in DIR; --runs DIR judges runs kept so
# by an earlier call instead of recording (the same runs judged by two
# builds of scope-tui: a change of method measured without the machine's
# drift between two recordings).
set -euo pipefail
conditions="quiet busy" metrics="mean cpu" entries=400 keep="" reuse="" nbases="1 5 10"
while [[ $# -gt 0 && $1 == --* ]]; do
    case $1 in
    --quiet-only) conditions=quiet ;;
    --busy-only) conditions=busy ;;
    --metrics) metrics=${2:?--metrics wants a list, such as "mean cpu"}; shift ;;
    --entries) entries=${2:?--entries wants a number}; shift ;;
    --bases) nbases=${2:?--bases wants a list, such as "1 5 10"}; shift ;;
    --keep) keep=${2:?--keep wants a directory}; shift ;;
    --runs) reuse=${2:?--runs wants a directory}; shift ;;
    *) echo "bench_noise.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
build=$(cd "${1:?usage: bench_noise.sh [OPTIONS] BUILD_DIR [PAIRS]}" && pwd)
pairs=${2:-20}
# Copies, so that a rebuild while it runs changes nothing under it.
bin=$(mktemp -d "${TMPDIR:-/tmp}/scope-bench-noise-bin.XXXXXX")
cp "$build/src/scope-tui" "$build/bench/noise_workload" "$build/recorder/libscope.so.0" "$bin/"
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scope_tui=$bin/scope-tui
workload=$bin/noise_workload
work=$(mktemp -d "${TMPDIR:-/tmp}/scope-bench-noise.XXXXXX")
runs=$work
if [[ -n $reuse ]]; then
    runs=$(cd "$reuse" && pwd)
elif [[ -n $keep ]]; then
    mkdir -p "$keep"
    runs=$(cd "$keep" && pwd)
fi
busy_pids=()
cleanup() {
    for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$work" "$bin"
}
trap cleanup EXIT

record() { # CONDITION
    local dir=$runs/$1 i
    mkdir -p "$dir"
    for ((i = 0; i < pairs; i++)); do
        "$workload" "$dir/base$i" $((4 * i + 1)) 1.00 8 "$entries"
        "$workload" "$dir/same$i" $((4 * i + 2)) 1.00 8 "$entries"
        "$workload" "$dir/slow10_$i" $((4 * i + 3)) 1.10 8 "$entries"
        "$workload" "$dir/slow2_$i" $((4 * i + 4)) 1.02 8 "$entries"
    done
}

# Verdicts of `check --phase step --threshold 5 --metric METRIC` for each
# pair: "VERDICT CHANGE AT_LEAST" per line (AT_LEAST: the one-sided 95%
# bound the verdict tests).
verdicts() { # CONDITION KIND NBASE METRIC
    local dir=$runs/$1 i k bases
    for ((i = 0; i < pairs; i++)); do
        bases=()
        for ((k = 0; k < $3; k++)); do bases+=("$dir/base$(((i + k) % pairs))"); done
        "$scope_tui" check --json --threshold 5 --confidence 95 --phase step --metric "$4" \
            "${bases[@]}" "$dir/$2$i" >"$work/check.json" || true
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["phases"][0]; m=p["metric"]
least = m.get("change_at_least")  # absent from builds before it
print(p["verdict"], "%+.1f%%" % (100*m["change"]), "nan" if least is None else "%+.1f%%" % (100*least))' "$work/check.json"
    done
}

# The smallest and largest of column COL ("+1.2%"; "nan" left out; "-" when
# every one is).
range() { # COL
    awk -v c="$1" '$c != "nan" { sub(/%$/, "", $c); print $c + 0 }' | sort -g | sed -n '1p;$p' |
        paste -sd' ' | awk 'NF { printf "%+.1f%% to %+.1f%%", $1, ($2 == "" ? $1 : $2); shown = 1 } END { if (!shown) printf "-" }'
}

summary() { # CONDITION
    local kind nbase v metric
    for metric in $metrics; do
        for nbase in $nbases; do
            for kind in same slow10_ slow2_; do
                v=$(verdicts "$1" "$kind" "$nbase" "$metric")
                printf '%-6s %-4s %-7s bases %d: REGRESSED %2d/%d   past the threshold alone %2d/%d   changes %s   at least %s\n' \
                    "$1" "$metric" "${kind%_}" "$nbase" "$(grep -c '^REGRESSED' <<<"$v" || true)" "$pairs" \
                    "$(grep -cE '^(REGRESSED|NOISE)' <<<"$v" || true)" "$pairs" \
                    "$(range 2 <<<"$v")" "$(range 3 <<<"$v")"
            done
        done
    done
}

load() { cut -d' ' -f1-3 /proc/loadavg; }
if [[ -n $reuse ]]; then
    echo "$pairs pairs of the runs in $runs; threshold 5%, 95% confidence"
else
    echo "$pairs pairs of 8 processes x $entries entries; threshold 5%, 95% confidence"
fi
for cond in $conditions; do
    if [[ -n $reuse ]]; then
        echo "$cond: runs recorded earlier, in $runs/$cond"
        continue
    fi
    if [[ $cond == busy ]]; then
        for _ in 1 2; do
            (while :; do :; done) &
            busy_pids+=($!)
        done
    fi
    echo "$cond: load average before $(load)"
    SECONDS=0
    record "$cond"
    echo "$cond: load average after $(load) (two busy loops included when busy), recorded in ${SECONDS}s"
    for p in "${busy_pids[@]}"; do kill "$p"; done
    busy_pids=()
done
for cond in $conditions; do summary "$cond"; done
