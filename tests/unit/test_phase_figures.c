/* The table of phase figures (phase_figures.h) against every output that
 * walks it: each figure with a place in an output is in that output, under
 * its spelling, with its value, for the runs of tests/fixtures/compare-runs.
 * A row added to the table without its parts (a place with no key, a
 * column with no heading) fails here, as does an output that stops walking
 * the table. */
#include "compare_json.h"
#include "compare_text.h"
#include "export_formats.h"
#include "phase_columns.h"
#include "phase_figures.h"
#include "report_json.h"
#include "report_text.h"
#include "run_check.h"
#include "run_compare.h"
#include "run_h5_layout.h"
#include "unit_util.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <h5_table.h>
#include <math.h>

static const char *fixtures; /* tests/fixtures/compare-runs */

/* ---- helpers -------------------------------------------------------------- */

static run_model *load(const char *name) {
    char dir[4096], msg[512];
    snprintf(dir, sizeof dir, "%s/%s", fixtures, name);
    run_model *m = NULL;
    run_options opt = {.threads = 1};
    ck_assert_msg(run_load(dir, &opt, &m, msg, sizeof msg) == RUN_OK, "%s", msg);
    ck_assert_uint_gt(m->nroles, 0);
    ck_assert_uint_gt(m->roles[0].root->nchildren, 0);
    return m;
}

/* base compared with slow: the runs and their comparison, freed together. */
typedef struct compared {
    run_model *a, *b;
    run_cmp *c;
} compared;

static compared compare_fixtures(void) {
    compared k = {load("base"), load("slow"), NULL};
    k.c = run_compare(k.a, k.b);
    ck_assert_ptr_nonnull(k.c);
    return k;
}

static void compared_free(compared *k) {
    run_cmp_free(k->c);
    run_free(k->a);
    run_free(k->b);
}

/* What an output printed, NUL-terminated; free() it. */
typedef struct printed {
    char *text;
    size_t len;
    FILE *f;
} printed;

static FILE *print_begin(printed *p) {
    p->f = open_memstream(&p->text, &p->len);
    ck_assert_ptr_nonnull(p->f);
    return p->f;
}

static char *print_end(printed *p) {
    ck_assert_int_eq(fclose(p->f), 0);
    return p->text;
}

/* The line of text that starts with `start` (after blanks), or NULL. */
static const char *line_starting(const char *text, const char *start, char *buf, size_t cap) {
    for (const char *s = text; s && *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        const char *b = s;
        while (b < s + n && *b == ' ')
            b++;
        if (!strncmp(b, start, strlen(start))) {
            snprintf(buf, cap, "%.*s", (int)n, s);
            return buf;
        }
        s = nl ? nl + 1 : NULL;
    }
    return NULL;
}

/* The words of a table heading line, in order: each figure's heading must
 * be one of them, in the table's order. */
static void assert_heading_in_order(const char *line, const char *const *want, size_t n) {
    const char *at = line;
    for (size_t i = 0; i < n; i++) {
        const char *hit = strstr(at, want[i]);
        ck_assert_msg(hit, "heading '%s' missing or out of order in: %s", want[i], line);
        at = hit + strlen(want[i]);
    }
}

static void assert_value(const cJSON *o, const char *key, double want, const char *what) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    ck_assert_msg(v, "%s: no key '%s'", what, key);
    if (isnan(want))
        ck_assert_msg(cJSON_IsNull(v), "%s: '%s' is not null", what, key);
    else
        ck_assert_msg(cJSON_IsNumber(v) && fabs(v->valuedouble - want) <= 1e-9 * fabs(want),
                      "%s: '%s' is not %g", what, key, want);
}

/* ---- the table itself ------------------------------------------------------ */

/* Every row complete: a name; in some output; the parts each of its places
 * needs; places distinct within an output; the columns first. */
