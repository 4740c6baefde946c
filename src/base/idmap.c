/* id -> index map with open addressing; see idmap.h. */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>

/* Fibonacci hashing: the top bits of key * 2^64/phi.  The low bits of that
 * product depend only on the low bits of the key, so ids that share them
 * (k << 16 for every k, say, from a damaged or hostile log) all fell on one
 * slot and every lookup walked them all: quadratic time in the number of
 * ids, seconds for some ten thousand.  The top bits depend on every bit. */
static size_t slot_of(const idmap *m, uint32_t key) {
    unsigned bits = (unsigned)__builtin_ctzll((unsigned long long)m->cap); /* cap: 2^bits */
    size_t i = (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

int idmap_get(const idmap *m, uint32_t key, uint32_t *val) {
    if (!key) {
        if (m->has_zero)
            *val = m->zero_val;
        return m->has_zero;
    }
    if (!m->cap)
        return 0;
    size_t i = slot_of(m, key);
    if (!m->keys[i])
        return 0;
    *val = m->vals[i];
    return 1;
}

static int grow(idmap *m) {
    idmap bigger = {0};
    bigger.cap = m->cap ? m->cap * 2 : 64;
    bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
    bigger.vals = malloc(bigger.cap * sizeof *bigger.vals);
    if (!bigger.keys || !bigger.vals) {
        free(bigger.keys);
        free(bigger.vals);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = slot_of(&bigger, m->keys[i]);
        bigger.keys[j] = m->keys[i];
        bigger.vals[j] = m->vals[i];
        bigger.used++;
    }
    bigger.has_zero = m->has_zero;
    bigger.zero_val = m->zero_val;
    idmap_free(m);
    *m = bigger;
    return 0;
}

int idmap_put(idmap *m, uint32_t key, uint32_t val) {
    if (!key) {
        m->has_zero = 1;
        m->zero_val = val;
        return 0;
    }
    if ((m->used + 1) * 2 > m->cap && grow(m) < 0)
        return -1;
    size_t i = slot_of(m, key);
    if (!m->keys[i])
        m->used++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

void idmap_free(idmap *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
