/*
 * Interned names.  Every phase and counter name, and every source file
 * name, gets one id per process, and that id is its STRING id in the log.
 * Two call sites with the same name are one phase.
 *
 * Lookups are lock-free (the explicit scope_phase_begin(name) form looks its
 * name up on every call); inserts take a mutex.  The hash table has a fixed
 * capacity, allocated untouched, so it never moves under a lock-free reader.
 */
#include "names.h"

#include "alloc.h"
#include "lock.h"
#include "recorder.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CHUNK_SHIFT 10u
#define NAME_CHUNK       (1u << NAME_CHUNK_SHIFT)
#define TABLE_SLOTS      (2u * REC_MAX_NAMES)

typedef struct name_entry {
    const char *ptr;
    uint32_t len;
    uint32_t hash;
} name_entry;

static name_entry *chunks[REC_MAX_NAMES / NAME_CHUNK];
static _Atomic uint32_t nnames;
static _Atomic(_Atomic uint32_t *) table;
static rec_lock insert_lock = REC_LOCK_INIT;

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

/* Returns the name's id, 0 when out of memory or past REC_MAX_NAMES. */
uint32_t rec_name_intern(const char *name, size_t len) {
    uint64_t h64 = rec_fnv1a(name, len);
    uint32_t h = (uint32_t)(h64 ^ (h64 >> 32)); /* folded: the table holds 32 bits */
    int slot;
    _Atomic uint32_t *tab = atomic_load_explicit(&table, memory_order_acquire);
    if (tab) {
        uint32_t id = probe(tab, name, len, h, &slot);
        if (id)
            return id;
    }
    /* Signals held while the lock is: a handler that interned a name
     * here would wait for this lock for ever, one that forked for the
     * allocator's (alloc.h). */
    sigset_t sigs;
    rec_signals_hold(&sigs);
    rec_lock_take(&insert_lock);
    uint32_t id = 0;
    tab = atomic_load_explicit(&table, memory_order_relaxed);
    if (!tab) {
        /* calloc of this size maps fresh zero pages: only touched slots cost */
        tab = calloc(TABLE_SLOTS, sizeof *tab);
        if (!tab)
            goto out;
        atomic_store_explicit(&table, tab, memory_order_release);
    }
    id = probe(tab, name, len, h, &slot);
    if (id)
        goto out;
    uint32_t n = atomic_load_explicit(&nnames, memory_order_relaxed);
    if (n + 1 >= REC_MAX_NAMES)
        goto out;
    uint32_t c = n >> NAME_CHUNK_SHIFT;
    if (!chunks[c] && !(chunks[c] = calloc(NAME_CHUNK, sizeof(name_entry))))
        goto out;
    char *copy = malloc(len + 1);
    if (!copy)
        goto out;
    memcpy(copy, name, len);
    copy[len] = '\0';
    id = n + 1;
    *entry(id) = (name_entry){copy, (uint32_t)len, h};
    atomic_store_explicit(&nnames, id, memory_order_release);
    atomic_store_explicit(&tab[slot], id, memory_order_release);
out:
    rec_lock_give(&insert_lock);
    rec_signals_release(&sigs);
    return id;
}

/* Resolves a call site's name and file once; later uses read site->id. */
uint32_t rec_site_register(scope_site *site) {
    const char *name = site->name ? site->name : "(null)";
    uint32_t file = 0;
    if (site->file)
        file = rec_name_intern(site->file, strlen(site->file));
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
