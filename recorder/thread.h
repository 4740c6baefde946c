/*
 * Per-thread recording state: the phase stack, the nodes of the thread's
 * phase tree, its counters and the lookup structures that find them.
 *
 * Threads of the host program record into structures of their own (struct
 * rec_thread) with no lock: a phase entry and exit touch only the thread's
 * own phase stack and one node.  The writer thread reads every thread's
 * nodes through per-node sequence counters (a seqlock: the owner makes the
 * counter odd while it updates, the reader retries a copy that saw it
 * change).
 *
 * Every field below names its one writer.  "owner" is the thread the
 * structure belongs to.  "writer" is the writer thread, and the thread that
 * starts it before it runs (a new file resets what was sent).  "before
 * publication" means written once by the thread that creates the element,
 * before the release store that makes it visible to the writer (nnodes,
 * ncounters, the registry's head), and never again.  A forked child's lone thread starts a
 * new structure of its own (rec_threads_fork_child).
 */
#ifndef SCOPE_REC_THREAD_H
#define SCOPE_REC_THREAD_H

#include "own_fd.h"
#include "recorder.h"

#include <scope/log_format.h>
#include <scope/scope.h>

#include <stdatomic.h>
#include <sys/types.h>

/* Stores by the owner to fields the writer thread reads while the owner
 * may be writing them, and the writer's loads of them.
 *
 * rec_relaxed_store / rec_relaxed_load: a value already in a register (the
 * depth, a stack frame's node); a relaxed atomic store costs no more than a
 * plain one, so it is one everywhere.
 *
 * REC_SEQ_ADD, REC_SEQ_SET / rec_seq_load: a field under a sequence counter
 * (and a histogram bucket).  Built for ThreadSanitizer they are atomic, so
 * the writer's copy races with nothing and TSan checks the rest; TSan does
 * not model fences, so there the order the fences give comes from the
 * accesses themselves (release stores, acquire loads) and rec_seq_fence is
 * empty.  Elsewhere the owner's side is a plain add to memory: the atomic
 * form compiles to a load, an add and a store, two instructions more per
 * field on the hot path, and the copy the writer takes is checked by the
 * sequence counter either way. */
#define rec_relaxed_store(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define rec_relaxed_load(p)     __atomic_load_n((p), __ATOMIC_RELAXED)
#if defined(__SANITIZE_THREAD__)
#define REC_SEQ_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELEASE)
#define REC_SEQ_SET(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELEASE)
#define rec_seq_load(p)       __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define rec_seq_fence(order)  ((void)0)
#else
#define REC_SEQ_ADD(field, v) ((field) += (v))
#define REC_SEQ_SET(field, v) ((field) = (v))
#define rec_seq_load(p)       __atomic_load_n((p), __ATOMIC_RELAXED)
#define rec_seq_fence(order)  atomic_thread_fence(order)
#endif

/* Whether the next entry of a node reads thread CPU time (cpu_read).  Set
 * when the node is created, then changed by its owner's adaptive rule
 * (phase.c) alone. */
#define REC_CPU_READ_ON 1u
/* Also set in cpu_read, fixed before publication (the rule keeps it): the
 * node's entries leave the fast path because its thread's clock is not the
 * TSC, whose read the fast path inlines. */
#define REC_CPU_READ_CLOCK 2u
/* Also set in cpu_read, fixed before publication: the node's entries and
 * exits leave the fast path for work of their own, an I/O phase's counters,
 * a sync phase's drain or the trace window's phase.  The fast path's one
 * test of this byte is its whole decision, so none of these costs an
 * ordinary phase anything. */
#define REC_CPU_READ_COLD 4u

/* The fields a recorded entry and exit touch come first, within 64 bytes:
 * seq, cpu_read, cpu_due_ns, the four figures of every entry and cpu0. */
