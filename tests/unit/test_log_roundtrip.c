/* Round trips through the real writer and reader: every record kind with
 * typical, extreme, empty and large values; unknown kinds and trailing bytes
 * (how newer minor versions stay readable); malformed bodies; and the sample
 * logs the fuzz corpus and benchmarks are made from. */
#include "log_samples.h"
#include "unit_util.h"
#include "varint.h"

#include <scope/log_format.h>
#include <scope/log_hist.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static char dir[4096];
static char path[4200];

/* Made once per test case in the runner, so that it is removed even when a
 * test fails (a failing test ends its process at once). */
static void make_dir(void) {
    unit_tmpdir(dir, sizeof dir);
    unit_path(path, sizeof path, dir, "w_test.scope");
}

static void remove_dir(void) {
    unit_rmdir(dir);
}

static scope_log_writer *open_writer(int *fd, const scope_log_writer_options *opt) {
    *fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    ck_assert_msg(*fd >= 0, "open(%s): %s", path, strerror(errno));
    scope_log_writer *w = NULL;
    int rc = scope_log_writer_open(&w, *fd, opt);
    ck_assert_msg(rc == 0 && w, "scope_log_writer_open: %d", rc);
    return w;
}

static void close_writer(scope_log_writer *w, int fd) {
    scope_log_writer_free(w);
    ck_assert_int_eq(close(fd), 0);
}

static scope_log_reader *open_reader(void) {
    scope_log_reader *r = NULL;
    char msg[256] = "";
    int rc = scope_log_reader_open(&r, path, msg, sizeof msg);
    ck_assert_msg(rc == 0 && r, "scope_log_reader_open: %d (%s)", rc, msg);
    /* Records as written: a RESOURCE_BATCH as itself (test_batches_read_as_intervals
     * reads them as users of the reader do). */
    scope_log_reader_whole_batches(r, 1);
    return r;
}

/* Fails with every damage report spelled out: they say what went wrong. */
static void assert_no_damage(const scope_log_reader *r) {
    size_t n = scope_log_reader_damage_count(r);
    for (size_t i = 0; i < n; i++) {
        const scope_log_damage *d = scope_log_reader_damage(r, i);
        fprintf(stderr, "damage %zu: offset %llu length %llu lost %llu truncated %d: %s\n", i,
                (unsigned long long)d->offset, (unsigned long long)d->length,
                (unsigned long long)d->frames_lost, d->truncated, d->what);
    }
    ck_assert_msg(n == 0, "%zu damage reports on an intact log", n);
}

static int next_record(scope_log_reader *r, scope_record *rec) {
    return scope_log_reader_next_record(r, rec);
}

/* rec.raw must be exactly the body the encoder produces for `want`. */
static void assert_raw_is_encoding(const scope_record *want, const scope_record *got,
                                   const char *what) {
    size_t need = scope_record_encode(want, NULL, 0);
    ck_assert_msg(need > 0, "%s: scope_record_encode refused the sample", what);
    uint8_t *buf = malloc(need);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(scope_record_encode(want, buf, need), need);
    ck_assert_msg(got->raw.len == need && memcmp(got->raw.ptr, buf, need) == 0,
                  "%s: raw body (%zu bytes) is not the encoding (%zu bytes)", what, got->raw.len,
                  need);
    free(buf);
}

/* ---- every kind, every variant ---------------------------------------- */

START_TEST(test_roundtrip_every_kind) {
    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    scope_record rec, fr;
    /* One frame per variant, closed with that variant's FRAME values, so the
     * FRAME record's extremes travel too. */
    for (unsigned v = 0; v < LOG_SAMPLE_VARIANTS; v++) {
        for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++) {
            if (!scope_rec_type_known(t))
                continue; /* a number another minor version holds */
            ck_assert_int_eq(log_sample_record(&rec, t, v), 0);
            int rc = scope_log_writer_add(w, &rec);
            ck_assert_msg(rc == 0, "add %s variant %u: %d", scope_rec_type_name(t), v, rc);
        }
        ck_assert_int_eq(log_sample_record(&fr, SCOPE_REC_FRAME, v), 0);
        long n = scope_log_writer_close_frame(w, fr.u.frame.reason, fr.u.frame.mono_ns,
                                              fr.u.frame.wall_ns);
        ck_assert_msg(n > 0, "close_frame variant %u: %ld", v, n);
    }
    close_writer(w, fd);

    scope_log_reader *r = open_reader();
    ck_assert_int_eq(next_record(r, &rec), 0); /* no frame open yet */
    const scope_log_info *info = scope_log_reader_info(r);
    ck_assert_int_eq(info->version_major, SCOPE_LOG_VERSION_MAJOR);
    ck_assert_int_eq(info->version_minor, SCOPE_LOG_VERSION_MINOR);
    ck_assert_int_eq(info->header_ok, 1);

    for (unsigned v = 0; v < LOG_SAMPLE_VARIANTS; v++) {
        scope_rec_frame f;
        uint64_t off = 0;
        ck_assert_msg(scope_log_reader_next_frame(r, &f, &off) == 1, "frame %u missing", v);
        ck_assert_uint_ge(off, SCOPE_LOG_HEADER_SIZE);
        log_sample_record(&fr, SCOPE_REC_FRAME, v);
        ck_assert_uint_eq(f.seq, v);
        ck_assert_uint_eq(f.mono_ns, fr.u.frame.mono_ns);
        ck_assert_uint_eq(f.wall_ns, fr.u.frame.wall_ns);
        ck_assert_uint_eq(f.reason, fr.u.frame.reason);
        for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++) {
            if (!scope_rec_type_known(t))
                continue; /* a number another minor version holds */
            char what[64], why[256];
            snprintf(what, sizeof what, "%s variant %u", scope_rec_type_name(t), v);
            ck_assert_msg(next_record(r, &rec) == 1, "%s: record missing", what);
            scope_record want;
            log_sample_record(&want, t, v);
            ck_assert_msg(log_sample_record_equal(&want, &rec, why, sizeof why), "%s: %s", what,
                          why);
            assert_raw_is_encoding(&want, &rec, what);
        }
        ck_assert_msg(next_record(r, &rec) == 0, "variant %u: extra record of type %u", v,
                      rec.type);
    }
    ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 0);
    /* The end stays the end, and no record is handed out past it. */
    ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 0);
    ck_assert_int_eq(next_record(r, &rec), 0);
    ck_assert_uint_eq(scope_log_reader_frames_read(r), LOG_SAMPLE_VARIANTS);
    assert_no_damage(r);
    ck_assert_ptr_null(scope_log_reader_damage(r, 0));
    scope_log_reader_close(r);
}
END_TEST

