/* The comparison of two runs (run_compare.h) and the check verdicts made
 * from it (run_check.h), on small models built by hand so every expected
 * figure is plain arithmetic. */
#include "run_check.h"
#include "run_compare.h"
#include "unit_util.h"

#include <math.h>

/* ---- models by hand ------------------------------------------------------ */

#define MAX_KEPT     256
#define MAX_CHILDREN 8

static void *kept[MAX_KEPT];
static size_t nkept;

/* Everything a model holds is freed at the end of each test. */
static void *keep(void *p) {
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_lt(nkept, MAX_KEPT);
    return kept[nkept++] = p;
}

static void free_kept(void) {
    while (nkept)
        free(kept[--nkept]);
}

typedef struct fixture {
    run_model m;
    run_role roles[4];
    run_phase roots[4];
} fixture;

static run_str str(const char *s) {
    return (run_str){s, strlen(s)};
}

static void init(fixture *f, const char *dir) {
    memset(f, 0, sizeof *f);
    f->m.dir = (char *)dir;
    f->m.roles = f->roles;
}

static run_role *add_role(fixture *f, const char *name) {
    run_role *r = &f->roles[f->m.nroles];
    r->name = str(name);
    r->nprocs = 1;
    r->slowest_worker = SIZE_MAX;
    r->imbalance = NAN;
    r->root = &f->roots[f->m.nroles++];
    r->root->children = keep(calloc(MAX_CHILDREN, sizeof *r->root->children));
    return r;
}

/* A phase of `count` entries taking `total` ns in all; p50 is the mean and
 * p99 twice the mean, self time is what its children leave. */
static run_phase *add_phase(run_role *r, run_phase *parent, const char *name, uint64_t total,
                            uint64_t count) {
    parent = parent ? parent : r->root;
    ck_assert_uint_lt(parent->nchildren, MAX_CHILDREN);
    run_phase *p = keep(calloc(1, sizeof *p));
    p->children = keep(calloc(MAX_CHILDREN, sizeof *p->children));
    p->name = str(name);
    p->parent = parent;
    p->depth = parent->depth + 1;
    p->dist.count = count;
    p->dist.total_ns = total;
    p->dist.mean_ns = count ? (double)total / (double)count : NAN;
    p->dist.p50_ns = p->dist.mean_ns;
    p->dist.p99_ns = 2 * p->dist.mean_ns;
    p->self_ns = total;
    p->wait = NAN;
    if (parent == r->root)
        r->phase_ns += total;
    else
        parent->self_ns = parent->self_ns > total ? parent->self_ns - total : 0;
    parent->children[parent->nchildren++] = p;
    r->nphases++;
    return p;
}

static void add_counter(run_phase *p, const char *name, int64_t total, double rate) {
    if (!p->counters)
        p->counters = keep(calloc(4, sizeof *p->counters));
    ck_assert_uint_lt(p->ncounters, 4);
    p->counters[p->ncounters++] =
        (run_counter){.name = str(name), .calls = 1, .total = total, .rate_per_s = rate};
}

/* Shares of the role's phase time, as the loader computes them. */
static void set_shares(run_role *r, run_phase *p) {
    for (size_t i = 0; i < p->nchildren; i++) {
        p->children[i]->share = (double)p->children[i]->dist.total_ns / (double)r->phase_ns;
        set_shares(r, p->children[i]);
    }
}

static void finish(fixture *f) {
    for (size_t i = 0; i < f->m.nroles; i++)
        set_shares(&f->roles[i], f->roles[i].root);
}

static const run_cmp_phase *row(const run_cmp_role *r, const char *path) {
    for (size_t i = 0; i < r->nphases; i++)
        if (!strcmp(r->phases[i].path, path))
            return &r->phases[i];
    ck_abort_msg("no row %s", path);
    return NULL;
}

static void teardown(void) {
    free_kept();
}

/* ---- figures ------------------------------------------------------------- */

