/*
 * One process's trace window, read from its log: the window's newest
 * record, its phase and counter events, the marks inside it, and the names
 * of its threads, phases and counters.  The model keeps only the window's
 * figures (run_worker.trace_*); the events are read here, for the one
 * command that needs them (export --format chrome).  Memory follows the
 * window's event cap, not the length of the run.
 */
#ifndef SCOPE_LOG_TRACE_H
#define SCOPE_LOG_TRACE_H

#include "arena.h"
#include "idmap.h"
#include "run_model.h"

#include <scope/log_format.h>

typedef struct trace_phase_ev {
    uint32_t thread;
    uint32_t name; /* string id of its phase */
    uint64_t start_ns, dur_ns;
} trace_phase_ev;

typedef struct trace_count_ev {
    uint32_t thread;
    uint32_t name; /* string id of its counter */
    uint64_t mono_ns;
    int64_t value;
} trace_count_ev;

typedef struct trace_mark_ev {
    uint32_t thread, kind;
    uint64_t mono_ns;
    run_str text;
} trace_mark_ev;

typedef struct trace_thread {
    uint32_t index;
    int64_t tid;
    run_str name;
} trace_thread;

typedef struct log_trace {
    arena mem;
    scope_rec_trace_window window;         /* phase 0: the log has no window */
    uint64_t frame_mono_ns, frame_wall_ns; /* one clock pair: its newest frame's */
    run_str *strings;                      /* by slot of string_ix */
    size_t nstrings, cap_strings;
    idmap string_ix;
    uint32_t *node_names; /* PHASE_NODE id -> name, by slot of node_ix */
    size_t nnodes, cap_nodes;
    idmap node_ix;
    trace_thread *threads;
    size_t nthreads, cap_threads;
    trace_phase_ev *phases;
    size_t nphases, cap_phases;
    uint32_t *phase_nodes; /* each phase event's node, until names are resolved */
    size_t cap_phase_nodes;
    trace_count_ev *counts;
    size_t ncounts, cap_counts;
    trace_mark_ev *marks;
    size_t nmarks, cap_marks;
    uint64_t unplaced; /* events whose phase node was never defined (a lost frame) */
} log_trace;

/* Reads the log at relpath below dirfd.  Returns 0, or -1 with one line in
 * msg (the log cannot be opened, or no memory).  Phase events come back in
 * start order, counts and marks in time order. */
int log_trace_read(int dirfd, const char *relpath, log_trace *t, char *msg, size_t msglen);

/* A string of the log; "(string #N)" when its definition was lost. */
run_str log_trace_string(log_trace *t, uint32_t id);

void log_trace_free(log_trace *t);

#endif