/* The FRAME record is the writer's: sequence numbers count from 0, and every
 * reason and clock value comes back, also for frames with no records. */
START_TEST(test_frame_records) {
    static const uint64_t clocks[][2] = {
        {0, 0}, {1, UINT64_MAX}, {UINT64_MAX, 1}, {UINT64_MAX, UINT64_MAX}, {1u << 31, 1ull << 63}};
    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    uint64_t n = 0;
    for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
        for (uint32_t reason = 0; reason < SCOPE_FRAME_REASON_LIMIT; reason++) {
            ck_assert_uint_eq(scope_log_writer_frames(w), n);
            long k = scope_log_writer_close_frame(w, reason, clocks[c][0], clocks[c][1]);
            ck_assert_msg(k > 0, "empty frame %llu not written: %ld", (unsigned long long)n, k);
            n++;
        }
    }
    ck_assert_uint_eq(scope_log_writer_frames(w), n);
    close_writer(w, fd);

    scope_log_reader *r = open_reader();
    scope_rec_frame f;
    uint64_t off, prev_off = 0;
    for (uint64_t i = 0; i < n; i++) {
        ck_assert_msg(scope_log_reader_next_frame(r, &f, &off) == 1, "frame %llu missing",
                      (unsigned long long)i);
        ck_assert_uint_eq(f.seq, i);
        ck_assert_uint_eq(f.reason, i % SCOPE_FRAME_REASON_LIMIT);
        ck_assert_uint_eq(f.mono_ns, clocks[i / SCOPE_FRAME_REASON_LIMIT][0]);
        ck_assert_uint_eq(f.wall_ns, clocks[i / SCOPE_FRAME_REASON_LIMIT][1]);
        ck_assert_uint_gt(off, prev_off);
        prev_off = off;
        scope_record rec;
        ck_assert_int_eq(next_record(r, &rec), 0); /* the FRAME record is not repeated */
    }
    ck_assert_int_eq(scope_log_reader_next_frame(r, &f, &off), 0);
    assert_no_damage(r);
    scope_log_reader_close(r);
}
END_TEST

/* ---- kinds passed over undecoded ------------------------------------- */

/* A reader told to skip RESOURCE records hands out the others in order and
 * none of those, whether well formed or not, and reports no damage for a
 * malformed one it never decoded. */
START_TEST(test_skipped_kinds_are_not_decoded) {
    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    for (uint32_t i = 1; i <= 3; i++) {
        scope_record s = {.type = SCOPE_REC_STRING, .u.string = {i, {(const uint8_t *)"name", 4}}};
        ck_assert_int_eq(scope_log_writer_add(w, &s), 0);
        scope_record res = {.type = SCOPE_REC_RESOURCE,
                            .u.resource = {.mono_ns = i, .interval_ns = 1, .present = 1}};
        ck_assert_int_eq(scope_log_writer_add(w, &res), 0);
    }
    /* A RESOURCE body of one byte: malformed. */
    static const uint8_t bad[] = {0x80};
    ck_assert_int_eq(scope_log_writer_add_raw(w, SCOPE_REC_RESOURCE, bad, sizeof bad), 0);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_EXIT, 1, 1), 0);
    close_writer(w, fd);

    scope_log_reader *r = open_reader();
    scope_log_reader_skip_kinds(r, 1ull << SCOPE_REC_RESOURCE);
    scope_rec_frame f;
    ck_assert_int_eq(scope_log_reader_next_frame(r, &f, NULL), 1);
    scope_record rec;
    for (uint32_t i = 1; i <= 3; i++) {
        ck_assert_int_eq(next_record(r, &rec), 1);
        ck_assert_uint_eq(rec.type, SCOPE_REC_STRING);
        ck_assert_uint_eq(rec.u.string.id, i);
    }
    ck_assert_int_eq(next_record(r, &rec), 0);
    assert_no_damage(r);
    scope_log_reader_close(r);

    /* Without the mask, the same file gives all seven, and the bad one is
     * reported. */
    r = open_reader();
    ck_assert_int_eq(scope_log_reader_next_frame(r, &f, NULL), 1);
    int n = 0;
    while (next_record(r, &rec) == 1)
        n++;
    ck_assert_int_eq(n, 6);
    ck_assert_uint_eq(scope_log_reader_damage_count(r), 1);
    scope_log_reader_close(r);
}
END_TEST

/* ---- forward compatibility -------------------------------------------- */

START_TEST(test_unknown_types_are_returned_raw) {
    static const struct {
        uint32_t type;
        const char *body;
        size_t len;
    } raw[] = {
        {200, "hello\0\xff", 7},
        {SCOPE_REC_TYPE_LIMIT, "", 0},
        {0, "zero", 4},
        {UINT32_MAX, "\x80\x80\x80", 3}, /* looks like a cut varint: must not matter */
        {1000000, "x", 1},
    };
    const size_t nraw = sizeof raw / sizeof raw[0];
    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    scope_record rec;
    for (size_t i = 0; i < nraw; i++) {
        log_sample_record(&rec, SCOPE_REC_STRING, 0);
        rec.u.string.id = (uint32_t)i + 1;
        ck_assert_int_eq(scope_log_writer_add(w, &rec), 0);
        ck_assert_int_eq(scope_log_writer_add_raw(w, raw[i].type, raw[i].body, raw[i].len), 0);
    }
    log_sample_record(&rec, SCOPE_REC_COUNTER, 1);
    ck_assert_int_eq(scope_log_writer_add(w, &rec), 0);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 2), 0);
    close_writer(w, fd);

    scope_log_reader *r = open_reader();
    ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 1);
    for (size_t i = 0; i < nraw; i++) {
        ck_assert_msg(next_record(r, &rec) == 1, "string before raw %zu missing", i);
        ck_assert_uint_eq(rec.type, SCOPE_REC_STRING);
        ck_assert_uint_eq(rec.u.string.id, i + 1);
        ck_assert_msg(next_record(r, &rec) == 1, "unknown record %zu (type %u) missing", i,
                      raw[i].type);
        ck_assert_uint_eq(rec.type, raw[i].type);
        ck_assert_uint_eq(rec.raw.len, raw[i].len);
        ck_assert_msg(raw[i].len == 0 || memcmp(rec.raw.ptr, raw[i].body, raw[i].len) == 0,
                      "unknown record %zu: raw body differs", i);
    }
    /* The record after the unknown ones still decodes. */
    ck_assert_int_eq(next_record(r, &rec), 1);
    scope_record want;
    char why[256];
    log_sample_record(&want, SCOPE_REC_COUNTER, 1);
    ck_assert_msg(log_sample_record_equal(&want, &rec, why, sizeof why), "%s", why);
    ck_assert_int_eq(next_record(r, &rec), 0);
    assert_no_damage(r);
    scope_log_reader_close(r);
}
END_TEST

