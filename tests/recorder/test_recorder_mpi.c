/* Ranks started by one mpirun are one attempt of one run, although no
 * recorder is their parent: they meet in the run directory.  A second
 * mpirun into the same directory is a second attempt.  The program does
 * not link MPI: the launcher's environment is all the recorder reads. */
#include "rt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define NP 4

static void mpirun(const char *dir) {
    ck_assert_msg(rt_mpirun() != NULL, "no mpirun given on the command line");
    char np[8];
    snprintf(np, sizeof np, "%d", NP);
    char *argv[] = {(char *)rt_mpirun(),
                    "--oversubscribe",
                    "--allow-run-as-root",
                    "-np",
                    np,
                    (char *)rt_prog("rt_basic"),
                    "init",
                    (char *)dir,
                    "rank",
                    NULL};
    rt_proc p;
    rt_run(&p, argv, NULL, rt_sanitized() ? 180 : 60);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "mpirun %s; stderr:\n%s",
                  rt_status(p.status), rt_tail(err));
    free(err);
}

/* The logs of run id `id`: exactly ranks 0..NP-1, each once, world NP. */
static void check_attempt(const rr_run *run, const char *id) {
    unsigned seen = 0;
    size_t n = 0;
    for (size_t i = 0; i < run->nlogs; i++) {
        const rr_log *l = &run->logs[i];
        if (strcmp(l->process.run_id.ptr, id) != 0)
            continue;
        n++;
        rt_assert_clean(l);
        const rr_process *p = &l->process;
        ck_assert_str_eq(p->role.ptr, "rank");
        ck_assert_msg(p->rank >= 0 && p->rank < NP, "%s: rank %d", l->path, p->rank);
        ck_assert_msg(!(seen & (1u << p->rank)), "rank %d twice in run %s", p->rank, id);
        seen |= 1u << p->rank;
        ck_assert_int_eq(p->world_size, NP);
        ck_assert_int_eq(p->local_rank, p->rank); /* one node */
        ck_assert_uint_eq(l->nthreads, 1);
        rt_expect_count(l, l->threads[0].index, "step", 10);
    }
    ck_assert_msg(n == NP && seen == (1u << NP) - 1, "run %s: %zu logs, ranks mask 0x%x", id, n,
                  seen);
}

START_TEST(test_mpirun_one_attempt) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "mpi");
    mpirun(dir);
    rr_run run;
    int n = rr_load(dir, &run);
    if (n != NP || rr_run_ids(&run) != 1)
        rt_print_run(&run);
    ck_assert_int_eq(n, NP);
    ck_assert_msg(rr_run_ids(&run) == 1, "%zu run ids among the ranks of one mpirun",
                  rr_run_ids(&run));
    check_attempt(&run, run.logs[0].process.run_id.ptr);
    rr_free(&run);
}
END_TEST

START_TEST(test_mpirun_twice_two_attempts) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "mpi2");
    mpirun(dir);
    mpirun(dir);
    rr_run run;
    int n = rr_load(dir, &run);
    if (n != 2 * NP || rr_run_ids(&run) != 2)
        rt_print_run(&run);
    ck_assert_int_eq(n, 2 * NP);
    ck_assert_msg(rr_run_ids(&run) == 2, "%zu run ids after two mpiruns", rr_run_ids(&run));
    const char *first = run.logs[0].process.run_id.ptr, *second = NULL;
    for (size_t i = 1; i < run.nlogs && !second; i++)
        if (strcmp(run.logs[i].process.run_id.ptr, first) != 0)
            second = run.logs[i].process.run_id.ptr;
    check_attempt(&run, first);
    check_attempt(&run, second);
    rr_free(&run);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_mpi");
    TCase *tc = tcase_create("mpi");
    rt_fixture(tc);
    tcase_set_timeout(tc, 400);
    tcase_add_test(tc, test_mpirun_one_attempt);
    tcase_add_test(tc, test_mpirun_twice_two_attempts);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
