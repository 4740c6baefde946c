#!/usr/bin/env bash
# Packaging: installs this build tree into a temporary prefix, then builds
# programs against the installed files alone, the three ways docs/recorder.md
# gives, runs them, and reads their logs back with the installed scope-tui.
#
#   (a) cc prog.c $(pkg-config --cflags --libs scope), and the static variant
#       with libscope.a named explicitly;
#   (b) a CMake project (consumer/) with find_package(Scope): C and C++
#       programs on Scope::scope, a C program on Scope::scope_static;
#   (c) each program runs with its own run directory; its one log must read
#       back with `scope-tui dump` (exit 0) and hold the phases it recorded.
#
#   (d) where the build has the Fortran module (FC given): a Fortran program
#       through pkg-config scope-fortran and through Scope::scope_fortran.
#
#   (e) where the build has the Python recorder ($SCOPE_TEST_PYTHON, and
#       $SCOPE_TEST_PYTHON_DIR, the package's folder under the prefix): a
#       Python program through the installed package scope, and (f) through
#       the package as `pip install ./python` builds it against the prefix's
#       libscope, found by pkg-config.  Not in a sanitized build, whose
#       extension needs the ASan runtime preloaded into Python.
#
# usage: test_install.sh BUILD_DIR CMAKE CC PKG_CONFIG GENERATOR SANITIZE [FC]
#   SANITIZE is ON when the build uses -fsanitize (SCOPE_SANITIZE): the
#   installed library then needs the same flags in every program linking it.
#   FC: the Fortran compiler the build used, when it built recorder/fortran.
set -euo pipefail

