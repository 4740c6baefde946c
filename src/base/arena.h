/*
 * An arena: memory handed out in pieces and freed all at once.  The model's
 * names, caveat texts and phases live in one, so a model is freed in one go
 * however many pieces it holds.
 */
#ifndef SCOPE_ARENA_H
#define SCOPE_ARENA_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk;
typedef struct arena {
    arena_chunk *head; /* newest chunk first; NULL: nothing allocated */
} arena;

/* n zeroed bytes, aligned for any type; NULL when out of memory. */
void *arena_alloc(arena *a, size_t n);

/* A copy of n bytes with a NUL after them; NULL when out of memory. */
char *arena_dup(arena *a, const void *p, size_t n);

/* Frees every piece; the arena is empty and usable again. */
void arena_free(arena *a);

#endif
