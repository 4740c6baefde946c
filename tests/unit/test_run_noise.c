/* The noise in a comparison (run_noise.h): Student's quantiles against
 * their tables, the interval's arithmetic, and the rates check's verdicts
 * reach on runs drawn from a seeded model of a workload: how often 20 pairs
 * of runs of the same build are called REGRESSED, how often a true 10%
 * slowdown of one phase is caught, and that a true 2% change below a 5%
 * threshold is never called.  The model's noise comes from a seeded
 * generator, so every rate is the same on any machine, loaded or not
 * (bench/bench_noise.sh measures the same rates on real runs). */
#include "run_check.h"
#include "run_compare.h"
#include "run_noise.h"
#include "unit_util.h"

#include <scope/log_hist.h>

#include <math.h>
#include <string.h>

/* ---- Student's t ------------------------------------------------------------- */

START_TEST(t_quantiles) {
    /* Two-sided quantiles, from any table of Student's t. */
    static const struct {
        double confidence, df, t;
    } table[] = {
        {0.95, 1, 12.7062}, {0.95, 2, 4.3027},  {0.95, 3, 3.1824},    {0.95, 4, 2.7764},
        {0.95, 7, 2.3646},  {0.95, 10, 2.2281}, {0.90, 5, 2.0150},    {0.99, 30, 2.7500},
        {0.99, 9, 3.2498},  {0.80, 20, 1.3253}, {0.95, 5000, 1.9600}, {0.95, INFINITY, 1.9600},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        double t = run_noise_t(table[i].confidence, table[i].df);
        ck_assert_msg(fabs(t - table[i].t) < 5e-4, "t(%g, df %g) = %.5f, want %.4f",
                      table[i].confidence, table[i].df, t, table[i].t);
    }
    /* A fractional df rounds down: fewer degrees, a wider interval. */
    ck_assert_double_eq_tol(run_noise_t(0.95, 3.9), run_noise_t(0.95, 3), 1e-12);
    ck_assert(isnan(run_noise_t(0.95, 0.5)));
    ck_assert(isnan(run_noise_t(1.0, 10)));
}
END_TEST

START_TEST(interval_arithmetic) {
    /* 10% slower, each side known to 2% (df large): ln(1.1) +- 1.96 *
     * sqrt(2) * 0.02. */
    run_noise a = {100, 0.02, INFINITY, RUN_NOISE_ENTRIES},
              b = {110, 0.02, INFINITY, RUN_NOISE_ENTRIES};
    double lo, hi, s = sqrt(2) * 0.02, t = 1.959964;
    run_noise_interval(a, b, 0.95, &lo, &hi);
    ck_assert_double_eq_tol(lo, exp(log(1.1) - t * s) - 1, 1e-5);
    ck_assert_double_eq_tol(hi, exp(log(1.1) + t * s) - 1, 1e-5);
    /* No estimate on a side, or a figure that is not above 0: no interval. */
    b.rel_se = NAN;
    run_noise_interval(a, b, 0.95, &lo, &hi);
    ck_assert(isnan(lo) && isnan(hi));
    b = (run_noise){0, 0.02, 10, RUN_NOISE_PROCESSES};
    run_noise_interval(a, b, 0.95, &lo, &hi);
    ck_assert(isnan(lo) && isnan(hi));
    /* Few processes: Student's t for their degrees of freedom widens it. */
    a = (run_noise){100, 0.02, 3, RUN_NOISE_PROCESSES};
    b = (run_noise){100, 0.02, 3, RUN_NOISE_PROCESSES};
    run_noise_interval(a, b, 0.95, &lo, &hi);
    double df = pow(2 * 0.0004, 2) / (2 * pow(0.0004, 2) / 3); /* Welch: 6 */
    ck_assert_double_eq_tol(hi, exp(run_noise_t(0.95, df) * s) - 1, 1e-9);
    /* Several base runs: their mean, and their spread on the candidate. */
    double runs[] = {100, 104, 96, 100};
    run_noise per_run, within = {100, 0.001, 999, RUN_NOISE_ENTRIES};
    run_noise base = run_noise_base(runs, 4, within, &per_run);
    ck_assert_double_eq(base.value, 100);
    ck_assert_int_eq(per_run.source, RUN_NOISE_RUNS);
    ck_assert_double_eq_tol(per_run.rel_se, sqrt(32.0 / 3) / 100, 1e-12);
    ck_assert_double_eq_tol(base.rel_se, per_run.rel_se / 2, 1e-12);
    ck_assert_double_eq(base.df, 3);
    run_noise cand = run_noise_candidate((run_noise){110, 0.001, 999, RUN_NOISE_ENTRIES}, per_run);
    ck_assert_int_eq(cand.source, RUN_NOISE_RUNS);
    ck_assert_double_eq(cand.value, 110);
    ck_assert_double_eq_tol(cand.rel_se, per_run.rel_se, 1e-12);
}
END_TEST

