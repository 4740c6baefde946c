"""Builds the recorder's C extension, scope._recorder, for `pip install
./python` (pyproject.toml holds the rest of the package's metadata).

The extension links libscope.so, found (in this order) in the build tree
named by $SCOPE_BUILD_DIR (a CMake build folder of this repository), or
through pkg-config's `scope` (an installed libscope: `cmake --install`).
Where neither is found the package installs without it: the reader works,
and scope.init/phase raise ImportError saying why.  A build through CMake
(python/recorder.cmake) makes the same module without pip.
"""

import os
import shlex
import subprocess
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def libscope():
    """(include_dirs, library_dirs), or None."""
    build = os.environ.get("SCOPE_BUILD_DIR")
    if build:
        build = os.path.abspath(build)
        lib = os.path.join(build, "recorder")
        if not os.path.exists(os.path.join(lib, "libscope.so")):
            sys.exit(f"setup.py: no libscope.so in {lib} ($SCOPE_BUILD_DIR): build the project first")
        return [os.path.join(HERE, "..", "recorder", "include")], [lib]
    try:
        cflags = subprocess.run(["pkg-config", "--cflags-only-I", "scope"], check=True,
                                capture_output=True, text=True).stdout
        libs = subprocess.run(["pkg-config", "--libs-only-L", "scope"], check=True,
                              capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return ([f[2:] for f in shlex.split(cflags) if f.startswith("-I")],
            [f[2:] for f in shlex.split(libs) if f.startswith("-L")])


found = libscope()
ext_modules = []
if found:
    include_dirs, library_dirs = found
    ext_modules.append(Extension(
        "scope._recorder",
        sources=["scope/_recorder.c"],
        include_dirs=include_dirs,
        library_dirs=library_dirs,
        runtime_library_dirs=library_dirs,  # the libscope it was built against
        libraries=["scope"],
        extra_compile_args=["-std=gnu11", "-O2", "-fvisibility=hidden"],
    ))
else:
    print("setup.py: libscope not found (set SCOPE_BUILD_DIR, or install it so that "
          "`pkg-config scope` finds it): installing without the recorder, scope._recorder",
          file=sys.stderr)

setup(ext_modules=ext_modules)
