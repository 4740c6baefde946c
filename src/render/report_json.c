/* The run model as JSON; see report_json.h and docs/json.md.  Every figure
 * is the model's own: nothing here computes one. */
#include "report_json.h"

#include "json_out.h"
#include "phase_figures.h"
#include "run_partial.h"
#include "resources_json.h"

#include <scope/log_format.h>
#include <scope/log_hist.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A launcher-given number, -1 when no launcher said. */
static void put_launcher_int(json_out *j, cJSON *o, const char *key, int32_t v) {
    if (v < 0)
        jo_null(j, o, key);
    else
        jo_i64(j, o, key, v);
}

static void put_header(json_out *j, cJSON *o, const run_model *m) {
    jo_run_identity(j, o, m);
    if (m->source.len) /* only for a source that is not a run directory */
        jo_name(j, o, "source", m->source);
    jo_str(j, o, "iteration_name", m->iteration_name);
    jo_u64(j, o, "runtime_ns", m->runtime_ns);
    jo_u64(j, o, "start_wall_ns", m->start_wall_ns);
    jo_wall(j, o, "start_wall", m->start_wall_ns);
    jo_u64(j, o, "end_wall_ns", m->end_wall_ns);
    jo_wall(j, o, "end_wall", m->end_wall_ns);
    jo_u64(j, o, "processes", m->nprocs);
    jo_bool(j, o, "in_progress", m->nrunning > 0);
    jo_u64(j, o, "running", m->nrunning);
    cJSON *hosts = jo_array(j, o, "hosts");
    for (size_t i = 0; i < m->nhosts; i++)
        jo_name(j, hosts, NULL, m->hosts[i]);
    cJSON *ranks = jo_object(j, o, "ranks");
    jo_u64(j, ranks, "count", m->nranked);
    if (m->nranked) {
        jo_i64(j, ranks, "min", m->rank_min);
        jo_i64(j, ranks, "max", m->rank_max);
    } else {
        jo_null(j, ranks, "min");
        jo_null(j, ranks, "max");
    }
    jo_name_or_null(j, o, "job_id", m->job_id);
    jo_u64(j, o, "job_ids", m->njob_ids);
    jo_name_or_null(j, o, "launcher", m->launcher);
    cJSON *steps = jo_array(j, o, "steps");
    for (size_t i = 0; i < m->nsteps; i++)
        jo_name(j, steps, NULL, m->steps[i]);
    jo_name_or_null(j, o, "array_job_id", m->array_job_id);
    put_launcher_int(j, o, "array_task", m->array_task);
    put_launcher_int(j, o, "restarts", m->restarts);
}

static void put_attempts(json_out *j, cJSON *o, const run_model *m) {
    cJSON *arr = jo_array(j, o, "attempts");
    for (size_t i = 0; i < m->nattempts; i++) {
        const run_attempt *a = &m->attempts[i];
        cJSON *e = jo_object(j, arr, NULL);
        jo_name(j, e, "run_id", a->run_id);
        jo_u64(j, e, "workers", a->nworkers);
        jo_u64(j, e, "start_wall_ns", a->start_wall_ns);
        jo_wall(j, e, "start_wall", a->start_wall_ns);
        jo_u64(j, e, "end_wall_ns", a->end_wall_ns);
        jo_wall(j, e, "end_wall", a->end_wall_ns);
        jo_bool(j, e, "newest", i + 1 == m->nattempts);
        jo_bool(j, e, "shown", i == m->shown_attempt);
    }
}

static void put_identity(json_out *j, cJSON *o, const run_worker *w) {
    if (!w->has_process) {
        static const char *const keys[] = {
            "run_id",     "uuid",          "host",       "role",     "job_id",       "step_id",
            "exe",        "cwd",           "recorder",   "pid",      "ppid",         "rank",
            "local_rank", "node_rank",     "world_size", "launcher", "array_job_id", "array_task",
            "restarts",   "start_wall_ns", "start_wall"};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            jo_null(j, o, keys[i]);
        return;
    }
    jo_name(j, o, "run_id", w->run_id);
    jo_name(j, o, "uuid", w->uuid);
    jo_name(j, o, "host", w->host);
    jo_name(j, o, "role", w->role);
    jo_name_or_null(j, o, "job_id", w->job_id);
    jo_name_or_null(j, o, "step_id", w->step_id);
    jo_name(j, o, "exe", w->exe);
    jo_name(j, o, "cwd", w->cwd);
    jo_name(j, o, "recorder", w->recorder_version);
    if (w->pid > 0) {
        jo_i64(j, o, "pid", w->pid);
        jo_i64(j, o, "ppid", w->ppid);
    } else { /* an imported file keeps no pids: unknown, not 0 */
        jo_null(j, o, "pid");
        jo_null(j, o, "ppid");
    }
    put_launcher_int(j, o, "rank", w->rank);
    put_launcher_int(j, o, "local_rank", w->local_rank);
    put_launcher_int(j, o, "node_rank", w->node_rank);
    put_launcher_int(j, o, "world_size", w->world_size);
    jo_name_or_null(j, o, "launcher", w->launcher);
    jo_name_or_null(j, o, "array_job_id", w->array_job_id);
    put_launcher_int(j, o, "array_task", w->array_task);
    put_launcher_int(j, o, "restarts", w->restarts);
    jo_u64(j, o, "start_wall_ns", w->start_wall_ns);
    jo_wall(j, o, "start_wall", w->start_wall_ns);
}

