/* The writer runs inside other people's programs, in a thread that must not
 * take the allocator's locks once warmed up (a fork or a signal may come at
 * any time).  This test counts heap calls by defining malloc and friends in
 * the executable, forwarding to glibc's own entry points, and checks that
 * closing frames and adding records makes none after warm-up.
 *
 * Not built under SCOPE_SANITIZE: AddressSanitizer owns malloc. */
#include "log_samples.h"
#include "unit_util.h"

#include <scope/log_format.h>

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <zstd.h>

/* ---- the interposer --------------------------------------------------- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static volatile int counting;
static volatile size_t n_alloc, n_free;

void *malloc(size_t n) {
    if (counting)
        n_alloc++;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size) {
    if (counting)
        n_alloc++;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n) {
    if (counting)
        n_alloc++;
    return __libc_realloc(p, n);
}

void free(void *p) {
    if (counting && p)
        n_free++;
    __libc_free(p);
}

/* zstd may ask for aligned memory; those calls count too. */
void *memalign(size_t align, size_t n) {
    if (counting)
        n_alloc++;
    return __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n) {
    if (counting)
        n_alloc++;
    return __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n) {
    if (counting)
        n_alloc++;
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    void *p = __libc_memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

static void count_start(void) {
    n_alloc = n_free = 0;
    counting = 1;
}

static void count_stop(void) {
    counting = 0;
}

/* ---- tests ------------------------------------------------------------ */

static char dir[4096];
static char path[4200];

static void make_dir(void) {
    unit_tmpdir(dir, sizeof dir);
    unit_path(path, sizeof path, dir, "w_alloc.scope");
}

static void remove_dir(void) {
    unit_rmdir(dir);
}

static scope_log_writer *open_writer(int *fd, const scope_log_writer_options *opt) {
    *fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    ck_assert_int_ge(*fd, 0);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, *fd, opt), 0);
    return w;
}

/* Without this, a broken interposer would make every other test pass. */
START_TEST(test_interposer_counts) {
    count_start();
    void *p = malloc(16);
    p = realloc(p, 4096);
    free(p);
    void *q = calloc(4, 8);
    free(q);
    count_stop();
    ck_assert_uint_eq(n_alloc, 3);
    ck_assert_uint_eq(n_free, 2);

    /* The writer's own allocations, zstd's included, go through it. */
    int fd;
    count_start();
    scope_log_writer *w = open_writer(&fd, NULL);
    count_stop();
    ck_assert_uint_gt(n_alloc, 0);
    scope_log_writer_free(w);
    close(fd);

    /* And so do those made inside the shared libzstd. */
    count_start();
    ZSTD_CCtx *c = ZSTD_createCCtx();
    count_stop();
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_gt(n_alloc, 0);
    ZSTD_freeCCtx(c);
}
END_TEST

/* Every kind and variant, the large-array variant included. */
static scope_record records[SCOPE_REC_TYPE_LIMIT * LOG_SAMPLE_VARIANTS];
static size_t nrecords;

static void prepare_records(void) {
    nrecords = 0;
    for (unsigned v = 0; v < LOG_SAMPLE_VARIANTS; v++)
        for (uint32_t t = SCOPE_REC_PROCESS; t < SCOPE_REC_TYPE_LIMIT; t++)
            if (scope_rec_type_known(t))
                ck_assert_int_eq(log_sample_record(&records[nrecords++], t, v), 0);
}

static void write_frame(scope_log_writer *w, uint64_t i) {
    for (size_t k = 0; k < nrecords; k++)
        if (scope_log_writer_add(w, &records[k]) != 0)
            ck_abort_msg("add failed");
    if (scope_log_writer_add_raw(w, 200, "raw", 3) != 0)
        ck_abort_msg("add_raw failed");
    if (scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, i, i) <= 0)
        ck_abort_msg("close_frame failed");
}

START_TEST(test_no_allocation_after_warmup) {
    prepare_records();
    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    for (uint64_t i = 0; i < 3; i++)
        write_frame(w, i);

    count_start();
    for (uint64_t i = 3; i < 40; i++)
        write_frame(w, i);
    /* Empty frames (liveness only) too. */
    for (uint64_t i = 40; i < 45; i++)
        if (scope_log_writer_close_frame(w, SCOPE_FRAME_FLUSH, i, i) <= 0)
            ck_abort_msg("close_frame failed");
    count_stop();
    ck_assert_msg(n_alloc == 0 && n_free == 0,
                  "steady state: %zu allocations and %zu frees in 42 frames", n_alloc, n_free);
    ck_assert_uint_eq(scope_log_writer_frames(w), 45);
    scope_log_writer_free(w);
    close(fd);
}
END_TEST

/* A frame larger than max_frame_hint grows the record buffer once; frames of
 * that size afterwards allocate nothing, and the compressor is never grown. */
START_TEST(test_no_allocation_after_large_frame) {
    prepare_records();
    int fd;
    scope_log_writer_options opt = {.level = 0, .max_frame_hint = 16 << 10};
    scope_log_writer *w = open_writer(&fd, &opt);
    /* Warm-up: one frame of several times the hint, which must grow the
     * record buffer (and shows the counting sees the writer's growth). */
    count_start();
    for (int k = 0; k < 4; k++)
        for (size_t r = 0; r < nrecords; r++)
            if (scope_log_writer_add(w, &records[r]) != 0)
                ck_abort_msg("add failed");
    count_stop();
    ck_assert_uint_gt(n_alloc, 0);
    size_t warm = scope_log_writer_pending(w);
    ck_assert_uint_gt(warm, 4 * (16 << 10));
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 0, 0), 0);

    count_start();
    for (uint64_t i = 1; i < 10; i++) {
        for (int k = 0; k < 4; k++)
            for (size_t r = 0; r < nrecords; r++)
                if (scope_log_writer_add(w, &records[r]) != 0)
                    ck_abort_msg("add failed");
        if (scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, i, i) <= 0)
            ck_abort_msg("close_frame failed");
    }
    count_stop();
    ck_assert_msg(n_alloc == 0 && n_free == 0,
                  "frames of %zu bytes (hint 16 KiB) after warm-up: %zu allocations, %zu frees",
                  warm, n_alloc, n_free);
    scope_log_writer_free(w);
    close(fd);
}
END_TEST

/* A failed write must not allocate either: it happens exactly when the
 * process is in trouble. */
START_TEST(test_no_allocation_on_failed_write) {
    prepare_records();
    int fd;
    scope_log_writer *w = open_writer(&fd, NULL);
    write_frame(w, 0);
    int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (full < 0) {
        fprintf(stderr, "no /dev/full here, skipped\n");
        scope_log_writer_free(w);
        close(fd);
        return;
    }
    ck_assert_int_ge(dup2(full, fd), 0);
    for (size_t r = 0; r < nrecords; r++)
        ck_assert_int_eq(scope_log_writer_add(w, &records[r]), 0);
    count_start();
    long n = scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 1, 1);
    count_stop();
    ck_assert_int_eq(n, -ENOSPC);
    ck_assert_uint_eq(n_alloc, 0);
    scope_log_writer_free(w);
    close(fd);
    close(full);
}
END_TEST

int main(void) {
    Suite *s = suite_create("log_writer_alloc");
    TCase *tc = tcase_create("alloc");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_interposer_counts);
    tcase_add_test(tc, test_no_allocation_after_warmup);
    tcase_add_test(tc, test_no_allocation_after_large_frame);
    tcase_add_test(tc, test_no_allocation_on_failed_write);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
