/*
 * Per-thread recording state (thread.h): attaching a thread, finding and
 * creating its nodes and counters, the registry the writer thread walks, and
 * the reader's side of the sequence counters.
 *
 * Nodes and counters live in chunks that never move, published by a count
 * the writer thread reads with acquire semantics, so the writer can read
 * them while the owner adds more.  The lookup table and caches are the
 * owner's alone and may be reallocated.  Everything is allocated on first
 * use of a (parent, name) pair: warm-up; a steady loop allocates nothing.
 */
#define _GNU_SOURCE /* gettid, pthread_getname_np */
#include "thread.h"

#include "alloc.h"
#include "clock.h"
#include "config.h"
#include "lock.h"

#include <pthread.h>
#include <sched.h>
#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

rec_thread rec_unattached = {.depth = REC_MAX_DEPTH};
__thread rec_thread *rec_self __attribute__((tls_model("initial-exec"))) = &rec_unattached;

static _Atomic(rec_thread *) threads_head;
static _Atomic uint32_t thread_count;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* Slots handed back by threads that exited, newest first (next_free). */
static rec_lock free_lock = REC_LOCK_INIT;
static rec_thread *free_slots;
/* Which process a slot was held in: a forked child's is one more than its
 * parent's, so that its thread, exiting, leaves its parent's slot alone. */
static uint32_t fork_gen;

#define KIND_COUNTER (1u << 31) /* name ids stay far below, so bit 31 is free */
#define POOL_WORDS   8192u      /* 64 KiB of histogram octaves per pool chunk */

static_assert(KIND_COUNTER > REC_NAME_LIMIT, "the counter mark must lie above every name id");

/* The sources' side of a thread that is gone (rec_threads_on_exit): set by
 * every attach, read by exiting threads, so atomic. */
typedef void (*give_back_fn)(rec_thread *t);
static _Atomic(give_back_fn) give_back;

void rec_threads_on_exit(void (*fn)(rec_thread *t)) {
    atomic_store_explicit(&give_back, fn, memory_order_relaxed);
}

static void give_back_thread(rec_thread *t) {
    give_back_fn fn = atomic_load_explicit(&give_back, memory_order_relaxed);
    if (fn)
        fn(t);
}

/* What the exiting holder left open, for the writer to mark (thread.h). */
static void note_left_open(rec_thread *t) {
    uint32_t depth = t->depth < REC_MAX_DEPTH ? t->depth : REC_MAX_DEPTH - 1;
    if (depth <= t->inherited)
        return;
    const rec_node *top = t->stack[depth].node;
    atomic_store_explicit(&t->exit_open_node, top ? top->id : 0, memory_order_release);
    atomic_fetch_add_explicit(&t->exit_open_phases, depth - t->inherited, memory_order_release);
    atomic_fetch_add_explicit(&t->exit_open_threads, 1, memory_order_release);
}

/* The phases the exiting holder left open will not end: what their entries
 * left for their exits (rec_node.cpu0) goes, so that the next holder's
 * entries of those nodes start clean. */
static void clear_open_entries(rec_thread *t) {
    uint32_t depth = t->depth < REC_MAX_DEPTH ? t->depth : REC_MAX_DEPTH - 1;
    for (uint32_t k = 1; k <= depth; k++)
        t->stack[k].node->cpu0 = 0;
}

/* The thread-exit destructor: the thread hands its slot back, its figures
 * kept, its phase stack empty for the next holder. */
static void on_thread_exit(void *arg) {
    rec_thread *t = arg;
    /* Off the slot first: the line sampler's handler reads the innermost
     * node of the calling thread's slot. */
    rec_self = &rec_unattached;
    atomic_signal_fence(memory_order_seq_cst);
    if (t->fork_gen != fork_gen)
        return; /* its parent's, set aside in this forked child */
    sigset_t sigs;
    rec_signals_hold(&sigs);
    give_back_thread(t);
    note_left_open(t);
    clear_open_entries(t);
    rec_open_begin(t);
    memset(t->explicit_open, 0, sizeof t->explicit_open);
    rec_relaxed_store(&t->inherited, 0);
    rec_open_publish(t, 0);
    atomic_fetch_add_explicit(&t->exits, 1, memory_order_release);
    atomic_store_explicit(&t->held, 0, memory_order_release);
    rec_lock_take(&free_lock);
    t->next_free = free_slots;
    free_slots = t;
    rec_lock_give(&free_lock);
    rec_signals_release(&sigs);
}