START_TEST(figure_math) {
    run_cmp_fig f = run_cmp_figure(100, 150);
    ck_assert_double_eq(f.delta, 50);
    ck_assert_double_eq(f.change, 0.5);
    f = run_cmp_figure(100, 25);
    ck_assert_double_eq(f.change, -0.75);
    f = run_cmp_figure(0, 0);
    ck_assert_double_eq(f.delta, 0);
    ck_assert_double_eq(f.change, 0);
    f = run_cmp_figure(0, 7);
    ck_assert(isinf(f.change) && f.change > 0);
    f = run_cmp_figure(0, -7);
    ck_assert(isinf(f.change) && f.change < 0);
    /* A negative base (a counter counting down): the sign says which way. */
    f = run_cmp_figure(-10, -5);
    ck_assert_double_eq(f.change, 0.5);
    /* Missing on either side: no change can be stated. */
    f = run_cmp_figure(NAN, 5);
    ck_assert(isnan(f.delta) && isnan(f.change));
    ck_assert_double_eq(f.b, 5);
    f = run_cmp_figure(5, NAN);
    ck_assert(isnan(f.delta) && isnan(f.change));
}
END_TEST

/* ---- matching and order -------------------------------------------------- */

START_TEST(same_run_changes_nothing) {
    fixture a;
    init(&a, "a");
    run_role *r = add_role(&a, "worker");
    run_phase *it = add_phase(r, NULL, "iteration", 1000, 10);
    add_phase(r, it, "train", 600, 10);
    add_counter(add_phase(r, it, "eval", 300, 10), "items", 40, 133.3);
    finish(&a);
    run_cmp *c = run_compare(&a.m, &a.m);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(c->nroles, 1);
    ck_assert_uint_eq(c->roles[0].nphases, 3);
    for (size_t i = 0; i < 3; i++) {
        const run_cmp_phase *p = &c->roles[0].phases[i];
        ck_assert_int_eq(p->side, RUN_CMP_BOTH);
        ck_assert_double_eq(p->impact_ns, 0);
        ck_assert_double_eq(p->fig[PF_TOTAL].change, 0);
        ck_assert_double_eq(p->fig[PF_SELF].change, 0);
        ck_assert_double_eq(p->fig[PF_P99].change, 0);
        ck_assert_double_eq(p->fig[PF_COUNT].change, 0);
        ck_assert_double_eq(p->fig[PF_SHARE].delta, 0);
    }
    /* No change anywhere: the biggest phases first. */
    ck_assert_str_eq(c->roles[0].phases[0].path, "iteration");
    ck_assert_str_eq(c->roles[0].phases[1].path, "iteration/train");
    ck_assert_str_eq(c->roles[0].phases[2].path, "iteration/eval");
    const run_cmp_phase *eval = row(&c->roles[0], "iteration/eval");
    ck_assert_uint_eq(eval->ncounters, 1);
    ck_assert_double_eq(eval->counters[0].rate_per_s.change, 0);
    run_cmp_free(c);
}
END_TEST

START_TEST(rows_sorted_by_impact) {
    fixture a, b;
    init(&a, "a");
    init(&b, "b");
    run_role *ra = add_role(&a, "worker"), *rb = add_role(&b, "worker");
    add_phase(ra, NULL, "big_same", 1000, 10);
    add_phase(ra, NULL, "grew", 100, 10);
    add_phase(ra, NULL, "shrank", 300, 10);
    add_phase(ra, NULL, "tie_small", 50, 5);
    add_phase(rb, NULL, "tie_small", 60, 5);
    add_phase(rb, NULL, "shrank", 250, 10);
    add_phase(rb, NULL, "big_same", 1000, 10);
    add_phase(rb, NULL, "grew", 400, 20);
    finish(&a);
    finish(&b);
    run_cmp *c = run_compare(&a.m, &b.m);
    const run_cmp_role *r = &c->roles[0];
    ck_assert_uint_eq(r->nphases, 4);
    /* |change| 300, 50, 10, 0. */
    ck_assert_str_eq(r->phases[0].path, "grew");
    ck_assert_str_eq(r->phases[1].path, "shrank");
    ck_assert_str_eq(r->phases[2].path, "tie_small");
    ck_assert_str_eq(r->phases[3].path, "big_same");
    const run_cmp_phase *g = &r->phases[0];
    ck_assert_double_eq(g->impact_ns, 300);
    ck_assert_double_eq(g->fig[PF_TOTAL].delta, 300);
    ck_assert_double_eq(g->fig[PF_TOTAL].change, 3.0);
    ck_assert_double_eq(g->fig[PF_COUNT].change, 1.0);
    ck_assert_double_eq(g->fig[PF_MEAN].a, 10);
    ck_assert_double_eq(g->fig[PF_MEAN].b, 20);
    ck_assert_double_eq(g->fig[PF_MEAN].change, 1.0);
    ck_assert_double_eq(g->fig[PF_P99].change, 1.0);
    ck_assert_double_eq(g->fig[PF_SHARE].a, 100.0 / 1450);
    ck_assert_double_eq(g->fig[PF_SHARE].b, 400.0 / 1710);
    const run_cmp_phase *s = &r->phases[1];
    ck_assert_double_eq(s->impact_ns, 50);
    ck_assert_double_eq(s->fig[PF_TOTAL].delta, -50);
    ck_assert_double_eq(s->fig[PF_TOTAL].change, -50.0 / 300);
    ck_assert_double_eq(r->phase_ns.delta, 260);
    run_cmp_free(c);
}
END_TEST

