/*
 * Interned names.  Every phase and counter name, and every source file
 * name, gets one id per process, and that id is its STRING id in the log.
 * Two call sites with the same name are one phase.
 *
 * Lookups are lock-free (the explicit scope_phase_begin(name) form looks its
 * name up on every call); inserts take a mutex.  The hash table has a fixed
 * capacity, allocated untouched, so it never moves under a lock-free reader.
 *
 * A process keeps at most REC_NAME_LIMIT names (SCOPE_NAMES_MAX lowers it):
 * a program that makes up a new phase name for every request, forever,
 * would otherwise grow the recorder without bound, here and in every
 * thread's tree.  Past the limit a phase or counter name becomes
 * "(other)", which takes the last id, and the names folded into it are
 * counted, for an estimate that needs no memory per name: each sets one
 * bit of a fixed bitmap by its hash, and the share of bits still clear
 * gives how many distinct names set them (linear counting, Whang et al.
 * 1990; the reader works it out, docs/format.md 5.13).
 */
#include "names.h"

#include "alloc.h"
#include "lock.h"
#include "recorder.h"

#include <scope/log_format.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CHUNK_SHIFT 10u
#define NAME_CHUNK       (1u << NAME_CHUNK_SHIFT)
#define TABLE_SLOTS      (2u * REC_NAME_LIMIT)
#define FOLD_BITS        SCOPE_FOLD_MAP_BITS /* 128 KiB: within 1% up to ten million names */

static_assert(REC_NAME_LIMIT % NAME_CHUNK == 0, "the limit fills whole chunks");

static const char other_name[] = "(other)";

typedef struct name_entry {
    const char *ptr;
    uint32_t len;
    uint32_t hash;
} name_entry;

static name_entry *chunks[REC_NAME_LIMIT / NAME_CHUNK];
static _Atomic uint32_t nnames;
static _Atomic(_Atomic uint32_t *) table;
static rec_lock insert_lock = REC_LOCK_INIT;
/* The names a process may keep, "(other)" included. */
static _Atomic uint32_t limit = REC_NAME_LIMIT;
/* "(other)"'s id once the limit is reached, 0 before. */
static _Atomic uint32_t other_id;
/* The names folded into it: one bit per hash, and how many bits are set. */
static _Atomic(_Atomic uint64_t *) fold_bits;
static _Atomic uint32_t fold_bits_set;

static name_entry *entry(uint32_t id) {
    return &chunks[(id - 1) >> NAME_CHUNK_SHIFT][(id - 1) & (NAME_CHUNK - 1)];
}

const char *rec_name_get(uint32_t id, size_t *len) {
    if (id == 0 || id > atomic_load_explicit(&nnames, memory_order_acquire)) {
        *len = 0;
        return NULL;
    }
    name_entry *e = entry(id);
    *len = e->len;
    return e->ptr;
}

uint32_t rec_name_count(void) {
    return atomic_load_explicit(&nnames, memory_order_acquire);
}

void rec_names_set_limit(uint32_t n) {
    atomic_store_explicit(&limit,
                          n < 2                ? 2
                          : n > REC_NAME_LIMIT ? REC_NAME_LIMIT
                                               : n,
                          memory_order_relaxed);
}

uint32_t rec_names_limit(void) {
    return atomic_load_explicit(&limit, memory_order_relaxed);
}

static uint32_t probe(_Atomic uint32_t *tab, const char *name, size_t len, uint32_t h, int *slot) {
    for (uint32_t i = h & (TABLE_SLOTS - 1);; i = (i + 1) & (TABLE_SLOTS - 1)) {
        uint32_t id = atomic_load_explicit(&tab[i], memory_order_acquire);
        if (id == 0) {
            *slot = (int)i;
            return 0;
        }
        name_entry *e = entry(id);
        if (e->hash == h && e->len == len && memcmp(e->ptr, name, len) == 0)
            return id;
    }
}

/* Adds name as id n + 1 at tab[slot]; the insert lock is held.  0 without
 * memory. */
static uint32_t add_locked(_Atomic uint32_t *tab, int slot, const char *name, size_t len,
                           uint32_t h) {
    uint32_t n = atomic_load_explicit(&nnames, memory_order_relaxed);
    uint32_t c = n >> NAME_CHUNK_SHIFT;
    if (!chunks[c] && !(chunks[c] = calloc(NAME_CHUNK, sizeof(name_entry))))
        return 0;
    char *copy = malloc(len + 1);
    if (!copy)
        return 0;
    memcpy(copy, name, len);
    copy[len] = '\0';
    uint32_t id = n + 1;
    *entry(id) = (name_entry){copy, (uint32_t)len, h};
    atomic_store_explicit(&nnames, id, memory_order_release);
    atomic_store_explicit(&tab[slot], id, memory_order_release);
    return id;
}

static uint32_t hash32(uint64_t h64) {
    return (uint32_t)(h64 ^ (h64 >> 32)); /* folded: the table holds 32 bits */
}

/* A name past the limit: counted among the folded ones by its hash.  The
 * bitmap comes with the first, allocated with the signals held. */
