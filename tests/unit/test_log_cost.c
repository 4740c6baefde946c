/*
 * What a hostile log may cost the reader.  A log is read by report, check,
 * compare, dump and the browser, often of a run directory other people write
 * into, so its shape must not decide how long they take:
 *
 * - megabytes of zstd frame magics, each a candidate the resynchronization
 *   has to try, must be scanned in time linear in the file;
 * - frames that inflate a few kilobytes into the largest content a frame may
 *   have (a compression bomb) must be refused as damage, not decoded record
 *   by record for tens of seconds;
 * - and real logs, however compressible, must still read in full.
 *
 * Each limit is on the CPU time the reading thread spends, which a loaded
 * machine does not stretch (waiting for a CPU is not in it), many times what
 * the reader needs here, so that a sanitizer build still meets it, and far
 * below what the shapes cost a reader without the bounds (tens of seconds).
 */
#include "file_header.h"
#include "log_samples.h"
#include "unit_util.h"

#include <scope/log_format.h>

#include <time.h>
#include <zstd.h>

#define MIB ((size_t)1 << 20)

/* CPU seconds a shape may take to read: 10x the worst wall time seen on a
 * loaded machine under ASan, and still a fraction of what the unbounded
 * reader takes. */
#define TIME_LIMIT_S 10.0

static char dir[4096];

static void make_dir(void) {
    unit_tmpdir(dir, sizeof dir);
}

static void remove_dir(void) {
    unit_rmdir(dir);
}

/* This thread's CPU time: what reading costs, whatever else the machine runs. */
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What reading a file through the reader over a file gave, and the CPU time
 * it took. */
typedef struct read_result {
    int rc;
    uint64_t frames, records, skipped;
    size_t ndamage;
    char first_damage[120], last_damage[120];
    double seconds;
} read_result;

static read_result read_file(const char *path) {
    read_result res = {0};
    double t0 = cpu_s();
    scope_log_reader *r;
    char msg[256];
    res.rc = scope_log_reader_open(&r, path, msg, sizeof msg);
    if (res.rc == 0) {
        scope_rec_frame fr;
        scope_record rec;
        while (scope_log_reader_next_frame(r, &fr, NULL)) {
            res.frames++;
            while (scope_log_reader_next_record(r, &rec))
                res.records++;
        }
        res.ndamage = scope_log_reader_damage_count(r);
        for (size_t i = 0; i < res.ndamage; i++)
            res.skipped += scope_log_reader_damage(r, i)->length;
        if (res.ndamage) {
            snprintf(res.first_damage, sizeof res.first_damage, "%s",
                     scope_log_reader_damage(r, 0)->what);
            snprintf(res.last_damage, sizeof res.last_damage, "%s",
                     scope_log_reader_damage(r, res.ndamage - 1)->what);
        }
        scope_log_reader_close(r);
    }
    res.seconds = cpu_s() - t0;
    return res;
}

static void write_bytes(const char *path, const void *data, size_t size) {
    ck_assert_int_eq(log_sample_write_file(path, data, size), 0);
}

/* ---- repeated frame magics ---------------------------------------------- */

static const uint8_t zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};

static void fill_magics(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        p[i] = zstd_magic[i % 4];
}

/* Writes `name` in the test folder: a log header (if `header`) and n bytes
 * of frame magics. */
static void write_magics(const char *name, int header, size_t n, char *path, size_t len) {
    size_t head = header ? SCOPE_LOG_HEADER_SIZE : 0;
    uint8_t *data = malloc(head + n);
    ck_assert_ptr_nonnull(data);
    if (header)
        file_header_build(data, SCOPE_LOG_VERSION_MAJOR, SCOPE_LOG_VERSION_MINOR);
    fill_magics(data + head, n);
    unit_path(path, len, dir, name);
    write_bytes(path, data, head + n);
    free(data);
}

static void assert_in_time(const read_result *res, const char *what) {
    fprintf(stderr, "%s: %.2f s of CPU\n", what, res->seconds);
    ck_assert_msg(res->seconds < TIME_LIMIT_S, "%s took %.1f s of CPU (limit %.0f s)", what,
                  res->seconds, TIME_LIMIT_S);
}

/* A log header followed by MiB of nothing but frame magics: every fourth
 * byte starts a candidate frame whose block sizes claim megabytes. */
START_TEST(test_repeated_magics_after_header) {
    char path[4200];
    write_magics("magics.scope", 1, 4 * MIB, path, sizeof path);
    read_result res = read_file(path);
    assert_in_time(&res, "4 MiB of frame magics after a header");
    ck_assert_int_eq(res.rc, 0);
    ck_assert_uint_eq(res.frames, 0);
    ck_assert_uint_eq(res.skipped, 4 * MIB);
}
END_TEST