/* The resources of a set of processes, computed for the document. */
static void put_resources(json_out *j, cJSON *o, const run_model *m, const size_t *workers,
                          size_t n) {
    if (m->no_samples) {
        jo_null(j, o, "resources");
        return;
    }
    run_res *res = run_res_of(m, workers, n);
    if (!res)
        j->failed = 1;
    resources_json_put(j, o, "resources", m, res);
    run_res_free(res);
}

static void put_worker(json_out *j, cJSON *o, const run_model *m, size_t index) {
    const run_worker *w = &m->workers[index];
    jo_name(j, o, "path", w->path);
    jo_bool(j, o, "readable", w->readable);
    jo_bool(j, o, "has_process", w->has_process);
    put_identity(j, o, w);
    jo_u64(j, o, "last_wall_ns", w->last_wall_ns);
    jo_wall(j, o, "last_wall", w->last_wall_ns);
    jo_u64(j, o, "runtime_ns", w->runtime_ns);
    jo_u64(j, o, "frames", w->frames);
    jo_u64(j, o, "frames_lost", w->frames_lost);
    jo_u64(j, o, "bytes_skipped", w->bytes_skipped);
    jo_bool(j, o, "truncated", w->truncated);
    jo_str(j, o, "end", run_end_name(w->end));
    if (w->end == RUN_END_SIGNAL)
        jo_i64(j, o, "end_signal", w->end_signal);
    else
        jo_null(j, o, "end_signal");
    jo_bool(j, o, "stale", w->stale);
    if (w->stale)
        jo_u64(j, o, "stale_ns", w->stale_ns);
    else
        jo_null(j, o, "stale_ns");
    jo_u64(j, o, "unbalanced", w->unbalanced);
    jo_u64(j, o, "dropped", w->dropped);
    jo_bool(j, o, "flush_failed", w->flush_failed);
    jo_u64(j, o, "threads", w->nthreads);
    jo_u64(j, o, "phase_ns", w->phase_ns);
    jo_u64(j, o, "line_samples", w->line_samples);
    jo_index(j, o, "attempt", w->attempt);
    jo_index(j, o, "role_index", w->role_index);
    jo_u64(j, o, "caveats", w->ncaveats);
    put_resources(j, o, m, &index, 1);
}

static void put_caveats(json_out *j, cJSON *o, const run_model *m) {
    cJSON *arr = jo_array(j, o, "caveats");
    for (size_t i = 0; i < m->ncaveats; i++) {
        const run_caveat *c = &m->caveats[i];
        cJSON *e = jo_object(j, arr, NULL);
        jo_str(j, e, "kind", run_caveat_kind_name(c->kind));
        jo_index(j, e, "worker", c->worker);
        jo_str(j, e, "text", c->text);
    }
}

static void put_counters(json_out *j, cJSON *o, const char *key, const run_counter *c, size_t n) {
    cJSON *arr = jo_array(j, o, key);
    for (size_t i = 0; i < n; i++) {
        cJSON *e = jo_object(j, arr, NULL);
        jo_name(j, e, "name", c[i].name);
        jo_u64(j, e, "calls", c[i].calls);
        jo_i64(j, e, "total", c[i].total);
        jo_num(j, e, "rate_per_s", c[i].rate_per_s);
        jo_num(j, e, "ns_per_unit", c[i].ns_per_unit);
    }
}

/* Figure f of value v under its key: a count or duration as an integer, a
 * measured fraction or estimate as a number (null when NAN), a minimum or
 * maximum null where there were no entries. */
static void put_figure(json_out *j, cJSON *o, enum phase_fig f, pf_value v, uint64_t count) {
    const phase_figure *pf = &phase_figures[f];
    if ((pf->flags & PF_NULL_IF_NONE) && !count)
        jo_null(j, o, pf->json);
    else if (pf->type == PF_F64)
        jo_num(j, o, pf->json, v.d);
    else
        jo_u64(j, o, pf->json, v.u);
}

