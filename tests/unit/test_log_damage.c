/* Damaged logs: truncation at every byte, random bit flips, garbage, foreign
 * and empty files, newer versions, lost frames and mutated record bodies.
 * The promise under test: only what is damaged is lost, damage is reported
 * with offsets inside the file, and nothing crashes or hangs. */
#include "file_header.h"
#include "log_samples.h"
#include "unit_util.h"

#include <scope/log_format.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <zstd.h>

/* A few KB in 6 frames: small enough to cut at every byte, also under ASan. */
enum { NFRAMES = 6, SAMPLE_SEED = 7, MAX_FRAMES = 64 };

static char dir[4096];
static char path[4200];

/* The intact sample log and what the reader makes of it. */
static uint8_t *ref_data;
static size_t ref_size;
static uint64_t ref_off[NFRAMES];
static uint64_t ref_end[NFRAMES];
static log_sample_dump ref;

/* The directory is made once per test case in the runner, so that it is
 * removed even when a test fails (a failing test ends its process at once). */
static void make_dir(void) {
    unit_tmpdir(dir, sizeof dir);
}

static void remove_dir(void) {
    unit_rmdir(dir);
}

static void setup(void) {
    unit_path(path, sizeof path, dir, "w_damage.scope");
    uint64_t size;
    int rc = log_sample_write_log(path, NFRAMES, SAMPLE_SEED, ref_off, &size);
    ck_assert_msg(rc == 0, "log_sample_write_log: %d", rc);
    ck_assert_int_eq(log_sample_read_file(path, &ref_data, &ref_size), 0);
    ck_assert_uint_eq(ref_size, size);
    for (size_t i = 0; i < NFRAMES; i++)
        ref_end[i] = i + 1 < NFRAMES ? ref_off[i + 1] : ref_size;
    ck_assert_int_eq(log_sample_dump_mem(ref_data, ref_size, MAX_FRAMES, &ref), 0);
    ck_assert_int_eq(ref.rc, 0);
    ck_assert_uint_eq(ref.nframes, NFRAMES);
    ck_assert_uint_eq(ref.ndamage, 0);
    for (size_t i = 0; i < NFRAMES; i++)
        ck_assert_uint_eq(ref.frames[i].offset, ref_off[i]);
}

static void teardown(void) {
    log_sample_dump_free(&ref);
    free(ref_data);
    ref_data = NULL;
}

/* Reads `size` bytes copied into a buffer of exactly that size, so that a
 * read past the end is caught by the sanitizer build. */
static void dump_exact(const uint8_t *data, size_t size, log_sample_dump *d) {
    uint8_t *copy = malloc(size ? size : 1);
    ck_assert_ptr_nonnull(copy);
    if (size)
        memcpy(copy, data, size);
    ck_assert_int_eq(log_sample_dump_mem(copy, size, MAX_FRAMES, d), 0);
    free(copy);
}

static void print_damage(const log_sample_dump *d) {
    for (size_t i = 0; i < d->ndamage; i++)
        fprintf(stderr, "  damage %zu: offset %llu length %llu lost %llu truncated %d: %s\n", i,
                (unsigned long long)d->damage[i].offset, (unsigned long long)d->damage[i].length,
                (unsigned long long)d->damage[i].frames_lost, d->damage[i].truncated,
                d->damage[i].what);
}

/* Every report lies inside the file and says something. */
static void assert_damage_in_file(const log_sample_dump *d, size_t size, const char *ctx) {
    for (size_t i = 0; i < d->ndamage; i++) {
        const scope_log_damage *g = &d->damage[i];
        ck_assert_msg(g->offset <= size && g->length <= size - g->offset,
                      "%s: damage %zu [%llu, +%llu) outside the file of %zu bytes", ctx, i,
                      (unsigned long long)g->offset, (unsigned long long)g->length, size);
        ck_assert_msg(g->what[0] != '\0' && memchr(g->what, '\0', sizeof g->what),
                      "%s: damage %zu has no description", ctx, i);
    }
}

/* ---- truncation ------------------------------------------------------- */

/* A file cut at any byte keeps exactly the frames that end at or before the
 * cut, and reports a cut inside a frame as a truncated tail. */
