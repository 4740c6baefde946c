/*
 * Phases from recorded intervals: the calls of one thread, each a start,
 * an end and what it was, nested by containment into a worker_log's phase
 * nodes with exact figures (counts, totals, min, max, a histogram and every
 * duration, for exact percentiles).  For sources that keep each call
 * rather than aggregates (an imported trace).
 *
 * A call lies under the innermost earlier call that contains it (starts
 * at or before it and ends at or after it); of two calls with the same
 * start the longer is the outer, and of two identical intervals the one of
 * the lower kind.  Calls that overlap without containment are siblings:
 * each lies under the nearest call containing it.
 */
#ifndef SCOPE_RUN_INTERVALS_H
#define SCOPE_RUN_INTERVALS_H

#include "worker_log.h"

typedef struct run_interval {
    int64_t start, end; /* end >= start */
    uint32_t kind;      /* index into the kinds */
} run_interval;

/* What a kind of call becomes: the string ids of its name and source file
 * (0: none) in the log, and its source line (0: none). */
typedef struct interval_kind {
    uint32_t name, file, line;
    uint32_t tags; /* string id of its tags, one per line; 0 when none */
} interval_kind;

typedef struct interval_stats {
    uint64_t overlaps; /* calls that overlapped an open one without lying inside it */
    uint64_t too_deep; /* calls nested deeper than the model keeps, put at its deepest level */
} interval_stats;

/* Adds the nodes of thread's calls v[0..n) (sorted here, in place) to log,
 * with their figures.  Returns 0, or -1 when out of memory (log->nomem is
 * then set too). */
int run_intervals_add(worker_log *log, uint32_t thread, run_interval *v, size_t n,
                      const interval_kind *kinds, size_t nkinds, interval_stats *stats);

#endif