/* A newer minor version may append fields to a known record: the reader
 * decodes the fields it knows and ignores the rest. */
START_TEST(test_trailing_bytes_are_ignored) {
    /* Bytes that would be misread if the decoder looked at them: an
     * unterminated varint, a 0xff and a NUL. */
    static const uint8_t trailer[] = {0x80, 0x80, 0xff, 0x00, 0x01, 'x', 0x80};
    uint8_t *buf = malloc(1 << 20);
    ck_assert_ptr_nonnull(buf);
    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    scope_record rec;
    for (unsigned v = 0; v < LOG_SAMPLE_VARIANTS; v++) {
        for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++) {
            if (!scope_rec_type_known(t))
                continue; /* a number another minor version holds */
            log_sample_record(&rec, t, v);
            size_t n = scope_record_encode(&rec, buf, (1 << 20) - sizeof trailer);
            ck_assert_msg(n > 0 && n <= (1 << 20) - sizeof trailer, "encode %u/%u", t, v);
            memcpy(buf + n, trailer, sizeof trailer);
            ck_assert_int_eq(scope_log_writer_add_raw(w, t, buf, n + sizeof trailer), 0);
        }
    }
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 2), 0);
    close_writer(w, fd);

    scope_log_reader *r = open_reader();
    ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 1);
    for (unsigned v = 0; v < LOG_SAMPLE_VARIANTS; v++) {
        for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++) {
            if (!scope_rec_type_known(t))
                continue; /* a number another minor version holds */
            char why[256];
            scope_record want;
            ck_assert_msg(next_record(r, &rec) == 1, "%s variant %u with trailer: missing",
                          scope_rec_type_name(t), v);
            log_sample_record(&want, t, v);
            ck_assert_msg(log_sample_record_equal(&want, &rec, why, sizeof why),
                          "%s variant %u with trailer: %s", scope_rec_type_name(t), v, why);
            size_t n = scope_record_encode(&want, NULL, 0);
            ck_assert_uint_eq(rec.raw.len, n + sizeof trailer);
        }
    }
    ck_assert_int_eq(next_record(r, &rec), 0);
    assert_no_damage(r);
    scope_log_reader_close(r);
    free(buf);
}
END_TEST

/* ---- malformed bodies ------------------------------------------------- */

/* Encodes the 15 fixed fields of a PHASE_AGG, all 1, before its bins. */
static void phase_agg_prefix(enc_buf *b) {
    for (int i = 0; i < 15; i++)
        enc_u64(b, 1);
}

/* A body that does not decode as its kind is reported as damage and skipped,
 * and never costs the records after it. */
START_TEST(test_malformed_bodies_are_skipped) {
    uint8_t bodies[9][64];
    size_t lens[9];
    uint32_t types[9];
    size_t n = 0;
    enc_buf b;

#define BODY(t)                                                                                    \
    do {                                                                                           \
        types[n] = (t);                                                                            \
        b = (enc_buf){bodies[n], sizeof bodies[n], 0};                                             \
    } while (0)
#define DONE() (lens[n++] = b.len)

    BODY(SCOPE_REC_STRING); /* the byte string runs past the body */
    enc_u64(&b, 1);
    enc_u64(&b, 10);
    enc_byte(&b, 'a');
    enc_byte(&b, 'b');
    DONE();
    BODY(SCOPE_REC_STRING); /* an id that does not fit in 32 bits */
    enc_u64(&b, 1ull << 32);
    enc_u64(&b, 0);
    DONE();
    BODY(SCOPE_REC_PROCESS); /* a million argv entries in a few bytes */
    for (int i = 0; i < 9; i++)
        enc_u64(&b, 0);
    for (int i = 0; i < 8; i++)
        enc_u64(&b, 0);
    enc_u64(&b, 1000000);
    DONE();
    BODY(SCOPE_REC_PROCESS); /* a rank that does not fit in 32 bits */
    for (int i = 0; i < 9; i++)
        enc_u64(&b, 0);
    enc_i64(&b, 1);
    enc_i64(&b, 1);
    enc_i64(&b, (int64_t)1 << 31);
    for (int i = 0; i < 8; i++)
        enc_u64(&b, 0);
    DONE();
    BODY(SCOPE_REC_PHASE_AGG); /* a bucket past the histogram */
    phase_agg_prefix(&b);
    enc_u64(&b, 1);
    enc_u64(&b, SCOPE_HIST_BUCKETS);
    enc_u64(&b, 1);
    DONE();
    BODY(SCOPE_REC_THREAD); /* an overlong varint */
    for (int i = 0; i < 11; i++)
        enc_byte(&b, 0x80);
    enc_byte(&b, 0);
    DONE();
    BODY(SCOPE_REC_COUNTER); /* nothing at all */
    DONE();
    BODY(SCOPE_REC_OPEN); /* two open phases announced, one present */
    enc_u64(&b, 1);
    enc_u64(&b, 2);
    enc_u64(&b, 1);
    enc_i64(&b, 5);
    DONE();
    BODY(SCOPE_REC_TRACE); /* three events announced, one present */
    enc_u64(&b, 1);
    enc_u64(&b, 3);
    enc_u64(&b, 1);
    enc_i64(&b, 5);
    enc_u64(&b, 5);
    DONE();
#undef BODY
#undef DONE

    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    scope_record rec;
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(scope_log_writer_add_raw(w, types[i], bodies[i], lens[i]), 0);
        log_sample_record(&rec, SCOPE_REC_STRING, 0);
        rec.u.string.id = 1000 + (uint32_t)i;
        ck_assert_int_eq(scope_log_writer_add(w, &rec), 0);
    }
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 2), 0);
    close_writer(w, fd);

    scope_log_reader *r = open_reader();
    uint64_t off;
    ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, &off), 1);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(next_record(r, &rec) == 1, "record after malformed body %zu missing", i);
        ck_assert_msg(rec.type == SCOPE_REC_STRING && rec.u.string.id == 1000 + i,
                      "malformed body %zu (%s) was returned as type %u instead of skipped", i,
                      scope_rec_type_name(types[i]), rec.type);
    }
    ck_assert_int_eq(next_record(r, &rec), 0);
    ck_assert_uint_eq(scope_log_reader_damage_count(r), n);
    for (size_t i = 0; i < n; i++) {
        const scope_log_damage *d = scope_log_reader_damage(r, i);
        ck_assert_uint_eq(d->offset, off); /* the frame holding the record */
        ck_assert_int_eq(d->truncated, 0);
        ck_assert_msg(d->what[0] != '\0', "damage %zu has no description", i);
    }
    scope_log_reader_close(r);
}
END_TEST

