/*
 * Opening a log below a run directory (scope_log_reader_open_beneath): the
 * way the run-directory loader reads every log, since anyone who can write
 * to a run directory can plant links in it, or swap a listed log or host
 * folder for one before it is read.  No link anywhere below the directory
 * is followed, no path leaves it, and a FIFO is refused without waiting.
 */
#include "log_samples.h"
#include "unit_util.h"

#include <errno.h>
#include <fcntl.h>
#include <scope/log_format.h>
#include <sys/stat.h>

static char dir[4096];
static int dirfd_ = -1;

static void path_of(char *buf, size_t len, const char *rel) {
    snprintf(buf, len, "%s/%s", dir, rel);
}

/* RUN/host/log.scope, a real log; RUN/elsewhere/log.scope, another; links
 * to each from where a log or a host folder would be; a FIFO. */
static void make_tree(void) {
    unit_tmpdir(dir, sizeof dir);
    char p[4200], q[4200];
    path_of(p, sizeof p, "host");
    ck_assert_int_eq(mkdir(p, 0755), 0);
    path_of(p, sizeof p, "elsewhere");
    ck_assert_int_eq(mkdir(p, 0755), 0);
    path_of(p, sizeof p, "host/log.scope");
    ck_assert_int_eq(log_sample_write_log(p, 2, 1, NULL, NULL), 0);
    path_of(p, sizeof p, "elsewhere/log.scope");
    ck_assert_int_eq(log_sample_write_log(p, 2, 2, NULL, NULL), 0);
    path_of(p, sizeof p, "host/link.scope");
    path_of(q, sizeof q, "elsewhere/log.scope");
    ck_assert_int_eq(symlink(q, p), 0);
    path_of(p, sizeof p, "linked-host");
    path_of(q, sizeof q, "elsewhere");
    ck_assert_int_eq(symlink(q, p), 0);
    path_of(p, sizeof p, "host/pipe.scope");
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(dirfd_, 0);
}

static void remove_tree(void) {
    static const char *const files[] = {"host/log.scope",  "host/link.scope",
                                        "host/pipe.scope", "elsewhere/log.scope",
                                        "linked-host",     "host",
                                        "elsewhere"};
    char p[4200];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        path_of(p, sizeof p, files[i]);
        if (unlink(p) != 0)
            rmdir(p);
    }
    rmdir(dir);
    if (dirfd_ >= 0)
        close(dirfd_);
    dirfd_ = -1;
}

/* Opens rel below the tree; returns the reader's status, msg its message. */
static int open_rel(const char *rel, char *msg, size_t len) {
    scope_log_reader *r = NULL;
    msg[0] = '\0';
    int rc = scope_log_reader_open_beneath(&r, dirfd_, rel, msg, len);
    if (rc == 0) {
        ck_assert_ptr_nonnull(r);
        scope_log_reader_close(r);
    } else {
        ck_assert_ptr_null(r);
    }
    return rc;
}

START_TEST(test_a_log_below_opens) {
    char msg[256];
    ck_assert_int_eq(open_rel("host/log.scope", msg, sizeof msg), 0);
}
END_TEST

START_TEST(test_a_linked_log_is_not_followed) {
    char msg[256];
    ck_assert_int_eq(open_rel("host/link.scope", msg, sizeof msg), -ELOOP);
    ck_assert_str_eq(msg, "a symbolic link, not followed");
}
END_TEST

/* The case a listing cannot catch: a host folder that is a link by the
 * time its log is opened. */
START_TEST(test_a_linked_folder_is_not_followed) {
    char msg[256];
    ck_assert_int_eq(open_rel("linked-host/log.scope", msg, sizeof msg), -ELOOP);
    ck_assert_str_eq(msg, "a symbolic link, not followed");
}
END_TEST

START_TEST(test_no_path_leaves_the_directory) {
    static const char *const bad[] = {
        "../x", "host/../host/log.scope", "/etc/passwd", "host//log.scope", "", "host/"};
    char msg[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(open_rel(bad[i], msg, sizeof msg) == -EINVAL, "%s opened", bad[i]);
        ck_assert_str_eq(msg, "not a path below the run directory");
    }
}
END_TEST

/* Check's per-test timeout catches an open that waits for a writer. */
START_TEST(test_a_fifo_is_refused_without_waiting) {
    char msg[256];
    ck_assert_int_eq(open_rel("host/pipe.scope", msg, sizeof msg), -EINVAL);
    ck_assert_str_eq(msg, "is a named pipe (FIFO), not a log file");
}
END_TEST

static Suite *open_suite(void) {
    Suite *s = suite_create("log_open");
    TCase *tc = tcase_create("beneath");
    tcase_add_checked_fixture(tc, make_tree, remove_tree);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_a_log_below_opens);
    tcase_add_test(tc, test_a_linked_log_is_not_followed);
    tcase_add_test(tc, test_a_linked_folder_is_not_followed);
    tcase_add_test(tc, test_no_path_leaves_the_directory);
    tcase_add_test(tc, test_a_fifo_is_refused_without_waiting);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return unit_run(open_suite());
}
