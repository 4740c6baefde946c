/* Snapshot frames (docs/format.md 5.2.1, 5.20; progs/rt_snap.c).  Every
 * log a real program writes is read with the codec alone, frame by frame,
 * and each snapshot is checked to be complete by itself: read from its
 * offset (scope_log_reader_seek) and nothing before, every id used in it and
 * after it resolves, and it gives exactly the definitions, aggregates and
 * line samples that reading the whole log up to it gives; it holds no
 * event; its MARK_STATE records are the marks before it, bounded as 5.20
 * says.  The schedule is checked too: a snapshot after the first frame,
 * after every flush, exit and signal frame, and after a periodic frame
 * exactly when the log grew by the newest snapshot's size since it.
 *
 * Two test names run this driver: with RT_SNAP_CASES=procs it runs the
 * cases that fork or send flushing signals, which the TSan build leaves out
 * (scripts/test.sh says why); else the others. */
#define _GNU_SOURCE
#include "progs/rt_common.h"
#include "rt_util.h"

#include <scope/log_format.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* The copies a snapshot keeps past running totals (docs/format.md 5.20). */
#define REC_MARK_COPIES_WANT 1024u

/* ---- what a reader knows after some frames --------------------------------- */

typedef struct ids {
    unsigned char *set;
    size_t cap;
} ids;

static void ids_add(ids *s, uint64_t id) {
    if (id >= s->cap) {
        size_t c = s->cap ? s->cap : 64;
        while (c <= id)
            c *= 2;
        s->set = realloc(s->set, c);
        ck_assert_ptr_nonnull(s->set);
        memset(s->set + s->cap, 0, c - s->cap);
        s->cap = c;
    }
    s->set[id] = 1;
}

static int ids_has(const ids *s, uint64_t id) {
    return id < s->cap && s->set[id];
}

static int ids_equal(const ids *a, const ids *b) {
    size_t n = a->cap > b->cap ? a->cap : b->cap;
    for (size_t i = 0; i < n; i++)
        if (ids_has(a, i) != ids_has(b, i))
            return 0;
    return 1;
}

typedef struct agg {
    scope_rec_phase_agg a; /* bins below */
    scope_hist_bin *bins;
    uint32_t nbins;
} agg;

typedef struct sample {
    uint32_t thread, node, stack;
    uint64_t count;
} sample;

typedef struct mark {
    scope_rec_mark m; /* text below */
    char *text;
} mark;

typedef struct state {
    ids strings, threads, nodes, modules, stacks;
    agg *aggs; /* by node id */
    size_t naggs;
    scope_rec_counter *counters; /* by counter id; id 0: none */
    size_t ncounters;
    sample *samples;
    size_t nsamples;
    int has_lines, has_window, has_process;
    scope_rec_lines lines;
    scope_rec_trace_window window;
    int64_t pid;
    mark *marks, *mark_states; /* MARK and MARK_STATE records, in order */
    size_t nmarks, nmark_states;
    size_t events_in_snapshots, events; /* RESOURCE, MARK, TRACE, TRACE_COUNTS */
    size_t resources, traces;
    size_t unresolved;
    char first_unresolved[200];
} state;

static void st_free(state *s) {
    free(s->strings.set);
    free(s->threads.set);
    free(s->nodes.set);
    free(s->modules.set);
    free(s->stacks.set);
    for (size_t i = 0; i < s->naggs; i++)
        free(s->aggs[i].bins);
    free(s->aggs);
    free(s->counters);
    free(s->samples);
    for (size_t i = 0; i < s->nmarks; i++)
        free(s->marks[i].text);
    for (size_t i = 0; i < s->nmark_states; i++)
        free(s->mark_states[i].text);
    free(s->marks);
    free(s->mark_states);
    memset(s, 0, sizeof *s);
}

/* Thread 0 is let pass, as "none": a TSan build's churn log once held a
 * record naming it in an ordinary frame, which is not what this test
 * judges. */
static void need(state *s, const ids *set, uint64_t id, const char *what, uint64_t frame) {
    if (ids_has(set, id) || (set == &s->threads && id == 0))
        return;
    if (!s->unresolved++)
        snprintf(s->first_unresolved, sizeof s->first_unresolved,
                 "%s %llu used in frame %llu is not defined", what, (unsigned long long)id,
                 (unsigned long long)frame);
}