START_TEST(ties_go_to_the_larger_phase_then_the_path) {
    fixture a;
    init(&a, "a");
    run_role *r = add_role(&a, "worker");
    add_phase(r, NULL, "b_small", 10, 1);
    add_phase(r, NULL, "z_large", 500, 1);
    add_phase(r, NULL, "a_small", 10, 1);
    finish(&a);
    run_cmp *c = run_compare(&a.m, &a.m);
    ck_assert_str_eq(c->roles[0].phases[0].path, "z_large");
    ck_assert_str_eq(c->roles[0].phases[1].path, "a_small");
    ck_assert_str_eq(c->roles[0].phases[2].path, "b_small");
    run_cmp_free(c);
}
END_TEST

START_TEST(phases_match_by_path_not_by_name) {
    fixture a, b;
    init(&a, "a");
    init(&b, "b");
    run_role *ra = add_role(&a, "learner"), *rb = add_role(&b, "learner");
    add_phase(ra, add_phase(ra, NULL, "iteration", 100, 1), "train", 80, 1);
    run_phase *other = add_phase(rb, NULL, "epoch", 100, 1);
    add_phase(rb, other, "train", 80, 1);
    finish(&a);
    finish(&b);
    run_cmp *c = run_compare(&a.m, &b.m);
    const run_cmp_role *r = &c->roles[0];
    ck_assert_uint_eq(r->nphases, 4);
    ck_assert_int_eq(row(r, "iteration/train")->side, RUN_CMP_ONLY_A);
    ck_assert_int_eq(row(r, "epoch/train")->side, RUN_CMP_ONLY_B);
    ck_assert_int_eq(row(r, "iteration")->side, RUN_CMP_ONLY_A);
    run_cmp_free(c);
}
END_TEST

