/*
 * The model as /summary (run_h5_layout.h, docs/hdf5.md "The summary"):
 * what run_merge_parts merges a partial model from, written from a model
 * alone, never from its processes' tables, so that a model merged from
 * parts (scope-reduce's) writes it as a model loaded from logs does.
 */
#include "export_h5_batch.h"

#include "phase_figures.h"

#include <scope/log_hist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_sum_processes(export_ctx *x, const run_model *m) {
    batch b;
    if (batch_begin(x, &b, &h5t_sum_processes) < 0)
        return;
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        h5_sum_process_row *r = batch_row(x, &b);
        if (!r)
            break;
        *r = (h5_sum_process_row){
            .path = h5_cs(w->path),
            .run_id = h5_cs(w->run_id),
            .uuid = h5_cs(w->uuid),
            .host = h5_cs(w->host),
            .role = h5_cs(w->role),
            .job_id = h5_cs(w->job_id),
            .step_id = h5_cs(w->step_id),
            .exe = h5_cs(w->exe),
            .cwd = h5_cs(w->cwd),
            .recorder_version = h5_cs(w->recorder_version),
            .launcher = h5_cs(w->launcher),
            .array_job_id = h5_cs(w->array_job_id),
            .trace_phase = h5_cs(w->trace_phase),
            .end = run_end_name(w->end),
            .readable = (uint8_t)w->readable,
            .has_process = (uint8_t)w->has_process,
            .truncated = (uint8_t)w->truncated,
            .flush_failed = (uint8_t)w->flush_failed,
            .stale = (uint8_t)w->stale,
            .pid = w->pid,
            .ppid = w->ppid,
            .rank = w->rank,
            .local_rank = w->local_rank,
            .node_rank = w->node_rank,
            .world_size = w->world_size,
            .array_task = w->array_task,
            .restarts = w->restarts,
            .end_signal = w->end_signal,
            .trace_state = w->trace_state,
            .start_wall_ns = w->start_wall_ns,
            .start_mono_ns = w->start_mono_ns,
            .last_wall_ns = w->last_wall_ns,
            .last_mono_ns = w->last_mono_ns,
            .runtime_ns = w->runtime_ns,
            .frames = w->frames,
            .frames_lost = w->frames_lost,
            .bytes_skipped = w->bytes_skipped,
            .stale_ns = w->stale_ns,
            .unbalanced = w->unbalanced,
            .dropped = w->dropped,
            .nthreads = w->nthreads,
            .phase_ns = w->phase_ns,
            .line_samples = w->line_samples,
            .ncaveats = w->ncaveats,
            .trace_first = w->trace_first,
            .trace_last = w->trace_last,
            .trace_start_mono_ns = w->trace_start_mono_ns,
            .trace_end_mono_ns = w->trace_end_mono_ns,
            .trace_events = w->trace_events,
            .trace_cap = w->trace_cap,
            .trace_lost = w->trace_lost,
        };
    }
    batch_end(x, &b);
}

typedef struct sum_out {
    batch phases, procs, bins, counters;
    uint64_t next_row;
    enum phase_fig figs[PF_N];
    size_t nfigs;
} sum_out;

static void put_sum_counters(export_ctx *x, sum_out *o, uint32_t role, int64_t phase,
                             const run_counter *c, size_t n) {
    for (size_t k = 0; k < n; k++) {
        h5_sum_counter_row *r = batch_row(x, &o->counters);
        if (r)
            *r = (h5_sum_counter_row){role, phase, h5_cs(c[k].name), c[k].calls, c[k].total};
    }
}

/* The phase and its subtree in pre-order, each row naming its parent's. */
static void put_sum_phase(export_ctx *x, sum_out *o, uint32_t role, int64_t parent,
                          const run_phase *p) {
    if (x->failed)
        return;
    uint64_t row = o->next_row++;
    if (row > UINT32_MAX || p->nprocs > UINT32_MAX) {
        if (!x->failed)
            snprintf(x->msg, x->msglen, "more than 2^32 phases or processes: past the layout");
        x->failed = 1;
        return;
    }
    h5_sum_phase_row *r = batch_row(x, &o->phases);
    if (!r)
        return;
    *r = (h5_sum_phase_row){
        .role = role,
        .parent = parent,
        .name = h5_cs(p->name),
        .file = h5_cs(p->file),
        .tags = h5_cs(p->tags),
        .line = p->line,
        .flags = p->flags,
        .file_proc = p->file.len ? p->file_proc : 0,
        .has_histogram = p->hist != NULL,
        .io_measured = (uint8_t)p->io_measured,
        .smp_io = (uint8_t)p->smp_io,
        .delay_count = p->delay_count,
        .delay_wall_ns = p->delay_wall_ns,
        .delay_ns = p->delay_ns,
        .io_count = p->io_count,
        .io_failed = p->io_failed,
        .disk_read = p->disk_read,
        .disk_write = p->disk_write,
        .char_read = p->char_read,
        .char_write = p->char_write,
        .smp_disk_read = p->smp_disk_read,
        .smp_disk_write = p->smp_disk_write,
        .smp_char_read = p->smp_char_read,
        .smp_char_write = p->smp_char_write,
    };
    for (size_t k = 0; k < o->nfigs; k++)
        r->fig[k] = phase_fig_get(p, o->figs[k]).u;
    for (size_t k = 0; k < p->nprocs; k++) {
        const run_proc_ns *e = &p->per_proc[k];
        h5_sum_phase_process_row *pr = batch_row(x, &o->procs);
        if (pr)
            *pr = (h5_sum_phase_process_row){(uint32_t)row, (uint32_t)e->proc, e->ns,
                                             e->count,      e->open_ns,        e->cpu_ns};
    }
    for (size_t k = 0; p->hist && k < p->nhist; k++) {
        h5_sum_bin_row *br = batch_row(x, &o->bins);
        if (br)
            *br = (h5_sum_bin_row){row, p->hist[k].bucket, p->hist[k].count};
    }
    put_sum_counters(x, o, role, (int64_t)row, p->counters, p->ncounters);
    for (size_t k = 0; k < p->nchildren; k++)
        put_sum_phase(x, o, role, (int64_t)row, p->children[k]);
}

