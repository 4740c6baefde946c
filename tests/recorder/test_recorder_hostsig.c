/* The host program's own signals, fork handlers, dlclose, and the order of
 * definitions in a log cut short (progs/rt_hostsig.c, progs/rt_dlclose.c).
 * The recorder must not disturb the program: its handlers never run on a
 * thread the recorder started, a fork from a handler never waits forever on
 * a recorder lock, a dlclosed recorder leaves nothing behind that crashes
 * the program later, and a log that ends after any frame (SIGKILL, a full
 * disk) holds every definition its records use.
 *
 * usage: test_recorder_hostsig PROGS_DIR LIBSCOPE SCOPE_TUI */
#define _GNU_SOURCE
#include "progs/rt_common.h"
#include "rt_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *libscope, *scope_tui;

/* Every record names only what the log defines. */
static void assert_placed(const rr_log *log, const char *what) {
    if (log->ndangling || log->nconflicts) {
        rr_print(stderr, log);
        ck_abort_msg("%s: %zu record(s) name a definition the log lacks, %zu conflict(s): %s", what,
                     log->ndangling, log->nconflicts, log->problems);
    }
}

/* ---- item: signals on the recorder's threads ---------------------------- */

/* SIGALRM every millisecond, its handler forking, while the main thread
 * mostly blocks it: the ticks go to the recorder's writer thread unless that
 * blocks every signal, and a fork there waits on the lock the writer holds
 * in the middle of a frame. */
START_TEST(test_fork_in_timer_handler) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "forktimer");
    const char *env[] = {"SCOPE_FRAME_INTERVAL=0.05", NULL};
    char *argv[] = {(char *)rt_prog("rt_hostsig"), "forktimer", dir, NULL};
    rt_opts o = {.env = env};
    rt_proc p;
    rt_spawn(&p, argv, &o);
    /* It ends by itself within 5 s; a deadlock never does. */
    double limit = rt_sanitized() ? 120 : 60;
    if (rt_wait(&p, limit) != 0)
        ck_abort_msg("rt_hostsig forktimer still running after %.0f s: deadlocked", limit);
    char *out = rt_slurp(p.out_path, NULL), *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s; stderr:\n%s",
                  rt_status(p.status), rt_tail(err));
    int forks = 0;
    ck_assert_msg(sscanf(out, "forks=%d", &forks) == 1 && forks > 0, "output: %s", out);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    rt_assert_clean(log);
    rr_free(&run);
    free(out);
    free(err);
}
END_TEST

/* exit() from a handler: on the writer thread it would wait for the writer's
 * own last frame (10 s) and lose it. */
START_TEST(test_exit_in_handler) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "exitsig");
    char *argv[] = {(char *)rt_prog("rt_hostsig"), "exitsig", dir, NULL};
    rt_proc p;
    double t0 = rt_now();
    rt_run(&p, argv, NULL, 60);
    double took = rt_now() - t0;
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == RT_EXIT_STATUS, "%s; stderr:\n%s",
                  rt_status(p.status), rt_tail(err));
    /* 0.3 s of work, then exit.  A wait for the writer itself stalls the
     * exit 10 s and loses the final frame (the SHUTDOWN mark below); short
     * of that stall, how long a loaded machine takes is not judged. */
    ck_assert_msg(took < 10.0, "exit took %.1f s: it waited for the writer", took);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    rt_assert_clean(log);
    ck_assert_msg(rr_marks(log, SCOPE_MARK_SHUTDOWN, NULL, NULL) == 1,
                  "no SHUTDOWN mark: the final frame is missing");
    rr_free(&run);
    free(err);
}
END_TEST

/* ---- dlclose --------------------------------------------------------------- */

/* After dlclose, a thread that recorded exits (the thread-exit destructor)
 * and SIGTERM arrives (the flush handler): both are libscope's code, which
 * must still be there. */
START_TEST(test_dlclose) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "dlclose");
    char *argv[] = {(char *)rt_prog("rt_dlclose"), (char *)libscope, dir, NULL};
    rt_proc p;
    rt_run(&p, argv, NULL, 60);
    char *out = rt_slurp(p.out_path, NULL), *err = rt_stderr(&p);
    ck_assert_msg(!strcmp(out, "thread exited\n"),
                  "a thread exiting after dlclose: %s, output '%s'; stderr:\n%s",
                  rt_status(p.status), out, rt_tail(err));
    ck_assert_msg(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGTERM,
                  "SIGTERM after dlclose: %s; stderr:\n%s", rt_status(p.status), rt_tail(err));
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    rt_assert_clean(log);
    ck_assert_msg(rr_marks(log, SCOPE_MARK_SIGNAL, NULL, NULL) == 1, "no SIGNAL mark");
    rr_free(&run);
    free(out);
    free(err);
}
END_TEST

/* ---- definitions before their first use -------------------------------- */

#define KILL_TRIALS 100

/* A program creating a new phase and counter every iteration, killed at
 * random moments while frames go out every 50 ms: whatever frame is the last,
 * it never uses a definition that only a later frame would have brought. */
