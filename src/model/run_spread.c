/* Quartiles of a phase's per-process totals; see run_spread.h. */
#include "run_spread.h"

#include <math.h>
#include <stdlib.h>

double run_sorted_quantile(const double *v, size_t n, double q) {
    if (!n)
        return NAN;
    double at = q * (double)(n - 1);
    size_t i = (size_t)at;
    double f = at - (double)i;
    /* Weighted so that halfway is (a + b) / 2 exactly, the median's usual rule. */
    return i + 1 < n ? v[i] * (1 - f) + v[i + 1] * f : v[n - 1];
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

size_t run_phase_spread(const run_phase *p, double *vals, run_spread *out) {
    size_t n = p->nprocs;
    for (size_t i = 0; i < n; i++)
        vals[i] = p->per_proc[i].ns;
    if (n)
        qsort(vals, n, sizeof *vals, by_value);
    *out = (run_spread){.n = n,
                        .min_ns = n ? vals[0] : NAN,
                        .q1_ns = run_sorted_quantile(vals, n, 0.25),
                        .median_ns = run_sorted_quantile(vals, n, 0.50),
                        .q3_ns = run_sorted_quantile(vals, n, 0.75),
                        .max_ns = n ? vals[n - 1] : NAN};
    return n;
}