START_TEST(rows_are_whole) {
    for (int f = 0; f < PF_N; f++) {
        const phase_figure *pf = &phase_figures[f];
        ck_assert_msg(pf->name && *pf->name, "figure %d has no row", f);
        int outputs = f < PF_NCOLUMNS;
        for (int o = 0; o < PF_OUTPUTS; o++)
            outputs += pf->at[o] != 0;
        ck_assert_msg(outputs, "%s is in no output", pf->name);
        ck_assert_msg((f < PF_NCOLUMNS) == (pf->column.heading != NULL),
                      "%s: the columns are the first PF_NCOLUMNS figures, each with a heading",
                      pf->name);
        if (pf->at[PF_OUT_JSON] || pf->at[PF_OUT_COMPARE_JSON])
            ck_assert_msg(pf->json, "%s has a JSON place but no key", pf->name);
        if (pf->at[PF_OUT_H5])
            ck_assert_msg(pf->h5, "%s has an HDF5 place but no column", pf->name);
        if (pf->at[PF_OUT_COMPARE])
            ck_assert_msg(pf->cmp.heading && pf->cmp.width > 0, "%s: compare column", pf->name);
        if (pf->at[PF_OUT_CHECK])
            ck_assert_msg(pf->check, "%s: check's words", pf->name);
        if (pf->at[PF_OUT_DETAIL])
            ck_assert_msg(pf->detail && pf->at[PF_OUT_DETAIL] / 10 >= 1 &&
                              pf->at[PF_OUT_DETAIL] / 10 <= 2,
                          "%s: detail label and line", pf->name);
        for (int g = 0; g < f; g++) {
            ck_assert_str_ne(phase_figures[g].name, pf->name);
            for (int o = 0; o < PF_OUTPUTS; o++)
                ck_assert_msg(!pf->at[o] || pf->at[o] != phase_figures[g].at[o],
                              "%s and %s share place %d of output %d", phase_figures[g].name,
                              pf->name, pf->at[o], o);
        }
    }
}
END_TEST

/* ---- the outputs ------------------------------------------------------------ */

/* report --json: every phase holds every JSON figure's key, with the
 * figure's value; iterations would hold the run_dist ones. */
static void json_phases(const cJSON *arr, const run_phase *const *phases, size_t n) {
    ck_assert_int_eq(cJSON_GetArraySize(arr), (int)n);
    enum phase_fig ids[PF_N];
    size_t nf = phase_figures_in(PF_OUT_JSON, ids);
    for (size_t i = 0; i < n; i++) {
        const cJSON *o = cJSON_GetArrayItem(arr, (int)i);
        const run_phase *p = phases[i];
        /* The keys in the table's order. */
        const cJSON *key = o->child;
        for (size_t k = 0; k < nf; k++) {
            const phase_figure *pf = &phase_figures[ids[k]];
            double v = phase_fig_value(p, ids[k]);
            if ((pf->flags & PF_NULL_IF_NONE) && !p->dist.count)
                v = NAN;
            assert_value(o, pf->json, v, "report --json");
            while (key && strcmp(key->string, pf->json))
                key = key->next;
            ck_assert_msg(key, "report --json: '%s' out of the table's order", pf->json);
        }
        json_phases(cJSON_GetObjectItemCaseSensitive(o, "children"),
                    (const run_phase *const *)p->children, p->nchildren);
    }
}

START_TEST(report_json_has_every_figure) {
    run_model *m = load("base");
    printed out;
    ck_assert_int_eq(report_json_print(print_begin(&out), m), 0);
    cJSON *doc = cJSON_Parse(print_end(&out));
    ck_assert_ptr_nonnull(doc);
    const cJSON *roles = cJSON_GetObjectItemCaseSensitive(doc, "roles");
    for (size_t r = 0; r < m->nroles; r++) {
        const cJSON *role = cJSON_GetArrayItem(roles, (int)r);
        json_phases(cJSON_GetObjectItemCaseSensitive(role, "phases"),
                    (const run_phase *const *)m->roles[r].root->children,
                    m->roles[r].root->nchildren);
    }
    cJSON_Delete(doc);
    free(out.text);
    run_free(m);
}
END_TEST

/* The text report: the phase table's heading names every column figure a
 * table shows without being asked (off: the browser's), in order, and the
 * dominant phases' heading names those marked for it; a phase's row holds
 * each column's cell. */
