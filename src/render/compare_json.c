/* The comparison as JSON; see compare_json.h and docs/json.md. */
#include "compare_json.h"

#include "json_out.h"
#include "run_compare_lines.h"
#include "run_noise.h"

#include <math.h>

static cJSON *put_fig(json_out *j, cJSON *o, const char *key, const run_cmp_fig *fig) {
    cJSON *e = jo_object(j, o, key);
    jo_num(j, e, "a", fig->a);
    jo_num(j, e, "b", fig->b);
    jo_num(j, e, "delta", fig->delta);
    jo_num(j, e, "change", fig->change);
    return e;
}

/* A figure with a noise estimate: its interval of change (low, high; null
 * when the noise is unknown) and where each side's estimate came from. */
static void put_noisy_fig(json_out *j, cJSON *o, const char *key, const run_cmp_phase *p,
                          enum phase_fig f) {
    const run_cmp_fig *fig = &p->fig[f];
    cJSON *e = put_fig(j, o, key, fig);
    jo_num(j, e, "change_low", fig->lo);
    jo_num(j, e, "change_high", fig->hi);
    jo_num(j, e, "change_at_least", fig->at_least);
    jo_num(j, e, "at_least_confidence", fig->at_least_confidence);
    jo_bool(j, e, "significant", run_cmp_fig_beyond_noise(fig) != 0);
    jo_str(j, e, "noise_a", run_noise_source_name((enum run_noise_source)p->noise_a[f]));
    jo_str(j, e, "noise_b", run_noise_source_name((enum run_noise_source)p->noise_b[f]));
}

static void put_run(json_out *j, cJSON *o, const char *key, const run_model *m) {
    cJSON *e = jo_object(j, o, key);
    jo_run_identity(j, e, m);
    jo_u64(j, e, "runtime_ns", m->runtime_ns);
    jo_wall(j, e, "start_wall", m->start_wall_ns);
    jo_u64(j, e, "processes", m->nprocs);
    jo_u64(j, e, "caveats", m->ncaveats);
}

static void put_counter(json_out *j, cJSON *arr, const run_cmp_counter *k) {
    cJSON *o = jo_object(j, arr, NULL);
    jo_name(j, o, "name", k->name);
    jo_str(j, o, "side", run_cmp_side_name(k->side));
    put_fig(j, o, "rate_per_s", &k->rate_per_s);
    put_fig(j, o, "total", &k->total);
    put_fig(j, o, "calls", &k->calls);
}

static void put_phase(json_out *j, cJSON *arr, const run_cmp_phase *p) {
    cJSON *o = jo_object(j, arr, NULL);
    jo_str(j, o, "path", p->path);
    jo_u64(j, o, "depth", p->depth);
    jo_str(j, o, "side", run_cmp_side_name(p->side));
    jo_num(j, o, "impact_ns", p->impact_ns);
    enum phase_fig ids[PF_N];
    size_t n = phase_figures_in(PF_OUT_COMPARE_JSON, ids);
    for (size_t i = 0; i < n; i++)
        if (run_noise_has(ids[i]))
            put_noisy_fig(j, o, phase_figures[ids[i]].json, p, ids[i]);
        else
            put_fig(j, o, phase_figures[ids[i]].json, &p->fig[ids[i]]);
    cJSON *counters = jo_array(j, o, "counters");
    for (size_t i = 0; i < p->ncounters; i++)
        put_counter(j, counters, &p->counters[i]);
    if (!p->io) {
        jo_null(j, o, "io");
        return;
    }
    cJSON *io = jo_object(j, o, "io");
    put_fig(j, io, "disk_read", &p->io_disk_read);
    put_fig(j, io, "disk_write", &p->io_disk_write);
    put_fig(j, io, "cache_read", &p->io_cache_read);
    put_fig(j, io, "disk_bytes_per_s", &p->io_disk_bytes_per_s);
}

static void put_resources(json_out *j, cJSON *o, const run_cmp_role *r) {
    if (!r->res) {
        jo_null(j, o, "resources");
        return;
    }
    cJSON *e = jo_object(j, o, "resources");
    put_fig(j, e, "disk_read", &r->disk_read);
    put_fig(j, e, "cache_read", &r->cache_read);
    put_fig(j, e, "disk_write", &r->disk_write);
    put_fig(j, e, "disk_read_per_s", &r->disk_read_per_s);
    put_fig(j, e, "cache_read_per_s", &r->cache_read_per_s);
    put_fig(j, e, "disk_write_per_s", &r->disk_write_per_s);
    cJSON *gpus = jo_array(j, e, "gpus");
    for (size_t i = 0; i < r->ngpus; i++) {
        cJSON *g = jo_object(j, gpus, NULL);
        jo_name(j, g, "host", r->gpus[i].host);
        jo_u64(j, g, "index", r->gpus[i].index);
        put_fig(j, g, "busy", &r->gpus[i].busy);
        put_fig(j, g, "this_run", &r->gpus[i].this_run);
    }
}

