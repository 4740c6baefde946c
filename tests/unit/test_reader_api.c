/* libscope-reader.so.1's API (scope/reader.h) as a C program sees it: the
 * phases table has a column for every figure of the figure table, of its
 * unit and type, and each row's values are the model's; tables outlive
 * their run; errors are a status and one line naming the path, and NULL
 * arguments answer SCOPE_READER_INVALID; the symbols carry SCOPE_READER_1.
 * The figures against report --json and lines --json: tests/python. */
#define _GNU_SOURCE
#include "phase_figures.h"
#include "run_compare.h"
#include "unit_util.h"

#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <scope/reader.h>
#include <stdlib.h>
#include <string.h>

static const char *fixtures; /* tests/fixtures/compare-runs */
static const char *library;  /* libscope-reader.so.1 */

static scope_run *open_fixture(const char *name) {
    char dir[4096], msg[512] = "";
    snprintf(dir, sizeof dir, "%s/%s", fixtures, name);
    scope_run *run = NULL;
    int rc = scope_reader_open(dir, 0, 0, &run, msg, sizeof msg);
    ck_assert_msg(rc == SCOPE_READER_OK, "%s: %s", dir, msg);
    ck_assert_ptr_nonnull(run);
    return run;
}

static run_model *load_fixture(const char *name) {
    char dir[4096], msg[512];
    snprintf(dir, sizeof dir, "%s/%s", fixtures, name);
    run_model *m = NULL;
    run_options opt = {.threads = 1};
    ck_assert_msg(run_load(dir, &opt, &m, msg, sizeof msg) == RUN_OK, "%s", msg);
    return m;
}

static const scope_column *column(const scope_table *t, const char *name) {
    for (size_t i = 0; i < scope_table_columns(t); i++)
        if (!strcmp(scope_table_column(t, i)->name, name))
            return scope_table_column(t, i);
    return NULL;
}

static scope_table *table(scope_run *run, int which) {
    scope_table *t = NULL;
    char msg[512] = "";
    int rc = scope_run_table(run, which, &t, msg, sizeof msg);
    ck_assert_msg(rc == SCOPE_READER_OK, "table %d: %s", which, msg);
    return t;
}

static void collect(const run_phase *p, const run_phase **out, size_t *n) {
    out[(*n)++] = p;
    for (size_t i = 0; i < p->nchildren; i++)
        collect(p->children[i], out, n);
}

/* Every figure with a report --json key is a column of its unit and type,
 * and each row holds the model's value of that figure. */
START_TEST(phases_have_every_figure) {
    scope_run *run = open_fixture("base");
    scope_table *t = table(run, SCOPE_TABLE_PHASES);
    scope_reader_close(run); /* the table is its own */
    run_model *m = load_fixture("base");
    const run_phase *rows[4096];
    size_t n = 0;
    for (size_t r = 0; r < m->nroles; r++)
        for (size_t i = 0; i < m->roles[r].root->nchildren; i++)
            collect(m->roles[r].root->children[i], rows, &n);
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_eq(scope_table_rows(t), n);
    enum phase_fig ids[PF_N];
    size_t nfig = phase_figures_in(PF_OUT_JSON, ids);
    ck_assert_uint_gt(nfig, 5);
    for (size_t k = 0; k < nfig; k++) {
        const phase_figure *pf = &phase_figures[ids[k]];
        const scope_column *c = column(t, pf->json);
        ck_assert_msg(c, "no column %s", pf->json);
        const char *unit = pf->unit == PF_UNIT_NS         ? "ns"
                           : pf->unit == PF_UNIT_FRACTION ? "fraction"
                                                          : "count";
        ck_assert_str_eq(c->unit, unit);
        ck_assert_int_eq(c->type, pf->type == PF_F64 ? SCOPE_COL_F64 : SCOPE_COL_U64);
        for (size_t i = 0; i < n; i++) {
            pf_value v = phase_fig_get(rows[i], ids[k]);
            if (c->valid && !c->valid[i] && c->type == SCOPE_COL_F64) {
                /* a float not measured: NAN, as the model has it */
                ck_assert_msg(isnan(((const double *)c->values)[i]), "%s row %zu", pf->json, i);
                ck_assert_msg(isnan(v.d), "%s row %zu: missing, the model has %g", pf->json, i,
                              v.d);
            } else if (c->valid && !c->valid[i]) {
                ck_assert_msg(pf->flags & PF_NULL_IF_NONE, "%s missing", pf->json);
                ck_assert_uint_eq(rows[i]->dist.count, 0);
            } else if (c->type == SCOPE_COL_F64) {
                double d = ((const double *)c->values)[i];
                ck_assert_msg((isnan(d) && isnan(v.d)) || d == v.d, "%s row %zu: %g, not %g",
                              pf->json, i, d, v.d);
            } else {
                ck_assert_uint_eq(((const uint64_t *)c->values)[i], v.u);
            }
        }
    }
    const scope_column *path = column(t, "path");
    ck_assert_int_eq(path->type, SCOPE_COL_STR);
    char buf[4096];
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(((const char *const *)path->values)[i],
                         run_phase_path(rows[i], buf, sizeof buf));
    ck_assert_ptr_null(scope_table_column(t, scope_table_columns(t)));
    run_free(m);
    scope_table_free(t);
}
END_TEST

