/*
 * Reads a log written by scope_gen_run back through the real reader and
 * checks what the generator promises: that it is a log the recorder could
 * have written at its default settings, and that its aggregates are
 * self-consistent.  The recorder itself keeps the writer's rules but not all
 * of these (its bins may trail its count, a phase still open at a frame makes
 * its children outgrow it), so this is a check of generated logs only.
 */
#include "gen_run.h"

#include <scope/log_format.h>
#include <scope/vec.h>
#include <scope/log_hist.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTED 5
#define SLACK_NS     1000000u /* clock jitter of the synthetic writer thread */

typedef unsigned __int128 u128;

typedef struct vnode {
    int defined, had_hist;
    uint32_t parent, name, thread, flags;
    uint64_t count, wall, min, max, cpu_count, hist_total;
} vnode;

typedef struct vcounter {
    int seen;
    uint32_t name, node, thread;
    uint64_t calls;
} vcounter;

/* An id a record refers to, checked once its frame is read (a definition
 * may follow its first use inside the frame). */
typedef struct vuse {
    uint32_t kind, id;
} vuse;

typedef struct verifier {
    const char *path;
    FILE *out;
    int problems;
    vnode *nodes;
    vcounter *counters;
    uint8_t *strings, *threads;
    uint32_t nodes_cap, counters_cap, strings_cap, threads_cap;
    vuse *uses;
    size_t nuses, uses_cap;
    /* the frame being read */
    scope_rec_frame fr;
    int hist_again, plain_after_hist, shutdown, process;
    /* across frames */
    uint64_t frames, start_mono, prev_mono, last_hist_mono, res_start, res_end;
    int have_process, exited;
    /* the starts of the process's intervals in the frame being read: each
     * thread record is of one of them (a batch holds the process's
     * intervals first, then each thread's) */
    uint64_t *starts;
    size_t nstarts, starts_cap;
} verifier;

static void problem(verifier *v, const char *fmt, ...) {
    if (++v->problems > MAX_REPORTED)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(v->out, "%s: frame %" PRIu64 ": ", v->path, v->fr.seq);
    vfprintf(v->out, fmt, ap);
    fputc('\n', v->out);
    va_end(ap);
}

void *gen_cover(void *arr, uint32_t *cap, uint32_t id, size_t size) {
    if (id < *cap)
        return arr;
    uint32_t n = *cap ? *cap : 64;
    while (n <= id)
        n *= 2;
    char *p = realloc(arr, n * size);
    if (!p) {
        free(arr);
        *cap = 0;
        return NULL;
    }
    memset(p + *cap * size, 0, (n - *cap) * size);
    *cap = n;
    return p;
}

#define COVER(v, field, id)                                                                        \
    ((v)->field = gen_cover((v)->field, &(v)->field##_cap, (id), sizeof *(v)->field))

static void use(verifier *v, uint32_t kind, uint32_t id) {
    if (v->nuses == v->uses_cap) {
        size_t n = v->uses_cap ? 2 * v->uses_cap : 256;
        vuse *p = realloc(v->uses, n * sizeof *p);
        if (!p) {
            problem(v, "out of memory");
            return;
        }
        v->uses = p;
        v->uses_cap = n;
    }
    v->uses[v->nuses++] = (vuse){kind, id};
}

static int defined(verifier *v, const vuse *u) {
    switch (u->kind) {
    case SCOPE_REC_STRING:
        return u->id < v->strings_cap && v->strings[u->id];
    case SCOPE_REC_THREAD:
        return u->id < v->threads_cap && v->threads[u->id];
    default:
        return u->id < v->nodes_cap && v->nodes[u->id].defined;
    }
}

/* ---- records ------------------------------------------------------------------ */

static void check_bins(verifier *v, const scope_rec_phase_agg *a) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < a->nbins; i++)
        sum += a->bins[i].count;
    if (sum != a->count)
        problem(v, "node %u: bins sum to %" PRIu64 ", count %" PRIu64, a->node, sum, a->count);
    if (a->bins[0].bucket != scope_hist_bucket(a->min_ns) ||
        a->bins[a->nbins - 1].bucket != scope_hist_bucket(a->max_ns))
        problem(v, "node %u: bins span %u..%u, min and max fall in %u..%u", a->node,
                a->bins[0].bucket, a->bins[a->nbins - 1].bucket, scope_hist_bucket(a->min_ns),
                scope_hist_bucket(a->max_ns));
}

