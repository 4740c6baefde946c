/*
 * The verdicts of `scope-tui check BASE CANDIDATE`, made for CI: which
 * watched phases regressed past a threshold.  Computed from the comparison
 * (run_compare.h), so check and compare always agree on a figure.
 *
 * Watched phases: those named with --phase (a full path "iteration/train" or
 * a bare name, which matches every phase of that name), else every phase
 * with at least min_share of its role's phase time in the base run.  Paths
 * and names are matched in their escaped form, as the text output shows them.
 *
 * A phase regressed when its metric grew by more than max_regression
 * (a fraction: 0.10 is 10%) and the one-sided lower bound of that change
 * at the comparison's confidence (run_cmp_fig.at_least, run_noise.h) lies
 * above the threshold too: past the threshold by more than the noise.  A growth past it that the
 * noise could explain is NOISE, not a failure.  Without an estimate of the noise (one entry a side,
 * no histogram and one process) the threshold alone judges, and the row says so.  The default
 * metric is the mean time per entry, which stays comparable when the two runs did different amounts
 * of work; "total" does not.  A watched phase missing from the candidate is a failure when it was
 * named with --phase (what CI asked to watch is gone) and a note otherwise; a phase whose metric
 * was not measured on a side (p50/p99 without a histogram) is a note, never a pass or a failure in
 * disguise.
 */
#ifndef SCOPE_RUN_CHECK_H
#define SCOPE_RUN_CHECK_H

#include "run_compare.h"

#include <stddef.h>

/* A metric is a phase figure that check may judge (phase_figures.h: those
 * with a place in PF_OUT_CHECK). */
typedef enum phase_fig run_check_metric;

enum run_check_verdict {
    RUN_CHECK_OK,
    RUN_CHECK_REGRESSED,  /* grew past the threshold, beyond the noise: a failure */
    RUN_CHECK_NOISE,      /* grew past the threshold, within the noise: not a failure */
    RUN_CHECK_GONE,       /* missing from the candidate: a failure if named */
    RUN_CHECK_NEW,        /* only in the candidate: nothing to compare */
    RUN_CHECK_UNMEASURED, /* the metric is missing on a side */
};

/* check's defaults, which the browser's Diff view judges by too: the
 * largest growth allowed, and the share of its role's time in the base
 * from which a phase is watched when none is named. */
#define RUN_CHECK_DEFAULT_THRESHOLD 0.10
#define RUN_CHECK_DEFAULT_MIN_SHARE 0.01

typedef struct run_check_opts {
    double max_regression;     /* fraction */
    run_check_metric metric;   /* run_check_metric_default(): mean */
    const char *const *phases; /* paths or bare names; nphases 0: by share */
    size_t nphases;
    const char *role; /* NULL: every role */
    double min_share; /* watched by default from this share of the role up */
} run_check_opts;

typedef struct run_check_row {
    const run_cmp_role *role;
    const run_cmp_phase *phase;
    const run_cmp_fig *fig; /* the metric's figure */
    enum run_check_verdict verdict;
    int failed; /* counts toward the failing exit status */
} run_check_row;

typedef struct run_check {
    run_check_row *rows; /* roles in comparison order, phases by impact */
    size_t nrows;
    size_t nfailed;
} run_check;

enum run_check_status {
    RUN_CHECK_DONE,
    RUN_CHECK_NO_ROLE,  /* opts.role is in neither run */
    RUN_CHECK_NO_PHASE, /* a --phase is in neither run (within the role) */
    RUN_CHECK_NOMEM,
};

/* Judges the comparison.  On RUN_CHECK_DONE *out holds the verdicts; else
 * *out is NULL and msg holds one line naming what was not found. */
enum run_check_status run_check_judge(const run_cmp *c, const run_check_opts *opts, run_check **out,
                                      char *msg, size_t msglen);
void run_check_free(run_check *k);

const char *run_check_metric_name(run_check_metric metric);       /* "mean", ... */
int run_check_metric_parse(const char *s, run_check_metric *out); /* 0 or -1 */
run_check_metric run_check_metric_default(void);                  /* the first: mean */
/* The metrics' names for a message, "mean, total, p50 or p99", into buf. */
const char *run_check_metric_list(char *buf, size_t cap);
const char *run_check_verdict_name(enum run_check_verdict v); /* "OK", "REGRESSED", ... */

#endif