/* The histogram contract says buckets are strictly increasing, and readers
 * rely on it (quantiles walk the bins in order).  Bins are stored as gaps; a
 * gap so large that the sum wraps around 2^64 must not produce a bucket below
 * the previous one. */
START_TEST(test_phase_agg_bins_never_decrease) {
    uint8_t body[128];
    enc_buf b = {body, sizeof body, 0};
    phase_agg_prefix(&b);
    enc_u64(&b, 2);
    enc_u64(&b, 5); /* bucket 5 */
    enc_u64(&b, 1);
    enc_u64(&b, UINT64_MAX - 2); /* 6 + 2^64 - 3 wraps to bucket 3 */
    enc_u64(&b, 1);

    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    ck_assert_int_eq(scope_log_writer_add_raw(w, SCOPE_REC_PHASE_AGG, body, b.len), 0);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 2), 0);
    close_writer(w, fd);

    scope_log_reader *r = open_reader();
    ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 1);
    scope_record rec;
    if (next_record(r, &rec) == 1) {
        ck_assert_uint_eq(rec.type, SCOPE_REC_PHASE_AGG);
        for (uint32_t i = 1; i < rec.u.phase_agg.nbins; i++)
            ck_assert_msg(rec.u.phase_agg.bins[i].bucket > rec.u.phase_agg.bins[i - 1].bucket,
                          "bins[%u].bucket = %u after bins[%u].bucket = %u: a wrapping gap "
                          "decoded into a decreasing histogram instead of a malformed record",
                          i, rec.u.phase_agg.bins[i].bucket, i - 1,
                          rec.u.phase_agg.bins[i - 1].bucket);
    } else {
        ck_assert_uint_eq(scope_log_reader_damage_count(r), 1);
    }
    scope_log_reader_close(r);
}
END_TEST

/* Format 1.9's run delay at the end of a PHASE_AGG: it travels where
 * measured; a 1.8 body (ending after its bins) reads as not measured; and a
 * writer leaves the three fields out where all are 0, so such a body is
 * byte for byte a 1.8 one. */
START_TEST(test_phase_agg_run_delay) {
    uint8_t old_body[64];
    enc_buf b = {old_body, sizeof old_body, 0};
    phase_agg_prefix(&b);
    enc_u64(&b, 0); /* nbins */
    size_t old_len = b.len;
    scope_rec_phase_agg plain = {.node = 1,
                                 .count = 1,
                                 .wall_ns = 1,
                                 .min_ns = 1,
                                 .max_ns = 1,
                                 .cpu_count = 1,
                                 .cpu_wall_ns = 1,
                                 .cpu_ns = 1,
                                 .io_flags = 1,
                                 .io_count = 1,
                                 .io_failed = 1,
                                 .disk_read = 1,
                                 .disk_write = 1,
                                 .char_read = 1,
                                 .char_write = 1};
    scope_record unmeasured = {.type = SCOPE_REC_PHASE_AGG, .u.phase_agg = plain};
    ck_assert_uint_eq(scope_record_encode(&unmeasured, NULL, 0), old_len);
    scope_record measured = unmeasured;
    measured.u.phase_agg.delay_count = 7;
    measured.u.phase_agg.delay_wall_ns = 210000000;
    measured.u.phase_agg.delay_ns = 140000000;

    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    ck_assert_int_eq(scope_log_writer_add_raw(w, SCOPE_REC_PHASE_AGG, old_body, old_len), 0);
    ck_assert_int_eq(scope_log_writer_add(w, &measured), 0);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 2), 0);
    close_writer(w, fd);

    scope_log_reader *r = open_reader();
    ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 1);
    scope_record rec;
    ck_assert_int_eq(next_record(r, &rec), 1);
    ck_assert_uint_eq(rec.type, SCOPE_REC_PHASE_AGG);
    ck_assert_uint_eq(rec.u.phase_agg.cpu_count, 1);
    ck_assert_uint_eq(rec.u.phase_agg.delay_count, 0);
    ck_assert_uint_eq(rec.u.phase_agg.delay_wall_ns, 0);
    ck_assert_uint_eq(rec.u.phase_agg.delay_ns, 0);
    ck_assert_int_eq(next_record(r, &rec), 1);
    ck_assert_uint_eq(rec.u.phase_agg.delay_count, 7);
    ck_assert_uint_eq(rec.u.phase_agg.delay_wall_ns, 210000000);
    ck_assert_uint_eq(rec.u.phase_agg.delay_ns, 140000000);
    assert_no_damage(r);
    scope_log_reader_close(r);
}
END_TEST

/* ---- the encoder's sizing contract ------------------------------------ */