START_TEST(test_truncated_at_every_offset) {
    ck_assert_msg(ref_size < 16384, "sample log grew to %zu bytes: make the test smaller",
                  ref_size);
    for (size_t len = 0; len <= ref_size; len++) {
        log_sample_dump d;
        dump_exact(ref_data, len, &d);
        ck_assert_msg(!d.runaway, "L=%zu: reader did not stop", len);
        if (len == 0) {
            ck_assert_msg(d.rc < 0, "L=0: an empty file opened");
            ck_assert_msg(unit_mentions(d.msg, "empty"), "L=0: message \"%s\"", d.msg);
            continue;
        }
        if (len < SCOPE_LOG_HEADER_SIZE) {
            ck_assert_msg((d.rc < 0 && d.msg[0]) || (d.rc == 0 && d.nframes == 0),
                          "L=%zu (inside the header): rc %d, %zu frames, message \"%s\"", len, d.rc,
                          d.nframes, d.msg);
            log_sample_dump_free(&d);
            continue;
        }
        ck_assert_msg(d.rc == 0, "L=%zu: open failed: %d %s", len, d.rc, d.msg);
        size_t complete = 0;
        while (complete < NFRAMES && ref_end[complete] <= len)
            complete++;
        if (d.nframes != complete)
            print_damage(&d);
        ck_assert_msg(d.nframes == complete, "L=%zu: %zu frames read, %zu complete", len, d.nframes,
                      complete);
        for (size_t i = 0; i < complete; i++)
            ck_assert_msg(log_sample_frame_equal(&d.frames[i], &ref.frames[i]),
                          "L=%zu: frame %zu differs from the intact file's", len, i);
        assert_damage_in_file(&d, len, "truncation");
        int on_boundary =
            len == SCOPE_LOG_HEADER_SIZE || (complete > 0 && ref_end[complete - 1] == len);
        if (on_boundary) {
            if (d.ndamage)
                print_damage(&d);
            ck_assert_msg(d.ndamage == 0, "L=%zu: a cut on a frame boundary reported damage", len);
        } else {
            if (d.ndamage != 1)
                print_damage(&d);
            ck_assert_msg(d.ndamage == 1, "L=%zu: %zu damage reports for one cut frame", len,
                          d.ndamage);
            const scope_log_damage *g = &d.damage[0];
            ck_assert_msg(g->truncated == 1, "L=%zu: cut frame not reported as truncated", len);
            ck_assert_msg(g->offset == ref_off[complete] && g->offset + g->length == len,
                          "L=%zu: damage [%llu, +%llu), expected [%llu, +%llu)", len,
                          (unsigned long long)g->offset, (unsigned long long)g->length,
                          (unsigned long long)ref_off[complete],
                          (unsigned long long)(len - ref_off[complete]));
        }
        log_sample_dump_free(&d);
    }
}
END_TEST

/* ---- bit flips -------------------------------------------------------- */

/* Checks what the reader made of one flipped copy of the sample log.
 * Returns 1 with `err` set when a promise was broken. */
static int check_flipped(const uint8_t *buf, const int *hit, int header_hit, size_t *lost,
                         char *err, size_t errlen) {
    int any_intact = 0, bad = 0;
    for (size_t f = 0; f < NFRAMES; f++)
        any_intact |= !hit[f];
    log_sample_dump d;
    ck_assert_int_eq(log_sample_dump_mem(buf, ref_size, MAX_FRAMES, &d), 0);
#define BAD(...)                                                                                   \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        bad = 1;                                                                                   \
        goto out;                                                                                  \
    } while (0)
    if (d.runaway)
        BAD("the reader did not stop");
    if (d.rc < 0) {
        /* Only when the header and every frame were hit may there be nothing
         * left to open. */
        if (!header_hit || any_intact)
            BAD("open failed: %d %.160s", d.rc, d.msg);
        if (!d.msg[0])
            BAD("failed open without a message");
        goto out;
    }
    size_t next = 0; /* frames come back in file order */
    for (size_t i = 0; i < d.nframes; i++, next++) {
        for (; next < NFRAMES && ref_off[next] < d.frames[i].offset; next++, (*lost)++)
            if (!hit[next])
                BAD("untouched frame %zu lost", next);
        if (next == NFRAMES || ref_off[next] != d.frames[i].offset)
            BAD("frame at %llu was never written", (unsigned long long)d.frames[i].offset);
        if (!log_sample_frame_equal(&d.frames[i], &ref.frames[next]))
            BAD("frame %zu read back altered (%zu records, %zu intact)", next, d.frames[i].nrecords,
                ref.frames[next].nrecords);
    }
    for (; next < NFRAMES; next++, (*lost)++)
        if (!hit[next])
            BAD("untouched frame %zu lost", next);
    for (size_t i = 0; i < d.ndamage; i++) {
        const scope_log_damage *g = &d.damage[i];
        if (g->offset > ref_size || g->length > ref_size - g->offset)
            BAD("damage [%llu, +%llu) outside the file", (unsigned long long)g->offset,
                (unsigned long long)g->length);
        if (!g->what[0])
            BAD("damage %zu has no description", i);
    }
    if (d.nframes < NFRAMES && d.ndamage == 0)
        BAD("frames lost without a damage report");
#undef BAD
out:
    log_sample_dump_free(&d);
    return bad;
}

/* Flips 1..8 random bits per trial.  Every frame none of whose bytes was
 * touched must still be read intact; a touched frame may be lost but never
 * returned altered, and no frame may appear that was not written.  All trials
 * run even after a failure, so one run reports every failing seed. */
