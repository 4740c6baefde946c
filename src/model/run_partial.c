/* Figures that rest on part of a phase's entries; see run_partial.h. */
#include "run_partial.h"

#include "fmt.h"

#include <math.h>
#include <stdio.h>

int run_phase_hist_partial(const run_phase *p) {
    return p->hist_count && p->hist_count < p->dist.count;
}

int run_phase_wait_few(const run_phase *p) {
    return !isnan(p->wait) && p->cpu_count < RUN_WAIT_FEW_ENTRIES && p->cpu_count < p->dist.count;
}

int run_phase_wait_bounds(const run_phase *p, double *lo, double *hi) {
    if (isnan(p->wait) || p->cpu_count >= p->dist.count || p->dist.total_ns == 0)
        return 0;
    double all = (double)p->dist.total_ns, read = (double)p->cpu_wall_ns;
    double unread = all > read ? all - read : 0;
    *lo = p->wait * (read < all ? read : all) / all;
    *hi = *lo + unread / all;
    return 1;
}

int run_phase_wait_range(const run_phase *p, double *lo, double *hi) {
    return p->cpu_count >= RUN_WAIT_FEW_ENTRIES && run_phase_wait_bounds(p, lo, hi) &&
           *hi - *lo >= RUN_WAIT_RANGE_WIDE;
}

const char *run_phase_partial_note(const run_phase *p, char *buf, size_t cap) {
    char of[32], n[32], all[32];
    size_t used = 0;
    if (cap)
        buf[0] = '\0';
    fmt_ucount(all, sizeof all, p->dist.count);
    if (run_phase_hist_partial(p)) {
        int k = snprintf(buf, cap, "percentiles as of %s of %s entries",
                         fmt_ucount(of, sizeof of, p->hist_count), all);
        used = k > 0 ? (size_t)k : 0;
    }
    double lo, hi;
    if (run_phase_wait_few(p) && used < cap)
        snprintf(buf + used, cap - used, "%swait%% from %s of %s entries", used ? "; " : "",
                 fmt_ucount(n, sizeof n, p->cpu_count), all);
    else if (run_phase_wait_range(p, &lo, &hi) && used < cap)
        snprintf(buf + used, cap - used, "%swait%% from %s of %s entries: %.0f to %.0f%% over all",
                 used ? "; " : "", fmt_ucount(n, sizeof n, p->cpu_count), all, 100 * lo, 100 * hi);
    return buf;
}
