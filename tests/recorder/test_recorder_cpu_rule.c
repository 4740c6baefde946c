/* The adaptive CPU-time rule and the cost of its reads, against programs
 * whose truth is known by construction (progs/rt_cpu_rule.c).
 *
 * - A phase whose first entries are short and whose later ones sleep reads
 *   the wait% of all of them (the rule follows the phase's own entries,
 *   not a frame that a short program never reaches).
 * - An early entry off its CPU (a preempted one) buys a bounded number of
 *   reads: at most one read entry per SCOPE_CPU_MIN_US of the phase's time,
 *   and not the reads on every entry.
 * - With SCOPE_CPU_TIME=always the reads stay outside the phase's wall
 *   time: the median of a million empty phases is not lifted by a read.
 *
 * Which entries read is set where it matters (SCOPE_CPU_MIN_US), never left
 * to the threshold measured on the machine; each verdict holds however the
 * machine's load stretches the entries. */
#include "rt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

static void run_case(const char *which, const char *const *env, rr_run *run, char **out) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, which);
    char *argv[] = {(char *)rt_prog("rt_cpu_rule"), dir, (char *)which, NULL};
    rt_opts o = {.env = env};
    rt_proc p;
    rt_run(&p, argv, &o, 120);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "rt_cpu_rule %s %s", which,
                  rt_status(p.status));
    if (out)
        *out = rt_slurp(p.out_path, NULL);
    ck_assert_int_eq(rr_load(dir, run), 1);
    const rr_log *log = &run->logs[0];
    rt_assert_clean(log);
    ck_assert_uint_eq(log->nthreads, 1);
}

static const rr_node *phase(const rr_run *run, const char *path) {
    const rr_log *log = &run->logs[0];
    const rr_node *n = rr_find(log, log->threads[0].index, path);
    if (!n || !n->has_agg)
        rr_print(stderr, log);
    ck_assert_msg(n && n->has_agg, "no aggregate for %s", path);
    return n;
}

START_TEST(test_short_then_sleeping_entries) {
    rr_run run;
    char *out;
    /* 50 us a read: every sleeping entry pays for its own read many times
     * over, on any machine (the measured default could exceed it). */
    const char *env[] = {"SCOPE_CPU_MIN_US=50", "SCOPE_CPU_TIME=adaptive", NULL};
    run_case("mixed", env, &run, &out);
    unsigned long long wall, cpu;
    ck_assert_msg(sscanf(out, "mixed %llu %llu", &wall, &cpu) == 2, "rt_cpu_rule printed:\n%s",
                  out);
    free(out);
    const rr_node *n = phase(&run, "mixed");
    ck_assert_uint_eq(n->agg.count, 30);
    double truth = 100.0 * (1.0 - (double)cpu / (double)wall);
    double got = 100.0 * (1.0 - (double)n->agg.cpu_ns / (double)n->agg.cpu_wall_ns);
    fprintf(stderr, "mixed: wait %.2f%% from %llu of 30 entries; the program measured %.2f%%\n",
            got, (unsigned long long)n->agg.cpu_count, truth);
    /* Every sleeping entry after the first has a budget of 10 ms to read
     * in: the rule must read them. */
    ck_assert_msg(n->agg.cpu_count >= 19, "CPU time read on %llu entries, not the 19 asleep",
                  (unsigned long long)n->agg.cpu_count);
    ck_assert_msg(got > truth - 1.0 && got < truth + 1.0,
                  "a phase of 10 x 2 us spins then 20 x 10 ms asleep reads wait %.2f%%, truly "
                  "%.2f%%",
                  got, truth);
    rr_free(&run);
}
END_TEST

