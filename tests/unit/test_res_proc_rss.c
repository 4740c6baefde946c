/*
 * What a bucket of a process's memory series holds (src/model/res_proc.c):
 * each interval's peak RSS as its records tell it, the kernel's high-water
 * mark where the mark rose in the interval and the RSS read at the sample
 * where not, and, as the 256 buckets halve their resolution, the larger of
 * each pair.  The same from a snapshot's RSS and RSS_PEAK series.
 */
#include "res_proc.h"
#include "unit_util.h"

#include <scope/log_format.h>

#include <check.h>
#include <stdlib.h>

#define SEC ((uint64_t)1000000000)
#define MIB ((uint64_t)1 << 20)
#define T0  ((uint64_t)1700000000 * SEC)

static void add(res_proc **p, uint64_t s, uint32_t present, uint64_t rss, uint64_t mark) {
    scope_rec_resource r = {
        .mono_ns = s * SEC, .interval_ns = SEC, .present = present, .rss = rss, .rss_peak = mark};
    ck_assert_int_eq(res_proc_add(p, &r, T0 + s * SEC), 0);
}

static uint64_t bucket_at(const res_proc *p, uint64_t s) {
    size_t i = res_series_at(&p->s, T0 + s * SEC);
    ck_assert_uint_ne(i, SIZE_MAX);
    return p->b[i].rss_max;
}

#define BOTH (SCOPE_RES_RSS | SCOPE_RES_RSS_PEAK)

START_TEST(test_interval_peak_is_the_risen_mark) {
    res_proc *p = NULL;
    add(&p, 0, BOTH, 10 * MIB, 10 * MIB);
    add(&p, 1, BOTH, 10 * MIB, 80 * MIB);   /* 70 MiB came and went: the mark rose */
    add(&p, 2, BOTH, 12 * MIB, 80 * MIB);   /* the mark is an earlier interval's */
    add(&p, 3, SCOPE_RES_RSS, 11 * MIB, 0); /* a log before 1.3: no mark */
    ck_assert_uint_eq(bucket_at(p, 0), 10 * MIB);
    ck_assert_uint_eq(bucket_at(p, 1), 80 * MIB);
    ck_assert_uint_eq(bucket_at(p, 2), 12 * MIB);
    ck_assert_uint_eq(bucket_at(p, 3), 11 * MIB);
    /* The sampled largest stays what was read; the peak is the mark. */
    ck_assert_uint_eq(p->rss_max, 12 * MIB);
    ck_assert_uint_eq(p->rss_peak, 80 * MIB);
    res_proc_free(p);
}
END_TEST

/* 600 one-second intervals: the buckets halve twice (4 s each); one
 * interval read a 50 MiB RSS at its sample, one only saw the mark rise to
 * 90 MiB, each the second of its bucket's four, the rest 5 MiB. */
START_TEST(test_halving_keeps_the_max) {
    res_proc *p = NULL;
    for (uint64_t s = 0; s < 600; s++) {
        uint64_t rss = s == 9 ? 50 * MIB : 5 * MIB;
        uint64_t mark = s < 9 ? 5 * MIB : s < 301 ? 50 * MIB : 90 * MIB;
        add(&p, s, BOTH, rss, mark);
    }
    ck_assert_uint_eq(p->s.width_ns, 4 * SEC);
    ck_assert_uint_eq(p->s.nused, 150);
    for (uint32_t i = 0; i < p->s.nused; i++) {
        uint64_t want = i == 2 ? 50 * MIB : i == 75 ? 90 * MIB : 5 * MIB;
        ck_assert_msg(p->b[i].rss_max == want, "bucket %u holds %llu MiB, not %llu", i,
                      (unsigned long long)(p->b[i].rss_max / MIB),
                      (unsigned long long)(want / MIB));
    }
    res_proc_free(p);
}
END_TEST

/* A snapshot's series, three 1 s buckets: RSS read 5 MiB at every sample,
 * the mark rose to 90 MiB in the second bucket. */
START_TEST(test_series_bucket_keeps_the_risen_mark) {
    static const scope_series_bucket rss[3] = {
        {1, SEC, 5 * MIB, 5 * MIB, 5 * MIB},
        {1, SEC, 5 * MIB, 5 * MIB, 5 * MIB},
        {1, SEC, 5 * MIB, 5 * MIB, 5 * MIB},
    };
    static const scope_series_bucket mark[3] = {
        {1, SEC, 5 * MIB, 5 * MIB, 5 * MIB},
        {1, SEC, 90 * MIB, 90 * MIB, 90 * MIB},
        {1, SEC, 90 * MIB, 90 * MIB, 90 * MIB},
    };
    const scope_rec_resource_series s[2] = {
        {.figure = SCOPE_SERIES_RSS,
         .start_mono_ns = SEC,
         .bucket_ns = SEC,
         .samples_total = 3,
         .nbuckets = 3,
         .buckets = rss},
        {.figure = SCOPE_SERIES_RSS_PEAK,
         .start_mono_ns = SEC,
         .bucket_ns = SEC,
         .samples_total = 3,
         .nbuckets = 3,
         .buckets = mark},
    };
    res_proc *p = NULL;
    /* The snapshot frame closed at monotonic 4 s, wall T0 + 4 s. */
    ck_assert_int_eq(res_proc_add_series(&p, s, 2, 4 * SEC, T0 + 4 * SEC), 0);
    ck_assert_uint_eq(bucket_at(p, 1), 5 * MIB);
    ck_assert_uint_eq(bucket_at(p, 2), 90 * MIB);
    ck_assert_uint_eq(bucket_at(p, 3), 5 * MIB);
    /* A record after it whose mark did not rise keeps its read. */
    add(&p, 4, BOTH, 6 * MIB, 90 * MIB);
    ck_assert_uint_eq(bucket_at(p, 4), 6 * MIB);
    res_proc_free(p);
}
END_TEST

int main(void) {
    Suite *s = suite_create("res_proc_rss");
    TCase *tc = tcase_create("rss");
    tcase_add_test(tc, test_interval_peak_is_the_risen_mark);
    tcase_add_test(tc, test_halving_keeps_the_max);
    tcase_add_test(tc, test_series_bucket_keeps_the_risen_mark);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