static void make_exit_key(void) {
    (void)pthread_key_create(&exit_key, on_thread_exit);
}

rec_thread *rec_threads_head(void) {
    return atomic_load_explicit(&threads_head, memory_order_acquire);
}

static int cache_cover(rec_thread *t, uint32_t name);

/* The sentinels and an empty cache, so the hot path tests nothing twice.
 * A slot taken over has them already, and keeps them. */
int rec_thread_init_recording(rec_thread *t) {
    if (t->cache_len)
        return 0;
    memset(&t->root, 0, sizeof t->root);
    memset(&t->dropped, 0, sizeof t->dropped);
    t->dropped.idx = REC_IDX_DROPPED;
    t->root.min_ns = t->dropped.min_ns = UINT64_MAX;
    t->stack[0] = (rec_frame){&t->root, 0};
    t->clock_tsc = (uint8_t)rec_clk.use_tsc;
    t->clock_mult = rec_clk.mult;
    t->depth = 0;
    return cache_cover(t, 63);
}

static pid_t self_tid(void) {
    return (pid_t)syscall(SYS_gettid);
}

static void self_name(char name[16]) {
    /* pthread_getname_np fails with ERANGE on a buffer under 16 bytes. */
    if (pthread_getname_np(pthread_self(), name, 16) != 0)
        name[0] = '\0';
}

/* The calling thread as the slot's holder (holder_gen odd meanwhile). */
static void begin_holder(rec_thread *t) {
    atomic_fetch_add_explicit(&t->holder_gen, 1, memory_order_relaxed);
    rec_seq_fence(memory_order_release);
    rec_relaxed_store(&t->holder_tid, self_tid());
    rec_relaxed_store(&t->holder_start_ns, rec_mono_ns());
    t->fork_gen = fork_gen;
}

rec_thread *rec_thread_new(void) {
    rec_thread *t = rec_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    static_assert(sizeof t->name >= 16, "a thread name takes up to 16 bytes");
    t->index = atomic_fetch_add(&thread_count, 1) + 1;
    t->tid = self_tid();
    t->start_mono_ns = rec_mono_ns();
    self_name(t->name);
    begin_holder(t);
    rec_relaxed_store(&t->holder_tid, t->tid);
    rec_relaxed_store(&t->holder_start_ns, t->start_mono_ns);
    return t;
}

rec_thread *rec_thread_take_free(void) {
    char name[16];
    self_name(name);
    rec_lock_take(&free_lock);
    /* One of its own name's, so that a thread's figures stay apart from
     * other kinds' in the log; past REC_THREAD_SLOTS slots, any. */
    rec_thread **pick = NULL;
    for (rec_thread **p = &free_slots; *p && !pick; p = &(*p)->next_free)
        if (!strcmp((*p)->name, name))
            pick = p;
    if (!pick && free_slots &&
        atomic_load_explicit(&thread_count, memory_order_relaxed) >= REC_THREAD_SLOTS)
        pick = &free_slots;
    rec_thread *t = pick ? *pick : NULL;
    if (t) {
        *pick = t->next_free;
        t->next_free = NULL;
    }
    rec_lock_give(&free_lock);
    if (t)
        begin_holder(t);
    return t;
}

static void free_nodes(rec_thread *t);

void rec_thread_discard(rec_thread *t) {
    free_nodes(t);
    for (unsigned i = 0; i < REC_NSOURCES; i++)
        rec_free(t->source_state[i]);
    rec_free(t);
}

/* A new slot goes into the registry; a slot taken over is there already. */
void rec_thread_publish(rec_thread *t) {
    pthread_once(&exit_key_once, make_exit_key);
    (void)pthread_setspecific(exit_key, t);
    if (!t->listed) {
        t->listed = 1;
        rec_thread *old = atomic_load_explicit(&threads_head, memory_order_relaxed);
        do
            t->next = old;
        while (!atomic_compare_exchange_weak_explicit(&threads_head, &old, t, memory_order_release,
                                                      memory_order_relaxed));
    }
    atomic_fetch_add_explicit(&t->holder_gen, 1, memory_order_release);
    atomic_store_explicit(&t->held, 1, memory_order_release);
    rec_self = t;
}

