/*
 * From processes read one by one (worker_log.h) to the model's attempts,
 * header, roles and phase trees with every figure the views print.
 */
#ifndef SCOPE_RUN_MERGE_H
#define SCOPE_RUN_MERGE_H

#include "arena.h"
#include "run_model.h"
#include "worker_log.h"

/* Attempts, roles, phase trees and every figure, from m->workers and their
 * logs (logs[i] is m->workers[i]).  What lasts as long as the model is
 * taken from mem.  Returns 0, -1 when out of memory, -2 when opt->attempt
 * names no attempt of the run. */
int run_merge(run_model *m, arena *mem, worker_log *logs, const run_options *opt);

/* The same from partial models instead of logs: m->workers are the parts'
 * workers one after the other (part i's first is m->workers[first[i]]),
 * and each part's roles, merged from its own processes (run_merge), are
 * merged into the model's by the same code: the figures added, each
 * process's totals kept, the histograms added bucket by bucket and every
 * figure settled as from logs, so that the model equals the one merged
 * from all the logs, but for exact percentiles (a part keeps its
 * histogram, not every duration; docs/reduce.md).  The model keeps
 * pointers into the parts, which must outlive it.  Returns 0, -1 when out
 * of memory, -2 as run_merge, -3 when a part shows another attempt than
 * the model (its roles are not of the attempt shown).  take: the parts
 * are the caller's to give up (one read from a file, freed with the
 * model): a phase's per-process totals are taken from them where their
 * order is already the model's, not copied. */
int run_merge_parts(run_model *m, arena *mem, run_model *const *parts, const size_t *first,
                    size_t nparts, int take, const run_options *opt);

/* The phase tree and figures of *role, a role of one process whose name,
 * nprocs (1) and workers are set, merged from that process's log as
 * run_merge merges a role (run_worker_role).  The log's merge scratch is
 * reset first, and the inconsistencies the merge counts in it are put back
 * afterwards, so the caveats said at load are not counted twice.  Returns
 * 0, or -1 when out of memory; either way run_role_free frees what it
 * allocated. */
int run_merge_alone(run_model *m, arena *mem, worker_log *logs, run_role *role,
                    const run_options *opt);

/* What merging allocated outside the arena for one role. */
void run_role_free(run_role *role);

/* What run_merge allocated outside the arena, for every role. */
void run_merge_free(run_model *m);

#endif