typedef struct rec_node {
    _Atomic uint32_t seq; /* owner: odd while it updates */
    /* REC_CPU_READ_*: before publication, then the owner's alone (no other
     * thread reads it, so it is a plain byte the fast path compares) */
    uint8_t cpu_read;
    /* before publication: its name bounds the trace window (trace.h), so
     * its entries leave the fast path (REC_CPU_READ_COLD) to be counted */
    uint8_t trace_watch;
    /* owner, the adaptive rule (phase.c): reads are off until wall_ns
     * reaches this; UINT64_MAX: never */
    uint64_t cpu_due_ns;
    /* owner, under seq */
    uint64_t count, wall_ns, min_ns, max_ns;
    /* owner: what the node's open entry left for its exit.  A node is open
     * at most once at a time (its place in the stack is its depth in the
     * tree), so this is its one open entry's: thread CPU ns at its start;
     * REC_CPU0_NONE, not read but the exit has work on the cold path
     * (REC_CPU_READ_COLD, a trace window's mark); 0 for neither, the fast
     * exit.  The fast entry leaves it 0, which every exit that finds it
     * otherwise restores, and so does a holder's exit for what it left
     * open (thread.c). */
    uint64_t cpu0;
    /* owner: the adaptive rule, entries that read CPU time */
    uint64_t cpu_reads;
    /* owner: the thread's run delay at the start of the open entry that
     * read CPU time (REC_DELAY_NONE: not read; run_delay.h) */
    uint64_t delay0;
    /* owner: the clock's ticks just before that read: the run delay's
     * window runs from them to the ticks just after the exit's read */
    uint64_t delay_t0;
    /* before publication */
    uint32_t idx;        /* 1.. within its thread: where it is stored */
    uint32_t parent;     /* parent node idx, 0 at top level */
    uint32_t id;         /* unique in the process's log: PHASE_NODE id */
    uint32_t parent_id;  /* the parent's id, 0 at top level */
    uint32_t name;       /* name id */
    uint32_t flags;      /* SCOPE_PHASE_F_* */
    uint32_t file, line; /* name id of the source file, line; 0 when unknown */
    /* owner, under seq */
    uint64_t cpu_count, cpu_wall_ns, cpu_ns;
    /* owner, under seq: of those, the entries whose run delay was read,
     * their wall time and the run delay in it */
    uint64_t delay_count, delay_wall_ns, delay_ns;
    /* owner, under seq: I/O phases (SCOPE_PHASE_F_IO) only */
    uint64_t io_count, io_failed; /* entries read at both ends; entries a read failed */
    uint64_t disk_read, disk_write, char_read, char_write;
    /* owner (relaxed stores, before the entry is published), read by the
     * resource sampler while the entry is open (res_phase_time.c): an I/O
     * phase's thread counters at its open entry's start, own reads left
     * out, in rec_io_counters' order; io_open_ok 0: none read */
    uint64_t io_open_at[4];
    uint8_t io_open_ok;
    /* owner: each pointer stored once (release); its 16 counters added to
     * outside seq, see the writer's snapshot */
    uint64_t *hist[REC_HIST_OCTAVES];
    /* writer: what the last frame held */
    uint64_t w_count;
    uint64_t w_hist_count; /* entries in the histogram last written */
} rec_node;

/* Where d ns is counted in a node's histogram: hist[octave][sub], so that
 * octave * 16 + sub is scope_hist_bucket(d) (log_hist.h).  Worked out from
 * the index of d's top bit directly, without forming the bucket and
 * splitting it again, which spares the exit's fast path two instructions
 * (bench/callgrind.sh; test_hist_place holds the two equal). */
typedef struct rec_hist_slot {
    uint64_t octave, sub; /* 64 bits: indexes, used as they are */
} rec_hist_slot;

static inline rec_hist_slot rec_hist_place(uint64_t d) {
    /* e: the top bit's index, from 4 up; 3 below 16 ns, octave 0 */
    uint64_t e = 3, sub = d;
    if (d >= SCOPE_HIST_SUB) {
        e = 63u ^ (uint64_t)__builtin_clzll(d);
        sub = (d >> (e - SCOPE_HIST_SUB_BITS)) & (SCOPE_HIST_SUB - 1u);
    }
    return (rec_hist_slot){e - 3u, sub};
}

#define REC_CPU0_NONE   UINT64_MAX
#define REC_IDX_DROPPED UINT32_MAX /* the dropped sentinel's idx */
#define REC_CACHE_EMPTY NULL       /* a cache slot's parent before first use */

enum { REC_SATURATED_MAX = 1, REC_SATURATED_MIN = 2 };

/* The name id whose nodes are created trace_watch: the trace window's
 * phase while a window is asked for, else 0.  Written by trace.c. */
extern _Atomic uint32_t rec_trace_watch_name;

