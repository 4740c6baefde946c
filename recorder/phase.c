/*
 * The hot path: entering and leaving phases, and counting.
 *
 * An entry finds its node through a per-thread cache indexed by name id
 * (a hit when the same phase opens under the same parent as last time, which
 * is what loops do), pushes a frame, reads the clock and then raises the
 * depth, so that the writer thread can copy the open stack while the thread
 * runs (thread.h, rec_open_begin).  An exit reads the
 * clock first, then updates the node inside its sequence counter.  No lock,
 * no atomic read-modify-write, no allocation once each (parent, name) pair
 * has been seen.
 *
 * Each fast path is a leaf: everything unusual (first use, a cache miss, a
 * phase that reads CPU time, a histogram octave not yet allocated, nesting
 * deeper than the stack, an open trace window) leaves through a tail call
 * to a cold function, so
 * the fast path saves no registers: 33 instructions to enter and 49 to
 * leave (docs/architecture.md, "The hot path"; bench_phase_instructions).
 *
 * stack[0] is a sentinel frame for the thread's root (node idx 0), so the
 * parent of any entry is stack[depth].node without a test; an entry that
 * could not be recorded pushes the `dropped` sentinel, which is no cache
 * entry's parent, so its children and counters take the slow path and are
 * counted as dropped.
 */
#include "clock.h"
#include "config.h"
#include "cpu_share.h"
#include "cuda_sync.h"
#include "lifecycle.h"
#include "names.h"
#include "phase_io.h"
#include "run_delay.h"
#include "sources.h"
#include "state.h"
#include "thread.h"
#include "trace.h"

#include <scope/log_hist.h>
#include <string.h>

#define COLD __attribute__((noinline, cold))

/* ---- getting the thread ------------------------------------------------- */

/* The calling thread's state, attaching it (and starting the recorder from
 * the environment on first use) when it has none. */
static COLD rec_thread *slow_self(void) {
    int st = rec_state_get();
    if (st == REC_UNKNOWN || st == REC_CHILD) {
        rec_first_use();
        st = rec_state_get();
    }
    if (st != REC_ON)
        return NULL;
    if (rec_attached(rec_self))
        return rec_self; /* a forked child's thread, attached anew by rec_first_use */
    return rec_sources_attach_self();
}

/* ---- entering ------------------------------------------------------------ */

static inline void push_clock(const rec_thread *t, rec_frame *f) {
    REC_SEQ_SET(f->t0, rec_ticks_with(t->clock_tsc));
}

/* Phases that read CPU time.  The reads stay outside the phase's wall
 * time, so that they never inflate its total: an entry reads CPU time
 * before the clock, an exit the clock before CPU time.  The CPU window then
 * holds the wall window and the part of the two reads between their
 * samples, about one read's cost, which exit_cpu takes out again (the
 * share the thread keeps measuring, cpu_share.h).  No entry's CPU time
 * is capped at its wall time: the two clocks differ by a few tens of ns an
 * entry either way, and a cap that took off only the excess would add
 * wait to every entry of 1 us; the model caps the phase's sum instead
 * (wait% 0 to 100 %, run_merge.c).
 *
 * The adaptive rule is the owner's alone and follows the node's own
 * entries, never the frame schedule: an entry reads CPU time while the
 * node's reads so far have cost at most 2% of its time, that is while
 * reads x cpu_min_ns <= wall_ns (cpu_min_ns is 100 reads; two reads a
 * read entry).  The first entry reads; past that the budget grows only with
 * the node's own time, so a preempted entry buys a bounded number of reads
 * and a short phase settles near one read entry per cpu_min_ns of its time.
 * exit_cpu stops the reads when the budget is spent and sets cpu_due_ns;
 * the fast exit starts them again once wall_ns reaches it, and an unread
 * entry long enough to pay for a read reads at its exit alone
 * (exit_unread_long). */

/* What an entry returns when it pushed no frame (nesting too deep, or not
 * recording): no thread's depth ever equals it, so its block's exit takes
 * the cold path, which ends it as the innermost phase. */
