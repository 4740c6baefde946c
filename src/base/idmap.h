/*
 * A map from the ids of a log (uint32) to array indexes.  Ids in a
 * well-formed log are small and dense, but a damaged or hostile one may carry
 * any value, so this is a hash table rather than a table indexed by id:
 * memory follows what was defined, not the largest id.  Every uint32 is a
 * valid key, 0 included: defined ids are never 0, but thread indexes run
 * 1 .. 2^32-1 and thread 0 means the process, so a map of threads needs all
 * 2^32 keys.
 */
#ifndef SCOPE_IDMAP_H
#define SCOPE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct idmap {
    uint32_t *keys; /* 0: empty slot */
    uint32_t *vals;
    size_t cap, used;
    int has_zero; /* key 0 is kept here, since 0 marks the table's empty slots */
    uint32_t zero_val;
} idmap;

/* 1 with *val set when key is present; 0 when not. */
int idmap_get(const idmap *m, uint32_t key, uint32_t *val);

/* Sets key -> val.  Returns 0, or -1 when out of memory (the map is unchanged). */
int idmap_put(idmap *m, uint32_t key, uint32_t val);

void idmap_free(idmap *m);

#endif
