/* fork() and exec from a recording process whose four other threads are
 * inside phases at that moment (progs/rt_forker.c): 16 forked children and
 * 16 exec'd ones give 33 logs of one run, every time, with no hang.
 *
 * SCOPE_RT_FORK_REPS sets the repetitions (default 200, 20 under the
 * sanitizers, where each costs several times more); SCOPE_RT_FORK_RACY, see
 * round_start.
 *
 * Two rounds are in flight at once: the next round's program runs while this
 * one's 33 logs are read and checked, and while either waits on its children
 * (their exits, their logs' last writes) the other has the CPU.  Each round
 * is still one program in a directory of its own, checked whole. */
#include "rt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define NFORK 16
#define NEXEC 16

static int repetitions(void) {
    const char *v = getenv("SCOPE_RT_FORK_REPS");
    if (v && *v)
        return atoi(v);
    return rt_sanitized() ? 20 : 200;
}

/* Rounds in flight at once (see the top of the file). */
#define IN_FLIGHT 2

/* One round: rt_forker started in a fresh directory, then waited for and its
 * logs checked. */
typedef struct fork_round {
    int rep;
    char dir[4200];
    rt_proc proc;
} fork_round;

static void round_start(fork_round *r, int rep) {
    r->rep = rep;
    rt_mkdir(r->dir, sizeof r->dir, "fork");
    char nfork[16], nexec[16];
    snprintf(nfork, sizeof nfork, "%d", NFORK);
    snprintf(nexec, sizeof nexec, "%d", NEXEC);
    /* Under the sanitizers the parent's threads finish allocating before the
     * fork (see rt_forker.c): their allocator is not fork-safe.
     * SCOPE_RT_FORK_RACY=1 forks mid-allocation there too, which is how
     * AddressSanitizer shows what a fork in the middle of a thread's table
     * growth does to the child (and sometimes hangs in its own lock). */
    const char *racy = getenv("SCOPE_RT_FORK_RACY");
    int warm = rt_sanitized() && !(racy && *racy && strcmp(racy, "0") != 0);
    char *argv[] = {
        (char *)rt_prog("rt_forker"), r->dir, nfork, nexec, (char *)rt_prog("rt_joiner"),
        warm ? "warm" : NULL,         NULL};
    rt_spawn(&r->proc, argv, NULL);
}

/* Waits for the round's rt_forker and checks its logs.  Leaves the run
 * loaded and the parent's log in *parent_log, for callers that look
 * further. */