#define UNTRACKED UINT32_MAX

/* Set in the depth an entry returns on a thread without the TSC, so that
 * the block's exit, whose fast path reads the TSC, leaves it at its one
 * test of the depth. */
#define NO_TSC 0x80000000u

static inline uint32_t entered(const rec_thread *t, uint32_t depth) {
    return t->clock_tsc ? depth : depth | NO_TSC;
}

/* An entry of a node whose cpu_read is not 0: it reads CPU time, its
 * thread's clock is not the TSC (REC_CPU_READ_CLOCK), or it is an I/O, sync
 * or trace-watched phase (REC_CPU_READ_COLD).  A sync phase drains the GPU
 * queue before its clock starts, so what earlier phases left queued is not
 * billed to it; an I/O phase reads its thread's counters first, then CPU
 * time, then the clock, so that neither read is inside its wall time. */
static COLD uint32_t push_clock_cpu(rec_thread *t, uint32_t depth) {
    rec_frame *f = &t->stack[depth];
    rec_node *n = f->node;
    uint8_t cpu = n->cpu_read;
    if ((cpu & REC_CPU_READ_COLD) && (n->flags & SCOPE_PHASE_F_SYNC))
        (void)rec_cuda_sync();
    if ((cpu & REC_CPU_READ_COLD) && (n->flags & SCOPE_PHASE_F_IO))
        rec_phase_io_enter(t, depth);
    if (cpu & REC_CPU_READ_ON) {
        /* The run delay first, so that its read stays out of the CPU
         * window as well as the wall window.  Its own window is timed
         * from just before this read to just after the exit's: a thread
         * taken off its CPU between this read and the clock waits inside
         * the delay's window, which must then hold that time too. */
        n->delay_t0 = t->delay_seen_ticks = rec_ticks_with(t->clock_tsc);
        t->delay_seen_ns = n->delay0 = rec_run_delay_ns(t);
        uint64_t c = rec_thread_cpu_ns();
        n->cpu0 = c && c != REC_CPU0_NONE ? c : 1; /* 0 would mean "not read" */
        REC_SEQ_SET(f->t0, rec_ticks_with(t->clock_tsc));
        t->cpu_seen_ns = c;
        t->cpu_seen_ticks = f->t0;
    } else {
        /* A clock other than the TSC alone leaves the exit to its own
         * cold path (NO_TSC); work of its own takes the exit to exit_cpu. */
        n->cpu0 = cpu & REC_CPU_READ_COLD ? REC_CPU0_NONE : 0;
        REC_SEQ_SET(f->t0, rec_ticks_with(t->clock_tsc));
    }
    if (n->trace_watch)
        rec_trace_entered(t, depth, n->name); /* an entry into the trace window's phase */
    rec_open_publish(t, depth);
    return entered(t, depth);
}

static inline uint32_t enter_plain(rec_thread *t, uint32_t name, scope_site *site);

/* Any entry the fast path does not take: a thread's first entry, a site's
 * first use, nesting too deep, a cache miss, a dropped parent. */
static COLD uint32_t enter_slow(rec_thread *t, uint32_t name, scope_site *site) {
    if (!rec_attached(t)) {
        if ((t = slow_self()))
            return enter_plain(t, name, site);
        return UNTRACKED;
    }
    if (!name && site)
        name = rec_site_register(site); /* 0 still when the name table is full */
    uint32_t depth = t->depth;
    if (depth >= REC_MAX_DEPTH - 1) {
        rec_relaxed_store(&t->depth, depth + 1); /* counted so that exits pair up; not recorded */
        atomic_fetch_add_explicit(&t->dropped_count, 1, memory_order_relaxed);
        return UNTRACKED;
    }
    rec_node *parent = t->stack[depth].node;
    rec_node *n = NULL;
    if (name && parent != &t->dropped)
        n = rec_node_lookup(t, parent, name, site); /* counts its own failures */
    else
        atomic_fetch_add_explicit(&t->dropped_count, 1, memory_order_relaxed);
    rec_frame *f = &t->stack[depth + 1];
    rec_open_begin(t);
    rec_relaxed_store(&f->node, n ? n : &t->dropped);
    assert(depth + 1 < REC_MAX_DEPTH);
    if (n && n->cpu_read)
        return push_clock_cpu(t, depth + 1);
    push_clock(t, f);
    rec_open_publish(t, depth + 1);
    return entered(t, depth + 1);
}

