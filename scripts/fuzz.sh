#!/usr/bin/env bash
# Fuzzes the event-log reader and the analysis with libFuzzer.
#
#   scripts/fuzz.sh [--seconds N] [--target NAME|all] [--jobs N]
#
# Configures a clang build with ASan+UBSan into build-fuzz/, builds the fuzz
# targets and the corpus writer, writes a fresh seed corpus of real logs into
# build-fuzz/corpus/, replays the saved inputs under tests/fuzz/regressions/,
# then fuzzes each chosen target for N seconds (default 60).  Inputs that grew
# coverage are kept in build-fuzz/corpus-found/ across runs; crashing inputs
# land in build-fuzz/artifacts/.  Exits non-zero when anything crashed.
#
# Targets: fuzz_log_reader (whole files, the default; before fuzzing it also
# replays the megabytes of frame magics and the compression bomb of
# `make_corpus --mode reader-stress` with a 5-second timeout; it reads each
# input from memory and as a file), fuzz_log_suffix (bytes after a valid
# header), fuzz_log_records (decompressed frame content, with a
# decode/encode round trip), fuzz_run_load (a run of up to three logs written
# through the real writer from record streams, loaded, merged and printed as
# the text report and JSON, and their hot lines symbolized and printed; before
# fuzzing it also replays the large runs of `make_corpus --mode stress` with a
# 5-second timeout), fuzz_tui (the same runs walked through every view of the
# browser, headless), fuzz_lines_symbolize (module files of any content
# through the symbolizer), fuzz_sp_import (HDF5 files of any content through
# the scope-profiler importer and the real HDF5 library; seeded with
# tests/fixtures/scope-profiler-h5); `all` runs each for N seconds.
#
# --jobs N (default 2, or $SCOPE_JOBS) is both the build's parallelism and
# how many targets fuzz at once, each on one CPU for its N seconds; the
# replays before fuzzing run one at a time.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
seconds=60
target=fuzz_log_reader
jobs="${SCOPE_JOBS:-2}"

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

while (($#)); do
    case "$1" in
    --seconds) seconds="${2:?--seconds needs a value}"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --target) target="${2:?--target needs a value}"; shift 2 ;;
    --target=*) target="${1#*=}"; shift ;;
    --jobs) jobs="${2:?--jobs needs a value}"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "fuzz.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds < 1)); then
    echo "fuzz.sh: --seconds wants a positive whole number, not '$seconds'" >&2
    exit 2
fi

all_targets=(fuzz_log_reader fuzz_log_suffix fuzz_log_records fuzz_run_load fuzz_tui
    fuzz_lines_symbolize fuzz_h5_scope fuzz_sp_import)
declare -A corpus_mode=([fuzz_log_reader]=file [fuzz_log_suffix]=suffix [fuzz_log_records]=records
    [fuzz_run_load]=run [fuzz_tui]=run [fuzz_lines_symbolize]=elf [fuzz_h5_scope]=h5scope
    [fuzz_sp_import]=h5)
if [[ "$target" == all ]]; then
    targets=("${all_targets[@]}")
elif [[ -n "${corpus_mode[$target]:-}" ]]; then
    targets=("$target")
else
    echo "fuzz.sh: unknown target '$target' (one of: ${all_targets[*]} all)" >&2
    exit 2
fi

# Packages (clang and its libFuzzer runtime in libclang-rt-dev) come from
# scripts/setup.sh, which does nothing when everything is already installed.
if [[ -f "$root/scripts/setup.sh" ]]; then
    bash "$root/scripts/setup.sh"
fi
if ! command -v clang >/dev/null 2>&1; then
    echo "fuzz.sh: needs clang with libFuzzer (Debian: apt-get install clang libclang-rt-dev)" >&2
    exit 1
fi

echo "== configure ($build)"
# CC only counts when the build folder is new: a folder once configured with
# another compiler starts over.
if [[ -f "$build/CMakeCache.txt" ]] &&
    ! grep -qE '^CMAKE_C_COMPILER:[A-Z]+=.*clang[^/]*$' "$build/CMakeCache.txt"; then
    echo "fuzz.sh: $build was configured without clang; configuring it afresh" >&2
    rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
fi
CC=clang cmake -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSCOPE_SANITIZE=ON -DSCOPE_BUILD_FUZZ=ON -DSCOPE_BUILD_BENCH=OFF >/dev/null
echo "== build"
cmake --build "$build" -j "$jobs" --target make_corpus make_h5_corpus "${targets[@]}"

