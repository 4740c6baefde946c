/* Too few line samples for the shares shown; see lines_sample_count.h. */
#include "lines_sample_count.h"

#include "run_builder.h"
#include "run_caveats.h"

#include <math.h>
#include <stdio.h>

int lines_too_few(uint64_t n, double *sd50) {
    if (!n || n >= LINES_FEW_SAMPLES)
        return 0;
    if (sd50)
        *sd50 = 100.0 * sqrt(0.25 / (double)n);
    return 1;
}

int lines_sample_count_caveat(run_model *m, const run_lines_info *info) {
    double sd50;
    if (!lines_too_few(info->samples, &sd50))
        return 0;
    char rate[64] = "";
    if (info->hz)
        snprintf(rate, sizeof rate, "; now %u Hz", info->hz);
    return run_caveat_append(
        m, run_model_arena(m), RUN_CAVEAT_LINES, SIZE_MAX,
        "only %llu line sample%s: too few for the shares shown (a 50%% share is known to "
        "+-%.1f%%, one standard deviation); for more, run the work longer or repeat it, or raise "
        "the rate (scope-tui record --hz N, or SCOPE_LINES_HZ=N%s), which helps up to the "
        "kernel's tick rate, CONFIG_HZ",
        (unsigned long long)info->samples, info->samples == 1 ? "" : "s", sd50, rate);
}