START_TEST(test_encode_reports_needed_size) {
    enum { CANARY = 0xA5 };
    scope_record rec;
    uint8_t *buf = malloc(1 << 20);
    ck_assert_ptr_nonnull(buf);
    for (unsigned v = 0; v < LOG_SAMPLE_VARIANTS; v++) {
        for (uint32_t t = SCOPE_REC_FRAME; t < SCOPE_REC_TYPE_LIMIT; t++) {
            if (!scope_rec_type_known(t))
                continue; /* a number another minor version holds */
            log_sample_record(&rec, t, v);
            size_t need = scope_record_encode(&rec, NULL, 0);
            ck_assert_msg(need > 0, "%s variant %u: not encodable", scope_rec_type_name(t), v);
            ck_assert_uint_eq(scope_record_encode(&rec, buf, 1 << 20), need);
            /* Too small by one: the full length comes back and nothing is
             * written past the capacity. */
            memset(buf, CANARY, need + 16);
            ck_assert_uint_eq(scope_record_encode(&rec, buf, need - 1), need);
            for (size_t i = need - 1; i < need + 16; i++)
                ck_assert_msg(buf[i] == CANARY, "%s variant %u: byte %zu written past cap %zu",
                              scope_rec_type_name(t), v, i, need - 1);
        }
    }
    /* Unknown kinds have no encoding of their own. */
    rec.type = 200;
    ck_assert_uint_eq(scope_record_encode(&rec, buf, 1 << 20), 0);
    free(buf);
}
END_TEST

START_TEST(test_names) {
    ck_assert_str_eq(scope_rec_type_name(SCOPE_REC_PROCESS), "PROCESS");
    ck_assert_str_eq(scope_rec_type_name(SCOPE_REC_STACK_SAMPLES), "STACK_SAMPLES");
    ck_assert_str_eq(scope_frame_reason_name(SCOPE_FRAME_SIGNAL), "signal");
    ck_assert_str_eq(scope_mark_kind_name(SCOPE_MARK_CAVEAT), "caveat");
    /* Every value, known or not, has a printable name: dumps print whatever a
     * damaged or newer log holds. */
    static const uint32_t odd[] = {0, 14, 99, 200, UINT32_MAX};
    for (uint32_t v = 0; v < 20; v++) {
        ck_assert_ptr_nonnull(scope_rec_type_name(v));
        ck_assert_ptr_nonnull(scope_frame_reason_name(v));
        ck_assert_ptr_nonnull(scope_mark_kind_name(v));
        ck_assert_int_gt(strlen(scope_rec_type_name(v)), 0);
        ck_assert_int_gt(strlen(scope_frame_reason_name(v)), 0);
        ck_assert_int_gt(strlen(scope_mark_kind_name(v)), 0);
    }
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        ck_assert_ptr_nonnull(scope_rec_type_name(odd[i]));
        ck_assert_ptr_nonnull(scope_frame_reason_name(odd[i]));
        ck_assert_ptr_nonnull(scope_mark_kind_name(odd[i]));
    }
}
END_TEST

/* ---- the sample logs -------------------------------------------------- */

/* What has been defined so far, to check "defined in the same or an earlier
 * frame than its first use" on the sample logs. */
typedef struct defs {
    uint8_t string[64], thread[8], node[64], module[8], stack[64];
} defs;

static int defined(const uint8_t *set, size_t n, uint32_t id) {
    return id < n && set[id];
}
#define DEFINED(set, id) defined(d->set, sizeof d->set, (id))

static void check_sample_record(const scope_record *rec, defs *d, unsigned seed, size_t frame) {
    char at[64];
    snprintf(at, sizeof at, "seed %u frame %zu %s", seed, frame, scope_rec_type_name(rec->type));
    switch (rec->type) {
    case SCOPE_REC_STRING:
        ck_assert_msg(rec->u.string.id > 0 && rec->u.string.id < sizeof d->string, "%s", at);
        d->string[rec->u.string.id] = 1;
        break;
    case SCOPE_REC_THREAD:
        ck_assert_msg(rec->u.thread.index > 0 && rec->u.thread.index < sizeof d->thread, "%s", at);
        d->thread[rec->u.thread.index] = 1;
        break;
    case SCOPE_REC_PHASE_NODE: {
        const scope_rec_phase_node *n = &rec->u.phase_node;
        ck_assert_msg(n->id > 0 && n->id < sizeof d->node, "%s: id %u", at, n->id);
        ck_assert_msg(n->parent == 0 || DEFINED(node, n->parent), "%s: parent", at);
        ck_assert_msg(DEFINED(string, n->name), "%s: name", at);
        ck_assert_msg(n->file == 0 || DEFINED(string, n->file), "%s: file", at);
        ck_assert_msg(DEFINED(thread, n->thread), "%s: thread", at);
        d->node[n->id] = 1;
        break;
    }
    case SCOPE_REC_PHASE_AGG: {
        const scope_rec_phase_agg *a = &rec->u.phase_agg;
        ck_assert_msg(DEFINED(node, a->node), "%s: node %u", at, a->node);
        uint64_t sum = 0;
        for (uint32_t i = 0; i < a->nbins; i++) {
            ck_assert_msg(i == 0 || a->bins[i].bucket > a->bins[i - 1].bucket, "%s: bins", at);
            ck_assert_msg(a->bins[i].count > 0, "%s: an empty bin in a sparse histogram", at);
            sum += a->bins[i].count;
        }
        ck_assert_msg(sum == a->count, "%s: histogram holds %llu of %llu entries", at,
                      (unsigned long long)sum, (unsigned long long)a->count);
        ck_assert_msg(a->count == 0 || (a->min_ns <= a->max_ns && a->max_ns <= a->wall_ns),
                      "%s: min/max/total", at);
        ck_assert_msg(a->cpu_count <= a->count && a->cpu_wall_ns <= a->wall_ns &&
                          a->cpu_ns <= a->cpu_wall_ns,
                      "%s: CPU figures", at);
        break;
    }
    case SCOPE_REC_COUNTER:
        ck_assert_msg(DEFINED(string, rec->u.counter.name), "%s: name", at);
        ck_assert_msg(rec->u.counter.node == 0 || DEFINED(node, rec->u.counter.node), "%s", at);
        ck_assert_msg(DEFINED(thread, rec->u.counter.thread), "%s: thread", at);
        break;
    case SCOPE_REC_RESOURCE: {
        const scope_rec_resource *r = &rec->u.resource;
        ck_assert_msg(r->node == 0 || DEFINED(node, r->node), "%s: node", at);
        ck_assert_msg(r->ngpus == seed % 3, "%s: %u GPUs", at, r->ngpus);
        for (uint32_t g = 0; g < r->ngpus; g++) {
            ck_assert_msg(r->gpus[g].present & SCOPE_GPU_BUSY, "%s", at);
            ck_assert_msg(r->gpus[g].busy_permyriad <= 10000, "%s", at);
            /* Absent figures are absent, not zero that looks measured. */
            if (!(r->gpus[g].present & SCOPE_GPU_RUN))
                ck_assert_msg(r->gpus[g].run_permyriad == 0, "%s", at);
        }
        break;
    }
    case SCOPE_REC_MODULE:
        ck_assert_msg(rec->u.module.id > 0 && rec->u.module.id < sizeof d->module, "%s", at);
        d->module[rec->u.module.id] = 1;
        break;
    case SCOPE_REC_STACK:
        ck_assert_msg(rec->u.stack.id > 0 && rec->u.stack.id < sizeof d->stack, "%s", at);
        for (uint32_t i = 0; i < rec->u.stack.nframes; i++)
            ck_assert_msg(rec->u.stack.frames[i].module == 0 ||
                              DEFINED(module, rec->u.stack.frames[i].module),
                          "%s: module", at);
        d->stack[rec->u.stack.id] = 1;
        break;
    case SCOPE_REC_STACK_SAMPLES:
    case SCOPE_REC_OFFCPU_SAMPLES:
        ck_assert_msg(DEFINED(thread, rec->u.stack_samples.thread), "%s: thread", at);
        ck_assert_msg(DEFINED(node, rec->u.stack_samples.node), "%s: node", at);
        for (uint32_t i = 0; i < rec->u.stack_samples.n; i++)
            ck_assert_msg(DEFINED(stack, rec->u.stack_samples.counts[i].stack), "%s: stack %u", at,
                          rec->u.stack_samples.counts[i].stack);
        break;
    case SCOPE_REC_MARK:
        ck_assert_msg(rec->u.mark.kind > 0 && rec->u.mark.kind < SCOPE_MARK_KIND_LIMIT, "%s", at);
        ck_assert_msg(rec->u.mark.thread == 0 || DEFINED(thread, rec->u.mark.thread), "%s", at);
        break;
    case SCOPE_REC_TRACE:
        ck_assert_msg(DEFINED(thread, rec->u.trace.thread), "%s: thread", at);
        for (uint32_t i = 0; i < rec->u.trace.n; i++) {
            ck_assert_msg(DEFINED(node, rec->u.trace.events[i].node), "%s: node", at);
            ck_assert_msg(i == 0 || rec->u.trace.events[i].start_ns >=
                                        rec->u.trace.events[i - 1].start_ns,
                          "%s: events out of start order", at);
        }
        break;
    case SCOPE_REC_OPEN:
        ck_assert_msg(DEFINED(thread, rec->u.open.thread), "%s: thread", at);
        for (uint32_t i = 0; i < rec->u.open.n; i++) {
            ck_assert_msg(DEFINED(node, rec->u.open.phases[i].node), "%s: node", at);
            ck_assert_msg(i == 0 ||
                              rec->u.open.phases[i].start_ns >= rec->u.open.phases[i - 1].start_ns,
                          "%s: an open phase began before its parent", at);
        }
        break;
    default:
        break;
    }
}

