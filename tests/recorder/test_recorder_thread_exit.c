/* A thread that exits before its process (progs/rt_thread_exit.c): its last
 * values reach the log whole, histogram included, although the frame that
 * copies them last is a periodic one, which carries histograms only every
 * SCOPE_HIST_INTERVAL, and no frame after it copies the thread again. */
#include "progs/rt_common.h"
#include "rt_util.h"

#include <stdlib.h>
#include <sys/wait.h>

START_TEST(test_exited_thread_keeps_its_histogram) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "thread-exit");
    /* Frames every 50 ms, histograms in periodic frames only every hour:
     * the thread's count grows through frames without histograms. */
    const char *env[] = {"SCOPE_FRAME_INTERVAL=0.05", "SCOPE_HIST_INTERVAL=3600", NULL};
    char *argv[] = {(char *)rt_prog("rt_thread_exit"), dir, NULL};
    rt_proc p;
    rt_opts o = {.env = env};
    rt_run(&p, argv, &o, 60);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0,
                  "rt_thread_exit %s; stderr:\n%s", rt_status(p.status), rt_tail(err));
    free(err);
    rr_run run;
    ck_assert_int_eq(rr_load(dir, &run), 1);
    const rr_log *log = &run.logs[0];
    rt_assert_clean(log);
    const rr_thread *t = rr_thread_named(log, RT_EXIT_THREAD);
    if (!t)
        rr_print(stderr, log);
    ck_assert_msg(t != NULL, "no THREAD record named %s", RT_EXIT_THREAD);
    /* The count, and a histogram that holds every entry. */
    rt_expect_count(log, t->index, "step", RT_EXIT_STEPS);
    rr_free(&run);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_thread_exit");
    TCase *tc = tcase_create("thread_exit");
    rt_fixture(tc);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_exited_thread_keeps_its_histogram);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