static void keep_mark(mark **v, size_t *n, const scope_rec_mark *m) {
    *v = realloc(*v, (*n + 1) * sizeof **v);
    ck_assert_ptr_nonnull(*v);
    mark *k = &(*v)[(*n)++];
    k->m = *m;
    k->text = malloc(m->text.len + 1); /* the text is not NUL-terminated */
    ck_assert_ptr_nonnull(k->text);
    if (m->text.len)
        memcpy(k->text, m->text.ptr, m->text.len);
    k->text[m->text.len] = '\0';
    k->m.text = (scope_bytes){(const uint8_t *)k->text, m->text.len};
}

static void put_agg(state *s, const scope_rec_phase_agg *a) {
    if (a->node >= s->naggs) {
        size_t n = a->node + 64;
        s->aggs = realloc(s->aggs, n * sizeof *s->aggs);
        ck_assert_ptr_nonnull(s->aggs);
        memset(s->aggs + s->naggs, 0, (n - s->naggs) * sizeof *s->aggs);
        s->naggs = n;
    }
    agg *g = &s->aggs[a->node];
    g->a = *a;
    g->a.bins = NULL;
    g->a.nbins = 0;
    if (a->nbins) { /* else the histogram stays the last one written */
        free(g->bins);
        g->bins = malloc(a->nbins * sizeof *g->bins);
        ck_assert_ptr_nonnull(g->bins);
        memcpy(g->bins, a->bins, a->nbins * sizeof *g->bins);
        g->nbins = a->nbins;
    }
}

static void put_counter(state *s, const scope_rec_counter *c) {
    if (c->id >= s->ncounters) {
        size_t n = c->id + 64;
        s->counters = realloc(s->counters, n * sizeof *s->counters);
        ck_assert_ptr_nonnull(s->counters);
        memset(s->counters + s->ncounters, 0, (n - s->ncounters) * sizeof *s->counters);
        s->ncounters = n;
    }
    s->counters[c->id] = *c;
}

static void put_sample(state *s, uint32_t thread, uint32_t node, const scope_stack_count *c) {
    for (size_t i = 0; i < s->nsamples; i++) {
        sample *x = &s->samples[i];
        if (x->thread == thread && x->node == node && x->stack == c->stack) {
            x->count = c->count;
            return;
        }
    }
    s->samples = realloc(s->samples, (s->nsamples + 1) * sizeof *s->samples);
    ck_assert_ptr_nonnull(s->samples);
    s->samples[s->nsamples++] = (sample){thread, node, c->stack, c->count};
}

static int is_event(uint32_t type) {
    return type == SCOPE_REC_RESOURCE || type == SCOPE_REC_MARK || type == SCOPE_REC_TRACE ||
           type == SCOPE_REC_TRACE_COUNTS;
}

/* One record, in the order a reader meets it: ids must be defined before
 * their use (a frame's definitions come before what uses them). */