START_TEST(one_sided_bound) {
    /* check's question is one-sided (did B grow past the threshold?): its
     * bound at 95% is the two-sided 90% interval's lower end. */
    run_noise a = {100, 0.02, 7, RUN_NOISE_PROCESSES}, b = {110, 0.02, 7, RUN_NOISE_PROCESSES};
    double lo, hi, lo90, hi90;
    run_noise_interval(a, b, 0.95, &lo, &hi);
    run_noise_interval(a, b, 0.90, &lo90, &hi90);
    double least = run_noise_at_least(a, b, 0.95);
    ck_assert_double_eq_tol(least, lo90, 1e-12);
    ck_assert(least > lo && least < 0.10);
    /* At 50% the bound is the change itself; no estimate, no bound. */
    ck_assert_double_eq_tol(run_noise_at_least(a, b, 0.50), 0.10, 1e-12);
    b.rel_se = NAN;
    ck_assert(isnan(run_noise_at_least(a, b, 0.95)));
    /* Both sides from the base runs' one spread (5 runs: 4 degrees of
     * freedom): one estimate, so t for 4, not Welch's 5.5 for two. */
    double runs[] = {100, 102, 98, 101, 99};
    run_noise per_run, within = {100, 0.001, 999, RUN_NOISE_ENTRIES};
    run_noise base = run_noise_base(runs, 5, within, &per_run);
    run_noise cand = run_noise_candidate((run_noise){110, 0.001, 999, RUN_NOISE_ENTRIES}, per_run);
    ck_assert_int_eq(base.source, RUN_NOISE_RUNS);
    ck_assert_int_eq(cand.source, RUN_NOISE_RUNS);
    run_noise_interval(base, cand, 0.95, &lo, &hi);
    double s = per_run.rel_se * sqrt(1 + 1.0 / 5);
    ck_assert_double_eq_tol(hi, exp(log(1.1) + run_noise_t(0.95, 4) * s) - 1, 1e-9);
    ck_assert_double_eq_tol(run_noise_at_least(base, cand, 0.95),
                            exp(log(1.1) - run_noise_t(0.90, 4) * s) - 1, 1e-9);
}
END_TEST

/* ---- runs drawn from a model ---------------------------------------------------- */

/* A workload: procs processes of one role, each running `entries` entries
 * of phase "step" and of phase "io".  An entry of a phase takes its base
 * time x the process's speed that run (lognormal, proc_sigma) x the run's
 * speed (run_sigma, common to every process) x its own lognormal factor
 * (entry_sigma); "step" takes `slow` times that. */
typedef struct workload {
    int procs, entries;
    double proc_sigma, run_sigma, entry_sigma;
} workload;

#define MAX_PROCS 16

typedef struct model_run {
    run_model m;
    run_role role;
    run_phase root, phases[2];
    run_phase *children[2];
    run_proc_ns per_proc[2][MAX_PROCS];
    run_hist_bin *hist[2];
} model_run;

static double normal(uint64_t *s) {
    double u = ((double)(unit_rand(s) >> 11) + 0.5) * 0x1.0p-53;
    double v = ((double)(unit_rand(s) >> 11) + 0.5) * 0x1.0p-53;
    return sqrt(-2 * log(u)) * cos(2 * 3.14159265358979323846 * v);
}