/* The role's hot lines compared; null when neither run sampled lines. */
static void put_lines(json_out *j, cJSON *o, const run_cmp_role *r) {
    const run_cmp_role_lines *ls = r->lines;
    if (!ls || (!ls->sampled_a && !ls->sampled_b)) {
        jo_null(j, o, "lines");
        return;
    }
    cJSON *e = jo_object(j, o, "lines");
    jo_bool(j, e, "sampled_a", ls->sampled_a);
    jo_bool(j, e, "sampled_b", ls->sampled_b);
    jo_u64(j, e, "samples_a", ls->samples_a);
    jo_u64(j, e, "samples_b", ls->samples_b);
    jo_u64(j, e, "more", ls->more);
    cJSON *rows = jo_array(j, e, "rows");
    for (size_t i = 0; i < ls->n; i++) {
        const run_cmp_line *x = &ls->v[i];
        cJSON *row = jo_object(j, rows, NULL);
        jo_name(j, row, "function", x->function);
        jo_name(j, row, "file", x->file);
        jo_num(j, row, "line_a", x->side == RUN_CMP_ONLY_B ? NAN : (double)x->line_a);
        jo_num(j, row, "line_b", x->side == RUN_CMP_ONLY_A ? NAN : (double)x->line_b);
        jo_str(j, row, "side", run_cmp_side_name(x->side));
        jo_bool(j, row, "moved", x->moved);
        put_fig(j, row, "share", &x->share);
        jo_num(j, row, "delta_sd", x->delta_sd);
        jo_bool(j, row, "significant", x->significant);
    }
}

static void put_role(json_out *j, cJSON *arr, const run_cmp_role *r) {
    cJSON *o = jo_object(j, arr, NULL);
    jo_name(j, o, "name", r->name);
    jo_str(j, o, "side", run_cmp_side_name(r->side));
    jo_num(j, o, "impact_ns", r->impact_ns);
    put_fig(j, o, "nprocs", &r->nprocs);
    put_fig(j, o, "phase_ns", &r->phase_ns);
    cJSON *phases = jo_array(j, o, "phases");
    for (size_t i = 0; i < r->nphases; i++)
        put_phase(j, phases, &r->phases[i]);
    put_resources(j, o, r);
    put_lines(j, o, r);
}

int compare_json_print(FILE *f, const run_cmp *c) {
    json_out j = {0};
    cJSON *root = jo_document(&j, COMPARE_JSON_SCHEMA);
    if (!root)
        return -1;
    put_run(&j, root, "a", c->a);
    put_run(&j, root, "b", c->b);
    jo_num(&j, root, "confidence", c->confidence);
    jo_u64(&j, root, "base_runs", c->nbase);
    cJSON *roles = jo_array(&j, root, "roles");
    for (size_t i = 0; i < c->nroles; i++)
        put_role(&j, roles, &c->roles[i]);
    return jo_finish(&j, root, f);
}

static void put_check_row(json_out *j, cJSON *arr, const run_check_row *row) {
    cJSON *o = jo_object(j, arr, NULL);
    jo_name(j, o, "role", row->role->name);
    jo_str(j, o, "path", row->phase->path);
    jo_str(j, o, "side", run_cmp_side_name(row->phase->side));
    jo_str(j, o, "verdict", run_check_verdict_name(row->verdict));
    jo_bool(j, o, "failed", row->failed);
    put_noisy_fig(j, o, "metric", row->phase, (enum phase_fig)(row->fig - row->phase->fig));
}

int check_json_print(FILE *f, const run_cmp *c, const run_check *k, const run_check_opts *o) {
    json_out j = {0};
    cJSON *root = jo_document(&j, CHECK_JSON_SCHEMA);
    if (!root)
        return -1;
    put_run(&j, root, "base", c->a);
    put_run(&j, root, "candidate", c->b);
    jo_str(&j, root, "metric", run_check_metric_name(o->metric));
    jo_num(&j, root, "max_regression", o->max_regression);
    jo_num(&j, root, "confidence", c->confidence);
    jo_u64(&j, root, "base_runs", c->nbase);
    jo_bool(&j, root, "passed", k->nfailed == 0);
    jo_u64(&j, root, "watched", k->nrows);
    jo_u64(&j, root, "failed", k->nfailed);
    cJSON *rows = jo_array(&j, root, "phases");
    for (size_t i = 0; i < k->nrows; i++)
        put_check_row(&j, rows, &k->rows[i]);
    return jo_finish(&j, root, f);
}
