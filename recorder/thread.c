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

#include "clock.h"
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

rec_thread rec_unattached = {.depth = REC_MAX_DEPTH};
__thread rec_thread *rec_self __attribute__((tls_model("initial-exec"))) = &rec_unattached;
__thread int rec_creating_own_thread __attribute__((tls_model("initial-exec")));

static _Atomic(rec_thread *) threads_head;
static _Atomic uint32_t thread_count;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

#define KIND_COUNTER (1u << 31) /* names stay below 2^20, so bit 31 is free */
#define POOL_WORDS   8192u      /* 64 KiB of histogram octaves per pool chunk */

static_assert(KIND_COUNTER > REC_MAX_NAMES, "the counter mark must lie above every name id");

/* The descriptor of a thread's own I/O counters: it names the thread it
 * was opened by, so it goes when the thread does, and a forked child's
 * copy (the parent's thread) is dropped. */
static void io_close(rec_thread *t) {
    if (t->io && t->io->fd >= 0) {
        close(t->io->fd);
        t->io->fd = -1;
    }
}

static void on_thread_exit(void *arg) {
    rec_thread *t = arg;
    io_close(t);
    free(t->io);
    t->io = NULL;
    atomic_store_explicit(&t->exited, 1, memory_order_release);
    rec_self = &rec_unattached;
}

static void make_exit_key(void) {
    (void)pthread_key_create(&exit_key, on_thread_exit);
}

rec_thread *rec_threads_head(void) {
    return atomic_load_explicit(&threads_head, memory_order_acquire);
}

static int cache_cover(rec_thread *t, uint32_t name);

/* The sentinels and an empty cache, so the hot path tests nothing twice. */
int rec_thread_init_recording(rec_thread *t) {
    memset(&t->root, 0, sizeof t->root);
    memset(&t->dropped, 0, sizeof t->dropped);
    t->dropped.idx = REC_IDX_DROPPED;
    t->root.min_ns = t->dropped.min_ns = UINT64_MAX;
    t->stack[0] = (rec_frame){&t->root, 0, 0};
    t->clock_tsc = (uint8_t)rec_clk.use_tsc;
    t->clock_mult = rec_clk.mult;
    t->depth = 0;
    return cache_cover(t, 63);
}

static void init_identity(rec_thread *t) {
    t->index = atomic_fetch_add(&thread_count, 1) + 1;
    t->tid = (pid_t)syscall(SYS_gettid);
    t->start_mono_ns = rec_mono_ns();
    /* pthread_getname_np fails with ERANGE on a buffer under 16 bytes. */
    static_assert(sizeof t->name >= 16, "a thread name takes up to 16 bytes");
    if (pthread_getname_np(pthread_self(), t->name, sizeof t->name) != 0)
        t->name[0] = '\0';
}

rec_thread *rec_thread_new(void) {
    rec_thread *t = calloc(1, sizeof *t);
    if (t)
        init_identity(t);
    return t;
}

void rec_thread_discard(rec_thread *t) {
    rec_thread_free_nodes(t);
    free(t);
}