static void draw_phase(model_run *r, int k, const workload *w, const double *speed, double base_ns,
                       uint64_t *seed) {
    run_phase *p = &r->phases[k];
    uint64_t *dense = calloc(SCOPE_HIST_BUCKETS, sizeof *dense);
    ck_assert_ptr_nonnull(dense);
    p->dist.min_ns = UINT64_MAX;
    for (int i = 0; i < w->procs; i++) {
        run_proc_ns *e = &r->per_proc[k][i];
        *e = (run_proc_ns){.proc = (size_t)i};
        for (int n = 0; n < w->entries; n++) {
            uint64_t ns = (uint64_t)(base_ns * speed[i] * exp(w->entry_sigma * normal(seed)));
            dense[scope_hist_bucket(ns)]++;
            e->ns += (double)ns;
            e->count++;
            p->dist.total_ns += ns;
            p->dist.min_ns = ns < p->dist.min_ns ? ns : p->dist.min_ns;
            p->dist.max_ns = ns > p->dist.max_ns ? ns : p->dist.max_ns;
        }
    }
    size_t nhist = 0;
    for (uint32_t b = 0; b < SCOPE_HIST_BUCKETS; b++)
        nhist += dense[b] != 0;
    r->hist[k] = calloc(nhist, sizeof *r->hist[k]);
    ck_assert_ptr_nonnull(r->hist[k]);
    for (uint32_t b = 0; b < SCOPE_HIST_BUCKETS; b++)
        if (dense[b])
            r->hist[k][p->nhist++] = (run_hist_bin){b, dense[b]};
    free(dense);
    p->hist = r->hist[k];
    p->hist_count = p->dist.count = (uint64_t)w->procs * (uint64_t)w->entries;
    p->dist.mean_ns = (double)p->dist.total_ns / (double)p->dist.count;
    p->dist.p50_ns = p->dist.p99_ns = NAN; /* the rates judge the mean */
    p->self_ns = p->dist.total_ns;
    p->wait = NAN;
    p->per_proc = r->per_proc[k];
    p->nprocs = (size_t)w->procs;
}

/* One run of the workload, from `seed`, with "step" slow times slower. */
static void draw_run(model_run *r, const workload *w, double slow, uint64_t seed) {
    memset(r, 0, sizeof *r);
    ck_assert_int_le(w->procs, MAX_PROCS);
    double speed[MAX_PROCS], run_speed = exp(w->run_sigma * normal(&seed));
    for (int i = 0; i < w->procs; i++)
        speed[i] = run_speed * exp(w->proc_sigma * normal(&seed));
    static const char *names[2] = {"step", "io"};
    static const double base_ns[2] = {2e6, 1e6};
    for (int k = 0; k < 2; k++) {
        run_phase *p = &r->phases[k];
        p->name = (run_str){names[k], strlen(names[k])};
        p->parent = &r->root;
        p->depth = 1;
        draw_phase(r, k, w, speed, base_ns[k] * (k == 0 ? slow : 1), &seed);
        r->children[k] = p;
        r->role.phase_ns += p->dist.total_ns;
    }
    for (int k = 0; k < 2; k++)
        r->phases[k].share = (double)r->phases[k].dist.total_ns / (double)r->role.phase_ns;
    r->root.children = r->children;
    r->root.nchildren = 2;
    r->role = (run_role){.name = {"worker", 6},
                         .nprocs = (size_t)w->procs,
                         .phase_ns = r->role.phase_ns,
                         .root = &r->root,
                         .nphases = 2,
                         .imbalance = NAN,
                         .slowest_worker = SIZE_MAX};
    r->m = (run_model){.dir = "model", .roles = &r->role, .nroles = 1, .no_samples = 1};
}

static void free_run(model_run *r) {
    free(r->hist[0]);
    free(r->hist[1]);
}

/* Whether check calls "step" REGRESSED: B against nbase runs of A. */
static int regressed(const model_run *bases, size_t nbase, const model_run *b, double threshold) {
    const run_model *more[8];
    ck_assert_uint_le(nbase, 9);
    for (size_t i = 1; i < nbase; i++)
        more[i - 1] = &bases[i].m;
    run_cmp_opts co = {.confidence = 0.95, .more_a = more, .nmore_a = nbase - 1};
    run_cmp *c = run_compare_with(&bases[0].m, &b->m, &co);
    ck_assert_ptr_nonnull(c);
    const char *watch[] = {"step"};
    run_check_opts o = {.max_regression = threshold,
                        .metric = PF_MEAN,
                        .phases = watch,
                        .nphases = 1,
                        .min_share = 0.01};
    run_check *k;
    char msg[256];
    ck_assert_int_eq(run_check_judge(c, &o, &k, msg, sizeof msg), RUN_CHECK_DONE);
    ck_assert_uint_eq(k->nrows, 1);
    /* The threshold alone (check before it knew noise) calls NOISE too. */
    int called = k->rows[0].verdict == RUN_CHECK_REGRESSED ? 1
                 : k->rows[0].verdict == RUN_CHECK_NOISE   ? 2
                                                           : 0;
    run_check_free(k);
    run_cmp_free(c);
    return called;
}