static void count_folded(uint64_t h64) {
    _Atomic uint64_t *bits = atomic_load_explicit(&fold_bits, memory_order_acquire);
    if (!bits) {
        _Atomic uint64_t *fresh = rec_calloc(FOLD_BITS / 64, sizeof *fresh);
        if (!fresh)
            return;
        _Atomic uint64_t *none = NULL;
        if (atomic_compare_exchange_strong(&fold_bits, &none, fresh))
            bits = fresh;
        else {
            rec_free((void *)fresh);
            bits = none;
        }
    }
    /* Bits of the hash the table's probe does not start from. */
    uint32_t b = (uint32_t)(h64 >> 40) & (FOLD_BITS - 1);
    uint64_t mask = 1ull << (b & 63);
    if (!(atomic_load_explicit(&bits[b >> 6], memory_order_relaxed) & mask) &&
        !(atomic_fetch_or_explicit(&bits[b >> 6], mask, memory_order_relaxed) & mask))
        atomic_fetch_add_explicit(&fold_bits_set, 1, memory_order_relaxed);
}

uint32_t rec_names_fold_bits(void) {
    return atomic_load_explicit(&fold_bits_set, memory_order_relaxed);
}

/* Inserts under the lock; past the limit returns "(other)"'s id (interned
 * as the last one) when fold, else 0. */
static uint32_t insert(const char *name, size_t len, uint32_t h, int fold) {
    /* Signals held while the lock is: a handler that interned a name
     * here would wait for this lock for ever, one that forked for the
     * allocator's (alloc.h). */
    sigset_t sigs;
    rec_signals_hold(&sigs);
    rec_lock_take(&insert_lock);
    uint32_t id = 0;
    int slot;
    _Atomic uint32_t *tab = atomic_load_explicit(&table, memory_order_relaxed);
    if (!tab) {
        /* calloc of this size maps fresh zero pages: only touched slots cost */
        tab = calloc(TABLE_SLOTS, sizeof *tab);
        if (!tab)
            goto out;
        atomic_store_explicit(&table, tab, memory_order_release);
    }
    if ((id = probe(tab, name, len, h, &slot)))
        goto out;
    uint32_t n = atomic_load_explicit(&nnames, memory_order_relaxed);
    uint32_t lim = atomic_load_explicit(&limit, memory_order_relaxed);
    if (n + 1 < lim) {
        id = add_locked(tab, slot, name, len, h);
        goto out;
    }
    if (fold) {
        id = atomic_load_explicit(&other_id, memory_order_relaxed);
        if (!id) {
            uint32_t oh = hash32(rec_fnv1a(other_name, sizeof other_name - 1));
            if (!(id = probe(tab, other_name, sizeof other_name - 1, oh, &slot)) && n < lim)
                id = add_locked(tab, slot, other_name, sizeof other_name - 1, oh);
            atomic_store_explicit(&other_id, id, memory_order_release);
        }
    }
out:
    rec_lock_give(&insert_lock);
    rec_signals_release(&sigs);
    return id;
}

/* A name the table does not hold: inserted, or past the limit folded
 * without the lock (the explicit form asks for it on every call). */
static __attribute__((noinline)) uint32_t intern_new(const char *name, size_t len, uint64_t h64,
                                                     int fold) {
    uint32_t other = atomic_load_explicit(&other_id, memory_order_acquire);
    uint32_t id = other && fold ? other : insert(name, len, hash32(h64), fold);
    if (fold && id && id == atomic_load_explicit(&other_id, memory_order_relaxed) &&
        (len != sizeof other_name - 1 || memcmp(name, other_name, len) != 0))
        count_folded(h64);
    return id;
}

static inline __attribute__((always_inline)) uint32_t intern(const char *name, size_t len,
                                                             int fold) {
    uint64_t h64 = rec_fnv1a(name, len);
    int slot;
    _Atomic uint32_t *tab = atomic_load_explicit(&table, memory_order_acquire);
    if (tab) {
        uint32_t id = probe(tab, name, len, hash32(h64), &slot);
        if (id)
            return id;
    }
    return intern_new(name, len, h64, fold);
}

uint32_t rec_name_intern(const char *name, size_t len) {
    return intern(name, len, 1);
}

uint32_t rec_name_intern_kept(const char *name, size_t len) {
    return intern(name, len, 0);
}

/* Resolves a call site's name and file once; later uses read site->id.  A
 * file name past the limit is left unknown, not "(other)". */
uint32_t rec_site_register(scope_site *site) {
    const char *name = site->name ? site->name : "(null)";
    uint32_t file = 0;
    if (site->file)
        file = rec_name_intern_kept(site->file, strlen(site->file));
    uint32_t id = rec_name_intern(name, strlen(name));
    __atomic_store_n(&site->file_id, file, __ATOMIC_RELAXED);
    __atomic_store_n(&site->id, id, __ATOMIC_RELEASE);
    return id;
}

/* fork(): no thread may hold the insert lock across it, or the child could
 * never intern a name again (lock.h). */
int rec_names_lock_for_fork(uint64_t deadline_ns) {
    return rec_lock_for_fork(&insert_lock, deadline_ns);
}

void rec_names_unlock(void) {
    rec_lock_give(&insert_lock);
}

void rec_names_reset_lock(void) {
    rec_lock_reset(&insert_lock);
}
