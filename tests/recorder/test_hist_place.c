/*
 * Unit test of where the recorder's hot path counts a duration
 * (rec_hist_place, recorder/thread.h): hist[octave][sub] must be the
 * bucket every reader takes it for, scope_hist_bucket (log_hist.h), at
 * every value below 2^20 ns, around every power of two and at the ends.
 */
#include "thread.h"
#include "unit_util.h"

static void check_value(uint64_t ns) {
    rec_hist_slot h = rec_hist_place(ns);
    uint32_t b = scope_hist_bucket(ns);
    if (h.octave >= REC_HIST_OCTAVES || h.sub >= SCOPE_HIST_SUB || h.octave * 16 + h.sub != b)
        ck_abort_msg("%llu ns: octave %llu sub %llu, bucket %u", (unsigned long long)ns,
                     (unsigned long long)h.octave, (unsigned long long)h.sub, b);
}

START_TEST(small_values_land_in_their_bucket) {
    for (uint64_t ns = 0; ns < (1u << 20); ns++)
        check_value(ns);
}
END_TEST

START_TEST(values_around_powers_of_two_land_in_their_bucket) {
    for (unsigned s = 0; s < 64; s++)
        for (int64_t off = -40; off <= 40; off++)
            check_value((1ull << s) + (uint64_t)off);
    check_value(UINT64_MAX);
    for (uint32_t b = 0; b < SCOPE_HIST_BUCKETS; b++) {
        check_value(scope_hist_lower(b));
        check_value(scope_hist_upper(b));
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("hist_place");
    TCase *tc = tcase_create("hist_place");
    tcase_add_test(tc, small_values_land_in_their_bucket);
    tcase_add_test(tc, values_around_powers_of_two_land_in_their_bucket);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