#define PAIRS 20

/* How many of 20 pairs (a base run and a candidate `slow` times slower in
 * "step", each from its own seed) check calls REGRESSED; *by_threshold (if
 * not NULL): how many passed the threshold, noise or not. */
static int called_in_pairs(const workload *w, double slow, double threshold, size_t nbase,
                           uint64_t seed0, int *by_threshold) {
    int called = 0, past = 0;
    for (int pair = 0; pair < PAIRS; pair++) {
        model_run bases[8], cand;
        uint64_t seed = seed0 + 100 * (uint64_t)pair;
        for (size_t i = 0; i < nbase; i++)
            draw_run(&bases[i], w, 1.0, seed + i);
        draw_run(&cand, w, slow, seed + 50);
        int v = regressed(bases, nbase, &cand, threshold);
        called += v == 1;
        past += v != 0;
        for (size_t i = 0; i < nbase; i++)
            free_run(&bases[i]);
        free_run(&cand);
    }
    if (by_threshold)
        *by_threshold = past;
    return called;
}

/* 8 processes of 400 entries each; the processes' speeds differ by 1.5%
 * from run to run, every entry by 25%, and the whole run by 0.3%. */
static const workload several = {8, 400, 0.015, 0.003, 0.25};

START_TEST(rates_several_processes) {
    int same = called_in_pairs(&several, 1.00, 0.05, 1, 1, NULL);
    int slower = called_in_pairs(&several, 1.10, 0.05, 1, 1, NULL);
    int small = called_in_pairs(&several, 1.02, 0.05, 1, 1, NULL);
    fprintf(stderr,
            "8 processes, threshold 5%%: same build %d/20 called, 10%% slower %d/20, 2%% "
            "slower %d/20\n",
            same, slower, small);
    ck_assert_int_le(same, 1);
    ck_assert_int_ge(slower, 19);
    ck_assert_int_eq(small, 0);
    /* The default threshold, 10%: nothing of the same build is called. */
    ck_assert_int_eq(called_in_pairs(&several, 1.00, 0.10, 1, 7, NULL), 0);
}
END_TEST

/* check's bound: one-sided at the stated confidence where several base
 * runs measured the run-to-run noise; with one base run, whose noise within
 * the run is short of it, the two-sided interval's lower end. */
START_TEST(bound_follows_measured_noise) {
    model_run bases[5], cand;
    for (int i = 0; i < 5; i++)
        draw_run(&bases[i], &several, 1.0, 500 + (uint64_t)i);
    draw_run(&cand, &several, 1.10, 550);
    run_cmp *one = run_compare_with(&bases[0].m, &cand.m, &(run_cmp_opts){.confidence = 0.95});
    const run_model *more[4] = {&bases[1].m, &bases[2].m, &bases[3].m, &bases[4].m};
    run_cmp *five = run_compare_with(
        &bases[0].m, &cand.m, &(run_cmp_opts){.confidence = 0.95, .more_a = more, .nmore_a = 4});
    ck_assert_ptr_nonnull(one);
    ck_assert_ptr_nonnull(five);
    const run_cmp_fig *f1 = NULL, *f5 = NULL;
    for (size_t i = 0; i < one->roles[0].nphases; i++)
        if (!strcmp(one->roles[0].phases[i].path, "step"))
            f1 = &one->roles[0].phases[i].fig[PF_MEAN];
    for (size_t i = 0; i < five->roles[0].nphases; i++)
        if (!strcmp(five->roles[0].phases[i].path, "step"))
            f5 = &five->roles[0].phases[i].fig[PF_MEAN];
    ck_assert_ptr_nonnull(f1);
    ck_assert_ptr_nonnull(f5);
    ck_assert_double_eq_tol(f1->at_least_confidence, 0.975, 1e-12);
    ck_assert_double_eq_tol(f1->at_least, f1->lo, 1e-12);
    ck_assert_double_eq_tol(f5->at_least_confidence, 0.95, 1e-12);
    ck_assert(f5->at_least > f5->lo && f5->at_least < f5->change);
    run_cmp_free(one);
    run_cmp_free(five);
    for (int i = 0; i < 5; i++)
        free_run(&bases[i]);
    free_run(&cand);
}
END_TEST

