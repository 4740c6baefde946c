/*
 * Exact quantiles of durations kept whole: the union of several sorted
 * arrays (one per process and thread merged into a phase), without copying
 * or merging them.
 */
#ifndef SCOPE_EXACT_QUANTILE_H
#define SCOPE_EXACT_QUANTILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct exact_part {
    const uint64_t *v; /* sorted, increasing */
    size_t n;
} exact_part;

/* The q-quantile (0 < q <= 1) of the union of the parts by the nearest-rank
 * rule: the ceil(q * N)-th smallest of its N values (at least the first).
 * 0 when the parts hold nothing.  Costs 64 binary searches per part. */
uint64_t exact_quantile(const exact_part *parts, size_t nparts, double q);

#endif
