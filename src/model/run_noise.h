/*
 * How much of a compared figure is noise: the uncertainty of a phase's
 * mean, total, p50 and p99 estimated from what a run holds, and the
 * interval of the change between two runs at a stated confidence.  compare
 * shows the intervals, check calls a change only when its interval leaves
 * zero behind and it passes the threshold (docs/compare.md, "Noise").
 *
 * One side's figure x gets a relative standard error r (the standard error
 * of x over x) from the first of these that applies, each an estimate of
 * how far x would move if the run were repeated:
 *
 *   runs       several runs of the base were given: the spread of x over
 *              them (the run-to-run noise, what a single run cannot show);
 *   processes  2 or more processes entered the phase: the spread of their
 *              own figures (their mean time per entry, or their totals for
 *              "total" and "cpu"), as the standard error of their average;
 *   entries    one process: the spread of its entries' durations (the
 *              histogram) over the root of their number, for the mean and
 *              total; for a percentile, the order statistics that a
 *              binomial spread of ranks around it could have been (none
 *              for "cpu": the histogram holds wall time).
 *
 * The larger of the within-run estimates is kept (a process-level spread
 * holds the entries' own), and with several runs the run-to-run spread is
 * kept where it is larger.  The change's interval is exp(L +- t s) - 1 for
 * L = ln(B / A) and s = sqrt(rA^2 + rB^2) (the delta method on the log of
 * the ratio), t Student's quantile for the Welch-Satterthwaite degrees of
 * freedom of the two sides (processes - 1, runs - 1, or entries - 1); when
 * both sides' estimates are the base runs' one spread, its runs - 1.
 *
 * compare's interval is two-sided: did the figure move, either way?
 * check asks one question, did B grow by more than the threshold, and
 * answers it with a one-sided lower bound exp(L - t1 s) - 1, t1 the
 * quantile with P(T < t1) = its confidence.  When several base runs
 * measured the run-to-run noise, s holds all the noise one run carries
 * and the bound is taken at the stated confidence: a candidate whose true
 * change is at the threshold is called with probability 1 - confidence,
 * where the two-sided interval's lower end called it half as often and
 * missed real changes for it.  With one base run s holds only the noise
 * within each run, short of what a busier machine moves a whole run by,
 * so the bound stays the two-sided interval's lower end (one-sided at
 * (1 + confidence) / 2): the margin false alarms had, kept where the
 * noise that would justify less is not measured.
 *
 * Everything is closed form: the same runs give the same interval every
 * time, with no random resampling to seed.
 */
#ifndef SCOPE_RUN_NOISE_H
#define SCOPE_RUN_NOISE_H

#include "phase_figures.h"
#include "run_model.h"

#include <stddef.h>

/* Where a side's standard error came from. */
enum run_noise_source {
    RUN_NOISE_NONE,      /* no estimate: one entry, or a figure that was not measured */
    RUN_NOISE_ENTRIES,   /* the spread of one process's entries */
    RUN_NOISE_PROCESSES, /* the spread between processes */
    RUN_NOISE_RUNS,      /* the spread between several base runs */
};

/* One side's figure and its uncertainty. */
typedef struct run_noise {
    double value;  /* the figure; NAN when missing */
    double rel_se; /* its standard error over its value; NAN when unknown */
    double df;     /* degrees of freedom of that estimate; NAN when unknown */
    enum run_noise_source source;
} run_noise;

/* Whether figure f has a noise estimate (mean, total, p50, p99, cpu). */
int run_noise_has(enum phase_fig f);

/* The within-run estimate of phase p's figure f (p NULL: missing). */
run_noise run_noise_within(const run_phase *p, enum phase_fig f);

/* The base side from several runs: the figure in each of nruns runs
 * (NAN where the phase is missing from a run) and the first run's
 * within-run estimate.  value is their mean; the run-to-run spread is what
 * one run of the candidate may differ by, returned in *per_run (the relative
 * standard deviation of one run, with its degrees of freedom) for
 * run_noise_candidate. */
run_noise run_noise_base(const double *values, size_t nvalues, run_noise first, run_noise *per_run);

/* The candidate's estimate with the run-to-run noise one run carries. */
run_noise run_noise_candidate(run_noise within, run_noise per_run);

/* The interval of the change (b - a) / a at `confidence` (0.5 .. 0.999),
 * into *lo and *hi; both NAN when either side has no estimate, a figure
 * is missing or not above 0. */
void run_noise_interval(run_noise a, run_noise b, double confidence, double *lo, double *hi);

/* The one-sided lower bound of the change at `confidence`: the change is
 * at least this with that confidence.  NAN where run_noise_interval gives
 * none. */
double run_noise_at_least(run_noise a, run_noise b, double confidence);

/* The confidence of check's one-sided bound for a comparison at
 * `confidence`: that confidence when per_run is the base runs' measured
 * spread (run_noise_base), else (1 + confidence) / 2, the two-sided
 * interval's lower end (see above). */
double run_noise_bound_confidence(run_noise per_run, double confidence);

/* Student's t two-sided quantile: the t with P(|T| < t) = confidence for df
 * degrees of freedom (rounded down; the normal's beyond 1,000 or for
 * INFINITY). */
double run_noise_t(double confidence, double df);

const char *run_noise_source_name(enum run_noise_source s); /* "entries", ... "none" */

#endif