START_TEST(test_random_bit_flips) {
    enum { TRIALS = 4000, BASE_SEED = 1000, SHOW = 10 };
    uint8_t *buf = malloc(ref_size);
    ck_assert_ptr_nonnull(buf);
    size_t lost = 0;
    unsigned failed = 0;
    char first[512] = "";
    for (unsigned trial = 0; trial < TRIALS; trial++) {
        uint64_t seed = BASE_SEED + trial, rng = seed;
        memcpy(buf, ref_data, ref_size);
        unsigned nflips = 1 + (unsigned)(unit_rand(&rng) % 8);
        int hit[NFRAMES] = {0}, header_hit = 0;
        char where[128] = "";
        size_t wl = 0;
        for (unsigned k = 0; k < nflips; k++) {
            size_t at = (size_t)(unit_rand(&rng) % ref_size);
            unsigned bit = (unsigned)(unit_rand(&rng) % 8);
            buf[at] ^= (uint8_t)(1u << bit);
            if (wl < sizeof where)
                wl += (size_t)snprintf(where + wl, sizeof where - wl, " %zu.%u", at, bit);
            header_hit |= at < SCOPE_LOG_HEADER_SIZE;
            for (size_t f = 0; f < NFRAMES; f++)
                hit[f] |= at >= ref_off[f] && at < ref_end[f];
        }
        char err[256];
        if (check_flipped(buf, hit, header_hit, &lost, err, sizeof err)) {
            char line[512];
            snprintf(line, sizeof line, "seed %llu (byte.bit%s): %s", (unsigned long long)seed,
                     where, err);
            if (failed++ < SHOW)
                fprintf(stderr, "bit flips: %s\n", line);
            if (!first[0])
                snprintf(first, sizeof first, "%s", line);
        }
    }
    free(buf);
    ck_assert_msg(failed == 0, "%u of %u bit-flip trials failed; first: %s", failed, TRIALS, first);
    /* The flips must actually have cost frames, or the test tested nothing. */
    ck_assert_uint_gt(lost, TRIALS / 2);
}
END_TEST

/* The writer sets zstd's content checksum on every frame, and the checksum is
 * what tells a reader a frame is intact.  A single flipped bit can clear the
 * frame's checksum flag (bit 2 of the frame header descriptor); zstd then
 * skips verification.  Combined with a second flip in the payload, the frame
 * must still not come back altered. */
START_TEST(test_checksum_flag_cleared) {
    const size_t f = 2, fhd = (size_t)ref_off[f] + 4;
    ck_assert_msg(ref_data[fhd] & 0x04, "frame %zu was written without a checksum", f);
    uint8_t *b = malloc(ref_size);
    ck_assert_ptr_nonnull(b);
    for (size_t p = fhd + 1; p < ref_end[f] - 4; p++) {
        memcpy(b, ref_data, ref_size);
        b[fhd] &= (uint8_t)~0x04u;
        b[p] ^= 0x01;
        log_sample_dump d;
        dump_exact(b, ref_size, &d);
        ck_assert_int_eq(d.rc, 0);
        size_t next = 0;
        for (size_t i = 0; i < d.nframes; i++) {
            while (next < NFRAMES && ref_off[next] < d.frames[i].offset) {
                ck_assert_msg(next == f, "byte %zu flipped: untouched frame %zu lost", p, next);
                next++;
            }
            ck_assert_msg(next < NFRAMES && ref_off[next] == d.frames[i].offset,
                          "byte %zu flipped: frame at %llu was never written", p,
                          (unsigned long long)d.frames[i].offset);
            ck_assert_msg(log_sample_frame_equal(&d.frames[i], &ref.frames[next]),
                          "checksum flag cleared and byte %zu flipped: frame %zu read back "
                          "altered (%zu records, %zu intact)",
                          p, next, d.frames[i].nrecords, ref.frames[next].nrecords);
            next++;
        }
        log_sample_dump_free(&d);
    }
    free(b);
}
END_TEST

/* ---- not a log at all ------------------------------------------------- */

START_TEST(test_empty_file) {
    log_sample_dump d;
    dump_exact(NULL, 0, &d);
    ck_assert_int_lt(d.rc, 0);
    ck_assert_msg(unit_mentions(d.msg, "empty"), "message \"%s\"", d.msg);

    ck_assert_int_eq(log_sample_write_file(path, "", 0), 0);
    scope_log_reader *r = NULL;
    char msg[256] = "";
    int rc = scope_log_reader_open(&r, path, msg, sizeof msg);
    ck_assert_int_lt(rc, 0);
    ck_assert_ptr_null(r);
    ck_assert_msg(unit_mentions(msg, "empty"), "message \"%s\"", msg);
}
END_TEST