/* A machine with run-to-run noise common to every process of a run (0.6%
 * here, 0.9% in all with the processes' and the entries'), judged against
 * 5 base runs, whose spread is that noise on both sides with 4 degrees of
 * freedom.  check's one-sided bound catches a 10% slowdown in 19 or more of
 * each set of 20 pairs; the two-sided interval's lower end, which answers
 * at 97.5% a question asked at 95%, caught 17 to 20 (95 of 100).  Same
 * build and 2% stay uncalled. */
static const workload run_noisy = {8, 400, 0.015, 0.006, 0.25};

START_TEST(rates_several_bases_one_sided) {
    for (uint64_t seed0 = 21; seed0 < 1000; seed0 += 197) {
        int same = called_in_pairs(&run_noisy, 1.00, 0.05, 5, seed0, NULL);
        int slower = called_in_pairs(&run_noisy, 1.10, 0.05, 5, seed0, NULL);
        int small = called_in_pairs(&run_noisy, 1.02, 0.05, 5, seed0, NULL);
        fprintf(stderr,
                "8 processes, 0.6%% run noise, 5 base runs, threshold 5%% (seed %llu): same "
                "build %d/20 called, 10%% slower %d/20, 2%% slower %d/20\n",
                (unsigned long long)seed0, same, slower, small);
        ck_assert_int_le(same, 1);
        ck_assert_int_ge(slower, 19);
        ck_assert_int_eq(small, 0);
    }
}
END_TEST

/* 4 processes of 20 entries, each entry spread by 50%: the threshold alone
 * calls runs of the same build slower, the interval does not. */
static const workload few = {4, 20, 0.03, 0.003, 0.5};

START_TEST(rates_few_noisy_entries) {
    int past;
    int same = called_in_pairs(&few, 1.00, 0.05, 1, 11, &past);
    fprintf(stderr,
            "4 x 20 noisy entries, threshold 5%%: same build %d/20 called, %d/20 past the "
            "threshold alone\n",
            same, past);
    ck_assert_int_le(same, 1);
    ck_assert_int_ge(past, 4);
}
END_TEST

/* One process: its entries say little of the run-to-run noise (4% here),
 * which several base runs measure. */
static const workload single = {1, 2000, 0.0, 0.04, 0.10};

START_TEST(rates_one_process_several_bases) {
    int one_base = called_in_pairs(&single, 1.00, 0.05, 1, 3, NULL);
    int five_bases = called_in_pairs(&single, 1.00, 0.05, 5, 3, NULL);
    int five_slower = called_in_pairs(&single, 1.25, 0.05, 5, 3, NULL);
    fprintf(stderr,
            "1 process, threshold 5%%: same build %d/20 called against 1 base run, %d/20 "
            "against 5; 25%% slower %d/20 against 5\n",
            one_base, five_bases, five_slower);
    /* One base run cannot see the noise between runs: false alarms. */
    ck_assert_int_ge(one_base, 2);
    ck_assert_int_le(five_bases, 1);
    ck_assert_int_ge(five_slower, 15);
}
END_TEST

int main(void) {
    Suite *s = suite_create("run_noise");
    TCase *tc = tcase_create("noise");
    tcase_set_timeout(tc,
                      120); /* the rates draw some 10,000 model runs: a loaded machine is slow */
    tcase_add_test(tc, t_quantiles);
    tcase_add_test(tc, interval_arithmetic);
    tcase_add_test(tc, one_sided_bound);
    tcase_add_test(tc, rates_several_processes);
    tcase_add_test(tc, bound_follows_measured_noise);
    tcase_add_test(tc, rates_several_bases_one_sided);
    tcase_add_test(tc, rates_few_noisy_entries);
    tcase_add_test(tc, rates_one_process_several_bases);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