static void put_sum_roles(export_ctx *x, const run_model *m) {
    batch rb, rpb;
    sum_out o = {0};
    o.nfigs = run_h5_sum_figures(o.figs);
    batch_begin(x, &rb, &h5t_sum_roles);
    batch_begin(x, &rpb, &h5t_sum_role_processes);
    batch_begin(x, &o.phases, run_h5_sum_phases());
    batch_begin(x, &o.procs, &h5t_sum_phase_processes);
    batch_begin(x, &o.bins, &h5t_sum_bins);
    batch_begin(x, &o.counters, &h5t_sum_counters);
    for (size_t i = 0; i < m->nroles && !x->failed; i++) {
        const run_role *role = &m->roles[i];
        h5_sum_role_row *r = batch_row(x, &rb);
        if (!r)
            break;
        r->name = h5_cs(role->name);
        for (size_t k = 0; k < role->nprocs; k++) {
            h5_sum_role_process_row *rp = batch_row(x, &rpb);
            if (rp)
                *rp = (h5_sum_role_process_row){(uint32_t)i, role->workers[k]};
        }
        put_sum_counters(x, &o, (uint32_t)i, -1, role->unattached, role->nunattached);
        for (size_t k = 0; role->root && k < role->root->nchildren; k++)
            put_sum_phase(x, &o, (uint32_t)i, -1, role->root->children[k]);
    }
    batch_end(x, &rb);
    batch_end(x, &rpb);
    batch_end(x, &o.phases);
    batch_end(x, &o.procs);
    batch_end(x, &o.bins);
    batch_end(x, &o.counters);
}

void export_h5_put_summary(export_ctx *x, const run_model *m) {
    if (x->failed)
        return;
    if (scope_h5_group(x->f, RUN_H5_SUMMARY, x->msg, x->msglen) < 0 ||
        scope_h5_attr_put_i64(x->f, RUN_H5_SUMMARY, RUN_H5_SUM_SHOWN,
                              m->nattempts ? (int64_t)m->shown_attempt : -1, x->msg,
                              x->msglen) < 0 ||
        scope_h5_attr_put_i64(x->f, RUN_H5_SUMMARY, RUN_H5_SUM_NO_SAMPLES, m->no_samples, x->msg,
                              x->msglen) < 0) {
        x->failed = 1;
        return;
    }
    put_sum_processes(x, m);
    batch ab;
    if (batch_begin(x, &ab, &h5t_sum_attempts) == 0) {
        for (size_t a = 0; a < m->nattempts; a++) {
            const run_attempt *at = &m->attempts[a];
            h5_attempt_row *r = batch_row(x, &ab);
            if (r)
                *r = (h5_attempt_row){h5_cs(at->run_id), at->nworkers, at->start_wall_ns,
                                      at->end_wall_ns};
        }
        batch_end(x, &ab);
    }
    put_sum_roles(x, m);
    batch cb;
    if (batch_begin(x, &cb, &h5t_sum_caveats) == 0) {
        for (size_t i = 0; i < m->ncaveats; i++) {
            const run_caveat *c = &m->caveats[i];
            h5_caveat_row *r = batch_row(x, &cb);
            if (r)
                *r = (h5_caveat_row){run_caveat_kind_name(c->kind), index_or_minus1(c->worker),
                                     c->text};
        }
        batch_end(x, &cb);
    }
    export_h5_put_resources(x, m,
                            (const run_h5_table *const[5]){&h5t_sum_res, &h5t_sum_res_buckets,
                                                           &h5t_sum_res_nodes, &h5t_sum_gpus,
                                                           &h5t_sum_gpu_buckets});
}
