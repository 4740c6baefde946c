/*
 * The run-directory loader: RUN/workers/HOST/NAME.scope, one scope log per
 * process, read in parallel (run_log.h).
 */
#ifndef SCOPE_RUN_DIR_LOADER_H
#define SCOPE_RUN_DIR_LOADER_H

#include "run_loader.h"

extern const run_loader run_dir_loader;

/* What the walk of a run directory found: a log to read (why == NULL), or
 * something in its place that is not read (a symbolic link), with why, for
 * a caveat naming it. */
typedef struct run_dir_entry {
    char *path; /* relative to RUN */
    const char *why;
} run_dir_entry;

/* The logs of the run directory dir as the loader finds them, sorted by
 * path: *v (n of them, freed by run_dir_entries_free).  Returns 0, or an
 * errno from listing RUN/workers (ELOOP: it is a symbolic link). */
int run_dir_list_logs(const char *dir, run_dir_entry **v, size_t *n);
void run_dir_entries_free(run_dir_entry *v, size_t n);

#endif
