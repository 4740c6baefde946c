/* scope/host_dir.h: host names as folder names under RUN/workers. */
#include "unit_util.h"

#include <scope/host_dir.h>

#include <string.h>

static void expect_folder(const char *host, size_t len, const char *want) {
    char folder[SCOPE_HOST_DIR_CAP], back[SCOPE_HOST_DIR_CAP];
    ck_assert_int_eq(scope_host_dir_encode(host, len, folder, sizeof folder), (int)strlen(want));
    ck_assert_str_eq(folder, want);
    ck_assert_int_eq(scope_host_dir_decode(folder, back, sizeof back), (int)len);
    ck_assert_mem_eq(back, host, len);
}

START_TEST(names_that_would_hide_a_log_get_a_folder_of_their_own) {
    expect_folder("node07", 6, "node07");
    expect_folder("n-1.cluster.example", 19, "n-1.cluster.example");
    expect_folder(".", 1, "%2E");
    expect_folder("..", 2, "%2E.");
    expect_folder(".x", 2, "%2Ex");
    expect_folder("", 0, "%");
    expect_folder("a/b", 3, "a%2Fb");
    expect_folder("%41", 3, "%2541");
    expect_folder("x y\x01\x7f\xe2\x80\xae", 8, "x%20y%01%7F%E2%80%AE");
}
END_TEST

/* Every byte but NUL, first and later in a name: a folder that is one safe
 * name (no '/', not starting with '.', printable), and back again. */
START_TEST(every_byte_round_trips_into_a_safe_name) {
    for (int c = 1; c < 256; c++) {
        char host[3] = {(char)c, (char)c, 0}, folder[SCOPE_HOST_DIR_CAP], back[8];
        int n = scope_host_dir_encode(host, 2, folder, sizeof folder);
        ck_assert_int_gt(n, 0);
        ck_assert_ptr_null(strchr(folder, '/'));
        ck_assert_int_ne(folder[0], '.');
        for (int i = 0; i < n; i++)
            ck_assert(folder[i] > ' ' && folder[i] < 0x7f);
        ck_assert_int_eq(scope_host_dir_decode(folder, back, sizeof back), 2);
        ck_assert_mem_eq(back, host, 2);
    }
}
END_TEST

/* One folder per host: any other spelling is not an encoding. */
START_TEST(only_the_encoders_spelling_decodes) {
    static const char *const not_folders[] = {"",    ".",   "..",   ".x",  "%2e",  "a%2", "a%",
                                              "%00", "%41", "a%2E", "x y", "a%zz", NULL};
    char back[SCOPE_HOST_DIR_CAP];
    for (int i = 0; not_folders[i]; i++)
        ck_assert_msg(scope_host_dir_decode(not_folders[i], back, sizeof back) == -1,
                      "'%s' decoded", not_folders[i]);
}
END_TEST

START_TEST(what_does_not_fit_is_refused) {
    char host[100], folder[SCOPE_HOST_DIR_CAP], small[4];
    memset(host, '/', sizeof host); /* 300 bytes encoded */
    ck_assert_int_eq(scope_host_dir_encode(host, sizeof host, folder, sizeof folder), -1);
    ck_assert_int_eq(scope_host_dir_encode("abcd", 4, small, sizeof small), -1);
    ck_assert_int_eq(scope_host_dir_encode("abc", 3, small, sizeof small), 3);
    ck_assert_int_eq(scope_host_dir_decode("abcd", small, sizeof small), -1);
}
END_TEST

int main(void) {
    Suite *s = suite_create("host_dir");
    TCase *tc = tcase_create("host_dir");
    tcase_add_test(tc, names_that_would_hide_a_log_get_a_folder_of_their_own);
    tcase_add_test(tc, every_byte_round_trips_into_a_safe_name);
    tcase_add_test(tc, only_the_encoders_spelling_decodes);
    tcase_add_test(tc, what_does_not_fit_is_refused);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
