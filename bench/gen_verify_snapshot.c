/*
 * The snapshot frames of a generated log (docs/format.md 5.2.1, 9.8), read
 * back through the real reader:
 *
 * - the schedule: a snapshot after every frame closed by other than the
 *   timer, after a periodic frame once the log grew by
 *   SCOPE_LOG_SNAPSHOT_SPACING times the newest snapshot's size since it (the first periodic frame
 * when there is none yet), and never two in a row; every FRAME's last_snapshot names the newest
 * snapshot before it;
 * - each snapshot is complete: it restates every definition and the newest
 *   value of every aggregate written before it (the same bodies; phase
 *   aggregates with their whole histogram), the trace window, a MARK_STATE
 *   copy of every mark, and for every resource figure a RESOURCE_SERIES
 *   whose buckets equal the RESOURCE intervals before it recomputed here,
 *   bucket by bucket, and for every phase node an interval named a
 *   NODE_IO whose sums equal those intervals', thread and process records
 *   apart; it holds no event;
 * - reading from the newest snapshot alone (scope_log_reader_seek) resolves
 *   every id and ends with the same aggregates as reading the whole log.
 */
#include "gen_run.h"
#include "gen_series.h"

#include <scope/log_format.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTED 5

/* The newest body written under one key (a definition's id, an
 * aggregate's node or counter id), and whether a snapshot restated it. */
typedef struct body {
    uint8_t *data;
    size_t len;
    int seen;
} body;

typedef struct keyed {
    body *at;
    uint32_t cap;
} keyed;

/* One RESOURCE interval's value of one figure. */
typedef struct point {
    uint64_t mono, len, value;
} point;

typedef struct figure_points {
    uint32_t figure, device;
    point *p;
    size_t n, cap;
    int seen;
} figure_points;

/* A phase aggregate's newest scalars (its histogram may lag in regular
 * frames: they carry one every 120 s). */
typedef struct agg {
    int have, seen;
    scope_rec_phase_agg a;
} agg;

/* The sums of the intervals written so far that named one phase node,
 * and whether the snapshot being read restated them. */
typedef struct node_sums {
    scope_rec_node_io want;
    int seen;
} node_sums;

typedef struct snap_verifier {
    const char *path;
    FILE *out;
    int problems;
    uint64_t seq; /* the frame being read */
    keyed strings, threads, nodes, counters, traces;
    agg *aggs;
    uint32_t aggs_cap;
    scope_rec_mark *marks;
    size_t nmarks, marks_cap, mark_copies;
    figure_points figs[GEN_SERIES_MAX];
    int nfigs, have_process;
    node_sums *node_io; /* by node id */
    uint32_t node_io_cap;
    /* the schedule */
    int prev_is_snap, prev_due, have_prev, snapshots;
    uint64_t snap_off, snap_seq, snap_size, snap_end, prev_off;
    uint32_t prev_reason;
} snap_verifier;

static void problem(snap_verifier *v, const char *fmt, ...) {
    if (++v->problems > MAX_REPORTED)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(v->out, "%s: frame %" PRIu64 ": ", v->path, v->seq);
    vfprintf(v->out, fmt, ap);
    fputc('\n', v->out);
    va_end(ap);
}

static body *slot(snap_verifier *v, keyed *k, uint32_t id) {
    if (!(k->at = gen_cover(k->at, &k->cap, id, sizeof *k->at))) {
        problem(v, "out of memory");
        return NULL;
    }
    return &k->at[id];
}

static void keep(snap_verifier *v, keyed *k, uint32_t id, scope_bytes raw) {
    body *b = slot(v, k, id);
    if (!b)
        return;
    uint8_t *d = realloc(b->data, raw.len ? raw.len : 1);
    if (!d) {
        problem(v, "out of memory");
        return;
    }
    memcpy(d, raw.ptr, raw.len);
    b->data = d;
    b->len = raw.len;
}

/* A snapshot's record under key `id` restates the newest body. */
static void restated(snap_verifier *v, keyed *k, uint32_t id, scope_bytes raw, const char *what) {
    body *b = id < k->cap ? &k->at[id] : NULL;
    if (!b || !b->data)
        problem(v, "snapshot restates %s %u that was never written", what, id);
    else if (b->len != raw.len || memcmp(b->data, raw.ptr, raw.len))
        problem(v, "snapshot's %s %u differs from the newest one written", what, id);
    else
        b->seen = 1;
}