START_TEST(report_text_has_every_column) {
    run_model *m = load("base");
    printed out;
    text_style st = {.width = 220, .color = 0, .utf8 = 0};
    report_text_print(print_begin(&out), m, &st);
    const char *text = print_end(&out);
    const char *want[PF_NCOLUMNS], *dom[PF_NCOLUMNS];
    size_t n = 0, ndom = 0;
    for (int c = 0; c < PF_NCOLUMNS; c++) {
        if (!phase_figures[c].column.off)
            want[n++] = phase_figures[c].column.heading;
        if (phase_figures[c].flags & PF_DOMINANT)
            dom[ndom++] = phase_figures[c].column.heading;
    }
    char line[1024], cell[64];
    ck_assert_ptr_nonnull(line_starting(text, "phase ", line, sizeof line));
    assert_heading_in_order(line, want, n);
    ck_assert_ptr_nonnull(line_starting(text, "DOMINANT PHASES", line, sizeof line));
    assert_heading_in_order(line, dom, ndom);
    /* The first phase's row: its name, then its cells in the columns' order. */
    const run_phase *p = m->roles[0].root->children[0];
    char name[256];
    snprintf(name, sizeof name, "%.*s ", (int)p->name.len, p->name.s);
    ck_assert_ptr_nonnull(line_starting(text, name, line, sizeof line));
    const char *at = line + strlen(name);
    for (int c = 0; c < PF_NCOLUMNS; c++) {
        if (phase_figures[c].column.off)
            continue;
        phase_cell(p, (enum phase_fig)c, cell, sizeof cell);
        const char *hit = strstr(at, cell);
        ck_assert_msg(hit, "column %s: cell '%s' not in: %s", phase_figures[c].name, cell, line);
        at = hit + strlen(cell);
    }
    free(out.text);
    run_free(m);
}
END_TEST

/* Every figure a column: a cell for every phase, "n/a" only where the
 * figure was not measured. */
START_TEST(every_column_has_cells) {
    run_model *m = load("base");
    const run_phase *p = m->roles[0].root->children[0];
    layout_column cols[PF_NCOLUMNS];
    phase_columns_of(cols);
    for (int c = 0; c < PF_NCOLUMNS; c++) {
        char cell[64] = "";
        ck_assert_str_eq(cols[c].heading, phase_figures[c].column.heading);
        int na = phase_cell(p, (enum phase_fig)c, cell, sizeof cell);
        ck_assert_msg(cell[0], "column %s has an empty cell", phase_figures[c].name);
        ck_assert_int_eq(na, !(phase_figures[c].flags & PF_NEVER_NA) &&
                                 isnan(phase_fig_value(p, (enum phase_fig)c)));
    }
    run_free(m);
}
END_TEST

/* compare in text: the heading names every compared figure in compare's
 * order; in JSON every phase holds each figure's key with A's and B's
 * values. */
START_TEST(compare_has_every_figure) {
    compared k = compare_fixtures();
    const run_cmp *c = k.c;
    printed out;
    text_style st = {.width = 220, .color = 0, .utf8 = 0};
    compare_text_print(print_begin(&out), c, &st);
    const char *text = print_end(&out);
    enum phase_fig ids[PF_N];
    size_t n = phase_figures_in(PF_OUT_COMPARE, ids);
    const char *want[PF_N];
    for (size_t i = 0; i < n; i++)
        want[i] = phase_figures[ids[i]].cmp.heading;
    char line[1024];
    ck_assert_ptr_nonnull(line_starting(text, "phase ", line, sizeof line));
    assert_heading_in_order(line, want, n);
    free(out.text);

    ck_assert_int_eq(compare_json_print(print_begin(&out), c), 0);
    cJSON *doc = cJSON_Parse(print_end(&out));
    ck_assert_ptr_nonnull(doc);
    const cJSON *role = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "roles"), 0);
    const cJSON *phases = cJSON_GetObjectItemCaseSensitive(role, "phases");
    ck_assert_int_eq(cJSON_GetArraySize(phases), (int)c->roles[0].nphases);
    n = phase_figures_in(PF_OUT_COMPARE_JSON, ids);
    ck_assert_uint_gt(n, 0);
    for (size_t i = 0; i < c->roles[0].nphases; i++) {
        const run_cmp_phase *p = &c->roles[0].phases[i];
        const cJSON *o = cJSON_GetArrayItem(phases, (int)i);
        for (size_t k = 0; k < n; k++) {
            const char *key = phase_figures[ids[k]].json;
            const cJSON *fig = cJSON_GetObjectItemCaseSensitive(o, key);
            ck_assert_msg(fig, "compare --json: no '%s'", key);
            assert_value(fig, "a", p->a ? phase_fig_value(p->a, ids[k]) : NAN, key);
            assert_value(fig, "b", p->b ? phase_fig_value(p->b, ids[k]) : NAN, key);
        }
    }
    cJSON_Delete(doc);
    free(out.text);
    compared_free(&k);
}
END_TEST

