/*
 * Unit tests of the resource series (recorder/res_series.h), against
 * libscope's own objects: a week of 1 Hz intervals fed into one series
 * keeps its fixed size, every bucket's sum, count, covered time, minimum
 * and maximum are exactly those of the intervals that started in it, and
 * the width doubles each time an interval falls past the last bucket.
 */
#include "res_series.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define SEC  1000000000ull
#define WEEK (7ull * 24 * 3600)

/* The figure of interval i: bytes with runs of zeros and rare bursts, a
 * fixed pseudo-random sequence so the test can recompute it. */
static uint64_t value_of(uint64_t i) {
    uint64_t x = i * 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    if (x % 7 == 0)
        return 0;
    return x % 100 == 0 ? x % 1000000000ull : x % 65536;
}

/* Interval i's length: a second, now and then a little more (a busy writer
 * thread woke late) and the next one that much less. */
static uint64_t length_of(uint64_t i) {
    return SEC + (i % 97 == 0 ? 3000000 : i % 97 == 1 ? -3000000ull : 0);
}

static uint64_t start_of(uint64_t t0, uint64_t i) {
    return t0 + i * SEC + (i % 97 == 1 ? 3000000 : 0);
}

START_TEST(test_a_week_in_fixed_memory) {
    rec_series *s = malloc(sizeof *s);
    ck_assert_ptr_nonnull(s);
    rec_series_init(s, SEC);
    const uint64_t t0 = 123456789ull * SEC;
    uint64_t width = SEC, doublings = 0;
    uint64_t sum = 0, mn = UINT64_MAX, mx = 0;
    for (uint64_t i = 0; i < WEEK; i++) {
        uint64_t v = value_of(i);
        rec_series_add(s, start_of(t0, i), length_of(i), v);
        sum += v;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        ck_assert_uint_le(s->nused, REC_SERIES_BUCKETS);
        if (s->bucket_ns != width) {
            /* Doubled exactly when this interval no longer fit. */
            ck_assert_uint_eq(s->bucket_ns, 2 * width);
            ck_assert_uint_ge(start_of(t0, i) - t0, REC_SERIES_BUCKETS * width);
            ck_assert_uint_lt(start_of(t0, i - 1) - t0, REC_SERIES_BUCKETS * width);
            width = s->bucket_ns;
            doublings++;
        }
    }
    /* 604,800 s in 256 buckets: 4,096 s wide, after 12 doublings, and 148
     * of them hold the week. */
    _Static_assert(REC_SERIES_BUCKETS == 256, "the figures below are for 256 buckets");
    ck_assert_uint_eq(doublings, 12);
    ck_assert_uint_eq(s->bucket_ns, 4096 * SEC);
    ck_assert_uint_eq(s->nused, (WEEK + 4095) / 4096);
    ck_assert_uint_eq(s->samples_total, WEEK);
    ck_assert_uint_eq(s->start_ns, t0);

    /* Every bucket, recomputed from the intervals that started in it. */
    uint64_t tsum = 0, tmin = UINT64_MAX, tmax = 0, tcount = 0;
    for (uint32_t b = 0; b < s->nused; b++) {
        scope_series_bucket want = {.min = UINT64_MAX};
        for (uint64_t i = b * 4096ull; i < WEEK && i < (b + 1) * 4096ull + 1; i++) {
            if ((start_of(t0, i) - t0) / s->bucket_ns != b)
                continue;
            uint64_t v = value_of(i);
            want.samples++;
            want.covered_ns += length_of(i);
            want.sum += v;
            want.min = v < want.min ? v : want.min;
            want.max = v > want.max ? v : want.max;
        }
        const scope_series_bucket *got = &s->b[b];
        ck_assert_uint_eq(got->samples, want.samples);
        ck_assert_uint_eq(got->covered_ns, want.covered_ns);
        ck_assert_uint_eq(got->sum, want.sum);
        ck_assert_uint_eq(got->min, want.min);
        ck_assert_uint_eq(got->max, want.max);
        tsum += got->sum;
        tcount += got->samples;
        tmin = got->min < tmin ? got->min : tmin;
        tmax = got->max > tmax ? got->max : tmax;
    }
    ck_assert_uint_eq(tsum, sum);
    ck_assert_uint_eq(tcount, WEEK);
    ck_assert_uint_eq(tmin, mn);
    ck_assert_uint_eq(tmax, mx);
    for (uint32_t b = s->nused; b < REC_SERIES_BUCKETS; b++)
        ck_assert_uint_eq(s->b[b].samples, 0);

    /* The record carries the used buckets and the whole count. */
    scope_rec_resource_series r = rec_series_record(s, 0, SCOPE_SERIES_CHAR_READ, 0);
    ck_assert_uint_eq(r.nbuckets, s->nused);
    ck_assert_uint_eq(r.bucket_ns, 4096 * SEC);
    ck_assert_uint_eq(r.samples_total, WEEK);
    ck_assert_uint_eq(r.figure, SCOPE_SERIES_CHAR_READ);
    free(s);
}
END_TEST

/* A gap (the figure not measured for a while) stays a gap: empty buckets
 * are not zeros, and merging a gap with a measured bucket keeps the
 * measured one's minimum. */
START_TEST(test_gaps_stay_gaps) {
    const uint32_t N = REC_SERIES_BUCKETS;
    rec_series *s = malloc(sizeof *s);
    ck_assert_ptr_nonnull(s);
    rec_series_init(s, SEC);
    rec_series_add(s, 10 * SEC, SEC, 500);
    rec_series_add(s, 13 * SEC, SEC, 700); /* buckets 1 and 2 empty */
    ck_assert_uint_eq(s->nused, 4);
    ck_assert_uint_eq(s->b[1].samples, 0);
    ck_assert_uint_eq(s->b[2].samples, 0);
    /* Past the last bucket (N one-second buckets): once, then twice. */
    rec_series_add(s, (10 + N) * SEC, SEC, 900);
    ck_assert_uint_eq(s->bucket_ns, 2 * SEC);
    ck_assert_uint_eq(s->b[0].samples, 1);
    ck_assert_uint_eq(s->b[0].min, 500);
    ck_assert_uint_eq(s->b[1].samples, 1);
    ck_assert_uint_eq(s->b[1].min, 700);
    ck_assert_uint_eq(s->b[N / 2].sum, 900);
    rec_series_add(s, (10 + 4 * N) * SEC, SEC, 1);
    ck_assert_uint_eq(s->bucket_ns, 8 * SEC);
    ck_assert_uint_eq(s->b[0].samples, 2);
    ck_assert_uint_eq(s->b[0].min, 500);
    ck_assert_uint_eq(s->b[0].max, 700);
    ck_assert_uint_eq(s->b[0].sum, 1200);
    ck_assert_uint_eq(s->b[1].samples, 0);
    ck_assert_uint_eq(s->b[N / 8].sum, 900);
    ck_assert_uint_eq(s->b[N / 2].sum, 1);
    ck_assert_uint_eq(s->nused, N / 2 + 1);
    /* An interval stamped before the first counts in bucket 0. */
    rec_series_add(s, 9 * SEC, SEC, 3);
    ck_assert_uint_eq(s->b[0].samples, 3);
    ck_assert_uint_eq(s->b[0].min, 3);
    ck_assert_uint_eq(s->samples_total, 5);
    free(s);
}
END_TEST

int main(void) {
    Suite *su = suite_create("res_series");
    TCase *tc = tcase_create("series");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_a_week_in_fixed_memory);
    tcase_add_test(tc, test_gaps_stay_gaps);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