void rec_thread_publish(rec_thread *t) {
    pthread_once(&exit_key_once, make_exit_key);
    (void)pthread_setspecific(exit_key, t);
    rec_thread *old = atomic_load_explicit(&threads_head, memory_order_relaxed);
    do
        t->next = old;
    while (!atomic_compare_exchange_weak_explicit(&threads_head, &old, t, memory_order_release,
                                                  memory_order_relaxed));
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
    table_slot *fresh = calloc(cap, sizeof *fresh);
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
    free(old);
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
    uint32_t len = t->cache_len ? t->cache_len : 64;
    while (len <= name)
        len *= 2;
    rec_cache *p = realloc(t->phase_cache, len * sizeof *p);
    if (!p)
        return -1;
    t->phase_cache = p;
    rec_cache *c = realloc(t->count_cache, len * sizeof *c);
    if (!c)
        return -1;
    t->count_cache = c;
    for (uint32_t i = t->cache_len; i < len; i++)
        p[i] = c[i] = (rec_cache){REC_CACHE_EMPTY, NULL};
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
    if (!a.chunks[c] && !(a.chunks[c] = calloc(REC_CHUNK, a.size)))
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
    assert(name > 0 && name < REC_MAX_NAMES);
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
        atomic_init(&n->cpu_read, (rec_hot.cpu_mode != REC_CPU_OFF ? REC_CPU_READ_ON : 0) |
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
    t->phase_cache[name] = (rec_cache){parent, n};
    return n;
}

rec_counter *rec_counter_lookup(rec_thread *t, const rec_node *pnode, uint32_t name) {
    assert(name > 0 && name < REC_MAX_NAMES);
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
    t->count_cache[name] = (rec_cache){node, c};
    return c;
}

/* The 16 counters of one histogram octave, carved from a per-thread pool.
 * Published with release so the writer sees zeroed counters, not garbage. */
uint64_t *rec_hist_octave(rec_thread *t, rec_node *n, uint32_t octave) {
    assert(octave < REC_HIST_OCTAVES);
    if (t->pool_left < 16) {
        uint64_t *chunk = calloc(POOL_WORDS, sizeof *chunk);
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

/* ---- teardown (fork child, retired threads) -------------------------------- */

void rec_thread_free_nodes(rec_thread *t) {
    for (uint32_t c = 0; c < REC_MAX_CHUNKS && (t->nodes[c] || t->counters[c]); c++) {
        free(t->nodes[c]);
        free(t->counters[c]);
        t->nodes[c] = NULL;
        t->counters[c] = NULL;
    }
    while (t->pool_chain) {
        uint64_t *next = (uint64_t *)(uintptr_t)t->pool_chain[0];
        free(t->pool_chain);
        t->pool_chain = next;
    }
    t->pool = NULL;
    t->pool_left = 0;
    /* the sentinels' octaves came from the pool just freed */
    memset(t->root.hist, 0, sizeof t->root.hist);
    memset(t->dropped.hist, 0, sizeof t->dropped.hist);
    free(t->table);
    free(t->phase_cache);
    free(t->count_cache);
    t->table = NULL;
    t->phase_cache = t->count_cache = NULL;
    t->table_mask = t->table_used = t->cache_len = 0;
    atomic_store(&t->nnodes, 0);
    atomic_store(&t->ncounters, 0);
    t->w_nodes = 0;
}

/* Frees the structures of threads the writer has retired (exited and fully
 * written), so a program that churns through short-lived threads does not
 * grow.  Only the writer thread unlinks, and new threads only ever replace
 * the head, so the only race is with a push at the head, which the
 * compare-and-swap settles. */
void rec_thread_unlink_retired(void) {
    rec_thread *prev = NULL, *t = atomic_load_explicit(&threads_head, memory_order_acquire);
    while (t) {
        rec_thread *next = t->next;
        if (!atomic_load_explicit(&t->retired, memory_order_acquire)) {
            prev = t;
        } else if (prev) {
            prev->next = next;
            free(t);
        } else {
            rec_thread *expect = t;
            if (atomic_compare_exchange_strong(&threads_head, &expect, next)) {
                free(t);
            } else {
                /* a thread was pushed in front: t now has a predecessor */
                rec_thread *p = expect;
                while (p->next != t)
                    p = p->next;
                p->next = next;
                free(t);
                prev = p;
            }
        }
        t = next;
    }
}

/* ---- fork ---------------------------------------------------------------------- */

/* Threads of the parent that do not exist in a forked child.  Their state
 * was arbitrary at the fork (one may have been inside free()), so the child
 * never frees it: it is kept here, reachable, and never used again. */
static rec_thread *fork_graveyard;
/* The forking thread's structure, kept for the child's first call. */
static rec_thread *fork_survivor;

/* The calling thread is the only one left.  The others are set aside
 * untouched, and the survivor starts over with an empty tree and a clean
 * phase stack; the phases its parent had open are expected to end. */
void rec_threads_fork_child(void) {
    rec_thread *keep = rec_attached(rec_self) ? rec_self : NULL;
    /* Unattached before its nodes are freed: the line sampler's handler
     * reads the thread's innermost node, and a child that samples on is
     * armed by a fork handler that may run before this one. */
    rec_self = &rec_unattached;
    atomic_signal_fence(memory_order_seq_cst);
    rec_thread *t = atomic_load(&threads_head);
    while (t) {
        rec_thread *next = t->next;
        io_close(t);
        if (t != keep) {
            t->next = fork_graveyard;
            fork_graveyard = t;
        }
        t = next;
    }
    atomic_store(&thread_count, 0);
    atomic_store(&threads_head, keep);
    atomic_store(&next_node_id, 0);
    atomic_store(&next_counter_id, 0);
    if (keep) {
        uint32_t open = keep->depth;
        keep->next = NULL;
        rec_thread_free_nodes(keep);
        memset(keep->stack, 0, sizeof keep->stack);
        memset(keep->explicit_open, 0, sizeof keep->explicit_open);
        memset(keep->trace_mark, 0, sizeof keep->trace_mark);
        rec_thread_init_recording(keep);
        keep->inherited = open;
        keep->w_defined = 0;
        keep->w_unbalanced = keep->w_dropped = 0;
        atomic_store(&keep->unbalanced_end_empty, 0);
        keep->w_left_in_block = 0;
        atomic_store(&keep->left_in_block, 0);
        atomic_store(&keep->dropped_count, 0);
        atomic_store(&keep->exited, 0);
        atomic_store(&keep->retired, 0);
        /* The kernel starts a child's I/O counters at 0: they are its
         * counters at the fork, which starts its first sampled interval. */
        atomic_store(&keep->io_own, 0);
        atomic_store(&keep->io_own_written, 0);
        memset(&keep->attach_io, 0, sizeof keep->attach_io);
        keep->attach_io_ok = 1;
        init_identity(keep);
    }
    fork_survivor = keep;
}

rec_thread *rec_thread_survivor(void) {
    return fork_survivor;
}

void rec_thread_adopt_survivor(void) {
    if (fork_survivor) {
        rec_self = fork_survivor;
        fork_survivor = NULL;
    }
}
