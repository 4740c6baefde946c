/* The writer's own promises: sizes and counters, rejected records, failed
 * writes that lose nothing and leave no half frame behind, frames larger than
 * the writer was sized for, and every compression level. */
#include "log_samples.h"
#include "unit_util.h"
#include "varint.h"

#include <scope/log_format.h>
#include <scope/log_hist.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char dir[4096];
static char path[4200];

/* Made once per test case in the runner, so that it is removed even when a
 * test fails (a failing test ends its process at once). */
static void make_dir(void) {
    unit_tmpdir(dir, sizeof dir);
    unit_path(path, sizeof path, dir, "w_writer.scope");
}

static void remove_dir(void) {
    unit_rmdir(dir);
}

static int open_log(int trunc) {
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (trunc ? O_TRUNC : 0), 0644);
    ck_assert_msg(fd >= 0, "open(%s): %s", path, strerror(errno));
    return fd;
}

static uint64_t file_size(int fd) {
    struct stat sb;
    ck_assert_int_eq(fstat(fd, &sb), 0);
    return (uint64_t)sb.st_size;
}

static log_sample_dump read_log(void) {
    uint8_t *data;
    size_t size;
    ck_assert_int_eq(log_sample_read_file(path, &data, &size), 0);
    log_sample_dump d;
    ck_assert_int_eq(log_sample_dump_mem(data, size, 1024, &d), 0);
    free(data);
    ck_assert_msg(d.rc == 0, "open: %s", d.msg);
    for (size_t i = 0; i < d.ndamage; i++)
        fprintf(stderr, "  damage %zu: offset %llu length %llu truncated %d: %s\n", i,
                (unsigned long long)d.damage[i].offset, (unsigned long long)d.damage[i].length,
                d.damage[i].truncated, d.damage[i].what);
    return d;
}

static void add_sample(scope_log_writer *w, uint32_t type, unsigned variant) {
    scope_record rec;
    ck_assert_int_eq(log_sample_record(&rec, type, variant), 0);
    int rc = scope_log_writer_add(w, &rec);
    ck_assert_msg(rc == 0, "add %s variant %u: %d", scope_rec_type_name(type), variant, rc);
}

static void add_all_kinds(scope_log_writer *w, unsigned variant) {
    for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++)
        if (scope_rec_type_known(t))
            add_sample(w, t, variant);
}

/* ---- sizes and counters ----------------------------------------------- */

START_TEST(test_counters_and_sizes) {
    int fd = open_log(1);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    /* The header is written at open, and counts as the writer's bytes. */
    ck_assert_uint_eq(file_size(fd), SCOPE_LOG_HEADER_SIZE);
    ck_assert_uint_eq(scope_log_writer_bytes(w), SCOPE_LOG_HEADER_SIZE);
    ck_assert_uint_eq(scope_log_writer_frames(w), 0);
    ck_assert_uint_eq(scope_log_writer_pending(w), 0);

    /* pending() counts whole records: type, length and body. */
    scope_record rec;
    log_sample_record(&rec, SCOPE_REC_STRING, 0);
    size_t body = scope_record_encode(&rec, NULL, 0);
    ck_assert_int_eq(scope_log_writer_add(w, &rec), 0);
    size_t one = varint_len(SCOPE_REC_STRING) + varint_len(body) + body;
    ck_assert_uint_eq(scope_log_writer_pending(w), one);
    ck_assert_int_eq(scope_log_writer_add(w, &rec), 0);
    ck_assert_uint_eq(scope_log_writer_pending(w), 2 * one);
    ck_assert_int_eq(scope_log_writer_add_raw(w, 200, "abc", 3), 0);
    ck_assert_uint_eq(scope_log_writer_pending(w), 2 * one + varint_len(200) + 1 + 3);

    uint64_t before = file_size(fd);
    long n = scope_log_writer_close_frame(w, SCOPE_FRAME_FLUSH, 10, 20);
    ck_assert_int_gt(n, 0);
    ck_assert_uint_eq(file_size(fd), before + (uint64_t)n); /* one frame, all of it */
    ck_assert_uint_eq(scope_log_writer_bytes(w), file_size(fd));
    ck_assert_uint_eq(scope_log_writer_frames(w), 1);
    ck_assert_uint_eq(scope_log_writer_pending(w), 0);

    /* An empty frame still goes out: it proves the process was alive. */
    before = file_size(fd);
    n = scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 30, 40);
    ck_assert_int_gt(n, 0);
    ck_assert_uint_eq(file_size(fd), before + (uint64_t)n);
    ck_assert_uint_eq(scope_log_writer_frames(w), 2);
    ck_assert_uint_eq(scope_log_writer_bytes(w), file_size(fd));
    scope_log_writer_free(w);
    close(fd);

    log_sample_dump d = read_log();
    ck_assert_uint_eq(d.nframes, 2);
    ck_assert_uint_eq(d.frames[0].nrecords, 3);
    ck_assert_uint_eq(d.frames[1].nrecords, 0);
    ck_assert_uint_eq(d.ndamage, 0);
    log_sample_dump_free(&d);
}
END_TEST

