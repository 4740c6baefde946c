/*
 * An open run of the reader API (scope/reader.h) and the builders of its
 * tables, one file per kind of figure: reader_phases.c (phases, I/O,
 * compare), reader_resources.c (samples, GPU), reader_lines.c (lines),
 * reader.c (processes, caveats, opening).
 */
#ifndef SCOPE_READER_RUN_H
#define SCOPE_READER_RUN_H

#include "reader_table.h"
#include "run_lines.h"
#include "run_model.h"

#include <scope/reader.h>

struct scope_run {
    run_model *m;
    scope_run_info info;
    int lines_loaded; /* run_lines_load was called: lines_info holds its answer */
    run_lines_info lines_info;
};

/* Each fills the empty table t from the run; returns SCOPE_READER_OK or an
 * error with msg set.  The caller frees t on error. */
int reader_phases(scope_run *run, scope_table *t, char *msg, size_t msglen);
int reader_io(scope_run *run, scope_table *t, char *msg, size_t msglen);
int reader_compare(scope_run *a, scope_run *b, scope_table *t, char *msg, size_t msglen);
int reader_samples(scope_run *run, scope_table *t, char *msg, size_t msglen);
int reader_gpu(scope_run *run, scope_table *t, char *msg, size_t msglen);
int reader_lines(scope_run *run, scope_table *t, char *msg, size_t msglen);

/* Writes the message into msg (when not NULL) and returns status. */
int reader_fail(int status, char *msg, size_t msglen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
