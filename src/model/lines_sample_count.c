/* Too few line samples for the shares shown; see lines_sample_count.h. */
#include "lines_sample_count.h"

#include "run_builder.h"
#include "run_caveats.h"

#include <math.h>
#include <stdio.h>

int lines_too_few(uint64_t n, double per_signal, double *sd50) {
    double independent = (double)n / (per_signal >= 1 ? per_signal : 1);
    if (!n || independent >= LINES_FEW_SAMPLES)
        return 0;
    if (sd50)
        *sd50 = 100.0 * sqrt(0.25 / independent);
    return 1;
}

int lines_sample_count_caveat(run_model *m, uint64_t samples, double per_signal, uint32_t hz) {
    double sd50;
    if (!lines_too_few(samples, per_signal, &sd50))
        return 0;
    char rate[64] = "", looks[96] = "";
    if (hz)
        snprintf(rate, sizeof rate, "; now %u Hz", hz);
    if (per_signal > 1.05)
        snprintf(looks, sizeof looks, " (brought by some %.0f signals, the kernel's tick)",
                 (double)samples / per_signal);
    return run_caveat_append(
        m, run_model_arena(m), RUN_CAVEAT_LINES, SIZE_MAX,
        "only %llu line sample%s%s: too few for the shares shown (a 50%% share is known to "
        "+-%.1f%%, one standard deviation); for more, run the work longer or repeat it, or raise "
        "the rate (scope-tui record --hz N, or SCOPE_LINES_HZ=N%s), which helps up to the "
        "kernel's tick rate, CONFIG_HZ",
        (unsigned long long)samples, samples == 1 ? "" : "s", looks, sd50, rate);
}
