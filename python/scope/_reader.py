"""Runs read through libscope-reader.so.1 (include/scope/reader.h), with
cffi in ABI mode: the C library builds each table as plain columns and
this module turns them into pandas DataFrames, copying each numeric column
once.  Nothing here computes a figure: every number is the C model's, the
one `scope-tui report --json` prints."""

import os
import weakref

import numpy as np
import pandas as pd
from cffi import FFI

from ._errors import (
    DamagedRunError,
    Error,
    LibraryNotFoundError,
    NoDataError,
    NotARunError,
)

_CDEF = """
typedef struct scope_column {
    const char *name;
    const char *unit;
    int type;
    const void *values;
    const uint8_t *valid;
} scope_column;
typedef struct scope_run scope_run;
typedef struct scope_table scope_table;
typedef struct scope_run_info {
    const char *dir;
    const char *run_id;
    const char *source;
    uint64_t runtime_ns;
    uint64_t start_wall_ns, end_wall_ns;
    size_t processes;
    size_t running;
    size_t roles, attempts, caveats;
    int samples_loaded;
} scope_run_info;
const char *scope_reader_version(void);
int scope_reader_abi(void);
const char *scope_reader_status_name(int status);
int scope_reader_open(const char *path, unsigned attempt, unsigned flags, scope_run **out,
                      char *msg, size_t msglen);
void scope_reader_close(scope_run *run);
const scope_run_info *scope_run_info_get(const scope_run *run);
int scope_run_table(scope_run *run, int which, scope_table **out, char *msg, size_t msglen);
int scope_run_compare(scope_run *a, scope_run *b, scope_table **out, char *msg, size_t msglen);
size_t scope_table_rows(const scope_table *t);
size_t scope_table_columns(const scope_table *t);
const scope_column *scope_table_column(const scope_table *t, size_t i);
void scope_table_free(scope_table *t);
"""

# enum scope_reader_status, enum scope_reader_table, enum scope_column_type
_NOT_FOUND, _NOT_A_RUN, _PERMISSION, _DAMAGED = 1, 2, 3, 4
_NO_LINES, _NO_SAMPLES = 9, 10
_PHASES, _LINES, _SAMPLES, _IO, _GPU, _PROCESSES, _CAVEATS = range(7)
_I64, _U64, _F64, _STR, _BOOL = range(5)
_OPEN_NO_SAMPLES = 0x1
_ABI = 1

_LIBNAME = "libscope-reader.so.1"

ffi = FFI()
ffi.cdef(_CDEF)
_lib = None


def _candidates():
    env = os.environ.get("SCOPE_READER_LIB")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, _LIBNAME)  # copied beside the package
    try:  # cmake --install wrote where it put the library
        from ._libdir import LIBDIR

        yield os.path.join(LIBDIR, _LIBNAME)
    except ImportError:
        pass
    yield _LIBNAME  # the loader's path: an installed scope


def _library():
    global _lib
    if _lib is not None:
        return _lib
    errors = []
    for name in _candidates():
        if os.sep in name and not os.path.exists(name):
            errors.append(f"{name}: no such file")
            continue
        try:
            lib = ffi.dlopen(name)
        except OSError as e:
            errors.append(str(e))
            continue
        if lib.scope_reader_abi() < _ABI:
            raise LibraryNotFoundError(f"{name} has reader ABI {lib.scope_reader_abi()}, need {_ABI}")
        _lib = lib
        return lib
    raise LibraryNotFoundError(
        f"{_LIBNAME} not found (build scope, or set SCOPE_READER_LIB to its path): "
        + "; ".join(errors)
    )


def _raise(status, msg):
    text = ffi.string(msg).decode("utf-8", "replace") or ffi.string(
        _library().scope_reader_status_name(status)
    ).decode()
    if status in (_NOT_FOUND, _NOT_A_RUN, _PERMISSION):
        raise NotARunError(text, status)
    if status == _DAMAGED:
        raise DamagedRunError(text, status)
    if status in (_NO_LINES, _NO_SAMPLES):
        raise NoDataError(text, status)
    raise Error(text, status)


_NUMPY = {_I64: np.int64, _U64: np.uint64, _F64: np.float64, _BOOL: np.uint8}


def _string(p):
    return None if p == ffi.NULL else ffi.string(p).decode("utf-8", "replace")


def _strings(c, n):
    """A string column, each distinct value one Python object (a role's
    name on 100,000 rows is one str, not 100,000)."""
    ptrs = ffi.cast("char **", c.values)
    seen = {}
    out = np.empty(n, dtype=object)
    for i in range(n):
        p = ptrs[i]
        if p != ffi.NULL:
            raw = ffi.string(p)
            out[i] = seen.get(raw) or seen.setdefault(raw, raw.decode("utf-8", "replace"))
    return out


