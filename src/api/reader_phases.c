/*
 * The reader API's tables of phase figures: phases, their I/O, and the
 * comparison of two runs.  The figures' columns come from the figure table
 * (phase_figures.h) in report --json's order, so a figure added there is a
 * new column here with no change to this file or to a binding.
 */
#include "reader_run.h"

#include "phase_figures.h"
#include "run_compare.h"
#include "run_noise.h"
#include "run_partial.h"
#include "run_resources.h"

#include <math.h>

static const char *unit_name(enum pf_unit unit) {
    switch (unit) {
    case PF_UNIT_NS:
        return "ns";
    case PF_UNIT_FRACTION:
        return "fraction";
    case PF_UNIT_COUNT:
        break;
    }
    return "count";
}

/* The figures in report --json's order: a distribution's first, then the
 * phase's own (report_json.c, put_figures). */
static size_t json_figures(enum phase_fig ids[PF_N]) {
    enum phase_fig all[PF_N];
    size_t n = phase_figures_in(PF_OUT_JSON, all), k = 0;
    for (int dist = 1; dist >= 0; dist--)
        for (size_t i = 0; i < n; i++)
            if (phase_figures[all[i]].in_dist == dist)
                ids[k++] = all[i];
    return k;
}

typedef struct phase_cols {
    size_t role, path, name, depth, exact_pct, wait_low, wait_high, nprocs, spread_min,
        spread_median, spread_max, file, line;
    enum phase_fig ids[PF_N];
    size_t nfig, fig[PF_N];
} phase_cols;

static void phase_row(scope_table *t, const phase_cols *c, const run_role *r, const run_phase *p) {
    char path[4096];
    rt_row(t);
    rt_name(t, c->role, r->name);
    rt_str(t, c->path, run_phase_path(p, path, sizeof path));
    rt_name(t, c->name, p->name);
    rt_u64(t, c->depth, p->depth);
    for (size_t i = 0; i < c->nfig; i++) {
        const phase_figure *pf = &phase_figures[c->ids[i]];
        pf_value v = phase_fig_get(p, c->ids[i]);
        if ((pf->flags & PF_NULL_IF_NONE) && !p->dist.count)
            rt_missing(t, c->fig[i]);
        else if (pf->type == PF_F64)
            rt_f64(t, c->fig[i], v.d);
        else
            rt_u64(t, c->fig[i], v.u);
    }
    rt_bool(t, c->exact_pct, p->dist.exact_pct);
    double lo = NAN, hi = NAN;
    run_phase_wait_bounds(p, &lo, &hi);
    rt_f64(t, c->wait_low, lo);
    rt_f64(t, c->wait_high, hi);
    rt_u64(t, c->nprocs, p->nprocs);
    rt_f64(t, c->spread_min, p->nprocs ? p->spread_min_ns : NAN);
    rt_f64(t, c->spread_median, p->nprocs ? p->spread_median_ns : NAN);
    rt_f64(t, c->spread_max, p->nprocs ? p->spread_max_ns : NAN);
    rt_name(t, c->file, p->file);
    if (p->line)
        rt_u64(t, c->line, p->line);
    else
        rt_missing(t, c->line);
}

/* Depth first, children by total as the model sorts them: report --json's
 * order.  Depth is at most RUN_MAX_DEPTH. */
static void phase_rows(scope_table *t, const phase_cols *c, const run_role *r, const run_phase *p) {
    phase_row(t, c, r, p);
    for (size_t i = 0; i < p->nchildren; i++)
        phase_rows(t, c, r, p->children[i]);
}