/* A log is written by one writer from start to end (sequence numbers are per
 * file), so a writer refuses a file that already holds something, and leaves
 * it exactly as it was. */
START_TEST(test_open_refuses_non_empty_file) {
    int fd = open_log(1);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    for (int i = 0; i < 3; i++) {
        add_all_kinds(w, 0);
        ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, i, i), 0);
    }
    scope_log_writer_free(w);
    close(fd);
    uint8_t *before;
    size_t nbefore;
    ck_assert_int_eq(log_sample_read_file(path, &before, &nbefore), 0);

    fd = open_log(0);
    w = (scope_log_writer *)&w; /* must be reset on failure */
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), -EEXIST);
    ck_assert_ptr_null(w);
    close(fd);

    uint8_t *after;
    size_t nafter;
    ck_assert_int_eq(log_sample_read_file(path, &after, &nafter), 0);
    ck_assert_msg(nafter == nbefore && memcmp(before, after, nbefore) == 0,
                  "a refused open changed the file");
    free(before);
    free(after);
    log_sample_dump d = read_log();
    ck_assert_uint_eq(d.nframes, 3);
    ck_assert_uint_eq(d.ndamage, 0);
    log_sample_dump_free(&d);
}
END_TEST

/* discard() drops the open frame's records and nothing else. */
START_TEST(test_discard) {
    int fd = open_log(1);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    add_all_kinds(w, 0);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 1), 0);
    add_all_kinds(w, 1);
    ck_assert_uint_gt(scope_log_writer_pending(w), 0);
    scope_log_writer_discard(w);
    ck_assert_uint_eq(scope_log_writer_pending(w), 0);
    scope_log_writer_discard(w); /* twice is harmless */
    ck_assert_uint_eq(scope_log_writer_frames(w), 1);
    add_sample(w, SCOPE_REC_MARK, 0);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 2, 2), 0);
    scope_log_writer_free(w);
    close(fd);

    log_sample_dump d = read_log();
    ck_assert_uint_eq(d.nframes, 2);
    ck_assert_uint_eq(d.frames[1].frame.seq, 1);
    ck_assert_uint_eq(d.frames[1].nrecords, 1); /* the MARK only */
    ck_assert_uint_eq(d.ndamage, 0);
    log_sample_dump_free(&d);
}
END_TEST

/* ---- records the writer refuses --------------------------------------- */

