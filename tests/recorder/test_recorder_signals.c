/* Signals (progs/rt_signals.c).  SIGKILL keeps every frame closed before it;
 * SIGTERM, SIGINT, SIGHUP and SIGUSR1 flush everything, then act as they
 * would without the recorder: the process dies by that very signal, or the
 * program's own handler runs and the program goes on. */
#define _GNU_SOURCE
#include "progs/rt_common.h"
#include "rt_util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static void start(rt_proc *p, const char *mode, const char *dir, const char *const *env) {
    char *argv[] = {(char *)rt_prog("rt_signals"), (char *)mode, (char *)dir, NULL};
    rt_opts o = {.env = env, .stdout_pipe = 1};
    rt_spawn(p, argv, &o);
    if (rt_wait_line(p->out_fd, "ready", 30) != 0) {
        rt_wait(p, 0);
        char *err = rt_stderr(p);
        ck_abort_msg("rt_signals %s never said ready (%s); stderr:\n%s", mode, rt_status(p->status),
                     rt_tail(err));
    }
}

/* ---- SIGKILL -------------------------------------------------------------- */

/* rt_signals spin into dir, a frame every 0.1 s, until at least `frames`
 * are on disk; returns how many were. */
static size_t spin_frames(rt_proc *p, const char *dir, size_t frames) {
    const char *env[] = {"SCOPE_FRAME_INTERVAL=0.1", NULL};
    start(p, "spin", dir, env);
    size_t before = 0;
    double deadline = rt_now() + (rt_sanitized() ? 60 : 20);
    while ((before = rt_frames_on_disk(dir)) < frames && rt_now() < deadline)
        rt_sleep(0.01);
    ck_assert_msg(before >= frames, "only %zu frame(s) on disk before the deadline", before);
    return before;
}

/* Whether a frame left out a value that changed, told by invariants rather
 * than by which records a frame holds: the program may not get the CPU
 * between two frames (the machine is busy, or a signal's handler runs
 * first), and then nothing changed and nothing need be written.  In one
 * iteration of rt_signals' work "inner" ends, then "items" is counted,
 * then "work" ends, so at every moment work <= items calls and work <=
 * inner; the writer copies "work" first, so the copies keep both.  A frame
 * that brings a newer "work" but leaves out a changed "inner" or "items"
 * breaks them.  Returns the newest count of "work". */
static uint64_t expect_frames_keep_invariants(const rr_log *log) {
    uint32_t t = log->threads[0].index;
    const rr_node *work = rr_find(log, t, "work"), *inner = rr_find(log, t, "work/inner");
    ck_assert_ptr_nonnull(work);
    ck_assert_ptr_nonnull(inner);
    char msg[256];
    scope_log_reader *r;
    ck_assert_msg(scope_log_reader_open(&r, log->path, msg, sizeof msg) == 0, "%s", msg);
    uint64_t w = 0, in = 0, calls = 0, frames = 0;
    scope_rec_frame fr;
    while (scope_log_reader_next_frame(r, &fr, NULL) == 1) {
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1) {
            if (rec.type == SCOPE_REC_PHASE_AGG && rec.u.phase_agg.node == work->id)
                w = rec.u.phase_agg.count;
            if (rec.type == SCOPE_REC_PHASE_AGG && rec.u.phase_agg.node == inner->id)
                in = rec.u.phase_agg.count;
            if (rec.type == SCOPE_REC_COUNTER && rec.u.counter.node == work->id)
                calls = rec.u.counter.calls;
        }
        frames++;
        ck_assert_msg(w <= in && w <= calls,
                      "after frame %llu: work %llu, inner %llu, items calls %llu: the frame left "
                      "out a value that had changed",
                      (unsigned long long)fr.seq, (unsigned long long)w, (unsigned long long)in,
                      (unsigned long long)calls);
    }
    scope_log_reader_close(r);
    ck_assert_uint_eq(frames, log->nframes);
    return w;
}