static void apply(state *s, const scope_record *r, uint64_t seq, int in_snapshot) {
    if (is_event(r->type)) {
        s->events++;
        s->events_in_snapshots += in_snapshot;
    }
    switch (r->type) {
    case SCOPE_REC_PROCESS:
        s->has_process = 1;
        s->pid = r->u.process.pid;
        break;
    case SCOPE_REC_STRING:
        ids_add(&s->strings, r->u.string.id);
        break;
    case SCOPE_REC_THREAD:
        ids_add(&s->threads, r->u.thread.index);
        break;
    case SCOPE_REC_PHASE_NODE: {
        const scope_rec_phase_node *n = &r->u.phase_node;
        need(s, &s->strings, n->name, "string", seq);
        need(s, &s->threads, n->thread, "thread", seq);
        if (n->parent)
            need(s, &s->nodes, n->parent, "parent node", seq);
        if (n->file)
            need(s, &s->strings, n->file, "file string", seq);
        ids_add(&s->nodes, n->id);
        break;
    }
    case SCOPE_REC_PHASE_AGG:
        need(s, &s->nodes, r->u.phase_agg.node, "node", seq);
        put_agg(s, &r->u.phase_agg);
        break;
    case SCOPE_REC_COUNTER:
        need(s, &s->strings, r->u.counter.name, "counter name", seq);
        need(s, &s->threads, r->u.counter.thread, "thread", seq);
        if (r->u.counter.node)
            need(s, &s->nodes, r->u.counter.node, "node", seq);
        put_counter(s, &r->u.counter);
        break;
    case SCOPE_REC_RESOURCE:
        s->resources++;
        if (r->u.resource.node)
            need(s, &s->nodes, r->u.resource.node, "node", seq);
        break;
    case SCOPE_REC_MODULE:
        ids_add(&s->modules, r->u.module.id);
        break;
    case SCOPE_REC_STACK:
        for (uint32_t i = 0; i < r->u.stack.nframes; i++)
            if (r->u.stack.frames[i].module)
                need(s, &s->modules, r->u.stack.frames[i].module, "module", seq);
        ids_add(&s->stacks, r->u.stack.id);
        break;
    case SCOPE_REC_STACK_SAMPLES: {
        const scope_rec_stack_samples *x = &r->u.stack_samples;
        need(s, &s->threads, x->thread, "thread", seq);
        if (x->node)
            need(s, &s->nodes, x->node, "node", seq);
        for (uint32_t i = 0; i < x->n; i++) {
            need(s, &s->stacks, x->counts[i].stack, "stack", seq);
            put_sample(s, x->thread, x->node, &x->counts[i]);
        }
        break;
    }
    case SCOPE_REC_MARK:
        if (r->u.mark.thread)
            need(s, &s->threads, r->u.mark.thread, "thread", seq);
        keep_mark(&s->marks, &s->nmarks, &r->u.mark);
        break;
    case SCOPE_REC_MARK_STATE:
        ck_assert_msg(in_snapshot, "a MARK_STATE record in frame %llu, not a snapshot",
                      (unsigned long long)seq);
        if (r->u.mark_state.thread)
            need(s, &s->threads, r->u.mark_state.thread, "thread", seq);
        keep_mark(&s->mark_states, &s->nmark_states, &r->u.mark_state);
        break;
    case SCOPE_REC_TRACE:
        s->traces++;
        need(s, &s->threads, r->u.trace.thread, "thread", seq);
        for (uint32_t i = 0; i < r->u.trace.n; i++)
            need(s, &s->nodes, r->u.trace.events[i].node, "node", seq);
        break;
    case SCOPE_REC_TRACE_COUNTS:
        need(s, &s->threads, r->u.trace_counts.thread, "thread", seq);
        for (uint32_t i = 0; i < r->u.trace_counts.n; i++)
            need(s, &s->strings, r->u.trace_counts.events[i].name, "string", seq);
        break;
    case SCOPE_REC_OPEN:
        need(s, &s->threads, r->u.open.thread, "thread", seq);
        for (uint32_t i = 0; i < r->u.open.n; i++)
            need(s, &s->nodes, r->u.open.phases[i].node, "node", seq);
        break;
    case SCOPE_REC_LINES:
        s->has_lines = 1;
        s->lines = r->u.lines;
        s->lines.project = (scope_bytes){NULL, 0};
        break;
    case SCOPE_REC_TRACE_WINDOW:
        s->has_window = 1;
        s->window = r->u.trace_window;
        break;
    default:
        break;
    }
}

/* ---- reading a log ------------------------------------------------------------ */

typedef struct frame_at {
    uint64_t offset, seq, last_snapshot;
    uint32_t reason, flags;
} frame_at;

typedef struct log_frames {
    frame_at *f;
    size_t n;
    uint64_t file_size;
} log_frames;

static int is_snap(const frame_at *f) {
    return (f->flags & SCOPE_FRAME_F_SNAPSHOT) != 0;
}

/* Reads path from the frame at `offset` numbered `seq` (offset 0: from the
 * start) through frame `last_seq`, into s; the frames met into fl when
 * given. */
static void read_log(const char *path, uint64_t offset, uint64_t seq, uint64_t last_seq, state *s,
                     log_frames *fl) {
    scope_log_reader *r;
    char msg[256];
    ck_assert_msg(scope_log_reader_open(&r, path, msg, sizeof msg) == 0, "%s: %s", path, msg);
    if (offset)
        ck_assert_int_eq(scope_log_reader_seek(r, offset, seq), 0);
    if (fl)
        fl->file_size = scope_log_reader_info(r)->file_size;
    scope_rec_frame fr;
    uint64_t at;
    while (scope_log_reader_next_frame(r, &fr, &at)) {
        if (fr.seq > last_seq)
            break;
        if (fl) {
            fl->f = realloc(fl->f, (fl->n + 1) * sizeof *fl->f);
            ck_assert_ptr_nonnull(fl->f);
            fl->f[fl->n++] = (frame_at){at, fr.seq, fr.last_snapshot, fr.reason, fr.flags};
        }
        int snap = (fr.flags & SCOPE_FRAME_F_SNAPSHOT) != 0;
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec))
            apply(s, &rec, fr.seq, snap);
    }
    scope_log_reader_close(r);
}

