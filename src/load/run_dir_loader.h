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

/* Rank 0 of a reduction: lists dir's logs once and cuts them into nparts
 * parts as run_dir_load_part does, into *out (malloc'd, *outlen bytes): for
 * each log in order its part in decimal and its path, each ended by a NUL.
 * Every rank reads its part from these bytes (run_dir_load_cut), so that a
 * run still being written is cut once, not once by each rank.  0, or -1
 * with msg set (the loader's words: no such directory, no logs). */
int run_dir_cut(const char *dir, unsigned nparts, char **out, size_t *outlen, char *msg,
                size_t msglen);

/* Reads part `part` of a cut (run_dir_cut's bytes) into b, as
 * run_dir_load_part reads its part. */
enum run_load_error run_dir_load_cut(run_model_builder *b, const char *dir, const run_options *opt,
                                     const char *cut, size_t cutlen, unsigned part, size_t *nread,
                                     char *msg, size_t msglen);

#endif
