/*
 * The figure columns of a phase table: what the text report's phase table
 * and the browser's phase tree show right of each phase's name, their
 * headings, widths and the order narrow screens give them up in (layout.h),
 * and each cell's text.  A table adds its own columns around these (the
 * report a spread, the browser a bar) with their own drop ranks.
 */
#ifndef SCOPE_PHASE_COLUMNS_H
#define SCOPE_PHASE_COLUMNS_H

#include "layout.h"
#include "phase_figures.h"
#include "run_model.h"

/* The columns are the first PF_NCOLUMNS phase figures (phase_figures.h),
 * in that order, each with its phase_figures[].column: heading, width, the
 * order narrow screens give them up in, and whether a table must turn it
 * on (mean and p95: the browser on a wide terminal).  Share and total are
 * never given up; the others go from rank 2 on, leaving rank 1 to the
 * table's own first column to go. */
void phase_columns_of(layout_column cols[PF_NCOLUMNS]);

/* The cell of column (figure) c for phase p, written into buf.  Returns 1
 * when the figure was not measured (wait without CPU times, percentiles
 * without a histogram: the cell says n/a), else 0.  A phase left open and
 * never completed says "open" for share, total and self; one left open
 * after completed entries ends its total with "+" (at least that much). */
int phase_cell(const run_phase *p, enum phase_fig c, char *buf, size_t cap);

/* The spread cell of p: min/med/max of its per-process totals
 * ("1.2s/1.4s/2.0s"), and how many of the role's role_procs processes
 * entered it when not all did (" (2/3)").  Returns buf. */
const char *phase_spread_cell(const run_phase *p, size_t role_procs, char *buf, size_t cap);

/* The display width of the widest spread cell among root's descendants. */
int phase_spread_width(const run_phase *root, size_t role_procs);

/* Whether any of root's descendants measured its run delay (queued is not
 * NAN): a table turns the queued column on then. */
int phase_queued_measured(const run_phase *root);

/* The display width of the largest entry count among root's descendants
 * (0 when it has none). */
int phase_count_width(const run_phase *root);

#endif
