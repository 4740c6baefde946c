#!/usr/bin/env bash
# A live run's refresh in the browser: bench/gen_run writes a run of
# PROCS processes x HOURS hours still going (--live, with resources); each
# log is held back by a few frames, and bench_follow appends them back one
# round at a time, timing the follower's refresh next to a full reload.
#
# Usage: bench/bench_follow.sh BUILD_DIR [PROCS] [HOURS] [HELD]
#   (defaults: 1024 processes, 1 hour, 3 frames held back per log)
set -euo pipefail
build=${1:?usage: bench_follow.sh BUILD_DIR [PROCS] [HOURS] [HELD]}
procs=${2:-1024}
hours=${3:-1}
held=${4:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-follow-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$build/bench/scope_gen_run" --out "$tmp/src" --procs "$procs" --hours "$hours" --live \
    --resources >/dev/null
echo "run: $procs processes x $hours h, $(du -sh "$tmp/src" | cut -f1) on disk"
"$build/bench/bench_follow" "$tmp/src" "$tmp/work" --held "$held"
