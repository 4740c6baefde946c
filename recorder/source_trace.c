/*
 * Data source: the trace window (trace.h).  Each frame writes the window's
 * record when it changed, and the events published since the last frame:
 * phase events as TRACE records and counts as TRACE_COUNTS records, one
 * record per thread (and per 8192 events), each in time order.
 *
 * Events stay in memory until the window's process ends, so a frame
 * dropped after failed writes is written again from the events the last
 * written frame did not hold.
 */
#include "source_trace.h"

#include "frame.h"
#include "trace.h"

#include <stdlib.h>

#define PER_RECORD 8192u

static uint64_t w_done;               /* writer: events in frames on disk */
static uint64_t w_sent;               /* writer: events added to frames so far */
static uint64_t sel_end;              /* writer: events this frame holds */
static scope_rec_trace_window w_last; /* writer: the window record last added */
static int w_window_sent;

/* The writer's copies, sorted by kind, thread and time. */
static rec_trace_ev *sorted;
static size_t sorted_cap;
static scope_trace_event *phase_out;
static scope_trace_count *count_out;

static int by_kind_thread_time(const void *a, const void *b) {
    const rec_trace_ev *x = a, *y = b;
    uint32_t kx = atomic_load_explicit(&x->kind, memory_order_relaxed);
    uint32_t ky = atomic_load_explicit(&y->kind, memory_order_relaxed);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Events [from, to) as records.  Returns 0, or -1 without memory (the
 * events wait for the next frame). */
static int add_events(const rec_frame_ctx *f, uint64_t from, uint64_t to) {
    size_t n = (size_t)(to - from);
    if (n > sorted_cap) {
        rec_trace_ev *s = realloc(sorted, n * sizeof *s);
        scope_trace_event *p = s ? realloc(phase_out, PER_RECORD * sizeof *p) : NULL;
        scope_trace_count *c = p ? realloc(count_out, PER_RECORD * sizeof *c) : NULL;
        if (s)
            sorted = s;
        if (p)
            phase_out = p;
        if (!c)
            return -1;
        count_out = c;
        sorted_cap = n;
    }
    for (size_t i = 0; i < n; i++) {
        const rec_trace_ev *e = rec_trace_slot(from + i);
        sorted[i].thread = e->thread;
        sorted[i].id = e->id;
        sorted[i].t = e->t;
        sorted[i].v = e->v;
        atomic_store_explicit(&sorted[i].kind, atomic_load_explicit(&e->kind, memory_order_relaxed),
                              memory_order_relaxed);
    }
    qsort(sorted, n, sizeof *sorted, by_kind_thread_time);
    for (size_t i = 0; i < n;) {
        uint32_t kind = atomic_load_explicit(&sorted[i].kind, memory_order_relaxed);
        uint32_t thread = sorted[i].thread;
        uint32_t k = 0;
        for (; i < n && k < PER_RECORD && sorted[i].thread == thread &&
               atomic_load_explicit(&sorted[i].kind, memory_order_relaxed) == kind;
             i++, k++) {
            if (kind == REC_TEV_PHASE)
                phase_out[k] = (scope_trace_event){sorted[i].id, sorted[i].t, sorted[i].v};
            else
                count_out[k] = (scope_trace_count){sorted[i].id, sorted[i].t, (int64_t)sorted[i].v};
        }
        scope_record r;
        if (kind == REC_TEV_PHASE) {
            r = (scope_record){.type = SCOPE_REC_TRACE};
            r.u.trace = (scope_rec_trace){thread, k, phase_out};
        } else {
            r = (scope_record){.type = SCOPE_REC_TRACE_COUNTS};
            r.u.trace_counts = (scope_rec_trace_counts){thread, k, count_out};
        }
        rec_frame_add(f, &r);
    }
    return 0;
}

/* Fixed before the phases source counts its threads and nodes (select runs
 * in reverse table order): every event this frame holds names a thread and
 * a node that existed before it was published, so their definitions are
 * in this frame or an earlier one. */
static void select_frame(const rec_frame_ctx *f) {
    (void)f;
    sel_end = rec_trace_ready(w_sent);
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
    if (sel_end > w_sent && add_events(f, w_sent, sel_end) == 0)
        w_sent = sel_end;
    w.events = w_sent; /* what the log holds, so far */
    if (!w_window_sent || f->resend_all || !same_window(&w, &w_last)) {
        scope_record r = {.type = SCOPE_REC_TRACE_WINDOW};
        r.u.trace_window = w;
        rec_frame_add(f, &r);
        w_last = w;
        w_window_sent = 1;
    }
}

static void frame_written(const rec_frame_ctx *f) {
    (void)f;
    w_done = w_sent;
}

static void reset_sent(void) {
    w_sent = w_done;
    w_window_sent = 0;
}

static void fork_child(void) {
    rec_trace_fork_child();
    w_done = w_sent = sel_end = 0;
    w_window_sent = 0;
}

const rec_source rec_source_trace = {
    .name = "trace",
    .fork_child = fork_child,
    .reset_sent = reset_sent,
    .select = select_frame,
    .encode = encode,
    .frame_written = frame_written,
};
