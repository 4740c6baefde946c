#!/usr/bin/env bash
# scope-reduce (docs/reduce.md) on scope_gen_run runs of P processes, with
# N ranks under mpirun.openmpi (N = 1: scope-tui reduce, no MPI): each
# rank's wall time, CPU time and peak memory (/usr/bin/time), the steps
# `--times` reports, and the time `report SUMMARY` takes to open the
# result, which is checked equal to `report --json RUN` (run.dir aside).
# Last, the scaling model of docs/reduce.md fitted to the CPU seconds
# measured (CPU, not wall: on a shared machine the wall time says how busy
# the others were).
#
# Usage: bench/bench_reduce.sh BUILD_DIR [--procs "1000 10000"] [--ranks "1 2"]
#                              [--hours H] [--cache DIR]
#   --procs LIST  process counts (default "1000 10000"; 100000 writes 1.6 GB)
#   --ranks LIST  rank counts (default "1 2")
#   --hours H     each process's recorded hours (default 0.01)
#   --cache DIR   where the runs are kept between calls (default
#                 $TMPDIR/scope-bench-reduce, or /tmp/...); remove it when done
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

build="" procs="1000 10000" ranks="1 2" hours=0.01
cache="${TMPDIR:-/tmp}/scope-bench-reduce"
while (($#)); do
    case "$1" in
    --procs) procs="${2:?--procs needs a list}"; shift 2 ;;
    --ranks) ranks="${2:?--ranks needs a list}"; shift 2 ;;
    --hours) hours="${2:?--hours needs a number}"; shift 2 ;;
    --cache) cache="${2:?--cache needs a directory}"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "bench_reduce.sh: unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
    esac
