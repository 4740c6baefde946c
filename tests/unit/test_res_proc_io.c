/*
 * A process's I/O series (src/model/res_proc.c) where its intervals' counts
 * are odd.
 *
 * An interval in which the process reaped a child has no process I/O (the
 * kernel adds the child's bytes to the parent's); its threads' records
 * count their own, in the totals and in the series' buckets alike.
 *
 * A per-interval byte count below zero, as recorders before the fix in
 * recorder/source_resources.c (io_base) wrote it: 2^64 - 25 bytes read,
 * where the recorder's own reads left the process's rchar 25 bytes below
 * the last sample's.  The totals stay exact (the next interval's 25 extra
 * bytes wrap them back); the buckets, the page-cache part and the peaks
 * count 0 for it, never 18.4 EB/s (src/model/res_proc.c, in_series).
 */
#include "res_proc.h"
#include "unit_util.h"

#include <scope/log_format.h>

#include <check.h>
#include <stdint.h>

#define SEC ((uint64_t)1000000000)
#define T0  ((uint64_t)1700000000 * SEC)
#define IO  (SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ | SCOPE_RES_CHAR_WRITE)

static void add(res_proc **p, uint64_t s, uint64_t char_read) {
    scope_rec_resource r = {
        .mono_ns = s * SEC, .interval_ns = SEC, .present = IO, .char_read = char_read};
    ck_assert_int_eq(res_proc_add(p, &r, T0 + s * SEC), 0);
}

START_TEST(test_wrapped_interval) {
    res_proc *p = NULL;
    add(&p, 0, 1000);
    add(&p, 1, UINT64_MAX - 24); /* -25 */
    add(&p, 2, 1025);            /* 1000 and the 25 given back */
    ck_assert_uint_eq(p->char_read, 1000 + 1000);
    float peak = 0;
    uint64_t cache = 0;
    for (size_t i = 0; i < RES_BUCKETS; i++) {
        cache += p->b[i].cache_read;
        if (p->b[i].peak_cache > peak)
            peak = p->b[i].peak_cache;
    }
    ck_assert_uint_eq(cache, 1000 + 1025);
    ck_assert_float_eq_tol(peak, 1025, 1e-3);
    res_proc_free(p);
}
END_TEST

START_TEST(test_reaped_child_interval) {
    res_proc *p = NULL;
    add(&p, 0, 1000);
    /* Second 1: the process's record without I/O, then its thread's. */
    scope_rec_resource proc = {.mono_ns = 1 * SEC, .interval_ns = SEC, .present = SCOPE_RES_RSS};
    ck_assert_int_eq(res_proc_add(&p, &proc, T0 + 1 * SEC), 0);
    scope_rec_resource thr = {.mono_ns = 1 * SEC,
                              .interval_ns = SEC,
                              .present = IO,
                              .thread = 1,
                              .char_read = 700,
                              .char_write = 300};
    ck_assert_int_eq(res_proc_add(&p, &thr, T0 + 1 * SEC), 0);
    ck_assert_uint_eq(p->char_read, 1700);
    ck_assert_uint_eq(p->char_write, 300);
    size_t i = res_series_at(&p->s, T0 + 1 * SEC);
    ck_assert_uint_ne(i, SIZE_MAX);
    ck_assert_uint_eq(p->b[i].cache_read, 700);
    ck_assert_uint_eq(p->b[i].char_write, 300);
    res_proc_free(p);
}
END_TEST

int main(void) {
    Suite *s = suite_create("res_proc_io");
    TCase *tc = tcase_create("io");
    tcase_add_test(tc, test_wrapped_interval);
    tcase_add_test(tc, test_reaped_child_interval);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