/* Returns the thread's depth with the entry open (NO_TSC set without the
 * TSC), or UNTRACKED. */
static inline uint32_t enter_plain(rec_thread *t, uint32_t name, scope_site *site) {
    uint32_t depth = t->depth;
    rec_cache *c = &t->phase_cache[name];
    rec_frame *top = &t->stack[depth];
    if (__builtin_expect(
            depth >= REC_MAX_DEPTH - 1 || name >= t->cache_len || c->parent != top->node, 0))
        return enter_slow(t, name, site);
    rec_node *n = c->item;
    rec_frame *f = top + 1;
    rec_open_begin(t);
    rec_relaxed_store(&f->node, n);
    /* Reading CPU time, a clock other than the TSC, work of the node's own:
     * one compare, and each leaves through a tail call, so this path saves
     * no registers. */
    if (__builtin_expect(n->cpu_read != 0, 0))
        return push_clock_cpu(t, depth + 1);
    REC_SEQ_SET(f->t0, rec_ticks_with(1));
    rec_open_publish(t, depth + 1);
    return depth + 1;
}

/* An entry while a trace window is open (or waits for a phase that had
 * nodes before it was asked for): recorded as always, then shown to the
 * window, which may mark its frame (trace.h).  A node of the window's own
 * phase was shown to it already, on its cold path (push_clock_cpu). */
static COLD uint32_t enter_traced(rec_thread *t, uint32_t name, scope_site *site) {
    uint32_t depth = enter_plain(t, name, site);
    if (depth != UNTRACKED) {
        rec_thread *self = rec_self;
        uint32_t d = depth & ~NO_TSC;
        if (!name && site)
            name = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE); /* registered by this entry */
        if (!self->stack[d].node->trace_watch)
            rec_trace_entered(self, d, name);
    }
    return depth;
}

/* Whether a trace window wants every entry and count.  Outside
 * ThreadSanitizer a plain load of the byte, which the compiler folds into
 * its one compare (an atomic load it keeps apart): as with REC_SEQ_ADD,
 * one byte is read whole either way. */
static inline int trace_hot(void) {
#if defined(__SANITIZE_THREAD__)
    return __atomic_load_n(&rec_trace_hot, __ATOMIC_RELAXED);
#else
    return rec_trace_hot;
#endif
}

static inline uint32_t enter(rec_thread *t, uint32_t name, scope_site *site) {
    if (__builtin_expect(trace_hot(), 0))
        return enter_traced(t, name, site);
    return enter_plain(t, name, site);
}

/* An unregistered site has id 0, whose cache slot never matches: its first
 * use falls to enter_slow like any miss. */
uint32_t scope_block_enter_(scope_site *site) {
    return enter(rec_self, __atomic_load_n(&site->id, __ATOMIC_ACQUIRE), site);
}

void scope_phase_enter_(scope_site *site) {
    enter(rec_self, __atomic_load_n(&site->id, __ATOMIC_ACQUIRE), site);
}

/* The frame it pushes is marked explicit: only scope_phase_end, or the
 * block it was left open in, ends it. */
void scope_phase_begin_n(const char *name, size_t len) {
    if (!scope_hot_)
        return;
    if (!name)
        name = "(null)", len = 6;
    uint32_t depth = enter(rec_self, rec_name_intern(name, len), NULL);
    if (depth != UNTRACKED)
        rec_self->explicit_open[depth & ~NO_TSC] = 1;
}

