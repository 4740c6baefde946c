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

/* A figure's cell: the exact value for the tables and the tests, n/a and
 * null where not measured. */
START_TEST(figure_cells_carry_exact_values) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    html_fig_cell(f, PF_TOTAL, (pf_value){12345678901234567ull, 12345678901234567.0}, "total_ns");
    html_fig_cell(f, PF_WAIT, (pf_value){0, 0.0 / 0.0}, "wait");
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "data-k=\"total_ns\" data-v=\"12345678901234567\""));
    ck_assert_ptr_nonnull(strstr(buf, "data-k=\"wait\" data-v=\"null\""));
    ck_assert_ptr_nonnull(strstr(buf, ">n/a</td>"));
    free(buf);
}
END_TEST

int main(void) {
    Suite *s = suite_create("html_out");
    TCase *tc = tcase_create("escape");
    tcase_add_test(tc, specials_become_entities);
    tcase_add_test(tc, hidden_characters_become_visible_escapes);
    tcase_add_test(tc, long_names_are_escaped_whole);
    tcase_add_test(tc, figure_cells_carry_exact_values);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