bin_of() {
    # Ninja and Makefiles both put the targets under tests/fuzz/.
    echo "$build/tests/fuzz/$1"
}

# The targets that feed damaged files to the HDF5 library: the importer
# (which reads in a child process) and our own export's reader (which does
# not: a damaged export can still crash scope-tui inside libhdf5, a known
# limit that tests/fuzz/README.md states).
hdf5_target() {
    [[ "$1" == fuzz_sp_import || "$1" == fuzz_h5_scope ]]
}

# The crash artifacts of target $1 from this run, each replayed: a crash
# whose innermost frame (past the sanitizers' and libFuzzer's own, an
# allocation past the memory limit, libc's string routines, which libhdf5
# calls with the lengths it read from the file, and libc's unnamed frames,
# such as the return from the timeout's signal) lies in libhdf5 is the
# library's, said and kept, not a failure; any other fails.  Returns 1 when
# one is not the library's.
judge_hdf5_crashes() {
    local t=$1 a out frame failed=0
    while IFS= read -r a; do
        local replay_rc=0
        out="$("$(bin_of "$t")" -timeout=10 -rss_limit_mb=2048 "$a" 2>&1)" || replay_rc=$?
        if ((replay_rc == 0)); then
            # Read alone, the input does not crash: what crashed was libhdf5's
            # state left by the inputs before it in the same process (its
            # caches and free lists live across files), which no single input
            # reproduces.  Said and kept, not a failure.
            echo "fuzz.sh: $t: $a crashed during fuzzing but not when read alone (state libhdf5 kept from earlier inputs)" >&2
            continue
        fi
        frame="$(grep -E '^ +#[0-9]+ ' <<<"$out" |
            grep -vE ' in (__interceptor_|__asan|__sanitizer|__lsan|__ubsan|fuzzer::|(malloc|calloc|realloc|free|memcpy|memmove|memset|memcmp|memchr|strdup|strndup|strlen|strnlen|strcpy|strncpy|strcmp|strncmp) )' |
            grep -vE ' in __(mem|str|wmem|wcs)[a-z0-9_]* .*(sysdeps|libc\.so)' |
            grep -vE ' 0x[0-9a-f]+  \([^)]*libc\.so' |
            head -n 1 || true)"
        if [[ "$frame" == *libhdf5* ]]; then
            echo "fuzz.sh: $t: $a crashes inside the HDF5 library itself (a known limit, tests/fuzz/README.md):" >&2
        else
            echo "fuzz.sh: $t: $a crashes outside the HDF5 library:" >&2
            failed=1
        fi
        echo "    ${frame:-no stack}" >&2
    done < <(find "$build/artifacts" -type f -name "$t-*" -newer "$started" | sort)
    return "$failed"
}

timed=()
if chrt -f 1 true 2>/dev/null; then
    timed=(chrt -f 1)
fi

# Where target $1's seed corpus is written.
seeds_of() {
    if [[ "$1" == fuzz_log_reader ]]; then
        echo "$build/corpus"
    else
        echo "$build/corpus-${corpus_mode[$1]}"
    fi
}

mkdir -p "$build/artifacts" "$build/logs"
# Artifacts of earlier runs stay (they may not be saved anywhere else); the
# marker tells this run's crashes from theirs.
started="$build/logs/.started"
touch "$started"
status=0
declare -a summary