/* count x min <= wall <= count x max, and the CPU figures a subset. */
static void check_scalars(verifier *v, const scope_rec_phase_agg *a) {
    if (!a->count || a->min_ns > a->max_ns || (u128)a->count * a->min_ns > a->wall_ns ||
        (u128)a->count * a->max_ns < a->wall_ns)
        problem(v,
                "node %u: count %" PRIu64 " wall %" PRIu64 " min %" PRIu64 " max %" PRIu64
                " do not agree",
                a->node, a->count, a->wall_ns, a->min_ns, a->max_ns);
    if (a->cpu_count > a->count || a->cpu_wall_ns > a->wall_ns || a->cpu_ns > a->cpu_wall_ns ||
        (u128)a->cpu_count * a->min_ns > a->cpu_wall_ns ||
        (u128)a->cpu_count * a->max_ns < a->cpu_wall_ns)
        problem(v, "node %u: CPU figures are not a subset of the entries", a->node);
    /* Exact I/O only on SCOPE_PHASE_IO phases, for entries that completed;
     * what reached the disk never exceeds what went through read and
     * write (this generator has no writeback from elsewhere). */
    int io_site = a->node < v->nodes_cap && (v->nodes[a->node].flags & SCOPE_PHASE_F_IO);
    if ((a->io_flags || a->io_count || a->disk_read || a->char_write) &&
        (!io_site || a->io_count + a->io_failed > a->count || a->disk_read > a->char_read ||
         a->disk_write > a->char_write))
        problem(v, "node %u: I/O figures that an I/O phase's entries cannot have", a->node);
}

static void on_agg(verifier *v, const scope_rec_phase_agg *a) {
    use(v, SCOPE_REC_PHASE_NODE, a->node);
    check_scalars(v, a);
    if (!COVER(v, nodes, a->node))
        return;
    vnode *n = &v->nodes[a->node];
    if (a->count < n->count || a->wall_ns < n->wall || a->cpu_count < n->cpu_count ||
        (n->count && (a->min_ns > n->min || a->max_ns < n->max)))
        problem(v, "node %u: went back from its previous values", a->node);
    if (a->nbins) {
        check_bins(v, a);
        if (n->had_hist)
            v->hist_again = 1;
        n->had_hist = 1;
        n->hist_total = a->count;
    } else if (!n->had_hist) {
        problem(v, "node %u: first aggregate without a histogram", a->node);
    } else {
        v->plain_after_hist = 1;
    }
    n->count = a->count;
    n->wall = a->wall_ns;
    n->min = a->min_ns;
    n->max = a->max_ns;
    n->cpu_count = a->cpu_count;
}

static void on_node(verifier *v, const scope_rec_phase_node *d) {
    use(v, SCOPE_REC_STRING, d->name);
    use(v, SCOPE_REC_STRING, d->file);
    use(v, SCOPE_REC_THREAD, d->thread);
    if (d->parent)
        use(v, SCOPE_REC_PHASE_NODE, d->parent);
    if (!d->id || !COVER(v, nodes, d->id))
        return;
    vnode *n = &v->nodes[d->id];
    if (n->defined)
        problem(v, "node %u defined twice", d->id);
    n->defined = 1;
    n->parent = d->parent;
    n->name = d->name;
    n->thread = d->thread;
    n->flags = d->flags;
}

static void on_counter(verifier *v, const scope_rec_counter *c) {
    use(v, SCOPE_REC_STRING, c->name);
    use(v, SCOPE_REC_THREAD, c->thread);
    use(v, SCOPE_REC_PHASE_NODE, c->node);
    if (!c->id || !COVER(v, counters, c->id))
        return;
    vcounter *k = &v->counters[c->id];
    if (k->seen &&
        (k->name != c->name || k->node != c->node || k->thread != c->thread || c->calls < k->calls))
        problem(v, "counter %u changed its key or went back", c->id);
    *k = (vcounter){1, c->name, c->node, c->thread, c->calls};
}

/* The process's intervals follow each other, with a gap where one was
 * dropped (the next record counts it); a thread's record holds only I/O
 * bytes of one of the process's intervals of the same frame. */
