/*
 * The line sampler's memory (lines_store.h): draining the rings, the module
 * list, interning stacks and counting them per (thread, phase node).
 */
#define _GNU_SOURCE
#include "lines_store.h"

#include "clock.h"
#include "sampler.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- a map from 64-bit keys to 32-bit values -------------------------------- */

typedef struct map_slot {
    uint64_t key; /* stored + 1: 0 marks an empty slot */
    uint32_t val;
} map_slot;

typedef struct map {
    map_slot *slots;
    uint32_t mask, used;
} map;

static uint32_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (uint32_t)k;
}

static int map_grow(map *m) {
    uint32_t cap = m->slots ? (m->mask + 1) * 2 : 256;
    map_slot *fresh = calloc(cap, sizeof *fresh);
    if (!fresh)
        return -1;
    for (uint32_t i = 0; m->slots && i <= m->mask; i++) {
        if (!m->slots[i].key)
            continue;
        uint32_t j = mix(m->slots[i].key) & (cap - 1);
        while (fresh[j].key)
            j = (j + 1) & (cap - 1);
        fresh[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = fresh;
    m->mask = cap - 1;
    return 0;
}

/* The slot of key: found (its key set) or the empty one to fill; NULL
 * when the map cannot grow. */
static map_slot *map_find(map *m, uint64_t key) {
    if ((!m->slots || (m->used + 1) * 2 > m->mask + 1) && map_grow(m) < 0)
        return NULL;
    key++;
    for (uint32_t i = mix(key) & m->mask;; i = (i + 1) & m->mask)
        if (m->slots[i].key == key || !m->slots[i].key)
            return &m->slots[i];
}

static void map_put(map *m, map_slot *s, uint64_t key, uint32_t val) {
    s->key = key + 1;
    s->val = val;
    m->used++;
}

static void map_clear(map *m) {
    free(m->slots);
    *m = (map){0};
}

/* ---- modules ---------------------------------------------------------------- */

typedef struct module {
    scope_rec_module rec;
    int alive;
} module;

#define STACK_CHUNK 1024u
#define FRAME_CHUNK 65536u

/* The store's state, one place to read and to clear.  The two lists that
 * grow by realloc (the walk's `founds`, the count groups) stay beside it
 * until they move to the growth helper. */
static struct lines_store_state {
    /* the modules */
    module *modules[REC_LINES_MAX_MODULES + 1]; /* by id */
    _Atomic uint32_t nmodules;
    unsigned long long seen_adds, seen_subs;
    int modules_listed;
    pthread_mutex_t refresh_mu; /* the walk in progress (founds) */
    uint32_t last_module;
    /* the interned stacks */
    scope_rec_stack *stack_chunks[REC_LINES_MAX_STACKS / STACK_CHUNK];
    _Atomic uint32_t nstacks;
    scope_frame_addr *frame_pool;
    uint32_t frame_pool_left, frames_total;
    map stack_map;        /* hash of the frames -> first stack id of that hash (chained below) */
    uint32_t *stack_next; /* by id: the next stack of the same hash */
    /* the counts per (thread, node) */
    uint32_t ncounts;
    map group_map; /* thread << 32 | node -> group index */
    map count_map; /* group index << 32 | stack -> index in the group */
    /* draining */
    rec_lines_totals totals;
} store = {.refresh_mu = PTHREAD_MUTEX_INITIALIZER};

uint32_t rec_lines_store_nmodules(void) {
    return atomic_load_explicit(&store.nmodules, memory_order_acquire);
}

const scope_rec_module *rec_lines_store_module(uint32_t id) {
    return id && id <= rec_lines_store_nmodules() ? &store.modules[id]->rec : NULL;
}

/* The GNU build-id note of a mapped module, read from its PT_NOTE
 * segments in memory. */
static scope_bytes build_id_of(const struct dl_phdr_info *info) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        size_t align = ph->p_align == 8 ? 8 : 4;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof *n;
            const uint8_t *desc = name + ((n->n_namesz + align - 1) & ~(align - 1));
            if (desc + n->n_descsz > end)
                break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4))
                return (scope_bytes){desc, n->n_descsz};
            p = desc + ((n->n_descsz + align - 1) & ~(align - 1));
        }
    }
    return (scope_bytes){NULL, 0};
}