START_TEST(test_garbage_file) {
    /* Random bytes, a text file and a short file: none is a scope log. */
    uint8_t garbage[4096];
    uint64_t rng = 42;
    for (size_t i = 0; i < sizeof garbage; i++)
        garbage[i] = (uint8_t)unit_rand(&rng);
    static const char text[] = "Traceback (most recent call last):\n  File \"train.py\"\n";
    const struct {
        const void *p;
        size_t n;
    } cases[] = {{garbage, sizeof garbage},
                 {text, sizeof text - 1},
                 {"\x7f"
                  "ELF",
                  4}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        log_sample_dump d;
        dump_exact(cases[c].p, cases[c].n, &d);
        ck_assert_msg(d.rc < 0, "case %zu: garbage opened as a log", c);
        ck_assert_msg(unit_mentions(d.msg, "not a scope"), "case %zu: message \"%s\"", c, d.msg);

        ck_assert_int_eq(log_sample_write_file(path, cases[c].p, cases[c].n), 0);
        scope_log_reader *r = NULL;
        char msg[256] = "";
        ck_assert_int_lt(scope_log_reader_open(&r, path, msg, sizeof msg), 0);
        ck_assert_msg(unit_mentions(msg, "not a scope"), "case %zu: message \"%s\"", c, msg);
    }
}
END_TEST

START_TEST(test_open_errors) {
    scope_log_reader *r = NULL;
    char msg[256] = "";
    char missing[4300];
    unit_path(missing, sizeof missing, dir, "no-such-file.scope");
    ck_assert_int_eq(scope_log_reader_open(&r, missing, msg, sizeof msg), -ENOENT);
    ck_assert_ptr_null(r);
    ck_assert_msg(msg[0] != '\0', "no message for a missing file");

    msg[0] = '\0';
    ck_assert_int_lt(scope_log_reader_open(&r, dir, msg, sizeof msg), 0);
    ck_assert_ptr_null(r);
    ck_assert_msg(msg[0] != '\0', "no message for a directory");

    /* A NULL message buffer is allowed. */
    ck_assert_int_lt(scope_log_reader_open(&r, missing, NULL, 0), 0);
    /* A short message buffer is cut, still terminated. */
    char tiny[8];
    memset(tiny, 'x', sizeof tiny);
    ck_assert_int_lt(scope_log_reader_open(&r, missing, tiny, sizeof tiny), 0);
    ck_assert_ptr_nonnull(memchr(tiny, '\0', sizeof tiny));
}
END_TEST

/* ---- garbage among frames --------------------------------------------- */

/* Text garbage: it cannot contain a zstd or skippable-frame magic. */
static const char GARBAGE[] = "GARBAGE! this is not part of the log; neither is this. ";

/* ref with `glen` bytes of `g` inserted at `at`. */
static uint8_t *with_inserted(size_t at, const void *g, size_t glen, size_t *size) {
    uint8_t *b = malloc(ref_size + glen);
    ck_assert_ptr_nonnull(b);
    memcpy(b, ref_data, at);
    memcpy(b + at, g, glen);
    memcpy(b + at + glen, ref_data + at, ref_size - at);
    *size = ref_size + glen;
    return b;
}

/* All frames are read, those after the insertion `glen` bytes later. */
static void assert_all_frames_shifted(const log_sample_dump *d, size_t at, size_t glen,
                                      const char *ctx) {
    if (d->nframes != NFRAMES)
        print_damage(d);
    ck_assert_msg(d->nframes == NFRAMES, "%s: %zu of %d frames read", ctx, d->nframes, NFRAMES);
    for (size_t i = 0; i < NFRAMES; i++) {
        log_sample_frame want = ref.frames[i];
        if (want.offset >= at)
            want.offset += glen;
        ck_assert_msg(log_sample_frame_equal(&d->frames[i], &want), "%s: frame %zu differs", ctx,
                      i);
    }
}

START_TEST(test_garbage_among_frames) {
    const size_t glen = sizeof GARBAGE - 1;
    const struct {
        const char *name;
        size_t at;
    } cases[] = {
        {"after the header", SCOPE_LOG_HEADER_SIZE},
        {"between frames 2 and 3", (size_t)ref_off[3]},
        {"at the end", ref_size},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t size;
        uint8_t *b = with_inserted(cases[c].at, GARBAGE, glen, &size);
        log_sample_dump d;
        dump_exact(b, size, &d);
        ck_assert_msg(d.rc == 0, "%s: open failed: %s", cases[c].name, d.msg);
        ck_assert_int_eq(d.info.header_ok, 1);
        assert_all_frames_shifted(&d, cases[c].at, glen, cases[c].name);
        assert_damage_in_file(&d, size, cases[c].name);
        ck_assert_msg(d.ndamage == 1, "%s: %zu damage reports", cases[c].name, d.ndamage);
        ck_assert_msg(d.damage[0].offset == cases[c].at && d.damage[0].length == glen,
                      "%s: damage [%llu, +%llu), garbage is [%zu, +%zu)", cases[c].name,
                      (unsigned long long)d.damage[0].offset,
                      (unsigned long long)d.damage[0].length, cases[c].at, glen);
        ck_assert_msg(d.damage[0].frames_lost == 0, "%s: garbage counted as a lost frame",
                      cases[c].name);
        ck_assert_msg(d.damage[0].truncated == 0, "%s: garbage reported as truncation",
                      cases[c].name);
        log_sample_dump_free(&d);
        free(b);
    }
}
END_TEST

