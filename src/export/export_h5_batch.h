/*
 * Writing scope's HDF5 layout a batch of rows at a time (export_hdf5.c,
 * export_h5_summary.c): a table's rows gathered and appended BATCH_ROWS at
 * a time, so that memory stays one batch a table.
 */
#ifndef SCOPE_EXPORT_H5_BATCH_H
#define SCOPE_EXPORT_H5_BATCH_H

#include "arena.h"
#include "run_h5_layout.h"
#include "run_model.h"

#include <h5_table.h>
#include <stddef.h>
#include <stdint.h>

/* Rows gathered for one table and appended BATCH_ROWS at a time. */
#define BATCH_ROWS 4096

typedef struct batch {
    scope_h5_writer *w;
    const scope_h5_table *t;
    char *rows;
    size_t n;
} batch;

typedef struct export_ctx {
    scope_h5_file *f;
    arena mem; /* strings made for the export (paths, hex) */
    char *msg;
    size_t msglen;
    int failed;
} export_ctx;

/* A name's bytes, "" for none. */
static inline const char *h5_cs(run_str s) {
    return s.s ? s.s : "";
}
/* Fails the export as out of memory. */
void export_oom(export_ctx *x);
int batch_begin(export_ctx *x, batch *b, const run_h5_table *t);
int batch_flush(export_ctx *x, batch *b);
/* The next row, zeroed, or NULL once the export failed. */
void *batch_row(export_ctx *x, batch *b);
void batch_end(export_ctx *x, batch *b);
/* bytes in hex, in the export's arena. */
const char *hex(export_ctx *x, run_str bytes);
/* i, or -1 for SIZE_MAX. */
int64_t index_or_minus1(size_t i);

/* Each process's resources (run_worker.res) into the tables t: resources,
 * their series, their phase I/O, GPUs, GPU series (export_hdf5.c). */
void export_h5_put_resources(export_ctx *x, const run_model *m, const run_h5_table *const t[5]);

/* The model as /summary (run_h5_layout.h; export_h5_summary.c). */
void export_h5_put_summary(export_ctx *x, const run_model *m);

#endif