/* The figures of a distribution (phase_figures.h: those in run_dist), into
 * o: shared by phases and iterations.  "exact_percentiles" follows the
 * percentiles, only where true: a source keeping every call (docs/hdf5.md). */
static void put_dist(json_out *j, cJSON *o, const run_dist *d) {
    enum phase_fig ids[PF_N];
    size_t n = phase_figures_in(PF_OUT_JSON, ids);
    for (size_t i = 0; i < n; i++) {
        if (!phase_figures[ids[i]].in_dist)
            continue;
        put_figure(j, o, ids[i], phase_fig_dist_get(d, ids[i]), d->count);
        int last_percentile = phase_figures[ids[i]].merge == PF_MERGE_HIST &&
                              (i + 1 == n || phase_figures[ids[i + 1]].merge != PF_MERGE_HIST);
        if (last_percentile && d->exact_pct)
            jo_bool(j, o, "exact_percentiles", 1);
    }
}

/* The phase's figures: its distribution's, then its own. */
static void put_figures(json_out *j, cJSON *o, const run_phase *p) {
    enum phase_fig ids[PF_N];
    size_t n = phase_figures_in(PF_OUT_JSON, ids);
    put_dist(j, o, &p->dist);
    for (size_t i = 0; i < n; i++)
        if (!phase_figures[ids[i]].in_dist)
            put_figure(j, o, ids[i], phase_fig_get(p, ids[i]), p->dist.count);
}

/* The range a wait% read on part of the entries allows over all of them
 * (run_partial.h), however narrow and however few the entries read (the
 * text says it from 20 entries and 3 points wide); null elsewhere. */
static void put_wait_range(json_out *j, cJSON *o, const run_phase *p) {
    double lo, hi;
    if (!run_phase_wait_bounds(p, &lo, &hi)) {
        jo_null(j, o, "wait_range");
        return;
    }
    cJSON *r = jo_object(j, o, "wait_range");
    jo_num(j, r, "low", lo);
    jo_num(j, r, "high", hi);
}

static void put_flags(json_out *j, cJSON *o, uint32_t flags) {
    cJSON *arr = jo_array(j, o, "flags");
    if (flags & SCOPE_PHASE_F_IO)
        jo_str(j, arr, NULL, "io");
    if (flags & SCOPE_PHASE_F_SYNC)
        jo_str(j, arr, NULL, "sync");
}

/* The phase's tags (from an imported scope-profiler file), one per line in
 * the model; the key only on phases that have some. */
static void put_tags(json_out *j, cJSON *o, run_str tags) {
    if (!tags.len)
        return;
    cJSON *arr = jo_array(j, o, "tags");
    for (size_t at = 0; at <= tags.len;) {
        const char *nl = memchr(tags.s + at, '\n', tags.len - at);
        size_t end = nl ? (size_t)(nl - tags.s) : tags.len;
        jo_name(j, arr, NULL, (run_str){tags.s + at, end - at});
        at = end + 1;
    }
}

/* Only the buckets that counted something: 976 mostly empty buckets per
 * phase would bury the document. */
static void put_hist(json_out *j, cJSON *o, const run_phase *p) {
    if (!p->hist) {
        jo_null(j, o, "histogram");
        return;
    }
    cJSON *arr = jo_array(j, o, "histogram");
    for (size_t i = 0; i < p->nhist; i++) { /* in bucket order, each with entries */
        cJSON *e = jo_object(j, arr, NULL);
        jo_u64(j, e, "lower_ns", scope_hist_lower(p->hist[i].bucket));
        jo_u64(j, e, "upper_ns", scope_hist_upper(p->hist[i].bucket));
        jo_u64(j, e, "count", p->hist[i].count);
    }
}

static void put_io(json_out *j, cJSON *o, const run_phase *p) {
    if (!p->io_measured) {
        jo_null(j, o, "io");
        return;
    }
    cJSON *io = jo_object(j, o, "io");
    jo_u64(j, io, "entries", p->io_count);
    jo_u64(j, io, "failed", p->io_failed);
    jo_u64(j, io, "disk_read", p->disk_read);
    jo_u64(j, io, "disk_write", p->disk_write);
    jo_u64(j, io, "char_read", p->char_read);
    jo_u64(j, io, "char_write", p->char_write);
    jo_u64(j, io, "cache_read", p->cache_read);
    jo_num(j, io, "disk_bytes_per_s", p->disk_bytes_per_s);
}

