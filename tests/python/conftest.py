"""Fixtures of the Python reader's tests (tests/python, run by CTest as
python_reader): the build tree's scope-tui, the example pipeline to record
a run with, and the package and libscope-reader.so.1 of the build, found
through PYTHONPATH and SCOPE_READER_LIB, which CTest sets; nothing is
installed."""

import json
import os
import subprocess
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")


def _need(var):
    value = os.environ.get(var)
    if not value:
        pytest.fail(f"{var} is not set: run these tests through ctest (python_reader)")
    return value


@pytest.fixture(scope="session")
def scope_tui():
    return _need("SCOPE_TUI")


@pytest.fixture(scope="session")
def json_of(scope_tui):
    """The JSON a scope-tui command prints: json_of("report", "--json", RUN)."""

    def run(*args):
        out = subprocess.run([scope_tui, *args], capture_output=True, check=True, timeout=300)
        return json.loads(out.stdout)

    return run


@pytest.fixture(scope="session")
def example_run(tmp_path_factory):
    """The example pipeline (a learner and four actors), recorded short with
    its source lines sampled, as scripts/run-example.sh records it."""
    pipeline = _need("SCOPE_EXAMPLE_PIPELINE")
    tmp = tmp_path_factory.mktemp("example")
    env = dict(os.environ, SCOPE_LINES="1")
    for var in ("SCOPE_PROFILE", "SCOPE_RUN_DIR", "SCOPE_RUN_ID", "SCOPE_ROLE"):
        env.pop(var, None)
    subprocess.run(
        [pipeline, "--quick", "--run-dir", str(tmp / "run"), "--out", str(tmp / "ckpt")],
        env=env, check=True, capture_output=True, timeout=300,
    )
    return str(tmp / "run")


@pytest.fixture(scope="session")
def example_export(example_run, scope_tui, tmp_path_factory):
    """The example run exported to scope's HDF5 layout (docs/hdf5.md)."""
    out = str(tmp_path_factory.mktemp("export") / "run.h5")
    subprocess.run([scope_tui, "export", example_run, "--format", "hdf5", "-o", out],
                   check=True, capture_output=True, timeout=300)
    return out


@pytest.fixture(scope="session")
def profiler_file():
    """An imported scope-profiler file: three MPI ranks."""
    return os.path.join(FIXTURES, "scope-profiler-h5", "mpi-3-ranks.h5")
