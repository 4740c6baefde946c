/*
 * Data source: phases and counters.  Each frame it copies every thread
 * slot's nodes and counters (thread.h: the holder writes them, this reads
 * them under their sequence counters), writes the definitions it has not
 * written yet and the aggregates that changed, as full values, and the
 * caveats the hot path and exiting threads counted.  A slot outlives the
 * threads that hold it, one after another, so nothing here is kept per
 * thread that ever ran.
 */
#include "source_phases.h"

#include "clock.h"
#include "config.h"
#include "frame.h"
#include "names.h"
#include "run_delay.h"
#include "thread.h"

#include <scope/log_hist.h>
#include <stdio.h>
#include <string.h>

/* The source's state, all of it the writer thread's: one place to read.
 * Its threads and nodes are rec_thread's (thread.h). */
static struct source_phases_state {
    /* The copied buckets of the node being written. */
    scope_hist_bin bins[SCOPE_HIST_BUCKETS];
    /* The open stack of the thread being written (open_copy). */
    scope_open_phase open_phases[REC_MAX_DEPTH];
    rec_node *open_nodes[REC_MAX_DEPTH];
    /* The threads this frame writes: those registered when it was selected. */
    rec_thread *frame_threads;
} state;

/* ---- snapshots ---------------------------------------------------------- */

typedef struct node_snap {
    uint64_t count, wall_ns, min_ns, max_ns, cpu_count, cpu_wall_ns, cpu_ns;
    uint64_t delay_count, delay_wall_ns, delay_ns;
    uint64_t io_count, io_failed, disk_read, disk_write, char_read, char_write;
    uint32_t nbins;
    uint64_t hist_total; /* entries in the copied buckets: at most count */
} node_snap;

static void copy_node(const void *from, void *to) {
    const rec_node *n = from;
    node_snap *s = to;
    s->count = rec_seq_load(&n->count);
    s->wall_ns = rec_seq_load(&n->wall_ns);
    s->min_ns = rec_seq_load(&n->min_ns);
    s->max_ns = rec_seq_load(&n->max_ns);
    s->cpu_count = rec_seq_load(&n->cpu_count);
    s->cpu_wall_ns = rec_seq_load(&n->cpu_wall_ns);
    s->cpu_ns = rec_seq_load(&n->cpu_ns);
    s->delay_count = rec_seq_load(&n->delay_count);
    s->delay_wall_ns = rec_seq_load(&n->delay_wall_ns);
    s->delay_ns = rec_seq_load(&n->delay_ns);
    s->io_count = rec_seq_load(&n->io_count);
    s->io_failed = rec_seq_load(&n->io_failed);
    s->disk_read = rec_seq_load(&n->disk_read);
    s->disk_write = rec_seq_load(&n->disk_write);
    s->char_read = rec_seq_load(&n->char_read);
    s->char_write = rec_seq_load(&n->char_write);
}

/* A copy of a node.  The scalars (count, sums, min, max) are copied under
 * the node's sequence counter, so they agree with each other exactly.  The
 * histogram is read first, without it: copying up to 976 buckets takes
 * longer than one entry of a hot phase, so a consistent copy could starve.
 * Because the owner bumps the count before the bucket, and the buckets are
 * read before the count, the buckets then sum to at most `count`: the
 * difference is the entries that ended while the copy was taken.  Returns 0
 * when the owner stayed inside one update (stopped there by a signal, say):
 * the next frame carries the node.  With `stuck_ok` (a frame closed for a
 * signal, whose handler may be what stopped the owner, which will then never
 * finish), the values are copied as they are instead: off by at most the one
 * entry being recorded, rather than missing from the process's last frame. */
static int snap_node(rec_node *n, node_snap *s, int stuck_ok) {
    s->nbins = 0;
    s->hist_total = 0;
    for (uint32_t o = 0; o < REC_HIST_OCTAVES; o++) {
        uint64_t *oct = __atomic_load_n(&n->hist[o], __ATOMIC_ACQUIRE);
        for (uint32_t k = 0; oct && k < 16; k++) {
            uint64_t c = rec_seq_load(&oct[k]);
            if (c) {
                assert(s->nbins < SCOPE_HIST_BUCKETS);
                state.bins[s->nbins++] = (scope_hist_bin){o * 16 + k, c};
                s->hist_total += c;
            }
        }
    }
    rec_seq_fence(memory_order_acquire);
    return rec_seq_read(&n->seq, copy_node, n, s, stuck_ok);
}