int reader_phases(scope_run *run, scope_table *t, char *msg, size_t msglen) {
    (void)msg, (void)msglen;
    phase_cols c;
    c.role = rt_column(t, "role", "", SCOPE_COL_STR);
    c.path = rt_column(t, "path", "", SCOPE_COL_STR);
    c.name = rt_column(t, "name", "", SCOPE_COL_STR);
    c.depth = rt_column(t, "depth", "", SCOPE_COL_U64);
    c.nfig = json_figures(c.ids);
    for (size_t i = 0; i < c.nfig; i++) {
        const phase_figure *pf = &phase_figures[c.ids[i]];
        c.fig[i] = rt_column(t, pf->json, unit_name(pf->unit),
                             pf->type == PF_F64 ? SCOPE_COL_F64 : SCOPE_COL_U64);
    }
    c.exact_pct = rt_column(t, "exact_percentiles", "", SCOPE_COL_BOOL);
    c.wait_low = rt_column(t, "wait_low", "fraction", SCOPE_COL_F64);
    c.wait_high = rt_column(t, "wait_high", "fraction", SCOPE_COL_F64);
    c.nprocs = rt_column(t, "nprocs", "count", SCOPE_COL_U64);
    c.spread_min = rt_column(t, "spread_min_ns", "ns", SCOPE_COL_F64);
    c.spread_median = rt_column(t, "spread_median_ns", "ns", SCOPE_COL_F64);
    c.spread_max = rt_column(t, "spread_max_ns", "ns", SCOPE_COL_F64);
    c.file = rt_column(t, "file", "", SCOPE_COL_STR);
    c.line = rt_column(t, "line", "", SCOPE_COL_U64);
    const run_model *m = run->m;
    for (size_t r = 0; r < m->nroles; r++) {
        const run_phase *root = m->roles[r].root;
        for (size_t i = 0; root && i < root->nchildren; i++)
            phase_rows(t, &c, &m->roles[r], root->children[i]);
    }
    return SCOPE_READER_OK;
}

/* ---- I/O ---------------------------------------------------------------- */

typedef struct io_cols {
    size_t role, path, depth, entries, failed, disk_read, disk_write, char_read, char_write,
        cache_read, disk_per_s;
    size_t smp[5]; /* sampled: disk_read, cache_read, disk_write, char_read, char_write */
} io_cols;

static void io_rows(scope_table *t, const io_cols *c, const run_role *r, const run_phase *p) {
    run_res_io smp;
    int sampled = run_phase_sampled_io(p, &smp);
    if (p->io_measured || sampled) {
        char path[4096];
        rt_row(t);
        rt_name(t, c->role, r->name);
        rt_str(t, c->path, run_phase_path(p, path, sizeof path));
        rt_u64(t, c->depth, p->depth);
        const uint64_t exact[] = {p->io_count,  p->io_failed,  p->disk_read, p->disk_write,
                                  p->char_read, p->char_write, p->cache_read};
        const size_t exact_col[] = {c->entries,   c->failed,     c->disk_read, c->disk_write,
                                    c->char_read, c->char_write, c->cache_read};
        for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
            if (p->io_measured)
                rt_u64(t, exact_col[i], exact[i]);
            else
                rt_missing(t, exact_col[i]);
        rt_f64(t, c->disk_per_s, p->io_measured ? p->disk_bytes_per_s : NAN);
        const uint64_t s[] = {smp.disk_read, smp.cache_read, smp.disk_write, smp.char_read,
                              smp.char_write};
        for (size_t i = 0; i < 5; i++)
            if (sampled)
                rt_u64(t, c->smp[i], s[i]);
            else
                rt_missing(t, c->smp[i]);
    }
    for (size_t i = 0; i < p->nchildren; i++)
        io_rows(t, c, r, p->children[i]);
}