static const char *exe_path(void) {
    static char path[4096];
    if (!path[0]) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        path[n > 0 ? n : 0] = '\0';
    }
    return path;
}

/* A module as the loader lists it, copied while the list is walked. */
typedef struct found {
    char *path;
    uint8_t *build_id;
    size_t build_id_len;
    uint64_t base, size;
} found;

/* Under refresh_mu: the walk in progress. */
static found *founds;
static uint32_t nfound, found_cap;

static int collect(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    (void)arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        if (ph->p_vaddr < lo)
            lo = ph->p_vaddr;
        if (ph->p_vaddr + ph->p_memsz > hi)
            hi = ph->p_vaddr + ph->p_memsz;
    }
    if (lo >= hi)
        return 0;
    lo &= ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
    if (SCOPE_VEC_RESERVE(founds, found_cap, (size_t)nfound + 1) < 0)
        return 1;
    const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : exe_path();
    scope_bytes bid = build_id_of(info);
    found *f = &founds[nfound];
    *f = (found){strdup(path), bid.len ? malloc(bid.len) : NULL, bid.len, info->dlpi_addr + lo,
                 hi - lo};
    if (!f->path || (bid.len && !f->build_id)) {
        free(f->path);
        free(f->build_id);
        return 1;
    }
    if (bid.len)
        memcpy(f->build_id, bid.ptr, bid.len);
    nfound++;
    return 0;
}

/* One module of the walk into the list (sampler's lock held): the one it
 * already is, or a new id, which takes over the copies. */
static void merge(found *f) {
    uint32_t n = rec_lines_store_nmodules();
    size_t len = strlen(f->path);
    for (uint32_t id = 1; id <= n; id++) {
        module *m = store.modules[id];
        if (m->rec.base == f->base && m->rec.size == f->size && m->rec.path.len == len &&
            !memcmp(m->rec.path.ptr, f->path, len)) {
            m->alive = 1;
            return;
        }
    }
    module *m = n < REC_LINES_MAX_MODULES ? calloc(1, sizeof *m) : NULL;
    if (!m)
        return;
    m->rec = (scope_rec_module){
        n + 1, {(const uint8_t *)f->path, len}, {f->build_id, f->build_id_len}, f->base, f->size};
    m->alive = 1;
    f->path = NULL;
    f->build_id = NULL;
    store.modules[n + 1] = m;
    atomic_store_explicit(&store.nmodules, n + 1, memory_order_release);
}

static int loader_counts(struct dl_phdr_info *info, size_t size, void *arg) {
    unsigned long long *c = arg;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        c[0] = info->dlpi_adds;
        c[1] = info->dlpi_subs;
    }
    return 1; /* the counters are the same in every entry: one is enough */
}

/* Walking the loader's list takes the loader's lock, so it happens outside
 * the sampler's: a library constructor that calls scope_lines_* inside a
 * dlopen holds the loader's lock and may wait for the sampler's.  Only the
 * drainer waits for another walk to end; every other caller skips its own
 * when one is under way (the next drain catches up). */
void rec_lines_store_scan_modules(int wait) {
    if (wait ? pthread_mutex_lock(&store.refresh_mu) != 0
             : pthread_mutex_trylock(&store.refresh_mu) != 0)
        return;
    unsigned long long c[2] = {0, 0};
    dl_iterate_phdr(loader_counts, c);
    if (!store.modules_listed || c[0] != store.seen_adds || c[1] != store.seen_subs) {
        nfound = 0;
        dl_iterate_phdr(collect, NULL);
        rec_sampler_modules_changed();
        rec_sampler_lock();
        uint32_t n = rec_lines_store_nmodules();
        for (uint32_t id = 1; id <= n; id++)
            store.modules[id]->alive = 0;
        for (uint32_t i = 0; i < nfound; i++) {
            merge(&founds[i]);
            free(founds[i].path);
            free(founds[i].build_id);
        }
        rec_sampler_unlock();
        store.seen_adds = c[0];
        store.seen_subs = c[1];
        store.modules_listed = 1;
    }
    pthread_mutex_unlock(&store.refresh_mu);
}