/* Garbage in front of the header: the header is lost with it, the frames
 * are not. */
START_TEST(test_garbage_before_header) {
    const size_t glen = sizeof GARBAGE - 1;
    size_t size;
    uint8_t *b = with_inserted(0, GARBAGE, glen, &size);
    log_sample_dump d;
    dump_exact(b, size, &d);
    ck_assert_msg(d.rc == 0, "open failed: %s", d.msg);
    ck_assert_int_eq(d.info.header_ok, 0);
    ck_assert_int_eq(d.info.version_major, SCOPE_LOG_VERSION_MAJOR);
    assert_all_frames_shifted(&d, 0, glen, "garbage before the header");
    assert_damage_in_file(&d, size, "garbage before the header");
    ck_assert_uint_eq(d.ndamage, 1);
    ck_assert_uint_eq(d.damage[0].offset, 0);
    ck_assert_uint_ge(d.damage[0].length, glen);
    ck_assert_uint_le(d.damage[0].length, glen + SCOPE_LOG_HEADER_SIZE);
    log_sample_dump_free(&d);
    free(b);
}
END_TEST

/* Garbage that happens to begin like a zstd skippable frame whose length
 * runs past the end of the file.  It is still only garbage: the frames after
 * it were written whole and must be read. */
START_TEST(test_garbage_like_skippable_frame) {
    uint8_t g[64];
    for (size_t i = 0; i < sizeof g; i++)
        g[i] = (uint8_t)GARBAGE[i % (sizeof GARBAGE - 1)];
    le32_put(g, 0x184D2A5Eu);
    le32_put(g + 4, 0xFFFFFF00u);
    const size_t at = (size_t)ref_off[2];
    size_t size;
    uint8_t *b = with_inserted(at, g, sizeof g, &size);
    log_sample_dump d;
    dump_exact(b, size, &d);
    ck_assert_msg(d.rc == 0, "open failed: %s", d.msg);
    assert_damage_in_file(&d, size, "skippable-looking garbage");
    assert_all_frames_shifted(&d, at, sizeof g, "skippable-looking garbage");
    log_sample_dump_free(&d);
    free(b);
}
END_TEST

/* A well-formed zstd skippable frame between data frames (as a tool that
 * knows zstd but not scope might add): whether it is skipped silently or
 * reported, it costs no frame, and any report covers exactly its bytes. */
START_TEST(test_skippable_frame_between_frames) {
    uint8_t sk[8 + 16];
    le32_put(sk, 0x184D2A5Fu);
    le32_put(sk + 4, 16);
    memcpy(sk + 8, "future metadata!", 16);
    const size_t at = (size_t)ref_off[3];
    size_t size;
    uint8_t *b = with_inserted(at, sk, sizeof sk, &size);
    log_sample_dump d;
    dump_exact(b, size, &d);
    ck_assert_msg(d.rc == 0, "open failed: %s", d.msg);
    assert_all_frames_shifted(&d, at, sizeof sk, "skippable frame");
    if (d.ndamage > 1)
        print_damage(&d);
    ck_assert_uint_le(d.ndamage, 1);
    if (d.ndamage) {
        ck_assert_uint_eq(d.damage[0].offset, at);
        ck_assert_uint_eq(d.damage[0].length, sizeof sk);
        ck_assert_uint_eq(d.damage[0].frames_lost, 0);
        ck_assert_int_eq(d.damage[0].truncated, 0);
    }
    log_sample_dump_free(&d);
    free(b);
}
END_TEST

/* Intact zstd frames that are not scope frames (no FRAME record first, or no
 * content size and checksum, which our writer always sets), say from a tool
 * that appended to the wrong file: each costs its own bytes and nothing more. */
START_TEST(test_foreign_zstd_frames) {
    static const char text[] = "a zstd frame, but not one of ours: no FRAME record first";
    uint8_t z[1][256];
    size_t zlen[1];
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ck_assert_ptr_nonnull(c);
    ck_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)));
    zlen[0] = ZSTD_compress2(c, z[0], sizeof z[0], text, sizeof text);
    ck_assert(!ZSTD_isError(zlen[0]));
    /* A frame copied from the log itself, but without its checksum. */
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    ck_assert(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0)));
    ck_assert(ref.frames[1].bloblen > 0);
    static uint8_t content[1 << 16];
    size_t clen = ZSTD_decompress(content, sizeof content, ref_data + ref_off[1],
                                  (size_t)(ref_end[1] - ref_off[1]));
    ck_assert(!ZSTD_isError(clen));
    uint8_t *nock = malloc(ZSTD_compressBound(clen));
    size_t nlen = ZSTD_compress2(c, nock, ZSTD_compressBound(clen), content, clen);
    ck_assert(!ZSTD_isError(nlen));
    ZSTD_freeCCtx(c);

    const struct {
        const char *name;
        const uint8_t *p;
        size_t n;
    } cases[] = {{"no FRAME record", z[0], zlen[0]}, {"no checksum", nock, nlen}};
    for (size_t k = 0; k < 2; k++) {
        const size_t at = (size_t)ref_off[3];
        size_t size;
        uint8_t *b = with_inserted(at, cases[k].p, cases[k].n, &size);
        log_sample_dump d;
        dump_exact(b, size, &d);
        ck_assert_msg(d.rc == 0, "%s: open failed: %s", cases[k].name, d.msg);
        assert_all_frames_shifted(&d, at, cases[k].n, cases[k].name);
        if (d.ndamage != 1)
            print_damage(&d);
        ck_assert_msg(d.ndamage == 1, "%s: %zu damage reports", cases[k].name, d.ndamage);
        ck_assert_uint_eq(d.damage[0].offset, at);
        ck_assert_uint_eq(d.damage[0].length, cases[k].n);
        ck_assert_uint_eq(d.damage[0].frames_lost, 0);
        log_sample_dump_free(&d);
        free(b);
    }
    free(nock);
}
END_TEST