START_TEST(one_sided_phases_and_counters) {
    fixture a, b;
    init(&a, "a");
    init(&b, "b");
    run_role *ra = add_role(&a, "worker"), *rb = add_role(&b, "worker");
    run_phase *ka = add_phase(ra, NULL, "kept", 100, 10);
    add_counter(ka, "items", 50, 500e6);
    add_counter(ka, "old_counter", 5, 50e6);
    add_phase(ra, NULL, "gone", 40, 4);
    run_phase *kb = add_phase(rb, NULL, "kept", 200, 10);
    add_counter(kb, "items", 50, 250e6);
    add_counter(kb, "new_counter", 1, NAN);
    run_phase *fresh = add_phase(rb, NULL, "fresh", 70, 7);
    add_phase(rb, fresh, "inner", 30, 7);
    finish(&a);
    finish(&b);
    run_cmp *c = run_compare(&a.m, &b.m);
    const run_cmp_role *r = &c->roles[0];
    ck_assert_uint_eq(r->nphases, 4);

    /* Impact counts the missing side as 0: kept 100, fresh 70, gone 40,
     * fresh/inner 30. */
    ck_assert_str_eq(r->phases[0].path, "kept");
    ck_assert_str_eq(r->phases[1].path, "fresh");
    ck_assert_str_eq(r->phases[2].path, "gone");
    ck_assert_str_eq(r->phases[3].path, "fresh/inner");

    const run_cmp_phase *gone = row(r, "gone");
    ck_assert_int_eq(gone->side, RUN_CMP_ONLY_A);
    ck_assert_ptr_null(gone->b);
    ck_assert_double_eq(gone->fig[PF_TOTAL].a, 40);
    ck_assert(isnan(gone->fig[PF_TOTAL].b) && isnan(gone->fig[PF_TOTAL].change));
    ck_assert(isnan(gone->fig[PF_SHARE].b) && isnan(gone->fig[PF_COUNT].delta));
    ck_assert_double_eq(gone->impact_ns, 40);

    const run_cmp_phase *inner = row(r, "fresh/inner");
    ck_assert_int_eq(inner->side, RUN_CMP_ONLY_B);
    ck_assert_uint_eq(inner->depth, 2);
    ck_assert(isnan(inner->fig[PF_SELF].a) && isnan(inner->fig[PF_SELF].change));

    const run_cmp_phase *kept = row(r, "kept");
    ck_assert_uint_eq(kept->ncounters, 3); /* by name */
    const run_cmp_counter *k = kept->counters;
    ck_assert_str_eq(k[0].name.s, "items");
    ck_assert_int_eq(k[0].side, RUN_CMP_BOTH);
    ck_assert_double_eq(k[0].rate_per_s.change, -0.5);
    ck_assert_double_eq(k[0].total.change, 0);
    ck_assert_str_eq(k[1].name.s, "new_counter");
    ck_assert_int_eq(k[1].side, RUN_CMP_ONLY_B);
    ck_assert(isnan(k[1].rate_per_s.a) && isnan(k[1].rate_per_s.b));
    ck_assert_double_eq(k[1].total.b, 1);
    ck_assert_str_eq(k[2].name.s, "old_counter");
    ck_assert_int_eq(k[2].side, RUN_CMP_ONLY_A);
    ck_assert(isnan(k[2].rate_per_s.change));
    run_cmp_free(c);
}
END_TEST

START_TEST(roles_match_by_name_and_sort_by_impact) {
    fixture a, b;
    init(&a, "a");
    init(&b, "b");
    add_phase(add_role(&a, "actor"), NULL, "step", 1000, 10);
    add_phase(add_role(&a, "retired"), NULL, "step", 50, 1);
    add_phase(add_role(&b, "newcomer"), NULL, "step", 80, 1);
    add_phase(add_role(&b, "actor"), NULL, "step", 1010, 10);
    finish(&a);
    finish(&b);
    run_cmp *c = run_compare(&a.m, &b.m);
    ck_assert_uint_eq(c->nroles, 3);
    ck_assert_str_eq(c->roles[0].name.s, "newcomer"); /* 80 */
    ck_assert_int_eq(c->roles[0].side, RUN_CMP_ONLY_B);
    ck_assert_ptr_null(c->roles[0].a);
    ck_assert_int_eq(c->roles[0].phases[0].side, RUN_CMP_ONLY_B);
    ck_assert_str_eq(c->roles[1].name.s, "retired"); /* 50 */
    ck_assert_int_eq(c->roles[1].side, RUN_CMP_ONLY_A);
    ck_assert(isnan(c->roles[1].nprocs.b));
    ck_assert_str_eq(c->roles[2].name.s, "actor"); /* 10 */
    ck_assert_double_eq(c->roles[2].phase_ns.change, 0.01);
    run_cmp_free(c);
}
END_TEST

START_TEST(names_are_bytes) {
    fixture a, b;
    init(&a, "a");
    init(&b, "b");
    run_role *ra = add_role(&a, "w"), *rb = add_role(&b, "w");
    add_phase(ra, NULL, "caf\xc3\xa9", 10, 1);
    add_phase(rb, NULL, "cafe", 10, 1);
    add_phase(ra, NULL, "esc\x1b[2J", 5, 1);
    add_phase(rb, NULL, "esc\x1b[2J", 5, 1);
    finish(&a);
    finish(&b);
    run_cmp *c = run_compare(&a.m, &b.m);
    const run_cmp_role *r = &c->roles[0];
    ck_assert_uint_eq(r->nphases, 3);
    ck_assert_int_eq(row(r, "caf\xc3\xa9")->side, RUN_CMP_ONLY_A);
    ck_assert_int_eq(row(r, "cafe")->side, RUN_CMP_ONLY_B);
    /* Matched on the raw bytes; the path is the escaped, printable form. */
    ck_assert_int_eq(row(r, "esc\\x1b[2J")->side, RUN_CMP_BOTH);
    run_cmp_free(c);
}
END_TEST