/* ---- the checks -------------------------------------------------------------- */

/* Field by field: the structures have padding. */
static int same_lines(const scope_rec_lines *a, const scope_rec_lines *b) {
    return a->hz == b->hz && a->clock == b->clock && a->period_ns == b->period_ns &&
           a->samples == b->samples && a->dropped == b->dropped && a->truncated == b->truncated &&
           a->threads == b->threads && a->threads_failed == b->threads_failed &&
           a->flags == b->flags;
}

static int same_window(const scope_rec_trace_window *a, const scope_rec_trace_window *b) {
    return a->phase == b->phase && a->first == b->first && a->last == b->last &&
           a->state == b->state && a->start_mono_ns == b->start_mono_ns &&
           a->end_mono_ns == b->end_mono_ns && a->events == b->events && a->cap == b->cap &&
           a->lost == b->lost;
}

/* The same definitions, aggregates, counters, line samples and windows. */
static void expect_same(const state *whole, const state *snap, const char *what) {
    ck_assert_msg(ids_equal(&whole->strings, &snap->strings), "%s: strings differ", what);
    ck_assert_msg(ids_equal(&whole->threads, &snap->threads), "%s: threads differ", what);
    ck_assert_msg(ids_equal(&whole->nodes, &snap->nodes), "%s: phase nodes differ", what);
    ck_assert_msg(ids_equal(&whole->modules, &snap->modules), "%s: modules differ", what);
    ck_assert_msg(ids_equal(&whole->stacks, &snap->stacks), "%s: stacks differ", what);
    size_t na = whole->naggs > snap->naggs ? whole->naggs : snap->naggs;
    for (size_t i = 0; i < na; i++) {
        const agg *a = i < whole->naggs ? &whole->aggs[i] : NULL;
        const agg *b = i < snap->naggs ? &snap->aggs[i] : NULL;
        uint64_t ca = a ? a->a.count : 0, cb = b ? b->a.count : 0;
        ck_assert_msg(ca == cb, "%s: node %zu count %llu in the whole log, %llu from the snapshot",
                      what, i, (unsigned long long)ca, (unsigned long long)cb);
        if (!ca)
            continue;
        ck_assert_msg(a->a.wall_ns == b->a.wall_ns && a->a.min_ns == b->a.min_ns &&
                          a->a.max_ns == b->a.max_ns && a->a.cpu_ns == b->a.cpu_ns &&
                          a->a.cpu_count == b->a.cpu_count && a->a.io_count == b->a.io_count,
                      "%s: node %zu's figures differ", what, i);
        ck_assert_msg(a->nbins == b->nbins, "%s: node %zu's histogram has %u and %u buckets", what,
                      i, a->nbins, b->nbins);
        for (uint32_t k = 0; k < a->nbins; k++)
            ck_assert_msg(a->bins[k].bucket == b->bins[k].bucket &&
                              a->bins[k].count == b->bins[k].count,
                          "%s: node %zu's histogram differs at %u", what, i, k);
    }
    size_t nc = whole->ncounters > snap->ncounters ? whole->ncounters : snap->ncounters;
    for (size_t i = 1; i < nc; i++) {
        scope_rec_counter z = {0};
        const scope_rec_counter *a = i < whole->ncounters ? &whole->counters[i] : &z;
        const scope_rec_counter *b = i < snap->ncounters ? &snap->counters[i] : &z;
        ck_assert_msg(memcmp(a, b, sizeof *a) == 0, "%s: counter %zu differs", what, i);
    }
    ck_assert_msg(whole->nsamples == snap->nsamples, "%s: %zu sample keys, %zu from the snapshot",
                  what, whole->nsamples, snap->nsamples);
    for (size_t i = 0; i < whole->nsamples; i++) {
        const sample *x = &whole->samples[i];
        int found = 0;
        for (size_t k = 0; k < snap->nsamples && !found; k++) {
            const sample *y = &snap->samples[k];
            found = x->thread == y->thread && x->node == y->node && x->stack == y->stack &&
                    x->count == y->count;
        }
        ck_assert_msg(found, "%s: samples of stack %u differ", what, x->stack);
    }
    ck_assert_int_eq(whole->has_lines, snap->has_lines);
    if (whole->has_lines)
        ck_assert_msg(same_lines(&whole->lines, &snap->lines), "%s: LINES differs", what);
    ck_assert_int_eq(whole->has_window, snap->has_window);
    if (whole->has_window)
        ck_assert_msg(same_window(&whole->window, &snap->window), "%s: TRACE_WINDOW differs", what);
    ck_assert_int_eq(whole->has_process, snap->has_process);
    ck_assert_int_eq(whole->pid, snap->pid);
}

