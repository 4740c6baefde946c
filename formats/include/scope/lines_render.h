/*
 * The in-process line tables: what libscope hands to the renderer.
 *
 * scope_lines_print_stats and scope_lines_print_top print, from inside the
 * program, the same tables as `scope-tui lines`.  Symbolizing needs elfutils,
 * which libscope must not load into every program it is linked into, so the
 * tables are drawn by a separate library, SCOPE_LINES_RENDER_LIB, built from
 * the analysis code and installed beside libscope.  libscope dlopens it the
 * first time a table is printed (a program that never prints pays nothing),
 * finds SCOPE_LINES_RENDER_SYMBOL and passes it the samples in the same
 * records it writes to the log.
 */
#ifndef SCOPE_LINES_RENDER_H
#define SCOPE_LINES_RENDER_H

#include <scope/log_format.h>

#include <stddef.h>
#include <stdio.h>

#define SCOPE_LINES_RENDER_LIB    "libscope-lines.so"
#define SCOPE_LINES_RENDER_SYMBOL "scope_lines_render_v1"

enum scope_lines_table {
    SCOPE_LINES_TABLE_STATS = 0, /* per function, its lines: the seed's print_stats */
    SCOPE_LINES_TABLE_TOP = 1,   /* the hottest lines of the process: print_global_top_stats */
};

/* One snapshot of a process's samples; ids are those of the records
 * (modules[i].id, stacks[i].id), counts as in STACK_SAMPLES. */
typedef struct scope_lines_input {
    const scope_rec_module *modules;
    size_t nmodules;
    const scope_rec_stack *stacks;
    size_t nstacks;
    const scope_rec_stack_samples *samples;
    size_t nsamples;
    const char *project_dir; /* attribution folder */
    uint64_t period_ns;
    uint64_t dropped; /* samples lost to full storage, for the caveat line */
} scope_lines_input;

/* Prints one table to out.  min_time_us: rows under this estimated time are
 * left out; top_n: at most this many lines (0: all); sort_by: "time", "hits"
 * or "line" (NULL: "time").  Returns 0, or -1 after printing one line saying
 * why nothing could be shown. */
typedef int (*scope_lines_render_fn)(FILE *out, const scope_lines_input *in,
                                     enum scope_lines_table table, double min_time_us, int top_n,
                                     const char *sort_by);

#endif