typedef struct rec_counter {
    _Atomic uint32_t seq; /* owner */
    /* before publication */
    uint32_t idx;     /* 1.. within its thread: where it is stored */
    uint32_t name;    /* name id */
    uint32_t node;    /* node idx open when counted */
    uint32_t id;      /* unique in the process's log: COUNTER id */
    uint32_t node_id; /* the open node's id, 0 for none */
    /* owner, under seq */
    uint64_t calls;
    int64_t total;             /* held at INT64_MAX or INT64_MIN once it would pass them */
    _Atomic uint8_t saturated; /* owner: REC_SATURATED_* of the last limit the total held at */
    uint64_t w_calls;          /* writer */
    uint8_t w_saturated;       /* writer: the saturated mark is written */
} rec_counter;

/* 16 bytes, so that finding a frame is one shift.  What the entry left
 * for the cold side of its exit is in its node (cpu0). */
typedef struct rec_frame {
    rec_node *node; /* owner (rec_relaxed_store); read by the writer at exit */
    uint64_t t0;    /* owner: ticks */
} rec_frame;

/* A slot of the entry and count caches: the item found last time under
 * that name, and the node it was found under.  The parent is the node
 * itself, not its idx, so a hit is one compare with the frame's node: the
 * dropped sentinel is never a parent, and a node never moves. */
typedef struct rec_cache {
    const struct rec_node *parent;
    void *item; /* rec_node* or rec_counter* */
} rec_cache;

/* The rows of the data-source table (sources.c), in its order.  A thread
 * holds one slot of state for each row that keeps per-thread state
 * (rec_source.thread_size): source_state[row]. */
enum rec_source_row {
    REC_SOURCE_PROCESS,
    REC_SOURCE_NAMES,
    REC_SOURCE_PHASES,
    REC_SOURCE_LINES,
    REC_SOURCE_RESOURCES,
    REC_SOURCE_TRACE,
    REC_SOURCE_MARKS,
    REC_NSOURCES
};

