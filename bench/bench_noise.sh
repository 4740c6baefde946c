#!/usr/bin/env bash
# How often `scope-tui check` calls a change, on real runs of
# bench/noise_workload.c (8 processes of 100 entries of CPU work each, with
# seeded per-entry noise): 20 pairs of runs of the same build, 20 where phase "step" does 10%
# more work, and 20 where it does 2% more, judged at a 5% threshold and 95%
# confidence; on the machine as it is ("quiet") and beside two busy loops.
# The runs of each condition are recorded interleaved (base, same, +10%,
# +2%, then the next seed), so that a drift in the machine's load falls on
# every kind alike.  It also judges each candidate against 5 base runs (its
# own base and the next 4), and prints what the threshold alone (check
# before it knew noise) would have called; by the mean wall time per entry
# (the default metric) and by the CPU time (--metric cpu).
#
#   bash bench/bench_noise.sh BUILD_DIR [PAIRS]   (about 6 minutes on 2 cores)
set -euo pipefail
build=$(cd "${1:?usage: bench_noise.sh BUILD_DIR [PAIRS]}" && pwd)
pairs=${2:-20}
# Copies, so that a rebuild while it runs changes nothing under it.
bin=$(mktemp -d "${TMPDIR:-/tmp}/scope-bench-noise-bin.XXXXXX")
cp "$build/src/scope-tui" "$build/bench/noise_workload" "$build/recorder/libscope.so.0" "$bin/"
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scope_tui=$bin/scope-tui
workload=$bin/noise_workload
work=$(mktemp -d "${TMPDIR:-/tmp}/scope-bench-noise.XXXXXX")
busy_pids=()
cleanup() {
    for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$work" "$bin"
}
trap cleanup EXIT

record() { # CONDITION
    local dir=$work/$1 i
    mkdir -p "$dir"
    for ((i = 0; i < pairs; i++)); do
        "$workload" "$dir/base$i" $((4 * i + 1)) 1.00 8 100
        "$workload" "$dir/same$i" $((4 * i + 2)) 1.00 8 100
        "$workload" "$dir/slow10_$i" $((4 * i + 3)) 1.10 8 100
        "$workload" "$dir/slow2_$i" $((4 * i + 4)) 1.02 8 100
    done
}

# Verdicts of `check --phase step --threshold 5 --metric METRIC` for each
# pair: "VERDICT CHANGE INTERVAL" per line.
verdicts() { # CONDITION KIND NBASE METRIC
    local dir=$work/$1 i k bases
    for ((i = 0; i < pairs; i++)); do
        bases=()
        for ((k = 0; k < $3; k++)); do bases+=("$dir/base$(((i + k) % pairs))"); done
        "$scope_tui" check --json --threshold 5 --confidence 95 --phase step --metric "$4" \
            "${bases[@]}" "$dir/$2$i" >"$work/check.json" || true
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["phases"][0]; m=p["metric"]
print(p["verdict"], "%+.1f%%" % (100*m["change"]), "%+.1f%%..%+.1f%%" % (100*(m["change_low"] or 0), 100*(m["change_high"] or 0)))' "$work/check.json"
    done
}

summary() { # CONDITION
    local kind nbase v metric
    for metric in mean cpu; do
        for nbase in 1 5; do
            for kind in same slow10_ slow2_; do
                v=$(verdicts "$1" "$kind" "$nbase" "$metric")
                printf '%-6s %-4s %-7s bases %d: REGRESSED %2d/%d   past the threshold alone %2d/%d   changes %s\n' \
                    "$1" "$metric" "${kind%_}" "$nbase" "$(grep -c '^REGRESSED' <<<"$v" || true)" "$pairs" \
                    "$(grep -cE '^(REGRESSED|NOISE)' <<<"$v" || true)" "$pairs" \
                    "$(awk '{ sub(/%$/, "", $2); print $2 + 0 }' <<<"$v" | sort -g | sed -n '1p;$p' | paste -sd' ' | awk '{ printf "%+.1f%% to %+.1f%%", $1, $2 }')"
            done
        done
    done
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
record quiet
for _ in 1 2; do
    (while :; do :; done) &
    busy_pids+=($!)
done
record busy
for p in "${busy_pids[@]}"; do kill "$p"; done
busy_pids=()
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
summary quiet
summary busy