/* ---- lookup ---------------------------------------------------------------- */

typedef struct table_slot {
    uint64_t key; /* parent << 32 | kind | name; 0 = empty (name ids start at 1) */
    uint32_t idx;
} table_slot;

static uint32_t hash_key(uint64_t key) {
    key *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(key >> 32);
}

static int table_grow(rec_thread *t) {
    uint32_t cap = t->table ? (t->table_mask + 1) * 2 : 64;
    table_slot *fresh = rec_calloc(cap, sizeof *fresh);
    if (!fresh)
        return -1;
    table_slot *old = (table_slot *)t->table;
    for (uint32_t i = 0; old && i <= t->table_mask; i++) {
        if (!old[i].key)
            continue;
        uint32_t j = hash_key(old[i].key) & (cap - 1);
        while (fresh[j].key)
            j = (j + 1) & (cap - 1);
        fresh[j] = old[i];
    }
    rec_free(old);
    t->table = (uint64_t *)fresh;
    t->table_mask = cap - 1;
    return 0;
}

/* Finds key; on a miss returns 0 with *slot the empty slot to fill. */
static uint32_t table_find(rec_thread *t, uint64_t key, table_slot **slot) {
    if (!t->table || (t->table_used + 1) * 2 > t->table_mask + 1) {
        if (table_grow(t) < 0) {
            *slot = NULL;
            return 0;
        }
    }
    table_slot *tab = (table_slot *)t->table;
    for (uint32_t i = hash_key(key) & t->table_mask;; i = (i + 1) & t->table_mask) {
        if (tab[i].key == key)
            return tab[i].idx;
        if (!tab[i].key) {
            *slot = &tab[i];
            return 0;
        }
    }
}

static int cache_cover(rec_thread *t, uint32_t name) {
    if (name < t->cache_len)
        return 0;
    /* Both caches grow by the one rule to the same length, through the
     * allocator that holds the program's signals off (alloc.h). */
    uint32_t len = t->cache_len, count_len = t->cache_len;
    if (SCOPE_VEC_RESERVE_WITH(t->phase_cache, len, (size_t)name + 1, rec_realloc) < 0 ||
        SCOPE_VEC_RESERVE_WITH(t->count_cache, count_len, (size_t)name + 1, rec_realloc) < 0)
        return -1;
    for (uint32_t i = t->cache_len; i < len; i++)
        t->phase_cache[i] = t->count_cache[i] = (rec_cache){REC_CACHE_EMPTY, NULL};
    t->cache_len = len;
    return 0;
}

/* A chunked array of nodes or counters, and the count that publishes it. */
typedef struct chunked {
    void **chunks;
    _Atomic uint32_t *count;
    size_t size;
} chunked;

static void *chunked_at(chunked a, uint32_t idx) {
    return (char *)a.chunks[(idx - 1) >> REC_CHUNK_SHIFT] +
           (size_t)((idx - 1) & (REC_CHUNK - 1)) * a.size;
}

/* The element stored under key in the owner's table, or a new zeroed one
 * (*fresh set) for the caller to fill in and publish with publish_new.
 * NULL when the table, the chunk or the per-thread limit fails: then the
 * entry or count is dropped, and counted. */
static void *find_or_add(rec_thread *t, uint32_t name, uint64_t key, chunked a, uint32_t *idx,
                         int *fresh) {
    *fresh = 0;
    if (cache_cover(t, name) < 0)
        goto fail;
    table_slot *slot = NULL;
    if ((*idx = table_find(t, key, &slot)))
        return chunked_at(a, *idx);
    if (!slot)
        goto fail;
    uint32_t n = atomic_load_explicit(a.count, memory_order_relaxed);
    uint32_t c = n >> REC_CHUNK_SHIFT;
    if (c >= REC_MAX_CHUNKS)
        goto fail;
    if (!a.chunks[c] && !(a.chunks[c] = rec_calloc(REC_CHUNK, a.size)))
        goto fail;
    *idx = n + 1;
    slot->key = key;
    slot->idx = *idx;
    t->table_used++;
    *fresh = 1;
    return chunked_at(a, *idx);
fail:
    atomic_fetch_add_explicit(&t->dropped_count, 1, memory_order_relaxed);
    return NULL;
}

