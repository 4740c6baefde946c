/* Figures as the text renderers print them (fmt.h): every magnitude keeps
 * its units, nothing above 0 prints as 0, nothing huge as a run of digits. */
#include "fmt.h"

#include <check.h>
#include <math.h>
#include <string.h>

static const char *dur(double ns) {
    static char buf[64];
    return fmt_duration(buf, sizeof buf, ns);
}

static const char *rate(double per_s) {
    static char buf[64];
    return fmt_rate(buf, sizeof buf, per_s);
}

static const char *bytes(double b) {
    static char buf[64];
    return fmt_bytes(buf, sizeof buf, b);
}

START_TEST(durations_in_their_usual_range) {
    ck_assert_str_eq(dur(0), "0ns");
    ck_assert_str_eq(dur(812), "812ns");
    ck_assert_str_eq(dur(56.8e3), "56.8us");
    ck_assert_str_eq(dur(156.8e3), "157us");
    ck_assert_str_eq(dur(9.4e6), "9.4ms");
    ck_assert_str_eq(dur(12.1e9), "12.1s");
    ck_assert_str_eq(dur(4.0), "4.0ns");
    ck_assert_str_eq(dur(NAN), "n/a");
}
END_TEST

START_TEST(durations_below_a_nanosecond_never_read_zero) {
    ck_assert_str_eq(dur(0.25), "250ps");
    ck_assert_str_eq(dur(0.04), "40.0ps");
    ck_assert_str_eq(dur(0.000123), "123fs");
    ck_assert_str_eq(dur(2.0e-6), "2.0fs");
    ck_assert_str_eq(dur(1e-13), "1.0e-13ns");
    ck_assert_str_eq(dur(2.5e-13), "2.5e-13ns");
}
END_TEST

START_TEST(durations_too_long_for_days_and_hours) {
    ck_assert_str_eq(dur(86400e9 * 3 + 3600e9 * 4), "3d 4h");
    ck_assert_str_eq(dur(86400e9 * 2e6), "2.0e+06d");
    ck_assert_str_eq(dur(INFINITY), "n/a");
}
END_TEST

START_TEST(rates_take_prefixes_then_powers_of_ten) {
    ck_assert_str_eq(rate(6377), "6,377.0/s");
    ck_assert_str_eq(rate(1.2e6), "1.2M/s");
    ck_assert_str_eq(rate(999999.99), "1.0M/s");
    ck_assert_str_eq(rate(248.1e6), "248.1M/s");
    ck_assert_str_eq(rate(3.5e9), "3.5G/s");
    ck_assert_str_eq(rate(9.1e18), "9.1E/s");
    ck_assert_str_eq(rate(9077559203371.0e9), "9.1e+21/s");
    ck_assert_str_eq(rate(4.2e12), "4.2T/s");
    ck_assert_str_eq(rate(7.0e15), "7.0P/s");
    ck_assert_str_eq(rate(3.6e21), "3.6e+21/s");
    ck_assert_str_eq(rate(-2.0e9), "-2.0G/s");
    ck_assert_str_eq(rate(INFINITY), "n/a");
}
END_TEST

START_TEST(bytes_up_to_exabytes) {
    ck_assert_str_eq(bytes(512), "512 B");
    ck_assert_str_eq(bytes(40.0e6), "40.0 MB");
    ck_assert_str_eq(bytes(2.5e15), "2.5 PB");
    ck_assert_str_eq(bytes(4.0e18), "4.0 EB");
}
END_TEST

/* Phase paths cut from the left keep their innermost names, where paths
 * that share a first part differ. */
START_TEST(paths_cut_from_the_left_keep_their_end) {
    char buf[64];
    strcpy(buf, "iteration/self_play/mcts");
    fmt_fit_left(buf, sizeof buf, 24, 1);
    ck_assert_str_eq(buf, "iteration/self_play/mcts"); /* fits: untouched */
    fmt_fit_left(buf, sizeof buf, 10, 1);
    ck_assert_str_eq(buf, "\xe2\x80\xa6play/mcts");
    ck_assert_uint_eq(fmt_width(buf), 10);
    strcpy(buf, "iteration/self_play/mcts");
    fmt_fit_left(buf, sizeof buf, 10, 0);
    ck_assert_str_eq(buf, "...ay/mcts");
    /* Wide characters count two columns, and are never split. */
    strcpy(buf, "a/\xe6\xbc\xa2\xe5\xad\x97/b");
    fmt_fit_left(buf, sizeof buf, 5, 1);
    ck_assert_str_eq(buf, "\xe2\x80\xa6\xe5\xad\x97/b");
    strcpy(buf, "abcdef");
    fmt_fit_left(buf, sizeof buf, 0, 1);
    ck_assert_str_eq(buf, "");
}
END_TEST

int main(void) {
    Suite *s = suite_create("fmt");
    TCase *tc = tcase_create("magnitudes");
    tcase_add_test(tc, durations_in_their_usual_range);
    tcase_add_test(tc, durations_below_a_nanosecond_never_read_zero);
    tcase_add_test(tc, durations_too_long_for_days_and_hours);
    tcase_add_test(tc, rates_take_prefixes_then_powers_of_ten);
    tcase_add_test(tc, bytes_up_to_exabytes);
    tcase_add_test(tc, paths_cut_from_the_left_keep_their_end);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
