#!/usr/bin/env bash
# The main job: install what is missing, build, and run scope on the example.
#
# Usage: scripts/run-example.sh [--build-dir DIR] [--gpu-stand-in]
#   --build-dir DIR  where to build (default: build/)
#   --gpu-stand-in   record under the test suite's stand-in NVML (a library
#                    answering with fixed figures: device 0 85% busy, 15% of
#                    it each process's own; device 1 12% busy, none of it
#                    the run's), to see the GPU view on a machine without one
#
# Records the example pipeline (examples/pipeline: a learner and four actor
# processes, 12 to 15 s, source lines sampled: SCOPE_LINES=1) into the fresh
# run directory DIR/example-run, then opens it in the terminal browser:
# `scope-tui DIR/example-run` (H shows the hottest line, q quits).  Without
# a terminal (output piped, or TERM unset) it prints the text report
# instead: `scope-tui report DIR/example-run`.
set -euo pipefail

# Locate the repository from this script, so it works from any directory.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

build_dir="$root/build"
gpu_stand_in=0
while (($# > 0)); do
    case "$1" in
    --build-dir)
        if (($# < 2)); then
            echo "run-example.sh: --build-dir needs a directory" >&2
            exit 2
        fi
        build_dir=$2
        shift
        ;;
    --build-dir=*) build_dir=${1#--build-dir=} ;;
    --gpu-stand-in) gpu_stand_in=1 ;;
    -h | --help)
        sed -n '2,16s/^# \{0,1\}//p' "$0"
        exit 0
        ;;
    *)
        echo "run-example.sh: unknown argument: $1 (try --help)" >&2
        exit 2
        ;;
    esac
    shift
done

step_setup() {
    echo "==> setup"
    bash "$root/scripts/setup.sh"
}

step_build() {
    # Only what the steps below run: the browser (scope-tui), the example
    # (which links libscope, so that is built too) and, for --gpu-stand-in,
    # the stand-in NVML.  The test suite's programs are scripts/test.sh's to
    # build: building them here took ten minutes on a loaded 2-core machine.
    local targets=(scope-tui scope-example-pipeline)
    ((gpu_stand_in)) && targets+=(fake_nvml)
    echo "==> build ${targets[*]} in $build_dir"
    cmake -S "$root" -B "$build_dir"
    cmake --build "$build_dir" -j "$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}"
}

run_dir="$build_dir/example-run"

step_record() {
    echo "==> record the example pipeline into $run_dir"
    # A second run into the same directory would be a second attempt beside
    # the first; start from nothing so the report shows this run alone.
    rm -rf "$run_dir"
    # A SCOPE_RUN_ID left exported in the shell would make this run join an
    # old one, and SCOPE_PROFILE=0 would record nothing to report.
    # SCOPE_LINES=1 samples the source lines of every process (the children
    # inherit it), so the browser's Lines view and H have lines to show;
    # the project folder is this clone, wherever the script is run from.
    local gpu_env=()
    if ((gpu_stand_in)); then
        # SCOPE_NVML_LIBRARY names the NVML the recorder loads, so the
        # stand-in the tests build answers in place of any real driver.
        local nvml_dir="$build_dir/tests/recorder/progs/fake-nvml"
        if [[ ! -e "$nvml_dir/libnvidia-ml.so.1" ]]; then
            echo "run-example.sh: --gpu-stand-in: no $nvml_dir/libnvidia-ml.so.1 (the build of fake_nvml failed?)" >&2
            exit 2
        fi
        gpu_env=(SCOPE_NVML_LIBRARY="$nvml_dir/libnvidia-ml.so.1"
            FAKE_NVML_DEVICES="85,15,30000000000,85899345920,2000000000;12,-,1000000000,85899345920,-")
    fi
    env -u SCOPE_RUN_ID -u SCOPE_PROFILE SCOPE_LINES=1 SCOPE_LINES_PROJECT="$root" "${gpu_env[@]}" \
        "$build_dir/examples/pipeline/scope-example-pipeline" --run-dir "$run_dir"
}

step_browse() {
    # The browser needs a terminal it knows; anywhere else the same figures
    # come as the text report.
    if [[ -t 0 && -t 1 && -n "${TERM:-}" ]] && infocmp "$TERM" >/dev/null 2>&1; then
        echo "==> scope-tui $run_dir   (? lists the keys, q quits)"
        "$build_dir/src/scope-tui" "$run_dir"
        echo "==> the same figures as text: $build_dir/src/scope-tui report $run_dir"
    else
        echo "==> no terminal here: scope-tui report $run_dir"
        "$build_dir/src/scope-tui" report "$run_dir"
        echo "==> in a terminal: $build_dir/src/scope-tui $run_dir"
    fi
}

step_setup
step_build
step_record
step_browse