START_TEST(test_definitions_kill_trials) {
    srand(12345);
    size_t frames = 0;
    for (int trial = 0; trial < KILL_TRIALS; trial++) {
        char dir[4200];
        rt_mkdir(dir, sizeof dir, "defs");
        const char *env[] = {"SCOPE_FRAME_INTERVAL=0.05", NULL};
        char *argv[] = {(char *)rt_prog("rt_hostsig"), "defs", dir, NULL};
        rt_opts o = {.env = env, .stdout_pipe = 1};
        rt_proc p;
        rt_spawn(&p, argv, &o);
        ck_assert_msg(rt_wait_line(p.out_fd, "ready", 30) == 0, "trial %d: never ready", trial);
        /* A frame on disk before the kill, so that every trial has some
         * frame to judge however late a loaded machine lets the writer run;
         * then a random moment of its cycle. */
        double deadline = rt_now() + 60;
        while (rt_frames_on_disk(dir) == 0 && rt_now() < deadline)
            rt_sleep(0.005);
        rt_sleep((double)(rand() % 150) / 1000.0);
        kill(p.pid, SIGKILL);
        ck_assert_int_eq(rt_wait(&p, 10), 0);
        rr_run run;
        const rr_log *log = rt_load_one(dir, &run);
        char what[64];
        snprintf(what, sizeof what, "kill trial %d", trial);
        assert_placed(log, what);
        frames += log->nframes;
        rr_free(&run);
        rt_rmrf(dir);
    }
    ck_assert_msg(frames >= KILL_TRIALS, "only %zu frames in %d trials", frames, KILL_TRIALS);
}
END_TEST

/* Runs rt_hostsig defs-n, frames every frame_interval seconds, on a 64 KiB
 * tmpfs of its own, which it fills; dir is where the run directory is.  The
 * tmpfs lives in a mount namespace of the test's process, so it goes away
 * with it whatever the test's outcome.  Returns 0, with the reason printed,
 * where this process may not mount one. */
static int run_on_tiny_tmpfs(char *dir, size_t cap, const char *frame_interval, rt_proc *p) {
    rt_mkdir(dir, cap, "tmpfs");
    if (geteuid() != 0) {
        fprintf(stderr, "skipped: mounting a 64 KiB tmpfs needs root\n");
        return 0;
    }
    static int unshared;
    if (!unshared &&
        (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)) {
        fprintf(stderr, "skipped: no mount namespace of our own: %s\n", strerror(errno));
        return 0;
    }
    unshared = 1;
    if (mount("scope-test", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0700") != 0) {
        fprintf(stderr, "skipped: cannot mount a tmpfs on %s: %s\n", dir, strerror(errno));
        return 0;
    }
    char env_iv[64];
    snprintf(env_iv, sizeof env_iv, "SCOPE_FRAME_INTERVAL=%s", frame_interval);
    const char *env[] = {env_iv, NULL};
    char *argv[] = {(char *)rt_prog("rt_hostsig"), "defs-n", "20000", dir, NULL};
    rt_opts o = {.env = env};
    rt_run(p, argv, &o, rt_sanitized() ? 300 : 60);
    char *err = rt_stderr(p);
    ck_assert_msg(WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0, "%s; stderr:\n%s",
                  rt_status(p->status), rt_tail(err));
    free(err);
    return 1;
}

START_TEST(test_definitions_full_disk) {
    /* Frames as often as allowed while names pour in: the disk fills at
     * some point of a frame, a different one each round. */
    for (int round = 0; round < 4; round++) {
        char dir[4200];
        rt_proc p;
        if (!run_on_tiny_tmpfs(dir, sizeof dir, "0.05", &p))
            return;
        rr_run run;
        assert_placed(rt_load_one(dir, &run), "full disk");
        rr_free(&run);
    }
}
END_TEST

/* The disk is still full when the process exits: its last frame cannot be
 * written, and the log must still say why it ends where it does, so that
 * the report says the process could not write, not that it was killed. */
START_TEST(test_full_disk_at_exit) {
    char dir[4200];
    rt_proc p;
    if (!run_on_tiny_tmpfs(dir, sizeof dir, "60", &p))
        return;
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    ck_assert_msg(log->nframes >= 1, "no frame on disk");
    ck_assert_msg(rr_marks(log, SCOPE_MARK_FLUSH_FAILED, NULL, NULL) >= 1,
                  "no FLUSH_FAILED mark in the log");
    ck_assert_msg(rr_marks(log, SCOPE_MARK_SHUTDOWN, NULL, NULL) == 1, "no SHUTDOWN mark");
    ck_assert_uint_eq(log->frames[log->nframes - 1].reason, SCOPE_FRAME_EXIT);
    rr_free(&run);

    char *report[] = {(char *)scope_tui, "report", dir, NULL};
    rt_proc r;
    rt_run(&r, report, NULL, 120);
    char *out = rt_slurp(r.out_path, NULL);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "report: %s",
                  rt_status(r.status));
    ck_assert_msg(!strstr(out, "killed"), "the report calls the process killed:\n%s", rt_tail(out));
    ck_assert_msg(strstr(out, "could not be written"),
                  "the report does not say the log could not be written:\n%s", rt_tail(out));
    free(out);
}
END_TEST

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s PROGS_DIR LIBSCOPE SCOPE_TUI\n", argv[0]);
        return 2;
    }
    libscope = argv[2];
    scope_tui = argv[3];
    char *args[] = {argv[0], argv[1], NULL};
    rt_args(2, args);
    Suite *s = suite_create("recorder_hostsig");
    TCase *tc = tcase_create("hostsig");
    rt_fixture(tc);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_fork_in_timer_handler);
    tcase_add_test(tc, test_exit_in_handler);
    tcase_add_test(tc, test_dlclose);
    tcase_add_test(tc, test_definitions_kill_trials);
    tcase_add_test(tc, test_definitions_full_disk);
    tcase_add_test(tc, test_full_disk_at_exit);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
