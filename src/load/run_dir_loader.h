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

/* Reads part `part` (0 .. nparts-1) of the run directory dir's logs into b,
 * as the loader reads them all: consecutive logs in path order, the parts
 * about equal in bytes and cut between host folders where there are enough
 * of them (scope-reduce, docs/reduce.md).  The parts of every `part` in
 * order are the loader's processes in its order.  *nread: how many logs this
 * part read (0: it holds none, RUN_OK; b is left empty).  An error is the
 * loader's for the whole directory (no such directory, no logs at all). */
enum run_load_error run_dir_load_part(run_model_builder *b, const char *dir, const run_options *opt,
                                      unsigned part, unsigned nparts, size_t *nread, char *msg,
                                      size_t msglen);

#endif
