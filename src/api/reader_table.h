/*
 * The tables of the reader API (scope/reader.h): columns of one type each,
 * built a row at a time.  A new row starts zeroed (NULL strings), its
 * floats NAN, and valid; the setters write its cells.  A float not
 * measured is NAN and missing alike, however it was written (rt_f64 of
 * NAN, rt_missing): a C caller reads the value reader.h promises, and the
 * same valid mask as any other column's.  Strings are copied into the table, so it
 * outlives the run it was built from.  Out of memory marks the table
 * failed: every later call does nothing and rt_failed says so once, at the
 * end, rather than at every cell.
 */
#ifndef SCOPE_READER_TABLE_H
#define SCOPE_READER_TABLE_H

#include "run_model.h"

#include <scope/reader.h>

#include <stddef.h>
#include <stdint.h>

/* A new empty table; NULL when out of memory. */
scope_table *rt_new(void);

/* Adds a column (name and unit: static strings) and returns its index. */
size_t rt_column(scope_table *t, const char *name, const char *unit, enum scope_column_type type);

/* Starts a new row; the setters below write its cells. */
void rt_row(scope_table *t);

void rt_u64(scope_table *t, size_t col, uint64_t v);
void rt_i64(scope_table *t, size_t col, int64_t v);
void rt_f64(scope_table *t, size_t col, double v);
void rt_bool(scope_table *t, size_t col, int v);
void rt_str(scope_table *t, size_t col, const char *s); /* NULL: none */
void rt_name(scope_table *t, size_t col, run_str name); /* len 0: none */
void rt_missing(scope_table *t, size_t col);            /* no value in this row */
/* A launcher-given number: -1 when no launcher said (missing). */
void rt_i64_or_missing(scope_table *t, size_t col, int64_t v);
/* A run_model.workers index, missing when SIZE_MAX. */
void rt_index(scope_table *t, size_t col, size_t index);

/* Whether memory ran out while building. */
int rt_failed(const scope_table *t);

#endif
