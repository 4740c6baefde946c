/*
 * Growable arrays: one rule for every array that grows by appending, in the
 * codec, the analysis and the tests.  Capacity doubles, so n appends cost
 * O(n) copying in all; a size that would overflow size_t is refused like a
 * failed allocation instead of wrapping into a short buffer.
 */
#ifndef SCOPE_VEC_H
#define SCOPE_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Room for at least `need` elements of `elem` bytes in p, whose capacity is
 * *cap elements.  Returns p itself when it has room, else p reallocated to
 * the first doubling of *cap (from 1) that holds `need`, with *cap updated;
 * NULL when out of memory or on overflow, with p still valid and *cap
 * unchanged. */
static inline void *scope_vec_grow(void *p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap)
        return p;
    size_t ncap = *cap ? *cap : 1;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return NULL;
        ncap *= 2;
    }
    if (elem && ncap > SIZE_MAX / elem)
        return NULL;
    void *q = realloc(p, ncap * elem);
    if (q)
        *cap = ncap;
    return q;
}

/* Makes room for `need` elements in the array `arr` of capacity `cap`
 * (lvalues, each evaluated more than once), both updated on success.
 * Evaluates to 0, or to -1 when out of memory (arr and cap unchanged).
 * C only: it assigns the grown void * to arr. */
#define SCOPE_VEC_RESERVE(arr, cap, need)                                                          \
    __extension__({                                                                                \
        void *vec_grown_ = scope_vec_grow((arr), &(cap), (need), sizeof *(arr));                   \
        vec_grown_ ? ((arr) = vec_grown_, 0) : -1;                                                 \
    })

#endif