/* ---- versions --------------------------------------------------------- */

static uint8_t *with_header(uint16_t major, uint16_t minor) {
    uint8_t *b = malloc(ref_size);
    ck_assert_ptr_nonnull(b);
    memcpy(b, ref_data, ref_size);
    file_header_build(b, major, minor);
    return b;
}

START_TEST(test_newer_major_refused) {
    static const uint16_t majors[] = {SCOPE_LOG_VERSION_MAJOR + 1, 0xFFFF};
    for (size_t i = 0; i < 2; i++) {
        uint8_t *b = with_header(majors[i], 3);
        log_sample_dump d;
        dump_exact(b, ref_size, &d);
        ck_assert_msg(d.rc < 0, "major %u: a newer major version was read", majors[i]);
        ck_assert_msg(unit_mentions(d.msg, "newer"), "major %u: message \"%s\"", majors[i], d.msg);
        char v[16];
        snprintf(v, sizeof v, "%u.3", majors[i]);
        ck_assert_msg(unit_mentions(d.msg, v), "major %u: message \"%s\" lacks the version %s",
                      majors[i], d.msg, v);
        free(b);
    }
}
END_TEST

START_TEST(test_newer_minor_read) {
    uint8_t *b = with_header(SCOPE_LOG_VERSION_MAJOR, SCOPE_LOG_VERSION_MINOR + 7);
    log_sample_dump d;
    dump_exact(b, ref_size, &d);
    ck_assert_msg(d.rc == 0, "a newer minor version was refused: %s", d.msg);
    ck_assert_int_eq(d.info.version_major, SCOPE_LOG_VERSION_MAJOR);
    ck_assert_int_eq(d.info.version_minor, SCOPE_LOG_VERSION_MINOR + 7);
    ck_assert_int_eq(d.info.header_ok, 1);
    assert_all_frames_shifted(&d, 0, 0, "newer minor");
    ck_assert_uint_eq(d.ndamage, 0);
    log_sample_dump_free(&d);
    free(b);
}
END_TEST

/* A header that fails its check is damage, not a reason to refuse a log whose
 * frames are intact. */
START_TEST(test_damaged_header_read) {
    for (size_t at = 0; at < SCOPE_LOG_HEADER_SIZE; at++) {
        uint8_t *b = with_header(SCOPE_LOG_VERSION_MAJOR, SCOPE_LOG_VERSION_MINOR);
        b[at] ^= 0x10;
        log_sample_dump d;
        dump_exact(b, ref_size, &d);
        ck_assert_msg(d.rc == 0, "header byte %zu flipped: open failed: %s", at, d.msg);
        ck_assert_msg(d.info.header_ok == 0, "header byte %zu flipped: header_ok", at);
        char ctx[64];
        snprintf(ctx, sizeof ctx, "header byte %zu flipped", at);
        assert_all_frames_shifted(&d, 0, 0, ctx);
        ck_assert_uint_eq(d.ndamage, 1);
        ck_assert_uint_eq(d.damage[0].offset, 0);
        ck_assert_uint_eq(d.damage[0].length, SCOPE_LOG_HEADER_SIZE);
        log_sample_dump_free(&d);
        free(b);
    }
}
END_TEST

/* ---- lost frames ------------------------------------------------------ */

/* ref without frames [first, last]. */
static uint8_t *without_frames(size_t first, size_t last, size_t *size) {
    size_t cut = (size_t)(ref_end[last] - ref_off[first]);
    uint8_t *b = malloc(ref_size - cut);
    ck_assert_ptr_nonnull(b);
    memcpy(b, ref_data, (size_t)ref_off[first]);
    memcpy(b + ref_off[first], ref_data + ref_end[last], ref_size - (size_t)ref_end[last]);
    *size = ref_size - cut;
    return b;
}