/* The sample logs feed the fuzz corpus and the benchmarks, so they must be
 * what they claim: intact, every kind present, definitions before use,
 * figures that agree with each other, and the same bytes for the same seed. */
/* The offset of the newest snapshot frame before frame f of a sample log;
 * 0 when none. */
static uint64_t last_snapshot_before(const uint64_t *offsets, size_t f, unsigned nframes) {
    uint64_t at = 0;
    for (size_t k = 0; k < f; k++)
        if (log_sample_is_snapshot((unsigned)k, nframes))
            at = offsets[k];
    return at;
}

START_TEST(test_sample_logs) {
    enum { NFRAMES = 12 };
    for (unsigned seed = 0; seed < 6; seed++) {
        uint64_t offsets[NFRAMES], size = 0;
        int rc = log_sample_write_log(path, NFRAMES, seed, offsets, &size);
        ck_assert_msg(rc == 0, "seed %u: log_sample_write_log: %d", seed, rc);
        struct stat sb;
        ck_assert_int_eq(stat(path, &sb), 0);
        ck_assert_uint_eq((uint64_t)sb.st_size, size);

        scope_log_reader *r = open_reader();
        ck_assert_uint_eq(scope_log_reader_info(r)->file_size, size);
        ck_assert_int_eq(scope_log_reader_info(r)->header_ok, 1);
        defs d;
        memset(&d, 0, sizeof d);
        unsigned seen[SCOPE_REC_TYPE_LIMIT] = {0};
        uint64_t prev_mono = 0;
        unsigned snapshots = 0, intervals = 0;
        for (size_t f = 0; f < NFRAMES; f++) {
            scope_rec_frame fr;
            uint64_t off;
            ck_assert_msg(scope_log_reader_next_frame(r, &fr, &off) == 1, "seed %u frame %zu", seed,
                          f);
            ck_assert_uint_eq(off, offsets[f]);
            ck_assert_uint_eq(fr.seq, f);
            ck_assert_uint_gt(fr.mono_ns, prev_mono);
            prev_mono = fr.mono_ns;
            /* The last frame is the snapshot after the exit frame, closed
             * for the same reason. */
            ck_assert_uint_eq(fr.reason,
                              f + 2 >= NFRAMES ? SCOPE_FRAME_EXIT : SCOPE_FRAME_PERIODIC);
            int snapshot = (fr.flags & SCOPE_FRAME_F_SNAPSHOT) != 0;
            ck_assert_int_eq(snapshot, log_sample_is_snapshot((unsigned)f, NFRAMES));
            snapshots += (unsigned)snapshot;
            /* Every frame names the newest snapshot before it. */
            ck_assert_uint_eq(fr.last_snapshot, last_snapshot_before(offsets, f, NFRAMES));
            scope_record rec;
            size_t i = 0;
            for (; next_record(r, &rec) == 1; i++) {
                ck_assert_msg(rec.type > SCOPE_REC_FRAME && rec.type < SCOPE_REC_TYPE_LIMIT,
                              "seed %u frame %zu: record type %u", seed, f, rec.type);
                if ((f == 0 || snapshot) && i == 0)
                    ck_assert_uint_eq(rec.type, SCOPE_REC_PROCESS);
                /* A snapshot frame holds no event (5.2.1); the snapshot
                 * kinds appear nowhere else. */
                int event = rec.type == SCOPE_REC_RESOURCE ||
                            rec.type == SCOPE_REC_RESOURCE_BATCH || rec.type == SCOPE_REC_MARK ||
                            rec.type == SCOPE_REC_TRACE || rec.type == SCOPE_REC_TRACE_COUNTS;
                int snapshot_kind = rec.type == SCOPE_REC_RESOURCE_SERIES ||
                                    rec.type == SCOPE_REC_MARK_STATE ||
                                    rec.type == SCOPE_REC_NODE_IO;
                ck_assert_msg(!(snapshot && event) && (snapshot || !snapshot_kind),
                              "seed %u frame %zu: a %s record", seed, f,
                              scope_rec_type_name(rec.type));
                seen[rec.type]++;
                if (rec.type == SCOPE_REC_RESOURCE_BATCH) {
                    /* even frames: the two intervals in one batch */
                    ck_assert_uint_eq(rec.u.resource_batch.n, 2);
                    for (uint32_t k = 0; k < rec.u.resource_batch.n; k++) {
                        scope_record one = {.type = SCOPE_REC_RESOURCE};
                        one.u.resource = rec.u.resource_batch.records[k];
                        check_sample_record(&one, &d, seed, f);
                        intervals++;
                    }
                    continue;
                }
                intervals += rec.type == SCOPE_REC_RESOURCE;
                check_sample_record(&rec, &d, seed, f);
            }
            ck_assert_msg(i > 0, "seed %u frame %zu is empty", seed, f);
        }
        ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 0);
        assert_no_damage(r);
        scope_log_reader_close(r);
        for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++)
            if (scope_rec_type_known(t))
                ck_assert_msg(seen[t] > 0, "seed %u: no %s record", seed, scope_rec_type_name(t));
        ck_assert_uint_eq(snapshots, 3);
        ck_assert_uint_eq(seen[SCOPE_REC_PROCESS], 1 + snapshots);
        ck_assert_uint_ge(seen[SCOPE_REC_STRING], 20);
        /* one per second of the data frames */
        ck_assert_uint_eq(intervals, 2 * (NFRAMES - snapshots));

        /* Same seed, same bytes: a corpus file can be regenerated. */
        uint8_t *a, *b;
        size_t na, nb;
        ck_assert_int_eq(log_sample_read_file(path, &a, &na), 0);
        ck_assert_int_eq(log_sample_write_log(path, NFRAMES, seed, NULL, NULL), 0);
        ck_assert_int_eq(log_sample_read_file(path, &b, &nb), 0);
        ck_assert_msg(na == nb && memcmp(a, b, na) == 0, "seed %u: not deterministic", seed);
        free(a);
        free(b);
    }
}
END_TEST