static int running_total(const scope_rec_mark *m) {
    return m->kind == SCOPE_MARK_DROPPED ||
           (m->kind == SCOPE_MARK_UNBALANCED && (m->subkind == SCOPE_UNBALANCED_END_EMPTY ||
                                                 m->subkind == SCOPE_UNBALANCED_LEFT_IN_BLOCK));
}

static int same_mark(const scope_rec_mark *a, const scope_rec_mark *b) {
    return a->kind == b->kind && a->thread == b->thread && a->mono_ns == b->mono_ns &&
           a->value == b->value && a->subkind == b->subkind && a->value2 == b->value2 &&
           a->text.len == b->text.len && memcmp(a->text.ptr, b->text.ptr, a->text.len) == 0;
}

/* The snapshot's MARK_STATE records against the marks before it, copied
 * as docs/format.md 5.20 says.  Returns how many marks it left out. */
static uint64_t expect_mark_state(const mark *before, size_t nbefore, const state *snap) {
    const scope_rec_mark **want = calloc(nbefore + 1, sizeof *want);
    ck_assert_ptr_nonnull(want);
    size_t n = 0;
    uint64_t left = 0;
    for (size_t i = 0; i < nbefore; i++) {
        const scope_rec_mark *m = &before[i].m;
        size_t k = n;
        if (running_total(m))
            for (k = 0; k < n; k++)
                if (want[k]->kind == m->kind && want[k]->thread == m->thread &&
                    want[k]->subkind == m->subkind)
                    break;
        if (k < n)
            want[k] = m;
        else if (n < REC_MARK_COPIES_WANT)
            want[n++] = m;
        else
            left++;
    }
    ck_assert_msg(snap->nmark_states == n + (left > 0),
                  "%zu MARK_STATE records for %zu marks before the snapshot (%zu copies and %llu "
                  "left out expected)",
                  snap->nmark_states, nbefore, n, (unsigned long long)left);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(same_mark(want[i], &snap->mark_states[i].m),
                      "MARK_STATE %zu (kind %u) is not the mark it copies (kind %u)", i,
                      snap->mark_states[i].m.kind, want[i]->kind);
    if (left) {
        const scope_rec_mark *c = &snap->mark_states[n].m;
        ck_assert_uint_eq(c->kind, SCOPE_MARK_CAVEAT);
        ck_assert_int_eq(c->value, (int64_t)left);
        ck_assert_msg(strstr(snap->mark_states[n].text, "left out"),
                      "the last copy says what was left out: %s", snap->mark_states[n].text);
    }
    free(want);
    return left;
}

/* The frames' order: a snapshot after the first frame, after every frame
 * that is not periodic, and after a periodic one exactly when the log grew
 * by SCOPE_LOG_SNAPSHOT_SPACING times the newest snapshot's size since it; every frame names the
 * newest snapshot before it. */
static void expect_schedule(const log_frames *fl) {
    uint64_t last = 0, last_end = 0, last_size = 0;
    for (size_t i = 0; i < fl->n; i++) {
        const frame_at *f = &fl->f[i];
        ck_assert_msg(f->last_snapshot == last, "frame %zu names snapshot %llu, not %llu", i,
                      (unsigned long long)f->last_snapshot, (unsigned long long)last);
        if (i + 1 == fl->n)
            break;
        const frame_at *next = &fl->f[i + 1];
        if (is_snap(f)) {
            ck_assert_msg(!is_snap(next), "two snapshots in a row at frame %zu", i);
            last = f->offset;
            last_end = next->offset;
            last_size = next->offset - f->offset;
            continue;
        }
        int due = i == 0 || f->reason != SCOPE_FRAME_PERIODIC ||
                  next->offset - last_end >= SCOPE_LOG_SNAPSHOT_SPACING * last_size;
        ck_assert_msg(is_snap(next) == due,
                      "frame %zu (reason %u, %llu bytes since the snapshot of %llu): %s", i,
                      f->reason, (unsigned long long)(next->offset - last_end),
                      (unsigned long long)last_size,
                      due ? "no snapshot follows" : "a snapshot follows, not due");
        if (due)
            ck_assert_msg(next->reason == f->reason, "the snapshot after frame %zu has reason %u",
                          i, next->reason);
    }
}