done
[[ -n "$build" ]] || { usage >&2; exit 2; }
build=$(realpath "$build")
tui="$build/src/scope-tui" red="$build/src/scope-reduce-openmpi" gen="$build/bench/scope_gen_run"
mpirun=$(command -v mpirun.openmpi || true)
for exe in "$tui" "$red" "$gen" /usr/bin/time "$mpirun"; do
    [[ -n "$exe" && -x "$exe" ]] || { echo "bench_reduce.sh: ${exe:-mpirun.openmpi} is missing" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "bench_reduce.sh: jq is missing" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$cache"
cd "$cache"
points=points.tsv
: >"$points"

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s %5s %8s %9s %9s %10s %10s %8s %4s %10s %11s\n' procs ranks wall_s cpu_max_s cpu_r0_s \
    rss_r0_MB rss_max_MB open_s same open_cpu_s open_rss_MB
for p in $procs; do
    run="run-$p-$hours"
    if [[ ! -d $run ]]; then
        "$gen" --out "$run.tmp" --procs "$p" --hours "$hours" --jobs "$(nproc)" >/dev/null
        mv "$run.tmp" "$run"
    fi
    find "$run/workers" -type f -exec cat {} + >/dev/null # in the page cache: CPU and memory, not disk
    /usr/bin/time -f '%e %U %S %M' -o run.time "$tui" report "$run" >/dev/null
    read -r rw ru rs rrss <run.time
    printf '%8s  report RUN: wall %s s, CPU %.2f s, peak RSS %d MB\n' "$p" "$rw" "$(echo "$ru + $rs" | bc)" \
        "$((rrss / 1024))"
    "$tui" report --json "$run" | jq 'del(.run.dir)' >"whole-$p.json"
    for n in $ranks; do
        rm -f time.* steps summary.h5 open.time
        start=$(date +%s.%N)
        if [[ $n = 1 ]]; then
            /usr/bin/time -f '%e %U %S %M' -o time.0 "$tui" reduce --times "$run" -o summary.h5 2>steps
        else
            "$mpirun" --oversubscribe --allow-run-as-root -n "$n" sh -c \
                'exec /usr/bin/time -f "%e %U %S %M" -o time.$OMPI_COMM_WORLD_RANK "$0" --times "$1" -o summary.h5' \
                "$red" "$run" 2>steps
        fi
        end=$(date +%s.%N)
        # Opening SUMMARY: the text report's load and print, timed alone (the
        # JSON's printing and jq's parsing grow with the processes listed).
        /usr/bin/time -f '%e %U %S %M' -o open.time "$tui" report summary.h5 >/dev/null
        read -r open_s ou os orss <open.time
        "$tui" report --json summary.h5 | jq 'del(.run.dir)' >summary.json
        same=no
        cmp -s "whole-$p.json" summary.json && same=yes
        read -r row < <(awk -v p="$p" -v n="$n" -v wall="$(echo "$end - $start" | bc)" \
            -v open="$open_s" -v ocpu="$(echo "$ou + $os" | bc)" -v orss="$((orss / 1024))" -v same="$same" '
            FNR == 1 { r = substr(FILENAME, 6); cpu = $2 + $3; rss = $4 / 1024
                       if (cpu > cmax) cmax = cpu; if (rss > rmax) rmax = rss
                       if (r == 0) { c0 = cpu; r0 = rss } }
            END { printf "%d %d %.2f %.2f %.2f %.0f %.0f %.2f %s %.2f %d\n", p, n, wall, cmax, c0, r0, rmax, open, same, ocpu, orss }' time.*)
        # shellcheck disable=SC2086
        printf '%8s %5s %8s %9s %9s %10s %10s %8s %4s %10s %11s\n' $row
        # From --times: the CPU of reading a part (the slowest rank's), and
        # rank 0's alone (listing and cutting, merging the parts, writing
        # SUMMARY), for the model below.
        read -r part serial < <(awk '
            { cpu = $0; sub(/.*\(CPU /, "", cpu); sub(/ s\).*/, "", cpu); r = $3; sub(/:/, "", r) }
            / read / { if (cpu + 0 > part) part = cpu + 0; next }
            r == 0 { serial += cpu }
            END { printf "%.3f %.3f\n", part, serial }' steps)
        echo "$row $part $serial" >>"$points"
        for f in time.*; do
            read -r w u sy rss <"$f"
            printf '    rank %s: wall %s s, CPU %.2f s, peak RSS %d MB\n' "${f#time.}" "$w" \
                "$(echo "$u + $sy" | bc)" "$((rss / 1024))"
        done
        sed 's/^/    /' steps
        cp summary.json "summary-$p-$n.json"
        across=""
        [ "$n" != 1 ] && [ -f "summary-$p-1.json" ] &&
            { cmp -s "summary-$p-1.json" summary.json && across=", report --json the same as 1 rank's" ||
                across=", report --json NOT the same as 1 rank's"; }
        echo "    SUMMARY $(stat -c %s summary.h5) bytes$across; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    done
done

# The model: CPU seconds of rank 0, the longest,
#   T(P, N) = c + a * P / N + s * P
# a: reading a process's log and merging it into its part, on every rank
# (--times' "read" step, the slowest rank's); s: rank 0's work alone,
# listing and cutting the run, merging the parts' /summary and writing
# SUMMARY (its other steps).  Each fitted by least squares to its own
# step's CPU seconds; T compared with the CPU /usr/bin/time measured.
python3 - "$points" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return my - slope * mx, slope
if len({int(r[0]) for r in rows}) < 2:
    print("model: too few points to fit (two process counts or more wanted)"); sys.exit(0)
ca, a = fit([int(r[0]) / int(r[1]) for r in rows], [float(r[11]) for r in rows])
cs, s = fit([int(r[0]) for r in rows], [float(r[12]) for r in rows])
c = ca + cs
print(f"model: cpu_s = {c:.3f} + {a * 1e6:.1f} us * P/N + {s * 1e6:.1f} us * P")
def model(p, n):
    return c + a * p / n + s * p
for r in rows:
    print(f"  P={r[0]:>7} N={r[1]}: measured {float(r[4]):7.2f} s (part {float(r[11]):6.2f},"
          f" rank 0 alone {float(r[12]):5.2f}), model {model(int(r[0]), int(r[1])):7.2f} s")
for p, n in ((100000, 1), (100000, 2), (100000, 64)):
    print(f"  extrapolated, P={p} N={n}: {model(p, n):.2f} s of CPU on rank 0")
PY
