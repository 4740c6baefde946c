/* Exact I/O phases (SCOPE_PHASE_IO) on real files: progs/rt_io.c moves a
 * known number of bytes in each phase, and the log must hold exactly them:
 * the calling thread's own bytes only, the disk and the page cache told
 * apart, tmpfs a measured zero on disk, nested phases each their own, and
 * a boundary read that fails counted as failed with no bytes at all. */
#include "progs/rt_common.h"
#include "rt_util.h"

#include <stdlib.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#define TMPFS_MAGIC 0x01021994

/* write_bytes counts the pages a thread dirties, and an fsync may dirty a
 * block of the file system's own metadata on the way (a bitmap, an extent
 * block), which the kernel charges to the same thread: a written file's
 * bytes on disk are exact to within these few pages.  Reading such a block
 * from the disk first, when the page cache no longer holds it, is charged
 * to the thread as well (a CI run saw 4096 bytes read in the fsync'd write
 * phase): the bytes a writing phase reads from disk are exact to within as
 * many. */
#define METADATA_SLACK (16u * 4096u)

static int disk_write_ok(uint64_t got, uint64_t want) {
    return want ? got >= want && got <= want + METADATA_SLACK : got == 0;
}

static int disk_read_ok(uint64_t got, uint64_t want, uint64_t disk_written) {
    return disk_written ? got >= want && got <= want + METADATA_SLACK : got == want;
}

static const rr_agg *agg_of(const rr_log *log, const char *thread, const char *path) {
    const rr_thread *t = rr_thread_named(log, thread);
    const rr_node *n = t ? rr_find(log, t->index, path) : NULL;
    if (!n || !n->has_agg) {
        rr_print(stderr, log);
        ck_abort_msg("no aggregate of '%s' on thread %s", path, thread);
    }
    return &n->agg;
}

/* Entries measured, failed, and the four byte counts. */
static void expect_io(const rr_log *log, const char *thread, const char *path, uint64_t count,
                      uint64_t failed, uint64_t disk_r, uint64_t disk_w, uint64_t char_r,
                      uint64_t char_w) {
    const rr_agg *a = agg_of(log, thread, path);
    int measured = (a->io_flags & SCOPE_IO_MEASURED) != 0;
    ck_assert_msg(
        a->io_count == count && a->io_failed == failed && measured == (count > 0) &&
            disk_read_ok(a->disk_read, disk_r, disk_w) && disk_write_ok(a->disk_write, disk_w) &&
            a->char_read == char_r && a->char_write == char_w,
        "%s: entries %llu failed %llu (flags %u) disk r %llu w %llu char r %llu w %llu; "
        "expected %llu %llu disk r %llu w %llu char r %llu w %llu",
        path, (unsigned long long)a->io_count, (unsigned long long)a->io_failed, a->io_flags,
        (unsigned long long)a->disk_read, (unsigned long long)a->disk_write,
        (unsigned long long)a->char_read, (unsigned long long)a->char_write,
        (unsigned long long)count, (unsigned long long)failed, (unsigned long long)disk_r,
        (unsigned long long)disk_w, (unsigned long long)char_r, (unsigned long long)char_w);
}

START_TEST(test_io_phases_are_exact) {
    char run[4200], disk[4200];
    rt_mkdir(run, sizeof run, "run");
    rt_mkdir(disk, sizeof disk, "disk");
    struct statfs fs;
    ck_assert_int_eq(statfs(disk, &fs), 0);
    ck_assert_msg(fs.f_type != TMPFS_MAGIC, "%s is on tmpfs: set TMPDIR to a disk", disk);
    char shm[] = "/dev/shm/scope-rt-io-XXXXXX";
    ck_assert_msg(mkdtemp(shm) != NULL, "no /dev/shm");
    ck_assert_int_eq(statfs(shm, &fs), 0);
    ck_assert_msg(fs.f_type == TMPFS_MAGIC, "/dev/shm is not tmpfs here");

    char *argv[] = {(char *)rt_prog("rt_io"), run, disk, shm, NULL};
    rt_proc p;
    rt_opts o = {0};
    rt_run(&p, argv, &o, 120);
    rt_rmrf(shm);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0 && !*err, "rt_io %s:\n%s",
                  rt_status(p.status), rt_tail(err));
    free(err);
    rr_run r;
    const rr_log *log = rt_load_one(run, &r);

    /* The thread's own fsync'd write (and the byte through a pipe that
     * starts the other thread), none of the other thread's bytes. */
    expect_io(log, "rt-io-main", "big_write", 1, 0, 0, RT_IO_BIG, 0, RT_IO_BIG + 1);
    /* Cold: every byte from the disk.  Warm: every byte from the cache. */
    expect_io(log, "rt-io-main", "cold_read", 1, 0, RT_IO_FILE, 0, RT_IO_FILE, 0);
    expect_io(log, "rt-io-main", "warm_read", 1, 0, 0, 0, RT_IO_FILE, 0);
    /* Nested: the outer holds its own and the inner's bytes, and none of the
     * recorder's reads of the counters at the inner's ends. */
    expect_io(log, "rt-io-main", "outer", 1, 0, 0, 0, RT_IO_OUTER + RT_IO_INNER, 0);
    expect_io(log, "rt-io-main", "outer/inner", 1, 0, 0, 0, RT_IO_INNER, 0);
    /* tmpfs has no block device: a measured zero. */
    expect_io(log, "rt-io-main", "shm_write", 1, 0, 0, 0, 0, RT_IO_SHM);
    /* Counters that could not be read: failed, nothing recorded. */
    expect_io(log, "rt-io-nofd", "no_fd", 0, 1, 0, 0, 0, 0);
    expect_io(log, "rt-io-nofd", "after_no_fd", 1, 0, 0, 0, 0, 0);
    /* The recorder's descriptor of the counters, closed by the program:
     * found gone before the next read, and replaced. */
    expect_io(log, "rt-io-closed", "first", 1, 0, 0, 0, 0, 0);
    expect_io(log, "rt-io-closed", "closed", 1, 0, 0, 0, 0, 0);
    expect_io(log, "rt-io-closed", "reopened", 1, 0, 0, 0, 0, 0);
    /* A plain phase measures no I/O. */
    const rr_agg *noise = agg_of(log, "rt-io-noise", "noise");
    ck_assert_msg(noise->io_flags == 0 && noise->io_count == 0, "a plain phase measured I/O");
    rr_free(&r);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_io");
    TCase *tc = tcase_create("io_phases");
    rt_fixture(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_io_phases_are_exact);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