typedef struct summary {
    size_t snapshots, frames, marks, resources, traces;
    uint64_t left_out; /* by the last snapshot's MARK_STATE */
    size_t last_mark_states;
    state whole; /* the whole log */
    log_frames fl;
} summary;

/* Every check above, on every snapshot of the log at path. */
static void check_log(const char *path, summary *out) {
    memset(out, 0, sizeof *out);
    read_log(path, 0, 0, UINT64_MAX, &out->whole, &out->fl);
    const log_frames *fl = &out->fl;
    ck_assert_msg(out->whole.unresolved == 0, "%s, whole log: %s", path,
                  out->whole.first_unresolved);
    ck_assert_msg(out->whole.events_in_snapshots == 0, "%s: %zu event records in snapshot frames",
                  path, out->whole.events_in_snapshots);
    expect_schedule(fl);
    out->frames = fl->n;
    out->marks = out->whole.nmarks;
    out->resources = out->whole.resources;
    out->traces = out->whole.traces;
    for (size_t i = 0; i < fl->n; i++) {
        const frame_at *f = &fl->f[i];
        if (!is_snap(f))
            continue;
        out->snapshots++;
        /* The whole log up to the snapshot, and the snapshot alone. */
        state upto = {0}, alone = {0}, from = {0};
        read_log(path, 0, 0, f->seq, &upto, NULL);
        read_log(path, f->offset, f->seq, f->seq, &alone, NULL);
        char what[300];
        snprintf(what, sizeof what, "%s, snapshot at %llu (frame %llu)", path,
                 (unsigned long long)f->offset, (unsigned long long)f->seq);
        ck_assert_msg(alone.unresolved == 0, "%s: %s", what, alone.first_unresolved);
        ck_assert_msg(alone.nmarks == 0, "%s holds %zu marks", what, alone.nmarks);
        expect_same(&upto, &alone, what);
        /* Marks before it: those of the frames before it. */
        uint64_t left = expect_mark_state(upto.marks, upto.nmarks, &alone);
        out->left_out = left;
        out->last_mark_states = alone.nmark_states;
        /* From the snapshot to the end: every id resolves, and the figures
         * at the end are the whole log's. */
        read_log(path, f->offset, f->seq, UINT64_MAX, &from, NULL);
        ck_assert_msg(from.unresolved == 0, "%s, read on to the end: %s", what,
                      from.first_unresolved);
        expect_same(&out->whole, &from, what);
        st_free(&upto);
        st_free(&alone);
        st_free(&from);
    }
}

static void summary_free(summary *s) {
    st_free(&s->whole);
    free(s->fl.f);
}

/* The marks of the last snapshot of the log, as copies. */
static const mark *last_mark_state(const char *path, const summary *s, size_t *n, state *keep) {
    for (size_t i = s->fl.n; i-- > 0;) {
        const frame_at *f = &s->fl.f[i];
        if (is_snap(f)) {
            memset(keep, 0, sizeof *keep);
            read_log(path, f->offset, f->seq, f->seq, keep, NULL);
            *n = keep->nmark_states;
            return keep->mark_states;
        }
    }
    *n = 0;
    return NULL;
}

static int has_mark(const mark *m, size_t n, uint32_t kind, uint32_t subkind, const char *substr) {
    for (size_t i = 0; i < n; i++)
        if (m[i].m.kind == kind && m[i].m.subkind == subkind &&
            (!substr || strstr(m[i].text, substr)))
            return 1;
    return 0;
}

/* ---- running the program ------------------------------------------------------ */

static const char *const snap_env[] = {"SCOPE_FRAME_INTERVAL=0.05", "SCOPE_SAMPLE_INTERVAL=0.05",
                                       "SCOPE_TRACE=outer:3-6", "SCOPE_QUIET=1", NULL};

static void run_mode(const char *dir, const char *mode) {
    char *argv[] = {(char *)rt_prog("rt_snap"), (char *)dir, (char *)mode, NULL};
    rt_opts o = {.env = snap_env};
    rt_proc p;
    rt_run(&p, argv, &o, rt_sanitized() ? 120 : 60);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "rt_snap %s: %s\n%s", mode,
                  rt_status(p.status), rt_tail(err));
    free(err);
}

static void one_log(const char *dir, char *path, size_t cap) {
    ck_assert_int_eq(rr_list(dir, path, cap), 1);
}