START_TEST(test_lost_frames_counted) {
    for (size_t nlost = 1; nlost <= 2; nlost++) {
        size_t size;
        uint8_t *b = without_frames(2, 1 + nlost, &size);
        log_sample_dump d;
        dump_exact(b, size, &d);
        ck_assert_int_eq(d.rc, 0);
        ck_assert_uint_eq(d.nframes, NFRAMES - nlost);
        size_t cut = (size_t)(ref_end[1 + nlost] - ref_off[2]);
        for (size_t i = 0; i < d.nframes; i++) {
            size_t f = i < 2 ? i : i + nlost;
            log_sample_frame want = ref.frames[f];
            if (f >= 2)
                want.offset -= cut;
            ck_assert_msg(log_sample_frame_equal(&d.frames[i], &want), "frame %zu differs", f);
        }
        assert_damage_in_file(&d, size, "lost frames");
        if (d.ndamage != 1)
            print_damage(&d);
        ck_assert_uint_eq(d.ndamage, 1);
        ck_assert_msg(d.damage[0].frames_lost == nlost, "%zu frames cut out, %llu reported lost",
                      nlost, (unsigned long long)d.damage[0].frames_lost);
        ck_assert_int_eq(d.damage[0].truncated, 0);
        ck_assert_uint_eq(d.damage[0].offset, ref_off[2]);
        log_sample_dump_free(&d);
        free(b);
    }
}
END_TEST

/* A corrupt frame in the middle costs exactly that frame, counted as lost. */
START_TEST(test_corrupt_middle_frame) {
    uint8_t *b = malloc(ref_size);
    ck_assert_ptr_nonnull(b);
    memcpy(b, ref_data, ref_size);
    b[(ref_off[2] + ref_end[2]) / 2] ^= 0x01;
    log_sample_dump d;
    dump_exact(b, ref_size, &d);
    ck_assert_int_eq(d.rc, 0);
    ck_assert_uint_eq(d.nframes, NFRAMES - 1);
    for (size_t i = 0; i < d.nframes; i++)
        ck_assert(log_sample_frame_equal(&d.frames[i], &ref.frames[i < 2 ? i : i + 1]));
    if (d.ndamage != 1)
        print_damage(&d);
    ck_assert_uint_eq(d.ndamage, 1);
    ck_assert_uint_eq(d.damage[0].offset, ref_off[2]);
    ck_assert_uint_eq(d.damage[0].length, ref_end[2] - ref_off[2]);
    ck_assert_uint_eq(d.damage[0].frames_lost, 1);
    ck_assert_int_eq(d.damage[0].truncated, 0);
    log_sample_dump_free(&d);
    free(b);
}
END_TEST

/* ---- mutated record bodies -------------------------------------------- */

/* Reads every byte and element a decoded record points at, so the sanitizer
 * build catches any pointer the decoder got wrong. */
static uint64_t touch_bytes(scope_bytes b) {
    uint64_t s = b.len;
    for (size_t i = 0; i < b.len; i++)
        s += b.ptr[i];
    return s;
}

static uint64_t touch(const scope_record *r) {
    uint64_t s = touch_bytes(r->raw);
    switch (r->type) {
    case SCOPE_REC_PROCESS: {
        const scope_rec_process *p = &r->u.process;
        s += touch_bytes(p->run_id) + touch_bytes(p->uuid) + touch_bytes(p->host) +
             touch_bytes(p->role) + touch_bytes(p->job_id) + touch_bytes(p->step_id) +
             touch_bytes(p->exe) + touch_bytes(p->cwd) + touch_bytes(p->recorder_version);
        for (uint32_t i = 0; i < p->argc; i++)
            s += touch_bytes(p->argv[i]);
        for (uint32_t i = 0; i < p->nsettings; i++)
            s += touch_bytes(p->settings[i].key) + touch_bytes(p->settings[i].value);
        break;
    }
    case SCOPE_REC_STRING:
        s += touch_bytes(r->u.string.value);
        break;
    case SCOPE_REC_THREAD:
        s += touch_bytes(r->u.thread.name);
        break;
    case SCOPE_REC_PHASE_AGG:
        for (uint32_t i = 0; i < r->u.phase_agg.nbins; i++)
            s += r->u.phase_agg.bins[i].bucket + r->u.phase_agg.bins[i].count;
        break;
    case SCOPE_REC_RESOURCE:
        for (uint32_t i = 0; i < r->u.resource.ngpus; i++)
            s += r->u.resource.gpus[i].mem_total + r->u.resource.gpus[i].present;
        break;
    case SCOPE_REC_MODULE:
        s += touch_bytes(r->u.module.path) + touch_bytes(r->u.module.build_id);
        break;
    case SCOPE_REC_STACK:
        for (uint32_t i = 0; i < r->u.stack.nframes; i++)
            s += r->u.stack.frames[i].offset;
        break;
    case SCOPE_REC_STACK_SAMPLES:
    case SCOPE_REC_OFFCPU_SAMPLES:
        for (uint32_t i = 0; i < r->u.stack_samples.n; i++)
            s += r->u.stack_samples.counts[i].count;
        break;
    case SCOPE_REC_MARK:
        s += touch_bytes(r->u.mark.text);
        break;
    case SCOPE_REC_LINES:
        s += touch_bytes(r->u.lines.project);
        break;
    case SCOPE_REC_TRACE:
        for (uint32_t i = 0; i < r->u.trace.n; i++)
            s += r->u.trace.events[i].dur_ns;
        break;
    default:
        break;
    }
    return s;
}

