/*
 * Whether a run's line samples are enough for the shares the tables show,
 * and the caveat that says so when they are not (run_lines_load adds it).
 * A share p of n independent samples is known to sqrt(p (1 - p) / n):
 * under 100 a 50 % share is uncertain by more than 5 points, enough to
 * reorder the hottest rows.  The independent ones are the sampling
 * signals: above the kernel's tick each carries several periods.
 */
#ifndef SCOPE_LINES_SAMPLE_COUNT_H
#define SCOPE_LINES_SAMPLE_COUNT_H

#include "run_model.h"

#include <stddef.h>
#include <stdint.h>

#define LINES_FEW_SAMPLES 100

/* Whether n samples (n > 0), brought per_signal to a signal (>= 1), are
 * too few; *sd50 is then one standard deviation of a 50 % share, in per
 * cent. */
int lines_too_few(uint64_t n, double per_signal, double *sd50);

/* Appends the caveat (RUN_CAVEAT_LINES) when the run's samples are too few
 * (run_lines_info's samples, per_signal and hz, 0 when processes differ),
 * saying how to get more.  Returns 0, or -1 when out of memory. */
int lines_sample_count_caveat(run_model *m, uint64_t samples, double per_signal, uint32_t hz);

#endif
