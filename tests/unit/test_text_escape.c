/* Names from logs are data: the escaping every printer goes through. */
#include "fmt.h"
#include "json_out.h"
#include "text_escape.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static const char *esc(const char *in, size_t n, unsigned flags) {
    static char out[512];
    size_t need = scope_escape((const uint8_t *)in, n, out, sizeof out, flags);
    ck_assert_uint_lt(need, sizeof out);
    ck_assert_uint_eq(strlen(out), need);
    return out;
}

#define ESC(lit) esc(lit, sizeof(lit) - 1, 0)

START_TEST(plain_ascii_and_utf8_pass_through) {
    ck_assert_str_eq(ESC("iteration/self_play"), "iteration/self_play");
    ck_assert_str_eq(ESC("r\xc3\xa9sum\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80"),
                     "r\xc3\xa9sum\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80");
    ck_assert_str_eq(ESC(""), "");
}
END_TEST

START_TEST(control_characters_are_escaped) {
    ck_assert_str_eq(ESC("a\x1b[31mred\x07"), "a\\x1b[31mred\\x07");
    ck_assert_str_eq(ESC("tab\tnl\ncr\r"), "tab\\x09nl\\x0acr\\x0d");
    ck_assert_str_eq(ESC("del\x7f"), "del\\x7f");
    ck_assert_str_eq(esc("nul\0x", 5, 0), "nul\\x00x");
    /* U+009B is a single-character CSI on some terminals. */
    ck_assert_str_eq(ESC("c1\xc2\x9b"), "c1\\u009b");
    ck_assert_str_eq(ESC("\xc2\x85"), "\\u0085");
}
END_TEST

/* Characters that reorder or hide the text around them: a name holding
 * U+202E shows "exe.txt" for the bytes "txt.exe". */
START_TEST(format_characters_are_escaped) {
    ck_assert_str_eq(ESC("a\u202etxt.exe"), "a\\u202etxt.exe");
    ck_assert_str_eq(ESC("\u202a\u202b\u202c\u202d"), "\\u202a\\u202b\\u202c\\u202d");
    ck_assert_str_eq(ESC("\u2066\u2067\u2068\u2069"), "\\u2066\\u2067\\u2068\\u2069");
    ck_assert_str_eq(ESC("\u200e\u200f\u061c"), "\\u200e\\u200f\\u061c");
    ck_assert_str_eq(ESC("z\u200bw\u200c\u200d\u2060\ufeff"),
                     "z\\u200bw\\u200c\\u200d\\u2060\\ufeff");
    ck_assert_str_eq(ESC("line\u2028para\u2029"), "line\\u2028para\\u2029");
    /* Their neighbours are ordinary text. */
    ck_assert_str_eq(ESC("\u200a\u2030\u2065\u206a\ufefe\u061b"),
                     "\u200a\u2030\u2065\u206a\ufefe\u061b");
    ck_assert(scope_is_hidden_format(0x202e) && !scope_is_hidden_format(0x202f));
    ck_assert(scope_is_control(0x7f) && scope_is_control(0x9f) && !scope_is_control(0xa0));
}
END_TEST

/* JSON: every control character (C0, DEL, C1) and every format character
 * as \uXXXX, so no byte of them is in the document; decoding gives back the
 * recorded name. */
START_TEST(json_escapes_controls_and_format_characters) {
    static const char name[] =
        "a\x01\x1b\x7f\xc2\x85\xc2\x9b\u202e\u2066\u200b\ufeff\u2028\"\\/\n\t"
        "\xc3\xa9\xe4\xbc\x91";
    json_out j = {0};
    cJSON *root = jo_document(&j, "test/1");
    jo_name(&j, root, "name", (run_str){name, sizeof name - 1});
    jo_str(&j, root, "dir", "run\u202e\xff"); /* not UTF-8: its escaped form */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(jo_finish(&j, root, f), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "\"a\\u0001\\u001b\\u007f\\u0085\\u009b\\u202e\\u2066\\u200b"
                                       "\\ufeff\\u2028\\\"\\\\/\\n\\t\xc3\xa9\xe4\xbc\x91\""));
    ck_assert_ptr_nonnull(strstr(text, "\"run\\\\u202e\\\\xff\""));
    cJSON *back = cJSON_Parse(text);
    ck_assert_ptr_nonnull(back);
    ck_assert_str_eq(cJSON_GetObjectItem(back, "name")->valuestring, name);
    cJSON_Delete(back);
    free(text);
}
END_TEST