typedef struct counter_snap {
    uint64_t calls;
    int64_t total;
} counter_snap;

static void copy_counter(const void *from, void *to) {
    const rec_counter *c = from;
    counter_snap *s = to;
    s->calls = rec_seq_load(&c->calls);
    s->total = rec_seq_load(&c->total);
}

/* ---- one thread ------------------------------------------------------------ */

static scope_record thread_record(const rec_thread *t) {
    scope_record r = {.type = SCOPE_REC_THREAD};
    r.u.thread = (scope_rec_thread){t->index, t->tid, t->start_mono_ns, REC_STR(t->name)};
    return r;
}

static scope_record node_record(const rec_thread *t, const rec_node *n) {
    scope_record r = {.type = SCOPE_REC_PHASE_NODE};
    r.u.phase_node =
        (scope_rec_phase_node){n->id, n->parent_id, n->name, t->index, n->flags, n->file, n->line};
    return r;
}

/* What the log lacks of t's definitions; a snapshot restates them all. */
static void add_definitions(const rec_frame_ctx *f, rec_thread *t, uint32_t nn) {
    scope_record r;
    if (!t->w_defined || f->snapshot) {
        r = thread_record(t);
        rec_frame_add(f, &r);
        t->w_defined = 1;
    }
    for (uint32_t i = f->snapshot ? 1 : t->w_nodes + 1; i <= nn; i++) {
        r = node_record(t, rec_node_at(t, i));
        rec_frame_add(f, &r);
    }
    t->w_nodes = nn;
}

/* A node's histogram goes out again, whatever the frame, once its count
 * has grown by an eighth since the histogram last sent: a log that ends at
 * any frame (SIGKILL) then has percentiles over at least 8/9 of the entries
 * its counts hold, at a cost of a few dozen histograms per node over a
 * process's life (the count grows geometrically between them; bench/README.md
 * measures it). */
#define HIST_RESEND_GROWTH_SHIFT 3

static int hist_grown(const rec_node *n, const node_snap *s) {
    uint64_t sent = n->w_hist_count;
    return sent && s->count - sent >= (sent >> HIST_RESEND_GROWTH_SHIFT) + 1;
}

/* The PHASE_AGG of node n from its copy s (the buckets in `bins`). */
static scope_record agg_record(const rec_node *n, const node_snap *s, int with_hist) {
    scope_record r = {.type = SCOPE_REC_PHASE_AGG};
    r.u.phase_agg = (scope_rec_phase_agg){
        .node = n->id,
        .count = s->count,
        .wall_ns = s->wall_ns,
        .min_ns = s->count ? s->min_ns : 0,
        .max_ns = s->max_ns,
        .cpu_count = s->cpu_count,
        .cpu_wall_ns = s->cpu_wall_ns,
        .cpu_ns = s->cpu_ns,
        .io_flags = s->io_count ? SCOPE_IO_MEASURED : 0,
        .io_count = s->io_count,
        .io_failed = s->io_failed,
        .disk_read = s->disk_read,
        .disk_write = s->disk_write,
        .char_read = s->char_read,
        .char_write = s->char_write,
        .nbins = with_hist ? s->nbins : 0,
        .bins = state.bins,
        .delay_count = s->delay_count,
        .delay_wall_ns = s->delay_wall_ns,
        .delay_ns = s->delay_ns,
    };
    return r;
}

/* with_hist: the aggregate carries the node's histogram.  The frame decides,
 * except for the first copy of a slot's nodes after a thread that held it
 * exited (what that thread did is then whole, and carries its histogram
 * whatever the frame), and a node whose count outgrew its last histogram
 * (hist_grown) carries it too. */