static void missing(snap_verifier *v, keyed *k, const char *what) {
    for (uint32_t id = 0; id < k->cap; id++) {
        if (k->at[id].data && !k->at[id].seen)
            problem(v, "snapshot lacks %s %u", what, id);
        k->at[id].seen = 0;
    }
}

static void free_keyed(keyed *k) {
    for (uint32_t i = 0; i < k->cap; i++)
        free(k->at[i].data);
    free(k->at);
}

static agg *agg_at(snap_verifier *v, uint32_t node) {
    if (!(v->aggs = gen_cover(v->aggs, &v->aggs_cap, node, sizeof *v->aggs))) {
        problem(v, "out of memory");
        return NULL;
    }
    return &v->aggs[node];
}

/* The scalars of two aggregates of a node agree (histograms apart). */
static int same_scalars(const scope_rec_phase_agg *a, const scope_rec_phase_agg *b) {
    return a->count == b->count && a->wall_ns == b->wall_ns && a->min_ns == b->min_ns &&
           a->max_ns == b->max_ns && a->cpu_count == b->cpu_count &&
           a->cpu_wall_ns == b->cpu_wall_ns && a->cpu_ns == b->cpu_ns &&
           a->io_flags == b->io_flags && a->io_count == b->io_count &&
           a->disk_read == b->disk_read && a->disk_write == b->disk_write &&
           a->char_read == b->char_read && a->char_write == b->char_write;
}

static figure_points *points_of(snap_verifier *v, uint32_t figure, uint32_t device) {
    for (int i = 0; i < v->nfigs; i++)
        if (v->figs[i].figure == figure && v->figs[i].device == device)
            return &v->figs[i];
    if (v->nfigs == GEN_SERIES_MAX)
        return NULL;
    v->figs[v->nfigs] = (figure_points){.figure = figure, .device = device};
    return &v->figs[v->nfigs++];
}

static void add_sums(scope_io_sums *s, const scope_rec_resource *r) {
    s->intervals++;
    if (r->present & SCOPE_RES_DISK_READ)
        s->disk_read += r->disk_read;
    if (r->present & SCOPE_RES_DISK_WRITE)
        s->disk_write += r->disk_write;
    if (r->present & SCOPE_RES_CHAR_READ)
        s->char_read += r->char_read;
    if (r->present & SCOPE_RES_CHAR_WRITE)
        s->char_write += r->char_write;
}

static void on_resource(snap_verifier *v, const scope_rec_resource *r) {
    if (!(v->node_io = gen_cover(v->node_io, &v->node_io_cap, r->node, sizeof *v->node_io))) {
        problem(v, "out of memory");
        return;
    }
    scope_rec_node_io *w = &v->node_io[r->node].want;
    w->node = r->node;
    add_sums(r->thread ? &w->thread : &w->process, r);
    gen_figure f[GEN_SERIES_MAX];
    int n = gen_series_figures(r, f);
    for (int i = 0; i < n; i++) {
        figure_points *fp = points_of(v, f[i].figure, f[i].device);
        if (!fp) {
            problem(v, "more than %d resource figures", GEN_SERIES_MAX);
            return;
        }
        if (fp->n == fp->cap) {
            size_t cap = fp->cap ? 2 * fp->cap : 1024;
            point *p = realloc(fp->p, cap * sizeof *p);
            if (!p) {
                problem(v, "out of memory");
                return;
            }
            fp->p = p;
            fp->cap = cap;
        }
        fp->p[fp->n++] = (point){r->mono_ns, r->interval_ns, f[i].value};
    }
}