static void on_resource(verifier *v, const scope_rec_resource *r) {
    const uint32_t io =
        SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ | SCOPE_RES_CHAR_WRITE;
    if (r->node)
        use(v, SCOPE_REC_PHASE_NODE, r->node);
    if (r->thread) {
        int of_frame = 0;
        for (size_t i = v->nstarts; i-- > 0 && !of_frame;)
            of_frame = v->starts[i] == r->mono_ns;
        if (!of_frame || r->ngpus || (r->present & ~io))
            problem(v,
                    "thread %u's resource record at %" PRIu64
                    " is not I/O of an interval of its frame",
                    r->thread, r->mono_ns);
        return;
    }
    if (v->res_end && (r->dropped ? r->mono_ns <= v->res_end : r->mono_ns != v->res_end))
        problem(v, "resource interval at %" PRIu64 " does not follow the last", r->mono_ns);
    v->res_start = r->mono_ns;
    v->res_end = r->mono_ns + r->interval_ns;
    if (SCOPE_VEC_RESERVE(v->starts, v->starts_cap, v->nstarts + 1) < 0)
        problem(v, "out of memory");
    else
        v->starts[v->nstarts++] = r->mono_ns;
}

static void on_record(verifier *v, const scope_record *r, int first) {
    switch (r->type) {
    case SCOPE_REC_PROCESS:
        if (v->fr.seq != 0 || !first)
            problem(v, "PROCESS not first in frame 0");
        v->start_mono = r->u.process.start_mono_ns;
        v->have_process = 1;
        break;
    case SCOPE_REC_STRING:
        if (COVER(v, strings, r->u.string.id))
            v->strings[r->u.string.id] = 1;
        break;
    case SCOPE_REC_THREAD:
        if (COVER(v, threads, r->u.thread.index))
            v->threads[r->u.thread.index] = 1;
        break;
    case SCOPE_REC_PHASE_NODE:
        on_node(v, &r->u.phase_node);
        break;
    case SCOPE_REC_PHASE_AGG:
        on_agg(v, &r->u.phase_agg);
        break;
    case SCOPE_REC_COUNTER:
        on_counter(v, &r->u.counter);
        break;
    case SCOPE_REC_RESOURCE:
        on_resource(v, &r->u.resource);
        break;
    case SCOPE_REC_TRACE_WINDOW: /* --trace: in the exit frame */
        if (v->fr.reason != SCOPE_FRAME_EXIT)
            problem(v, "a trace window before the exit frame");
        break;
    case SCOPE_REC_MARK:
        if (r->u.mark.kind == SCOPE_MARK_SHUTDOWN && v->fr.reason == SCOPE_FRAME_EXIT)
            v->shutdown = 1;
        else
            problem(v, "unexpected mark of kind %u", r->u.mark.kind);
        break;
    default:
        problem(v, "unexpected %s record", scope_rec_type_name(r->type));
    }
}

/* ---- frames -------------------------------------------------------------------- */

/* A frame every 5 s for 5 minutes, then every 30 s, each a little late. */
static void check_cadence(verifier *v) {
    uint64_t since = v->prev_mono - v->start_mono, gap = v->fr.mono_ns - v->prev_mono;
    uint64_t want = gen_frame_interval(since);
    /* Near the switch, the frame's close time and the writer's clock may
     * fall on either side of it. */
    uint64_t other = gen_frame_interval(since > SLACK_NS ? since - SLACK_NS : 0);
    int ok = gap + SLACK_NS >= want && gap <= want + SLACK_NS;
    ok = ok || (gap + SLACK_NS >= other && gap <= other + SLACK_NS);
    if (v->fr.reason == SCOPE_FRAME_EXIT)
        ok = gap <= want + SLACK_NS;
    if (!ok)
        problem(v, "%.6f s after the previous frame (%.0f s expected)", (double)gap / 1e9,
                (double)want / 1e9);
}

/* Histograms again in periodic frames only 120 s after the last frame that
 * carried them, and then for every node. */
static void check_hist_interval(verifier *v) {
    uint64_t since = v->fr.mono_ns - v->last_hist_mono;
    if (v->fr.reason == SCOPE_FRAME_PERIODIC && v->fr.seq > 0) {
        if (v->hist_again && since + SLACK_NS < GEN_HIST_INTERVAL_NS)
            problem(v, "histograms %.3f s after the last ones", (double)since / 1e9);
        if (!v->hist_again && v->plain_after_hist && since > GEN_HIST_INTERVAL_NS + SLACK_NS)
            problem(v, "no histograms %.3f s after the last ones", (double)since / 1e9);
    }
    if ((v->hist_again || v->fr.seq == 0 || v->fr.reason != SCOPE_FRAME_PERIODIC) &&
        v->plain_after_hist)
        problem(v, "a frame with histograms has an aggregate without");
    if (v->hist_again || v->fr.seq == 0)
        v->last_hist_mono = v->fr.mono_ns;
}

