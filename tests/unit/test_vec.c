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

int main(void) {
    Suite *s = suite_create("vec");
    TCase *tc = tcase_create("vec");
    tcase_add_test(tc, grows_by_doubling_and_keeps_elements);
    tcase_add_test(tc, reserves_many_at_once);
    tcase_add_test(tc, overflow_is_refused_like_no_memory);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
