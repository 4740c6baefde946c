/*
 * A run still being recorded is read as one: a real process
 * (progs/an_live.c) holds nested phases open, waiting on a FIFO, while its
 * run is loaded.  Its open phases count their time up to its newest frame
 * (so no share passes 100% and a parent's total covers its children's),
 * the run is in progress and its process running; then it finishes and
 * the run reads as ended, with the final figures.  A process whose frames
 * are a minute apart (SCOPE_FRAME_INTERVAL=60) is neither stale nor
 * ended 40 s after its last frame, on this host or on another, while a
 * second process writes frames every half second: its log, read whole or
 * from its final snapshot, holds one gap of a fraction of a second, and
 * the interval it states is what counts.
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

static run_model *load_with(const char *run, const run_options *opt) {
    run_model *m = NULL;
    char msg[512];
    enum run_load_error e = run_load(run, opt, &m, msg, sizeof msg);
    ck_assert_msg(e == RUN_OK, "run_load: %s", msg);
    for (size_t i = 0; i < m->ncaveats; i++)
        fprintf(stderr, "caveat %s: %s\n", run_caveat_kind_name(m->caveats[i].kind),
                m->caveats[i].text);
    return m;
}

static run_model *load(const char *run) {
    return load_with(run, NULL);
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

/* an_live in run, waiting on fifo (made here) once "flushed", with env;
 * through `unshare --uts` on a host named elsewhere when `elsewhere`. */
static void start_live(rt_proc *p, const char *run, const char *fifo, const char *const *env,
                       const char *elsewhere) {
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    char *plain[] = {(char *)rt_prog("an_live"), (char *)run, (char *)fifo, NULL};
    char script[200];
    snprintf(script, sizeof script, "hostname %s && exec \"$0\" \"$@\"",
             elsewhere ? elsewhere : "");
    char *moved[] = {"/usr/bin/unshare", "--uts",     "/bin/sh",    "-c", script,
                     plain[0],           (char *)run, (char *)fifo, NULL};
    rt_opts o = {.stdout_pipe = 1, .env = env};
    rt_spawn(p, elsewhere ? moved : plain, &o);
    ck_assert_msg(rt_wait_line(p->out_fd, "flushed", 60) == 0, "an_live never flushed: %s",
                  rt_tail(rt_stderr(p)));
}

static void finish_live(rt_proc *p, const char *fifo) {
    int fd = open(fifo, O_WRONLY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "go\n", 3), 3);
    close(fd);
    ck_assert_msg(rt_wait(p, 60) == 0 && WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0,
                  "an_live: %s", rt_status(p->status));
}

static const run_worker *worker_of(const run_model *m, pid_t pid) {
    for (size_t i = 0; i < m->nworkers; i++)
        if (m->workers[i].pid == pid)
            return &m->workers[i];
    ck_abort_msg("no worker of pid %d", (int)pid);
    return NULL;
}

/* Whether this test may give a process a host name of its own: root, in
 * a kernel that allows UTS namespaces. */
static int can_move_host(void) {
    return system("/usr/bin/unshare --uts /bin/true 2>/dev/null") == 0;
}

START_TEST(far_apart_frames_are_not_stale) {
    /* How long after the slow processes' last frames the run is read: past
     * the 30 s that a limit taken from their frames read (one gap, a
     * fraction of a second) gives, and well within the 3 x 60 s their
     * stated interval gives, with 10 s for a loaded machine's lag. */
    const double after_s = 40;
    char run[4200], fast_fifo[4300], slow_fifo[4300], far_fifo[4300];
    rt_mkdir(run, sizeof run, "far-apart");
    snprintf(fast_fifo, sizeof fast_fifo, "%s.fast", run);
    snprintf(slow_fifo, sizeof slow_fifo, "%s.slow", run);
    snprintf(far_fifo, sizeof far_fifo, "%s.far", run);
    const char *fast_env[] = {"SCOPE_RUN_ID=far-apart", "SCOPE_FRAME_INTERVAL=0.5", NULL};
    const char *slow_env[] = {"SCOPE_RUN_ID=far-apart", "SCOPE_FRAME_INTERVAL=60", NULL};
    int moved = can_move_host();
    if (!moved)
        fprintf(stderr, "skipped: a process on another host (unshare --uts needs root)\n");
    rt_proc fast, slow, far;
    start_live(&fast, run, fast_fifo, fast_env, NULL);
    start_live(&slow, run, slow_fifo, slow_env, NULL);
    if (moved)
        start_live(&far, run, far_fifo, slow_env, "scope-elsewhere");
    double flushed = rt_now();
    rt_sleep(after_s);

    /* Read whole, and from each log's final snapshot. */
    run_options from_snapshot = {.snapshot_min_bytes = 1};
    const run_options *ways[] = {NULL, &from_snapshot};
    for (size_t k = 0; k < 2; k++) {
        run_model *m = load_with(run, ways[k]);
        const run_worker *fw = worker_of(m, fast.pid), *sw = worker_of(m, slow.pid);
        /* The fast process's frames went on while the slow ones waited. */
        ck_assert_msg(fw->last_wall_ns > sw->last_wall_ns + 30000000000ull,
                      "the run's newest frame is only %.1f s after the slow process's last "
                      "(%.1f s since it flushed)",
                      (double)(fw->last_wall_ns - sw->last_wall_ns) / 1e9, rt_now() - flushed);
        ck_assert_int_eq(sw->end, RUN_END_RUNNING);
        ck_assert_msg(!sw->stale && !an_caveats_with(m, "stale"),
                      "read %s: the slow process is stale %.1f s after its last frame",
                      k ? "from its snapshot" : "whole", rt_now() - flushed);
        if (moved) {
            const run_worker *aw = worker_of(m, far.pid);
            ck_assert_msg(aw->host.len == 15 && !memcmp(aw->host.s, "scope-elsewhere", 15),
                          "host %.*s", (int)aw->host.len, aw->host.s);
            ck_assert_msg(
                aw->end == RUN_END_RUNNING && !aw->stale,
                "read %s: the process on another host is %s%s", k ? "from its snapshot" : "whole",
                aw->end == RUN_END_RUNNING ? "running" : "not running", aw->stale ? ", stale" : "");
        }
        ck_assert_uint_eq(m->nrunning, moved ? 3 : 2);
        run_free(m);
    }
    finish_live(&fast, fast_fifo);
    finish_live(&slow, slow_fifo);
    if (moved)
        finish_live(&far, far_fifo);
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
    tcase_add_test(tc, far_apart_frames_are_not_stale);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
