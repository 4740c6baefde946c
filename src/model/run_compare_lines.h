/*
 * Hot lines compared between two runs, per role: each line's share of the
 * role's line samples in A and in B (project attribution, run_lines.h).
 *
 * Lines are matched by function, file and line number first; what is left
 * is matched by function (and file) alone, the hottest line of a function
 * in A with its hottest unmatched line in B, for code that moved between
 * the builds (marked `moved`, with both line numbers).  A line found in one
 * run only is kept, marked with its side.  Measured lines (imported
 * line_profiler records) are not compared: only sampled ones.
 *
 * A change in share is significant when it is beyond the samples' own
 * noise: |share B - share A| > z sqrt(sd A^2 + sd B^2) at the comparison's
 * confidence, sd the binomial standard deviation of each share.
 */
#ifndef SCOPE_RUN_COMPARE_LINES_H
#define SCOPE_RUN_COMPARE_LINES_H

#include "run_compare.h"
#include "run_model.h"

#include <stddef.h>

/* Lines kept per role: the hottest, by the larger of their two shares. */
#define RUN_CMP_LINES_TOP 12

typedef struct run_cmp_line {
    run_str function, file;  /* the model's own: valid while both models are */
    uint32_t line_a, line_b; /* 0 on a side the line is missing from, or unknown */
    enum run_cmp_side side;
    int moved;         /* matched by function: line_a and line_b differ */
    run_cmp_fig share; /* of the role's line samples, 0..1; NAN on a missing side */
    double delta_sd;   /* one standard deviation of share.delta; NAN when a side is missing */
    int significant;   /* share.delta beyond z * delta_sd at the comparison's confidence */
} run_cmp_line;

typedef struct run_cmp_role_lines {
    int sampled_a, sampled_b;      /* the role has line samples in A, in B */
    uint64_t samples_a, samples_b; /* the role's line samples */
    run_cmp_line *v;               /* the hottest, by max(share A, share B), most first */
    size_t n;
    size_t more; /* lines left out past RUN_CMP_LINES_TOP */
} run_cmp_role_lines;

/* Symbolizes both runs' line samples (run_lines_load) and compares each
 * role's lines, into c->roles[i].lines.  A run without line samples leaves
 * nothing to compare (sampled_a or sampled_b 0).  Returns 0, or -1 with one
 * plain line in msg when memory runs out. */
int run_compare_lines(run_model *a, run_model *b, run_cmp *c, char *msg, size_t msglen);

void run_cmp_role_lines_free(run_cmp_role_lines *l);

#endif
