/*
 * The reader over a file reads through a window (1 MiB, grown only for a
 * frame that needs more) so that its memory does not follow the length of
 * the log.  Differential test: for the same bytes it must give exactly what
 * the reader over memory gives (every frame, record and damage report),
 * on a log of several windows with frames larger than a window, intact,
 * damaged at and around window boundaries, cut short there, and with a
 * damaged stretch longer than a window to resynchronize across.
 */
#include "log_samples.h"
#include "unit_util.h"

#include <check.h>
#include <fcntl.h>
#include <scope/log_format.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1u << 20)

static char dir[] = "/tmp/scope-window-XXXXXX";
static uint8_t *log_bytes;
static size_t log_size;

/* A record kind this reader does not know: it skips it by length, which
 * lets the test put incompressible bodies of any size into a frame. */
#define BULK_TYPE 200u

static void write_log(void) {
    char path[64];
    snprintf(path, sizeof path, "%s/big.scope", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    uint8_t *bulk = malloc(3 * MIB / 2);
    ck_assert_ptr_nonnull(bulk);
    uint64_t x = 88172645463325252ull; /* xorshift: incompressible, reproducible */
    for (size_t i = 0; i < 3 * MIB / 2; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        bulk[i] = (uint8_t)x;
    }
    uint64_t t = 1000000000ull;
    for (unsigned f = 0; f < 2600; f++) {
        scope_record rec;
        ck_assert_int_eq(log_sample_record(&rec, SCOPE_REC_PHASE_AGG, f % 3), 0);
        ck_assert_int_eq(scope_log_writer_add(w, &rec), 0);
        ck_assert_int_eq(log_sample_record(&rec, SCOPE_REC_COUNTER, 0), 0);
        ck_assert_int_eq(scope_log_writer_add(w, &rec), 0);
        /* Some frames much larger than the window, some near its size. */
        if (f == 300 || f == 1700)
            ck_assert_int_eq(scope_log_writer_add_raw(w, BULK_TYPE, bulk, 3 * MIB / 2), 0);
        if (f == 900)
            ck_assert_int_eq(scope_log_writer_add_raw(w, BULK_TYPE, bulk, MIB - 100), 0);
        t += 5000000000ull;
        ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, t, t), 0);
    }
    scope_log_writer_free(w);
    close(fd);
    free(bulk);
    ck_assert_int_eq(log_sample_read_file(path, &log_bytes, &log_size), 0);
    ck_assert_uint_gt(log_size, 4 * MIB);
}

static void setup(void) {
    ck_assert_ptr_nonnull(mkdtemp(dir));
    write_log();
}

