/* Finding the newest snapshot from the end of a log (docs/format.md 9.8):
 * the newest intact snapshot, an older one when it is damaged, a truncated
 * tail, lost first frames, logs with no snapshot, and hostile tails and
 * back-pointers that must neither loop nor cost more than the tail. */
#include "log_samples.h"
#include "unit_util.h"

#include <scope/log_format.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <zstd.h>

static char dir[4096];
static char path[4200];

static void make_dir(void) {
    unit_tmpdir(dir, sizeof dir);
    unit_path(path, sizeof path, dir, "w_snap.scope");
}

static void remove_dir(void) {
    unit_rmdir(dir);
}

enum { MAX_FRAMES = 64 };

/* A log built through the real writer: frame i is a snapshot where spec[i]
 * is 's', a data frame where it is 'd'.  Each frame holds a STRING record
 * of `fill` bytes, so that frames have some size. */
typedef struct built {
    uint8_t *data;
    size_t size;
    size_t n;
    uint64_t off[MAX_FRAMES], end[MAX_FRAMES];
} built;

static void build(built *b, const char *spec, size_t fill) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    char *text = malloc(fill + 1);
    ck_assert_ptr_nonnull(text);
    b->n = strlen(spec);
    ck_assert_uint_le(b->n, MAX_FRAMES);
    for (size_t i = 0; i < b->n; i++) {
        uint64_t s = 0x5eed + i;
        for (size_t k = 0; k < fill; k++)
            text[k] = (char)('a' + unit_rand(&s) % 26);
        scope_record rec = {.type = SCOPE_REC_STRING};
        rec.u.string.id = (uint32_t)i + 1;
        rec.u.string.value = (scope_bytes){(const uint8_t *)text, fill};
        ck_assert_int_eq(scope_log_writer_add(w, &rec), 0);
        struct stat st;
        ck_assert_int_eq(fstat(fd, &st), 0);
        b->off[i] = (uint64_t)st.st_size;
        uint32_t flags = spec[i] == 's' ? SCOPE_FRAME_F_SNAPSHOT : 0;
        ck_assert_int_gt(scope_log_writer_close_frame_flags(w, SCOPE_FRAME_PERIODIC, flags,
                                                            1000000000ull * (i + 1),
                                                            1786660000000000000ull + i),
                         0);
    }
    scope_log_writer_free(w);
    close(fd);
    free(text);
    ck_assert_int_eq(log_sample_read_file(path, &b->data, &b->size), 0);
    for (size_t i = 0; i < b->n; i++)
        b->end[i] = i + 1 < b->n ? b->off[i + 1] : b->size;
}

/* Finds the snapshot in data[0..size), over memory and through a file,
 * which must agree. */
static scope_log_snapshot find(const uint8_t *data, size_t size) {
    scope_log_reader *r;
    char msg[256];
    ck_assert_msg(scope_log_reader_open_mem(&r, data, size, msg, sizeof msg) == 0, "%s", msg);
    scope_log_snapshot a, b;
    size_t opened = scope_log_reader_damage_count(r);
    ck_assert_int_eq(scope_log_reader_find_snapshot(r, &a), 0);
    ck_assert_uint_eq(scope_log_reader_damage_count(r), opened); /* it reports nothing */
    scope_log_reader_close(r);

    ck_assert_int_eq(log_sample_write_file(path, data, size), 0);
    ck_assert_msg(scope_log_reader_open(&r, path, msg, sizeof msg) == 0, "%s", msg);
    ck_assert_int_eq(scope_log_reader_find_snapshot(r, &b), 0);
    scope_log_reader_close(r);
    ck_assert_int_eq(a.status, b.status);
    ck_assert_uint_eq(a.offset, b.offset);
    ck_assert_uint_eq(a.seq, b.seq);
    ck_assert_uint_eq(a.damaged_offset, b.damaged_offset);
    ck_assert_uint_eq(a.passed_over, b.passed_over);
    return a;
}

/* Reads data from the snapshot found (or the start) to the end: the frames'
 * sequence numbers go into seqs, the damage reports are counted. */