static void add_aggregate(const rec_frame_ctx *f, rec_node *n, int with_hist) {
    node_snap s;
    /* count only grows, so an unchanged count is an unchanged node; but a
     * frame that carries histograms also brings any histogram that is
     * older than its node's count (last sent in a frame without one). */
    if (!snap_node(n, &s, f->stuck_ok) || s.count == 0)
        return;
    with_hist = with_hist || hist_grown(n, &s);
    int stale_hist = with_hist && n->w_hist_count != s.count;
    if (s.count == n->w_count && !f->resend_all && !stale_hist)
        return;
    /* Its first entry ended while it was copied: no bucket yet.  The
     * next frame writes it whole. */
    if (s.nbins == 0)
        return;
    scope_record r = agg_record(n, &s, with_hist || !n->w_hist_count);
    if (r.u.phase_agg.nbins)
        n->w_hist_count = s.hist_total; /* may trail count: then it is resent */
    rec_frame_add(f, &r);
    n->w_count = s.count;
}

static void add_counters(const rec_frame_ctx *f, rec_thread *t) {
    uint32_t nc = t->w_frame_counters;
    for (uint32_t i = 1; i <= nc; i++) {
        rec_counter *c = rec_counter_at(t, i);
        counter_snap s;
        if (!rec_seq_read(&c->seq, copy_counter, c, &s, f->stuck_ok))
            continue;
        if (s.calls != c->w_calls || f->resend_all) {
            scope_record r = {.type = SCOPE_REC_COUNTER};
            r.u.counter =
                (scope_rec_counter){c->id, c->name, c->node_id, t->index, s.calls, s.total};
            rec_frame_add(f, &r);
            c->w_calls = s.calls;
        }
        /* Apart from whether the total changed: a snapshot, which holds no
         * mark, may have been the first to write the saturated total. */
        uint8_t sat = atomic_load_explicit(&c->saturated, memory_order_acquire);
        if (sat != c->w_saturated && !f->snapshot) {
            size_t len = 0;
            const char *name = rec_name_get(c->name, &len);
            char text[200];
            snprintf(text, sizeof text,
                     "counter \"%.*s\" passed the 64-bit range: its total holds at %s "
                     "(saturated, not wrapped)",
                     name ? (int)(len < 80 ? len : 80) : 1, name ? name : "?",
                     sat == REC_SATURATED_MAX ? "9223372036854775807 (2^63-1)"
                                              : "-9223372036854775808 (-2^63)");
            rec_frame_mark(f, SCOPE_MARK_SATURATED, t->index, (int64_t)c->id, text);
            c->w_saturated = sat;
        }
    }
}

/* Caveats counted on the hot path, written as they grow. */
static void add_caveats(const rec_frame_ctx *f, rec_thread *t) {
    uint64_t ub = atomic_load_explicit(&t->unbalanced_end_empty, memory_order_relaxed);
    if (ub != t->w_unbalanced) {
        rec_frame_mark_sub(f, SCOPE_MARK_UNBALANCED, SCOPE_UNBALANCED_END_EMPTY, t->index,
                           (int64_t)ub, 0, "scope_phase_end() with no phase open of its own");
        t->w_unbalanced = ub;
    }
    uint64_t lb = atomic_load_explicit(&t->left_in_block, memory_order_acquire);
    if (lb != t->w_left_in_block) {
        size_t nlen = 0, blen = 0;
        const char *name =
            rec_name_get(atomic_load_explicit(&t->left_in_block_name, memory_order_relaxed), &nlen);
        const char *block = rec_name_get(
            atomic_load_explicit(&t->left_in_block_block, memory_order_relaxed), &blen);
        char text[200];
        snprintf(text, sizeof text,
                 "scope_phase_begin(\"%.*s\") left open inside the block of phase \"%.*s\", "
                 "which closed it",
                 name ? (int)(nlen < 60 ? nlen : 60) : 1, name ? name : "?",
                 block ? (int)(blen < 60 ? blen : 60) : 1, block ? block : "?");
        rec_frame_mark_sub(f, SCOPE_MARK_UNBALANCED, SCOPE_UNBALANCED_LEFT_IN_BLOCK, t->index,
                           (int64_t)lb, 0, text);
        t->w_left_in_block = lb;
    }
    if (t->w_sel_open_threads != t->w_open_threads) {
        uint64_t threads = t->w_sel_open_threads - t->w_open_threads;
        uint64_t phases = t->w_sel_open_phases - t->w_open_phases;
        char text[160];
        if (threads == 1)
            snprintf(text, sizeof text, "%llu phase(s) still open when its thread exited",
                     (unsigned long long)phases);
        else
            snprintf(text, sizeof text, "%llu phase(s) still open when %llu of its threads exited",
                     (unsigned long long)phases, (unsigned long long)threads);
        rec_frame_mark_sub(f, SCOPE_MARK_UNBALANCED, SCOPE_UNBALANCED_LEFT_OPEN, t->index,
                           (int64_t)t->w_sel_open_node, (int64_t)phases, text);
        t->w_open_threads = t->w_sel_open_threads;
        t->w_open_phases = t->w_sel_open_phases;
    }
    uint64_t dr = atomic_load_explicit(&t->dropped_count, memory_order_relaxed);
    if (dr != t->w_dropped) {
        rec_frame_mark(f, SCOPE_MARK_DROPPED, t->index, (int64_t)dr,
                       "entries or counts not recorded (nested too deep, past a per-thread limit, "
                       "or no memory)");
        t->w_dropped = dr;
    }
}