def _view(owner, pointer, nbytes, dtype):
    """The C table's own bytes as a numpy array, with no copy: the array
    keeps the table (owner) alive, and the table is freed when the last
    array viewing it goes."""
    keep = ffi.gc(ffi.cast("char *", pointer), lambda _p, _owner=owner: None)
    return np.frombuffer(ffi.buffer(keep, nbytes), dtype)


def _column(owner, c, n):
    if c.type == _STR:
        return _strings(c, n)
    dtype = np.dtype(_NUMPY[c.type])
    if n == 0:
        return np.empty(0, bool if c.type == _BOOL else dtype)
    values = _view(owner, c.values, n * dtype.itemsize, dtype)
    if c.type == _BOOL:
        values = values.view(np.bool_)  # 0 or 1, one byte each
    if c.valid == ffi.NULL:
        return values
    if c.type == _F64:
        return values  # the library wrote NAN where missing (scope/reader.h)
    missing = _view(owner, c.valid, n, np.uint8) == 0
    # Missing is not zero: a nullable column shows <NA>.
    if c.type == _BOOL:
        return pd.arrays.BooleanArray(values, missing)
    return pd.arrays.IntegerArray(values, missing)


def _frame(table):
    """A DataFrame of the C table, whose columns it views rather than
    copies (pandas may still gather same-typed columns into one block);
    df.attrs["units"] maps each column to its unit ("ns", "fraction",
    "bytes", ...; "" none)."""
    lib = _library()
    owner = ffi.gc(table, lib.scope_table_free)
    n = lib.scope_table_rows(owner)
    data, units = {}, {}
    for i in range(lib.scope_table_columns(owner)):
        c = lib.scope_table_column(owner, i)
        name = ffi.string(c.name).decode()
        data[name] = _column(owner, c, n)
        units[name] = ffi.string(c.unit).decode()
    df = pd.DataFrame(data, copy=False)
    df.attrs["units"] = units
    return df


class Run:
    """An open run; see scope.open.  Each method builds a fresh DataFrame
    from the C model, which stays open until close() (or the object goes)."""

    def __init__(self, path, attempt=None, samples=True):
        lib = _library()
        out = ffi.new("scope_run **")
        msg = ffi.new("char[1024]")
        spath = os.fsencode(path)
        if b"\0" in spath:  # C would read the path only up to it
            raise ValueError("a run's path holds no NUL character")
        if attempt is not None and (not isinstance(attempt, int) or attempt < 1):
            raise ValueError("attempt: 1 the oldest, or None for the newest")
        flags = 0 if samples else _OPEN_NO_SAMPLES
        rc = lib.scope_reader_open(spath, attempt or 0, flags, out, msg, len(msg))
        if rc != 0:
            _raise(rc, msg)
        self._run = out[0]
        self._close = weakref.finalize(self, lib.scope_reader_close, self._run)
        info = lib.scope_run_info_get(self._run)
        self.path = os.fsdecode(spath)
        self.run_id = _string(info.run_id)
        self.source = _string(info.source)
        self.runtime_ns = int(info.runtime_ns)
        self.start_wall_ns = int(info.start_wall_ns)
        self.end_wall_ns = int(info.end_wall_ns)
        self.nprocesses = int(info.processes)
        self.running = int(info.running)
        self.samples_loaded = bool(info.samples_loaded)

    def close(self):
        """Frees the C model; the DataFrames already made stay."""
        self._close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<scope.Run {self.path!r} run_id={self.run_id!r} processes={self.nprocesses}>"

    def _handle(self):
        if not self._close.alive:
            raise Error("the run is closed")
        return self._run

    def _table(self, which):
        out = ffi.new("scope_table **")
        msg = ffi.new("char[1024]")
        rc = _library().scope_run_table(self._handle(), which, out, msg, len(msg))
        if rc != 0:
            _raise(rc, msg)
        return _frame(out[0])

    def phases(self):
        """One row per role and phase: every phase figure (report --json's)."""
        return self._table(_PHASES)

    def lines(self):
        """One row per hot line (lines --json's rows).  NoDataError when
        the run has no line samples."""
        return self._table(_LINES)

    def samples(self):
        """One row per process and interval of its 1 Hz resource series."""
        return self._table(_SAMPLES)

    def io(self):
        """One row per role and phase with I/O: exact (SCOPE_PHASE_IO) and sampled."""
        return self._table(_IO)

    def gpu(self):
        """One row per role and GPU device."""
        return self._table(_GPU)

    def processes(self):
        """One row per process (log) of the run, every attempt's."""
        return self._table(_PROCESSES)

    def caveats(self):
        """One row per caveat: what makes a figure partial or approximate."""
        return self._table(_CAVEATS)

    def compare(self, other):
        """This run (the base, A) against other (B): one row per role,
        phase and figure, as compare --json."""
        if not isinstance(other, Run):
            other = Run(other)
        out = ffi.new("scope_table **")
        msg = ffi.new("char[1024]")
        rc = _library().scope_run_compare(self._handle(), other._handle(), out, msg, len(msg))
        if rc != 0:
            _raise(rc, msg)
        return _frame(out[0])
