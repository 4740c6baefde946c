/* id -> index map with open addressing; see idmap.h. */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(const idmap *m, uint32_t key) {
    size_t i = (key * 2654435761u) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

int idmap_get(const idmap *m, uint32_t key, uint32_t *val) {
    if (!m->cap || !key)
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
    idmap_free(m);
    *m = bigger;
    return 0;
}

int idmap_put(idmap *m, uint32_t key, uint32_t val) {
    if (!key)
        return -1;
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
