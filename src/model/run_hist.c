/* A phase's histogram read and folded for drawing; see run_model.h. */
#include "run_model.h"

#include <scope/log_hist.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_bucket(const void *key, const void *bin) {
    uint32_t b = *(const uint32_t *)key, c = ((const run_hist_bin *)bin)->bucket;
    return (b > c) - (b < c);
}

uint64_t run_phase_hist_at(const run_phase *p, uint32_t b) {
    /* The buckets are in order. */
    const run_hist_bin *h = p->nhist ? bsearch(&b, p->hist, p->nhist, sizeof *h, by_bucket) : NULL;
    return h ? h->count : 0;
}

uint64_t run_hist_fold(const run_phase *p, size_t ncols, uint64_t *cols, double *lo_ns,
                       double *hi_ns) {
    if (ncols)
        memset(cols, 0, ncols * sizeof *cols);
    *lo_ns = *hi_ns = NAN;
    if (!p->hist || !p->nhist || !ncols)
        return 0;
    /* Buckets with entries only, in order: the first and last are the
     * shortest and longest recorded. */
    uint32_t first = p->hist[0].bucket, last = p->hist[p->nhist - 1].bucket;
    /* The axis runs from the lowest bucket's lower edge to the highest's
     * upper edge; zero-length entries share the first nanosecond. */
    double lo = (double)scope_hist_lower(first), hi = (double)scope_hist_upper(last);
    if (lo < 1)
        lo = 1;
    if (hi <= lo)
        hi = lo + 1;
    *lo_ns = lo;
    *hi_ns = hi;
    double span = log(hi) - log(lo);
    uint64_t folded = 0;
    for (size_t i = 0; i < p->nhist; i++) {
        uint32_t b = p->hist[i].bucket;
        double mid = ((double)scope_hist_lower(b) + (double)scope_hist_upper(b)) / 2;
        if (mid < lo)
            mid = lo;
        size_t c = (size_t)((log(mid) - log(lo)) / span * (double)ncols);
        if (c >= ncols)
            c = ncols - 1;
        cols[c] += p->hist[i].count;
        folded += p->hist[i].count;
    }
    return folded;
}