/* The latest wall time of every node is at least its children's. */
static void check_tree(verifier *v) {
    uint64_t *sum = calloc(v->nodes_cap ? v->nodes_cap : 1, sizeof *sum);
    if (!sum)
        return;
    for (uint32_t i = 1; i < v->nodes_cap; i++)
        if (v->nodes[i].defined && v->nodes[i].parent < v->nodes_cap)
            sum[v->nodes[i].parent] += v->nodes[i].wall;
    for (uint32_t i = 1; i < v->nodes_cap; i++)
        if (v->nodes[i].defined && sum[i] > v->nodes[i].wall)
            problem(v, "node %u: children's wall time %" PRIu64 " > its own %" PRIu64, i, sum[i],
                    v->nodes[i].wall);
    free(sum);
}

static void end_frame(verifier *v) {
    for (size_t i = 0; i < v->nuses; i++)
        if (v->uses[i].id && !defined(v, &v->uses[i]))
            problem(v, "uses %s %u before defining it", scope_rec_type_name(v->uses[i].kind),
                    v->uses[i].id);
    if (v->fr.seq == 0 && !v->have_process)
        problem(v, "frame 0 without PROCESS");
    if (v->fr.seq > 0 && v->have_process)
        check_cadence(v);
    check_hist_interval(v);
    check_tree(v);
    if (v->fr.reason == SCOPE_FRAME_EXIT) {
        v->exited = 1;
        if (!v->shutdown)
            problem(v, "exit frame without a shutdown mark");
    } else if (v->fr.reason != SCOPE_FRAME_PERIODIC || v->exited) {
        problem(v, "a %s frame", v->exited ? "frame after the exit" : "non-periodic");
    }
    v->prev_mono = v->fr.mono_ns;
}

static void read_frames(verifier *v, scope_log_reader *r) {
    uint64_t off;
    while (scope_log_reader_next_frame(r, &v->fr, &off)) {
        if (v->fr.seq != v->frames)
            problem(v, "sequence number %" PRIu64 ", expected %" PRIu64, v->fr.seq, v->frames);
        v->frames = v->fr.seq + 1;
        /* Snapshots restate what the frames before them wrote: checked
         * apart (gen_verify_snapshots), and no part of the cadence. */
        if (v->fr.flags & SCOPE_FRAME_F_SNAPSHOT)
            continue;
        v->nuses = 0;
        v->hist_again = v->plain_after_hist = v->shutdown = 0;
        v->nstarts = 0;
        scope_record rec;
        for (int first = 1; scope_log_reader_next_record(r, &rec); first = 0)
            on_record(v, &rec, first);
        end_frame(v);
    }
}

/* The exit frame left every node's histogram complete. */
static void check_end(verifier *v, scope_log_reader *r) {
    if (scope_log_reader_damage_count(r))
        problem(v, "damaged: %s", scope_log_reader_damage(r, 0)->what);
    if (!v->exited)
        problem(v, "no exit frame");
    for (uint32_t i = 1; i < v->nodes_cap; i++)
        if (v->nodes[i].count && v->nodes[i].hist_total != v->nodes[i].count)
            problem(v, "node %u ends with a histogram of %" PRIu64 " of its %" PRIu64 " entries", i,
                    v->nodes[i].hist_total, v->nodes[i].count);
}

int gen_verify_file(const char *path, FILE *out) {
    char msg[256];
    scope_log_reader *r;
    if (scope_log_reader_open(&r, path, msg, sizeof msg) < 0) {
        fprintf(out, "%s: %s\n", path, msg);
        return -1;
    }
    verifier v = {.path = path, .out = out};
    read_frames(&v, r);
    check_end(&v, r);
    scope_log_reader_close(r);
    v.problems += gen_verify_snapshots(path, out);
    if (v.problems > MAX_REPORTED)
        fprintf(out, "%s: %d problems in all\n", path, v.problems);
    free(v.nodes);
    free(v.counters);
    free(v.strings);
    free(v.threads);
    free(v.uses);
    free(v.starts);
    return v.problems;
}
