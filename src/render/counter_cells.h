/*
 * A counter's figures as the text report's phase table and the browser's
 * phase tree show them under their phase: its total, its rate per second of
 * the phase's time, and what one unit costs.  A counter of bytes reads in
 * bytes (2.5 MB, 246.9 MB/s) and bytes per call, where time per byte would
 * mean nothing (4.0ns/ea).
 */
#ifndef SCOPE_COUNTER_CELLS_H
#define SCOPE_COUNTER_CELLS_H

#include "run_model.h"

/* Whether a counter counts bytes, by its name: "bytes" in it, or ending in
 * "_b" (bytes_written, rx_bytes, chunk_b).  The name is how a program
 * marks a counter as bytes. */
int counter_counts_bytes(run_str name);

typedef struct counter_cells {
    char total[48]; /* "48,409,488,675" or "20.5 MB" */
    char rate[48];  /* "1.4G/s" or "69.8 MB/s"; empty with no phase time to divide by */
    char unit[48];  /* "695ps/ea" or "2.9 MB/call"; empty when not measured */
} counter_cells;

/* The headings of the three cells, for a table's heading row. */
#define COUNTER_HEADING_TOTAL "total"
#define COUNTER_HEADING_RATE  "rate"
#define COUNTER_HEADING_UNIT  "per unit"

/* Fills c with k's figures. */
void counter_cells_of(const run_counter *k, counter_cells *c);

#endif
