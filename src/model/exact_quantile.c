/* Exact quantiles over sorted parts; see exact_quantile.h. */
#include "exact_quantile.h"

#include <math.h>

/* How many values of v[0..n) are <= x. */
static size_t count_at_most(const uint64_t *v, size_t n, uint64_t x) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint64_t exact_quantile(const exact_part *parts, size_t nparts, double q) {
    uint64_t total = 0, lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < nparts; i++) {
        if (!parts[i].n)
            continue;
        total += parts[i].n;
        if (parts[i].v[0] < lo)
            lo = parts[i].v[0];
        if (parts[i].v[parts[i].n - 1] > hi)
            hi = parts[i].v[parts[i].n - 1];
    }
    if (!total)
        return 0;
    double want = ceil(q * (double)total);
    uint64_t rank = want < 1 ? 1 : want >= (double)total ? total : (uint64_t)want;
    /* The smallest value x with at least rank values <= x: a binary search
     * over the values' range, which holds it. */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        uint64_t seen = 0;
        for (size_t i = 0; i < nparts; i++)
            seen += count_at_most(parts[i].v, parts[i].n, mid);
        if (seen >= rank)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