/* check: every metric is parsed by its name, listed in the message that
 * names them, judged on its own figure and named in the JSON. */
START_TEST(check_has_every_metric) {
    compared pair = compare_fixtures();
    const run_cmp *c = pair.c;
    enum phase_fig ids[PF_N];
    size_t n = phase_figures_in(PF_OUT_CHECK, ids);
    ck_assert_uint_gt(n, 0);
    ck_assert_int_eq(run_check_metric_default(), ids[0]);
    char list[256], msg[256];
    run_check_metric_list(list, sizeof list);
    for (size_t i = 0; i < n; i++) {
        run_check_metric m;
        const char *name = phase_figures[ids[i]].name;
        ck_assert_int_eq(run_check_metric_parse(name, &m), 0);
        ck_assert_int_eq(m, ids[i]);
        ck_assert_str_eq(run_check_metric_name(m), name);
        ck_assert_msg(strstr(list, name), "'%s' not in '%s'", name, list);
        run_check_opts o = {.max_regression = 0.10, .metric = m, .min_share = 0};
        run_check *k = NULL;
        ck_assert_int_eq(run_check_judge(c, &o, &k, msg, sizeof msg), RUN_CHECK_DONE);
        ck_assert_uint_gt(k->nrows, 0);
        for (size_t r = 0; r < k->nrows; r++)
            ck_assert_ptr_eq(k->rows[r].fig, &k->rows[r].phase->fig[m]);
        printed out;
        ck_assert_int_eq(check_json_print(print_begin(&out), c, k, &o), 0);
        cJSON *doc = cJSON_Parse(print_end(&out));
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(doc, "metric")->valuestring, name);
        cJSON_Delete(doc);
        free(out.text);
        run_check_free(k);
    }
    compared_free(&pair);
}
END_TEST

/* The phases of a role in pre-order, as /phases holds them. */
static void preorder(const run_phase *p, const run_phase **out, size_t *n, size_t cap) {
    for (size_t i = 0; i < p->nchildren; i++) {
        ck_assert_uint_lt(*n, cap);
        out[(*n)++] = p->children[i];
        preorder(p->children[i], out, n, cap);
    }
}

/* export --format hdf5: /phases has a column of each HDF5 figure, read
 * back by its name alone, holding the figure of each phase. */
START_TEST(hdf5_has_every_figure) {
    run_model *m = load("base");
    char dir[256], path[300], msg[512];
    unit_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/run.h5", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_msg(export_format_hdf5.write(m, m->dir, fd, msg, sizeof msg) == 0, "%s", msg);
    close(fd);
    const run_phase *phases[256];
    size_t nphases = 0;
    ck_assert_uint_eq(m->nroles, 1);
    preorder(m->roles[0].root, phases, &nphases, 256);
    scope_h5_file *h = scope_h5_open(path, msg, sizeof msg);
    ck_assert_msg(h, "%s", msg);
    enum phase_fig ids[PF_N];
    size_t n = phase_figures_in(PF_OUT_H5, ids);
    for (size_t i = 0; i < n; i++) {
        const phase_figure *pf = &phase_figures[ids[i]];
        int dbl = pf->type == PF_F64;
        scope_h5_field field = {pf->h5, 0, dbl ? SCOPE_H5_F64 : SCOPE_H5_U64, 0};
        scope_h5_table t = {sizeof(uint64_t), 1, &field};
        void *rows = NULL;
        size_t nrows = 0;
        ck_assert_msg(scope_h5_table_read(h, "/phases", &t, 1000, &rows, &nrows, msg, sizeof msg) ==
                          0,
                      "%s", msg);
        ck_assert_uint_eq(nrows, nphases);
        for (size_t r = 0; r < nrows; r++) {
            double got = dbl ? ((double *)rows)[r] : (double)((uint64_t *)rows)[r];
            double want = phase_fig_value(phases[r], ids[i]);
            ck_assert_msg(isnan(want) ? isnan(got) : got == want, "/phases %s row %zu: %g, not %g",
                          pf->h5, r, got, want);
        }
        scope_h5_table_free(&t, rows, nrows);
    }
    ck_assert_int_eq(scope_h5_close(h, msg, sizeof msg), 0);
    unit_rmdir(dir);
    run_free(m);
}
END_TEST

