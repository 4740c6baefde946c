/* wait% = 1 - cpu_ns / cpu_wall_ns from PHASE_AGG: a phase that sleeps 20 ms
 * is at least 90% waiting, one that spins 20 ms at most 10%.  Registered
 * RUN_SERIAL: a busy machine takes the spinner off its CPU.
 *
 * The program measures each block itself too.  The recorder's figures must
 * agree with those always, and the sleeper's threshold holds on any
 * machine; the spinner's is judged on an attempt where it really had its
 * CPU (its own measure under 5% waiting), which up to three attempts find
 * on any machine not saturated from outside, and is said to be left
 * unjudged on one that is (a spinner's wait% there is the machine's load,
 * which the agreement with the program's own measure still checks). */
#include "rt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#define REPEATS 10

static double wait_pct(const rr_log *log, const char *path) {
    ck_assert_uint_eq(log->nthreads, 1);
    const rr_node *n = rr_find(log, log->threads[0].index, path);
    if (!n || !n->has_agg)
        rr_print(stderr, log);
    ck_assert_msg(n && n->has_agg, "no aggregate for %s", path);
    ck_assert_uint_eq(n->agg.count, REPEATS);
    /* 20 ms phases are long enough that the adaptive rule reads CPU time on
     * every entry. */
    ck_assert_msg(n->agg.cpu_count == REPEATS, "%s: CPU time read on %llu of %d entries", path,
                  (unsigned long long)n->agg.cpu_count, REPEATS);
    ck_assert_msg(n->agg.cpu_wall_ns >= REPEATS * 20000000ull, "%s: %llu ns of wall time", path,
                  (unsigned long long)n->agg.cpu_wall_ns);
    return 100.0 * (1.0 - (double)n->agg.cpu_ns / (double)n->agg.cpu_wall_ns);
}

START_TEST(test_sleep_waits_busy_runs) {
    double sleep = 0, busy = 100;
    int judged = 0;
    for (int attempt = 0; attempt < 3 && !judged; attempt++) {
        char dir[4200];
        rt_mkdir(dir, sizeof dir, "wait");
        char repeats[16];
        snprintf(repeats, sizeof repeats, "%d", REPEATS);
        char *argv[] = {(char *)rt_prog("rt_wait"), dir, repeats, NULL};
        rt_proc p;
        rt_run(&p, argv, NULL, 60);
        ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "rt_wait %s",
                      rt_status(p.status));
        char *out = rt_slurp(p.out_path, NULL);
        unsigned long long sw, sc, bw, bc;
        ck_assert_msg(sscanf(out, "sleep %llu %llu\nbusy %llu %llu", &sw, &sc, &bw, &bc) == 4,
                      "rt_wait printed:\n%s", out);
        free(out);
        double own_sleep = 100.0 * (1.0 - (double)sc / (double)sw);
        double own_busy = 100.0 * (1.0 - (double)bc / (double)bw);

        rr_run run;
        ck_assert_int_eq(rr_load(dir, &run), 1);
        const rr_log *log = &run.logs[0];
        rt_assert_clean(log);
        sleep = wait_pct(log, "sleep");
        busy = wait_pct(log, "busy");
        rr_free(&run);
        fprintf(stderr,
                "attempt %d: wait%% recorded sleep %.1f%%, busy %.1f%%; measured by the program "
                "sleep %.1f%%, busy %.1f%%\n",
                attempt + 1, sleep, busy, own_sleep, own_busy);
        /* The same blocks, timed from outside: the figures must agree. */
        ck_assert_msg(sleep > own_sleep - 5 && sleep < own_sleep + 5,
                      "sleep: recorded wait %.1f%%, the program measured %.1f%%", sleep, own_sleep);
        ck_assert_msg(busy > own_busy - 5 && busy < own_busy + 5,
                      "busy: recorded wait %.1f%%, the program measured %.1f%%", busy, own_busy);
        judged = own_busy < 5.0;
    }
    /* Asleep, a phase waits whatever the load: a busy machine only adds
     * the wait for a CPU after each wake-up. */
    ck_assert_msg(sleep >= 90.0, "a phase asleep for 20 ms shows wait %.1f%%, expected >= 90%%",
                  sleep);
    if (!judged) {
        fprintf(stderr, "the machine never let the spinner run: its threshold not judged\n");
        return;
    }
    ck_assert_msg(busy <= 10.0, "a phase spinning for 20 ms shows wait %.1f%%, expected <= 10%%",
                  busy);
}
END_TEST

/* The reads of the thread's CPU clock, which cost about as much as a short
 * phase itself, are taken out of its CPU time: what is left over its wall
 * time (no entry's CPU time is capped at its wall time, phase.c; the
 * reader caps the phase's wait% at 0) is less than one read an entry. */
START_TEST(test_wait_never_negative) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "short");
    const char *env[] = {"SCOPE_CPU_TIME=always", NULL};
    char *argv[] = {(char *)rt_prog("rt_wait"), dir, "1", "2000", NULL};
    rt_opts o = {.env = env};
    rt_proc p;
    rt_run(&p, argv, &o, 60);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "rt_wait %s",
                  rt_status(p.status));
    rr_run run;
    ck_assert_int_eq(rr_load(dir, &run), 1);
    const rr_log *log = &run.logs[0];
    rt_assert_clean(log);
    const rr_node *n = rr_find(log, log->threads[0].index, "short");
    ck_assert_msg(n && n->has_agg && n->agg.count == 2000 && n->agg.cpu_count == 2000,
                  "'short': missing, or CPU time not read on every entry");
    double pct = 100.0 * (1.0 - (double)n->agg.cpu_ns / (double)n->agg.cpu_wall_ns);
    fprintf(stderr, "wait%% of a 2 us spinning phase: %.1f%% (cpu %llu ns over %llu ns wall)\n",
            pct, (unsigned long long)n->agg.cpu_ns, (unsigned long long)n->agg.cpu_wall_ns);
    uint64_t over = n->agg.cpu_ns > n->agg.cpu_wall_ns ? n->agg.cpu_ns - n->agg.cpu_wall_ns : 0;
    uint64_t read_ns = rt_cpu_read_cost_ns();
    ck_assert_msg(over / n->agg.count < read_ns,
                  "a 2 us spinning phase shows wait %.1f%%: %llu ns of CPU time in %llu ns of wall "
                  "time, %llu ns an entry over, a read is %llu ns",
                  pct, (unsigned long long)n->agg.cpu_ns, (unsigned long long)n->agg.cpu_wall_ns,
                  (unsigned long long)(over / n->agg.count), (unsigned long long)read_ns);
    rr_free(&run);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_waitpct");
    TCase *tc = tcase_create("waitpct");
    rt_fixture(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_sleep_waits_busy_runs);
    tcase_add_test(tc, test_wait_never_negative);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
