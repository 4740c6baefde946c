/* Marks of format 1.1 and 1.0 through the codec: an unbalanced mark says
 * what it counts in subkind and value2; one written by 1.0 is classified
 * from its text once, by the decoder; every other kind keeps its 1.0 body. */
#include "log_samples.h"
#include "record_codec.h"
#include "unit_util.h"

#include <scope/log_format.h>

/* Decodes a MARK body; fails the test when it does not decode. */
static scope_rec_mark decode_mark(const uint8_t *body, size_t len) {
    scope_decode_scratch scratch = {0};
    scope_record rec;
    ck_assert_int_eq(scope_record_decode(SCOPE_REC_MARK, body, len, &rec, &scratch),
                     SCOPE_DECODE_OK);
    scope_decode_scratch_free(&scratch);
    return rec.u.mark;
}

static scope_rec_mark decode_1_0(uint32_t kind, int64_t value, const char *text) {
    static uint8_t body[256];
    size_t n = log_sample_mark_1_0(body, sizeof body, kind, 3, 42, value, text);
    ck_assert_uint_le(n, sizeof body);
    return decode_mark(body, n);
}

START_TEST(unbalanced_1_0_marks_are_classified_by_their_text) {
    scope_rec_mark m = decode_1_0(SCOPE_MARK_UNBALANCED, 7, "scope_phase_end() with no phase open");
    ck_assert_uint_eq(m.subkind, SCOPE_UNBALANCED_END_EMPTY);
    ck_assert_int_eq(m.value, 7);
    ck_assert_int_eq(m.value2, 0);
    ck_assert_uint_eq(m.thread, 3);

    m = decode_1_0(SCOPE_MARK_UNBALANCED, 12, "3 phase(s) still open at exit");
    ck_assert_uint_eq(m.subkind, SCOPE_UNBALANCED_LEFT_OPEN);
    ck_assert_int_eq(m.value, 12);
    ck_assert_int_eq(m.value2, 3);

    /* Any other wording stood for one phase left open. */
    static const char *const others[] = {"", "0 phase(s) still open", "phases still open",
                                         "12345678901 phase(s) still open", "4 phase(s)"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        m = decode_1_0(SCOPE_MARK_UNBALANCED, 1, others[i]);
        ck_assert_msg(m.subkind == SCOPE_UNBALANCED_LEFT_OPEN && m.value2 == 1, "'%s': %u %lld",
                      others[i], m.subkind, (long long)m.value2);
    }
}
END_TEST

START_TEST(unbalanced_1_1_marks_keep_their_fields) {
    /* A subkind in the fields wins over anything the text says. */
    scope_record rec = {.type = SCOPE_REC_MARK,
                        .u.mark = {.kind = SCOPE_MARK_UNBALANCED,
                                   .thread = 2,
                                   .value = 9,
                                   .text = {(const uint8_t *)"scope_phase_end() 5 phase(s)", 28},
                                   .subkind = SCOPE_UNBALANCED_LEFT_OPEN,
                                   .value2 = 4}};
    uint8_t body[128];
    size_t n = scope_record_encode(&rec, body, sizeof body);
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_le(n, sizeof body);
    scope_rec_mark m = decode_mark(body, n);
    ck_assert_uint_eq(m.subkind, SCOPE_UNBALANCED_LEFT_OPEN);
    ck_assert_int_eq(m.value, 9);
    ck_assert_int_eq(m.value2, 4);

    /* A subkind this reader does not know comes through as it is. */
    rec.u.mark.subkind = 77;
    n = scope_record_encode(&rec, body, sizeof body);
    ck_assert_uint_eq(decode_mark(body, n).subkind, 77);
}
END_TEST

START_TEST(other_marks_keep_the_1_0_body) {
    uint8_t old[128], cur[128];
    scope_record rec = {.type = SCOPE_REC_MARK,
                        .u.mark = {.kind = SCOPE_MARK_SHUTDOWN,
                                   .mono_ns = 42,
                                   .thread = 3,
                                   .value = SCOPE_SHUTDOWN_CALL,
                                   .text = {(const uint8_t *)"bye", 3}}};
    size_t n_old = log_sample_mark_1_0(old, sizeof old, SCOPE_MARK_SHUTDOWN, 3, 42,
                                       SCOPE_SHUTDOWN_CALL, "bye");
    size_t n_cur = scope_record_encode(&rec, cur, sizeof cur);
    ck_assert_uint_eq(n_cur, n_old);
    ck_assert_mem_eq(cur, old, n_old);
    /* Subkind fields on a kind without them cannot be written. */
    rec.u.mark.value2 = 1;
    ck_assert_uint_eq(scope_record_encode(&rec, cur, sizeof cur), 0);
}
END_TEST

START_TEST(names_of_kinds_and_subkinds) {
    ck_assert_str_eq(scope_mark_kind_name(SCOPE_MARK_UNBALANCED), "unbalanced");
    ck_assert_str_eq(scope_unbalanced_subkind_name(SCOPE_UNBALANCED_END_EMPTY), "end-empty");
    ck_assert_str_eq(scope_unbalanced_subkind_name(SCOPE_UNBALANCED_LEFT_OPEN), "left-open");
    ck_assert_str_eq(scope_unbalanced_subkind_name(SCOPE_UNBALANCED_SUBKIND_LIMIT), "unknown");
    ck_assert_str_eq(scope_rec_type_name(SCOPE_REC_STACK_SAMPLES), "STACK_SAMPLES");
    ck_assert_str_eq(scope_rec_type_name(SCOPE_REC_TYPE_LIMIT), "UNKNOWN");
    ck_assert_str_eq(scope_mark_kind_name(SCOPE_MARK_FOLDED), "folded");
    ck_assert_int_eq(SCOPE_LOG_VERSION_MINOR, 10);
    ck_assert_str_eq(scope_rec_type_name(SCOPE_REC_OFFCPU_SAMPLES), "OFFCPU_SAMPLES");
}
END_TEST

int main(void) {
    Suite *s = suite_create("log_marks");
    TCase *tc = tcase_create("marks");
    tcase_add_test(tc, unbalanced_1_0_marks_are_classified_by_their_text);
    tcase_add_test(tc, unbalanced_1_1_marks_keep_their_fields);
    tcase_add_test(tc, other_marks_keep_the_1_0_body);
    tcase_add_test(tc, names_of_kinds_and_subkinds);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
