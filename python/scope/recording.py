"""Recording from Python: scope.init, scope.phase, scope.count, scope.flush,
scope.shutdown, through libscope (docs/python.md, "Recording from Python").

    import scope
    scope.init("profile", "learner")
    for batch in data:
        with scope.phase("step"):
            with scope.phase("forward"):
                ...
            scope.count("samples", len(batch))

The calls are those of <scope/scope.h>, made by the C extension
scope._recorder, which links libscope.so: a process that also loads C code
recording with libscope (or runs under LD_PRELOAD=libscope.so) has one
recorder and writes one log.  Every call is safe before init, after
shutdown, from any thread and in a forked child; when recording is off a
phase costs a few tens of nanoseconds.
"""

import os
import sys

from . import _phase_wrappers  # noqa: F401 - installs the decorator's Python half
from . import _recorder
from ._recorder import count, flush, phase, shutdown

__all__ = ["init", "phase", "count", "flush", "shutdown"]

# What a started recorder puts into the C environment for its children
# (docs/recorder.md); copied into os.environ so that code building a
# child's environment from it (subprocess.Popen(env=dict(os.environ, ...)))
# passes them on too.
_EXPORTED = ("SCOPE_PROFILE", "SCOPE_RUN_DIR", "SCOPE_RUN_ID", "SCOPE_ROLE")


def _script_role():
    """The running script's name without .py: what a user calls the
    process ("python3", the interpreter's name, would say nothing)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None) or (sys.argv[0] if sys.argv else "")
    name = os.path.splitext(os.path.basename(path))[0]
    return name if name and name not in ("-c", "-m", "__main__") else None


def init(run_dir=None, role=None):
    """Starts recording into run_dir (None: $SCOPE_RUN_DIR, else
    "scope-run") as role (None: $SCOPE_ROLE, else the script's name).

    Returns True when recording, False when recording could not start (one
    line on stderr says why; the program runs on, unrecorded).  A second call
    while recording changes nothing but the role, as scope_init does.  The
    role is exported as $SCOPE_ROLE with the run's $SCOPE_RUN_DIR, so that
    multiprocessing's workers, forked or spawned, and Python subprocesses
    record into the same run under the same role unless they name their own.
    """
    if role is None:
        role = os.environ.get("SCOPE_ROLE") or _script_role()
    on = _recorder.init(run_dir, role)
    if on:
        if role:
            os.environ["SCOPE_ROLE"] = role
        _sync_environ()
    return on


class _ForkToken:
    """What multiprocessing's after-fork registry holds on to (it keeps weak
    references)."""


_FORK_TOKEN = _ForkToken()


def _in_multiprocessing_child(_token):
    # The child's finalizers were cleared just before this runs; this one
    # runs as the child leaves (multiprocessing.util._exit_function), before
    # os._exit, which skips the recorder's own exit hook: without it, what
    # the child recorded since its last periodic frame would be lost.
    import multiprocessing.util

    multiprocessing.util.Finalize(_FORK_TOKEN, _recorder.shutdown, exitpriority=-100)


def _after_fork_in_child():
    # A multiprocessing child made by fork (its Process or Pool workers)
    # ends with os._exit.  Registered here, in the child, with
    # multiprocessing's after-fork hooks, which it runs after clearing the
    # parent's finalizers; a plain os.fork child never runs them, and leaves
    # through os._exit only if its code says so (then it calls scope.flush).
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        util.register_after_fork(_FORK_TOKEN, _in_multiprocessing_child)


os.register_at_fork(after_in_child=_after_fork_in_child)


def _name_a_preloaded_recorder():
    # Under `scope-tui record -- python3 train.py` (LD_PRELOAD=libscope.so,
    # SCOPE_PROFILE=1) the recorder started before Python did, as role
    # "python3", the program's name, which says nothing of which script
    # ran.  Without $SCOPE_ROLE the script's name says more: scope_init on
    # a running recorder changes only the role (recorder.md 5.1).
    if os.environ.get("SCOPE_ROLE") or "libscope" not in os.environ.get("LD_PRELOAD", ""):
        return
    if os.environ.get("SCOPE_PROFILE", "").lower() not in ("1", "true", "yes", "on"):
        return
    role = _script_role()
    if role:
        _recorder.init(None, role)


_name_a_preloaded_recorder()


def _sync_environ():
    for key in _EXPORTED:
        value = os.getenv(key)  # os.environ is a copy taken at startup
        c_value = _c_getenv(key)
        if c_value is not None and c_value != value:
            os.environ[key] = c_value


def _c_getenv(key):
    # The recorder writes the process's C environment (setenv), which
    # os.environ does not see; ctypes reads it back once per init.
    import ctypes

    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_char_p
    libc.getenv.argtypes = [ctypes.c_char_p]
    raw = libc.getenv(key.encode())
    return os.fsdecode(raw) if raw is not None else None