/* The zstd checksum keeps flipped bits away from the record decoder, so feed
 * it mutated bodies directly: each goes into the log whole (as a newer or
 * buggy writer might produce it), followed by a sentinel record.  A mutated
 * body decodes as something or is reported and skipped; it never costs the
 * sentinel after it, and never crashes. */
START_TEST(test_mutated_bodies) {
    enum { PER_FRAME = 100, FRAMES = 30, SENTINEL = 1000000 };
    uint8_t *body = malloc(1 << 20);
    ck_assert_ptr_nonnull(body);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    uint64_t rng = 77;
    for (unsigned i = 0; i < PER_FRAME * FRAMES; i++) {
        scope_record rec;
        uint32_t type = SCOPE_REC_PROCESS + (uint32_t)(unit_rand(&rng) % 12);
        log_sample_record(&rec, type, (unsigned)(unit_rand(&rng) % LOG_SAMPLE_VARIANTS));
        size_t len = scope_record_encode(&rec, body, 1 << 20);
        ck_assert(len > 0 && len <= (1 << 20));
        switch (unit_rand(&rng) % 4) {
        case 0: /* flip bits */
        case 1: {
            unsigned n = 1 + (unsigned)(unit_rand(&rng) % 8);
            for (unsigned k = 0; k < n; k++)
                body[unit_rand(&rng) % len] ^= (uint8_t)(1u << (unit_rand(&rng) % 8));
            break;
        }
        case 2: /* cut short */
            len = (size_t)(unit_rand(&rng) % len);
            break;
        default: /* random bytes, decoded as some kind */
            len = (size_t)(unit_rand(&rng) % 64);
            for (size_t k = 0; k < len; k++)
                body[k] = (uint8_t)unit_rand(&rng);
            break;
        }
        /* Now and then decode the body as another kind than it was made for. */
        if (unit_rand(&rng) % 8 == 0)
            type = SCOPE_REC_PROCESS + (uint32_t)(unit_rand(&rng) % 12);
        ck_assert_int_eq(scope_log_writer_add_raw(w, type, body, len), 0);
        scope_record sentinel = {.type = SCOPE_REC_STRING};
        sentinel.u.string.id = SENTINEL + i;
        ck_assert_int_eq(scope_log_writer_add(w, &sentinel), 0);
        if (i % PER_FRAME == PER_FRAME - 1)
            ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, i, i), 0);
    }
    scope_log_writer_free(w);
    close(fd);
    free(body);

    scope_log_reader *r = NULL;
    char msg[256];
    ck_assert_int_eq(scope_log_reader_open(&r, path, msg, sizeof msg), 0);
    unsigned expect = 0, decoded = 0, between = 0;
    uint64_t sink = 0;
    while (scope_log_reader_next_frame(r, NULL, NULL) == 1) {
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1) {
            sink += touch(&rec);
            if (rec.type == SCOPE_REC_STRING && rec.u.string.id == SENTINEL + expect &&
                rec.u.string.value.len == 0) {
                expect++;
                between = 0;
                continue;
            }
            ck_assert_msg(++between == 1, "two records where one mutated body was (#%u)", expect);
            decoded++;
        }
    }
    ck_assert_uint_eq(expect, PER_FRAME * FRAMES);
    /* Each mutated body either decoded or was reported. */
    ck_assert_uint_eq(decoded + scope_log_reader_damage_count(r), PER_FRAME * FRAMES);
    for (size_t i = 0; i < scope_log_reader_damage_count(r); i++)
        ck_assert(scope_log_reader_damage(r, i)->what[0] != '\0');
    scope_log_reader_close(r);
    (void)sink;
}
END_TEST

int main(void) {
    Suite *s = suite_create("log_damage");
    TCase *tc = tcase_create("damage");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_truncated_at_every_offset);
    tcase_add_test(tc, test_random_bit_flips);
    tcase_add_test(tc, test_checksum_flag_cleared);
    tcase_add_test(tc, test_empty_file);
    tcase_add_test(tc, test_garbage_file);
    tcase_add_test(tc, test_open_errors);
    tcase_add_test(tc, test_garbage_among_frames);
    tcase_add_test(tc, test_garbage_before_header);
    tcase_add_test(tc, test_garbage_like_skippable_frame);
    tcase_add_test(tc, test_skippable_frame_between_frames);
    tcase_add_test(tc, test_foreign_zstd_frames);
    tcase_add_test(tc, test_newer_major_refused);
    tcase_add_test(tc, test_newer_minor_read);
    tcase_add_test(tc, test_damaged_header_read);
    tcase_add_test(tc, test_lost_frames_counted);
    tcase_add_test(tc, test_corrupt_middle_frame);
    tcase_add_test(tc, test_mutated_bodies);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