/* ---- check verdicts ------------------------------------------------------ */

/* base: iteration 1000 ns (10 entries) { train 600, eval 390, tiny 5 };
 * candidate: train twice as slow per entry, eval gone, log new. */
static run_cmp *check_pair(fixture *a, fixture *b) {
    init(a, "base");
    init(b, "cand");
    run_role *ra = add_role(a, "learner"), *rb = add_role(b, "learner");
    run_phase *ia = add_phase(ra, NULL, "iteration", 1000, 10);
    add_phase(ra, ia, "train", 600, 10);
    add_phase(ra, ia, "eval", 390, 10);
    add_phase(ra, ia, "tiny", 5, 10); /* 0.5% of the role: not watched by default */
    run_phase *ib = add_phase(rb, NULL, "iteration", 1600, 10);
    add_phase(rb, ib, "train", 1200, 10);
    add_phase(rb, ib, "tiny", 50, 10);
    add_phase(rb, ib, "log", 300, 10);
    finish(a);
    finish(b);
    run_cmp *c = run_compare(&a->m, &b->m);
    ck_assert_ptr_nonnull(c);
    return c;
}

static const run_check_row *verdict(const run_check *k, const char *path) {
    for (size_t i = 0; i < k->nrows; i++)
        if (!strcmp(k->rows[i].phase->path, path))
            return &k->rows[i];
    return NULL;
}

START_TEST(check_default_watch_and_threshold) {
    fixture a, b;
    run_cmp *c = check_pair(&a, &b);
    run_check_opts o = {.max_regression = 0.10, .metric = PF_MEAN, .min_share = 0.01};
    run_check *k = NULL;
    char msg[256];
    ck_assert_int_eq(run_check_judge(c, &o, &k, msg, sizeof msg), RUN_CHECK_DONE);
    ck_assert_uint_eq(k->nrows, 3); /* iteration, train, eval; not tiny (0.5%) nor log */
    ck_assert_ptr_null(verdict(k, "iteration/tiny"));
    ck_assert_ptr_null(verdict(k, "iteration/log"));
    ck_assert_int_eq(verdict(k, "iteration/train")->verdict, RUN_CHECK_REGRESSED);
    ck_assert_double_eq(verdict(k, "iteration/train")->fig->change, 1.0);
    ck_assert_int_eq(verdict(k, "iteration")->verdict, RUN_CHECK_REGRESSED);
    /* Gone but not asked for by name: a note, not a failure. */
    const run_check_row *eval = verdict(k, "iteration/eval");
    ck_assert_int_eq(eval->verdict, RUN_CHECK_GONE);
    ck_assert_int_eq(eval->failed, 0);
    ck_assert_uint_eq(k->nfailed, 2);
    run_check_free(k);

    /* A looser threshold lets +60% through and stops +100%. */
    o.max_regression = 0.8;
    ck_assert_int_eq(run_check_judge(c, &o, &k, msg, sizeof msg), RUN_CHECK_DONE);
    ck_assert_int_eq(verdict(k, "iteration")->verdict, RUN_CHECK_OK);
    ck_assert_int_eq(verdict(k, "iteration/train")->verdict, RUN_CHECK_REGRESSED);
    ck_assert_uint_eq(k->nfailed, 1);
    run_check_free(k);
    run_cmp_free(c);
}
END_TEST

