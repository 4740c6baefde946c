/*
 * A phase's spread across the role's processes: the quartiles of their
 * totals, for every output that draws or lists them (the HTML report's box
 * plots; the model's own median, run_phase.spread_median_ns, is the same
 * rule's).
 */
#ifndef SCOPE_RUN_SPREAD_H
#define SCOPE_RUN_SPREAD_H

#include "run_model.h"

#include <stddef.h>

/* The q-quantile (0..1) of n values sorted increasing, linearly between
 * neighbours: q 0.5 of an even count is the mean of the middle two.  NAN
 * for none. */
double run_sorted_quantile(const double *v, size_t n, double q);

typedef struct run_spread {
    size_t n;                                       /* processes that entered the phase */
    double min_ns, q1_ns, median_ns, q3_ns, max_ns; /* of their totals; NAN when n is 0 */
} run_spread;

/* The spread of p's per-process totals.  vals: room for p->nprocs values,
 * left holding them sorted increasing (a caller draws each process from
 * it).  Returns out->n. */
size_t run_phase_spread(const run_phase *p, double *vals, run_spread *out);

#endif
