/* Eight threads nesting phases at once (progs/rt_threads.c), read back
 * through the real log reader: exactly the counts each thread made, on that
 * thread, and every counter in the phase that was open when it counted. */
#include "progs/rt_common.h"
#include "rt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* One run of rt_threads, loaded.  A short frame interval makes the writer
 * snapshot the threads while they update their nodes. */
static void run_threads(rr_run *run) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "threads");
    const char *env[] = {"SCOPE_FRAME_INTERVAL=0.05", NULL};
    char *argv[] = {(char *)rt_prog("rt_threads"), dir, NULL};
    rt_proc p;
    rt_opts o = {.env = env};
    rt_run(&p, argv, &o, 120);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "rt_threads %s; stderr:\n%s",
                  rt_status(p.status), rt_tail(err));
    ck_assert_msg(err[0] == '\0', "rt_threads wrote to stderr:\n%s", rt_tail(err));
    free(err);
    ck_assert_int_eq(rr_load(dir, run), 1);
}

START_TEST(test_counts_per_thread) {
    rr_run run;
    run_threads(&run);
    const rr_log *log = &run.logs[0];
    rt_assert_clean(log);
    ck_assert_str_eq(log->process.role.ptr, "threads");

    /* The main thread and eight workers; the writer thread records nothing. */
    ck_assert_msg(log->nthreads == RT_THREADS + 1, "%zu THREAD records, expected %d", log->nthreads,
                  RT_THREADS + 1);
    size_t expected_nodes = 1;
    for (int i = 0; i < RT_THREADS; i++) {
        char name[16];
        snprintf(name, sizeof name, RT_THREAD_NAME, i);
        const rr_thread *t = rr_thread_named(log, name);
        if (!t)
            rr_print(stderr, log);
        ck_assert_msg(t != NULL, "no THREAD record named %s", name);
        uint32_t ti = t->index;
        uint64_t n = rt_thread_iterations(i), trains = rt_thread_trains(i);

        rt_expect_count(log, ti, "iteration", n);
        rt_expect_count(log, ti, "iteration/self_play", n);
        rt_expect_count(log, ti, "iteration/self_play/mcts", RT_MCTS_PER_IT * n);
        rt_expect_count(log, ti, "iteration/self_play/env_step", n);
        rt_expect_count(log, ti, "iteration/train", trains);
        expected_nodes += 5;

        rt_expect_counter(log, ti, "iteration", "iterations", n, (int64_t)n);
        rt_expect_counter(log, ti, "iteration/self_play/mcts", "mcts_simulations",
                          RT_MCTS_PER_IT * n, (int64_t)(RT_MCTS_PER_IT * RT_MCTS_SIMS * n));
        rt_expect_counter(log, ti, "iteration/self_play/env_step", "env_steps", n,
                          (int64_t)n * (i + 1));
        rt_expect_counter(log, ti, "iteration/train", "samples", trains,
                          (int64_t)(RT_SAMPLES * trains));
        rt_expect_counter(log, ti, "", "outside", n, (int64_t)n);
        /* Each counter in its own phase only: nowhere else. */
        rt_expect_counter(log, ti, "", "iterations", 0, 0);
        rt_expect_counter(log, ti, "iteration/self_play", "mcts_simulations", 0, 0);
        rt_expect_counter(log, ti, "iteration", "samples", 0, 0);
    }
    /* "main" was open on the main thread the whole time: the workers' trees
     * are their own, so nothing nests under it. */
    size_t nmain;
    ck_assert_uint_eq(rr_path_count(log, "main", &nmain), 1);
    ck_assert_uint_eq(nmain, 1);
    for (size_t i = 0; i < log->nnodes; i++) {
        const rr_node *n = &log->nodes[i];
        if (n->parent) {
            const rr_node *p = rr_node_by_id(log, n->parent);
            ck_assert_msg(p && !rr_str_is(log, p->name, "main", 4),
                          "node %u nests under main: workers must have trees of their own", n->id);
        }
    }
    if (log->nnodes != expected_nodes)
        rr_print(stderr, log);
    ck_assert_msg(log->nnodes == expected_nodes, "%zu phase nodes, expected %zu", log->nnodes,
                  expected_nodes);
    /* Summed over threads, through the same reader. */
    uint64_t all = 0;
    for (int i = 0; i < RT_THREADS; i++)
        all += RT_MCTS_PER_IT * rt_thread_iterations(i);
    size_t nodes;
    ck_assert_uint_eq(rr_path_count(log, "iteration/self_play/mcts", &nodes), all);
    ck_assert_uint_eq(nodes, RT_THREADS);

    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_UNBALANCED, NULL, NULL), 0);
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_DROPPED, NULL, NULL), 0);
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_SHUTDOWN, NULL, NULL), 1);
    ck_assert_uint_eq(log->frames[log->nframes - 1].reason, SCOPE_FRAME_EXIT);
    rr_free(&run);
}
END_TEST

/* Node and counter ids are per file: no two definitions may share one,
 * whichever thread made them (docs/format.md, 5.1). */
START_TEST(test_ids_unique_in_file) {
    rr_run run;
    run_threads(&run);
    const rr_log *log = &run.logs[0];
    if (log->nconflicts)
        rr_print(stderr, log);
    ck_assert_msg(log->nconflicts == 0, "%s: ids defined twice with different meanings:\n%s",
                  log->path, log->problems);
    rr_free(&run);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_threads");
    TCase *tc = tcase_create("threads");
    rt_fixture(tc);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_ids_unique_in_file);
    tcase_add_test(tc, test_counts_per_thread);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
