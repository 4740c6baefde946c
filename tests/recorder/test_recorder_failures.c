/* When the recorder cannot write, the program must not notice: it runs on,
 * exits 0 with its own output intact, and the recorder says so in exactly
 * one line on stderr.  What did reach the disk still reads back whole. */
#include "rt_util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BASIC_OUT "sum=295\nflush=0\n"

/* stderr holds exactly one line, and it starts with "scope:". */
static void one_scope_line(const char *err) {
    size_t lines = 0;
    for (const char *c = err; *c; c++)
        lines += *c == '\n';
    ck_assert_msg(lines == 1 && err[strlen(err) - 1] == '\n' && !strncmp(err, "scope:", 6),
                  "expected one line starting with 'scope:' on stderr, got:\n%s", rt_tail(err));
}

/* A run directory below a regular file: ENOTDIR for everyone, root
 * included (tests run as root in CI, and root ignores permission bits). */
static void unwritable_run_dir(char *run, size_t cap) {
    char dir[4200], file[4300];
    rt_mkdir(dir, sizeof dir, "unwritable");
    snprintf(file, sizeof file, "%s/file", dir);
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
    ck_assert_int_ge(fd, 0);
    close(fd);
    snprintf(run, cap, "%s/run", file);
}

START_TEST(test_unwritable_run_dir_init) {
    char run[4400];
    unwritable_run_dir(run, sizeof run);
    char *argv[] = {(char *)rt_prog("rt_basic"), "init", run, NULL};
    rt_proc p;
    rt_run(&p, argv, NULL, 60);
    char *out = rt_slurp(p.out_path, NULL), *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s", rt_status(p.status));
    /* scope_init says it failed; everything after is a quiet no-op. */
    ck_assert_str_eq(out, "init=-1\n" BASIC_OUT);
    one_scope_line(err);
    free(out);
    free(err);
}
END_TEST

/* The same failure met on first use, from the environment. */
START_TEST(test_unwritable_run_dir_env) {
    char run[4400], run_env[4500];
    unwritable_run_dir(run, sizeof run);
    snprintf(run_env, sizeof run_env, "SCOPE_RUN_DIR=%s", run);
    const char *env[] = {"SCOPE_PROFILE=1", run_env, NULL};
    rt_opts o = {.env = env};
    char *argv[] = {(char *)rt_prog("rt_basic"), "noinit", NULL};
    rt_proc p;
    rt_run(&p, argv, &o, 60);
    char *out = rt_slurp(p.out_path, NULL), *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s", rt_status(p.status));
    ck_assert_str_eq(out, BASIC_OUT);
    one_scope_line(err);
    free(out);
    free(err);
}
END_TEST

/* Lines of err that hold text. */
static int lines_with(const char *err, const char *text) {
    int n = 0;
    for (const char *p = err; (p = strstr(p, text)); p += strlen(text))
        n++;
    return n;
}

/* A setting that does not parse is said once per run, not by each process
 * of it: rt_family's forked child and exec'd child inherit the parent's
 * settings and stay silent.  Their stderr is a file: none of them prints
 * the exit line (a terminal's alone).  The line sampler's case forks a
 * process whose sampler runs a thread, and the child starts threads of its
 * own, which ThreadSanitizer does not support (it ends the child): that case
 * is left out under it. */
#if defined(__SANITIZE_THREAD__)
#define NCASES 1
#else
#define NCASES 2
#endif
START_TEST(test_bad_setting_said_once_per_run) {
    static const struct {
        const char *env, *lines, *said;
    } cases[] = {
        {"SCOPE_CPU_TIME=bogus", "SCOPE_LINES=0",
         "SCOPE_CPU_TIME='bogus' is not off, adaptive or always"},
        {"SCOPE_LINES_HZ=fast", "SCOPE_LINES=1", "SCOPE_LINES_HZ='fast' is not a rate"},
    };
    for (size_t i = 0; i < NCASES; i++) {
        char dir[4200];
        rt_mkdir(dir, sizeof dir, "once");
        const char *env[] = {cases[i].env, cases[i].lines, NULL};
        rt_opts o = {.env = env};
        char *argv[] = {(char *)rt_prog("rt_family"), dir, NULL};
        rt_proc p;
        rt_run(&p, argv, &o, 60);
        char *err = rt_stderr(&p);
        ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "rt_family %s: %s",
                      rt_status(p.status), err);
        ck_assert_msg(lines_with(err, cases[i].said) == 1,
                      "%s: said %d times by a run of 3 processes:\n%s", cases[i].env,
                      lines_with(err, cases[i].said), err);
        ck_assert_msg(!strstr(err, "run recorded in"), "the exit line, to a file:\n%s", err);
        free(err);
    }
}
END_TEST

/* A full disk, made with RLIMIT_FSIZE: past the limit a write fails with
 * EFBIG, and SIGXFSZ (whose default kills the process) must not reach the
 * program. */
START_TEST(test_disk_full) {
    const long long limit = 64 * 1024;
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "diskfull");
    char *argv[] = {(char *)rt_prog("rt_basic"), "diskfull", dir, NULL};
    rt_opts o = {.fsize_limit = limit};
    rt_proc p;
    rt_run(&p, argv, &o, rt_sanitized() ? 300 : 60);
    char *out = rt_slurp(p.out_path, NULL), *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s; stderr:\n%s",
                  rt_status(p.status), rt_tail(err));
    ck_assert_str_eq(out, "done\n");
    one_scope_line(err);

    rr_run run;
    ck_assert_int_eq(rr_load(dir, &run), 1);
    const rr_log *log = &run.logs[0];
    /* The limit was reached, and every frame that made it is whole: the
     * writer cut a frame that did not fit back off the file. */
    ck_assert_msg(log->file_size <= (uint64_t)limit, "the log is %llu bytes, over the limit",
                  (unsigned long long)log->file_size);
    ck_assert_msg(log->file_size > (uint64_t)limit / 2,
                  "the log is only %llu bytes: the program never filled the disk",
                  (unsigned long long)log->file_size);
    rt_assert_clean(log);
    ck_assert_msg(log->nframes >= 1, "no frame reached the disk");
    /* The limit was still reached at exit: the final frame could not be
     * written, and the last one says so, with the shutdown, in the room the
     * writer kept below the limit, rather than leave the process looking
     * killed. */
    ck_assert_msg(rr_marks(log, SCOPE_MARK_FLUSH_FAILED, NULL, NULL) >= 1,
                  "no FLUSH_FAILED mark under a file-size limit reached at exit");
    ck_assert_msg(rr_marks(log, SCOPE_MARK_SHUTDOWN, NULL, NULL) == 1,
                  "no SHUTDOWN mark under a file-size limit reached at exit");
    ck_assert_uint_eq(log->frames[log->nframes - 1].reason, SCOPE_FRAME_EXIT);
    rr_free(&run);
    free(out);
    free(err);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_failures");
    TCase *tc = tcase_create("failures");
    rt_fixture(tc);
    tcase_set_timeout(tc, 360);
    tcase_add_test(tc, test_unwritable_run_dir_init);
    tcase_add_test(tc, test_unwritable_run_dir_env);
    tcase_add_test(tc, test_disk_full);
    tcase_add_test(tc, test_bad_setting_said_once_per_run);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
