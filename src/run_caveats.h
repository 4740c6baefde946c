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

/* What run_add_caveats allocated outside the arena. */
void run_caveats_free(run_model *m);

#endif
