/*
 * The hot-line tables as text, in line_profiler's layout: `scope-tui lines`
 * and the in-process scope_lines_print_stats / scope_lines_print_top
 * (lines_render.c) print these, so the two read the same.
 *
 *   stats  per function (the seed's print_stats): a heading with its total
 *          time, file and function, then its source lines with samples,
 *          time, per-cent of the selection and its standard deviation;
 *   top    the hottest lines of the selection (print_global_top_stats).
 */
#ifndef SCOPE_LINES_TEXT_H
#define SCOPE_LINES_TEXT_H

#include "run_lines.h"

#include <stdio.h>

typedef struct lines_text_opts {
    double min_time_us; /* rows (and functions) under this estimated time are left out */
    size_t top;         /* top: at most this many lines; stats: the functions of the
                           hottest `top` lines (0: all) */
    const char *what;   /* the selection in words for the heading ("role actor, phase
                           epoch"), escaped; NULL: the whole run */
    int utf8;           /* "…" where a name is shortened; else "..." */
} lines_text_opts;

/* Of wall-clock samples: how many found their thread on a CPU, blocked
 * or queued (nothing for CPU-time samples). */
void lines_text_states(FILE *f, const run_lines_result *r);

/* The heading: samples, their time, the rate, the attribution and the
 * project folder, and lines_text_states. */
void lines_text_heading(FILE *f, const run_lines_info *info, const run_lines_result *r,
                        enum run_lines_attr attr, const lines_text_opts *o);
void lines_text_stats(FILE *f, run_model *m, const run_lines_result *r, const lines_text_opts *o);
void lines_text_top(FILE *f, run_model *m, const run_lines_result *r, const lines_text_opts *o);
/* The run's line caveats (RUN_CAVEAT_LINES), one a line, under a heading;
 * nothing when there are none. */
void lines_text_caveats(FILE *f, const run_model *m);

#endif
