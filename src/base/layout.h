/*
 * Column layout for tables of figures right of a name: which columns fit
 * in a width and where each one starts.  The text report and the browser's
 * views lay their tables out with it, so a narrow terminal gives up the
 * same columns in both, in the order each table's description gives.
 *
 * A table is a name (left, taking what is left over) followed by columns,
 * each preceded by `gap` blank display columns.  When the name would get
 * fewer than `name_min` columns, columns are given up by their `drop`
 * rank, lowest first, until the name has room or only columns that are
 * never dropped remain.  The result depends on its inputs alone.
 */
#ifndef SCOPE_LAYOUT_H
#define SCOPE_LAYOUT_H

#include <stddef.h>

/* The most columns one table has. */
#define LAYOUT_MAX_COLUMNS 16

typedef struct layout_column {
    const char *heading;
    int width; /* display columns of its cells, the gap before it not counted */
    int drop;  /* 0: never given up; else given up when narrow, rank 1 first */
    int right; /* cells aligned right (figures); else left (names) */
    int off;   /* not part of this table at all (nothing to show in it) */
} layout_column;

typedef struct layout {
    size_t ncolumns;
    int name_width;                /* the width minus every shown column and its gap */
    int shown[LAYOUT_MAX_COLUMNS]; /* 1 when the column is in the table */
    int width[LAYOUT_MAX_COLUMNS]; /* its cells' width, as described */
    int x[LAYOUT_MAX_COLUMNS];     /* where its cells start when shown; else -1 */
} layout;

/* Lays n columns (at most LAYOUT_MAX_COLUMNS) out in `width` display
 * columns.  name_width is below name_min only when the columns that are
 * never dropped leave no more room (negative when they do not fit). */
layout layout_fit(const layout_column *columns, size_t n, int width, int gap, int name_min);

#endif