START_TEST(test_add_rejects_invalid_records) {
    int fd = open_log(1);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    add_sample(w, SCOPE_REC_STRING, 0);
    const size_t pending = scope_log_writer_pending(w);

    scope_record rec;
    log_sample_record(&rec, SCOPE_REC_FRAME, 0);
    ck_assert_int_eq(scope_log_writer_add(w, &rec), -EINVAL); /* the writer's own */
    ck_assert_int_eq(scope_log_writer_add_raw(w, SCOPE_REC_FRAME, "\0\0\0\0", 4), -EINVAL);

    memset(&rec, 0, sizeof rec);
    rec.type = 200; /* unknown kinds have no encoding; add_raw is their way in */
    ck_assert_int_eq(scope_log_writer_add(w, &rec), -EINVAL);

    scope_hist_bin bins[2] = {{7, 1}, {7, 1}};
    log_sample_record(&rec, SCOPE_REC_PHASE_AGG, 0);
    rec.u.phase_agg.nbins = 2;
    rec.u.phase_agg.bins = bins; /* not strictly increasing */
    ck_assert_int_eq(scope_log_writer_add(w, &rec), -EINVAL);
    bins[0].bucket = 1;
    bins[1].bucket = SCOPE_HIST_BUCKETS; /* past the histogram */
    ck_assert_int_eq(scope_log_writer_add(w, &rec), -EINVAL);

    log_sample_record(&rec, SCOPE_REC_PROCESS, 0);
    rec.u.process.argv = NULL; /* argc entries promised, none given */
    ck_assert_int_eq(scope_log_writer_add(w, &rec), -EINVAL);
    log_sample_record(&rec, SCOPE_REC_TRACE, 0);
    rec.u.trace.events = NULL;
    ck_assert_int_eq(scope_log_writer_add(w, &rec), -EINVAL);

    ck_assert_uint_eq(scope_log_writer_pending(w), pending);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 1), 0);
    scope_log_writer_free(w);
    close(fd);

    log_sample_dump d = read_log();
    ck_assert_uint_eq(d.nframes, 1);
    ck_assert_uint_eq(d.frames[0].nrecords, 1);
    ck_assert_uint_eq(d.ndamage, 0);
    log_sample_dump_free(&d);
}
END_TEST

/* ---- failed writes ---------------------------------------------------- */

/* /dev/full fails every write with ENOSPC.  The writer cannot even write its
 * header there; and once a log's fd turns into /dev/full (dup2 over it, which
 * is what a full disk looks like to the writer), closing a frame fails with
 * -ENOSPC, keeps the frame's records pending, and writes them all once the
 * space is back. */
START_TEST(test_write_to_full_device) {
    int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (full < 0) {
        fprintf(stderr, "test_write_to_full_device: no /dev/full here (%s), skipped\n",
                strerror(errno));
        return;
    }
    scope_log_writer *w = NULL;
    int rc = scope_log_writer_open(&w, full, NULL);
    if (rc == 0) {
        /* A writer that defers its header must fail at the first frame. */
        add_all_kinds(w, 0);
        ck_assert_int_eq(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 1), -ENOSPC);
        scope_log_writer_free(w);
    } else {
        ck_assert_int_eq(rc, -ENOSPC);
        ck_assert_ptr_null(w);
    }

    int fd = open_log(1);
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    for (int i = 0; i < 2; i++) {
        add_all_kinds(w, 0);
        ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, i, i), 0);
    }
    add_all_kinds(w, 1);
    const size_t pending = scope_log_writer_pending(w);
    const uint64_t bytes = scope_log_writer_bytes(w), size = file_size(fd);
    int saved = dup(fd);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(dup2(full, fd), 0);
    for (int attempt = 0; attempt < 3; attempt++) {
        long n = scope_log_writer_close_frame(w, SCOPE_FRAME_SIGNAL, 100, 100);
        ck_assert_msg(n == -ENOSPC, "attempt %d: close_frame on a full device: %ld", attempt, n);
        ck_assert_uint_eq(scope_log_writer_pending(w), pending);
        ck_assert_uint_eq(scope_log_writer_frames(w), 2);
        ck_assert_uint_eq(scope_log_writer_bytes(w), bytes);
    }
    /* Records added while the disk is full join the same frame. */
    add_sample(w, SCOPE_REC_MARK, 0);
    ck_assert_int_ge(dup2(saved, fd), 0);
    close(saved);
    ck_assert_uint_eq(file_size(fd), size);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_EXIT, 200, 200), 0);
    ck_assert_uint_eq(scope_log_writer_pending(w), 0);
    ck_assert_uint_eq(scope_log_writer_frames(w), 3);
    scope_log_writer_free(w);
    close(fd);
    close(full);

    log_sample_dump d = read_log();
    ck_assert_uint_eq(d.nframes, 3);
    ck_assert_uint_eq(d.ndamage, 0);
    ck_assert_uint_eq(d.frames[2].frame.seq, 2);
    ck_assert_uint_eq(d.frames[2].frame.mono_ns, 200);
    uint32_t kinds = 0;
    for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++)
        kinds += (uint32_t)scope_rec_type_known(t);
    ck_assert_uint_eq(d.frames[2].nrecords, kinds + 1);
    log_sample_dump_free(&d);
}
END_TEST