/* Makes a filled-in new element visible to the writer thread. */
static void publish_new(chunked a, uint32_t idx) {
    atomic_store_explicit(a.count, idx, memory_order_release);
}

/* Ids in the log are per process (file), not per thread: nodes and counters
 * of all threads draw from these. */
static _Atomic uint32_t next_node_id, next_counter_id;

_Atomic uint32_t rec_trace_watch_name;

rec_node *rec_node_lookup(rec_thread *t, const rec_node *pnode, uint32_t name,
                          const scope_site *site) {
    assert(name > 0 && name <= REC_NAME_LIMIT);
    uint32_t parent = pnode->idx, idx;
    int fresh;
    chunked a = {(void **)t->nodes, &t->nnodes, sizeof(rec_node)};
    rec_node *n = find_or_add(t, name, (uint64_t)parent << 32 | name, a, &idx, &fresh);
    if (!n)
        return NULL;
    if (fresh) {
        n->idx = idx;
        n->parent = parent;
        n->id = atomic_fetch_add(&next_node_id, 1) + 1;
        n->parent_id = pnode->id;
        n->name = name;
        n->min_ns = UINT64_MAX;
        if (site)
            n->flags = (site->flags & SCOPE_SITE_IO ? SCOPE_PHASE_F_IO : 0) |
                       (site->flags & SCOPE_SITE_SYNC ? SCOPE_PHASE_F_SYNC : 0);
        n->trace_watch = name == atomic_load_explicit(&rec_trace_watch_name, memory_order_relaxed);
        n->cpu_read = (uint8_t)((rec_hot.cpu_mode != REC_CPU_OFF ? REC_CPU_READ_ON : 0) |
                                (t->clock_tsc ? 0 : REC_CPU_READ_CLOCK) |
                                (n->flags || n->trace_watch ? REC_CPU_READ_COLD : 0));
        n->cpu_due_ns = UINT64_MAX;
        if (site) {
            /* threads meeting a site together may each register it: each
             * stores the same id (names.c) */
            n->file = __atomic_load_n(&site->file_id, __ATOMIC_RELAXED);
            n->line = site->line;
        }
        publish_new(a, idx);
    }
    t->phase_cache[name] = (rec_cache){pnode, n};
    return n;
}

rec_counter *rec_counter_lookup(rec_thread *t, const rec_node *pnode, uint32_t name) {
    assert(name > 0 && name <= REC_NAME_LIMIT);
    uint32_t node = pnode->idx, idx;
    int fresh;
    chunked a = {(void **)t->counters, &t->ncounters, sizeof(rec_counter)};
    rec_counter *c =
        find_or_add(t, name, (uint64_t)node << 32 | KIND_COUNTER | name, a, &idx, &fresh);
    if (!c)
        return NULL;
    if (fresh) {
        c->idx = idx;
        c->name = name;
        c->node = node;
        c->id = atomic_fetch_add(&next_counter_id, 1) + 1;
        c->node_id = pnode->id;
        publish_new(a, idx);
    }
    t->count_cache[name] = (rec_cache){pnode, c};
    return c;
}

/* The 16 counters of one histogram octave, carved from a per-thread pool.
 * Published with release so the writer sees zeroed counters, not garbage. */
uint64_t *rec_hist_octave(rec_thread *t, rec_node *n, uint32_t octave) {
    assert(octave < REC_HIST_OCTAVES);
    if (t->pool_left < 16) {
        uint64_t *chunk = rec_calloc(POOL_WORDS, sizeof *chunk);
        if (!chunk)
            return NULL;
        chunk[0] = (uint64_t)(uintptr_t)t->pool_chain; /* for freeing */
        t->pool_chain = chunk;
        t->pool = chunk + 16; /* keep octaves 128-byte aligned past the link */
        t->pool_left = POOL_WORDS - 16;
    }
    uint64_t *oct = t->pool;
    t->pool += 16;
    t->pool_left -= 16;
    __atomic_store_n(&n->hist[octave], oct, __ATOMIC_RELEASE);
    return oct;
}

