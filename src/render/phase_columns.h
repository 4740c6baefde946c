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
#include "run_model.h"

enum phase_column {
    PHASE_COL_SHARE,
    PHASE_COL_TOTAL,
    PHASE_COL_SELF,
    PHASE_COL_WAIT,
    PHASE_COL_MEAN, /* off unless a table turns it on (a wide browser) */
    PHASE_COL_P50,
    PHASE_COL_P95, /* off unless a table turns it on */
    PHASE_COL_P99,
    PHASE_COL_COUNT,
    PHASE_NCOLUMNS
};

/* In the order shown.  Share and total are never given up; the others go
 * from rank 2 on, leaving rank 1 to the table's own first column to go.
 * Mean and p95 are off: a table with room to spare turns them on (the
 * browser on a wide terminal).
 * Durations print in at most 7 columns ("10h 31m"), so 8 leaves a space
 * where a table has no gap of its own.  The count's width is a floor: a
 * table widens it to its largest count (phase_count_width). */
extern const layout_column phase_columns[PHASE_NCOLUMNS];

/* The cell of column c for phase p, written into buf.  Returns 1 when the
 * figure was not measured (wait without CPU times, percentiles without a
 * histogram: the cell says n/a), else 0.  A phase left open and never
 * completed says "open" for share, total and self; one left open after
 * completed entries ends its total with "+" (at least that much). */
int phase_cell(const run_phase *p, enum phase_column c, char *buf, size_t cap);

/* The spread cell of p: min/med/max of its per-process totals
 * ("1.2s/1.4s/2.0s"), and how many of the role's role_procs processes
 * entered it when not all did (" (2/3)").  Returns buf. */
const char *phase_spread_cell(const run_phase *p, size_t role_procs, char *buf, size_t cap);

/* The display width of the widest spread cell among root's descendants. */
int phase_spread_width(const run_phase *root, size_t role_procs);

/* The display width of the largest entry count among root's descendants
 * (0 when it has none). */
int phase_count_width(const run_phase *root);

#endif