/* A write to a descriptor that cannot be written is an error, not a loss. */
START_TEST(test_write_to_read_only_fd) {
    int fd = open_log(1);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    /* The writer's fd number now names a read-only descriptor. */
    int ro = open(path, O_RDONLY | O_CLOEXEC);
    ck_assert_int_ge(ro, 0);
    ck_assert_int_eq(dup2(ro, fd), fd);
    close(ro);
    add_all_kinds(w, 0);
    size_t pending = scope_log_writer_pending(w);
    long n = scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 1);
    ck_assert_int_eq(n, -EBADF);
    ck_assert_uint_eq(scope_log_writer_pending(w), pending);
    ck_assert_uint_eq(scope_log_writer_frames(w), 0);
    scope_log_writer_free(w);
    close(fd);
}
END_TEST

/* Child side of the RLIMIT_FSIZE test; returns an exit status that names the
 * first thing that went wrong. */
static int fsize_child(long slack, int retry) {
    signal(SIGXFSZ, SIG_IGN); /* so that write(2) fails with EFBIG instead */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    scope_log_writer *w;
    if (fd < 0 || scope_log_writer_open(&w, fd, NULL) != 0)
        return 20;
    for (int i = 0; i < 3; i++) {
        for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++) {
            if (!scope_rec_type_known(t))
                continue; /* a number another minor version holds */
            scope_record rec;
            log_sample_record(&rec, t, (unsigned)i);
            if (scope_log_writer_add(w, &rec) != 0)
                return 21;
        }
        if (scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, (uint64_t)i, 0) <= 0)
            return 22;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return 23;
    /* 64 KiB that do not compress: the frame is far larger than the slack. */
    static uint8_t noise[65536];
    uint64_t rng = 5;
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (uint8_t)unit_rand(&rng);
    scope_record big = {.type = SCOPE_REC_STRING};
    big.u.string.id = 77;
    big.u.string.value = (scope_bytes){noise, sizeof noise};
    if (scope_log_writer_add(w, &big) != 0)
        return 24;
    size_t pending = scope_log_writer_pending(w);

    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 25;
    rlim_t old = rl.rlim_cur;
    rl.rlim_cur = (rlim_t)sb.st_size + (rlim_t)slack;
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 26;
    long n = scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 3, 0);
    if (n >= 0)
        return 10; /* the frame cannot have fit */
    if (scope_log_writer_pending(w) != pending)
        return 11; /* records lost */
    if (scope_log_writer_frames(w) != 3)
        return 12;
    struct stat after;
    if (fstat(fd, &after) != 0 || after.st_size != sb.st_size)
        return 13; /* a half frame left behind */
    if (retry) {
        rl.rlim_cur = old;
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            return 27;
        if (scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 3, 0) <= 0)
            return 14;
        if (scope_log_writer_frames(w) != 4 || scope_log_writer_pending(w) != 0)
            return 15;
    }
    scope_log_writer_free(w);
    return close(fd) == 0 ? 0 : 28;
}

/* RLIMIT_FSIZE makes write(2) stop at the limit: a short write (slack > 0)
 * or an immediate EFBIG (slack 0).  The writer must cut the file back to its
 * last whole frame, keep the records, and write them when it can. */