typedef struct rec_thread {
    /* Before publication.  A copy of the clock's settings, next to the rest
     * of what the hot path touches, so reading the clock costs no extra load
     * of a global. */
    uint64_t clock_mult;
    uint8_t clock_tsc;

    /* The registry: pushed at the head, before publication, and never
     * unlinked: a structure is a slot that one thread after another holds
     * (below), so the registry holds at most as many as ran at once. */
    struct rec_thread *next;
    /* before publication: the THREAD record, its first holder's */
    uint32_t index; /* thread index in the log, 1.. */
    pid_t tid;
    uint64_t start_mono_ns;
    char name[16]; /* pthread_getname_np's limit, NUL included */
    int listed;    /* before publication: in the registry */
    int w_defined; /* writer: has written the THREAD record */

    /* Holders.  A thread that exits hands its slot back (its thread-exit
     * destructor): the figures stay, its phase stack empties, and the next
     * thread to attach takes the slot over, adding to the same nodes.  So a
     * process that starts and ends threads for weeks keeps as many slots as
     * it ran threads at once, not one per thread.  `held` is 1 while a
     * thread holds it (release after the holder's fields, 0 at its exit);
     * holder_gen is odd while a new holder's fields are written, for the
     * sampler, which reads them from the writer thread. */
    _Atomic int held;
    _Atomic uint32_t holder_gen;
    pid_t holder_tid;             /* under holder_gen: the holder's OS thread id */
    uint64_t holder_start_ns;     /* under holder_gen: when it took the slot */
    uint32_t fork_gen;            /* the process (fork generation) it was held in */
    struct rec_thread *next_free; /* under the free list's lock */
    /* Holders that exited (release), and of those the phases they left
     * open and the innermost one of the last such (each stored before the
     * count, release): the writer marks them. */
    _Atomic uint64_t exits;
    _Atomic uint64_t exit_open_threads, exit_open_phases;
    _Atomic uint32_t exit_open_node;
    /* writer: those figures as this frame took them (select) and as last
     * written */
    uint64_t w_sel_exits, w_exits;
    uint64_t w_sel_open_threads, w_sel_open_phases, w_open_threads, w_open_phases;
    uint32_t w_sel_open_node;

    /* owner; depth, inherited and each frame's node and t0 are read by the
     * writer for the phases open at each frame (rec_open_copy).  An entry
     * bumps open_gen (rec_open_begin) before it writes its frame and
     * stores the depth last (release), after the frame: a copy of
     * stack[1..depth] that saw open_gen unchanged from before it read the
     * depth to after it read the frames is the stack as it was when that
     * depth was stored.  An exit only lowers the depth, which leaves the
     * frames below it as they were. */
    uint32_t depth;     /* open phases; the k-th is stack[k] while k < REC_MAX_DEPTH */
    uint32_t inherited; /* phases a forked child's parent had open: their ends are expected */
    uint32_t open_gen;  /* entries begun: REC_SEQ_ADD by the owner, rec_seq_load by the writer */
    rec_frame stack[REC_MAX_DEPTH]; /* stack[0] is the root sentinel */
    /* owner: explicit[k] when scope_phase_begin opened stack[k], which
     * scope_phase_end alone may then end; a block's frame (0) is ended only
     * by its block.  Beside the stack, not in it, so that the frames the
     * hot path indexes stay 24 bytes. */
    uint8_t explicit_open[REC_MAX_DEPTH];

    /* owner: chunks written by the owner, published by count (release) */
    rec_node *nodes[REC_MAX_CHUNKS];
    _Atomic uint32_t nnodes;
    rec_counter *counters[REC_MAX_CHUNKS];
    _Atomic uint32_t ncounters;
    uint32_t w_nodes; /* writer: node definitions written so far */
    /* writer: the counts this frame writes, read before anything is
     * written (source_phases.c says in which order, and why) */
    uint32_t w_frame_nodes, w_frame_counters;

    /* owner-only lookup structures */
    rec_cache *phase_cache, *count_cache; /* indexed by name id */
    uint32_t cache_len;
    uint64_t *table; /* open addressing: key (parent << 32 | name) -> kind:idx */
    uint32_t table_mask, table_used;

    /* owner: histogram octave pool, chunks chained through their first word */
    uint64_t *pool;
    uint32_t pool_left;
    uint64_t *pool_chain;

    /* owner: the thread's newest read of its CPU time (ns) and the clock's
     * ticks then (0: none yet), for an unread entry long enough to read at
     * its exit alone (phase.c) */
    uint64_t cpu_seen_ns, cpu_seen_ticks;
    /* owner: one CPU-clock read's share of an entry's CPU window, measured
     * on this thread (cpu_share.h); a slot taken over keeps its estimate,
     * made in the same process on the same machine */
    uint64_t cpu_share_sum;
    uint32_t cpu_share_n, cpu_share_due;
    /* owner: its run delay at that read (REC_DELAY_NONE: not read), and
     * the holder's /proc/thread-self/schedstat (run_delay.c): held, one
     * of the process's few; off, not to be tried again */
    uint64_t delay_seen_ns, delay_seen_ticks;
    rec_fd delay_fd;
    uint8_t delay_held, delay_off;

    /* owner: sentinel nodes.  stack[0] holds the root (idx 0); an entry that
     * could not be recorded holds `dropped` (idx REC_IDX_DROPPED) */
    rec_node root, dropped;

    /* owner: caveats counted on the hot path, reported by the writer */
    _Atomic uint64_t unbalanced_end_empty; /* end with nothing open */
    _Atomic uint64_t dropped_count;        /* entries or counts not recorded */
    uint64_t w_unbalanced, w_dropped;      /* writer: the counts last written */
    /* explicit phases a block closed because they were left open inside
     * it, and the name ids of the last such phase and of its block */
    _Atomic uint64_t left_in_block;
    _Atomic uint32_t left_in_block_name, left_in_block_block;
    uint64_t w_left_in_block; /* writer: the count last written */

    /* Each data source's per-thread state, rec_source.thread_size bytes
     * (NULL for a source that keeps none): allocated zeroed by sources.c
     * before the thread is attached, before publication, and kept with
     * the slot for its next holder.  Whose fields are whose: the source's
     * own header says. */
    void *source_state[REC_NSOURCES];
} rec_thread;

static inline rec_node *rec_node_at(rec_thread *t, uint32_t idx) {
    return &t->nodes[(idx - 1) >> REC_CHUNK_SHIFT][(idx - 1) & (REC_CHUNK - 1)];
}

static inline rec_counter *rec_counter_at(rec_thread *t, uint32_t idx) {
    return &t->counters[(idx - 1) >> REC_CHUNK_SHIFT][(idx - 1) & (REC_CHUNK - 1)];
}

/* The calling thread's state.  A thread that has not recorded yet points at
 * rec_unattached, whose depth sends every call down a slow path, so the fast
 * paths need no NULL test. */
extern __thread rec_thread *rec_self __attribute__((tls_model("initial-exec")));
extern rec_thread rec_unattached;