START_TEST(invalid_utf8_is_escaped_bytewise) {
    ck_assert_str_eq(ESC("\xff\xfe"), "\\xff\\xfe");
    ck_assert_str_eq(ESC("\xc3\x28"), "\\xc3(");                       /* bad continuation */
    ck_assert_str_eq(ESC("\xc0\xaf"), "\\xc0\\xaf");                   /* overlong '/' */
    ck_assert_str_eq(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80");          /* surrogate */
    ck_assert_str_eq(ESC("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"); /* > U+10FFFF */
    ck_assert_str_eq(ESC("cut\xe2\x82"), "cut\\xe2\\x82");             /* sequence cut short */
    ck_assert_str_eq(ESC("\x80"), "\\x80");                            /* stray continuation */
}
END_TEST

START_TEST(backslash_and_quote) {
    ck_assert_str_eq(ESC("a\\x1b"), "a\\\\x1b"); /* an escape-looking name stays distinct */
    ck_assert_str_eq(ESC("say \"hi\""), "say \"hi\"");
    ck_assert_str_eq(esc("say \"hi\"", 8, SCOPE_ESCAPE_QUOTE), "say \\\"hi\\\"");
}
END_TEST

/* A cut keeps whole pieces only: never half an escape, never part of a
 * UTF-8 sequence, so what is shown stays valid, harmless text. */
START_TEST(truncated_output_is_terminated_and_sized) {
    char out[6];
    size_t need = scope_escape((const uint8_t *)"\x1b\x1b\x1b", 3, out, sizeof out, 0);
    ck_assert_uint_eq(need, 12);
    ck_assert_str_eq(out, "\\x1b");
    /* "a" then U+20AC (3 bytes): 4 bytes of room hold "a" and a NUL only. */
    char small[4];
    need = scope_escape((const uint8_t *)"a\xe2\x82\xac", 4, small, sizeof small, 0);
    ck_assert_uint_eq(need, 4);
    ck_assert_str_eq(small, "a");
    char room[5];
    scope_escape((const uint8_t *)"a\xe2\x82\xac", 4, room, sizeof room, 0);
    ck_assert_str_eq(room, "a\xe2\x82\xac");
}
END_TEST

/* Role titles: ASCII letters upper-cased, escapes left as they are. */
/* A terminal whose locale is not UTF-8 gets every character beyond ASCII
 * as an escape; controls and bad bytes are escaped as always. */
START_TEST(ascii_flag_escapes_beyond_ascii) {
    char out[128];
    const char *in = "a\xe4\xbc\x91\xf0\x9f\x98\x80\x1b\xff\xc3\xa9";
    size_t n = scope_escape((const uint8_t *)in, strlen(in), out, sizeof out, SCOPE_ESCAPE_ASCII);
    ck_assert_str_eq(out, "a\\u4f11\\U0001f600\\x1b\\xff\\u00e9");
    ck_assert_uint_eq(n, strlen(out));
    scope_escape((const uint8_t *)in, strlen(in), out, sizeof out, 0);
    ck_assert_str_eq(out, "a\xe4\xbc\x91\xf0\x9f\x98\x80\\x1b\\xff\xc3\xa9");
}
END_TEST

START_TEST(titles_keep_escapes) {
    char out[64];
    const char name[] = "act\x1bor\\b\xc2\x9bx\xff";
    ck_assert_str_eq(fmt_title(out, sizeof out, (run_str){name, sizeof name - 1}),
                     "ACT\\x1bOR\\\\B\\u009bX\\xff");
}
END_TEST

/* The streaming form must agree with the buffer form for long names whose
 * multi-byte characters straddle its internal chunks. */
START_TEST(long_names_stream_like_buffers) {
    uint8_t in[1000];
    for (size_t i = 0; i < sizeof in;) {
        static const uint8_t pieces[][4] = {{0xe6, 0x97, 0xa5, 0},
                                            {0x1b, 0, 0, 0},
                                            {'a', 0, 0, 0},
                                            {0xff, 0, 0, 0},
                                            {0xc3, 0xa9, 0, 0}};
        const uint8_t *p = pieces[(i * 7 + i / 3) % 5];
        for (size_t k = 0; k < 4 && p[k] && i < sizeof in; k++)
            in[i++] = p[k];
    }
    char *want = malloc(4 * sizeof in + 1);
    scope_escape(in, sizeof in, want, 4 * sizeof in + 1, 0);
    char *got = NULL;
    size_t got_len = 0;
    FILE *f = open_memstream(&got, &got_len);
    scope_fput_escaped(f, in, sizeof in, 0);
    fclose(f);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
}
END_TEST

int main(void) {
    Suite *s = suite_create("text_escape");
    TCase *tc = tcase_create("escape");
    tcase_add_test(tc, plain_ascii_and_utf8_pass_through);
    tcase_add_test(tc, control_characters_are_escaped);
    tcase_add_test(tc, format_characters_are_escaped);
    tcase_add_test(tc, json_escapes_controls_and_format_characters);
    tcase_add_test(tc, invalid_utf8_is_escaped_bytewise);
    tcase_add_test(tc, backslash_and_quote);
    tcase_add_test(tc, truncated_output_is_terminated_and_sized);
    tcase_add_test(tc, long_names_stream_like_buffers);
    tcase_add_test(tc, titles_keep_escapes);
    tcase_add_test(tc, ascii_flag_escapes_beyond_ascii);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
