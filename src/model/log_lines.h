/*
 * One process's line samples as a loader read them: the modules and
 * interned stacks it defined, the newest sample count of every (thread,
 * phase node, stack), and its newest LINES record (docs/format.md 5.10-5.12
 * and 5.15).  Counts are full values, newest wins, so memory follows the
 * number of distinct stacks, not the length of the run.  Symbolizing and
 * attributing them is run_lines.c's work.
 *
 * A source that measured lines exactly (an imported line_profiler record:
 * how often each line ran and the time spent on it) keeps them as measured
 * lines beside the samples; they are figures, not estimates.
 */
#ifndef SCOPE_LOG_LINES_H
#define SCOPE_LOG_LINES_H

#include "arena.h"
#include "idmap.h"
#include "run_model.h"

#include <scope/log_format.h>

typedef struct log_module {
    uint32_t id;
    run_str path;
    run_str build_id; /* raw bytes; len 0: none recorded */
    uint64_t base, size;
} log_module;

typedef struct log_stack {
    uint32_t id;
    uint32_t nframes;
    scope_frame_addr *frames; /* innermost first, in the log's arena */
} log_stack;

/* The newest count of one (thread, node, state, stack): state is an enum
 * scope_cpu_state, SCOPE_CPU_ON for a STACK_SAMPLES record. */
typedef struct log_stack_count {
    uint32_t thread, node, stack;
    uint32_t state;
    uint64_t count;
    uint64_t period_ns; /* of the record that carried the count */
} log_stack_count;

/* One line as measured exactly: its hits and time, in the function and
 * region (a phase's name) that measured it. */
typedef struct log_measured_line {
    run_str file, function;
    run_str region;    /* len 0: none named */
    uint32_t line;     /* >= 1 */
    uint32_t def_line; /* the function's first line (line_profiler's first_lineno); 0: not said */
    uint64_t hits;
    double seconds;
} log_measured_line;

typedef struct log_lines {
    log_module *modules;
    size_t nmodules, cap_modules;
    idmap module_ix;
    log_stack *stacks;
    size_t nstacks, cap_stacks;
    idmap stack_ix;
    log_stack_count *counts;
    size_t ncounts, cap_counts;
    size_t *count_slots; /* open addressing over counts: index + 1, 0 empty */
    size_t cap_slots;

    log_measured_line *measured; /* strings in the log's arena */
    size_t nmeasured, cap_measured;

    int has_record;      /* a LINES record was read: rec and project hold the newest */
    uint16_t minor;      /* the log's format minor version: wall-clock samples of a log
                            before 1.10 do not say whether their thread was on a CPU */
    scope_rec_lines rec; /* rec.project points nowhere: use project */
    run_str project;
    uint64_t inconsistent; /* definitions contradicting earlier ones, ignored */
    int nomem;
} log_lines;

/* Definitions, as the record kinds carry them; mem holds their bytes.  A
 * repeated identical definition is ignored, a contradicting one counted in
 * inconsistent. */
void log_lines_add_module(log_lines *l, arena *mem, const scope_rec_module *m);
void log_lines_add_stack(log_lines *l, arena *mem, const scope_rec_stack *s);

/* Newest counts of one STACK_SAMPLES or OFFCPU_SAMPLES record: each pair
 * replaces the count of its (thread, node, state, stack). */
void log_lines_add_samples(log_lines *l, const scope_rec_stack_samples *s);

/* A measured line; its strings are copied into mem.  Out of memory sets
 * nomem. */
void log_lines_add_measured(log_lines *l, arena *mem, const log_measured_line *m);

/* The newest LINES record. */
void log_lines_set(log_lines *l, arena *mem, const scope_rec_lines *r);

const log_module *log_lines_module(const log_lines *l, uint32_t id);
const log_stack *log_lines_stack(const log_lines *l, uint32_t id);

void log_lines_release(log_lines *l);

#endif
