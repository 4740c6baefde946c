"""The exceptions of the scope package: every one a scope.Error."""


class Error(Exception):
    """Anything scope could not do; str() is the C library's message."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class LibraryNotFoundError(Error, ImportError):
    """libscope-reader.so.1 was not found (build it, or set $SCOPE_READER_LIB)."""


class NotARunError(Error, FileNotFoundError):
    """The path is missing, or not a run directory, HDF5 export or
    scope-profiler file (or is a symlink, FIFO or other special file)."""


class DamagedRunError(Error):
    """The run could be found but not read: a damaged log or file."""


class NoDataError(Error):
    """The run has none of what was asked: lines of a run without line
    samples, samples of a run opened with samples=False."""


# Shown as scope.NotARunError, where users catch them, not scope._errors.
for _cls in (Error, LibraryNotFoundError, NotARunError, DamagedRunError, NoDataError):
    _cls.__module__ = "scope"
