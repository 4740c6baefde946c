"""scope: read scope profiler runs into pandas DataFrames, and record
phases from Python programs.

Reading (docs/python.md, "Reading runs"):

    import scope
    run = scope.open("runs/example")
    run.phases()          # one row per role and phase, every figure a column

The reader goes through libscope-reader.so.1, the stable C reader API
(include/scope/reader.h), which wraps the same model as `scope-tui report
--json`; it is found beside this package when installed, else through
$SCOPE_READER_LIB, else on the loader's path.
"""

from ._errors import Error, NotARunError, DamagedRunError, LibraryNotFoundError

# Recording (docs/python.md, "Recording from Python"): the C extension
# scope._recorder over libscope.so.  Where it was not built (no python3-dev
# at install), the reader still imports and these names say why they fail.
try:
    from .recording import init, phase, count, flush, shutdown
except ImportError as _e:  # pragma: no cover - a build without the extension
    _recorder_missing = _e

__version__ = "0.1.0"

__all__ = [
    "Error",
    "NotARunError",
    "DamagedRunError",
    "LibraryNotFoundError",
    "open",
    "Run",
    "init",
    "phase",
    "count",
    "flush",
    "shutdown",
    "__version__",
]


def open(path, attempt=None, samples=True):  # noqa: A001 - the package's verb
    """Open a run: a run directory, an HDF5 export or a scope-profiler file.

    attempt: the run's Nth attempt, 1 the oldest (default: the newest).
    samples: False skips reading the 1 Hz samples (phases only, faster).
    Raises scope.Error (a subclass saying which) with the C reader's message.
    """
    try:
        from ._reader import Run
    except ModuleNotFoundError as e:
        # A pyenv or venv interpreter first on PATH often lacks Debian's
        # packages: say which module and which interpreter, not a bare trace.
        import sys

        raise ModuleNotFoundError(
            f"scope.open needs the module {e.name!r} (Debian's python3-{e.name}, which "
            f"scripts/setup.sh installs), and {sys.executable} cannot import it; "
            "run /usr/bin/python3, or a venv made with --system-site-packages",
            name=e.name,
        ) from e

    return Run(path, attempt=attempt, samples=samples)


def __getattr__(name):
    # Run is imported lazily so that `import scope` works (for the
    # recorder) where the reader's library or pandas is missing.
    if name == "Run":
        from ._reader import Run

        return Run
    if name in ("init", "phase", "count", "flush", "shutdown") and "_recorder_missing" in globals():
        raise ImportError(
            f"scope.{name}: the recorder extension scope._recorder is not built "
            f"({_recorder_missing}); build with python3-dev installed"
        )
    raise AttributeError(f"module 'scope' has no attribute {name!r}")


# The reader's answer to a table the run does not have (lines of a run
# without line samples, samples of one opened with samples=False).
from ._errors import NoDataError  # noqa: E402

__all__.append("NoDataError")
