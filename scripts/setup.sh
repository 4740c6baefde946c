#!/usr/bin/env bash
# Install every Debian package scope needs to build, test, fuzz and benchmark.
#
# Idempotent: when every package is already installed it touches nothing (no
# apt-get update, no root needed), so the other scripts can call it on every run.
# Runs as root, or through sudo when it is available.
#
# Usage: scripts/setup.sh [--check]
#   --check   only report what is missing; exit 1 if anything is.
set -euo pipefail

# One package a line, grouped by what needs it.  Keep this the single list: the
# README, CI and every other script rely on it being complete.
PACKAGES=(
    # toolchain and build; libtsan2 is gcc's ThreadSanitizer runtime (test.sh --tsan);
    # gfortran builds the recorder's Fortran module (recorder/fortran) and its test
    build-essential gcc cmake pkg-config libtsan2 gfortran
    # libraries: terminal UI, HDF5 import/export (libdeflate: its chunks), log compression, themes,
    # symbolization (libiberty: demangling C++ and Rust names), stack capture, JSON
    libncurses-dev libhdf5-dev libdeflate-dev zlib1g-dev libzstd-dev libyaml-dev libdw-dev libiberty-dev
    libunwind-dev libcjson-dev
    # command-line tools the tests and benchmarks use: h5dump, zstd -dc on logs,
    # real terminals (tmux; ncurses-term for the xterm-direct true-colour
    # terminfo entry), setpriv (util-linux) to drop root, /usr/bin/time for peak
    # memory, python3 to read JSON output back, python3-h5py to read exported
    # HDF5 files as users do (docs/hdf5.md), vim as the real editor the
    # browser's o key is tested against, strace to deliver a signal at a
    # known system call (test_export_output), gdb to count the browser's calls
    # of one function (test_flame_builds_once)
    hdf5-tools zstd tmux ncurses-term util-linux time python3 python3-h5py vim strace gdb
    # a real browser, headless, for the HTML report's tests (test_html.sh)
    chromium
    # unit tests
    check
    # the Python package (python/, docs/python.md): its reader's cffi binding and
    # DataFrames, and its tests (tests/python, pytest); matplotlib for the
    # plot docs/python.md draws with pandas (test_plot_with_pandas)
    python3-cffi python3-numpy python3-pandas python3-pytest python3-matplotlib
    # its recorder, the C extension scope._recorder (Python.h), and pip to build
    # it as `pip install ./python` does (tests/packaging)
    python3-dev python3-pip python3-setuptools
    # clang for libFuzzer, plus its fuzzer and sanitizer runtimes
    clang libclang-rt-dev
    # formatting and benchmarks (callgrind instruction counts; the line
    # sampler's overhead next to perf and gperftools' CPU profiler); perf,
    # xz and binutils (strip, nm, readelf) also for the tests of programs
    # without debug info (test_lines_nodebug, test_lines_perf)
    clang-format valgrind linux-perf libgoogle-perftools-dev xz-utils binutils
    # multi-rank runs under real launchers: Open MPI's mpirun.openmpi,
    # MPICH's mpiexec.hydra (each called by its own name, never through the
    # mpirun alternative, which either may hold), and a single-node Slurm
    # (munged, slurmctld, slurmd) that tests/e2e/slurm_node.sh starts;
    # libmpich-dev so that scope-reduce is built against MPICH as well as
    # Open MPI (docs/reduce.md)
    openmpi-bin libopenmpi-dev mpich libmpich-dev slurm-wlm munge
)

check_only=0
for arg in "$@"; do
    case "$arg" in
    --check) check_only=1 ;;
    -h | --help)
        sed -n '2,10s/^# \{0,1\}//p' "$0"
        exit 0
        ;;
    *)
        echo "setup.sh: unknown argument: $arg" >&2
        exit 2
        ;;
    esac
done

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup.sh: this script needs a Debian-based system (dpkg-query and apt-get)." >&2
    echo "setup.sh: install these packages (or their equivalents) by hand: ${PACKAGES[*]}" >&2
    exit 1
fi

# Print the arguments that are not installed packages, one a line.  A package
# counts as present only when dpkg says "installed": one removed with its
# configuration files left ("config-files") or a half-installed one is missing.
not_installed() {
    local pkg status
    for pkg in "$@"; do
        status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
        if [[ "$status" != "installed" ]]; then
            echo "$pkg"
        fi
    done
}

mapfile -t missing < <(not_installed "${PACKAGES[@]}")

if ((${#missing[@]} == 0)); then
    echo "setup.sh: all ${#PACKAGES[@]} required packages are installed."
    exit 0
fi

echo "setup.sh: missing packages: ${missing[*]}"
if ((check_only)); then
    exit 1
fi

# apt-get needs root.  sudo resets the environment, so DEBIAN_FRONTEND goes
# through env(1) rather than an export.
if ((EUID == 0)); then
    as_root=(env)
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo env)
else
    echo "setup.sh: installing packages needs root, and sudo is not available." >&2
    echo "setup.sh: as root, run: apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi
apt_env=(DEBIAN_FRONTEND=noninteractive)
# A fresh machine may still be running unattended-upgrades; wait for the dpkg
# lock for a while instead of failing at once.
apt_opts=(-o DPkg::Lock::Timeout=300)

# Refresh the package lists only now that something must be installed: they
# may be absent (fresh container) or stale (mirrors drop old versions).
echo "setup.sh: apt-get update"
if ! "${as_root[@]}" "${apt_env[@]}" apt-get "${apt_opts[@]}" update; then
    echo "setup.sh: error: 'apt-get update' failed; check the network and the apt sources." >&2
    exit 1
fi

echo "setup.sh: installing: ${missing[*]}"
if ! "${as_root[@]}" "${apt_env[@]}" apt-get "${apt_opts[@]}" install -y --no-install-recommends \
    "${missing[@]}"; then
    echo "setup.sh: error: 'apt-get install' failed for: ${missing[*]}" >&2
    exit 1
fi

# Check again, so a package apt silently skipped cannot pass unnoticed.
mapfile -t still_missing < <(not_installed "${missing[@]}")
if ((${#still_missing[@]} > 0)); then
    echo "setup.sh: error: still not installed after apt-get: ${still_missing[*]}" >&2
    exit 1
fi
echo "setup.sh: installed ${#missing[@]} package(s); all ${#PACKAGES[@]} required packages are present."
