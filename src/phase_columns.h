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
    PHASE_COL_P50,
    PHASE_COL_P99,
    PHASE_COL_COUNT,
    PHASE_NCOLUMNS
};

/* In the order shown.  Share and total are never given up; the others go
 * from rank 2 on, leaving rank 1 to the table's own first column to go.
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

/* The display width of the largest entry count among root's descendants
 * (0 when it has none). */
int phase_count_width(const run_phase *root);

#endif