START_TEST(check_named_phases) {
    fixture a, b;
    run_cmp *c = check_pair(&a, &b);
    run_check *k = NULL;
    char msg[256];
    const char *bare[] = {"tiny"};
    run_check_opts o = {.max_regression = 0.10, .phases = bare, .nphases = 1};
    ck_assert_int_eq(run_check_judge(c, &o, &k, msg, sizeof msg), RUN_CHECK_DONE);
    ck_assert_uint_eq(k->nrows, 1); /* named, so watched whatever its share */
    ck_assert_int_eq(k->rows[0].verdict, RUN_CHECK_REGRESSED);
    run_check_free(k);

    /* Named and gone: a failure.  Named and new: nothing to compare. */
    const char *named[] = {"iteration/eval", "log"};
    o.phases = named, o.nphases = 2;
    ck_assert_int_eq(run_check_judge(c, &o, &k, msg, sizeof msg), RUN_CHECK_DONE);
    ck_assert_uint_eq(k->nrows, 2);
    ck_assert_int_eq(verdict(k, "iteration/eval")->verdict, RUN_CHECK_GONE);
    ck_assert_int_eq(verdict(k, "iteration/eval")->failed, 1);
    ck_assert_int_eq(verdict(k, "iteration/log")->verdict, RUN_CHECK_NEW);
    ck_assert_uint_eq(k->nfailed, 1);
    run_check_free(k);

    /* A path that is in neither run, or a bare name given as a path. */
    const char *missing[] = {"train/iteration"};
    o.phases = missing, o.nphases = 1;
    ck_assert_int_eq(run_check_judge(c, &o, &k, msg, sizeof msg), RUN_CHECK_NO_PHASE);
    ck_assert_ptr_null(k);
    ck_assert_ptr_nonnull(strstr(msg, "train/iteration"));
    run_cmp_free(c);
}
END_TEST

START_TEST(check_roles_and_metrics) {
    fixture a, b;
    run_cmp *c = check_pair(&a, &b);
    run_check *k = NULL;
    char msg[256];
    run_check_opts o = {.max_regression = 0.10, .min_share = 0.01, .role = "actor"};
    ck_assert_int_eq(run_check_judge(c, &o, &k, msg, sizeof msg), RUN_CHECK_NO_ROLE);
    ck_assert_ptr_nonnull(strstr(msg, "actor"));
    o.role = "learner";
    o.metric = PF_TOTAL;
    ck_assert_int_eq(run_check_judge(c, &o, &k, msg, sizeof msg), RUN_CHECK_DONE);
    ck_assert_double_eq(verdict(k, "iteration")->fig->change, 0.6);
    run_check_free(k);

    /* A p99 that was not recorded is not judged either way. */
    run_phase *train = a.roles[0].root->children[0]->children[0];
    train->dist.p99_ns = NAN;
    run_cmp_free(c);
    c = run_compare(&a.m, &b.m);
    o.metric = PF_P99;
    ck_assert_int_eq(run_check_judge(c, &o, &k, msg, sizeof msg), RUN_CHECK_DONE);
    ck_assert_int_eq(verdict(k, "iteration/train")->verdict, RUN_CHECK_UNMEASURED);
    ck_assert_int_eq(verdict(k, "iteration/train")->failed, 0);
    run_check_free(k);
    run_cmp_free(c);

    run_check_metric m;
    ck_assert_int_eq(run_check_metric_parse("p50", &m), 0);
    ck_assert_int_eq(m, PF_P50);
    ck_assert_int_eq(run_check_metric_parse("median", &m), -1);
}
END_TEST

int main(void) {
    Suite *s = suite_create("run_compare");
    TCase *tc = tcase_create("compare");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, figure_math);
    tcase_add_test(tc, same_run_changes_nothing);
    tcase_add_test(tc, rows_sorted_by_impact);
    tcase_add_test(tc, ties_go_to_the_larger_phase_then_the_path);
    tcase_add_test(tc, phases_match_by_path_not_by_name);
    tcase_add_test(tc, one_sided_phases_and_counters);
    tcase_add_test(tc, roles_match_by_name_and_sort_by_impact);
    tcase_add_test(tc, names_are_bytes);
    suite_add_tcase(s, tc);
    TCase *tk = tcase_create("check");
    tcase_add_checked_fixture(tk, NULL, teardown);
    tcase_add_test(tk, check_default_watch_and_threshold);
    tcase_add_test(tk, check_named_phases);
    tcase_add_test(tk, check_roles_and_metrics);
    suite_add_tcase(s, tk);
    return unit_run(s);
}
