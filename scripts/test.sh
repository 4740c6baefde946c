#!/usr/bin/env bash
# Install what is missing, configure, build and run every test through CTest.
#
# Usage: scripts/test.sh [--sanitize | --tsan] [--quick] [--under-load] [--build-dir DIR]
#   (no flag)         plain build in build/
#   --quick           the quick loop only: the tests labelled quick, the unit
#                     tests and the checks of the sources (no program is
#                     recorded end to end); combines with the others
#   --sanitize        AddressSanitizer + UndefinedBehaviorSanitizer build with
#                     warnings as errors, in build-asan/
#   --tsan            ThreadSanitizer build in build-tsan/: the recorder,
#                     analysis and unit tests, but for the few TSan cannot run
#                     (named, with why, in this script)
#   --under-load      run ctest beside two busy loops (shell processes of your
#                     own, one per core of a 2-core machine) for its whole
#                     duration, as a busy machine would; they are killed
#                     however the script ends (Ctrl-C included).  Combines
#                     with --sanitize or --tsan.  No test may fail for it.
#   --build-dir DIR   build in DIR instead (relative to the current directory)
# Extra CMake options can be given in the environment: SCOPE_CMAKE_ARGS="-DX=Y ...".
# The exit status is ctest's (or that of the step that failed before it).
set -euo pipefail

# Locate the repository from this script, so it works from any directory.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

sanitize=0
tsan=0
quick=0
under_load=0
build_dir=""
while (($# > 0)); do
    case "$1" in
    --sanitize) sanitize=1 ;;
    --tsan) tsan=1 ;;
    --quick) quick=1 ;;
    --under-load) under_load=1 ;;
    --build-dir)
        if (($# < 2)); then
            echo "test.sh: --build-dir needs a directory" >&2
            exit 2
        fi
        build_dir=$2
        shift
        ;;
    --build-dir=*) build_dir=${1#--build-dir=} ;;
    -h | --help)
        sed -n '2,22s/^# \{0,1\}//p' "$0"
        exit 0
        ;;
    *)
        echo "test.sh: unknown argument: $1 (try --help)" >&2
        exit 2
        ;;
    esac
    shift
done

if ((sanitize && tsan)); then
    echo "test.sh: --sanitize and --tsan build apart: give one" >&2
    exit 2
fi

cmake_args=()
ctest_args=()
if ((tsan)); then
    : "${build_dir:=$root/build-tsan}"
    cmake_args+=(-DSCOPE_TSAN=ON -DSCOPE_WERROR=ON -DSCOPE_BUILD_BENCH=OFF)
    # The tests of the threads that record, the writer that reads them, and
    # the analysis of what they wrote.  Left out, because TSan cannot run them:
    #   test_recorder_fork, test_analysis, test_report_cli, test_h5_export:
    #     their programs fork
    #     while the recorder's writer thread runs, and the child starts a
    #     writer of its own; TSan does not support new threads after a fork of
    #     a multi-threaded process (it ends the child).
    #   test_recorder_preload: LD_PRELOADs libscope into programs built
    #     without TSan, whose runtime must be the first library loaded.
    #   test_log_writer_alloc: defines malloc itself, which TSan's runtime owns.
    #   test_recorder_exit_line: its program forks while the recorder's
    #     writer runs, and the child records, as in test_recorder_fork.
    #   test_recorder_signals: under TSan, about one run in ten of a SIGTERM
    #     sent right after start leaves the program asleep with nothing
    #     pending and no log frame for the signal (TSan runs a program's
    #     handlers deferred, outside the kernel's signal frame); the plain
    #     and ASan runs hold every case of it, 40 rounds of that one.
    #   test_recorder_snapshot_procs: the snapshot cases that fork or take
    #     SIGTERM and SIGINT, for the reasons of the two above.
    #   test_recorder_lines, test_recorder_fork_lines,
    #   test_recorder_signals_lines: the line sampler's end-to-end cases and
    #     the line-sampling runs of the two above.  Besides forking threaded
    #     programs and preloading, they sample threads the programs start,
    #     which a TSan build of libscope cannot follow (its runtime owns
    #     pthread_create; docs/recorder.md 15.1).  The sampler's storage and
    #     handler run under TSan in test_lines_store.
    ctest_args+=(-L 'recorder|analysis|unit'
        -E '^(test_recorder_fork|test_analysis|test_report_cli|test_h5_export|test_recorder_preload|test_log_writer_alloc|test_recorder_exit_line|test_recorder_signals|test_recorder_snapshot_procs|test_recorder_lines|test_recorder_fork_lines|test_recorder_signals_lines)$')
    # Stop at the first report; races outside the recorder that are the
    # tests' own are suppressed in tests/recorder/tsan.supp, each with why.
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/recorder/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
elif ((sanitize)); then
    : "${build_dir:=$root/build-asan}"
    # Benchmarks are left out: their figures mean nothing under sanitizers, and
    # the plain build already compiles them.
    cmake_args+=(-DSCOPE_SANITIZE=ON -DSCOPE_WERROR=ON -DSCOPE_BUILD_BENCH=OFF)
    # Stop at the first report with a stack trace, and turn on the checks ASan
    # leaves off by default.  Anything already in the environment is appended,
    # so it wins (the sanitizers take the last value of a repeated option).
    export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
else
    : "${build_dir:=$root/build}"
fi
if ((quick)); then
    # With --tsan's -L too, a test must match both (ctest ANDs its -L).
    ctest_args+=(-L quick)
fi
if [[ -n "${SCOPE_CMAKE_ARGS:-}" ]]; then
    # Word splitting is the point here: the variable holds several options.
    read -r -a extra <<<"$SCOPE_CMAKE_ARGS"
    cmake_args+=("${extra[@]}")
fi

jobs=$(nproc 2>/dev/null || echo 2)

echo "==> setup"
bash "$root/scripts/setup.sh"

echo "==> configure $build_dir"
cmake -S "$root" -B "$build_dir" "${cmake_args[@]}"

echo "==> build ($jobs jobs)"
cmake --build "$build_dir" -j "$jobs"

# Busy loops beside ctest, for --under-load: the CPU contention of a loaded
# machine, so that a test whose verdict rests on timing or scheduling shows
# it here rather than on someone else's machine.  Each loop is a subshell of
# this script; the trap ends them by their own ids on any exit (the EXIT trap
# also runs after HUP, INT and TERM, which are turned into exits for it).
load_pids=()
stop_load() {
    local pid
    for pid in ${load_pids[@]+"${load_pids[@]}"}; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in ${load_pids[@]+"${load_pids[@]}"}; do
        wait "$pid" 2>/dev/null || true
    done
    load_pids=()
}
if ((under_load)); then
    trap stop_load EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    for _ in 1 2; do
        (while :; do :; done) &
        load_pids+=($!)
    done
    echo "==> under load: two busy loops run beside ctest (pids ${load_pids[*]})"
fi

echo "==> ctest ($jobs jobs)"
# ctest's status is the script's, so it is kept rather than left to set -e.
# --no-tests=error: a build that registers no tests must not pass as green.
# Tests run $jobs at a time; those that time what a program does run alone
# (RUN_SERIAL in their CMakeLists.txt), so a neighbour cannot take their CPU.
status=0
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j "$jobs" \
    ${ctest_args[@]+"${ctest_args[@]}"} || status=$?
if ((under_load)); then
    stop_load
    echo "==> busy loops stopped"
fi
if ((status == 0)); then
    echo "==> all tests passed ($build_dir)"
else
    echo "==> ctest failed with status $status ($build_dir)" >&2
fi
exit "$status"
