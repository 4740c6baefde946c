#!/usr/bin/env bash
# The main job: install what is missing, build, and run scope on the example.
#
# Usage: scripts/run-example.sh [--build-dir DIR]
#
# For now the recorder and the example pipeline do not exist yet, so the last
# step only shows `scope-tui --help`.  Later work fills in the steps below:
# record the example pipeline into a run directory, then open it in scope-tui.
set -euo pipefail

# Locate the repository from this script, so it works from any directory.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

build_dir="$root/build"
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
    -h | --help)
        sed -n '2,8s/^# \{0,1\}//p' "$0"
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
    echo "==> build in $build_dir"
    cmake -S "$root" -B "$build_dir"
    cmake --build "$build_dir" -j "$(nproc 2>/dev/null || echo 2)"
}

# Later: open the recorded run in the browser.  For now: show what scope-tui offers.
step_show() {
    echo "==> scope-tui --help"
    "$build_dir/src/scope-tui" --help
}

step_setup
step_build
# Later work adds a step here that runs the example pipeline under the recorder
# into a fresh run directory, which step_show then opens.
step_show