/* A record of a regular frame: the newest body of each key. */
static void on_event_frame_record(snap_verifier *v, const scope_record *r) {
    switch (r->type) {
    case SCOPE_REC_PROCESS:
        v->have_process = 1;
        break;
    case SCOPE_REC_STRING:
        keep(v, &v->strings, r->u.string.id, r->raw);
        break;
    case SCOPE_REC_THREAD:
        keep(v, &v->threads, r->u.thread.index, r->raw);
        break;
    case SCOPE_REC_PHASE_NODE:
        keep(v, &v->nodes, r->u.phase_node.id, r->raw);
        break;
    case SCOPE_REC_COUNTER:
        keep(v, &v->counters, r->u.counter.id, r->raw);
        break;
    case SCOPE_REC_TRACE_WINDOW:
        keep(v, &v->traces, r->u.trace_window.phase, r->raw);
        break;
    case SCOPE_REC_PHASE_AGG: {
        agg *a = agg_at(v, r->u.phase_agg.node);
        if (a) {
            a->have = 1;
            a->a = r->u.phase_agg;
            a->a.bins = NULL;
        }
        break;
    }
    case SCOPE_REC_RESOURCE:
        on_resource(v, &r->u.resource);
        break;
    case SCOPE_REC_MARK:
        if (v->nmarks == v->marks_cap) {
            size_t cap = v->marks_cap ? 2 * v->marks_cap : 16;
            scope_rec_mark *m = realloc(v->marks, cap * sizeof *m);
            if (!m) {
                problem(v, "out of memory");
                return;
            }
            v->marks = m;
            v->marks_cap = cap;
        }
        v->marks[v->nmarks] = r->u.mark;
        v->marks[v->nmarks++].text = (scope_bytes){0};
        break;
    case SCOPE_REC_MARK_STATE:
    case SCOPE_REC_RESOURCE_SERIES:
    case SCOPE_REC_NODE_IO:
        problem(v, "%s record outside a snapshot", scope_rec_type_name(r->type));
        break;
    default:
        break;
    }
}

/* The series recomputed from the intervals read so far, bucket by bucket. */
static void check_series(snap_verifier *v, const scope_rec_resource_series *s) {
    figure_points *fp = NULL;
    for (int i = 0; i < v->nfigs; i++)
        if (v->figs[i].figure == s->figure && v->figs[i].device == s->device)
            fp = &v->figs[i];
    if (!fp || s->thread) {
        problem(v, "series of figure %u device %u thread %u that no interval measured", s->figure,
                s->device, s->thread);
        return;
    }
    fp->seen = 1;
    if (s->samples_total != fp->n || !s->bucket_ns || s->nbuckets > REC_SERIES_BUCKETS) {
        problem(v,
                "series of figure %u: %" PRIu64 " samples in %u buckets of %" PRIu64
                " ns, %zu intervals written",
                s->figure, s->samples_total, s->nbuckets, s->bucket_ns, fp->n);
        return;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < s->nbuckets; i++) {
        uint64_t end = s->start_mono_ns + (i + 1) * s->bucket_ns;
        scope_series_bucket want = {0};
        for (; k < fp->n && fp->p[k].mono < end; k++) {
            const point *pt = &fp->p[k];
            if (!want.samples || pt->value < want.min)
                want.min = pt->value;
            if (!want.samples || pt->value > want.max)
                want.max = pt->value;
            want.samples++;
            want.covered_ns += pt->len;
            want.sum += pt->value;
        }
        const scope_series_bucket *b = &s->buckets[i];
        if (b->samples != want.samples || b->covered_ns != want.covered_ns || b->sum != want.sum ||
            (want.samples && (b->min != want.min || b->max != want.max))) {
            problem(v,
                    "series of figure %u device %u, bucket %u: %" PRIu64 " samples sum %" PRIu64
                    ", the intervals give %" PRIu64 " sum %" PRIu64,
                    s->figure, s->device, i, b->samples, b->sum, want.samples, want.sum);
            return;
        }
    }
    if (k != fp->n)
        problem(v, "series of figure %u: %zu intervals past its last bucket", s->figure, fp->n - k);
}

static int same_sums(const scope_io_sums *a, const scope_io_sums *b) {
    return a->intervals == b->intervals && a->disk_read == b->disk_read &&
           a->disk_write == b->disk_write && a->char_read == b->char_read &&
           a->char_write == b->char_write;
}

/* A NODE_IO record holds the sums of the intervals before it that named its node. */
static void check_node_io(snap_verifier *v, const scope_rec_node_io *r) {
    node_sums *n = r->node < v->node_io_cap ? &v->node_io[r->node] : NULL;
    if (!n || !(n->want.thread.intervals | n->want.process.intervals)) {
        problem(v, "NODE_IO of node %u that no interval named", r->node);
        return;
    }
    if (n->seen)
        problem(v, "two NODE_IO records of node %u", r->node);
    n->seen = 1;
    if (!same_sums(&n->want.thread, &r->thread) || !same_sums(&n->want.process, &r->process))
        problem(v,
                "NODE_IO of node %u: threads %" PRIu64 " intervals %" PRIu64
                " bytes char read, process %" PRIu64 " intervals; the intervals give %" PRIu64
                ", %" PRIu64 ", %" PRIu64,
                r->node, r->thread.intervals, r->thread.char_read, r->process.intervals,
                n->want.thread.intervals, n->want.thread.char_read, n->want.process.intervals);
}

