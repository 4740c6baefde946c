/*
 * A run still being recorded is read as one: a real process
 * (progs/an_live.c) holds nested phases open, waiting on a FIFO, while its
 * run is loaded.  Its open phases count their time up to its newest frame
 * (so no share passes 100% and a parent's total covers its children's),
 * the run is in progress and its process running; then it finishes and
 * the run reads as ended, with the final figures.
 */
#define _GNU_SOURCE
#include "an_util.h"
#include "report_text.h"
#include "rt_util.h"
#include "run_model.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MS 1000000.0

static run_model *load(const char *run) {
    run_model *m = NULL;
    char msg[512];
    enum run_load_error e = run_load(run, NULL, &m, msg, sizeof msg);
    ck_assert_msg(e == RUN_OK, "run_load: %s", msg);
    for (size_t i = 0; i < m->ncaveats; i++)
        fprintf(stderr, "caveat %s: %s\n", run_caveat_kind_name(m->caveats[i].kind),
                m->caveats[i].text);
    return m;
}

/* Every share at most 100%, and every parent's total at least the sum of
 * its children's. */
static void check_tree(const run_phase *p) {
    uint64_t kids = 0;
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *k = p->children[i];
        ck_assert_msg(k->share <= 1.0 + 1e-9, "%s: share %.1f%%", k->name.s, k->share * 100);
        kids += k->dist.total_ns;
        check_tree(k);
    }
    ck_assert_msg(p->dist.total_ns >= kids, "%s: total %.3f ms under its children's %.3f ms",
                  p->depth ? p->name.s : "(root)", p->dist.total_ns / MS, kids / MS);
}

static char *report_text(const run_model *m) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    text_style st = {.width = 100};
    report_text_print(f, m, &st);
    fclose(f);
    return text;
}

START_TEST(report_while_running_then_ended) {
    char run[4200], fifo[4300];
    rt_mkdir(run, sizeof run, "live");
    snprintf(fifo, sizeof fifo, "%s.fifo", run);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    char *argv[] = {(char *)rt_prog("an_live"), run, fifo, NULL};
    rt_opts o = {.stdout_pipe = 1};
    rt_proc p;
    double spawned = rt_now();
    rt_spawn(&p, argv, &o);
    ck_assert_msg(rt_wait_line(p.out_fd, "flushed", 60) == 0, "an_live never flushed: %s",
                  rt_tail(rt_stderr(&p)));
    double flushed = rt_now();
    /* The reader's clock moves on; the figures stay those of the frame. */
    rt_sleep(0.3);

    run_model *m = load(run);
    ck_assert_uint_eq(m->nprocs, 1);
    ck_assert_uint_eq(m->nrunning, 1);
    ck_assert_int_eq(m->workers[0].end, RUN_END_RUNNING);
    ck_assert_uint_eq(an_caveats_with(m, "never shut down"), 0);
    const run_phase *outer = an_phase(m, "live", "outer");
    const run_phase *step = an_phase(m, "live", "outer/step");
    const run_phase *wait = an_phase(m, "live", "outer/wait");
    /* outer and wait are open: no completed entry, but their time so far.
     * By construction outer had run 3 x 20 + 200 ms when the frame was
     * closed, and by this test's clock at most the time from its start to
     * "flushed". */
    ck_assert_uint_eq(outer->dist.count, 0);
    ck_assert_uint_eq(wait->dist.count, 0);
    ck_assert_uint_eq(step->dist.count, 3);
    ck_assert_uint_eq(outer->open_threads, 1);
    ck_assert_uint_eq(wait->open_threads, 1);
    double open_max = (flushed - spawned) * 1e9;
    ck_assert_msg(outer->dist.total_ns >= 260 * MS && outer->dist.total_ns <= open_max,
                  "outer open %.3f ms, not within [260 ms, %.3f ms]", outer->dist.total_ns / MS,
                  open_max / MS);
    ck_assert_msg(wait->dist.total_ns >= 200 * MS &&
                      wait->dist.total_ns + step->dist.total_ns <= outer->dist.total_ns,
                  "wait open %.3f ms, step %.3f ms, outer %.3f ms", wait->dist.total_ns / MS,
                  step->dist.total_ns / MS, outer->dist.total_ns / MS);
    ck_assert_uint_eq(outer->open_ns, outer->dist.total_ns);
    ck_assert_double_eq_tol(outer->share, 1.0, 1e-9);
    check_tree(run_find_role(m, "live")->root);
    char *text = report_text(m);
    ck_assert_msg(strstr(text, "in progress (1 of 1 process running)"), "%s", rt_tail(text));
    free(text);
    uint64_t open_outer = outer->dist.total_ns;
    run_free(m);

    int fd = open(fifo, O_WRONLY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "go\n", 3), 3);
    close(fd);
    ck_assert_msg(rt_wait(&p, 60) == 0 && WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0,
                  "an_live: %s", rt_status(p.status));

    m = load(run);
    ck_assert_uint_eq(m->nrunning, 0);
    ck_assert_int_eq(m->workers[0].end, RUN_END_EXIT);
    outer = an_phase(m, "live", "outer");
    wait = an_phase(m, "live", "outer/wait");
    ck_assert_uint_eq(outer->dist.count, 1);
    ck_assert_uint_eq(wait->dist.count, 1);
    ck_assert_uint_eq(outer->open_threads, 0);
    ck_assert_uint_eq(outer->open_ns, 0);
    ck_assert_uint_ge(outer->dist.total_ns, open_outer + 300 * MS);
    check_tree(run_find_role(m, "live")->root);
    text = report_text(m);
    ck_assert_msg(!strstr(text, "in progress"), "%s", rt_tail(text));
    free(text);
    run_free(m);
}
END_TEST

