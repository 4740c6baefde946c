/*
 * The hot path: entering and leaving phases, and counting.
 *
 * An entry finds its node through a per-thread cache indexed by name id
 * (hit when the same phase opens under the same parent as last time, which
 * is what loops do), pushes a frame and reads the clock.  An exit reads the
 * clock first, then updates the node inside its sequence counter.  No lock,
 * no atomic read-modify-write, no allocation once each (parent, name) pair
 * has been seen.
 */
#include "recorder.h"

#include <scope/log_hist.h>
#include <string.h>

volatile int scope_hot_ = 1; /* the environment has not been read yet */

/* Settings the hot path reads, copied here at start so they share a line. */
struct rec_hot_settings rec_hot = {REC_CPU_ADAPTIVE, 50000};

/* The calling thread's state, attaching it (and starting the recorder from
 * the environment on first use) when it has none. */
static rec_thread *slow_self(void) {
    int st = atomic_load_explicit(&rec_proc.state, memory_order_acquire);
    if (st == REC_UNKNOWN || st == REC_CHILD) {
        rec_first_use();
        st = atomic_load_explicit(&rec_proc.state, memory_order_acquire);
    }
    if (st != REC_ON)
        return NULL;
    if (rec_self)
        return rec_self; /* a forked child's survivor, re-adopted by rec_first_use */
    return rec_thread_attach();
}

static inline rec_thread *self(void) {
    rec_thread *t = rec_self;
    return __builtin_expect(t != NULL, 1) ? t : slow_self();
}

static inline void enter(rec_thread *t, uint32_t name, const scope_site *site) {
    uint32_t depth = t->depth;
    if (__builtin_expect(depth >= REC_MAX_DEPTH, 0)) {
        t->depth = depth + 1; /* counted so that exits pair up; not recorded */
        t->overflow++;
        return;
    }
    rec_node *parent = depth ? t->stack[depth - 1].node : NULL;
    rec_node *n = NULL;
    if (name && (!depth || parent)) { /* below a dropped node everything is dropped */
        uint32_t pidx = parent ? parent->idx : 0;
        if (name < t->cache_len && t->phase_cache[name].parent == pidx && t->phase_cache[name].item)
            n = t->phase_cache[name].item;
        else
            n = rec_node_lookup(t, pidx, name, site);
    }
    rec_frame *f = &t->stack[depth];
    f->node = n;
    t->depth = depth + 1;
    /* CPU time before the clock: the system call stays out of the phase's
     * wall time. */
    f->cpu0 = n && n->cpu_on ? rec_thread_cpu_ns() : 0;
    f->t0 = rec_ticks();
}

void scope_phase_enter_(scope_site *site) {
    rec_thread *t = self();
    if (__builtin_expect(!t, 0))
        return;
    uint32_t name = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!name, 0))
        name = rec_site_register(site);
    enter(t, name, site);
}

void scope_phase_begin(const char *name) {
    if (!scope_hot_)
        return;
    rec_thread *t = self();
    if (!t)
        return;
    const char *nm = name ? name : "(null)";
    enter(t, rec_name_intern(nm, strlen(nm)), NULL);
}

static void record_exit(rec_thread *t, rec_node *n, const rec_frame *f, uint64_t now) {
    uint64_t d = rec_ticks_to_ns(now - f->t0);
    if (__builtin_expect((int64_t)(now - f->t0) < 0, 0))
        d = 0; /* a clock that went backwards measures nothing, never 2^64 */
    uint64_t cpu = f->cpu0 ? rec_thread_cpu_ns() : 0;
    uint32_t b = scope_hist_bucket(d);
    uint64_t *oct = n->hist[b >> 4];
    if (__builtin_expect(!oct, 0))
        oct = rec_hist_octave(t, n, b >> 4);

    rec_seq_begin(&n->seq);
    n->count++;
    n->wall_ns += d;
    if (d < n->min_ns)
        n->min_ns = d;
    if (d > n->max_ns)
        n->max_ns = d;
    if (oct)
        oct[b & 15]++;
    if (f->cpu0 && cpu >= f->cpu0) {
        n->cpu_count++;
        n->cpu_wall_ns += d;
        n->cpu_ns += cpu - f->cpu0;
    }
    rec_seq_end(&n->seq);

    /* Adaptive CPU time: keep reading it for the first few entries and for
     * phases whose mean is long enough that two reads cost under 2%. */
    if (rec_hot.cpu_mode == REC_CPU_ADAPTIVE)
        n->cpu_on = n->count < 4 || n->wall_ns >= n->count * rec_hot.cpu_min_ns;
}

void scope_phase_exit_(void) {
    uint64_t now = rec_ticks();
    rec_thread *t = rec_self;
    if (__builtin_expect(!t, 0))
        return;
    uint32_t depth = t->depth;
    if (__builtin_expect(depth == 0, 0)) {
        /* After fork() the child leaves the blocks its parent had open:
         * those ends are expected.  Any other is an unbalanced end. */
        if (t->inherited)
            t->inherited--;
        else
            atomic_fetch_add_explicit(&t->unbalanced_end_empty, 1, memory_order_relaxed);
        return;
    }
    t->depth = --depth;
    if (__builtin_expect(depth >= REC_MAX_DEPTH, 0))
        return;
    rec_frame *f = &t->stack[depth];
    if (f->node)
        record_exit(t, f->node, f, now);
}

void scope_phase_end(void) {
    scope_phase_exit_();
}

static void count_add(rec_thread *t, uint32_t name, int64_t v) {
    uint32_t depth = t->depth < REC_MAX_DEPTH ? t->depth : REC_MAX_DEPTH;
    rec_node *cur = depth ? t->stack[depth - 1].node : NULL;
    if (depth && !cur)
        return; /* counted inside a dropped node: dropped with it */
    uint32_t nidx = cur ? cur->idx : 0;
    rec_counter *c;
    if (name < t->cache_len && t->count_cache[name].parent == nidx && t->count_cache[name].item)
        c = t->count_cache[name].item;
    else if (!(c = rec_counter_lookup(t, nidx, name)))
        return;
    rec_seq_begin(&c->seq);
    c->calls++;
    c->total += v;
    rec_seq_end(&c->seq);
}

void scope_count_slow_(scope_site *site, int64_t n) {
    rec_thread *t = self();
    if (__builtin_expect(!t, 0))
        return;
    uint32_t name = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!name, 0))
        name = rec_site_register(site);
    if (name)
        count_add(t, name, n);
}

void scope_count(const char *name, int64_t n) {
    if (!scope_hot_)
        return;
    rec_thread *t = self();
    if (!t)
        return;
    const char *nm = name ? name : "(null)";
    uint32_t id = rec_name_intern(nm, strlen(nm));
    if (id)
        count_add(t, id, n);
}
