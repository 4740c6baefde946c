/* scope/vec.h: arrays grown by appending. */
#include "unit_util.h"

#include <scope/vec.h>

START_TEST(grows_by_doubling_and_keeps_elements) {
    int *v = NULL;
    size_t cap = 0, n = 0, grew = 0;
    for (int i = 0; i < 1000; i++) {
        size_t before = cap;
        ck_assert_int_eq(SCOPE_VEC_RESERVE(v, cap, n + 1), 0);
        ck_assert_uint_ge(cap, n + 1);
        if (cap != before) {
            ck_assert_uint_eq(cap, before ? 2 * before : 1);
            grew++;
        }
        v[n++] = i;
    }
    ck_assert_uint_eq(grew, 11); /* 1, 2, 4 ... 1024 */
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(v[i], i);
    free(v);
}
END_TEST

START_TEST(reserves_many_at_once) {
    char *b = NULL;
    size_t cap = 0;
    ck_assert_int_eq(SCOPE_VEC_RESERVE(b, cap, 100000), 0);
    ck_assert_uint_eq(cap, 131072);
    char *same = b;
    ck_assert_int_eq(SCOPE_VEC_RESERVE(b, cap, 5), 0); /* room already: untouched */
    ck_assert_ptr_eq(b, same);
    ck_assert_uint_eq(cap, 131072);
    free(b);
}
END_TEST

START_TEST(overflow_is_refused_like_no_memory) {
    uint64_t *v = NULL;
    size_t cap = 0;
    ck_assert_int_eq(SCOPE_VEC_RESERVE(v, cap, SIZE_MAX / 4), -1);
    ck_assert_ptr_null(v);
    ck_assert_uint_eq(cap, 0);
    ck_assert_ptr_null(scope_vec_grow(NULL, &cap, SIZE_MAX, 1));
    ck_assert_uint_eq(cap, 0);
}
END_TEST

/* A realloc that counts its calls and the bytes last asked for. */
static int counted_calls;
static size_t counted_size;
static void *counted_realloc(void *p, size_t size) {
    counted_calls++;
    counted_size = size;
    return realloc(p, size);
}

START_TEST(grows_through_the_realloc_given) {
    long *v = NULL;
    uint32_t cap = 0;
    counted_calls = 0;
    ck_assert_int_eq(SCOPE_VEC_RESERVE_WITH(v, cap, 100, counted_realloc), 0);
    ck_assert_int_eq(counted_calls, 1);
    ck_assert_uint_eq(counted_size, 128 * sizeof *v);
    ck_assert_uint_eq(cap, 128);
    ck_assert_int_eq(SCOPE_VEC_RESERVE_WITH(v, cap, 128, counted_realloc), 0);
    ck_assert_int_eq(counted_calls, 1); /* room already */
    ck_assert_int_eq(SCOPE_VEC_RESERVE_WITH(v, cap, 129, counted_realloc), 0);
    ck_assert_int_eq(counted_calls, 2);
    ck_assert_uint_eq(cap, 256);
    free(v);
}
END_TEST

START_TEST(a_32_bit_capacity_stops_at_its_type) {
    char *b = NULL;
    uint32_t cap = 0;
    counted_calls = 0;
    /* 2^31 + 1 bytes would need a capacity of 2^32, which a uint32_t does
     * not hold: refused before any allocation, not wrapped to 0. */
    ck_assert_int_eq(SCOPE_VEC_RESERVE_WITH(b, cap, ((size_t)1 << 31) + 1, counted_realloc), -1);
    ck_assert_int_eq(counted_calls, 0);
    ck_assert_ptr_null(b);
    ck_assert_uint_eq(cap, 0);
    ck_assert_int_eq(SCOPE_VEC_RESERVE_WITH(b, cap, (size_t)UINT32_MAX + 1, counted_realloc), -1);
    ck_assert_int_eq(counted_calls, 0);
    ck_assert_int_eq(SCOPE_VEC_RESERVE(b, cap, 3), 0);
    ck_assert_uint_eq(cap, 4);
    free(b);
}
END_TEST

START_TEST(reserving_none_is_not_a_failure) {
    int *v = NULL;
    size_t cap = 0;
    ck_assert_int_eq(SCOPE_VEC_RESERVE(v, cap, 0), 0);
    ck_assert_ptr_null(v);
    ck_assert_uint_eq(cap, 0);
}
END_TEST

START_TEST(resize_holds_exactly_n) {
    int *v = NULL;
    ck_assert_int_eq(SCOPE_VEC_RESIZE(v, 3), 0);
    ck_assert_ptr_nonnull(v);
    for (int i = 0; i < 3; i++)
        v[i] = i;
    ck_assert_int_eq(SCOPE_VEC_RESIZE(v, 5), 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(v[i], i); /* kept across the resize */
    ck_assert_int_eq(SCOPE_VEC_RESIZE(v, 1), 0);
    ck_assert_int_eq(v[0], 0);
    int *same = v;
    ck_assert_int_eq(SCOPE_VEC_RESIZE(v, SIZE_MAX / 2), -1); /* overflow: unchanged */
    ck_assert_ptr_eq(v, same);
    ck_assert_int_eq(SCOPE_VEC_RESIZE(v, 0), 0); /* none: freed */
    ck_assert_ptr_null(v);
}
END_TEST

int main(void) {
    Suite *s = suite_create("vec");
    TCase *tc = tcase_create("vec");
    tcase_add_test(tc, grows_by_doubling_and_keeps_elements);
    tcase_add_test(tc, reserves_many_at_once);
    tcase_add_test(tc, overflow_is_refused_like_no_memory);
    tcase_add_test(tc, grows_through_the_realloc_given);
    tcase_add_test(tc, a_32_bit_capacity_stops_at_its_type);
    tcase_add_test(tc, reserving_none_is_not_a_failure);
    tcase_add_test(tc, resize_holds_exactly_n);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