static size_t read_on(const uint8_t *data, size_t size, uint64_t *seqs, size_t *ndamage) {
    scope_log_reader *r;
    ck_assert_int_eq(scope_log_reader_open_mem(&r, data, size, NULL, 0), 0);
    scope_log_snapshot s;
    ck_assert_int_eq(scope_log_reader_find_snapshot(r, &s), 0);
    if (s.status != SCOPE_SNAPSHOT_NONE)
        ck_assert_int_eq(scope_log_reader_seek(r, s.offset, s.seq), 0);
    size_t n = 0;
    scope_rec_frame fr;
    while (scope_log_reader_next_frame(r, &fr, NULL) == 1) {
        ck_assert_uint_lt(n, MAX_FRAMES);
        seqs[n++] = fr.seq;
    }
    *ndamage = scope_log_reader_damage_count(r);
    scope_log_reader_close(r);
    return n;
}

START_TEST(test_sample_log_starts_at_its_last_snapshot) {
    enum { N = 12 };
    uint64_t off[N], size;
    ck_assert_int_eq(log_sample_write_log(path, N, 5, off, &size), 0);
    uint8_t *data;
    size_t n;
    ck_assert_int_eq(log_sample_read_file(path, &data, &n), 0);
    scope_log_snapshot s = find(data, n);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NEWEST);
    ck_assert_uint_eq(s.offset, off[N - 1]);
    ck_assert_uint_eq(s.seq, N - 1);
    ck_assert_uint_eq(s.passed_over, 0);
    uint64_t seqs[MAX_FRAMES];
    size_t nd;
    ck_assert_uint_eq(read_on(data, n, seqs, &nd), 1);
    ck_assert_uint_eq(seqs[0], N - 1);
    ck_assert_uint_eq(nd, 0);
    free(data);
}
END_TEST

START_TEST(test_last_frame_names_the_snapshot) {
    built b;
    build(&b, "ddsdsdd", 300);
    scope_log_snapshot s = find(b.data, b.size);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NEWEST);
    ck_assert_uint_eq(s.offset, b.off[4]);
    ck_assert_uint_eq(s.seq, 4);
    ck_assert_uint_eq(s.mono_ns, 5000000000ull);
    uint64_t seqs[MAX_FRAMES];
    size_t nd;
    ck_assert_uint_eq(read_on(b.data, b.size, seqs, &nd), 3);
    ck_assert_uint_eq(seqs[0], 4);
    ck_assert_uint_eq(seqs[2], 6);
    ck_assert_uint_eq(nd, 0);
    free(b.data);
}
END_TEST

/* The newest snapshot fails its checksum: the one before it is used, said,
 * and the damaged one is reported as damage when read past. */
START_TEST(test_damaged_newest_snapshot_falls_back) {
    built b;
    build(&b, "dsddsdd", 300);
    b.data[(b.off[4] + b.end[4]) / 2] ^= 0x40;
    scope_log_snapshot s = find(b.data, b.size);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_OLDER);
    ck_assert_uint_eq(s.offset, b.off[1]);
    ck_assert_uint_eq(s.seq, 1);
    ck_assert_uint_eq(s.damaged_offset, b.off[4]);
    ck_assert_uint_eq(s.passed_over, 1);
    uint64_t seqs[MAX_FRAMES];
    size_t nd;
    ck_assert_uint_eq(read_on(b.data, b.size, seqs, &nd), 5); /* 1 2 3 5 6 */
    ck_assert_uint_eq(seqs[0], 1);
    ck_assert_uint_eq(seqs[3], 5);
    ck_assert_uint_eq(nd, 1);
    free(b.data);
}
END_TEST

/* Every snapshot damaged, or more damaged in a row than a reader tries:
 * the log is read from the start. */
START_TEST(test_no_intact_snapshot_reads_from_the_start) {
    built b;
    build(&b, "dsdsd", 200);
    b.data[(b.off[1] + b.end[1]) / 2] ^= 0x40;
    b.data[(b.off[3] + b.end[3]) / 2] ^= 0x40;
    scope_log_snapshot s = find(b.data, b.size);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NONE);
    ck_assert_uint_eq(s.offset, 0);
    free(b.data);

    build(&b, "dsdsdsdsdsdsd", 200);
    for (size_t i = 1; i < b.n; i += 2)
        b.data[(b.off[i] + b.end[i]) / 2] ^= 0x40;
    s = find(b.data, b.size);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NONE);
    /* Three damaged in a row are passed over; the fourth try is intact. */
    b.data[(b.off[5] + b.end[5]) / 2] ^= 0x40;
    s = find(b.data, b.size);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_OLDER);
    ck_assert_uint_eq(s.offset, b.off[5]);
    ck_assert_uint_eq(s.damaged_offset, b.off[11]);
    ck_assert_uint_eq(s.passed_over, 3);
    free(b.data);
}
END_TEST