/* However short, a sample log holds every kind: the fuzz corpus uses short
 * ones.  One frame is the shortest log, with no snapshot (its process died
 * before its first), so its snapshot kinds (RESOURCE_SERIES, MARK_STATE,
 * NODE_IO) are missing; two frames are a data frame and its snapshot.
 * Intervals are batches in even frames and RESOURCE records (the form
 * before 1.7) in odd data frames, which logs of 3 frames or fewer lack. */
START_TEST(test_short_sample_logs) {
    for (unsigned nframes = 1; nframes <= 5; nframes++) {
        ck_assert_int_eq(log_sample_write_log(path, nframes, nframes, NULL, NULL), 0);
        scope_log_reader *r = open_reader();
        unsigned seen[SCOPE_REC_TYPE_LIMIT] = {0};
        unsigned frames = 0;
        scope_record rec;
        while (scope_log_reader_next_frame(r, NULL, NULL) == 1)
            for (frames++; next_record(r, &rec) == 1;)
                seen[rec.type < SCOPE_REC_TYPE_LIMIT ? rec.type : 0]++;
        assert_no_damage(r);
        scope_log_reader_close(r);
        ck_assert_uint_eq(frames, nframes);
        for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++)
            if (scope_rec_type_known(t) &&
                (nframes > 1 || (t != SCOPE_REC_RESOURCE_SERIES && t != SCOPE_REC_MARK_STATE &&
                                 t != SCOPE_REC_NODE_IO)) &&
                (nframes > 3 || t != SCOPE_REC_RESOURCE))
                ck_assert_msg(seen[t] > 0, "%u frames: no %s record", nframes,
                              scope_rec_type_name(t));
    }
}
END_TEST

/* Opening by path and opening the same bytes in memory read the same. */
/* A RESOURCE_BATCH comes out of the reader as the RESOURCE records it holds,
 * in order, each equal to the interval written; skipping RESOURCE skips the
 * batches; a batch whose columns run past its body is damage, and none of
 * its intervals comes out. */
