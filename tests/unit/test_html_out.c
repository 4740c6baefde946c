/* The HTML pages' one escaping function (html_out.h): names from logs stay
 * text in element content and quoted attributes alike. */
#include "html_out.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What html_text writes for n bytes (malloc'd). */
static char *html(const char *in, size_t n) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    html_text(f, in, n);
    fclose(f);
    return buf;
}

#define HTML_EQ(lit, want)                                                                         \
    do {                                                                                           \
        char *got = html(lit, sizeof(lit) - 1);                                                    \
        ck_assert_str_eq(got, want);                                                               \
        free(got);                                                                                 \
    } while (0)

START_TEST(specials_become_entities) {
    HTML_EQ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
    HTML_EQ("a\"b'c&d", "a&quot;b&#39;c&amp;d");
    /* An entity in a name is its characters, not what it names. */
    HTML_EQ("&lt;", "&amp;lt;");
    HTML_EQ("plain/name \xe4\xbc\x91", "plain/name \xe4\xbc\x91");
}
END_TEST

START_TEST(hidden_characters_become_visible_escapes) {
    HTML_EQ("bidi\xe2\x80\xae"
            "evil",
            "bidi\\u202eevil");
    HTML_EQ("esc\x1b[31m", "esc\\x1b[31m");
    HTML_EQ("ls\xe2\x80\xa8"
            "ps\xe2\x80\xa9",
            "ls\\u2028ps\\u2029");
    char *got = html("nul\0<", 5);
    ck_assert_str_eq(got, "nul\\x00&lt;");
    free(got);
    HTML_EQ("bad\xff<", "bad\\xff&lt;");
}
END_TEST

START_TEST(long_names_are_escaped_whole) {
    char in[3000], want[3000 * 4 + 1];
    size_t w = 0;
    for (size_t i = 0; i < sizeof in; i++) {
        in[i] = i % 3 ? 'x' : '<';
        const char *e = i % 3 ? "x" : "&lt;";
        memcpy(want + w, e, strlen(e));
        w += strlen(e);
    }
    want[w] = '\0';
    char *got = html(in, sizeof in);
    ck_assert_str_eq(got, want);
    free(got);
}
END_TEST

/* What write writes (malloc'd). */
static char *written(void (*write)(FILE *f)) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    write(f);
    fclose(f);
    return buf;
}

static void figure_cells(FILE *f) {
    html_fig_cell(f, PF_TOTAL, (pf_value){12345678901234567ull, 12345678901234567.0}, "total_ns");
    html_fig_cell(f, PF_WAIT, (pf_value){0, 0.0 / 0.0}, "wait");
}

/* A figure's cell: the exact value for the tables and the tests, n/a and
 * null where not measured. */
START_TEST(figure_cells_carry_exact_values) {
    char *buf = written(figure_cells);
    ck_assert_ptr_nonnull(strstr(buf, "data-k=\"total_ns\" data-v=\"12345678901234567\""));
    ck_assert_ptr_nonnull(strstr(buf, "data-k=\"wait\" data-v=\"null\""));
    ck_assert_ptr_nonnull(strstr(buf, ">n/a</td>"));
    free(buf);
}
END_TEST

static void number_cells(FILE *f) {
    html_u64_cell(f, "disk_read", 9007199254740993ull, 1, " bytes", "8 PB");
    html_u64_cell(f, "rss_peak", 0, 0, " bytes", "0 B");
    html_i64_cell(f, "total", -9007199254740993ll, "-9.0e15");
    html_num_cell(f, "a.change", 1.0 / 0.0, "+inf");
}

/* The other exact cells go through the same writer: an integer whole past
 * 2^53 (a double would round it), a count not measured n/a and null, an
 * infinity null in data-v as JSON writes it. */
START_TEST(number_cells_carry_exact_values) {
    char *buf = written(number_cells);
    ck_assert_ptr_nonnull(
        strstr(buf, "data-k=\"disk_read\" data-v=\"9007199254740993\" title=\"9007199254740993 "
                    "bytes\">8 PB</td>"));
    ck_assert_ptr_nonnull(strstr(buf, "data-k=\"rss_peak\" data-v=\"null\">n/a</td>"));
    ck_assert_ptr_nonnull(strstr(buf, "data-k=\"total\" data-v=\"-9007199254740993\""));
    ck_assert_ptr_nonnull(strstr(buf, "data-k=\"a.change\" data-v=\"null\""));
    ck_assert_ptr_nonnull(strstr(buf, ">+inf</td>"));
    free(buf);
}
END_TEST

/* One top-k for the spread and I/O tables: the largest keys, largest
 * first, and a count of those offered past the cap. */
START_TEST(top_phases_keep_the_largest) {
    run_phase ph[6];
    const run_phase *v[3];
    double key[3];
    html_top_phases t = {v, key, 0, 3, 0};
    const double keys[6] = {5, 1, 9, 7, 3, 9.5};
    for (int i = 0; i < 6; i++)
        html_top_offer(&t, &ph[i], keys[i]);
    ck_assert_uint_eq(t.n, 3);
    ck_assert_uint_eq(t.more, 3);
    ck_assert_ptr_eq(v[0], &ph[5]);
    ck_assert_ptr_eq(v[1], &ph[2]);
    ck_assert_ptr_eq(v[2], &ph[3]);
    ck_assert_double_eq(key[2], 7);
    html_top_phases none = {v, key, 0, 0, 0};
    html_top_offer(&none, &ph[0], 1);
    ck_assert_uint_eq(none.n, 0);
    ck_assert_uint_eq(none.more, 1);
}
END_TEST

int main(void) {
    Suite *s = suite_create("html_out");
    TCase *tc = tcase_create("escape");
    tcase_add_test(tc, specials_become_entities);
    tcase_add_test(tc, hidden_characters_become_visible_escapes);
    tcase_add_test(tc, long_names_are_escaped_whole);
    tcase_add_test(tc, figure_cells_carry_exact_values);
    tcase_add_test(tc, number_cells_carry_exact_values);
    tcase_add_test(tc, top_phases_keep_the_largest);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