for t in "${targets[@]}"; do
    seeds=$(seeds_of "$t")
    found="$build/corpus-found/$t"
    rm -rf "$seeds"
    mkdir -p "$found"
    echo "== seed corpus for $t ($seeds)"
    if [[ "${corpus_mode[$t]}" == h5scope ]]; then
        "$build/tests/fuzz/make_h5_corpus" "$seeds" \
            "$root/tests/fixtures/scope-profiler-h5/line-profile.h5"
    else
        "$build/tests/fuzz/make_corpus" --mode "${corpus_mode[$t]}" "$seeds"
    fi

    # Saved crashers first: a fixed bug must stay fixed.
    regress="$root/tests/fuzz/regressions/$t"
    if compgen -G "$regress/*" >/dev/null; then
        echo "== replaying $(find "$regress" -type f | wc -l) regression input(s) for $t"
        if ! "$(bin_of "$t")" "$regress"/* >"$build/logs/$t-regressions.log" 2>&1; then
            echo "fuzz.sh: $t: a regression input fails again; see $build/logs/$t-regressions.log" >&2
            status=1
        fi
    fi

    # Inputs too large to fuzz that once hung or crashed the reader or the
    # analysis: each must now be read in well under the timeout.  They run
    # at the lowest real-time priority where this script may set it (as
    # root, as CI runs), so that the timeout holds what they cost, not the
    # load beside them: at a load of 30 on 2 cores stress_upward_chain took
    # 13.7 s, and 1.2 s so.
    stress_mode=
    [[ "$t" == fuzz_run_load ]] && stress_mode=stress
    [[ "$t" == fuzz_log_reader ]] && stress_mode=reader-stress
    if [[ -n "$stress_mode" ]]; then
        stress="$build/corpus-$stress_mode"
        rm -rf "$stress"
        "$build/tests/fuzz/make_corpus" --mode "$stress_mode" "$stress"
        echo "== replaying $(find "$stress" -type f | wc -l) stress input(s) for $t"
        if ! ${timed[@]+"${timed[@]}"} "$(bin_of "$t")" -runs=0 -timeout=5 -rss_limit_mb=2048 "$stress" \
            >"$build/logs/$t-stress.log" 2>&1; then
            echo "fuzz.sh: $t: a stress input fails or takes too long; see $build/logs/$t-stress.log" >&2
            status=1
        fi
    fi
done

# The fuzzing itself, $jobs targets at a time: each libFuzzer process runs on
# one thread, so each target still gets its N seconds of one CPU.  The
# replays above ran before, alone, since their inputs must each be read
# within a timeout.
fuzz_one() {
    local t=$1 rc=0
    # The HDF5 targets feed damaged files to the HDF5 library, which crashes
    # on some of them in its own code (tests/fuzz/README.md): fuzzing goes on
    # past a crash, a timeout or an allocation past the limit (-fork=1
    # -ignore_*), each kept as an artifact and judged below by where it
    # happened.
    local keep_going=()
    hdf5_target "$t" &&
        keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    # Writable folder first: libFuzzer adds new inputs to the first one only,
    # so the regenerated seeds stay as make_corpus wrote them.
    "$(bin_of "$t")" ${keep_going[@]+"${keep_going[@]}"} \
        -max_total_time="$seconds" \
        -max_len=1048576 \
        -rss_limit_mb=2048 \
        -timeout=10 \
        -print_final_stats=1 \
        -artifact_prefix="$build/artifacts/$t-" \
        "$build/corpus-found/$t" "$(seeds_of "$t")" >"$build/logs/$t.log" 2>&1 || rc=$?
    echo "$rc" >"$build/logs/$t.rc"
}
for t in "${targets[@]}"; do
    while (($(jobs -rp | wc -l) >= jobs)); do
        wait -n || true
    done
    echo "== fuzzing $t for ${seconds}s"
    rm -f "$build/logs/$t.rc"
    fuzz_one "$t" &
done
wait

for t in "${targets[@]}"; do
    log="$build/logs/$t.log"
    rc=$(cat "$build/logs/$t.rc" 2>/dev/null || echo 1)
    # The last status line carries the run's totals: "#N DONE cov: C ft: F corp: ...".
    last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 |
        grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[A-Za-z]*' || true)"
    execs="$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' || true)"
    rate="$(grep -E '^stat::average_exec_per_sec:' "$log" | awk '{print $2}' || true)"
    if hdf5_target "$t"; then
        # In fork mode libFuzzer exits 1 when any job crashed, ignored or
        # not.  A run that lasted its whole time ("fuzzed for N seconds")
        # is judged by its crashes alone; one that stopped early keeps its
        # exit status.
        if ((rc != 0)) && grep -qE '^INFO: fuzzed for [0-9]+ seconds' "$log"; then
            rc=0
        fi
        judge_hdf5_crashes "$t" || rc=1
    fi
    if ((rc != 0)); then
        status=1
        summary+=("$t: CRASH (exit $rc) after ${execs:-?} execs; log $log")
        grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz:|artifact_prefix|Test unit written)' "$log" |
            head -n 20 >&2 || true
    else
        summary+=("$t: ok, ${execs:-?} execs (${rate:-?}/s), ${last:-no status line}")
    fi
done

echo "== summary (${seconds}s per target)"
printf '  %s\n' "${summary[@]}"
if [[ -n "$(find "$build/artifacts" -type f -newer "$started" -print -quit)" ]]; then
    echo "  new crash artifacts (copy the ones worth keeping to tests/fuzz/regressions/TARGET/):"
    find "$build/artifacts" -type f -newer "$started" -printf '    %p\n' | sort
fi
exit "$status"