START_TEST(test_preempted_entry_does_not_keep_reads_on) {
    const char *env[] = {"SCOPE_CPU_MIN_US=50", "SCOPE_CPU_TIME=adaptive", NULL};
    rr_run run;
    run_case("preempt", env, &run, NULL);
    const rr_node *n = phase(&run, "tiny");
    ck_assert_uint_eq(n->agg.count, 200001);
    /* Each read entry is paid for by 50 us of the phase's own time; the
     * first entry reads before any time is known. */
    uint64_t bound = n->agg.wall_ns / 50000u + 1;
    fprintf(stderr, "preempt: CPU time read on %llu of %llu entries (%llu ns in all; bound %llu)\n",
            (unsigned long long)n->agg.cpu_count, (unsigned long long)n->agg.count,
            (unsigned long long)n->agg.wall_ns, (unsigned long long)bound);
    ck_assert_msg(n->agg.cpu_count <= bound,
                  "CPU time read on %llu entries of a phase of %llu ns: more than one per 50 us",
                  (unsigned long long)n->agg.cpu_count, (unsigned long long)n->agg.wall_ns);
    /* The sleeping entry's 20 ms buy about 400 reads, not 200,000: the
     * bound above says so wherever the phase's entries last less than
     * 50 us each on average.  How far below the count it is rests on how
     * often a loaded machine preempts the empty entries (a starved one
     * gave them 1.08 s, 21,636 reads), so only "not every entry" is
     * asked of the count itself. */
    ck_assert_msg(n->agg.cpu_count < n->agg.count, "CPU time read on %llu of %llu entries",
                  (unsigned long long)n->agg.cpu_count, (unsigned long long)n->agg.count);
    rr_free(&run);
}
END_TEST

START_TEST(test_reads_outside_wall_time) {
    /* The same million empty phases without CPU time: the yardstick, on
     * this machine and build (a sanitizer slows both alike). */
    const char *off_env[] = {"SCOPE_CPU_TIME=off", NULL};
    rr_run run;
    run_case("empty", off_env, &run, NULL);
    const rr_node *off = phase(&run, "empty");
    uint64_t off_ns = off->agg.wall_ns, off_median = off->agg.median_ns;
    rr_free(&run);

    const char *env[] = {"SCOPE_CPU_TIME=always", NULL};
    run_case("empty", env, &run, NULL);
    const rr_node *n = phase(&run, "empty");
    ck_assert_uint_eq(n->agg.count, 1000000);
    ck_assert_uint_eq(n->agg.cpu_count, 1000000);
    uint64_t read_ns = rt_cpu_read_cost_ns();
    fprintf(stderr,
            "empty, always: %llu ns in all, %.1f ns an entry, median %llu ns (off: %.1f ns an "
            "entry, median %llu ns); CPU %llu ns; one read of the CPU clock %llu ns\n",
            (unsigned long long)n->agg.wall_ns, (double)n->agg.wall_ns / 1e6,
            (unsigned long long)n->agg.median_ns, (double)off_ns / 1e6,
            (unsigned long long)off_median, (unsigned long long)n->agg.cpu_ns,
            (unsigned long long)read_ns);
    /* Two reads of the thread's CPU clock cost several hundred ns to a few
     * us; an empty phase between two reads of the clock, tens of ns, with
     * or without them.  Judged on the median entry, which a loaded
     * machine's preemptions (each one entry's, and rare) leave where it
     * is, where the sum of a million entries takes all of them in: a read
     * inside the wall time would lift the median by at least its cost. */
    ck_assert_msg(n->agg.median_ns > 0 && off_median > 0, "no histogram of 'empty'");
    ck_assert_msg(n->agg.median_ns < off_median + read_ns,
                  "the median empty phase recorded with CPU time lasts %llu ns, %llu ns without: "
                  "a read of the CPU clock (%llu ns here) is inside its wall time",
                  (unsigned long long)n->agg.median_ns, (unsigned long long)off_median,
                  (unsigned long long)read_ns);
    /* No entry's CPU time is capped at its wall time (phase.c): a few tens
     * of ns of each empty entry's CPU window are the recorder's own code,
     * but the reads are taken out, so what is left over the wall time is
     * less than one read an entry. */
    uint64_t over = n->agg.cpu_ns > n->agg.cpu_wall_ns ? n->agg.cpu_ns - n->agg.cpu_wall_ns : 0;
    ck_assert_msg(over / n->agg.count < read_ns,
                  "CPU time %llu ns over %llu ns of wall: %llu ns an entry, a read is %llu ns",
                  (unsigned long long)n->agg.cpu_ns, (unsigned long long)n->agg.cpu_wall_ns,
                  (unsigned long long)(over / n->agg.count), (unsigned long long)read_ns);
    rr_free(&run);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_cpu_rule");
    TCase *tc = tcase_create("cpu_rule");
    rt_fixture(tc);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_short_then_sleeping_entries);
    tcase_add_test(tc, test_preempted_entry_does_not_keep_reads_on);
    tcase_add_test(tc, test_reads_outside_wall_time);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