START_TEST(test_sigkill_keeps_closed_frames) {
    /* A few kills at different moments of the writer's cycle. */
    for (int round = 0; round < 4; round++) {
        char dir[4200];
        rt_mkdir(dir, sizeof dir, "sigkill");
        rt_proc p;
        /* Frame 0 and its snapshot come at start, before any entry: a
         * third frame holds the first. */
        size_t before = spin_frames(&p, dir, 3);
        rt_sleep(0.013 * round);
        kill(p.pid, SIGKILL);
        ck_assert_int_eq(rt_wait(&p, 10), 0);
        ck_assert_msg(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGKILL, "%s",
                      rt_status(p.status));

        rr_run run;
        const rr_log *log = rt_load_one(dir, &run);
        ck_assert_msg(log->open_rc == 0, "%s", log->open_msg);
        /* At most a frame cut short at the very end: never more. */
        if (log->ndamage > 1 ||
            (log->ndamage == 1 &&
             (!log->damage[0].truncated ||
              log->damage[0].offset + log->damage[0].length != log->file_size))) {
            rr_print(stderr, log);
            ck_abort_msg("SIGKILL: damage other than a truncated tail");
        }
        ck_assert_msg(log->nframes >= before, "%zu frames read back, %zu were on disk",
                      log->nframes, before);
        ck_assert_msg(log->has_process, "no PROCESS record");
        ck_assert_msg(!log->nconflicts && !log->ndangling && !log->nbad_aggs, "%s", log->problems);
        for (size_t i = 0; i < log->nframes; i++)
            ck_assert_uint_eq(log->frames[i].seq, i);
        ck_assert_uint_eq(log->nthreads, 1);
        uint32_t t = log->threads[0].index;
        const rr_node *work = rr_find(log, t, "work");
        ck_assert_msg(work != NULL, "no phase 'work'");
        uint64_t calls;
        int64_t items = rr_counter_total(log, t, "work", "items", &calls);
        ck_assert_msg(calls > 0 && items == 3 * (int64_t)calls, "items %lld in %llu calls",
                      (long long)items, (unsigned long long)calls);
        /* A frame carries every value that changed since the frame before
         * (docs/format.md, 7): "work" and its counter as fresh as each
         * other in every frame.  That both changed between the last two
         * frames is not asked: a loaded machine may have kept the spinner
         * off its CPU all that time. */
        ck_assert_uint_gt(expect_frames_keep_invariants(log), 0);
        rr_free(&run);
    }
}
END_TEST

/* SIGKILL at the default SCOPE_HIST_INTERVAL (120 s): the histogram in the
 * log, which the percentiles come from, still covers at least 8/9 of the
 * entries the newest frame counts, because a node whose count grew by an
 * eighth since its last histogram sends it again in the next frame. */
START_TEST(test_sigkill_keeps_percentiles_fresh) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "sigkill_hist");
    rt_proc p;
    spin_frames(&p, dir, 5);
    kill(p.pid, SIGKILL);
    ck_assert_int_eq(rt_wait(&p, 10), 0);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    const rr_node *work = rr_find(log, log->threads[0].index, "work");
    ck_assert_msg(work && work->has_agg && work->agg.has_hist, "no histogram of 'work'");
    fprintf(stderr, "SIGKILL after %zu frames: the histogram holds %llu of %llu entries\n",
            log->nframes, (unsigned long long)work->agg.bins_total,
            (unsigned long long)work->agg.count);
    ck_assert_msg(work->agg.bins_total * 9 >= (work->agg.count - 1) * 8,
                  "the log's histogram of 'work' holds %llu of its %llu entries (frame %llu of "
                  "%zu)",
                  (unsigned long long)work->agg.bins_total, (unsigned long long)work->agg.count,
                  (unsigned long long)work->agg.hist_frame_seq, log->nframes);
    rr_free(&run);
}
END_TEST

/* The writer copies a thread's values while the thread keeps changing them.
 * On a machine with more threads than CPUs the owner is often taken off its
 * CPU in the middle of an update: the writer must still put every changed
 * value in the frame (docs/format.md, 7), not leave it out because the
 * owner could not finish while the writer held the CPU.  One CPU for the
 * whole program makes that the common case. */
START_TEST(test_frames_complete_on_one_cpu) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "onecpu");
    const char *env[] = {"SCOPE_FRAME_INTERVAL=0.05", NULL};
    char *argv[] = {(char *)rt_prog("rt_signals"), "spin", dir, NULL};
    rt_opts o = {.env = env, .stdout_pipe = 1, .one_cpu = 1};
    rt_proc p;
    rt_spawn(&p, argv, &o);
    ck_assert_msg(rt_wait_line(p.out_fd, "ready", 30) == 0, "rt_signals spin never said ready");
    /* Ten frames written while it spins, however long a loaded machine
     * takes to let it write them (about 0.5 s on a quiet one). */
    double deadline = rt_now() + (rt_sanitized() ? 120 : 60);
    size_t on_disk;
    while ((on_disk = rt_frames_on_disk(dir)) < 10 && rt_now() < deadline)
        rt_sleep(0.05);
    ck_assert_msg(on_disk >= 10, "only %zu frames on disk before the deadline", on_disk);
    kill(p.pid, SIGTERM);
    ck_assert_int_eq(rt_wait(&p, 20), 0);
    ck_assert_msg(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGTERM, "%s",
                  rt_status(p.status));
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    rt_assert_clean(log);
    ck_assert_msg(log->nframes >= 10, "only %zu frames", log->nframes);
    ck_assert_uint_gt(expect_frames_keep_invariants(log), 0);
    rr_free(&run);
}
END_TEST

/* ---- flushing signals --------------------------------------------------------- */