/* compare: a row per role, phase and figure of compare --json. */
START_TEST(compare_is_long_form) {
    scope_run *a = open_fixture("base"), *b = open_fixture("slow");
    scope_table *t = NULL;
    char msg[256];
    ck_assert_int_eq(scope_run_compare(a, b, &t, msg, sizeof msg), SCOPE_READER_OK);
    run_model *ma = load_fixture("base"), *mb = load_fixture("slow");
    run_cmp *c = run_compare(ma, mb);
    enum phase_fig ids[PF_N];
    size_t nfig = phase_figures_in(PF_OUT_COMPARE_JSON, ids), want = 0;
    for (size_t r = 0; r < c->nroles; r++)
        want += c->roles[r].nphases * nfig;
    ck_assert_uint_gt(want, 0);
    ck_assert_uint_eq(scope_table_rows(t), want);
    const scope_column *fig = column(t, "figure"), *va = column(t, "a");
    ck_assert_str_eq(((const char *const *)fig->values)[0], phase_figures[ids[0]].json);
    ck_assert_double_eq(((const double *)va->values)[0], c->roles[0].phases[0].fig[ids[0]].a);
    run_cmp_free(c);
    run_free(ma);
    run_free(mb);
    scope_table_free(t);
    scope_reader_close(a);
    scope_reader_close(b);
}
END_TEST

/* reader.h: a float cell not measured is NAN, and missing in valid as any
 * other column's, in the library's own tables (not only as Python shows
 * them).  The fixture's logs read no run delay: each phase's queued, and
 * the bounds of its wait, are not measured (the model's NAN). */
START_TEST(floats_not_measured_are_nan) {
    scope_run *run = open_fixture("base");
    size_t nan_cells = 0;
    for (int which = SCOPE_TABLE_PHASES; which <= SCOPE_TABLE_CAVEATS; which++) {
        scope_table *t = NULL;
        if (scope_run_table(run, which, &t, NULL, 0) != SCOPE_READER_OK)
            continue; /* the fixture samples no lines */
        for (size_t k = 0; k < scope_table_columns(t); k++) {
            const scope_column *c = scope_table_column(t, k);
            if (c->type != SCOPE_COL_F64)
                continue;
            for (size_t i = 0; i < scope_table_rows(t); i++) {
                double v = ((const double *)c->values)[i];
                int missing = c->valid && !c->valid[i];
                ck_assert_msg(missing == !!isnan(v), "table %d %s row %zu: %g, %s", which, c->name,
                              i, v, missing ? "missing" : "valid");
                nan_cells += missing;
            }
        }
        scope_table_free(t);
    }
    ck_assert_uint_gt(nan_cells, 0);
    scope_reader_close(run);
}
END_TEST