/* Phases still open when the process ends.  A running thread may change
 * its stack while this reads it: the depth and the node are each one
 * relaxed load, and the mark names whatever was open then. */
static void add_open_phases(const rec_frame_ctx *f, rec_thread *t, const char *when) {
    uint32_t depth = rec_relaxed_load(&t->depth);
    uint32_t inherited = rec_relaxed_load(&t->inherited);
    if (depth <= inherited)
        return;
    char text[160];
    snprintf(text, sizeof text, "%u phase(s) still open %s", depth - inherited, when);
    rec_node *top =
        rec_relaxed_load(&t->stack[depth < REC_MAX_DEPTH ? depth : REC_MAX_DEPTH - 1].node);
    rec_frame_mark_sub(f, SCOPE_MARK_UNBALANCED, SCOPE_UNBALANCED_LEFT_OPEN, t->index,
                       (int64_t)top->id, (int64_t)(depth - inherited), text);
}

/* ---- the open stack ----------------------------------------------------------- */

/* Copies of the open stack a busy thread may spoil before one holds: each
 * copy takes well under a microsecond, so only a thread that enters a
 * phase again and again inside that time spoils many. */
#define OPEN_TRIES 16

/* The phases t has open, outermost first, into open_phases: how many.  The
 * copy is taken while t runs (thread.h says why a copy that saw open_gen
 * unchanged is a stack t had) and stops at the first frame this log cannot
 * name yet: a node created after this frame's definitions were chosen (its
 * children can only be newer), or an entry that was dropped.  -1 when every
 * try was spoiled. */
static int open_copy(rec_thread *t) {
    for (int tries = 0; tries < OPEN_TRIES; tries++) {
        uint32_t gen = rec_seq_load(&t->open_gen);
        rec_seq_fence(memory_order_acquire);
        uint32_t depth = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
        if (depth >= REC_MAX_DEPTH)
            depth = REC_MAX_DEPTH - 1; /* deeper entries are counted, never pushed */
        uint32_t n = 0;
        for (uint32_t k = 1; k <= depth; k++, n++) {
            state.open_nodes[n] = rec_relaxed_load(&t->stack[k].node);
            state.open_phases[n].start_ns = rec_seq_load(&t->stack[k].t0);
        }
        uint64_t now = rec_ticks_with(t->clock_tsc), now_ns = rec_mono_ns();
        rec_seq_fence(memory_order_acquire);
        if (rec_seq_load(&t->open_gen) != gen)
            continue;
        uint32_t named = 0;
        for (; named < n; named++) {
            const rec_node *node = state.open_nodes[named];
            if (!node || node->idx == REC_IDX_DROPPED || node->idx == 0 || node->idx > t->w_nodes)
                break;
            /* Ticks to CLOCK_MONOTONIC: how long ago it began, from now. */
            uint64_t t0 = state.open_phases[named].start_ns;
            uint64_t ago = now > t0 ? rec_ticks_to_ns_with(now - t0, t->clock_mult) : 0;
            state.open_phases[named].node = node->id;
            state.open_phases[named].start_ns = now_ns > ago ? now_ns - ago : 0;
        }
        return (int)named;
    }
    return -1;
}