static void check_flushed(const rr_log *log, int sig, uint64_t entries) {
    rt_assert_clean(log);
    ck_assert_uint_eq(log->nthreads, 1);
    uint32_t t = log->threads[0].index;
    rt_expect_count(log, t, "work", entries);
    rt_expect_count(log, t, "work/inner", entries);
    rt_expect_counter(log, t, "work", "items", entries, 3 * (int64_t)entries);
    const rr_mark *m;
    size_t n = rr_marks(log, SCOPE_MARK_SIGNAL, NULL, &m);
    if (n != 1)
        rr_print(stderr, log);
    ck_assert_msg(n == 1, "SIG%s: %zu signal marks, expected 1", sigabbrev_np(sig), n);
    ck_assert_msg(m->value == sig, "signal mark says %lld, expected %d", (long long)m->value, sig);
    ck_assert_msg(m->frame_reason == SCOPE_FRAME_SIGNAL,
                  "the signal mark came in a frame closed for '%s'",
                  scope_frame_reason_name(m->frame_reason));
}

static void fatal_signal(int sig) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, sigabbrev_np(sig));
    rt_proc p;
    start(&p, "wait", dir, NULL);
    kill(p.pid, sig);
    ck_assert_msg(rt_wait(&p, 20) == 0, "SIG%s: the program did not end", sigabbrev_np(sig));
    /* The exit status a launcher sees is what it would be without us. */
    ck_assert_msg(WIFSIGNALED(p.status) && WTERMSIG(p.status) == sig, "SIG%s: %s",
                  sigabbrev_np(sig), rt_status(p.status));
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    check_flushed(log, sig, RT_SIG_ITERS);
    /* Killed by the signal: no exit frame follows the signal's. */
    ck_assert_uint_eq(log->frames[log->nframes - 1].reason, SCOPE_FRAME_SIGNAL);
    rr_free(&run);
}

START_TEST(test_sigterm_flushes_and_kills) {
    fatal_signal(SIGTERM);
}
END_TEST

START_TEST(test_sigint_flushes_and_kills) {
    fatal_signal(SIGINT);
}
END_TEST

START_TEST(test_sighup_flushes_and_kills) {
    fatal_signal(SIGHUP);
}
END_TEST

START_TEST(test_sigusr1_default_flushes_and_kills) {
    fatal_signal(SIGUSR1);
}
END_TEST

/* A signal that comes while the recorder is still starting (its writer
 * thread just created) is flushed like any other, and promptly: the flush
 * must not wait on a thread that cannot answer. */
START_TEST(test_signal_at_start) {
    const int rounds = rt_sanitized() ? 10 : 40;
    for (int round = 0; round < rounds; round++) {
        char dir[4200];
        rt_mkdir(dir, sizeof dir, "early");
        rt_proc p;
        start(&p, "early", dir, NULL);
        double t0 = rt_now();
        kill(p.pid, SIGTERM);
        ck_assert_msg(rt_wait(&p, 20) == 0, "round %d: the program did not end", round);
        double took = rt_now() - t0;
        ck_assert_msg(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGTERM, "round %d: %s", round,
                      rt_status(p.status));
        rr_run run;
        const rr_log *log = rt_load_one(dir, &run);
        if (!log->nframes)
            ck_abort_msg("round %d: SIGTERM right after start took %.2f s to act and flushed "
                         "nothing (the log has no frame at all)",
                         round, took);
        /* Flushed: a handler that waited on a writer unable to answer
         * would have given up (after FLUSH_WAIT_MS, recorder/signals.c)
         * with nothing written.  How long the program took is said, not
         * judged: a loaded machine takes what it takes. */
        check_flushed(log, SIGTERM, 1);
        if (took > 1.0)
            fprintf(stderr, "round %d: SIGTERM took %.2f s to end the program\n", round, took);
        rr_free(&run);
        rt_rmrf(dir);
    }
}
END_TEST

/* The program's own SIGUSR1 handler, installed before scope_init, still
 * runs, the program goes on, and the flush happened on the way. */
START_TEST(test_sigusr1_own_handler_runs) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "usr1-handler");
    rt_proc p;
    start(&p, "handler", dir, NULL);
    int out = p.out_fd;
    kill(p.pid, SIGUSR1);
    ck_assert_msg(rt_wait_line(out, "handled", 10) == 0,
                  "the program never said its SIGUSR1 handler ran (its main thread waits "
                  "in sigsuspend for it)");
    ck_assert_int_eq(rt_wait(&p, 20), 0);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s; stderr:\n%s",
                  rt_status(p.status), rt_tail(err));
    free(err);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    check_flushed(log, SIGUSR1, RT_SIG_ITERS + RT_SIG_MORE);
    ck_assert_uint_eq(log->frames[log->nframes - 1].reason, SCOPE_FRAME_EXIT);
    rr_free(&run);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_signals");
    TCase *tc = tcase_create("signals");
    rt_fixture(tc);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, test_sigkill_keeps_closed_frames);
    tcase_add_test(tc, test_sigkill_keeps_percentiles_fresh);
    tcase_add_test(tc, test_frames_complete_on_one_cpu);
    tcase_add_test(tc, test_sigterm_flushes_and_kills);
    tcase_add_test(tc, test_sigint_flushes_and_kills);
    tcase_add_test(tc, test_sighup_flushes_and_kills);
    tcase_add_test(tc, test_sigusr1_default_flushes_and_kills);
    tcase_add_test(tc, test_sigusr1_own_handler_runs);
    tcase_add_test(tc, test_signal_at_start);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