/* The same without a header: opening resynchronizes from the first byte. */
START_TEST(test_repeated_magics_without_header) {
    char path[4200];
    write_magics("magics-only.scope", 0, 4 * MIB, path, sizeof path);
    read_result res = read_file(path);
    assert_in_time(&res, "4 MiB of frame magics");
    ck_assert_int_lt(res.rc, 0); /* not a log: nothing in it is a frame */
}
END_TEST

/* Magics between the frames of a real log cost exactly their bytes: every
 * frame before and after them is read. */
START_TEST(test_repeated_magics_between_frames) {
    char path[4200];
    unit_path(path, sizeof path, dir, "real.scope");
    uint64_t off[6], size;
    ck_assert_int_eq(log_sample_write_log(path, 6, 7, off, &size), 0);
    uint8_t *log;
    size_t log_size;
    ck_assert_int_eq(log_sample_read_file(path, &log, &log_size), 0);
    size_t n = 2 * MIB + 3; /* ends inside a magic */
    uint8_t *data = malloc(log_size + n);
    ck_assert_ptr_nonnull(data);
    memcpy(data, log, off[3]);
    fill_magics(data + off[3], n);
    memcpy(data + off[3] + n, log + off[3], log_size - off[3]);
    free(log);
    write_bytes(path, data, log_size + n);
    free(data);

    read_result res = read_file(path);
    assert_in_time(&res, "2 MiB of frame magics between frames");
    ck_assert_int_eq(res.rc, 0);
    ck_assert_uint_eq(res.frames, 6);
    ck_assert_uint_eq(res.skipped, n);
}
END_TEST

/* ---- compression bombs -------------------------------------------------- */

/* A frame as the writer makes one, whose content after its FRAME record is
 * `fill` bytes of `pattern` repeated: compressed at level 1, checksummed,
 * content size recorded.  Returns its compressed size; *out is malloc'd. */
static size_t bomb_frame(uint64_t seq, const uint8_t *pattern, size_t plen, size_t fill,
                         uint8_t **out) {
    scope_record fr = {.type = SCOPE_REC_FRAME};
    fr.u.frame.seq = seq;
    fr.u.frame.mono_ns = 1000000000ull * (seq + 1);
    fr.u.frame.wall_ns = 1700000000000000000ull + fr.u.frame.mono_ns;
    uint8_t body[64];
    size_t blen = scope_record_encode(&fr, body, sizeof body);
    ck_assert_uint_le(blen, sizeof body);
    size_t head = 2 + blen; /* type and length are one byte each here */
    size_t content = head + fill;
    uint8_t *raw = malloc(content);
    ck_assert_ptr_nonnull(raw);
    raw[0] = SCOPE_REC_FRAME;
    raw[1] = (uint8_t)blen;
    memcpy(raw + 2, body, blen);
    for (size_t i = 0; i < fill; i++)
        raw[head + i] = pattern[i % plen];
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ck_assert_ptr_nonnull(c);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1);
    size_t cap = ZSTD_compressBound(content);
    *out = malloc(cap);
    ck_assert_ptr_nonnull(*out);
    size_t cs = ZSTD_compress2(c, *out, cap, raw, content);
    ck_assert_msg(!ZSTD_isError(cs), "%s", ZSTD_getErrorName(cs));
    ZSTD_freeCCtx(c);
    free(raw);
    return cs;
}

/* A header and `nframes` frames of `fill` bytes of `pattern`. */
static size_t write_bomb(const char *path, unsigned nframes, const uint8_t *pattern, size_t plen,
                         size_t fill) {
    uint8_t head[SCOPE_LOG_HEADER_SIZE];
    file_header_build(head, SCOPE_LOG_VERSION_MAJOR, SCOPE_LOG_VERSION_MINOR);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(head, 1, sizeof head, f), sizeof head);
    size_t total = sizeof head;
    for (unsigned i = 0; i < nframes; i++) {
        uint8_t *frame;
        size_t cs = bomb_frame(i, pattern, plen, fill, &frame);
        ck_assert_uint_eq(fwrite(frame, 1, cs, f), cs);
        total += cs;
        free(frame);
    }
    ck_assert_int_eq(fclose(f), 0);
    return total;
}

/* 20 frames, each inflating to the largest content a frame may have, all of
 * it empty records of a kind this reader does not know (two bytes each):
 * about 120 KB that would hand out 670 million records. */