void scope_phase_begin(const char *name) {
    scope_phase_begin_n(name, name ? strlen(name) : 0);
}

/* ---- leaving -------------------------------------------------------------- */

static inline uint64_t elapsed_ns(const rec_thread *t, uint64_t now, uint64_t t0) {
    int64_t dt = (int64_t)(now - t0);
    dt &= ~(dt >> 63); /* a clock that stepped back measured nothing, not 2^64 */
    return rec_ticks_to_ns_with((uint64_t)dt, t->clock_mult);
}

/* One entry of d ns, counted in its histogram bucket bin, into the node's
 * figures.  Called inside the node's sequence counter. */
static inline void add_entry(rec_node *n, uint64_t *bin, uint64_t d) {
    REC_SEQ_ADD(n->count, 1);
    REC_SEQ_ADD(n->wall_ns, d);
    if (d < n->min_ns)
        REC_SEQ_SET(n->min_ns, d);
    if (d > n->max_ns)
        REC_SEQ_SET(n->max_ns, d);
    REC_SEQ_ADD(*bin, 1);
}

static inline void update(rec_node *n, uint64_t *bin, uint64_t d) {
    rec_seq_begin(&n->seq);
    add_entry(n, bin, d);
    rec_seq_end(&n->seq);
}

/* The adaptive rule's budget (see above): reads go on while the node's
 * read entries so far, each worth cpu_min_ns of its time, fit in it. */
static inline uint64_t cpu_budget_due(const rec_node *n) {
    return n->cpu_reads * rec_hot.cpu_min_ns;
}

/* The run delay of an entry that read CPU time, between reads delay0 and
 * delay (either REC_DELAY_NONE: not read) taken d ns apart (the reads'
 * window, a little wider than the entry's), under the node's seq.  Never
 * more than that window, as CPU time. */
static inline void add_delay(rec_node *n, uint64_t delay0, uint64_t delay, uint64_t d) {
    if (delay0 == REC_DELAY_NONE || delay == REC_DELAY_NONE || delay < delay0)
        return;
    uint64_t q = delay - delay0;
    REC_SEQ_ADD(n->delay_count, 1);
    REC_SEQ_ADD(n->delay_wall_ns, d);
    REC_SEQ_ADD(n->delay_ns, q < d ? q : d);
}

/* An entry from t0 to now (d ns) that did not read CPU time, but is long
 * enough to pay for a read at its exit (d >= cpu_min_ns): the entries a
 * sample of reads misses the most, since one preempted or blocked entry can
 * be most of a short phase's time.  When the thread's newest read of its CPU
 * time was taken at most d/64 before the entry began, the CPU time since
 * then is the entry's, to within that 1/64 (and one read's cost, taken off
 * as on any exit), and the entry counts among those read. */
static void exit_unread_long(rec_thread *t, rec_node *n, uint64_t t0, uint64_t now, uint64_t d) {
    if (d < rec_hot.cpu_min_ns || t->cpu_seen_ticks == 0 || t->cpu_seen_ticks > t0 ||
        elapsed_ns(t, t0, t->cpu_seen_ticks) > d / 64)
        return;
    uint64_t cpu = rec_thread_cpu_ns();
    if (cpu < t->cpu_seen_ns)
        return;
    uint64_t delay = rec_run_delay_ns(t), delay0 = t->delay_seen_ns;
    uint64_t after = rec_ticks_with(t->clock_tsc);
    uint64_t dd = t->delay_seen_ticks && after >= t->delay_seen_ticks
                      ? elapsed_ns(t, after, t->delay_seen_ticks)
                      : d;
    uint64_t used = cpu - t->cpu_seen_ns, share = rec_cpu_share_ns(t);
    used = used > share ? used - share : 0;
    rec_seq_begin(&n->seq);
    REC_SEQ_ADD(n->cpu_count, 1);
    REC_SEQ_ADD(n->cpu_wall_ns, d);
    REC_SEQ_ADD(n->cpu_ns, used); /* never capped at d (see above) */
    add_delay(n, delay0, delay, dd);
    rec_seq_end(&n->seq);
    n->cpu_reads++;
    t->cpu_seen_ns = cpu;
    t->cpu_seen_ticks = now;
    t->delay_seen_ns = delay;
    t->delay_seen_ticks = after;
}

