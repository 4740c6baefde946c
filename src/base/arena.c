/* The arena of arena.h: chunks of at least ARENA_CHUNK bytes, a larger
 * piece getting a chunk of its own. */
#include "arena.h"

#include <assert.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK 16384

/* Rounding sizes up to the alignment below is a mask: a power of two. */
static_assert((alignof(max_align_t) & (alignof(max_align_t) - 1)) == 0,
              "max_align_t's alignment is a power of two");

struct arena_chunk {
    arena_chunk *next;
    size_t used, cap;
    alignas(max_align_t) unsigned char data[];
};

void *arena_alloc(arena *a, size_t n) {
    if (n > SIZE_MAX - alignof(max_align_t) - sizeof(arena_chunk))
        return NULL;
    n = (n + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
    arena_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->next = a->head;
        c->used = 0;
        c->cap = cap;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_dup(arena *a, const void *p, size_t n) {
    if (n == SIZE_MAX)
        return NULL;
    char *s = arena_alloc(a, n + 1);
    if (s && n)
        memcpy(s, p, n);
    return s;
}

void arena_free(arena *a) {
    for (arena_chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    a->head = NULL;
}
