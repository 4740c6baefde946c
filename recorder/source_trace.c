/*
 * Data source: the trace window (trace.h).  Each frame writes the window's
 * record when it changed, and the events published since the last frame:
 * phase events as TRACE records and counts as TRACE_COUNTS records, one
 * record per thread (and per 8192 events), each in time order (a phase's
 * start).
 *
 * Events stay in memory until the window's process ends, so a frame
 * dropped after failed writes is written again from the events the last
 * written frame did not hold.
 */
#include "source_trace.h"

#include "frame.h"
#include "trace.h"

#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

#define PER_RECORD 8192u

/* The writer's copy of the events a frame writes, grouped by (kind,
 * thread) and each group in time order. */
typedef struct ev_copy {
    uint32_t thread, id;
    uint64_t t, v;
} ev_copy;

typedef struct ev_group {
    uint32_t kind, thread;
    size_t n, at; /* its events, and where they start in `grouped` */
} ev_group;

/* The source's state, all of it the writer thread's: one place to read,
 * and to reset in a forked child (fork_child). */
static struct source_trace_state {
    uint64_t w_done;               /* events in frames on disk */
    uint64_t w_sent;               /* events added to frames so far */
    uint64_t sel_end;              /* events this frame holds */
    scope_rec_trace_window w_last; /* the window record last added */
    int w_window_sent;
    /* the copy of the events a frame writes */
    ev_copy *grouped;
    size_t grouped_cap;
    ev_group *groups;
    size_t groups_cap;
    uint32_t *group_of; /* each event's group */
    size_t group_of_cap;
    scope_trace_event *phase_out;
    scope_trace_count *count_out;
} state;

/* Room for n events.  Returns 0, or -1 without memory. */
static int reserve(size_t n) {
    if (!state.phase_out && !(state.phase_out = malloc(PER_RECORD * sizeof *state.phase_out)))
        return -1;
    if (!state.count_out && !(state.count_out = malloc(PER_RECORD * sizeof *state.count_out)))
        return -1;
    if (SCOPE_VEC_RESERVE(state.grouped, state.grouped_cap, n) < 0 ||
        SCOPE_VEC_RESERVE(state.group_of, state.group_of_cap, n) < 0)
        return -1;
    return 0;
}

/* The group of (kind, thread), added when new; last: the previous event's,
 * which is usually the same. */
static long find_group(size_t *ngroups, uint32_t kind, uint32_t thread, size_t last) {
    if (last < *ngroups && state.groups[last].kind == kind && state.groups[last].thread == thread)
        return (long)last;
    for (size_t g = 0; g < *ngroups; g++)
        if (state.groups[g].kind == kind && state.groups[g].thread == thread)
            return (long)g;
    if (SCOPE_VEC_RESERVE(state.groups, state.groups_cap, *ngroups + 1) < 0)
        return -1;
    state.groups[*ngroups] = (ev_group){kind, thread, 0, 0};
    return (long)(*ngroups)++;
}

/* A group's events by time.  A thread publishes a phase when it ends, so
 * a phase follows the phases nested in it: the events are nearly in start
 * order already, and insertion costs about the nesting depth per event. */
static void sort_by_time(ev_copy *e, size_t n) {
    for (size_t i = 1; i < n; i++) {
        ev_copy x = e[i];
        size_t j = i;
        for (; j > 0 && e[j - 1].t > x.t; j--)
            e[j] = e[j - 1];
        e[j] = x;
    }
}

/* Events [from, to) as records.  Returns 0, or -1 without memory (the
 * events wait for the next frame). */
