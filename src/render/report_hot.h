/*
 * The text report of a run without phases (a program never instrumented,
 * under `scope-tui record`): where each role's phase table would stand,
 * its hottest lines, roles by line samples, most first; then the caveats
 * and where to see every line (`scope-tui lines`).
 */
#ifndef SCOPE_REPORT_HOT_H
#define SCOPE_REPORT_HOT_H

#include "run_model.h"
#include "text_style.h"

#include <stdio.h>

/* The hottest lines shown per role. */
#define REPORT_HOT_LINES 5

/* Prints the report of m, a run with run_opens_on_lines(m); run is the
 * path as the user gave it, for the command it points at.  Returns 0, or
 * -1 with one plain line in msg when the samples cannot be symbolized
 * (out of memory). */
int report_hot_print(FILE *f, run_model *m, const char *run, const text_style *st, char *msg,
                     size_t msglen);

#endif