/* Every table builds; the run's info is the model's. */
START_TEST(every_table_builds) {
    scope_run *run = open_fixture("base");
    const scope_run_info *info = scope_run_info_get(run);
    ck_assert_uint_gt(info->processes, 0);
    ck_assert_ptr_nonnull(info->run_id);
    ck_assert_ptr_null(info->source);
    for (int which = SCOPE_TABLE_PHASES; which <= SCOPE_TABLE_CAVEATS; which++) {
        scope_table *t = NULL;
        char msg[256] = "";
        int rc = scope_run_table(run, which, &t, msg, sizeof msg);
        if (which == SCOPE_TABLE_LINES) { /* the fixture samples no lines */
            ck_assert_int_eq(rc, SCOPE_READER_NO_LINES);
            ck_assert_ptr_nonnull(strstr(msg, "no line samples"));
            ck_assert_ptr_null(t);
            continue;
        }
        ck_assert_msg(rc == SCOPE_READER_OK, "table %d: %s", which, msg);
        ck_assert_uint_gt(scope_table_columns(t), 0);
        scope_table_free(t);
    }
    scope_table *t = table(run, SCOPE_TABLE_PROCESSES);
    ck_assert_uint_eq(scope_table_rows(t), info->processes);
    scope_table_free(t);
    scope_reader_close(run);
}
END_TEST

START_TEST(errors_are_codes_and_lines) {
    char msg[512] = "";
    scope_run *run = (scope_run *)1;
    ck_assert_int_eq(scope_reader_open("/nonexistent/run-x", 0, 0, &run, msg, sizeof msg),
                     SCOPE_READER_NOT_FOUND);
    ck_assert_ptr_null(run);
    ck_assert_ptr_nonnull(strstr(msg, "/nonexistent/run-x"));
    ck_assert_str_eq(scope_reader_status_name(SCOPE_READER_NOT_FOUND), "not found");
    ck_assert_str_eq(scope_reader_status_name(999), "unknown status");
    ck_assert_int_eq(scope_reader_open(NULL, 0, 0, &run, msg, sizeof msg), SCOPE_READER_INVALID);
    ck_assert_int_eq(scope_reader_open("x", 0, 0, NULL, NULL, 0), SCOPE_READER_INVALID);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/base", fixtures);
    ck_assert_int_eq(scope_reader_open(dir, 99, 0, &run, msg, sizeof msg), SCOPE_READER_NO_ATTEMPT);
    ck_assert_int_eq(scope_reader_open(dir, 0, SCOPE_OPEN_NO_SAMPLES, &run, NULL, 0),
                     SCOPE_READER_OK);
    scope_table *t = (scope_table *)1;
    ck_assert_int_eq(scope_run_table(run, SCOPE_TABLE_SAMPLES, &t, msg, sizeof msg),
                     SCOPE_READER_NO_SAMPLES);
    ck_assert_ptr_null(t);
    ck_assert_int_eq(scope_run_table(run, 42, &t, msg, sizeof msg), SCOPE_READER_INVALID);
    ck_assert_int_eq(scope_run_table(NULL, 0, &t, msg, sizeof msg), SCOPE_READER_INVALID);
    ck_assert_int_eq(scope_run_compare(run, NULL, &t, msg, sizeof msg), SCOPE_READER_INVALID);
    ck_assert_uint_eq(scope_table_rows(NULL), 0);
    scope_table_free(NULL);
    scope_reader_close(run);
    scope_reader_close(NULL);
}
END_TEST

/* The library exports the API under SCOPE_READER_1 and nothing of the model. */
START_TEST(symbols_are_versioned) {
    void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h, "%s", dlerror());
    ck_assert_ptr_nonnull(dlvsym(h, "scope_reader_open", "SCOPE_READER_1"));
    ck_assert_ptr_nonnull(dlvsym(h, "scope_table_column", "SCOPE_READER_1"));
    ck_assert_ptr_null(dlsym(h, "run_load"));
    ck_assert_ptr_null(dlsym(h, "phase_figures"));
    int (*abi)(void) = (int (*)(void))dlsym(h, "scope_reader_abi");
    ck_assert_int_eq(abi(), SCOPE_READER_ABI);
    dlclose(h);
}
END_TEST

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s FIXTURES_DIR LIBSCOPE_READER\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    library = argv[2];
    Suite *s = suite_create("reader_api");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, phases_have_every_figure);
    tcase_add_test(tc, compare_is_long_form);
    tcase_add_test(tc, every_table_builds);
    tcase_add_test(tc, floats_not_measured_are_nan);
    tcase_add_test(tc, errors_are_codes_and_lines);
    tcase_add_test(tc, symbols_are_versioned);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