static void round_check(fork_round *r, rr_run *run, const rr_log **parent_log) {
    int rep = r->rep;
    const char *dir = r->dir;
    rt_proc *p = &r->proc;
    /* A hang is the failure this test exists for: a lock held across fork
     * deadlocks the child, or the parent waiting for it. */
    if (rt_wait(p, rt_sanitized() ? 120 : 30) != 0) {
        char *err = rt_stderr(p);
        ck_abort_msg("repetition %d: rt_forker hung (killed after the deadline); stderr:\n%s", rep,
                     rt_tail(err));
    }
    char *err = rt_stderr(p);
    ck_assert_msg(WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0,
                  "repetition %d: rt_forker %s; stderr:\n%s", rep, rt_status(p->status),
                  rt_tail(err));
    ck_assert_msg(err[0] == '\0', "repetition %d: stderr:\n%s", rep, rt_tail(err));
    free(err);

    int n = rr_load(dir, run);
    if (n != 1 + NFORK + NEXEC)
        rt_print_run(run);
    ck_assert_msg(n == 1 + NFORK + NEXEC, "repetition %d: %d logs, expected %d", rep, n,
                  1 + NFORK + NEXEC);
    for (size_t i = 0; i < run->nlogs; i++) {
        const rr_log *l = &run->logs[i];
        ck_assert_msg(l->open_rc == 0 && l->ndamage == 0 && l->has_process,
                      "repetition %d: %s unreadable, damaged or without PROCESS", rep, l->path);
    }
    ck_assert_msg(rr_run_ids(run) == 1, "repetition %d: %zu run ids, expected 1", rep,
                  rr_run_ids(run));

    /* The parent is the process we started; every other log is its child's. */
    int64_t parent = p->pid;
    const rr_log *plog = NULL;
    uint32_t seen_work = 0; /* bit i: forked child i seen */
    size_t forked = 0, execd = 0;
    for (size_t i = 0; i < run->nlogs; i++) {
        const rr_log *l = &run->logs[i];
        const rr_process *pr = &l->process;
        if (pr->pid == parent) {
            ck_assert_msg(plog == NULL, "repetition %d: two logs of pid %lld", rep,
                          (long long)parent);
            plog = l;
            ck_assert_str_eq(pr->role.ptr, "forker");
            continue;
        }
        ck_assert_msg(pr->ppid == parent, "repetition %d: %s has ppid %lld, expected %lld", rep,
                      l->path, (long long)pr->ppid, (long long)parent);
        rt_assert_clean(l);
        /* A child's own log, its own tree: one thread, no phase of the
         * parent's, no caveat from leaving the blocks its parent opened. */
        ck_assert_msg(l->nthreads == 1, "repetition %d: %s has %zu threads, expected 1", rep,
                      l->path, l->nthreads);
        uint32_t t = l->threads[0].index;
        if (rr_marks(l, SCOPE_MARK_UNBALANCED, NULL, NULL) != 0) {
            rr_print(stderr, l);
            ck_abort_msg("repetition %d: %s: an unbalanced caveat in a child", rep, l->path);
        }
        ck_assert_uint_eq(rr_marks(l, SCOPE_MARK_SHUTDOWN, NULL, NULL), 1);
        if (l->nnodes != 1)
            rr_print(stderr, l);
        ck_assert_msg(l->nnodes == 1, "repetition %d: %s has %zu phase nodes, expected 1", rep,
                      l->path, l->nnodes);
        if (!strcmp(pr->role.ptr, "forker")) {
            /* forked: inherits the parent's role and run */
            rt_expect_count(l, t, "child", 1);
            uint64_t calls;
            int64_t work = rr_counter_total(l, t, "child", "child_work", &calls);
            ck_assert_msg(calls == 1 && work >= 1 && work <= NFORK,
                          "repetition %d: %s: child_work %lld in %llu calls", rep, l->path,
                          (long long)work, (unsigned long long)calls);
            ck_assert_msg(!(seen_work & (1u << (work - 1))), "repetition %d: child %lld twice", rep,
                          (long long)work);
            seen_work |= 1u << (work - 1);
            forked++;
        } else {
            /* exec'd: joined through the environment, named after itself */
            ck_assert_str_eq(pr->role.ptr, "rt_joiner");
            rt_expect_count(l, t, "joined", 1);
            rt_expect_counter(l, t, "joined", "joined_work", 1, 1);
            execd++;
        }
    }
    ck_assert_msg(plog != NULL, "repetition %d: no log of the parent (pid %lld)", rep,
                  (long long)parent);
    ck_assert_msg(forked == NFORK && execd == NEXEC,
                  "repetition %d: %zu forked and %zu exec'd logs, expected %d and %d", rep, forked,
                  execd, NFORK, NEXEC);
    *parent_log = plog;
}

START_TEST(test_fork_exec_repeated) {
    int reps = repetitions();
    double t0 = rt_now();
    fork_round rounds[IN_FLIGHT];
    int started = 0;
    for (int rep = 0; rep < reps; rep++) {
        while (started < reps && started < rep + IN_FLIGHT) {
            round_start(&rounds[started % IN_FLIGHT], started);
            started++;
        }
        fork_round *r = &rounds[rep % IN_FLIGHT];
        rr_run run;
        const rr_log *plog;
        round_check(r, &run, &plog);
        rr_free(&run);
        rt_rmrf(r->dir);
    }
    fprintf(stderr, "%d repetitions of 1 + %d + %d processes in %.1f s (%d at a time)\n", reps,
            NFORK, NEXEC, rt_now() - t0, IN_FLIGHT);
}
END_TEST

/* The parent's own log: its five threads' trees, intact, with the phases it
 * forked from counted once. */
START_TEST(test_fork_parent_log) {
    fork_round r;
    rr_run run;
    const rr_log *plog;
    round_start(&r, 0);
    round_check(&r, &run, &plog);
    ck_assert_msg(plog->nthreads == 5, "parent: %zu threads, expected 5", plog->nthreads);
    rt_assert_clean(plog);
    uint32_t main_thread = 0;
    for (size_t i = 0; i < plog->nthreads; i++)
        if (rr_find(plog, plog->threads[i].index, "round"))
            main_thread = plog->threads[i].index;
    ck_assert_msg(main_thread != 0, "parent: no thread has 'round'");
    rt_expect_count(plog, main_thread, "round", 1);
    rt_expect_count(plog, main_thread, "round/spawn", 1);
    size_t busy_nodes;
    rr_path_count(plog, "busy/inner", &busy_nodes);
    ck_assert_uint_eq(busy_nodes, 4);
    ck_assert_uint_eq(rr_marks(plog, SCOPE_MARK_UNBALANCED, NULL, NULL), 0);
    rr_free(&run);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    rt_prefer_memory_tmpdir(); /* 6,600 logs written and removed: not a test of the disk */
    Suite *s = suite_create("recorder_fork");
    TCase *tc = tcase_create("fork");
    rt_fixture(tc);
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_fork_exec_repeated);
    tcase_add_test(tc, test_fork_parent_log);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