/* A live writer (or a crash) left half a frame at the end: the last intact
 * frame before it names the snapshot. */
START_TEST(test_truncated_tail) {
    built b;
    build(&b, "ddsdd", 2000);
    size_t cut = (b.off[4] + b.end[4]) / 2;
    scope_log_snapshot s = find(b.data, cut);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NEWEST);
    ck_assert_uint_eq(s.offset, b.off[2]);
    uint64_t seqs[MAX_FRAMES];
    size_t nd;
    ck_assert_uint_eq(read_on(b.data, cut, seqs, &nd), 2); /* 2 3, then the cut frame */
    ck_assert_uint_eq(nd, 1);
    /* Cut inside the snapshot itself: the frame before names none. */
    cut = (b.off[2] + b.end[2]) / 2;
    s = find(b.data, cut);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NONE);
    /* Cut inside the 4 magic bytes of the last frame. */
    s = find(b.data, b.off[4] + 2);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NEWEST);
    ck_assert_uint_eq(s.offset, b.off[2]);
    free(b.data);
}
END_TEST

/* The first frames (PROCESS and definitions in a real log) are lost: a
 * snapshot after them is found and read without looking at them. */
START_TEST(test_first_frames_lost) {
    built b;
    build(&b, "dddsd", 400);
    memset(b.data + b.off[0], 0xee, b.end[1] - b.off[0]);
    scope_log_snapshot s = find(b.data, b.size);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NEWEST);
    ck_assert_uint_eq(s.offset, b.off[3]);
    uint64_t seqs[MAX_FRAMES];
    size_t nd;
    ck_assert_uint_eq(read_on(b.data, b.size, seqs, &nd), 2);
    ck_assert_uint_eq(nd, 0);
    /* The header lost too. */
    memset(b.data, 0xee, 32);
    s = find(b.data, b.size);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NEWEST);
    ck_assert_uint_eq(s.offset, b.off[3]);
    free(b.data);
}
END_TEST

/* A log with no snapshot (written before 1.7) reads from the start, and
 * searching first changes nothing of what is read, even past a damaged
 * header whose first frame the reader found while opening. */
START_TEST(test_no_snapshot_reads_whole) {
    built b;
    build(&b, "dddd", 300);
    scope_log_snapshot s = find(b.data, b.size);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NONE);
    for (int damaged_header = 0; damaged_header < 2; damaged_header++) {
        if (damaged_header)
            b.data[9] ^= 1;
        log_sample_dump ref;
        ck_assert_int_eq(log_sample_dump_mem(b.data, b.size, MAX_FRAMES, &ref), 0);
        ck_assert_uint_eq(ref.nframes, 4);
        ck_assert_uint_eq(ref.ndamage, (size_t)damaged_header);
        uint64_t seqs[MAX_FRAMES];
        size_t nd;
        ck_assert_uint_eq(read_on(b.data, b.size, seqs, &nd), 4);
        ck_assert_uint_eq(nd, ref.ndamage);
        for (size_t i = 0; i < 4; i++)
            ck_assert_uint_eq(seqs[i], i);
        log_sample_dump_free(&ref);
    }
    b.data[9] ^= 1;
    /* A header alone: an empty log. */
    s = find(b.data, 32);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NONE);
    free(b.data);
}
END_TEST

/* ---- hostile tails ------------------------------------------------------ */

/* A frame written by hand, so that its FRAME record can say what no
 * writer would: its flags and last_snapshot as given, and `fill` bytes of
 * an unknown record kind after it. */