/* Adaptive reads are off and the node's time has reached cpu_due_ns with
 * the entry from t0 to now (d ns): its next entry reads CPU time again.  An
 * entry of cpu_min_ns or more always gets here, since reads stop less than
 * cpu_min_ns short of cpu_due_ns. */
static COLD void cpu_reads_resume(rec_thread *t, rec_node *n, uint64_t t0, uint64_t now,
                                  uint64_t d) {
    exit_unread_long(t, n, t0, now, d);
    n->cpu_due_ns = UINT64_MAX;
    n->cpu_read |= REC_CPU_READ_ON;
}

/* The fast exit's tails take the depth of the frame it closed (still
 * whole: only the thread itself pushes frames, and no libscope call is made
 * from a signal handler) and the clock, and work out the rest again, so
 * that the fast path keeps no more values live than its own work needs. */

/* The exit of stack[depth] at now reached the node's cpu_due_ns. */
static COLD void exit_resume(rec_thread *t, uint32_t depth, uint64_t now) {
    const rec_frame *f = &t->stack[depth];
    cpu_reads_resume(t, f->node, f->t0, now, elapsed_ns(t, now, f->t0));
}

/* The exit of stack[depth] at now when the clock stepped back (now < t0:
 * it measured nothing, not 2^64), or the first entry to land in a
 * histogram octave of its node. */
static COLD void exit_rare(rec_thread *t, uint32_t depth, uint64_t now) {
    const rec_frame *f = &t->stack[depth];
    rec_node *n = f->node;
    uint64_t t0 = f->t0, d = elapsed_ns(t, now, t0);
    rec_hist_slot h = rec_hist_place(d);
    uint64_t *oct = n->hist[h.octave];
    if (oct || (oct = rec_hist_octave(t, n, h.octave))) {
        update(n, &oct[h.sub], d);
        if (n->wall_ns >= n->cpu_due_ns)
            cpu_reads_resume(t, n, t0, now, d);
    } else
        atomic_fetch_add_explicit(&t->dropped_count, 1, memory_order_relaxed);
}

/* An entry that read CPU time, and the adaptive rule's decision for the
 * next one.  Also the exit of an I/O or sync phase, in the reverse order of
 * its entry: the drain, the clock, CPU time, the I/O counters, so that the
 * drain is inside the phase and the reads are not. */