static int add_events(const rec_frame_ctx *f, uint64_t from, uint64_t to) {
    size_t n = (size_t)(to - from), ngroups = 0, last = 0;
    if (reserve(n) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const rec_trace_ev *e = rec_trace_slot(from + i);
        long g = find_group(&ngroups, atomic_load_explicit(&e->kind, memory_order_relaxed),
                            e->thread, last);
        if (g < 0)
            return -1;
        state.group_of[i] = (uint32_t)g;
        state.groups[g].n++;
        last = (size_t)g;
    }
    for (size_t g = 0, at = 0; g < ngroups; g++) {
        state.groups[g].at = at;
        at += state.groups[g].n;
        state.groups[g].n = 0; /* counts them again as they are placed */
    }
    for (size_t i = 0; i < n; i++) {
        const rec_trace_ev *e = rec_trace_slot(from + i);
        ev_group *g = &state.groups[state.group_of[i]];
        state.grouped[g->at + g->n++] = (ev_copy){e->thread, e->id, e->t, e->v};
    }
    for (size_t g = 0; g < ngroups; g++) {
        ev_copy *e = state.grouped + state.groups[g].at;
        sort_by_time(e, state.groups[g].n);
        for (size_t i = 0; i < state.groups[g].n;) {
            uint32_t k = 0;
            for (; i < state.groups[g].n && k < PER_RECORD; i++, k++) {
                if (state.groups[g].kind == REC_TEV_PHASE)
                    state.phase_out[k] = (scope_trace_event){e[i].id, e[i].t, e[i].v};
                else
                    state.count_out[k] = (scope_trace_count){e[i].id, e[i].t, (int64_t)e[i].v};
            }
            scope_record r;
            if (state.groups[g].kind == REC_TEV_PHASE) {
                r = (scope_record){.type = SCOPE_REC_TRACE};
                r.u.trace = (scope_rec_trace){state.groups[g].thread, k, state.phase_out};
            } else {
                r = (scope_record){.type = SCOPE_REC_TRACE_COUNTS};
                r.u.trace_counts =
                    (scope_rec_trace_counts){state.groups[g].thread, k, state.count_out};
            }
            rec_frame_add(f, &r);
        }
    }
    return 0;
}

/* Fixed before the phases source counts its threads and nodes (select runs
 * in reverse table order): every event this frame holds names a thread and
 * a node that existed before it was published, so their definitions are
 * in this frame or an earlier one. */
static void select_frame(const rec_frame_ctx *f) {
    (void)f;
    state.sel_end = rec_trace_ready(state.w_sent);
}

static int same_window(const scope_rec_trace_window *a, const scope_rec_trace_window *b) {
    return a->phase == b->phase && a->first == b->first && a->last == b->last &&
           a->state == b->state && a->start_mono_ns == b->start_mono_ns &&
           a->end_mono_ns == b->end_mono_ns && a->events == b->events && a->cap == b->cap &&
           a->lost == b->lost;
}

static void encode(const rec_frame_ctx *f) {
    scope_rec_trace_window w;
    if (!rec_trace_window(&w))
        return;
    /* A snapshot holds no events: they wait for the next frame. */
    if (!f->snapshot && state.sel_end > state.w_sent &&
        add_events(f, state.w_sent, state.sel_end) == 0)
        state.w_sent = state.sel_end;
    w.events = state.w_sent; /* what the log holds, so far */
    if (!state.w_window_sent || f->resend_all || !same_window(&w, &state.w_last)) {
        scope_record r = {.type = SCOPE_REC_TRACE_WINDOW};
        r.u.trace_window = w;
        rec_frame_add(f, &r);
        state.w_last = w;
        state.w_window_sent = 1;
    }
}

static void frame_written(const rec_frame_ctx *f) {
    (void)f;
    state.w_done = state.w_sent;
}

static void reset_sent(void) {
    state.w_sent = state.w_done;
    state.w_window_sent = 0;
}

/* A new holder of a thread's slot: no frame of its stack is traced yet. */
static int thread_attach(rec_thread *t) {
    rec_trace_thread *tt = rec_trace_of(t);
    memset(tt->mark, 0, sizeof tt->mark);
    return 0;
}

static void fork_child(void) {
    rec_trace_fork_child();
    state.w_done = state.w_sent = state.sel_end = 0;
    state.w_window_sent = 0;
}

const rec_source rec_source_trace = {
    .name = "trace",
    .thread_size = sizeof(rec_trace_thread),
    .thread_attach = thread_attach,
    .fork_child = fork_child,
    .reset_sent = reset_sent,
    .select = select_frame,
    .encode = encode,
    .frame_written = frame_written,
};
