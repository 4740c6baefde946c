#!/usr/bin/env bash
# The README's main command (scripts/run-example.sh) builds only what it
# runs: each program it starts was a target of its build, and no other
# target was built (the test suite's programs took ten minutes of a loaded
# 2-core machine, for a 15 s recording).  cmake is a stand-in first on PATH
# that notes each build's targets and leaves stand-in programs where the
# real build would; those note that they ran.  setup.sh is a stand-in too
# (the script is run from a copy of scripts/), so nothing is installed.
#
# Usage: check_run_example.sh REPO
set -euo pipefail
repo=$(cd "$1" && pwd)
# shellcheck source=e2e/lib.sh
source "$repo/tests/e2e/lib.sh"

mkdir -p "$tmp/repo/scripts" "$tmp/bin"
cp "$repo/scripts/run-example.sh" "$tmp/repo/scripts/"
printf '#!/bin/sh\nexit 0\n' >"$tmp/repo/scripts/setup.sh"

# Each target the real build would make, as the path the script runs it by.
cat >"$tmp/bin/cmake" <<'SH'
#!/bin/bash
[ "$1" = --build ] || exit 0
build=$2
shift 2
targets=()
while (($#)); do
    case "$1" in
    --target) shift; while (($#)) && [[ "$1" != -* ]]; do targets+=("$1"); shift; done ;;
    *) shift ;;
    esac
done
((${#targets[@]})) || targets=(ALL)
printf '%s\n' "${targets[@]}" >>"$RAN_LOG.built"
stub() { mkdir -p "$(dirname "$1")"; printf '#!/bin/sh\necho %s >>"$RAN_LOG"\n' "$2" >"$1"; chmod +x "$1"; }
for t in "${targets[@]}"; do
    case "$t" in
    ALL | scope-tui) stub "$build/src/scope-tui" scope-tui ;;&
    ALL | scope-example-pipeline) stub "$build/examples/pipeline/scope-example-pipeline" scope-example-pipeline ;;&
    ALL | fake_nvml) mkdir -p "$build/tests/recorder/progs/fake-nvml" && : >"$build/tests/recorder/progs/fake-nvml/libnvidia-ml.so.1" ;;
    esac
done
SH
chmod +x "$tmp/bin/cmake"

# check NAME WANT ARGS...: run-example.sh ARGS built exactly WANT (sorted,
# space-separated) and ran the programs of WANT that are programs.
check() {
    local name=$1 want=$2
    shift 2
    local log="$tmp/$name"
    if ! PATH="$tmp/bin:$PATH" RAN_LOG="$log" bash "$tmp/repo/scripts/run-example.sh" \
        --build-dir "$tmp/build-$name" "$@" </dev/null >"$log.out" 2>&1; then
        fail "$name: run-example.sh failed: $(cat "$log.out")"
        return
    fi
    local built ran
    built=$(sort -u "$log.built" 2>/dev/null | tr '\n' ' ')
    ran=$(sort -u "$log" 2>/dev/null | tr '\n' ' ')
    [ "$built" = "$want " ] || fail "$name: built '${built% }', wanted '$want' (ALL: every target, the tests' programs too)"
    [ "$ran" = "scope-example-pipeline scope-tui " ] || fail "$name: ran '${ran% }', wanted the example and scope-tui"
}
check plain "scope-example-pipeline scope-tui"
check gpu "fake_nvml scope-example-pipeline scope-tui" --gpu-stand-in

finish
echo "ok: run-example.sh builds only the browser, the example (with libscope) and, for --gpu-stand-in, the stand-in NVML"