static void on_snapshot_record(snap_verifier *v, const scope_record *r) {
    switch (r->type) {
    case SCOPE_REC_PROCESS:
        break;
    case SCOPE_REC_STRING:
        restated(v, &v->strings, r->u.string.id, r->raw, "STRING");
        break;
    case SCOPE_REC_THREAD:
        restated(v, &v->threads, r->u.thread.index, r->raw, "THREAD");
        break;
    case SCOPE_REC_PHASE_NODE:
        restated(v, &v->nodes, r->u.phase_node.id, r->raw, "PHASE_NODE");
        break;
    case SCOPE_REC_COUNTER:
        restated(v, &v->counters, r->u.counter.id, r->raw, "COUNTER");
        break;
    case SCOPE_REC_TRACE_WINDOW:
        restated(v, &v->traces, r->u.trace_window.phase, r->raw, "TRACE_WINDOW of phase");
        break;
    case SCOPE_REC_PHASE_AGG: {
        const scope_rec_phase_agg *a = &r->u.phase_agg;
        agg *have = a->node < v->aggs_cap ? &v->aggs[a->node] : NULL;
        uint64_t binned = 0;
        for (uint32_t i = 0; i < a->nbins; i++)
            binned += a->bins[i].count;
        if (!have || !have->have || !same_scalars(&have->a, a))
            problem(v, "snapshot's PHASE_AGG of node %u differs from the newest one", a->node);
        else if (binned != a->count)
            problem(v, "snapshot's PHASE_AGG of node %u: histogram of %" PRIu64 " of %" PRIu64,
                    a->node, binned, a->count);
        else
            have->seen = 1;
        break;
    }
    case SCOPE_REC_MARK_STATE: {
        const scope_rec_mark *m = &r->u.mark_state, *w = NULL;
        if (v->mark_copies < v->nmarks)
            w = &v->marks[v->mark_copies];
        if (!w || w->kind != m->kind || w->thread != m->thread || w->mono_ns != m->mono_ns ||
            w->value != m->value || w->subkind != m->subkind || w->value2 != m->value2)
            problem(v, "MARK_STATE %zu is not a copy of mark %zu", v->mark_copies, v->mark_copies);
        v->mark_copies++;
        break;
    }
    case SCOPE_REC_RESOURCE_SERIES:
        check_series(v, &r->u.resource_series);
        break;
    case SCOPE_REC_NODE_IO:
        check_node_io(v, &r->u.node_io);
        break;
    default:
        problem(v, "%s record in a snapshot", scope_rec_type_name(r->type));
    }
}

/* What a snapshot left out. */
static void end_snapshot(snap_verifier *v) {
    if (!v->have_process)
        problem(v, "snapshot without PROCESS");
    missing(v, &v->strings, "STRING");
    missing(v, &v->threads, "THREAD");
    missing(v, &v->nodes, "PHASE_NODE");
    missing(v, &v->counters, "COUNTER");
    missing(v, &v->traces, "TRACE_WINDOW of phase");
    for (uint32_t i = 0; i < v->aggs_cap; i++) {
        if (v->aggs[i].have && !v->aggs[i].seen)
            problem(v, "snapshot lacks PHASE_AGG of node %u", i);
        v->aggs[i].seen = 0;
    }
    if (v->mark_copies != v->nmarks)
        problem(v, "%zu MARK_STATE copies of %zu marks", v->mark_copies, v->nmarks);
    for (int i = 0; i < v->nfigs; i++) {
        if (!v->figs[i].seen)
            problem(v, "snapshot lacks the series of figure %u device %u", v->figs[i].figure,
                    v->figs[i].device);
        v->figs[i].seen = 0;
    }
    for (uint32_t i = 0; i < v->node_io_cap; i++) {
        node_sums *n = &v->node_io[i];
        if ((n->want.thread.intervals | n->want.process.intervals) && !n->seen)
            problem(v, "snapshot lacks the NODE_IO of node %u", i);
        n->seen = 0;
    }
}

