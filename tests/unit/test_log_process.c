/* PROCESS's launcher fields (format 1.5) through the codec: written and read
 * back as given, and a body from before 1.5, which ends after the settings,
 * reads as "no launcher said": empty names and -1. */
#include "record_codec.h"
#include "unit_util.h"

#include <scope/log_format.h>

#include <string.h>

#define B(s) ((scope_bytes){(const uint8_t *)(s), sizeof(s) - 1})

static scope_rec_process decode_process(const uint8_t *body, size_t len,
                                        scope_decode_scratch *scratch) {
    scope_record rec;
    ck_assert_int_eq(scope_record_decode(SCOPE_REC_PROCESS, body, len, &rec, scratch),
                     SCOPE_DECODE_OK);
    return rec.u.process;
}

static int bytes_is(scope_bytes b, const char *s) {
    return b.len == strlen(s) && (b.len == 0 || memcmp(b.ptr, s, b.len) == 0);
}

START_TEST(launcher_fields_round_trip) {
    scope_record rec = {.type = SCOPE_REC_PROCESS};
    rec.u.process = (scope_rec_process){.run_id = B("r1"),
                                        .launcher = B("slurm"),
                                        .array_job_id = B("4242"),
                                        .array_task = 7,
                                        .restarts = 2,
                                        .rank = -1};
    static uint8_t buf[512];
    size_t n = scope_record_encode(&rec, buf, sizeof buf);
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_le(n, sizeof buf);
    scope_decode_scratch scratch = {0};
    scope_rec_process p = decode_process(buf, n, &scratch);
    ck_assert(bytes_is(p.launcher, "slurm"));
    ck_assert(bytes_is(p.array_job_id, "4242"));
    ck_assert_int_eq(p.array_task, 7);
    ck_assert_int_eq(p.restarts, 2);
    scope_decode_scratch_free(&scratch);
}
END_TEST

START_TEST(a_body_before_1_5_has_no_launcher) {
    /* With empty names and -1, the four 1.5 fields take one byte each (a zero
     * length, a zero length, zigzag -1, zigzag -1): the body less those four
     * bytes is the body a 1.4 writer wrote. */
    scope_record rec = {.type = SCOPE_REC_PROCESS};
    rec.u.process = (scope_rec_process){
        .run_id = B("r1"), .host = B("h"), .pid = 9, .array_task = -1, .restarts = -1};
    static uint8_t body[512];
    size_t n = scope_record_encode(&rec, body, sizeof body);
    ck_assert_uint_gt(n, 4);
    ck_assert_mem_eq(body + n - 4, "\0\0\1\1", 4);
    scope_decode_scratch scratch = {0};
    scope_rec_process p = decode_process(body, n - 4, &scratch);
    ck_assert(bytes_is(p.host, "h"));
    ck_assert_int_eq(p.pid, 9);
    ck_assert_uint_eq(p.launcher.len, 0);
    ck_assert_uint_eq(p.array_job_id.len, 0);
    ck_assert_int_eq(p.array_task, -1);
    ck_assert_int_eq(p.restarts, -1);
    scope_decode_scratch_free(&scratch);
}
END_TEST

int main(void) {
    Suite *s = suite_create("log_process");
    TCase *tc = tcase_create("process");
    tcase_add_test(tc, launcher_fields_round_trip);
    tcase_add_test(tc, a_body_before_1_5_has_no_launcher);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