/* ---- the reader's side of a sequence counter ---------------------------------- */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

int rec_seq_read(_Atomic uint32_t *seq, void (*copy)(const void *from, void *to), const void *from,
                 void *to, int stuck_ok) {
    for (int tries = 0; tries < 100000; tries++) {
        uint32_t s1 = atomic_load_explicit(seq, memory_order_acquire);
        if (s1 & 1) {
            /* The owner is inside an update.  It may be off its CPU, even
             * waiting for this one: spin briefly, then give the CPU away. */
            if (tries % 64 == 63)
                sched_yield();
            else
                cpu_relax();
            continue;
        }
        copy(from, to);
        rec_seq_fence(memory_order_acquire);
        if (atomic_load_explicit(seq, memory_order_relaxed) == s1)
            return 1;
    }
    if (!stuck_ok)
        return 0;
    copy(from, to);
    return 1;
}

/* ---- teardown (a slot never published) ------------------------------------- */

static void free_nodes(rec_thread *t) {
    for (uint32_t c = 0; c < REC_MAX_CHUNKS && (t->nodes[c] || t->counters[c]); c++) {
        rec_free(t->nodes[c]);
        rec_free(t->counters[c]);
    }
    while (t->pool_chain) {
        uint64_t *next = (uint64_t *)(uintptr_t)t->pool_chain[0];
        rec_free(t->pool_chain);
        t->pool_chain = next;
    }
    rec_free(t->table);
    rec_free(t->phase_cache);
    rec_free(t->count_cache);
}

/* ---- fork ---------------------------------------------------------------------- */

/* Threads of the parent, the forking one included, as a forked child found
 * them.  Their state may be half changed (the forking thread may have been
 * stopped inside the recorder by the signal handler that forked), so the
 * child never reads, writes or frees them: they are kept here, reachable,
 * and never used again.  A child that forks again chains its own. */
static rec_thread *fork_graveyard;
/* What the child's first call carries over from the forking thread: the
 * phases it had open, whose ends are expected, and when the fork was. */
static struct {
    int recorded;
    uint32_t depth;
    uint64_t mono_ns;
} fork_self;

/* The fork handler's part, kept small: a child that exits at once pays for
 * nothing else.  The calling thread is the only one left; its recording
 * starts over in a new structure at its first call (rec_thread_fork_adopt). */
void rec_threads_fork_child(void) {
    rec_thread *self = rec_attached(rec_self) ? rec_self : NULL;
    /* Unattached first: the line sampler's handler reads the thread's
     * innermost node, and a child that samples on is armed by a fork
     * handler that may run before this one. */
    rec_self = &rec_unattached;
    atomic_signal_fence(memory_order_seq_cst);
    fork_self.recorded = self != NULL;
    fork_self.depth = self ? rec_relaxed_load(&self->depth) : 0;
    fork_self.mono_ns = rec_mono_ns();
    rec_thread *head = atomic_load(&threads_head), *last = NULL;
    for (rec_thread *t = head; t; t = t->next) {
        /* The child's copies of the parent's threads' descriptors, closed
         * only while they are still the recorder's (own_fd.h). */
        give_back_thread(t);
        last = t;
    }
    if (last) {
        last->next = fork_graveyard;
        fork_graveyard = head;
    }
    atomic_store(&thread_count, 0);
    atomic_store(&threads_head, NULL);
    atomic_store(&next_node_id, 0);
    atomic_store(&next_counter_id, 0);
    /* The free slots are the parent's too. */
    free_slots = NULL;
    rec_lock_reset(&free_lock);
    fork_gen++;
}

int rec_thread_forked_self(void) {
    return fork_self.recorded;
}

/* t, just attached on the child's one thread, continues the forking
 * thread: the phases its parent had open are expected to end. */
void rec_thread_fork_adopt(rec_thread *t) {
    rec_relaxed_store(&t->inherited, fork_self.depth);
    t->start_mono_ns = fork_self.mono_ns;
    rec_relaxed_store(&t->holder_start_ns, fork_self.mono_ns);
    fork_self.recorded = 0;
}