build=$1
cmake=$2
cc=$3
pkg_config=$4
generator=$5
sanitize=$6
fc=${7:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run LOG CMD...: runs CMD with its output in LOG; prints the log if it fails.
run() {
    local log=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        echo "FAIL: '$*' failed; its output:" >&2
        tail -40 "$log" >&2
        return 1
    fi
}

# Nothing from the caller's environment may steer the recorder or the build:
# the programs must find everything through the prefix alone.
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE SCOPE_FRAME_INTERVAL \
    SCOPE_CPU_TIME SCOPE_CPU_MIN_US SCOPE_QUIET LD_PRELOAD LD_LIBRARY_PATH \
    PKG_CONFIG_PATH CMAKE_PREFIX_PATH
flags=()
if [ "$sanitize" = ON ]; then
    flags=("-fsanitize=address,undefined" -fno-sanitize-recover=all)
fi

# ---- install ---------------------------------------------------------------

run "$tmp/install.log" "$cmake" --install "$build" --prefix "$prefix" || exit 1

pcs=()
mapfile -t pcs < <(find "$prefix" -path '*/pkgconfig/scope.pc')
if [ "${#pcs[@]}" != 1 ]; then
    echo "FAIL: wanted one pkgconfig/scope.pc under the prefix, found ${#pcs[@]}" >&2
    exit 1
fi
libdir=$(dirname "$(dirname "${pcs[0]}")") # PREFIX/lib or PREFIX/lib/<multiarch>
scope_tui=$prefix/bin/scope-tui
for f in "$prefix/include/scope/scope.h" "$libdir/libscope.a" "$libdir/libscope.so" \
    "$libdir/cmake/Scope/ScopeConfig.cmake" "$libdir/cmake/Scope/ScopeConfigVersion.cmake" \
    "$scope_tui"; do
    [ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
[ "$failures" = 0 ] || exit 1

# The installed files name the prefix, never the build or source tree (a
# check that means something only when the prefix lies outside both).
src=$(cd "$here/../.." && pwd)
case "$prefix/" in
"$src"/* | "$build"/*) src=/nonexistent/src build_ref=/nonexistent/build ;;
*) build_ref=$build ;;
esac
if grep -rIlF -e "$build_ref" -e "$src" "$prefix" >"$tmp/refs"; then
    fail "installed files refer to the build or source tree: $(tr '\n' ' ' <"$tmp/refs")"
fi
for f in "$libdir"/libscope.so.* "$scope_tui"; do
    if LC_ALL=C readelf -d "$f" 2>/dev/null | grep -E 'R(UN)?PATH' | grep -qF -e "$build_ref" -e "$src"; then
        fail "${f#"$prefix"/} keeps a run path into the build tree"
    fi
done

# ---- (a) pkg-config ----------------------------------------------------------

export PKG_CONFIG_PATH=$libdir/pkgconfig
pc_prefix=$("$pkg_config" --variable=prefix scope)
pc_libdir=$("$pkg_config" --variable=libdir scope)
pc_includedir=$("$pkg_config" --variable=includedir scope)
[ "$pc_libdir" -ef "$libdir" ] ||
    fail "scope.pc says libdir=$pc_libdir, but the library is installed in $libdir (prefix=$pc_prefix)"
[ "$pc_includedir" -ef "$prefix/include" ] ||
    fail "scope.pc says includedir=$pc_includedir, but the header is installed in $prefix/include"

mkdir "$tmp/pc"
read -r -a pc_flags <<<"$("$pkg_config" --cflags --libs scope)"
run "$tmp/pc/build.log" "$cc" "${flags[@]}" -o "$tmp/pc/app_pc" "$here/consumer/app.c" \
    "${pc_flags[@]}" || fail "pkg-config build"
# Static: libscope.a named explicitly (-lscope would take the shared library),
# then what it needs: zstd, libunwind (the line sampler's stacks), libdl.
read -r -a pc_cflags <<<"$("$pkg_config" --cflags scope)"
read -r -a zstd_libs <<<"$("$pkg_config" --libs libzstd libunwind)"
run "$tmp/pc/build-static.log" "$cc" "${flags[@]}" -o "$tmp/pc/app_pc_static" \
    "$here/consumer/app.c" "${pc_cflags[@]}" "$pc_libdir/libscope.a" "${zstd_libs[@]}" -pthread -ldl ||
    fail "pkg-config static build"
if [ -n "$fc" ]; then
    for f in "$prefix/include/scope/fortran/scope.mod" "$libdir/libscope_fortran.a" \
        "$libdir/pkgconfig/scope-fortran.pc"; do
        [ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
    done
    read -r -a pcf_flags <<<"$("$pkg_config" --cflags --libs scope-fortran)"
    run "$tmp/pc/build-f.log" "$fc" "${flags[@]}" -o "$tmp/pc/app_pc_f" "$here/consumer/app.f90" \
        "${pcf_flags[@]}" || fail "pkg-config Fortran build"
fi
unset PKG_CONFIG_PATH

# ---- (b) find_package(Scope) ---------------------------------------------------

cp -r "$here/consumer" "$tmp/consumer"
cmake_flags=()
if [ "${#flags[@]}" -gt 0 ]; then
    cmake_flags=("-DCMAKE_C_FLAGS=${flags[*]}" "-DCMAKE_CXX_FLAGS=${flags[*]}"
        "-DCMAKE_Fortran_FLAGS=${flags[*]}")
fi
if [ -n "$fc" ]; then
    cmake_flags+=(-DWITH_FORTRAN=ON -DCMAKE_Fortran_COMPILER="$fc")
fi
run "$tmp/consumer-configure.log" "$cmake" -S "$tmp/consumer" -B "$tmp/consumer/build" \
    -G "$generator" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "${cmake_flags[@]}" || fail "consumer configure"
scope_dir=$(sed -n 's/^Scope_DIR:PATH=//p' "$tmp/consumer/build/CMakeCache.txt" 2>/dev/null || true)
[ "$scope_dir" -ef "$libdir/cmake/Scope" ] ||
    fail "find_package(Scope) found '$scope_dir', not the installed $libdir/cmake/Scope"
run "$tmp/consumer-build.log" "$cmake" --build "$tmp/consumer/build" || fail "consumer build"

# ---- (c) run, and read the logs back ---------------------------------------------

# check NAME EXE PHASE...: runs EXE (with $run_env in its environment) in a
# directory of its own, SCOPE_RUN_DIR=run, role NAME; checks the one log it
# leaves and that the log holds each PHASE (or counter) name.
run_env=()
check() {
    local name=$1 exe=$2
    shift 2
    if [ ! -x "$exe" ]; then
        fail "$name: $exe was not built"
        return
    fi
    local dir=$tmp/runs/$name
    mkdir -p "$dir"
    if ! (cd "$dir" && env "${run_env[@]}" SCOPE_RUN_DIR=run "$exe" "$name" >out 2>&1); then
        fail "$name: the program failed: $(head -5 "$dir/out")"
        return
    fi
    local logs=()
    mapfile -t logs < <(find "$dir/run/workers" -name '*.scope' 2>/dev/null)
    if [ "${#logs[@]}" != 1 ]; then
        fail "$name: wanted one log under run/workers, found ${#logs[@]}"
        return
    fi
    local rc=0
    "$scope_tui" dump "${logs[0]}" >"$dir/dump" 2>&1 || rc=$?
    [ "$rc" = 0 ] || fail "$name: scope-tui dump exited $rc: $(tail -3 "$dir/dump")"
    grep -qF "role \"$name\"" "$dir/dump" || fail "$name: the log does not name role $name"
    local want
    for want in "$@"; do
        grep -qE "^  STRING [0-9]+ \"$want\"\$" "$dir/dump" ||
            fail "$name: the log lacks the name $want"
    done
    grep -qE '^  PHASE_AGG node [0-9]+ count (100|50) ' "$dir/dump" ||
        fail "$name: no phase aggregate with the expected count"
    grep -qE '^  COUNTER ' "$dir/dump" || fail "$name: no counter"
}

c_names=(pkg_outer pkg_inner pkg_items pkg_explicit)
# A program linked with the shared library finds it through LD_LIBRARY_PATH
# (pkg-config adds no run path) or through the RUNPATH CMake gives it.
run_env=(LD_LIBRARY_PATH="$libdir")
check pc "$tmp/pc/app_pc" "${c_names[@]}"
run_env=()
check pc_static "$tmp/pc/app_pc_static" "${c_names[@]}"
check cmake_c "$tmp/consumer/build/app_c" "${c_names[@]}"
check cmake_cxx "$tmp/consumer/build/app_cxx" cxx_outer cxx_inner cxx_items
check cmake_static "$tmp/consumer/build/app_static" "${c_names[@]}"
if [ -n "$fc" ]; then
    run_env=(LD_LIBRARY_PATH="$libdir")
    check pc_fortran "$tmp/pc/app_pc_f" f_outer f_inner f_items
    run_env=()
    check cmake_fortran "$tmp/consumer/build/app_f" f_outer f_inner f_items
fi

if [ -n "${SCOPE_TEST_PYTHON:-}" ] && [ "$sanitize" != ON ]; then
    py_names=(py_outer py_inner py_items)
    mkdir -p "$tmp/py"
    printf '#!/bin/sh\nexec env PYTHONPATH="%s" "%s" "%s" "$@"\n' "$prefix/$SCOPE_TEST_PYTHON_DIR" \
        "$SCOPE_TEST_PYTHON" "$here/app.py" >"$tmp/py/app_installed"
    chmod +x "$tmp/py/app_installed"
    check py_installed "$tmp/py/app_installed" "${py_names[@]}"
    # pip builds in the folder it is given: a copy, so that the source tree
    # gets no build/ or egg-info.
    cp -R "$here/../../python" "$tmp/py/src"
    rm -rf "$tmp/py/src/build" "$tmp/py/src"/*.egg-info
    if run "$tmp/pip.log" env PKG_CONFIG_PATH="$libdir/pkgconfig" "$SCOPE_TEST_PYTHON" -m pip install \
        --quiet --no-build-isolation --no-deps --no-index --target "$tmp/py/pip" "$tmp/py/src"; then
        printf '#!/bin/sh\nexec env PYTHONPATH="%s" "%s" "%s" "$@"\n' "$tmp/py/pip" \
            "$SCOPE_TEST_PYTHON" "$here/app.py" >"$tmp/py/app_pip"
        chmod +x "$tmp/py/app_pip"
        check py_pip "$tmp/py/app_pip" "${py_names[@]}"
    else
        fail "pip install ./python against the prefix failed"
    fi
fi

# The shared programs load the installed library, and the static ones none.
for exe in "$tmp/consumer/build/app_c" "$tmp/consumer/build/app_cxx"; do
    [ -x "$exe" ] || continue
    lib=$(ldd "$exe" | awk '$1 ~ /^libscope\.so/ {print $3}')
    if [ -z "$lib" ] || ! [ "$lib" -ef "$libdir/${lib##*/}" ]; then
        fail "${exe##*/} loads libscope from '${lib:-nowhere}', not from $libdir"
    fi
done
for exe in "$tmp/pc/app_pc_static" "$tmp/consumer/build/app_static"; do
    [ -x "$exe" ] || continue
    if LC_ALL=C readelf -d "$exe" | grep -q 'NEEDED.*libscope'; then
        fail "${exe##*/} needs libscope.so although it links libscope.a"
    fi
done

if [ "$failures" != 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "packaging: installed into a temporary prefix; pkg-config, find_package(Scope)" \
    "and static builds${fc:+ and Fortran ($fc)}${SCOPE_TEST_PYTHON:+ and Python} ran and their" \
    "logs read back"