static COLD void exit_cpu(rec_thread *t, uint32_t depth, uint64_t now) {
    rec_frame *f = &t->stack[depth];
    rec_node *n = f->node;
    uint64_t cpu0 = n->cpu0;
    n->cpu0 = 0; /* the node's next entry starts clean (thread.h) */
    if (rec_trace_marked(t, depth))
        rec_trace_exited(t, depth);
    int io = 0; /* 1: I/O measured, -1: an I/O read failed */
    rec_io_counters dio;
    if (n->flags & SCOPE_PHASE_F_SYNC) {
        (void)rec_cuda_sync();
        now = rec_ticks_with(t->clock_tsc);
    }
    uint64_t cpu = 0, delay = REC_DELAY_NONE, after = now;
    if (cpu0 != REC_CPU0_NONE) {
        cpu = rec_thread_cpu_ns();
        uint64_t newest = rec_cpu_share_sample(t, cpu); /* now and then a second read */
        delay = rec_run_delay_ns(t);                    /* after CPU time: outside its window */
        after = rec_ticks_with(t->clock_tsc);
        t->cpu_seen_ns = newest;
        t->cpu_seen_ticks = now;
        t->delay_seen_ns = delay;
        t->delay_seen_ticks = after;
    }
    if (n->flags & SCOPE_PHASE_F_IO)
        io = rec_phase_io_exit(t, depth, &dio) == 0 ? 1 : -1;
    uint64_t d = elapsed_ns(t, now, f->t0);
    rec_hist_slot h = rec_hist_place(d);
    uint64_t *oct = n->hist[h.octave];
    if (!oct && !(oct = rec_hist_octave(t, n, h.octave))) {
        atomic_fetch_add_explicit(&t->dropped_count, 1, memory_order_relaxed);
        return;
    }
    rec_seq_begin(&n->seq);
    add_entry(n, &oct[h.sub], d);
    if (io > 0) {
        REC_SEQ_ADD(n->io_count, 1);
        REC_SEQ_ADD(n->disk_read, dio.read_bytes);
        REC_SEQ_ADD(n->disk_write, dio.write_bytes);
        REC_SEQ_ADD(n->char_read, dio.rchar);
        REC_SEQ_ADD(n->char_write, dio.wchar);
    } else if (io < 0) {
        REC_SEQ_ADD(n->io_failed, 1);
    }
    if (cpu0 != REC_CPU0_NONE && cpu >= cpu0) {
        /* Less the reads' own share of the CPU window (see above), and
         * not capped at d: the model caps the phase's sum (run_merge.c). */
        uint64_t used = cpu - cpu0, share = rec_cpu_share_ns(t);
        used = used > share ? used - share : 0;
        REC_SEQ_ADD(n->cpu_count, 1);
        REC_SEQ_ADD(n->cpu_wall_ns, d);
        REC_SEQ_ADD(n->cpu_ns, used);
        add_delay(n, n->delay0, delay, elapsed_ns(t, after, n->delay_t0));
    }
    rec_seq_end(&n->seq);
    if (rec_hot.cpu_mode != REC_CPU_ADAPTIVE)
        return;
    if (cpu0 != REC_CPU0_NONE) {
        n->cpu_reads++;
        uint64_t due = cpu_budget_due(n);
        if (n->wall_ns < due) { /* the budget is spent: off until the node's time reaches due */
            n->cpu_read &= (uint8_t)~REC_CPU_READ_ON;
            n->cpu_due_ns = due;
        }
    } else if (n->wall_ns >= n->cpu_due_ns) {
        cpu_reads_resume(t, n, f->t0, now, d);
    }
}

/* An exit with nothing open, or of an entry nested too deep to record. */
static COLD void exit_edge(rec_thread *t) {
    if (!rec_attached(t) && !(t = slow_self()))
        return; /* not recording */
    uint32_t depth = t->depth;
    if (depth >= REC_MAX_DEPTH) {
        rec_relaxed_store(&t->depth, depth - 1);
        return;
    }
    assert(depth == 0); /* the fast path takes every other exit */
    /* After fork() the child leaves the blocks its parent had open: those
     * ends are expected.  Any other is an unbalanced end. */
    if (t->inherited)
        rec_relaxed_store(&t->inherited, t->inherited - 1);
    else
        atomic_fetch_add_explicit(&t->unbalanced_end_empty, 1, memory_order_relaxed);
}

static inline __attribute__((always_inline)) void exit_frame(rec_thread *t, uint32_t depth,
                                                             uint64_t now);

/* The innermost phase, whatever opened it. */
static inline __attribute__((always_inline)) void exit_at(rec_thread *t, uint64_t now) {
    uint32_t depth = t->depth;
    if (__builtin_expect(depth - 1u >= REC_MAX_DEPTH - 1u, 0))
        return exit_edge(t);
    exit_frame(t, depth, now);
}

/* Without the TSC the clock is a call: out of the fast path. */
static COLD void exit_other_clock(rec_thread *t) {
    exit_at(t, rec_ticks_with(0));
}

void scope_phase_exit_(void) {
    rec_thread *t = rec_self;
    if (__builtin_expect(!t->clock_tsc, 0))
        return exit_other_clock(t);
    exit_at(t, rec_ticks_with(1));
}