/* The merge: a role's phase holds, for each figure merged by sum, minimum
 * or maximum, that of its processes' figures (each process merged alone,
 * run_worker_role), for a run of three ranks. */
static void check_merge(const run_role *role, const run_phase *p, const run_phase *const *alone) {
    for (int f = 0; f < PF_N; f++) {
        enum pf_merge how = phase_figures[f].merge;
        if (how != PF_MERGE_SUM && how != PF_MERGE_MIN && how != PF_MERGE_MAX)
            continue;
        double want = how == PF_MERGE_MIN ? INFINITY : 0;
        for (size_t k = 0; k < role->nprocs; k++) {
            if (!alone[k] || (how != PF_MERGE_SUM && !alone[k]->dist.count))
                continue;
            double v = phase_fig_value(alone[k], (enum phase_fig)f);
            want = how == PF_MERGE_SUM   ? want + v
                   : how == PF_MERGE_MIN ? fmin(want, v)
                                         : fmax(want, v);
        }
        if (how == PF_MERGE_MIN && isinf(want))
            want = 0; /* no entries anywhere */
        char path[512];
        ck_assert_msg(phase_fig_value(p, (enum phase_fig)f) == want, "%s of %s: %g, not %g",
                      phase_figures[f].name, run_phase_path(p, path, sizeof path),
                      phase_fig_value(p, (enum phase_fig)f), want);
    }
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *child = p->children[i];
        const run_phase *below[8] = {0};
        for (size_t k = 0; k < role->nprocs; k++)
            below[k] = alone[k] ? run_phase_child(alone[k], child->name.s, child->name.len) : NULL;
        check_merge(role, child, below);
    }
}

START_TEST(merged_as_the_table_says) {
    char path[4096], msg[512];
    snprintf(path, sizeof path, "%s/../scope-profiler-h5/mpi-3-ranks.h5", fixtures);
    run_model *m = NULL;
    run_options opt = {.threads = 1};
    ck_assert_msg(run_load(path, &opt, &m, msg, sizeof msg) == RUN_OK, "%s", msg);
    const run_role *role = &m->roles[0];
    ck_assert_uint_eq(role->nprocs, 3);
    const run_phase *alone[8] = {0};
    for (size_t k = 0; k < role->nprocs; k++) {
        const run_role *r = run_worker_role(m, role->workers[k]);
        ck_assert_ptr_nonnull(r);
        alone[k] = r->root;
    }
    ck_assert_uint_gt(role->root->nchildren, 0);
    for (size_t i = 0; i < role->root->nchildren; i++) {
        const run_phase *top = role->root->children[i];
        const run_phase *below[8] = {0};
        for (size_t k = 0; k < role->nprocs; k++)
            below[k] = run_phase_child(alone[k], top->name.s, top->name.len);
        check_merge(role, top, below);
    }
    run_free(m);
}
END_TEST

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FIXTURES_DIR (tests/fixtures/compare-runs)\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    Suite *s = suite_create("phase_figures");
    TCase *tc = tcase_create("table");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, rows_are_whole);
    tcase_add_test(tc, report_json_has_every_figure);
    tcase_add_test(tc, report_text_has_every_column);
    tcase_add_test(tc, every_column_has_cells);
    tcase_add_test(tc, compare_has_every_figure);
    tcase_add_test(tc, check_has_every_metric);
    tcase_add_test(tc, hdf5_has_every_figure);
    tcase_add_test(tc, merged_as_the_table_says);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