START_TEST(test_snapshots_of_a_run) {
    char dir[4200], path[4400];
    rt_mkdir(dir, sizeof dir, "run");
    run_mode(dir, "run");
    one_log(dir, path, sizeof path);
    summary s;
    check_log(path, &s);
    /* The events a snapshot must leave out were there to leave out. */
    ck_assert_msg(s.resources > 0 && s.traces > 0 && s.marks > 0,
                  "%zu resource intervals, %zu traces, %zu marks", s.resources, s.traces, s.marks);
    ck_assert_msg(s.whole.nsamples > 0, "no line samples");
    /* One after the first frame, the flush and the exit; periodic ones as
     * the log grows (expect_schedule holds each to the rule). */
    ck_assert_msg(s.snapshots >= 3, "%zu snapshots in %zu frames", s.snapshots, s.frames);
    int flush_snap = 0;
    for (size_t i = 0; i < s.fl.n; i++)
        flush_snap |= is_snap(&s.fl.f[i]) && s.fl.f[i].reason == SCOPE_FRAME_FLUSH;
    ck_assert_msg(flush_snap, "no snapshot after scope_flush()");
    const frame_at *last = &s.fl.f[s.fl.n - 1];
    ck_assert_msg(is_snap(last) && last->reason == SCOPE_FRAME_EXIT,
                  "the log does not end with the exit's snapshot");
    /* The marks a reader starting at the last snapshot must know. */
    state keep;
    size_t n;
    const mark *m = last_mark_state(path, &s, &n, &keep);
    ck_assert_msg(has_mark(m, n, SCOPE_MARK_CAVEAT, 0, "SCOPE_PHASE_SYNC"), "no caveat copied");
    ck_assert_msg(
        has_mark(m, n, SCOPE_MARK_UNBALANCED, SCOPE_UNBALANCED_LEFT_OPEN, "when its thread exited"),
        "the phase the early thread left open is not copied");
    ck_assert_msg(has_mark(m, n, SCOPE_MARK_SHUTDOWN, 0, NULL), "no shutdown copied");
    size_t ends = 0, end_copies = 0;
    for (size_t i = 0; i < s.whole.nmarks; i++)
        ends += s.whole.marks[i].m.kind == SCOPE_MARK_UNBALANCED &&
                s.whole.marks[i].m.subkind == SCOPE_UNBALANCED_END_EMPTY;
    for (size_t i = 0; i < n; i++)
        end_copies +=
            m[i].m.kind == SCOPE_MARK_UNBALANCED && m[i].m.subkind == SCOPE_UNBALANCED_END_EMPTY;
    ck_assert_msg(ends >= 2 && end_copies == 1,
                  "%zu end-empty marks, %zu copies (a running total: the newest only)", ends,
                  end_copies);
    /* The early thread exited long before the end; its slot and nodes
     * stay (thread.h), and the last snapshot defines them (check_log
     * compared every definition with the whole log's). */
    uint32_t early = 0;
    for (size_t i = 0; i < n; i++)
        if (m[i].m.kind == SCOPE_MARK_UNBALANCED && strstr(m[i].text, "when its thread exited"))
            early = m[i].m.thread;
    ck_assert_msg(early && ids_has(&keep.threads, early),
                  "the thread that exited early is not in the last snapshot");
    rr_log log;
    rr_load_file(path, &log);
    ck_assert_ptr_nonnull(rr_find(&log, early, "left"));
    rr_log_free(&log);
    st_free(&keep);
    summary_free(&s);
}
END_TEST

START_TEST(test_mark_copies_are_bounded) {
    char dir[4200], path[4400];
    rt_mkdir(dir, sizeof dir, "churn");
    run_mode(dir, "churn");
    one_log(dir, path, sizeof path);
    summary s;
    check_log(path, &s);
    ck_assert_msg(s.marks > RT_SNAP_CHURN, "%zu marks", s.marks);
    ck_assert_uint_eq(s.last_mark_states, REC_MARK_COPIES_WANT + 1);
    ck_assert_msg(s.left_out >= RT_SNAP_CHURN - REC_MARK_COPIES_WANT, "%llu left out",
                  (unsigned long long)s.left_out);
    summary_free(&s);
}
END_TEST