START_TEST(test_file_size_limit) {
    static const char *const why[] = {
        [10] = "close_frame succeeded past the limit",
        [11] = "pending records lost",
        [12] = "frame counted though not written",
        [13] = "file not cut back to the last frame",
        [14] = "retry failed",
        [15] = "retry left records pending",
    };
    for (long slack = 0; slack <= 100; slack += 100) {
        for (int retry = 0; retry <= 1; retry++) {
            pid_t pid = fork();
            ck_assert_int_ge(pid, 0);
            if (pid == 0)
                _exit(fsize_child(slack, retry));
            int status;
            ck_assert_int_eq(waitpid(pid, &status, 0), pid);
            ck_assert_msg(WIFEXITED(status), "slack %ld retry %d: child killed by signal %d", slack,
                          retry, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
            int code = WEXITSTATUS(status);
            ck_assert_msg(code == 0, "slack %ld retry %d: child exit %d (%s)", slack, retry, code,
                          code >= 10 && code <= 15 ? why[code] : "setup failed");

            log_sample_dump d = read_log();
            ck_assert_msg(d.ndamage == 0, "slack %ld retry %d: %zu damage reports", slack, retry,
                          d.ndamage);
            ck_assert_uint_eq(d.nframes, 3 + (size_t)retry);
            for (size_t i = 0; i < d.nframes; i++)
                ck_assert_uint_eq(d.frames[i].frame.seq, i);
            if (retry)
                ck_assert_uint_eq(d.frames[3].nrecords, 1);
            log_sample_dump_free(&d);
        }
    }
}
END_TEST

/* ---- large frames and options ----------------------------------------- */

/* Record i of the large-frame test: noise or text, 4 KiB. */
static void large_record(unsigned frame, unsigned i, uint8_t *buf, size_t len) {
    uint64_t rng = ((uint64_t)frame << 32) | i;
    if (i % 2) {
        for (size_t k = 0; k < len; k++)
            buf[k] = (uint8_t)unit_rand(&rng);
    } else {
        for (size_t k = 0; k < len; k++)
            buf[k] = (uint8_t)("phase mcts/env_step "[(k + i) % 20]);
    }
}

/* A frame of 8 MiB, eight times max_frame_hint, still compresses into one
 * frame and reads back whole; so does the next one, after the writer grew. */
START_TEST(test_large_frame) {
    enum { RECORDS = 2048, LEN = 4096 };
    static uint8_t buf[LEN], want[LEN];
    int fd = open_log(1);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0); /* hint: 1 MiB */
    for (unsigned f = 0; f < 2; f++) {
        for (unsigned i = 0; i < RECORDS; i++) {
            large_record(f, i, buf, LEN);
            scope_record rec = {.type = SCOPE_REC_STRING};
            rec.u.string.id = i + 1;
            rec.u.string.value = (scope_bytes){buf, LEN};
            ck_assert_int_eq(scope_log_writer_add(w, &rec), 0);
        }
        ck_assert_uint_ge(scope_log_writer_pending(w), 8u << 20);
        long n = scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, f, f);
        ck_assert_msg(n > 0, "frame %u of 8 MiB: %ld", f, n);
    }
    scope_log_writer_free(w);
    close(fd);

    scope_log_reader *r;
    char msg[256];
    ck_assert_int_eq(scope_log_reader_open(&r, path, msg, sizeof msg), 0);
    scope_log_reader_whole_batches(r, 1);
    for (unsigned f = 0; f < 2; f++) {
        ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 1);
        scope_record rec;
        for (unsigned i = 0; i < RECORDS; i++) {
            ck_assert_msg(scope_log_reader_next_record(r, &rec) == 1, "frame %u record %u", f, i);
            large_record(f, i, want, LEN);
            ck_assert_uint_eq(rec.type, SCOPE_REC_STRING);
            ck_assert_uint_eq(rec.u.string.id, i + 1);
            ck_assert_msg(rec.u.string.value.len == LEN &&
                              memcmp(rec.u.string.value.ptr, want, LEN) == 0,
                          "frame %u record %u differs", f, i);
        }
        ck_assert_int_eq(scope_log_reader_next_record(r, &rec), 0);
    }
    ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 0);
    ck_assert_uint_eq(scope_log_reader_damage_count(r), 0);
    scope_log_reader_close(r);
}
END_TEST

/* Readers refuse to inflate a frame of more than SCOPE_LOG_MAX_FRAME_CONTENT
 * bytes, so the writer must never produce one: the record that would pass
 * the limit is refused with -E2BIG, and after closing the frame it goes into
 * the next.  A frame written and then refused by every reader would be data
 * lost with no error anywhere. */