static void put_spread(json_out *j, cJSON *o, const run_phase *p, size_t role_nprocs) {
    jo_u64(j, o, "nprocs", p->nprocs);
    if (p->nprocs) {
        cJSON *s = jo_object(j, o, "spread");
        jo_num(j, s, "min_ns", p->spread_min_ns);
        jo_num(j, s, "median_ns", p->spread_median_ns);
        jo_num(j, s, "max_ns", p->spread_max_ns);
        jo_index(j, s, "max_worker", p->spread_max_worker);
    } else {
        jo_null(j, o, "spread");
    }
    cJSON *per = jo_array(j, o, "per_proc_ns");
    for (size_t i = 0, k = 0; i < role_nprocs; i++) { /* null where it never entered */
        int entered = k < p->nprocs && p->per_proc[k].proc == i;
        jo_num(j, per, NULL, entered ? p->per_proc[k++].ns : NAN);
    }
}

/* Its own frame, so the path buffer is not held across put_phase's
 * recursion. */
static void put_path(json_out *j, cJSON *o, const char *key, const run_phase *p) {
    char path[4096];
    jo_str(j, o, key, run_phase_path(p, path, sizeof path));
}

static void put_phase(json_out *j, cJSON *arr, const run_phase *p, size_t role_nprocs) {
    cJSON *o = jo_object(j, arr, NULL);
    jo_name(j, o, "name", p->name);
    put_path(j, o, "path", p);
    jo_u64(j, o, "depth", p->depth);
    put_flags(j, o, p->flags);
    put_figures(j, o, p);
    put_wait_range(j, o, p);
    put_spread(j, o, p, role_nprocs);
    jo_name_or_null(j, o, "file", p->file);
    if (p->line)
        jo_u64(j, o, "line", p->line);
    else
        jo_null(j, o, "line");
    put_tags(j, o, p->tags);
    put_counters(j, o, "counters", p->counters, p->ncounters);
    put_io(j, o, p);
    resources_json_phase(j, o, "sampled_io", p);
    put_hist(j, o, p);
    cJSON *children = jo_array(j, o, "children");
    for (size_t i = 0; i < p->nchildren; i++)
        put_phase(j, children, p->children[i], role_nprocs);
}

static void put_role(json_out *j, cJSON *arr, const run_model *m, const run_role *r) {
    cJSON *o = jo_object(j, arr, NULL);
    jo_name(j, o, "name", r->name);
    jo_u64(j, o, "nprocs", r->nprocs);
    cJSON *workers = jo_array(j, o, "workers");
    for (size_t i = 0; i < r->nprocs; i++)
        jo_index(j, workers, NULL, r->workers[i]);
    jo_u64(j, o, "phase_ns", r->phase_ns);
    jo_u64(j, o, "line_samples", r->line_samples);
    jo_num(j, o, "imbalance", r->imbalance);
    jo_index(j, o, "slowest_worker", r->slowest_worker);
    jo_u64(j, o, "nphases", r->nphases);
    if (r->has_iterations)
        put_dist(j, jo_object(j, o, "iterations"), &r->iterations);
    else
        jo_null(j, o, "iterations");
    cJSON *dom = jo_array(j, o, "dominant");
    for (size_t i = 0; i < r->ndominant; i++)
        put_path(j, dom, NULL, r->dominant[i]);
    put_counters(j, o, "unattached", r->unattached, r->nunattached);
    cJSON *phases = jo_array(j, o, "phases");
    for (size_t i = 0; r->root && i < r->root->nchildren; i++)
        put_phase(j, phases, r->root->children[i], r->nprocs);
    put_resources(j, o, m, r->workers, r->nprocs);
}

int report_json_print(FILE *f, const run_model *m) {
    json_out j = {0};
    cJSON *root = jo_document(&j, REPORT_JSON_SCHEMA);
    if (!root)
        return -1;
    put_header(&j, jo_object(&j, root, "run"), m);
    put_attempts(&j, root, m);
    cJSON *workers = jo_array(&j, root, "workers");
    for (size_t i = 0; i < m->nworkers; i++)
        put_worker(&j, jo_object(&j, workers, NULL), m, i);
    put_caveats(&j, root, m);
    jo_str(&j, root, "role_order", m->roles_by_samples ? "line_samples" : "phase_time");
    cJSON *roles = jo_array(&j, root, "roles");
    for (size_t i = 0; i < m->nroles; i++)
        put_role(&j, roles, m, &m->roles[i]);
    jo_bool(&j, root, "samples_loaded", !m->no_samples);
    size_t *all = malloc((m->nworkers + 1) * sizeof *all), n = 0;
    if (!all)
        j.failed = 1;
    for (size_t i = 0; all && i < m->nworkers; i++)
        if (m->nattempts && m->workers[i].attempt == m->shown_attempt)
            all[n++] = i;
    put_resources(&j, root, m, all ? all : (size_t[1]){0}, n);
    free(all);
    return jo_finish(&j, root, f);
}