static size_t forge_frame(uint8_t *out, size_t cap, uint64_t seq, uint32_t flags,
                          uint64_t last_snapshot, size_t fill) {
    uint8_t content[4096];
    scope_record rec = {.type = SCOPE_REC_FRAME};
    rec.u.frame = (scope_rec_frame){seq, 1000 + seq, 2000 + seq, 0, flags, last_snapshot};
    size_t body = scope_record_encode(&rec, content + 2, sizeof content - 2);
    ck_assert_uint_lt(body, 128);
    content[0] = SCOPE_REC_FRAME;
    content[1] = (uint8_t)body;
    size_t n = 2 + body;
    ck_assert_uint_lt(n + fill + 4, sizeof content);
    if (fill) {
        content[n++] = 100; /* a kind no reader knows */
        content[n++] = (uint8_t)(fill < 127 ? fill : 127);
        for (size_t k = 0; k < (fill < 127 ? fill : 127); k++)
            content[n++] = (uint8_t)k;
    }
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1);
    size_t z = ZSTD_compress2(c, out, cap, content, n);
    ZSTD_freeCCtx(c);
    ck_assert(!ZSTD_isError(z));
    return z;
}

/* A header, then forged frames: frame i with flags[i] and ptr[i]; a ptr of
 * UINT64_MAX - k names frame k's offset.  Returns the size. */
#define AT(k) (UINT64_MAX - (k))
static size_t forge_log(uint8_t *buf, size_t cap, size_t n, const uint32_t *flags,
                        const uint64_t *ptr, uint64_t *off) {
    built b;
    build(&b, "", 0); /* the header, from the real writer */
    ck_assert_uint_eq(b.size, 32);
    memcpy(buf, b.data, 32);
    free(b.data);
    size_t at = 32;
    /* Offsets first (each forged frame's size does not depend on where the
     * others start, only on its own varints, so two passes settle them). */
    for (int pass = 0; pass < 2; pass++) {
        at = 32;
        for (size_t i = 0; i < n; i++) {
            off[i] = at;
            uint64_t p = ptr[i] >= AT(MAX_FRAMES) ? off[UINT64_MAX - ptr[i]] : ptr[i];
            at += forge_frame(buf + at, cap - at, i, flags[i], p, 40);
        }
    }
    return at;
}

