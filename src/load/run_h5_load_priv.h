/*
 * What run_h5_loader.c and run_h5_summary.c share: the state of reading one
 * file of scope's HDF5 layout, its tables read whole with their row counts
 * bounded by the file's size, and a failure worded once, naming the file.
 */
#ifndef SCOPE_RUN_H5_LOAD_PRIV_H
#define SCOPE_RUN_H5_LOAD_PRIV_H

#include "run_h5_layout.h"
#include "worker_log.h"

#include <h5_table.h>
#include <stddef.h>
#include <stdint.h>

typedef struct h5_load {
    scope_h5_file *f;
    const char *path;
    worker_log *logs;
    size_t nlogs;
    const h5_process_row *procs;
    uint64_t file_size;
    uint32_t *next_string; /* per process: the next string id to hand out */
    res_proc **res;        /* without logs (a summary): each process's resources, nres */
    size_t nres;
    char *msg;
    size_t msglen;
    int failed;
} h5_load;

/* Fails the load with one line naming the file (the first failure speaks). */
void bad(h5_load *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The whole table, or NULL with the load failed (an empty table is not
 * NULL): at most as many rows as the file's bytes could hold. */
void *read_table(h5_load *l, const run_h5_table *t, size_t *n);
/* The resources of process rows in t (resources, series, phase I/O, GPUs,
 * GPU series): into logs[p].res, or res[p] when the load has no logs. */
void load_resources(h5_load *l, const run_h5_table *const t[5]);

#endif
