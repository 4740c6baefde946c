#!/usr/bin/env bash
# Runs CMD with the Python interpreter able to load a sanitized build's
# extension: a Python not built with ASan must have the ASan runtime loaded
# first (LD_PRELOAD), and CPython's own allocations at exit are not leaks of
# ours (detect_leaks=0, appended so that it wins).  Without SCOPE_ASAN_RUNTIME
# (a plain build) CMD runs as is.
#
# Usage: with_sanitizer.sh CMD...
set -euo pipefail
if [[ -n "${SCOPE_ASAN_RUNTIME:-}" ]]; then
    export LD_PRELOAD="$SCOPE_ASAN_RUNTIME${LD_PRELOAD:+:$LD_PRELOAD}"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
exec "$@"