static scope_frame_addr frame_of(uintptr_t pc) {
    module *m = store.last_module ? store.modules[store.last_module] : NULL;
    if (m && m->alive && pc - m->rec.base < m->rec.size)
        return (scope_frame_addr){m->rec.id, pc - m->rec.base};
    uint32_t n = rec_lines_store_nmodules();
    for (uint32_t id = 1; id <= n; id++) {
        m = store.modules[id];
        if (m->alive && pc - m->rec.base < m->rec.size) {
            store.last_module = id;
            return (scope_frame_addr){id, pc - m->rec.base};
        }
    }
    return (scope_frame_addr){0, pc};
}

/* ---- stacks ----------------------------------------------------------------- */

uint32_t rec_lines_store_nstacks(void) {
    return atomic_load_explicit(&store.nstacks, memory_order_acquire);
}

const scope_rec_stack *rec_lines_store_stack(uint32_t id) {
    if (!id || id > rec_lines_store_nstacks())
        return NULL;
    return &store.stack_chunks[(id - 1) / STACK_CHUNK][(id - 1) % STACK_CHUNK];
}

static uint64_t hash_frames(const scope_frame_addr *f, uint32_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    for (uint32_t i = 0; i < n; i++) {
        h = (h ^ f[i].module) * 0x100000001b3ull;
        h = (h ^ f[i].offset) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    return h;
}

static int same_frames(const scope_rec_stack *s, const scope_frame_addr *f, uint32_t n) {
    if (s->nframes != n)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (s->frames[i].module != f[i].module || s->frames[i].offset != f[i].offset)
            return 0;
    return 1;
}

/* The id of this stack, interned; 0 when the store is full. */
static uint32_t intern(const scope_frame_addr *f, uint32_t n) {
    uint64_t h = hash_frames(f, n);
    map_slot *slot = map_find(&store.stack_map, h);
    if (!slot)
        return 0;
    if (slot->key)
        for (uint32_t id = slot->val; id; id = store.stack_next[id])
            if (same_frames(rec_lines_store_stack(id), f, n))
                return id;
    uint32_t id = rec_lines_store_nstacks() + 1;
    if (id > REC_LINES_MAX_STACKS || store.frames_total + n > REC_LINES_MAX_FRAMES_TOTAL)
        return 0;
    if (!store.stack_next &&
        !(store.stack_next = calloc(REC_LINES_MAX_STACKS + 1, sizeof *store.stack_next)))
        return 0;
    scope_rec_stack **chunk = &store.stack_chunks[(id - 1) / STACK_CHUNK];
    if (!*chunk && !(*chunk = calloc(STACK_CHUNK, sizeof **chunk)))
        return 0;
    if (store.frame_pool_left < n) {
        if (!(store.frame_pool = malloc(FRAME_CHUNK * sizeof *store.frame_pool)))
            return 0;
        store.frame_pool_left = FRAME_CHUNK; /* the rest of the old chunk is left unused */
    }
    scope_frame_addr *copy = store.frame_pool;
    store.frame_pool += n;
    store.frame_pool_left -= n;
    store.frames_total += n;
    memcpy(copy, f, n * sizeof *f);
    (*chunk)[(id - 1) % STACK_CHUNK] = (scope_rec_stack){id, n, copy};
    if (slot->key) {
        store.stack_next[id] = slot->val;
        slot->val = id;
    } else {
        map_put(&store.stack_map, slot, h, id);
    }
    atomic_store_explicit(&store.nstacks, id, memory_order_release);
    return id;
}

/* ---- counts per (thread, node) ------------------------------------------------- */

static rec_lines_group *groups;
static uint32_t ngroups, groups_cap;

uint32_t rec_lines_store_ngroups(void) {
    return ngroups;
}

rec_lines_group *rec_lines_store_group(uint32_t i) {
    return i < ngroups ? &groups[i] : NULL;
}

static rec_lines_group *group_of(uint32_t thread, uint32_t node, uint32_t state, uint32_t *gi) {
    /* Thread indexes stay far below 2^29: the state takes the top bits. */
    uint64_t key = ((uint64_t)thread << 32 | node) ^ (uint64_t)state << 61;
    map_slot *slot = map_find(&store.group_map, key);
    if (!slot)
        return NULL;
    if (slot->key) {
        *gi = slot->val;
        return &groups[slot->val];
    }
    if (SCOPE_VEC_RESERVE(groups, groups_cap, (size_t)ngroups + 1) < 0)
        return NULL;
    groups[ngroups] = (rec_lines_group){.thread = thread, .node = node, .state = state};
    map_put(&store.group_map, slot, key, ngroups);
    *gi = ngroups++;
    return &groups[*gi];
}

static int count(uint32_t thread, uint32_t node, uint32_t state, uint32_t stack, uint64_t weight) {
    uint32_t gi;
    rec_lines_group *g = group_of(thread, node, state, &gi);
    if (!g)
        return -1;
    map_slot *slot = map_find(&store.count_map, (uint64_t)gi << 32 | stack);
    if (!slot)
        return -1;
    if (!slot->key) {
        if (store.ncounts >= REC_LINES_MAX_COUNTS)
            return -1;
        /* Three arrays of one length: each grows by the one rule to it. */
        uint32_t cap = g->cap, cap_cleared = g->cap, cap_written = g->cap;
        if (SCOPE_VEC_RESERVE(g->counts, cap, (size_t)g->n + 1) < 0 ||
            SCOPE_VEC_RESERVE(g->cleared, cap_cleared, (size_t)g->n + 1) < 0 ||
            SCOPE_VEC_RESERVE(g->written, cap_written, (size_t)g->n + 1) < 0)
            return -1;
        g->cap = cap;
        g->counts[g->n] = (scope_stack_count){stack, 0};
        g->cleared[g->n] = 0;
        g->written[g->n] = 0;
        map_put(&store.count_map, slot, (uint64_t)gi << 32 | stack, g->n++);
        store.ncounts++;
    }
    g->counts[slot->val].count += weight;
    g->version++;
    return 0;
}

/* ---- draining ------------------------------------------------------------------ */

rec_lines_totals rec_lines_store_totals(void) {
    return store.totals;
}

/* The CPU clock of thread tid (the kernel's encoding of a thread's
 * scheduler clock): readable from any thread, and an error, not a crash,
 * once the thread is gone. */
static uint64_t thread_cpu_ns(pid_t tid) {
    struct timespec ts;
    clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 6u);
    if (clock_gettime(clk, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A thread whose clock ran for 16 periods without one sample has the
 * signal blocked (a pending timer signal holds every later expiry as an
 * overrun until it is delivered).  At least BLOCKED_MIN_NS of them,
 * though: the kernel checks a thread's CPU timers only at its tick, and
 * only while the thread runs, so a thread that runs in bursts shorter
 * than a tick (4 ms at 250 Hz) can go 16 ms of CPU without one expiry
 * seen.  At 997 Hz every actor of the example was said to block the
 * signal; over 200 ms of CPU, some tick lands in a burst. */
#define BLOCKED_MIN_NS 200000000ull
static void check_blocked(rec_lines_slot *s) {
    pid_t tid = atomic_load(&s->tid);
    uint64_t now =
        rec_lines_cfg.clock == SCOPE_LINES_CLOCK_CPU ? thread_cpu_ns(tid) : rec_mono_ns();
    uint64_t taken = atomic_load_explicit(&s->taken, memory_order_relaxed);
    if (!s->check_started || now < s->cpu_check) {
        s->check_started = 1;
        s->cpu_check = now;
        s->taken_check = taken;
        return;
    }
    uint64_t span = 16 * rec_lines_cfg.period_ns;
    if (now - s->cpu_check < (span > BLOCKED_MIN_NS ? span : BLOCKED_MIN_NS))
        return;
    if (taken == s->taken_check)
        atomic_fetch_or(&rec_lines_flags, SCOPE_LINES_F_BLOCKED);
    s->cpu_check = now;
    s->taken_check = taken;
}

static void drain_slot(rec_lines_slot *s) {
    uint64_t head = atomic_load_explicit(&s->head, memory_order_acquire);
    uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
    for (; tail != head; tail++) {
        const rec_lines_sample *e = &s->ring[tail % REC_LINES_RING];
        scope_frame_addr f[REC_LINES_MAX_FRAMES];
        uint32_t n = e->nframes <= REC_LINES_MAX_FRAMES ? e->nframes : REC_LINES_MAX_FRAMES;
        for (uint32_t i = 0; i < n; i++)
            f[i] = frame_of(e->pc[i]);
        uint32_t id = n ? intern(f, n) : 0;
        if (!id || count(e->thread, e->node, e->state, id, e->weight) < 0)
            store.totals.dropped += e->weight;
        else
            store.totals.signals++;
    }
    atomic_store_explicit(&s->tail, tail, memory_order_release);
    uint64_t taken = atomic_load_explicit(&s->taken, memory_order_relaxed);
    uint64_t dropped = atomic_load_explicit(&s->dropped, memory_order_relaxed);
    uint64_t cut = atomic_load_explicit(&s->truncated, memory_order_relaxed);
    store.totals.samples += taken - s->seen_taken;
    store.totals.dropped += dropped - s->seen_dropped;
    store.totals.truncated += cut - s->seen_cut;
    s->seen_taken = taken;
    s->seen_dropped = dropped;
    s->seen_cut = cut;
}

void rec_lines_store_drain(void) {
    uint32_t n = rec_sampler_nslots();
    for (uint32_t i = 0; i < n; i++) {
        rec_lines_slot *s = rec_sampler_slot(i);
        if (!s->ring)
            continue;
        drain_slot(s);
        if (s->armed)
            check_blocked(s);
        rec_sampler_recycle(s);
    }
}

/* The walk holds the loader's lock, which fork does not take: a child
 * forked during a walk would find it held by a thread it does not have, and
 * its own first walk would wait for ever. */
int rec_lines_store_fork_prepare(uint64_t deadline_ns) {
    while (pthread_mutex_trylock(&store.refresh_mu) != 0) {
        if (rec_mono_ns() >= deadline_ns)
            return 0;
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    return 1;
}

void rec_lines_store_fork_parent(int held) {
    if (held)
        pthread_mutex_unlock(&store.refresh_mu);
}

void rec_lines_store_clear_tables(void) {
    for (uint32_t g = 0; g < ngroups; g++)
        for (uint32_t i = 0; i < groups[g].n; i++)
            groups[g].cleared[i] = groups[g].counts[i].count;
}

void rec_lines_store_fork_child(void) {
    /* A walk under way in the parent has no thread here to finish it. */
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    memcpy(&store.refresh_mu, &fresh, sizeof fresh);
    store.modules_listed = 0;
    for (uint32_t g = 0; g < ngroups; g++) {
        free(groups[g].counts);
        free(groups[g].cleared);
        free(groups[g].written);
    }
    free(groups);
    groups = NULL;
    ngroups = groups_cap = store.ncounts = 0;
    map_clear(&store.group_map);
    map_clear(&store.count_map);
    store.totals = (rec_lines_totals){0};
}
