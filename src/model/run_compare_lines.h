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
 * confidence, sd the binomial standard deviation of each share.  The rows'
 * types are in run_compare.h, with the rest of the comparison.
 */
#ifndef SCOPE_RUN_COMPARE_LINES_H
#define SCOPE_RUN_COMPARE_LINES_H

#include "run_compare.h"
#include "run_model.h"

#include <stddef.h>

/* Symbolizes both runs' line samples (run_lines_load) and compares each
 * role's lines, into c->roles[i].lines.  A run without line samples leaves
 * nothing to compare (sampled_a or sampled_b 0).  Returns 0, or -1 with one
 * plain line in msg when memory runs out. */
int run_compare_lines(run_model *a, run_model *b, run_cmp *c, char *msg, size_t msglen);

#endif
