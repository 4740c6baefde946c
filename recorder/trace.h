/*
 * The trace window: every phase entry and exit and every count, with
 * timestamps, from the FIRST-th to the LAST-th entry into one phase of the
 * process (SCOPE_TRACE=PHASE:FIRST-LAST, scope_trace_window).
 *
 * Events go into one array for the whole process, claimed by an atomic
 * index and published slot by slot (a slot's kind is stored last, with
 * release), so recording threads take no lock and the writer thread reads
 * the slots in order up to the first unpublished one.  The array holds at
 * most `cap` events and is never reused: reaching the cap ends the window
 * (state capped), which bounds its memory and its log space alike.
 *
 * The hot path pays one test of rec_trace_hot per entry and per count; it
 * is set while a window is open.  While one waits, only entries into its
 * phase leave the fast path: the nodes of that name are created with
 * trace_watch and REC_CPU_READ_COLD (thread.h), so their entries take the
 * cold path the fast path already tests for, and are counted there.  (A
 * phase whose name was in use before the window was asked for may have
 * older nodes: then every entry is tested until the window opens.)  An
 * entry recorded in the window marks its frame (trace_mark) and makes its
 * node's cpu0 non-zero, so its exit leaves the fast path through the test
 * that path already makes, and records the phase event there.
 */
#ifndef SCOPE_REC_TRACE_H
#define SCOPE_REC_TRACE_H

#include "thread.h"

#include <scope/log_format.h>

/* 1 while every entry and count must be seen: a window is open (or waits
 * for a phase that may have older nodes).
 * Written by the window's transitions; the hot path loads it relaxed. */
extern uint8_t rec_trace_hot __attribute__((visibility("hidden")));

/* A frame's trace mark: not traced, traced, or traced and closing the
 * window when it ends (the LAST-th entry). */
enum { REC_TRACE_NONE = 0, REC_TRACE_IN = 1, REC_TRACE_CLOSER = 2 };

/* The trace source's per-thread state (rec_source.thread_size), the
 * owner's alone: stack[k] was entered inside the window (mark[k]), and
 * when, CLOCK_MONOTONIC ns.  A new holder of the slot starts with every
 * mark clear (source_trace.c). */
typedef struct rec_trace_thread {
    uint8_t mark[REC_MAX_DEPTH];
    uint64_t t0[REC_MAX_DEPTH];
} rec_trace_thread;

static inline rec_trace_thread *rec_trace_of(const rec_thread *t) {
    return t->source_state[REC_SOURCE_TRACE];
}

/* Whether the end of stack[depth] is the trace window's (rec_trace_exited). */
static inline int rec_trace_marked(const rec_thread *t, uint32_t depth) {
    const rec_trace_thread *tt = rec_trace_of(t);
    return tt && tt->mark[depth];
}

/* Event slots.  kind is 0 until the slot is published. */
enum { REC_TEV_PHASE = 1, REC_TEV_COUNT = 2 };
typedef struct rec_trace_ev {
    _Atomic uint32_t kind;
    uint32_t thread; /* thread index */
    uint32_t id;     /* phase: PHASE_NODE id; count: name id */
    uint64_t t;      /* phase: start; count: when; CLOCK_MONOTONIC ns */
    uint64_t v;      /* phase: duration ns; count: the value added (int64_t) */
} rec_trace_ev;

#define REC_TRACE_DEFAULT_CAP (1u << 20) /* events: 32 MiB of slots at most */
#define REC_TRACE_MAX_CAP     (1u << 26)

/* Asks for a window (the API and SCOPE_TRACE).  Returns 0, or -1 with
 * why in err: a bad argument, no memory for the slots, or a window that
 * has already opened in this process. */
int rec_trace_set(const char *phase, uint64_t first, uint64_t last, char *err, size_t errlen);
/* SCOPE_TRACE and SCOPE_TRACE_EVENTS, read when the recorder starts: a
 * bad value is one line on stderr and no window. */
void rec_trace_from_env(void);
/* Parses "PHASE:FIRST-LAST" into phase (NUL-terminated, at most cap-1
 * bytes), first and last.  Returns 0, or -1. */
int rec_trace_parse(const char *s, char *phase, size_t cap, uint64_t *first, uint64_t *last);

/* The hot path's cold side: an entry at stack[depth] of phase `name`; the
 * end of a frame whose trace mark is set; a count added by thread t. */
void rec_trace_entered(rec_thread *t, uint32_t depth, uint32_t name);
void rec_trace_exited(rec_thread *t, uint32_t depth);
void rec_trace_counted(rec_thread *t, uint32_t name, int64_t value);

/* The writer thread's side.  rec_trace_window fills the window record and
 * returns 0 when no window was asked for.  rec_trace_ready returns the index
 * one past the last published slot, scanning from `from`. */
int rec_trace_window(scope_rec_trace_window *w);
uint64_t rec_trace_ready(uint64_t from);
const rec_trace_ev *rec_trace_slot(uint64_t i);

/* In a forked child: its own window, counted from its own first entry. */
void rec_trace_fork_child(void);

#endif
