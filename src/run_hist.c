/* A phase's histogram folded for drawing; see run_model.h. */
#include "run_model.h"

#include <scope/log_hist.h>

#include <math.h>
#include <string.h>

uint64_t run_hist_fold(const run_phase *p, size_t ncols, uint64_t *cols, double *lo_ns,
                       double *hi_ns) {
    if (ncols)
        memset(cols, 0, ncols * sizeof *cols);
    *lo_ns = *hi_ns = NAN;
    if (!p->hist || !ncols)
        return 0;
    uint32_t first = SCOPE_HIST_BUCKETS, last = 0;
    for (uint32_t b = 0; b < SCOPE_HIST_BUCKETS; b++)
        if (p->hist[b]) {
            if (first == SCOPE_HIST_BUCKETS)
                first = b;
            last = b;
        }
    if (first == SCOPE_HIST_BUCKETS)
        return 0;
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
    for (uint32_t b = first; b <= last; b++) {
        if (!p->hist[b])
            continue;
        double mid = ((double)scope_hist_lower(b) + (double)scope_hist_upper(b)) / 2;
        if (mid < lo)
            mid = lo;
        size_t c = (size_t)((log(mid) - log(lo)) / span * (double)ncols);
        if (c >= ncols)
            c = ncols - 1;
        cols[c] += p->hist[b];
        folded += p->hist[b];
    }
    return folded;
}