static inline int rec_attached(const rec_thread *t) {
    return t != &rec_unattached;
}

/* Attaching the calling thread: a slot handed back (rec_thread_take_free)
 * or a new structure with its identity, the recording state the sources set
 * up (rec_thread_init_recording for phases, which leaves a slot's set up),
 * then published in the registry (a new one) as rec_self. */
rec_thread *rec_thread_new(void);
int rec_thread_init_recording(rec_thread *t);
void rec_thread_publish(rec_thread *t);
void rec_thread_discard(rec_thread *t);

/* What the sources give back of a thread's slot (sources.c): called with
 * the program's signals held when its holder exits, and in a forked child
 * for each thread of the parent set aside (rec_threads_fork_child), so that
 * nothing of a thread that is gone (a descriptor naming it) stays open.
 * Set by every attach, before the slot is published. */
void rec_threads_on_exit(void (*give_back)(rec_thread *t));

rec_node *rec_node_lookup(rec_thread *t, const rec_node *parent, uint32_t name,
                          const scope_site *site);
rec_counter *rec_counter_lookup(rec_thread *t, const rec_node *node, uint32_t name);
uint64_t *rec_hist_octave(rec_thread *t, rec_node *n, uint32_t octave);

/* The writer thread's side of the registry. */
rec_thread *rec_threads_head(void);

/* A slot a thread that exited handed back, for the calling thread: its
 * own name's if one is free, else, once REC_THREAD_SLOTS slots were made,
 * the newest handed back.  NULL when none is.  Its holder's fields are the caller's, holder_gen odd
 * until rec_thread_publish: the sources then set it up (thread_attach), as
 * they set up a new one. */
rec_thread *rec_thread_take_free(void);

/* In a forked child's fork handler: sets every thread of the parent aside,
 * untouched.  At the child's first call, rec_thread_forked_self() says
 * whether its thread recorded in the parent; the structure then attached
 * for it takes over what the parent's had open (rec_thread_fork_adopt),
 * before anything is recorded into it. */
void rec_threads_fork_child(void);
int rec_thread_forked_self(void);
void rec_thread_fork_adopt(rec_thread *t);

/* The owner's side of a sequence counter: odd while it updates.  Only the
 * owner writes it, so each side is one add to memory, no atomic
 * read-modify-write (as REC_SEQ_ADD): begin makes it odd, then a release
 * fence orders the fields' stores after it; end's fence orders them before
 * the add that makes it even again.  Built for ThreadSanitizer, both sides
 * are atomic stores (relaxed, then release), as REC_SEQ_* are there. */
#if defined(__SANITIZE_THREAD__)
static inline void rec_seq_begin(_Atomic uint32_t *seq) {
    atomic_store_explicit(seq, atomic_load_explicit(seq, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static inline void rec_seq_end(_Atomic uint32_t *seq) {
    atomic_store_explicit(seq, atomic_load_explicit(seq, memory_order_relaxed) + 1,
                          memory_order_release);
}
#else
static inline void rec_seq_begin(_Atomic uint32_t *seq) {
    *(uint32_t *)seq += 1;
    rec_seq_fence(memory_order_release);
}

static inline void rec_seq_end(_Atomic uint32_t *seq) {
    rec_seq_fence(memory_order_release);
    *(uint32_t *)seq += 1;
}
#endif

/* The owner's side of the open stack's generation: before an entry writes
 * its frame.  One add to memory, no atomic read-modify-write: the owner is
 * its only writer.  The fence orders the frame's stores after it for a
 * writer whose copy saw any of them (a compiler barrier on x86). */
static inline void rec_open_begin(rec_thread *t) {
    REC_SEQ_ADD(t->open_gen, 1);
    rec_seq_fence(memory_order_release);
}

/* The depth with the entry's frame written: the release makes the frame
 * visible to a writer that loads this depth with acquire. */
static inline void rec_open_publish(rec_thread *t, uint32_t depth) {
    __atomic_store_n(&t->depth, depth, __ATOMIC_RELEASE);
}

/* The reader's side: copy(from, to) under the counter, retried while the
 * owner updates.  Returns 0 when the owner stayed inside one update (stopped
 * there by a signal, say), unless stuck_ok: then the values are copied as
 * they are.  copy must read the guarded fields with rec_seq_load. */
int rec_seq_read(_Atomic uint32_t *seq, void (*copy)(const void *from, void *to), const void *from,
                 void *to, int stuck_ok);

#endif