START_TEST(test_hostile_back_pointers) {
    static uint8_t buf[1 << 16];
    uint64_t off[8];
    const uint32_t S = SCOPE_FRAME_F_SNAPSHOT;
    struct {
        const char *what;
        size_t n;
        uint32_t flags[4];
        uint64_t ptr[4];
        int status;
        size_t used; /* the frame used, for a status other than none */
    } cases[] = {
        {"into the header", 3, {0, S, 0}, {0, 0, 5}, SCOPE_SNAPSHOT_NONE, 0},
        {"past the end", 3, {0, S, 0}, {0, 0, 1u << 30}, SCOPE_SNAPSHOT_NONE, 0},
        {"at itself", 3, {0, S, 0}, {0, 0, AT(2)}, SCOPE_SNAPSHOT_NONE, 0},
        {"forward", 3, {0, 0, 0}, {AT(2), AT(2), AT(1)}, SCOPE_SNAPSHOT_NONE, 0},
        {"at a frame that is no snapshot", 3, {0, 0, 0}, {0, 0, AT(1)}, SCOPE_SNAPSHOT_NONE, 0},
        {"at a non-snapshot after a snapshot",
         4,
         {S, 0, 0, 0},
         {0, 0, 0, AT(2)},
         SCOPE_SNAPSHOT_NONE,
         0},
        {"a non-snapshot naming one",
         4,
         {S, 0, 0, 0},
         {0, AT(0), 0, AT(2)},
         SCOPE_SNAPSHOT_OLDER,
         0},
        {"inside a frame", 3, {S, 0, 0}, {0, 0, 0}, SCOPE_SNAPSHOT_NONE, 0},
        {"a cycle between two non-snapshots",
         4,
         {0, 0, 0, 0},
         {0, AT(2), AT(1), AT(2)},
         SCOPE_SNAPSHOT_NONE,
         0},
        {"the last frame a snapshot", 3, {0, 0, S}, {0, 0, 7}, SCOPE_SNAPSHOT_NEWEST, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t size = forge_log(buf, sizeof buf, cases[c].n, cases[c].flags, cases[c].ptr, off);
        if (c == 7) { /* a pointer into the middle of frame 1 */
            uint64_t p[3] = {0, 0, off[1] + 3};
            size = forge_log(buf, sizeof buf, 3, cases[c].flags, p, off);
        }
        scope_log_snapshot s = find(buf, size);
        ck_assert_msg(s.status == cases[c].status, "%s: status %d", cases[c].what, s.status);
        if (s.status != SCOPE_SNAPSHOT_NONE)
            ck_assert_msg(s.offset == off[cases[c].used], "%s: offset", cases[c].what);
        uint64_t seqs[MAX_FRAMES];
        size_t nd;
        read_on(buf, size, seqs, &nd);
    }
}
END_TEST

/* This thread's CPU time: what the search costs, whatever else the machine
 * runs (waiting for a CPU is not in it). */
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A tail of nothing but frame magics, or of frame headers that promise
 * frames and walk into garbage: the search gives up within the tail, in a
 * time that follows the tail, not the candidates times the tail. */
START_TEST(test_hostile_tails_stay_bounded) {
    built b;
    build(&b, "dsd", 300);
    size_t tail = SCOPE_LOG_TAIL_SCAN + 4096;
    uint8_t *buf = malloc(b.size + tail);
    ck_assert_ptr_nonnull(buf);
    memcpy(buf, b.data, b.size);
    static const uint8_t magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
    for (size_t k = 0; k + 4 <= tail; k += 4)
        memcpy(buf + b.size + k, magic, 4);
    double t0 = cpu_s();
    scope_log_snapshot s = find(buf, b.size + tail - tail % 4);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NONE);
    /* A shorter tail of magics leaves the frames within reach. */
    s = find(buf, b.size + 64 * 1024);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NEWEST);
    ck_assert_uint_eq(s.offset, b.off[1]);

    /* Units of 20 bytes: a frame header that declares 32 MiB of content and
     * a checksum, then a raw block of 17 bytes whose end is the next unit's
     * block header: from every candidate the blocks walk on to the end of
     * the file, which a search must not do for each of them. */
    static const uint8_t unit[20] = {0x28, 0xB5, 0x2F, 0xFD, 0xA4, 0, 0, 0, 2, 0x88, 0, 0};
    size_t step = sizeof unit;
    for (size_t k = 0; k + step <= tail; k += step)
        memcpy(buf + b.size + k, unit, step);
    s = find(buf, b.size + tail - tail % step);
    ck_assert_int_eq(s.status, SCOPE_SNAPSHOT_NONE);
    double took = cpu_s() - t0;
    /* A few tens of milliseconds here; 10 s of CPU leaves a sanitizer
     * build its margin, and a search that tried every candidate against a
     * refilled window would take minutes. */
    ck_assert_msg(took < 10.0, "hostile tails took %.1f s of CPU", took);
    free(buf);
    free(b.data);
}
END_TEST

/* Looking for a snapshot after a frame was read is refused: the search
 * would lose the reader's place. */
START_TEST(test_find_after_reading_is_refused) {
    built b;
    build(&b, "dsd", 100);
    scope_log_reader *r;
    ck_assert_int_eq(scope_log_reader_open_mem(&r, b.data, b.size, NULL, 0), 0);
    ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 1);
    scope_log_snapshot s;
    ck_assert_int_eq(scope_log_reader_find_snapshot(r, &s), -EINVAL);
    scope_log_reader_close(r);
    free(b.data);
}
END_TEST

int main(void) {
    Suite *s = suite_create("log_snapshot");
    TCase *tc = tcase_create("snapshot");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_sample_log_starts_at_its_last_snapshot);
    tcase_add_test(tc, test_last_frame_names_the_snapshot);
    tcase_add_test(tc, test_damaged_newest_snapshot_falls_back);
    tcase_add_test(tc, test_no_intact_snapshot_reads_from_the_start);
    tcase_add_test(tc, test_truncated_tail);
    tcase_add_test(tc, test_first_frames_lost);
    tcase_add_test(tc, test_no_snapshot_reads_whole);
    tcase_add_test(tc, test_hostile_back_pointers);
    tcase_add_test(tc, test_hostile_tails_stay_bounded);
    tcase_add_test(tc, test_find_after_reading_is_refused);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
