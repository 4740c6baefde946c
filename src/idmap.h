/*
 * A map from the ids of a log (uint32, never 0 in the format) to array
 * indexes.  Ids in a well-formed log are small and dense, but a damaged or
 * hostile one may carry any value, so this is a hash table rather than a
 * table indexed by id: memory follows what was defined, not the largest id.
 */
#ifndef SCOPE_IDMAP_H
#define SCOPE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct idmap {
    uint32_t *keys; /* 0: empty slot */
    uint32_t *vals;
    size_t cap, used;
} idmap;

/* 1 with *val set when key is present; 0 when not (key 0 is never present). */
int idmap_get(const idmap *m, uint32_t key, uint32_t *val);

/* Sets key -> val.  Returns 0, or -1 when out of memory (the map is unchanged). */
int idmap_put(idmap *m, uint32_t key, uint32_t val);

void idmap_free(idmap *m);

#endif