/* The frame that ended at `end` (the next frame's offset or the end of the
 * file) was or was not to be followed by a snapshot. */
static void close_prev(snap_verifier *v, uint64_t end, int next_is_snap) {
    if (!v->have_prev)
        return;
    if (v->prev_is_snap) {
        v->snap_size = end - v->prev_off;
        v->snap_end = end;
        if (next_is_snap)
            problem(v, "two snapshots in a row");
        return;
    }
    int due = v->prev_reason != SCOPE_FRAME_PERIODIC || !v->snapshots ||
              end - v->snap_end >= SCOPE_LOG_SNAPSHOT_SPACING * v->snap_size;
    if (due != next_is_snap)
        problem(v,
                due ? "no snapshot after frame %" PRIu64 " (%s, %" PRIu64 " bytes since the last)"
                    : "a snapshot after frame %" PRIu64 " (%s, %" PRIu64 " bytes since the last)",
                v->seq - 1, scope_frame_reason_name(v->prev_reason), end - v->snap_end);
}

static void read_all(snap_verifier *v, scope_log_reader *r) {
    scope_rec_frame fr;
    uint64_t off;
    while (scope_log_reader_next_frame(r, &fr, &off)) {
        int snap = !!(fr.flags & SCOPE_FRAME_F_SNAPSHOT);
        v->seq = fr.seq;
        close_prev(v, off, snap);
        if (fr.last_snapshot != (v->snapshots ? v->snap_off : 0))
            problem(v, "last_snapshot %" PRIu64 ", the newest snapshot is at %" PRIu64,
                    fr.last_snapshot, v->snapshots ? v->snap_off : 0);
        scope_record rec;
        if (snap) {
            v->mark_copies = 0;
            while (scope_log_reader_next_record(r, &rec))
                on_snapshot_record(v, &rec);
            end_snapshot(v);
            v->snap_off = off;
            v->snap_seq = fr.seq;
            v->snapshots++;
        } else {
            while (scope_log_reader_next_record(r, &rec))
                on_event_frame_record(v, &rec);
        }
        v->have_prev = 1;
        v->prev_is_snap = snap;
        v->prev_reason = fr.reason;
        v->prev_off = off;
        v->seq = fr.seq + 1;
    }
    close_prev(v, scope_log_reader_info(r)->file_size, 0);
    if (!v->snapshots)
        problem(v, "no snapshot frame");
}

/* ---- from the newest snapshot alone -------------------------------------------- */

typedef struct tail_state {
    uint8_t *strings, *threads, *nodes;
    uint32_t ns, nt, nn;
} tail_state;

static int mark_def(uint8_t **set, uint32_t *n, uint32_t id) {
    if (!(*set = gen_cover(*set, n, id, 1)))
        return -1;
    (*set)[id] = 1;
    return 0;
}

static int is_def(const uint8_t *set, uint32_t n, uint32_t id) {
    return !id || (id < n && set[id]);
}

/* Reads from the newest snapshot to the end: definitions first (a frame
 * may define after use), then every id used resolves, and the newest
 * aggregates equal those of the whole log (left in v->aggs). */
