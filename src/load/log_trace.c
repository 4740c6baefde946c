/*
 * Reading one process's trace window from its log (log_trace.h).
 */
#include "log_trace.h"

#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_string(log_trace *t, const scope_rec_string *s) {
    uint32_t slot;
    if (idmap_get(&t->string_ix, s->id, &slot))
        return 0; /* a definition never changes: the first copy stands */
    if (SCOPE_VEC_RESERVE(t->strings, t->cap_strings, t->nstrings + 1) < 0)
        return -1;
    char *p = arena_dup(&t->mem, s->value.ptr, s->value.len);
    if (!p || idmap_put(&t->string_ix, s->id, (uint32_t)t->nstrings) < 0)
        return -1;
    t->strings[t->nstrings++] = (run_str){p, s->value.len};
    return 0;
}

static int add_node(log_trace *t, const scope_rec_phase_node *n) {
    uint32_t slot;
    if (idmap_get(&t->node_ix, n->id, &slot))
        return 0;
    if (SCOPE_VEC_RESERVE(t->node_names, t->cap_nodes, t->nnodes + 1) < 0 ||
        idmap_put(&t->node_ix, n->id, (uint32_t)t->nnodes) < 0)
        return -1;
    t->node_names[t->nnodes++] = n->name;
    return 0;
}

static int add_thread(log_trace *t, const scope_rec_thread *th) {
    for (size_t i = 0; i < t->nthreads; i++)
        if (t->threads[i].index == th->index)
            return 0;
    if (SCOPE_VEC_RESERVE(t->threads, t->cap_threads, t->nthreads + 1) < 0)
        return -1;
    char *p = arena_dup(&t->mem, th->name.ptr, th->name.len);
    if (!p)
        return -1;
    t->threads[t->nthreads++] = (trace_thread){th->index, th->tid, {p, th->name.len}};
    return 0;
}

static int add_phases(log_trace *t, const scope_rec_trace *r) {
    size_t need = t->nphases + r->n;
    if (SCOPE_VEC_RESERVE(t->phases, t->cap_phases, need) < 0 ||
        SCOPE_VEC_RESERVE(t->phase_nodes, t->cap_phase_nodes, need) < 0)
        return -1;
    for (uint32_t i = 0; i < r->n; i++) {
        t->phase_nodes[t->nphases] = r->events[i].node;
        t->phases[t->nphases++] =
            (trace_phase_ev){r->thread, 0, r->events[i].start_ns, r->events[i].dur_ns};
    }
    return 0;
}

static int add_counts(log_trace *t, const scope_rec_trace_counts *r) {
    if (SCOPE_VEC_RESERVE(t->counts, t->cap_counts, t->ncounts + r->n) < 0)
        return -1;
    for (uint32_t i = 0; i < r->n; i++)
        t->counts[t->ncounts++] = (trace_count_ev){r->thread, r->events[i].name,
                                                   r->events[i].mono_ns, r->events[i].value};
    return 0;
}

static int add_mark(log_trace *t, const scope_rec_mark *m) {
    if (SCOPE_VEC_RESERVE(t->marks, t->cap_marks, t->nmarks + 1) < 0)
        return -1;
    char *p = arena_dup(&t->mem, m->text.ptr, m->text.len);
    if (!p)
        return -1;
    t->marks[t->nmarks++] = (trace_mark_ev){m->thread, m->kind, m->mono_ns, {p, m->text.len}};
    return 0;
}

static int add_record(log_trace *t, const scope_record *rec) {
    switch (rec->type) {
    case SCOPE_REC_STRING:
        return add_string(t, &rec->u.string);
    case SCOPE_REC_THREAD:
        return add_thread(t, &rec->u.thread);
    case SCOPE_REC_PHASE_NODE:
        return add_node(t, &rec->u.phase_node);
    case SCOPE_REC_TRACE:
        return add_phases(t, &rec->u.trace);
    case SCOPE_REC_TRACE_COUNTS:
        return add_counts(t, &rec->u.trace_counts);
    case SCOPE_REC_MARK:
        return add_mark(t, &rec->u.mark);
    case SCOPE_REC_TRACE_WINDOW:
        if (rec->u.trace_window.phase)
            t->window = rec->u.trace_window; /* newest wins */
        return 0;
    default:
        return 0;
    }
}

/* Outer phases first where two start together: a parent and its first
 * child can share a start to the nanosecond. */
static int by_start(const void *a, const void *b) {
    const trace_phase_ev *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->dur_ns > y->dur_ns ? -1 : x->dur_ns < y->dur_ns;
}

static int count_by_time(const void *a, const void *b) {
    const trace_count_ev *x = a, *y = b;
    return x->mono_ns < y->mono_ns ? -1 : x->mono_ns > y->mono_ns;
}

static int mark_by_time(const void *a, const void *b) {
    const trace_mark_ev *x = a, *y = b;
    return x->mono_ns < y->mono_ns ? -1 : x->mono_ns > y->mono_ns;
}

int log_trace_read(int dirfd, const char *relpath, log_trace *t, char *msg, size_t msglen) {
    scope_log_reader *r;
    if (scope_log_reader_open_beneath(&r, dirfd, relpath, msg, msglen) < 0)
        return -1;
    /* What a trace does not use is passed over undecoded. */
    scope_log_reader_skip_kinds(r, 1ull << SCOPE_REC_RESOURCE | 1ull << SCOPE_REC_PHASE_AGG |
                                       1ull << SCOPE_REC_STACK | 1ull << SCOPE_REC_STACK_SAMPLES |
                                       1ull << SCOPE_REC_OFFCPU_SAMPLES | 1ull << SCOPE_REC_MODULE |
                                       1ull << SCOPE_REC_COUNTER);
    int rc = 0;
    scope_rec_frame fr;
    while (rc == 0 && scope_log_reader_next_frame(r, &fr, NULL) == 1) {
        t->frame_mono_ns = fr.mono_ns;
        t->frame_wall_ns = fr.wall_ns;
        scope_record rec;
        while (rc == 0 && scope_log_reader_next_record(r, &rec) == 1)
            rc = add_record(t, &rec);
    }
    scope_log_reader_close(r);
    if (rc < 0) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < t->nphases; i++) {
        uint32_t slot;
        if (idmap_get(&t->node_ix, t->phase_nodes[i], &slot))
            t->phases[i].name = t->node_names[slot];
        else
            t->unplaced++;
    }
    /* qsort wants an array even of nothing: an empty one is NULL here. */
    if (t->nphases)
        qsort(t->phases, t->nphases, sizeof *t->phases, by_start);
    if (t->ncounts)
        qsort(t->counts, t->ncounts, sizeof *t->counts, count_by_time);
    if (t->nmarks)
        qsort(t->marks, t->nmarks, sizeof *t->marks, mark_by_time);
    return 0;
}

run_str log_trace_string(log_trace *t, uint32_t id) {
    uint32_t slot;
    if (idmap_get(&t->string_ix, id, &slot))
        return t->strings[slot];
    char buf[32];
    int n = snprintf(buf, sizeof buf, "(string #%u)", id);
    char *p = arena_dup(&t->mem, buf, (size_t)n);
    return p ? (run_str){p, (size_t)n} : (run_str){"?", 1};
}

void log_trace_free(log_trace *t) {
    arena_free(&t->mem);
    free(t->strings);
    idmap_free(&t->string_ix);
    free(t->node_names);
    idmap_free(&t->node_ix);
    free(t->threads);
    free(t->phases);
    free(t->phase_nodes);
    free(t->counts);
    free(t->marks);
    memset(t, 0, sizeof *t);
}
