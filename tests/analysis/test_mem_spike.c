/*
 * The memory series keeps each interval's peak: a real program
 * (progs/an_mem_spike.c) maps, touches and unmaps a 64 MiB block between
 * two 1 s samples, so no RSS read at a sample sees it.  Its run, read
 * whole and from the snapshot after the block (the series the snapshot
 * carries), must show the block in the process's series buckets, in the
 * browser's RSS columns (run_res_fold) and in the run's RSS peak, each
 * within TOLERANCE of the program's own measure of its peak, ru_maxrss.
 * The kernel keeps ru_maxrss and VmHWM from the same high-water mark; the
 * tolerance covers its per-CPU counters' slack and the pages the process
 * touches after the block (fewer than the block's, so the peak stays).
 */
#define _GNU_SOURCE
#include "an_util.h"
#include "res_proc.h"
#include "rt_util.h"
#include "run_load.h"
#include "run_resources.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define MIB       (1024.0 * 1024.0)
#define TOLERANCE (2 * MIB)
#define COLUMNS   80

static run_model *load(const char *run, int read_all) {
    run_options opt = {.threads = 1, .read_all = read_all, .snapshot_min_bytes = 1};
    run_model *m = NULL;
    char msg[512] = "";
    ck_assert_msg(run_load(run, &opt, &m, msg, sizeof msg) == RUN_OK, "run_load: %s", msg);
    ck_assert_uint_eq(m->nworkers, 1);
    ck_assert_ptr_nonnull(m->workers[0].res);
    return m;
}

/* The program's figure `key` from its stdout, KiB, as bytes. */
static double printed(const char *out, const char *key) {
    const char *at = strstr(out, key);
    ck_assert_msg(at, "an_mem_spike printed no %s: %s", key, out);
    return strtod(at + strlen(key), NULL) * 1024.0;
}

static double largest_bucket(const res_proc *p) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < p->s.nused; i++)
        if (p->b[i].rss_max > v)
            v = p->b[i].rss_max;
    return (double)v;
}

static void expect_peak(const char *what, const char *read, double got, double truth) {
    ck_assert_msg(fabs(got - truth) <= TOLERANCE,
                  "%s (%s): %.1f MiB, ru_maxrss %.1f MiB: further apart than %.0f MiB", what, read,
                  got / MIB, truth / MIB, TOLERANCE / MIB);
}

static void expect_spike_shown(run_model *m, const char *read, double truth) {
    size_t w = 0;
    double cols[COLUMNS];
    double folded = run_res_fold(m, &w, 1, RUN_RES_RSS, NULL, COLUMNS, cols);
    const run_res *r = run_worker_res(m, 0);
    ck_assert_ptr_nonnull(r);
    fprintf(stderr,
            "%s: ru_maxrss %.1f MiB, largest bucket %.1f MiB, largest column %.1f MiB, run "
            "peak %.1f MiB, largest RSS read at a sample %.1f MiB\n",
            read, truth / MIB, largest_bucket(m->workers[0].res) / MIB, folded / MIB,
            (double)r->rss_peak / MIB, (double)m->workers[0].res->rss_max / MIB);
    expect_peak("largest series bucket", read, largest_bucket(m->workers[0].res), truth);
    expect_peak("largest RSS column", read, folded, truth);
    expect_peak("run's RSS peak", read, (double)r->rss_peak, truth);
}

START_TEST(test_peak_between_samples_shows) {
    char run[4200];
    rt_mkdir(run, sizeof run, "memspike");
    const char *env[] = {"SCOPE_SAMPLE_INTERVAL=1", NULL};
    char *argv[] = {(char *)rt_prog("an_mem_spike"), run, NULL};
    rt_proc p;
    rt_run(&p, argv, &(rt_opts){.env = env}, 120);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "an_mem_spike %s",
                  rt_status(p.status));
    size_t len;
    char *out = rt_slurp(p.out_path, &len);
    double before = printed(out, "before_kib "), truth = printed(out, "maxrss_kib ");
    free(out);
    /* The block was resident: the peak is its size above the rest. */
    ck_assert_msg(truth - before >= 60 * MIB, "ru_maxrss rose %.1f MiB, not the block's 64",
                  (truth - before) / MIB);

    run_model *whole = load(run, 1);
    expect_spike_shown(whole, "read whole", truth);
    run_free(whole);

    run_model *snap = load(run, 0);
    ck_assert_msg(snap->workers[0].res->series.intervals > 0, "not read from a snapshot's series");
    expect_spike_shown(snap, "read from the snapshot", truth);
    run_free(snap);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("mem_spike");
    TCase *tc = tcase_create("spike");
    rt_fixture(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_peak_between_samples_shows);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