/* Closes stack[depth], the thread's innermost frame (1 <= depth < REC_MAX_DEPTH). */
static inline __attribute__((always_inline)) void exit_frame(rec_thread *t, uint32_t depth,
                                                             uint64_t now) {
    rec_frame *f = &t->stack[depth];
    rec_relaxed_store(&t->depth, depth - 1);
    rec_node *n = f->node;
    if (__builtin_expect(n->cpu0 != 0, 0))
        return exit_cpu(t, depth, now);
    uint64_t ticks = now - f->t0;
    if (__builtin_expect((int64_t)ticks < 0, 0))
        return exit_rare(t, depth, now);
    uint64_t d = rec_ticks_to_ns_with(ticks, t->clock_mult);
    rec_hist_slot h = rec_hist_place(d);
    uint64_t *oct = n->hist[h.octave];
    if (__builtin_expect(!oct, 0))
        return exit_rare(t, depth, now);
    update(n, &oct[h.sub], d);
    /* The adaptive rule's budget has grown back: one compare, on a line
     * the update just wrote. */
    if (__builtin_expect(n->wall_ns >= n->cpu_due_ns, 0))
        return exit_resume(t, depth, now);
}

/* A block's exit when the thread's depth is not the one its entry
 * returned.  Deeper: phases begun inside the block and left open; each is
 * closed now, as unbalanced, and then the block's own.  Shallower: the
 * block's phase is no longer open (a forked child leaving its parent's
 * block, or an exit through the older innermost-phase call), so nothing of
 * its own is left to close. */
static COLD void block_exit_other(rec_thread *t, uint32_t block_depth, uint64_t now) {
    if (block_depth == UNTRACKED || !rec_attached(t))
        return exit_at(t, now); /* no frame of its own: the innermost, as always */
    uint32_t depth = t->depth;
    if (depth < block_depth) {
        if (depth == 0)
            exit_edge(t); /* a forked child's inherited block, or unbalanced */
        else
            atomic_fetch_add_explicit(&t->unbalanced_end_empty, 1, memory_order_relaxed);
        return;
    }
    uint32_t leaked = 0;
    for (; depth > block_depth; depth = t->depth, leaked++) {
        if (depth >= REC_MAX_DEPTH) {
            rec_relaxed_store(&t->depth, depth - 1); /* counted, never recorded */
            continue;
        }
        t->explicit_open[depth] = 0;
        if (depth == block_depth + 1)
            atomic_store_explicit(&t->left_in_block_name, t->stack[depth].node->name,
                                  memory_order_relaxed);
        exit_frame(t, depth, now);
    }
    atomic_store_explicit(&t->left_in_block_block, t->stack[block_depth].node->name,
                          memory_order_relaxed);
    atomic_fetch_add_explicit(&t->left_in_block, leaked, memory_order_release);
    exit_frame(t, block_depth, now);
}

/* Any block exit but the one the fast path takes: a thread without the
 * TSC, or a depth that is not the block's. */
static COLD void block_exit_cold(rec_thread *t, uint32_t block_depth) {
    uint64_t now = rec_ticks_with(t->clock_tsc);
    if (block_depth != UNTRACKED)
        block_depth &= ~NO_TSC;
    if (t->depth != block_depth)
        return block_exit_other(t, block_depth, now);
    exit_frame(t, block_depth, now);
}

/* One test of the depth guards the fast path: it equals the block's only
 * when the block's phase is the innermost and the thread has the TSC. */
void scope_block_exit_(uint32_t block_depth) {
    rec_thread *t = rec_self;
    if (__builtin_expect(t->depth != block_depth, 0))
        return block_exit_cold(t, block_depth);
    exit_frame(t, block_depth, rec_ticks_with(1));
}

/* Ends the innermost phase only when scope_phase_begin opened it: a block's
 * phase is its block's to end, so an end inside a block with nothing of its
 * own open is counted as unbalanced and changes nothing. */