/* Killed inside its phases: the run has ended (the pid is gone), and the
 * phases it had open count their time up to its last frame. */
START_TEST(killed_inside_open_phases) {
    char run[4200], fifo[4300];
    rt_mkdir(run, sizeof run, "killed");
    snprintf(fifo, sizeof fifo, "%s.fifo", run);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    char *argv[] = {(char *)rt_prog("an_live"), run, fifo, NULL};
    rt_opts o = {.stdout_pipe = 1};
    rt_proc p;
    double spawned = rt_now();
    rt_spawn(&p, argv, &o);
    ck_assert_msg(rt_wait_line(p.out_fd, "flushed", 60) == 0, "an_live never flushed: %s",
                  rt_tail(rt_stderr(&p)));
    double flushed = rt_now();
    ck_assert_int_eq(kill(p.pid, SIGKILL), 0);
    ck_assert_int_eq(rt_wait(&p, 60), 0);
    ck_assert(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGKILL);

    run_model *m = load(run);
    ck_assert_uint_eq(m->nrunning, 0);
    ck_assert_int_eq(m->workers[0].end, RUN_END_KILLED);
    ck_assert_uint_eq(an_caveats_with(m, "never shut down cleanly"), 1);
    const run_phase *outer = an_phase(m, "live", "outer");
    ck_assert_uint_eq(outer->dist.count, 0);
    double open_max = (flushed - spawned) * 1e9;
    ck_assert_msg(outer->dist.total_ns >= 260 * MS && outer->dist.total_ns <= open_max,
                  "outer open %.3f ms, not within [260 ms, %.3f ms]", outer->dist.total_ns / MS,
                  open_max / MS);
    check_tree(run_find_role(m, "live")->root);
    char *text = report_text(m);
    ck_assert_msg(!strstr(text, "in progress"), "%s", rt_tail(text));
    free(text);
    run_free(m);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("live_run");
    TCase *tc = tcase_create("live_run");
    rt_fixture(tc);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, report_while_running_then_ended);
    tcase_add_test(tc, killed_inside_open_phases);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