static void read_tail(snap_verifier *v, const char *path) {
    char msg[256];
    scope_log_reader *r;
    if (scope_log_reader_open(&r, path, msg, sizeof msg) < 0) {
        problem(v, "cannot open again: %s", msg);
        return;
    }
    if (scope_log_reader_seek(r, v->snap_off, v->snap_seq) < 0) {
        problem(v, "cannot seek to the snapshot at %" PRIu64, v->snap_off);
        scope_log_reader_close(r);
        return;
    }
    tail_state t = {0};
    scope_rec_frame fr;
    scope_record rec;
    uint64_t off, first = UINT64_MAX;
    int bad = 0;
    /* A frame may define an id after its first use: uses are checked at
     * the end of their frame. */
    while (scope_log_reader_next_frame(r, &fr, &off)) {
        if (first == UINT64_MAX)
            first = off;
        v->seq = fr.seq;
        struct {
            uint32_t kind, id;
        } uses[4096];
        size_t nuses = 0;
#define USE(k, i)                                                                                  \
    do {                                                                                           \
        if (nuses < sizeof uses / sizeof uses[0])                                                  \
            uses[nuses].kind = (k), uses[nuses++].id = (i);                                        \
        else                                                                                       \
            bad = 1;                                                                               \
    } while (0)
        while (scope_log_reader_next_record(r, &rec)) {
            switch (rec.type) {
            case SCOPE_REC_STRING:
                bad |= mark_def(&t.strings, &t.ns, rec.u.string.id);
                break;
            case SCOPE_REC_THREAD:
                bad |= mark_def(&t.threads, &t.nt, rec.u.thread.index);
                break;
            case SCOPE_REC_PHASE_NODE:
                bad |= mark_def(&t.nodes, &t.nn, rec.u.phase_node.id);
                USE(SCOPE_REC_STRING, rec.u.phase_node.name);
                USE(SCOPE_REC_STRING, rec.u.phase_node.file);
                USE(SCOPE_REC_THREAD, rec.u.phase_node.thread);
                USE(SCOPE_REC_PHASE_NODE, rec.u.phase_node.parent);
                break;
            case SCOPE_REC_PHASE_AGG: {
                const scope_rec_phase_agg *a = &rec.u.phase_agg;
                USE(SCOPE_REC_PHASE_NODE, a->node);
                agg *want = a->node < v->aggs_cap ? &v->aggs[a->node] : NULL;
                if (!want || !want->have)
                    problem(v, "from the snapshot: node %u has an aggregate the log has not",
                            a->node);
                else if (same_scalars(&want->a, a))
                    want->seen = 1; /* the newest value reached */
                else
                    want->seen = 0;
                break;
            }
            case SCOPE_REC_COUNTER:
                USE(SCOPE_REC_STRING, rec.u.counter.name);
                USE(SCOPE_REC_PHASE_NODE, rec.u.counter.node);
                USE(SCOPE_REC_THREAD, rec.u.counter.thread);
                break;
            case SCOPE_REC_RESOURCE:
                USE(SCOPE_REC_PHASE_NODE, rec.u.resource.node);
                break;
            default:
                break;
            }
        }
#undef USE
        for (size_t i = 0; i < nuses; i++) {
            int ok = uses[i].kind == SCOPE_REC_STRING   ? is_def(t.strings, t.ns, uses[i].id)
                     : uses[i].kind == SCOPE_REC_THREAD ? is_def(t.threads, t.nt, uses[i].id)
                                                        : is_def(t.nodes, t.nn, uses[i].id);
            if (!ok)
                problem(v, "from the snapshot: %s %u used, never defined",
                        scope_rec_type_name(uses[i].kind), uses[i].id);
        }
    }
    if (first != v->snap_off)
        problem(v, "seek to %" PRIu64 " read from %" PRIu64, v->snap_off, first);
    for (uint32_t i = 0; i < v->aggs_cap; i++)
        if (v->aggs[i].have && !v->aggs[i].seen)
            problem(v, "from the snapshot: node %u does not end at the log's newest aggregate", i);
    if (bad)
        problem(v, "from the snapshot: out of memory, or more ids in a frame than are checked");
    if (scope_log_reader_damage_count(r))
        problem(v, "from the snapshot: damaged: %s", scope_log_reader_damage(r, 0)->what);
    scope_log_reader_close(r);
    free(t.strings);
    free(t.threads);
    free(t.nodes);
}

int gen_verify_snapshots(const char *path, FILE *out) {
    char msg[256];
    scope_log_reader *r;
    if (scope_log_reader_open(&r, path, msg, sizeof msg) < 0) {
        fprintf(out, "%s: %s\n", path, msg);
        return 1;
    }
    snap_verifier v = {.path = path, .out = out};
    read_all(&v, r);
    scope_log_reader_close(r);
    if (v.snapshots) {
        for (uint32_t i = 0; i < v.aggs_cap; i++)
            v.aggs[i].seen = 0;
        read_tail(&v, path);
    }
    free_keyed(&v.strings);
    free_keyed(&v.threads);
    free_keyed(&v.nodes);
    free_keyed(&v.counters);
    free_keyed(&v.traces);
    free(v.aggs);
    free(v.node_io);
    free(v.marks);
    for (int i = 0; i < v.nfigs; i++)
        free(v.figs[i].p);
    return v.problems;
}