int reader_io(scope_run *run, scope_table *t, char *msg, size_t msglen) {
    (void)msg, (void)msglen;
    io_cols c;
    c.role = rt_column(t, "role", "", SCOPE_COL_STR);
    c.path = rt_column(t, "path", "", SCOPE_COL_STR);
    c.depth = rt_column(t, "depth", "", SCOPE_COL_U64);
    c.entries = rt_column(t, "entries", "count", SCOPE_COL_U64);
    c.failed = rt_column(t, "failed", "count", SCOPE_COL_U64);
    c.disk_read = rt_column(t, "disk_read", "bytes", SCOPE_COL_U64);
    c.disk_write = rt_column(t, "disk_write", "bytes", SCOPE_COL_U64);
    c.char_read = rt_column(t, "char_read", "bytes", SCOPE_COL_U64);
    c.char_write = rt_column(t, "char_write", "bytes", SCOPE_COL_U64);
    c.cache_read = rt_column(t, "cache_read", "bytes", SCOPE_COL_U64);
    c.disk_per_s = rt_column(t, "disk_bytes_per_s", "bytes/s", SCOPE_COL_F64);
    static const char *const smp_names[5] = {"sampled_disk_read", "sampled_cache_read",
                                             "sampled_disk_write", "sampled_char_read",
                                             "sampled_char_write"};
    for (size_t i = 0; i < 5; i++)
        c.smp[i] = rt_column(t, smp_names[i], "bytes", SCOPE_COL_U64);
    const run_model *m = run->m;
    for (size_t r = 0; r < m->nroles; r++) {
        const run_phase *root = m->roles[r].root;
        for (size_t i = 0; root && i < root->nchildren; i++)
            io_rows(t, &c, &m->roles[r], root->children[i]);
    }
    return SCOPE_READER_OK;
}

/* ---- compare ------------------------------------------------------------ */

int reader_compare(scope_run *a, scope_run *b, scope_table *t, char *msg, size_t msglen) {
    run_cmp *cmp = run_compare(a->m, b->m);
    if (!cmp)
        return reader_fail(SCOPE_READER_NO_MEMORY, msg, msglen, "out of memory comparing");
    size_t role = rt_column(t, "role", "", SCOPE_COL_STR),
           role_side = rt_column(t, "role_side", "", SCOPE_COL_STR),
           path = rt_column(t, "path", "", SCOPE_COL_STR),
           depth = rt_column(t, "depth", "", SCOPE_COL_U64),
           side = rt_column(t, "side", "", SCOPE_COL_STR),
           impact = rt_column(t, "impact_ns", "ns", SCOPE_COL_F64),
           figure = rt_column(t, "figure", "", SCOPE_COL_STR),
           unit = rt_column(t, "unit", "", SCOPE_COL_STR),
           va = rt_column(t, "a", "figure", SCOPE_COL_F64),
           vb = rt_column(t, "b", "figure", SCOPE_COL_F64),
           delta = rt_column(t, "delta", "figure", SCOPE_COL_F64),
           change = rt_column(t, "change", "fraction", SCOPE_COL_F64),
           low = rt_column(t, "change_low", "fraction", SCOPE_COL_F64),
           high = rt_column(t, "change_high", "fraction", SCOPE_COL_F64);
    enum phase_fig ids[PF_N];
    size_t nfig = phase_figures_in(PF_OUT_COMPARE_JSON, ids);
    for (size_t r = 0; r < cmp->nroles; r++) {
        const run_cmp_role *cr = &cmp->roles[r];
        for (size_t p = 0; p < cr->nphases; p++) {
            const run_cmp_phase *cp = &cr->phases[p];
            for (size_t i = 0; i < nfig; i++) {
                const run_cmp_fig *f = &cp->fig[ids[i]];
                rt_row(t);
                rt_name(t, role, cr->name);
                rt_str(t, role_side, run_cmp_side_name(cr->side));
                rt_str(t, path, cp->path);
                rt_u64(t, depth, cp->depth);
                rt_str(t, side, run_cmp_side_name(cp->side));
                rt_f64(t, impact, cp->impact_ns);
                rt_str(t, figure, phase_figures[ids[i]].json);
                rt_str(t, unit, unit_name(phase_figures[ids[i]].unit));
                rt_f64(t, va, f->a);
                rt_f64(t, vb, f->b);
                rt_f64(t, delta, f->delta);
                rt_f64(t, change, f->change);
                rt_f64(t, low, run_noise_has(ids[i]) ? f->lo : NAN);
                rt_f64(t, high, run_noise_has(ids[i]) ? f->hi : NAN);
            }
        }
    }
    run_cmp_free(cmp);
    return SCOPE_READER_OK;
}
