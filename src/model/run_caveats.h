/*
 * Caveats: every reason a figure may be less than the whole truth, worded
 * once, here, from the workers' logs and the merged model.
 */
#ifndef SCOPE_RUN_CAVEATS_H
#define SCOPE_RUN_CAVEATS_H

#include "arena.h"
#include "run_model.h"
#include "worker_log.h"

/* Appends the caveats of the newest attempt and of workers that could not
 * be placed (logs[i] is m->workers[i]), their texts taken from mem.
 * Returns 0, or -1 when out of memory. */
int run_add_caveats(run_model *m, arena *mem, const worker_log *logs);

/* One more caveat, worded after loading (the hot lines' symbolization):
 * the worker's label (when not SIZE_MAX) and the printf-style text, taken
 * from mem.  The caveats array may move.  Returns 0, or -1 when out of
 * memory. */
int run_caveat_append(run_model *m, arena *mem, enum run_caveat_kind kind, size_t worker,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* What run_add_caveats allocated outside the arena. */
void run_caveats_free(run_model *m);

#endif