void scope_phase_end(void) {
    rec_thread *t = rec_self;
    uint32_t depth = t->depth;
    if (depth - 1u < REC_MAX_DEPTH - 1u) {
        if (!t->explicit_open[depth]) {
            atomic_fetch_add_explicit(&t->unbalanced_end_empty, 1, memory_order_relaxed);
            return;
        }
        t->explicit_open[depth] = 0;
    }
    scope_phase_exit_();
}

/* ---- counting ------------------------------------------------------------- */

static inline void count_plain(rec_thread *t, uint32_t name, int64_t v, scope_site *site);

/* A total that would pass INT64_MAX or INT64_MIN holds at that limit, and
 * the counter is marked so that the log says it saturated: a wrapped total
 * would read as a plausible figure of the wrong sign. */
static COLD void counter_saturate(rec_counter *c, int64_t v) {
    /* Before the update, so a writer that copies the new total also sees
     * the flag. */
    atomic_store_explicit(&c->saturated, v > 0 ? REC_SATURATED_MAX : REC_SATURATED_MIN,
                          memory_order_release);
    rec_seq_begin(&c->seq);
    REC_SEQ_ADD(c->calls, 1);
    REC_SEQ_SET(c->total, v > 0 ? INT64_MAX : INT64_MIN);
    rec_seq_end(&c->seq);
}

static inline void counter_add(rec_counter *c, int64_t v) {
    int64_t sum;
    if (__builtin_expect(__builtin_add_overflow(c->total, v, &sum), 0))
        return counter_saturate(c, v);
    rec_seq_begin(&c->seq);
    REC_SEQ_ADD(c->calls, 1);
    REC_SEQ_SET(c->total, sum);
    rec_seq_end(&c->seq);
}

static COLD void count_slow(rec_thread *t, uint32_t name, int64_t v, scope_site *site) {
    if (!rec_attached(t)) {
        if ((t = slow_self()))
            count_plain(t, name, v, site);
        return;
    }
    if (!name && site)
        name = rec_site_register(site); /* 0 still when the name table is full */
    uint32_t depth = t->depth < REC_MAX_DEPTH ? t->depth : REC_MAX_DEPTH - 1;
    rec_node *cur = t->stack[depth].node;
    if (!name || cur == &t->dropped) {
        atomic_fetch_add_explicit(&t->dropped_count, 1, memory_order_relaxed);
        return; /* counted inside a dropped phase: dropped with it */
    }
    rec_counter *c = rec_counter_lookup(t, cur, name);
    if (c)
        counter_add(c, v);
}

static inline void count_plain(rec_thread *t, uint32_t name, int64_t v, scope_site *site) {
    uint32_t depth = t->depth;
    rec_cache *c = &t->count_cache[name];
    if (__builtin_expect(
            depth >= REC_MAX_DEPTH || name >= t->cache_len || c->parent != t->stack[depth].node, 0))
        return count_slow(t, name, v, site);
    counter_add(c->item, v);
}

/* A count while a trace window waits or is open: added as always, then
 * recorded as an event when the window is open. */
static COLD void count_traced(rec_thread *t, uint32_t name, int64_t v, scope_site *site) {
    count_plain(t, name, v, site);
    if (!name && site)
        name = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
    if (rec_attached(rec_self))
        rec_trace_counted(rec_self, name, v);
}

static inline void count_add(rec_thread *t, uint32_t name, int64_t v, scope_site *site) {
    if (__builtin_expect(trace_hot(), 0))
        return count_traced(t, name, v, site);
    count_plain(t, name, v, site);
}

void scope_count_slow_(scope_site *site, int64_t v) {
    count_add(rec_self, __atomic_load_n(&site->id, __ATOMIC_ACQUIRE), v, site);
}

void scope_count_n(const char *name, size_t len, int64_t v) {
    if (!scope_hot_)
        return;
    if (!name)
        name = "(null)", len = 6;
    count_add(rec_self, rec_name_intern(name, len), v, NULL);
}

void scope_count(const char *name, int64_t v) {
    scope_count_n(name, name ? strlen(name) : 0, v);
}