START_TEST(test_batches_read_as_intervals) {
    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    scope_record rec, marker;
    log_sample_record(&marker, SCOPE_REC_STRING, 0);
    const unsigned variants[] = {0, 1, 2, 3};
    for (unsigned k = 0; k < 4; k++) {
        log_sample_record(&rec, SCOPE_REC_RESOURCE_BATCH, variants[k]);
        ck_assert_int_eq(scope_log_writer_add(w, &rec), 0);
    }
    ck_assert_int_eq(scope_log_writer_add(w, &marker), 0);
    /* variant 0 with its body cut short by one byte */
    uint8_t body[4096];
    log_sample_record(&rec, SCOPE_REC_RESOURCE_BATCH, 0);
    size_t n = scope_record_encode(&rec, body, sizeof body);
    ck_assert(n > 1 && n <= sizeof body);
    ck_assert_int_eq(scope_log_writer_add_raw(w, SCOPE_REC_RESOURCE_BATCH, body, n - 1), 0);
    ck_assert_int_eq(scope_log_writer_add(w, &marker), 0);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 2), 0);
    close_writer(w, fd);

    for (int skip = 0; skip < 2; skip++) {
        scope_log_reader *r = NULL;
        char msg[256];
        ck_assert_int_eq(scope_log_reader_open(&r, path, msg, sizeof msg), 0);
        if (skip)
            scope_log_reader_skip_kinds(r, 1ull << SCOPE_REC_RESOURCE);
        ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 1);
        for (unsigned k = 0; k < 4 && !skip; k++) {
            scope_record batch;
            log_sample_record(&batch, SCOPE_REC_RESOURCE_BATCH, variants[k]);
            for (uint32_t i = 0; i < batch.u.resource_batch.n; i++) {
                char why[256];
                scope_record want = {.type = SCOPE_REC_RESOURCE};
                want.u.resource = batch.u.resource_batch.records[i];
                ck_assert_msg(next_record(r, &rec) == 1, "variant %u: interval %u missing",
                              variants[k], i);
                ck_assert_msg(log_sample_record_equal(&want, &rec, why, sizeof why),
                              "variant %u interval %u: %s", variants[k], i, why);
            }
        }
        ck_assert_int_eq(next_record(r, &rec), 1);
        ck_assert_uint_eq(rec.type, SCOPE_REC_STRING);
        /* the cut batch: skipped whole, reported unless skipped undecoded */
        ck_assert_int_eq(next_record(r, &rec), 1);
        ck_assert_uint_eq(rec.type, SCOPE_REC_STRING);
        ck_assert_int_eq(next_record(r, &rec), 0);
        ck_assert_uint_eq(scope_log_reader_damage_count(r), skip ? 0 : 1);
        if (!skip)
            ck_assert_msg(strstr(scope_log_reader_damage(r, 0)->what, "malformed RESOURCE_BATCH"),
                          "%s", scope_log_reader_damage(r, 0)->what);
        scope_log_reader_close(r);
    }
}
END_TEST

/* A batch costs less than its intervals as RESOURCE records: what the
 * columns are for.  Variant 0 is three seconds of a learner as the recorder
 * writes them, a third of them first of their thread (written whole); what
 * a log of hours saves, compressed, bench_recorder --sample-size prints. */
START_TEST(test_batch_is_smaller) {
    scope_record batch;
    log_sample_record(&batch, SCOPE_REC_RESOURCE_BATCH, 0);
    size_t as_batch = scope_record_encode(&batch, NULL, 0), as_records = 0;
    for (uint32_t i = 0; i < batch.u.resource_batch.n; i++) {
        scope_record one = {.type = SCOPE_REC_RESOURCE};
        one.u.resource = batch.u.resource_batch.records[i];
        as_records += scope_record_encode(&one, NULL, 0) + 2; /* and a record header */
    }
    ck_assert_msg(as_batch > 0 && 10 * as_batch < 6 * as_records, "batch %zu bytes, records %zu",
                  as_batch, as_records);
}
END_TEST

/* The worked example of docs/format.md 5.21, byte for byte. */
START_TEST(test_batch_example) {
    static const uint8_t want[] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x09, 0xca, 0xb5, 0xee, 0x01, 0x00,
                                   0x0a, 0xf2, 0x8b, 0xa8, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
                                   0x00, 0x0d, 0x80, 0x80, 0x20, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
                                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    scope_rec_resource iv[2] = {
        {.mono_ns = 10000000000ull,
         .interval_ns = 1000000000ull,
         .present = SCOPE_RES_RSS,
         .rss = 2ull << 30},
        {.mono_ns = 11000000000ull,
         .interval_ns = 1000000000ull,
         .present = SCOPE_RES_RSS,
         .rss = (2ull << 30) + 8192},
    };
    scope_record rec = {.type = SCOPE_REC_RESOURCE_BATCH};
    rec.u.resource_batch = (scope_rec_resource_batch){2, iv};
    uint8_t got[128];
    size_t n = scope_record_encode(&rec, got, sizeof got);
    ck_assert_uint_eq(n, sizeof want);
    ck_assert_mem_eq(got, want, sizeof want);
    size_t one = 0;
    for (int i = 0; i < 2; i++) {
        scope_record r = {.type = SCOPE_REC_RESOURCE};
        r.u.resource = iv[i];
        one += scope_record_encode(&r, NULL, 0);
    }
    ck_assert_uint_eq(one, 2 * 27); /* the doc's comparison */
}
END_TEST

START_TEST(test_open_path_matches_mem) {
    uint64_t size;
    ck_assert_int_eq(log_sample_write_log(path, 5, 11, NULL, &size), 0);
    uint8_t *data;
    size_t n;
    ck_assert_int_eq(log_sample_read_file(path, &data, &n), 0);
    log_sample_dump mem;
    ck_assert_int_eq(log_sample_dump_mem(data, n, 64, &mem), 0);
    ck_assert_int_eq(mem.rc, 0);
    ck_assert_uint_eq(mem.nframes, 5);

    scope_log_reader *r = open_reader();
    for (size_t f = 0; f < mem.nframes; f++) {
        scope_rec_frame fr;
        uint64_t off;
        ck_assert_int_eq(scope_log_reader_next_frame(r, &fr, &off), 1);
        ck_assert_uint_eq(off, mem.frames[f].offset);
        ck_assert_uint_eq(fr.seq, mem.frames[f].frame.seq);
        size_t k = 0;
        scope_record rec;
        while (next_record(r, &rec) == 1)
            k++;
        ck_assert_uint_eq(k, mem.frames[f].nrecords);
    }
    ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 0);
    scope_log_reader_close(r);
    log_sample_dump_free(&mem);
    free(data);
}
END_TEST

int main(void) {
    Suite *s = suite_create("log_roundtrip");
    TCase *tc = tcase_create("roundtrip");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_roundtrip_every_kind);
    tcase_add_test(tc, test_frame_records);
    tcase_add_test(tc, test_skipped_kinds_are_not_decoded);
    tcase_add_test(tc, test_unknown_types_are_returned_raw);
    tcase_add_test(tc, test_trailing_bytes_are_ignored);
    tcase_add_test(tc, test_malformed_bodies_are_skipped);
    tcase_add_test(tc, test_phase_agg_bins_never_decrease);
    tcase_add_test(tc, test_phase_agg_run_delay);
    tcase_add_test(tc, test_encode_reports_needed_size);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_sample_logs);
    tcase_add_test(tc, test_short_sample_logs);
    tcase_add_test(tc, test_batches_read_as_intervals);
    tcase_add_test(tc, test_batch_is_smaller);
    tcase_add_test(tc, test_batch_example);
    tcase_add_test(tc, test_open_path_matches_mem);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
