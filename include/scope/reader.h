/*
 * scope/reader.h: the stable C reader API of libscope-reader.so.1.
 *
 * Opens a run (a run directory, one of scope's HDF5 exports, or a
 * scope-profiler file) through the same loaders and model as `scope-tui
 * report --json` and `lines --json`, and hands its figures out as tables:
 * plain C columns of one type each, nrows long, in long form (one row per
 * role and phase, per line, per process and interval, ...).  The phase
 * figures' columns come from the model's figure table, so a figure added
 * there appears here as a new column with no change to this header.
 * docs/python.md lists every table's columns and units; the Python package
 * `scope` (python/) is one caller.
 *
 * Stability: symbols carry the version node SCOPE_READER_1 (a linker
 * version script); structs are only ever handed out by pointer and may grow
 * at their end; enumerations only gain values.  A column's name never
 * changes meaning.
 *
 * Errors: every function that can fail returns an enum scope_reader_status
 * and writes one plain line (naming the path) into msg[0..msglen-1] when
 * msg is not NULL.  No function prints or exits.
 *
 * Threads: a run and its tables may be used by one thread at a time;
 * distinct runs are independent.
 */
#ifndef SCOPE_READER_H
#define SCOPE_READER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* This header's ABI: a library answering a larger number has kept every
 * symbol and member of this one. */
#define SCOPE_READER_ABI 1

enum scope_reader_status {
    SCOPE_READER_OK = 0,
    SCOPE_READER_NOT_FOUND = 1,   /* no such path */
    SCOPE_READER_NOT_A_RUN = 2,   /* a path that is no run: no logs, a special file, ... */
    SCOPE_READER_PERMISSION = 3,  /* cannot be listed or read */
    SCOPE_READER_DAMAGED = 4,     /* logs or a file, but none could be read */
    SCOPE_READER_NO_ATTEMPT = 5,  /* the attempt asked for is not in the run */
    SCOPE_READER_NO_MEMORY = 6,   /* out of memory */
    SCOPE_READER_IO = 7,          /* a read failed */
    SCOPE_READER_INVALID = 8,     /* a bad argument (NULL, unknown table) */
    SCOPE_READER_NO_LINES = 9,    /* lines asked of a run without line samples */
    SCOPE_READER_NO_SAMPLES = 10, /* samples asked of a run opened without them */
};

/* What the tables hold. */
enum scope_reader_table {
    SCOPE_TABLE_PHASES = 0,    /* one row per role and phase: every phase figure */
    SCOPE_TABLE_LINES = 1,     /* one row per hot line, as `lines --json` */
    SCOPE_TABLE_SAMPLES = 2,   /* one row per process and interval of its 1 Hz series */
    SCOPE_TABLE_IO = 3,        /* one row per role and phase with I/O, exact and sampled */
    SCOPE_TABLE_GPU = 4,       /* one row per role and GPU device */
    SCOPE_TABLE_PROCESSES = 5, /* one row per process (log) of the run */
    SCOPE_TABLE_CAVEATS = 6,   /* one row per caveat */
};

enum scope_column_type {
    SCOPE_COL_I64 = 0,  /* int64_t values */
    SCOPE_COL_U64 = 1,  /* uint64_t values */
    SCOPE_COL_F64 = 2,  /* double values; NAN where not measured, valid 0 there too */
    SCOPE_COL_STR = 3,  /* const char * values, UTF-8 as the program gave it; NULL: none */
    SCOPE_COL_BOOL = 4, /* uint8_t values, 0 or 1 */
};

typedef struct scope_column {
    const char *name;     /* "total_ns", "share", ... */
    const char *unit;     /* "ns", "fraction", "count", "bytes", "bytes/s", "s", "" (none) */
    int type;             /* enum scope_column_type */
    const void *values;   /* nrows values of that type */
    const uint8_t *valid; /* NULL: every value is one; else 0 where the value is missing
                             (a float's value is then NAN) */
} scope_column;

typedef struct scope_run scope_run;
typedef struct scope_table scope_table;

/* Open flags. */
#define SCOPE_OPEN_NO_SAMPLES 0x1u /* skip the 1 Hz samples: phases only, faster */

/* The library's version ("0.1.0") and ABI (SCOPE_READER_ABI it was built with). */
const char *scope_reader_version(void);
int scope_reader_abi(void);

/* A status in words ("not a run"). */
const char *scope_reader_status_name(int status);

/* Opens the run at path.  attempt: 1 the oldest, 0 the newest.  flags:
 * SCOPE_OPEN_*.  Returns SCOPE_READER_OK with *out set, or an error with
 * *out NULL and the reason in msg. */
int scope_reader_open(const char *path, unsigned attempt, unsigned flags, scope_run **out,
                      char *msg, size_t msglen);
void scope_reader_close(scope_run *run); /* NULL does nothing; its tables stay valid */

/* The run's summary: counts a caller needs without a table. */
typedef struct scope_run_info {
    const char *dir;     /* the path as opened */
    const char *run_id;  /* the attempt shown; NULL: none */
    const char *source;  /* "scope-profiler HDF5, ..." for a file; NULL: a run directory */
    uint64_t runtime_ns; /* of the attempt shown */
    uint64_t start_wall_ns, end_wall_ns;
    size_t processes; /* of the attempt shown */
    size_t running;   /* of them, still running */
    size_t roles, attempts, caveats;
    int samples_loaded; /* 0: opened with SCOPE_OPEN_NO_SAMPLES */
} scope_run_info;

/* Valid until the run is closed. */
const scope_run_info *scope_run_info_get(const scope_run *run);

/* Builds table `which` of the run.  Returns SCOPE_READER_OK with *out set
 * (free it with scope_table_free), or an error with *out NULL. */
int scope_run_table(scope_run *run, int which, scope_table **out, char *msg, size_t msglen);

/* Compares run a (the base) with b as `scope-tui compare --json` does: one
 * row per role, phase and figure (long form). */
int scope_run_compare(scope_run *a, scope_run *b, scope_table **out, char *msg, size_t msglen);

size_t scope_table_rows(const scope_table *t);
size_t scope_table_columns(const scope_table *t);
/* Column i (0 .. columns - 1), valid until the table is freed; NULL past the end. */
const scope_column *scope_table_column(const scope_table *t, size_t i);
void scope_table_free(scope_table *t);

#ifdef __cplusplus
}
#endif

#endif
