/*
 * The formats `scope-tui export` writes, one row each.  A row's writer
 * gets the loaded model, the path the run was loaded from (for a format
 * that reads more than the model holds, such as a trace window's events)
 * and a descriptor to write through: a fresh, empty file the command
 * renames over the user's OUT only when the writer succeeds, so a failed
 * export never destroys an earlier one.  A writer never opens that file by
 * a name (cmd_export.c says why) and leaves the descriptor open.
 */
#ifndef SCOPE_EXPORT_FORMATS_H
#define SCOPE_EXPORT_FORMATS_H

#include "run_model.h"

#include <stddef.h>
#include <stdio.h>

typedef struct export_format {
    const char *name;    /* --format NAME */
    const char *summary; /* one line for --help */
    /* Returns 0, or -1 with one plain line in msg saying what failed. */
    int (*write)(const run_model *m, const char *run, int fd, char *msg, size_t msglen);
} export_format;

/* A stream writing through fd (a duplicate of it, which fclose closes), or
 * NULL with msg set. */
FILE *export_stream(int fd, char *msg, size_t msglen);

/* Closes a stream export_stream opened, after a writer's document printed
 * with status rc (0, or -1 with errno set, or 0 for out of memory): returns
 * 0, or -1 with msg saying "cannot write WHAT: why". */
int export_stream_close(FILE *f, int rc, const char *what, char *msg, size_t msglen);

/* Every format, NULL-terminated, in the order --help lists them. */
extern const export_format *const export_formats[];

/* The report's JSON document (docs/json.md), the same as report --json. */
extern const export_format export_format_json;
/* The trace windows as a Chrome trace (export_chrome.c). */
extern const export_format export_format_chrome;

/* The sampled call paths in speedscope's file format (export_speedscope.c). */
extern const export_format export_format_speedscope;

/* The whole model in scope's HDF5 layout (run_h5_layout.h, docs/hdf5.md),
 * which run_load reads back. */
extern const export_format export_format_hdf5;
/* The model as /summary, with the model's tables and without the
 * processes' (docs/hdf5.md, "The summary"): SUMMARY, which the loader reads
 * as one partial model.  Not a format of `export`; export of a model that
 * has no processes' tables (one merged from parts) writes it. */
extern const export_format export_format_hdf5_summary;
/* /summary alone: a part of scope-reduce (reduce_run.h), which rank 0
 * merges.  Not a format of `export`. */
extern const export_format export_format_hdf5_part;

#endif