START_TEST(test_bomb_of_empty_records) {
    char path[4200];
    unit_path(path, sizeof path, dir, "bomb.scope");
    static const uint8_t empty_record[2] = {100, 0};
    size_t fill = SCOPE_LOG_MAX_FRAME_CONTENT - 64;
    size_t size = write_bomb(path, 20, empty_record, sizeof empty_record, fill);
    fprintf(stderr, "bomb of empty records: %zu bytes\n", size);

    read_result res = read_file(path);
    assert_in_time(&res, "bomb of empty records");
    ck_assert_int_eq(res.rc, 0);
    ck_assert_msg(res.frames < 20, "every frame of the bomb was read");
    ck_assert_uint_gt(res.ndamage, 0);
    ck_assert_msg(unit_mentions(res.last_damage, "limit"), "damage says \"%s\"", res.last_damage);
}
END_TEST

/* Frames within the limits, full of records the reader finds malformed (a
 * PHASE_AGG with an empty body): a damage report each would cost a report
 * per two bytes of content.  The first few thousand are listed, the rest
 * counted in one report, and every frame is read. */
START_TEST(test_frames_of_malformed_records) {
    char path[4200];
    unit_path(path, sizeof path, dir, "malformed.scope");
    static const uint8_t malformed[2] = {SCOPE_REC_PHASE_AGG, 0};
    write_bomb(path, 4, malformed, sizeof malformed, 32 << 10);

    read_result res = read_file(path);
    fprintf(stderr, "frames of 64K malformed records: %.2f s of CPU, %zu damage reports\n",
            res.seconds, res.ndamage);
    ck_assert_int_eq(res.rc, 0);
    ck_assert_uint_eq(res.frames, 4);
    ck_assert_msg(res.ndamage <= 4097, "%zu damage reports", res.ndamage);
    ck_assert_msg(unit_mentions(res.last_damage, "61440 more malformed records skipped"),
                  "damage says \"%s\"", res.last_damage);
}
END_TEST

/* A header and `nframes` frames of records of an unknown kind, each
 * `body` bytes long: a 4-byte random number, then a repeated phrase. */
static size_t write_compressible(const char *path, unsigned nframes, size_t body, size_t nrec,
                                 uint64_t *content) {
    uint8_t head[SCOPE_LOG_HEADER_SIZE];
    file_header_build(head, SCOPE_LOG_VERSION_MAJOR, SCOPE_LOG_VERSION_MINOR);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(head, 1, sizeof head, f), sizeof head);
    size_t total = sizeof head;
    uint64_t seed = 88172645463325252ull;
    *content = 0;
    for (unsigned i = 0; i < nframes; i++) {
        size_t rlen = 2 + body;
        uint8_t *recs = malloc(rlen * nrec);
        ck_assert_ptr_nonnull(recs);
        for (size_t k = 0; k < nrec; k++) {
            uint8_t *p = recs + k * rlen;
            p[0] = 100;
            p[1] = (uint8_t)body;
            uint64_t x = unit_rand(&seed);
            memcpy(p + 2, &x, 4);
            for (size_t j = 4; j < body; j++)
                p[2 + j] = "phase.checkpoint.write"[j % 22];
        }
        uint8_t *frame;
        /* The pattern is the whole run of records: it is not repeated. */
        size_t cs = bomb_frame(i, recs, rlen * nrec, rlen * nrec, &frame);
        ck_assert_uint_eq(fwrite(frame, 1, cs, f), cs);
        total += cs;
        *content += rlen * nrec;
        free(frame);
        free(recs);
    }
    ck_assert_int_eq(fclose(f), 0);
    return total;
}

/* Compressible logs read in full: frames of records that repeat all but a
 * random number, which zstd shrinks over ten times as much as the logs of
 * real programs (under 2-fold). */
START_TEST(test_compressible_log_reads) {
    char path[4200];
    unit_path(path, sizeof path, dir, "compressible.scope");
    uint64_t content;
    size_t size = write_compressible(path, 200, 120, 4000, &content);
    double ratio = (double)content / (double)size;
    fprintf(stderr, "compressible log: %zu bytes inflating %.1f-fold\n", size, ratio);
    ck_assert_msg(ratio > 20, "the log inflates only %.1f-fold", ratio);

    read_result res = read_file(path);
    ck_assert_int_eq(res.rc, 0);
    ck_assert_msg(res.ndamage == 0, "damage: %s", res.first_damage);
    ck_assert_uint_eq(res.frames, 200);
    ck_assert_uint_eq(res.records, 200ull * 4000);
}
END_TEST

static Suite *cost_suite(void) {
    Suite *s = suite_create("log_cost");
    TCase *tc = tcase_create("cost");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    /* Check's limit only catches a reader that hangs outright; each test
     * asserts its own, tighter limit. */
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_repeated_magics_after_header);
    tcase_add_test(tc, test_repeated_magics_without_header);
    tcase_add_test(tc, test_repeated_magics_between_frames);
    tcase_add_test(tc, test_bomb_of_empty_records);
    tcase_add_test(tc, test_frames_of_malformed_records);
    tcase_add_test(tc, test_compressible_log_reads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return unit_run(cost_suite());
}
