"""Bad paths and damaged runs raise a scope.Error subclass carrying the C
reader's message; nothing crashes, hangs or follows a link out of the run."""

import os
import shutil
import subprocess
import sys

import pytest

import scope

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


def test_missing_path(tmp_path):
    with pytest.raises(scope.NotARunError) as e:
        scope.open(tmp_path / "no-such-run")
    assert "no-such-run" in str(e.value)
    assert isinstance(e.value, scope.Error) and isinstance(e.value, FileNotFoundError)


def test_nul_in_path(tmp_path):
    # "RUN\0x" must not open RUN: C reads a path up to its first NUL.
    with pytest.raises(ValueError):
        scope.open(str(tmp_path) + "\0x")


def test_empty_dir(tmp_path):
    with pytest.raises(scope.NotARunError):
        scope.open(tmp_path)


def test_plain_file(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("not a run\n")
    with pytest.raises(scope.Error):
        scope.open(f)


def test_damaged_log(tmp_path):
    host = tmp_path / "run" / "workers" / "vm"
    host.mkdir(parents=True)
    (host / "w_20261207T0000-000000_1_00000000.scope").write_bytes(b"\x00garbage" * 512)
    with pytest.raises(scope.DamagedRunError) as e:
        scope.open(tmp_path / "run")
    assert str(e.value)


@pytest.mark.parametrize("name", ["damaged-heap.h5", "damaged-links.h5"])
def test_damaged_hdf5(name):
    with pytest.raises(scope.Error) as e:
        scope.open(os.path.join(FIXTURES, "scope-profiler-h5", name))
    assert name in str(e.value)


def test_damaged_hdf5_quiet_under_faulthandler():
    """libhdf5 crashes on damaged-heap.h5 in the loader's forked child; the
    child must end by the kernel's default action, not through the host's
    handler: Python's faulthandler, enabled on its own copy of standard
    error as pytest enables it, printed "Fatal Python error: Segmentation
    fault" beside the clean exception."""
    path = os.path.join(FIXTURES, "scope-profiler-h5", "damaged-heap.h5")
    code = ("import faulthandler, os, scope, sys\n"
            "faulthandler.enable(file=os.fdopen(os.dup(2), 'w'))\n"
            "try:\n    scope.open(sys.argv[1])\n"
            "except scope.Error as e:\n    print(type(e).__name__)\n")
    p = subprocess.run([sys.executable, "-c", code, path],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().endswith("Error"), p.stdout
    assert "Fatal Python error" not in p.stderr, p.stderr
    assert p.stderr == "", p.stderr


def test_fifo_path(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(scope.NotARunError):
        scope.open(fifo)


def copy_run(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(os.path.join(FIXTURES, "compare-runs", "base"), run)
    host = next((run / "workers").iterdir())
    return run, host


def test_symlink_and_fifo_in_run_dir(tmp_path):
    """A link and a FIFO planted beside the logs are never followed or
    opened: the run reads (in a child, so that a hang fails, not blocks),
    and the caveats or the open say what was left out."""
    run, host = copy_run(tmp_path)
    secret = tmp_path / "secret.scope"
    log = next(host.iterdir())
    shutil.copy(log, secret)
    os.symlink(secret, host / "w_20261207T1348-d486bf_1_linked00.scope")
    os.mkfifo(host / "w_20261207T1348-d486bf_2_fifo0000.scope")
    code = (
        "import scope, sys\n"
        "try:\n"
        f"    r = scope.open({str(run)!r})\n"
        "except scope.Error as e:\n"
        "    print('error', e); sys.exit(0)\n"
        "print('processes', r.nprocesses)\n"
        "print('\\n'.join(r.caveats().text))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "linked00" in out.stdout and "fifo0000" in out.stdout, out.stdout
    assert "processes 1" in out.stdout  # the real log alone


def test_closed_run(tmp_path):
    run, _ = copy_run(tmp_path)
    r = scope.open(run)
    r.close()
    with pytest.raises(scope.Error, match="closed"):
        r.phases()


def test_library_not_found(tmp_path):
    env = dict(os.environ, SCOPE_READER_LIB=str(tmp_path / "libnone.so"))
    code = "import scope\ntry:\n    scope.open('.')\nexcept scope.LibraryNotFoundError as e:\n    print(e)\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert "libscope-reader.so.1 not found" in out.stdout, out.stdout + out.stderr
