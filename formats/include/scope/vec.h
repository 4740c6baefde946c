/*
 * Growable arrays: one rule for every array that grows by appending, in the
 * codec, the recorder, the analysis, the browser and the tests.  Capacity
 * doubles, so n appends cost O(n) copying in all; a size that would
 * overflow size_t, or a capacity past what the capacity's own type holds,
 * is refused like a failed allocation instead of wrapping into a short
 * buffer.
 *
 * No product code calls realloc but this header and the recorder's
 * allocator (recorder/alloc.c), which grows through it:
 * tests/check_realloc.sh holds that.
 */
#ifndef SCOPE_VEC_H
#define SCOPE_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* A realloc to grow through: libc's, or one wrapping it, such as the
 * recorder's rec_realloc, which holds the program's signals off around it
 * (recorder/alloc.h). */
typedef void *scope_vec_realloc_fn(void *p, size_t size);

/* Room for at least `need` elements of `elem` bytes in p, whose capacity is
 * *cap elements, reallocated through `re`.  Returns p itself when it has
 * room, else p reallocated to the first doubling of *cap (from 1) that
 * holds `need`, with *cap updated; NULL when out of memory, on overflow, or
 * when that capacity would pass max_cap, with p still valid and *cap
 * unchanged. */
static inline void *scope_vec_grow_with(void *p, size_t *cap, size_t need, size_t elem,
                                        size_t max_cap, scope_vec_realloc_fn *re) {
    if (need <= *cap)
        return p;
    size_t ncap = *cap ? *cap : 1;
    while (ncap < need) {
        if (ncap > max_cap / 2)
            return NULL;
        ncap *= 2;
    }
    if (elem && ncap > SIZE_MAX / elem)
        return NULL;
    void *q = re(p, ncap * elem);
    if (q)
        *cap = ncap;
    return q;
}

/* scope_vec_grow_with through libc's realloc, up to any size_t capacity. */
static inline void *scope_vec_grow(void *p, size_t *cap, size_t need, size_t elem) {
    return scope_vec_grow_with(p, cap, need, elem, SIZE_MAX, realloc);
}

/* Makes room for `need` elements in the array `arr` of capacity `cap`
 * (lvalues, each evaluated more than once), both updated on success,
 * growing through `re`.  `cap` may be of any unsigned type: a uint32_t
 * capacity never grows past UINT32_MAX.  Evaluates to 0 (also when arr
 * already has room, even a NULL arr asked for none), or to -1 when out of
 * memory (arr and cap unchanged).  C only: it assigns the grown void * to
 * arr. */
#define SCOPE_VEC_RESERVE_WITH(arr, cap, need, re)                                                 \
    __extension__({                                                                                \
        _Static_assert((__typeof__(cap))-1 > 0, "a capacity is unsigned");                         \
        size_t vec_need_ = (need);                                                                 \
        int vec_rc_ = 0;                                                                           \
        if (vec_need_ > (cap)) {                                                                   \
            size_t vec_cap_ = (cap);                                                               \
            void *vec_grown_ = scope_vec_grow_with((arr), &vec_cap_, vec_need_, sizeof *(arr),     \
                                                   (__typeof__(cap))-1, (re));                     \
            if (vec_grown_)                                                                        \
                (arr) = vec_grown_, (cap) = (__typeof__(cap))vec_cap_;                             \
            else                                                                                   \
                vec_rc_ = -1;                                                                      \
        }                                                                                          \
        vec_rc_;                                                                                   \
    })

/* SCOPE_VEC_RESERVE_WITH through libc's realloc. */
#define SCOPE_VEC_RESERVE(arr, cap, need) SCOPE_VEC_RESERVE_WITH(arr, cap, need, realloc)

/* Makes the array `arr` (an lvalue) hold exactly `n` elements, for the
 * arrays that must not hold spare room (a buffer sized to a bound, memory
 * the reader's caps count element by element) or that hold so few that a
 * capacity is not worth keeping.  n == 0 frees arr and sets it NULL.
 * Evaluates to 0, or to -1 when out of memory or on overflow (arr
 * unchanged).  C only, like SCOPE_VEC_RESERVE. */
#define SCOPE_VEC_RESIZE(arr, n)                                                                   \
    __extension__({                                                                                \
        size_t vec_n_ = (n);                                                                       \
        int vec_rc_ = 0;                                                                           \
        if (!vec_n_) {                                                                             \
            free(arr);                                                                             \
            (arr) = NULL;                                                                          \
        } else {                                                                                   \
            void *vec_sized_ = vec_n_ <= SIZE_MAX / sizeof *(arr)                                  \
                                   ? realloc((arr), vec_n_ * sizeof *(arr))                        \
                                   : NULL;                                                         \
            if (vec_sized_)                                                                        \
                (arr) = vec_sized_;                                                                \
            else                                                                                   \
                vec_rc_ = -1;                                                                      \
        }                                                                                          \
        vec_rc_;                                                                                   \
    })

#endif
