/*
 * `scope-tui report RUN --html -o FILE`: the run as one self-contained HTML
 * page (docs/report.md, "HTML").  Every figure is the model's, and the
 * phase figures are those of report --json, in its order
 * (phase_figures_in(PF_OUT_JSON)), each cell carrying the JSON's exact
 * value in data-v.
 *
 * What it embeds is bounded, so a run of a thousand processes and twelve
 * hours stays a page a browser opens at once: at most HTML_MAX_PHASES
 * phases per role in the tables, HTML_SPREAD_PHASES spread plots,
 * HTML_LINES hot lines, series folded to HTML_COLS columns.  Whatever is
 * cut is said on the page.
 */
#ifndef SCOPE_HTML_REPORT_H
#define SCOPE_HTML_REPORT_H

#include "run_model.h"

#include <stdio.h>

#define HTML_MAX_PHASES    400
#define HTML_ICICLE_DEPTH  10
#define HTML_SPREAD_PHASES 16
#define HTML_SPREAD_DOTS   128 /* processes drawn one by one; more as a box alone */
#define HTML_LINES         10  /* a role's hot lines */
#define HTML_PHASE_LINES   5   /* a dominant phase's hot lines */
#define HTML_COLS          240

/* Writes the page of m.  Returns 0, or -1 with a plain line in msg (out of
 * memory while symbolizing). */
int html_report_print(FILE *f, run_model *m, char *msg, size_t msglen);

#endif