START_TEST(test_frame_over_reader_limit) {
    enum { LEN = 64 << 10 };
    static uint8_t text[LEN];
    for (size_t k = 0; k < LEN; k++)
        text[k] = (uint8_t)("checkpoint shard "[k % 17]); /* compresses: the file stays small */
    int fd = open_log(1);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    scope_record rec = {.type = SCOPE_REC_STRING};
    rec.u.string.value = (scope_bytes){text, LEN};
    uint32_t added = 0;
    int rc = 0;
    /* Stop at twice the limit in case nothing is ever refused. */
    while (scope_log_writer_pending(w) <= 2 * (size_t)SCOPE_LOG_MAX_FRAME_CONTENT) {
        rec.u.string.id = added + 1;
        if ((rc = scope_log_writer_add(w, &rec)) != 0)
            break;
        added++;
    }
    ck_assert_msg(rc == -E2BIG, "after %u records of %d KiB (%zu bytes pending): add gave %d",
                  added, LEN >> 10, scope_log_writer_pending(w), rc);
    ck_assert_uint_le(scope_log_writer_pending(w), SCOPE_LOG_MAX_FRAME_CONTENT);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 1), 0);
    ck_assert_int_eq(scope_log_writer_add(w, &rec), 0); /* the refused one, again */
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 2, 2), 0);
    scope_log_writer_free(w);
    close(fd);

    log_sample_dump d = read_log();
    ck_assert_msg(d.ndamage == 0 && d.nframes == 2,
                  "%zu frames and %zu damage reports (%s) for a frame of %u records and one of 1",
                  d.nframes, d.ndamage, d.ndamage ? d.damage[0].what : "", added);
    ck_assert_uint_eq(d.frames[0].nrecords, added);
    ck_assert_uint_eq(d.frames[1].nrecords, 1);
    log_sample_dump_free(&d);
}
END_TEST

/* Fast, default and strong levels, with a hint far below the frames. */
START_TEST(test_levels_and_small_hint) {
    static const int levels[] = {-5, 1, 0, 9, 19};
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        scope_log_writer_options opt = {.level = levels[l], .max_frame_hint = 4096};
        int fd = open_log(1);
        scope_log_writer *w;
        int rc = scope_log_writer_open(&w, fd, &opt);
        ck_assert_msg(rc == 0, "level %d: open %d", levels[l], rc);
        for (unsigned v = 0; v < LOG_SAMPLE_VARIANTS; v++) {
            add_all_kinds(w, v);
            long n = scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, v, v);
            ck_assert_msg(n > 0, "level %d variant %u: %ld", levels[l], v, n);
        }
        scope_log_writer_free(w);
        close(fd);

        scope_log_reader *r;
        char msg[256];
        ck_assert_int_eq(scope_log_reader_open(&r, path, msg, sizeof msg), 0);
        scope_log_reader_whole_batches(r, 1);
        for (unsigned v = 0; v < LOG_SAMPLE_VARIANTS; v++) {
            ck_assert_int_eq(scope_log_reader_next_frame(r, NULL, NULL), 1);
            for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++) {
                if (!scope_rec_type_known(t))
                    continue; /* a number another minor version holds */
                scope_record got, want;
                char why[256];
                ck_assert_int_eq(scope_log_reader_next_record(r, &got), 1);
                log_sample_record(&want, t, v);
                ck_assert_msg(log_sample_record_equal(&want, &got, why, sizeof why),
                              "level %d %s variant %u: %s", levels[l], scope_rec_type_name(t), v,
                              why);
            }
        }
        ck_assert_uint_eq(scope_log_reader_damage_count(r), 0);
        scope_log_reader_close(r);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("log_writer");
    TCase *tc = tcase_create("writer");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_counters_and_sizes);
    tcase_add_test(tc, test_open_refuses_non_empty_file);
    tcase_add_test(tc, test_discard);
    tcase_add_test(tc, test_add_rejects_invalid_records);
    tcase_add_test(tc, test_write_to_full_device);
    tcase_add_test(tc, test_write_to_read_only_fd);
    tcase_add_test(tc, test_file_size_limit);
    tcase_add_test(tc, test_large_frame);
    tcase_add_test(tc, test_frame_over_reader_limit);
    tcase_add_test(tc, test_levels_and_small_hint);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