/* OPEN: what t has open as this frame closes, when anything is.  Taken
 * after the thread's aggregates were copied, so an entry is never both in
 * an aggregate and open: one that ends between the two copies is in
 * neither until the next frame, which can only make a total short. */
static void add_open(const rec_frame_ctx *f, rec_thread *t) {
    if (rec_relaxed_load(&t->depth) == 0)
        return;
    int n = open_copy(t);
    if (n <= 0)
        return;
    scope_record r = {.type = SCOPE_REC_OPEN};
    r.u.open = (scope_rec_open){t->index, (uint32_t)n, state.open_phases};
    rec_frame_add(f, &r);
}

/* A snapshot holds no marks: the caveats wait for the next frame. */
static void add_thread(const rec_frame_ctx *f, rec_thread *t) {
    uint32_t nn = t->w_frame_nodes;
    add_definitions(f, t, nn);
    int exited = t->w_sel_exits != t->w_exits;
    for (uint32_t i = 1; i <= nn; i++)
        add_aggregate(f, rec_node_at(t, i), f->with_hist || exited);
    add_counters(f, t);
    if (!f->snapshot)
        add_caveats(f, t);
    add_open(f, t);
}

/* ---- the source -------------------------------------------------------------- */

/* Every definition goes out no later than the first record that uses it,
 * in this frame or an earlier one, since a log may end after any frame
 * (SIGKILL, a full disk).  A counter names its node and a node its parent,
 * both created before it by the same thread, and every one names strings
 * interned before it was created.  So the counts are read users first: what
 * exiting threads left open (whose innermost node a mark names, stored
 * after the node was made), a slot's counters, then its nodes; and all of
 * this before the names source reads how many names to write (select runs
 * before any encode).  Whatever is created after a count was read waits
 * for the next frame. */
static void select_frame(const rec_frame_ctx *f) {
    (void)f;
    state.frame_threads = rec_threads_head();
    for (rec_thread *t = state.frame_threads; t; t = t->next) {
        t->w_sel_exits = atomic_load_explicit(&t->exits, memory_order_acquire);
        t->w_sel_open_threads = atomic_load_explicit(&t->exit_open_threads, memory_order_acquire);
        t->w_sel_open_phases = atomic_load_explicit(&t->exit_open_phases, memory_order_acquire);
        t->w_sel_open_node = atomic_load_explicit(&t->exit_open_node, memory_order_acquire);
        t->w_frame_counters = atomic_load_explicit(&t->ncounters, memory_order_acquire);
        t->w_frame_nodes = atomic_load_explicit(&t->nnodes, memory_order_acquire);
    }
}

static void encode(const rec_frame_ctx *f) {
    for (rec_thread *t = state.frame_threads; t; t = t->next)
        add_thread(f, t);
    if (f->reason == SCOPE_FRAME_EXIT && !f->snapshot) {
        for (rec_thread *t = state.frame_threads; t; t = t->next)
            if (atomic_load_explicit(&t->held, memory_order_acquire))
                add_open_phases(f, t, "at exit");
    }
}

/* The histograms of the slots whose holders exited went out whole. */
static void frame_written(const rec_frame_ctx *f) {
    (void)f;
    for (rec_thread *t = state.frame_threads; t; t = t->next)
        t->w_exits = t->w_sel_exits;
}

static void reset_sent(void) {
    for (rec_thread *t = rec_threads_head(); t; t = t->next) {
        t->w_defined = 0;
        t->w_nodes = 0;
    }
}

const rec_source rec_source_phases = {
    .name = "phases",
    .thread_attach = rec_thread_init_recording,
    .thread_exit = rec_run_delay_end,
    .fork_child = rec_threads_fork_child,
    .reset_sent = reset_sent,
    .select = select_frame,
    .encode = encode,
    .frame_written = frame_written,
};