static void teardown(void) {
    char path[64];
    snprintf(path, sizeof path, "%s/big.scope", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/case.scope", dir);
    unlink(path);
    rmdir(dir);
    free(log_bytes);
}

/* Writes the bytes to a file and requires both readers to agree on them. */
static void same_both_ways(const uint8_t *data, size_t size, const char *what) {
    char path[64];
    snprintf(path, sizeof path, "%s/case.scope", dir);
    ck_assert_int_eq(log_sample_write_file(path, data, size), 0);
    log_sample_dump a, b;
    ck_assert_int_eq(log_sample_dump_mem(data, size, 10000, &a), 0);
    ck_assert_int_eq(log_sample_dump_file(path, 10000, &b), 0);
    ck_assert_msg(a.rc == b.rc, "%s: open %d in memory, %d from the file (%s)", what, a.rc, b.rc,
                  b.msg);
    ck_assert_msg(a.nframes == b.nframes, "%s: %zu frames in memory, %zu from the file", what,
                  a.nframes, b.nframes);
    for (size_t i = 0; i < a.nframes; i++)
        ck_assert_msg(log_sample_frame_equal(&a.frames[i], &b.frames[i]),
                      "%s: frame %zu (at %llu) differs", what, i,
                      (unsigned long long)a.frames[i].offset);
    ck_assert_msg(a.ndamage == b.ndamage, "%s: %zu damage reports in memory, %zu from the file",
                  what, a.ndamage, b.ndamage);
    for (size_t i = 0; i < a.ndamage; i++) {
        const scope_log_damage *x = &a.damage[i], *y = &b.damage[i];
        ck_assert_msg(
            x->offset == y->offset && x->length == y->length && x->frames_lost == y->frames_lost &&
                x->truncated == y->truncated && !strcmp(x->what, y->what),
            "%s: damage %zu: %llu+%llu '%s' in memory, %llu+%llu '%s' from the file", what, i,
            (unsigned long long)x->offset, (unsigned long long)x->length, x->what,
            (unsigned long long)y->offset, (unsigned long long)y->length, y->what);
    }
    log_sample_dump_free(&a);
    log_sample_dump_free(&b);
}

START_TEST(intact_log_reads_the_same) {
    same_both_ways(log_bytes, log_size, "intact");
    log_sample_dump d;
    ck_assert_int_eq(log_sample_dump_mem(log_bytes, log_size, 10000, &d), 0);
    ck_assert_uint_eq(d.nframes, 2600);
    ck_assert_uint_eq(d.ndamage, 0);
    log_sample_dump_free(&d);
}
END_TEST

/* Offsets at and around where the window's refills fall, and inside the
 * frames larger than a window. */
static const size_t spots[] = {MIB - 3,     MIB,          MIB + 1,     2 * MIB - 1,
                               2 * MIB + 2, 3 * MIB - 2,  3 * MIB,     3 * MIB + 7,
                               4 * MIB - 1, 4 * MIB + 11, 5 * MIB / 2, 7 * MIB / 2};

START_TEST(damage_near_window_edges_reads_the_same) {
    uint8_t *copy = malloc(log_size);
    ck_assert_ptr_nonnull(copy);
    for (size_t i = 0; i < sizeof spots / sizeof *spots; i++) {
        size_t at = spots[i] % log_size;
        memcpy(copy, log_bytes, log_size);
        for (size_t k = 0; k < 8 && at + k < log_size; k++)
            copy[at + k] ^= 0x5a;
        char what[64];
        snprintf(what, sizeof what, "8 bytes flipped at %zu", at);
        same_both_ways(copy, log_size, what);
    }
    free(copy);
}
END_TEST

START_TEST(cuts_near_window_edges_read_the_same) {
    for (size_t i = 0; i < sizeof spots / sizeof *spots; i++) {
        size_t at = spots[i] % log_size;
        char what[64];
        snprintf(what, sizeof what, "cut at %zu", at);
        same_both_ways(log_bytes, at, what);
    }
}
END_TEST

/* Garbage longer than a window, header included: the reader must scan
 * across refills to find the first intact frame. */
START_TEST(resync_across_windows_reads_the_same) {
    uint8_t *copy = malloc(log_size);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, log_bytes, log_size);
    memset(copy, 0x28, 5 * MIB / 2); /* 0x28 is the magic's first byte: many near misses */
    same_both_ways(copy, log_size, "2.5 MiB of garbage first");
    memcpy(copy, log_bytes, log_size);
    memset(copy + MIB / 2, 0, 2 * MIB);
    same_both_ways(copy, log_size, "2 MiB of zeros inside");

    /* Zeros, then the log from its second frame on, placed so that the
     * frame's magic straddles the end of the first window the scan reads. */
    log_sample_dump d;
    ck_assert_int_eq(log_sample_dump_mem(log_bytes, log_size, 10000, &d), 0);
    size_t second = (size_t)d.frames[1].offset;
    log_sample_dump_free(&d);
    size_t lead = MIB - 2, size = lead + (log_size - second);
    uint8_t *shifted = calloc(1, size);
    ck_assert_ptr_nonnull(shifted);
    memcpy(shifted + lead, log_bytes + second, log_size - second);
    same_both_ways(shifted, size, "a frame straddling the first window's end");
    ck_assert_int_eq(log_sample_dump_mem(shifted, size, 10000, &d), 0);
    ck_assert_uint_eq(d.frames[0].offset, lead);
    log_sample_dump_free(&d);
    free(shifted);
    free(copy);
}
END_TEST

int main(void) {
    Suite *s = suite_create("log_window");
    TCase *tc = tcase_create("window");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, intact_log_reads_the_same);
    tcase_add_test(tc, damage_near_window_edges_reads_the_same);
    tcase_add_test(tc, cuts_near_window_edges_read_the_same);
    tcase_add_test(tc, resync_across_windows_reads_the_same);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