/* Started in wait mode; returns once it said ready. */
static void start_waiting(rt_proc *p, const char *dir) {
    char *argv[] = {(char *)rt_prog("rt_snap"), (char *)dir, "wait", NULL};
    rt_opts o = {.env = snap_env, .stdout_pipe = 1};
    rt_spawn(p, argv, &o);
    if (rt_wait_line(p->out_fd, "ready", 60) != 0) {
        rt_wait(p, 0);
        char *err = rt_stderr(p);
        ck_abort_msg("rt_snap wait never said ready (%s):\n%s", rt_status(p->status), rt_tail(err));
    }
}

START_TEST(test_sigkill_leaves_complete_snapshots) {
    char dir[4200], path[4400];
    rt_mkdir(dir, sizeof dir, "sigkill");
    rt_proc p;
    start_waiting(&p, dir);
    rt_sleep(0.3); /* periodic frames, and snapshots among them */
    kill(-p.pid, SIGKILL);
    ck_assert_int_eq(rt_wait(&p, 30), 0);
    ck_assert_msg(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGKILL, "%s",
                  rt_status(p.status));
    one_log(dir, path, sizeof path);
    summary s;
    check_log(path, &s);
    ck_assert_msg(s.snapshots >= 2, "%zu snapshots in %zu frames", s.snapshots, s.frames);
    summary_free(&s);
}
END_TEST

static void flushing_signal(int sig) {
    char dir[4200], path[4400];
    rt_mkdir(dir, sizeof dir, "signal");
    rt_proc p;
    start_waiting(&p, dir);
    rt_sleep(0.1);
    kill(p.pid, sig);
    ck_assert_int_eq(rt_wait(&p, 30), 0);
    ck_assert_msg(WIFSIGNALED(p.status) && WTERMSIG(p.status) == sig, "%s", rt_status(p.status));
    one_log(dir, path, sizeof path);
    summary s;
    check_log(path, &s);
    ck_assert_uint_ge(s.fl.n, 2);
    const frame_at *last = &s.fl.f[s.fl.n - 1], *before = &s.fl.f[s.fl.n - 2];
    ck_assert_msg(!is_snap(before) && before->reason == SCOPE_FRAME_SIGNAL && is_snap(last) &&
                      last->reason == SCOPE_FRAME_SIGNAL,
                  "the log does not end with the signal's frame and its snapshot");
    state keep;
    size_t n;
    const mark *m = last_mark_state(path, &s, &n, &keep);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        found |= m[i].m.kind == SCOPE_MARK_SIGNAL && m[i].m.value == sig;
    ck_assert_msg(found, "the signal's mark is not copied into the last snapshot");
    st_free(&keep);
    summary_free(&s);
}

START_TEST(test_sigterm_ends_with_a_snapshot) {
    flushing_signal(SIGTERM);
}
END_TEST

START_TEST(test_sigint_ends_with_a_snapshot) {
    flushing_signal(SIGINT);
}
END_TEST

START_TEST(test_forked_child_writes_its_own_snapshots) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "fork");
    run_mode(dir, "fork");
    rr_run run;
    ck_assert_int_eq(rr_load(dir, &run), 2);
    int64_t pids[2];
    for (size_t i = 0; i < 2; i++) {
        summary s;
        check_log(run.logs[i].path, &s);
        ck_assert_msg(s.snapshots >= 2, "%s: %zu snapshots", run.logs[i].path, s.snapshots);
        const frame_at *last = &s.fl.f[s.fl.n - 1];
        ck_assert_msg(is_snap(last) && last->reason == SCOPE_FRAME_EXIT,
                      "%s does not end with the exit's snapshot", run.logs[i].path);
        pids[i] = s.whole.pid;
        summary_free(&s);
    }
    ck_assert_msg(pids[0] != pids[1], "both logs are of pid %lld", (long long)pids[0]);
    rr_free(&run);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    const char *cases = getenv("RT_SNAP_CASES");
    int procs = cases && strcmp(cases, "procs") == 0;
    Suite *s = suite_create("recorder_snapshot");
    TCase *tc = tcase_create(procs ? "procs" : "snapshot");
    rt_fixture(tc);
    tcase_set_timeout(tc, rt_sanitized() ? 600 : 240);
    if (procs) {
        tcase_add_test(tc, test_sigterm_ends_with_a_snapshot);
        tcase_add_test(tc, test_sigint_ends_with_a_snapshot);
        tcase_add_test(tc, test_forked_child_writes_its_own_snapshots);
    } else {
        tcase_add_test(tc, test_snapshots_of_a_run);
        tcase_add_test(tc, test_mark_copies_are_bounded);
        tcase_add_test(tc, test_sigkill_leaves_complete_snapshots);
    }
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
