/*
 * export --format hdf5: the run in scope's own HDF5 layout (run_h5_layout.h,
 * docs/hdf5.md).  Per-process tables are written a batch of rows at a time,
 * so memory stays that of the loaded model plus one batch.
 */
#include "export_formats.h"

#include "arena.h"
#include "export_h5_batch.h"
#include "progress.h"
#include "run_builder.h"
#include "run_h5_layout.h"
#include "run_lines.h"
#include "run_live.h"
#include "worker_log.h"

#include <h5_table.h>
#include <math.h>
#include <scope/log_hist.h>
#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the processes as loaded ------------------------------------------------ */

static void put_processes(export_ctx *x, const run_model *m, const worker_log *logs) {
    batch b;
    if (batch_begin(x, &b, &h5t_processes) < 0)
        return;
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        const worker_log *log = &logs[i];
        h5_process_row *r = batch_row(x, &b);
        if (!r)
            break;
        *r = (h5_process_row){
            .path = h5_cs(w->path),
            .readable = (uint8_t)w->readable,
            .has_process = (uint8_t)w->has_process,
            .truncated = (uint8_t)w->truncated,
            .flush_failed = (uint8_t)w->flush_failed,
            .run_id = h5_cs(w->run_id),
            .uuid = h5_cs(w->uuid),
            .host = h5_cs(w->host),
            .role = h5_cs(w->role),
            .job_id = h5_cs(w->job_id),
            .step_id = h5_cs(w->step_id),
            .exe = h5_cs(w->exe),
            .cwd = h5_cs(w->cwd),
            .recorder_version = h5_cs(w->recorder_version),
            .pid = w->pid,
            .ppid = w->ppid,
            .rank = w->rank,
            .local_rank = w->local_rank,
            .node_rank = w->node_rank,
            .world_size = w->world_size,
            .start_wall_ns = w->start_wall_ns,
            .last_wall_ns = w->last_wall_ns,
            .runtime_ns = w->runtime_ns,
            .frames = w->frames,
            .frames_lost = w->frames_lost,
            .bytes_skipped = w->bytes_skipped,
            .end = run_h5_end_name(w->end),
            .end_signal = w->end_signal,
            .unbalanced = w->unbalanced,
            .dropped = w->dropped,
            .nthreads = w->nthreads,
            .phase_ns = w->phase_ns,
            .open_rc = log->open_rc,
            .open_msg = log->open_msg,
            /* What staleness is judged by: the file keeps no PROCESS
             * settings, so the interval they state is folded in. */
            .max_gap_ns = run_frame_gap_ns(log),
            .open_phase_marks = log->open_phase_marks,
            .inconsistent = log->inconsistent,
            .inconsistent_what = log->inconsistent_what,
            .attempt = index_or_minus1(w->attempt),
            .role_index = index_or_minus1(w->role_index),
            .launcher_known = 1,
            .launcher = h5_cs(w->launcher),
            .array_job_id = h5_cs(w->array_job_id),
            .array_task = w->array_task,
            .restarts = w->restarts,
        };
    }
    batch_end(x, &b);
}

/* What the reader's caps left out of each log, so that the file's reader
 * says it as the run's did. */
static void put_caps(export_ctx *x, const run_model *m, const worker_log *logs) {
    batch c;
    if (batch_begin(x, &c, &h5t_caps) < 0)
        return;
    for (size_t i = 0; i < m->nworkers && !x->failed; i++) {
        const read_tally *t = &logs[i].tally;
        for (int k = 0; k < READ_KINDS; k++) {
            if (!t->hit[k])
                continue;
            h5_cap_row *r = batch_row(x, &c);
            if (r)
                *r = (h5_cap_row){
                    .process = (uint32_t)i,
                    .kind = run_h5_cap_kinds[k],
                    .left_out = t->left_out[k],
                    .cap = read_caps_cap_of(logs[i].caps, t, (enum read_cap_kind)k),
                    .by_run = (uint8_t)t->by_run[k],
                };
        }
    }
    batch_end(x, &c);
}

static void put_damage_and_notes(export_ctx *x, const run_model *m, const worker_log *logs) {
    put_caps(x, m, logs);
    batch d, n;
    if (batch_begin(x, &d, &h5t_damage) < 0 || batch_begin(x, &n, &h5t_notes) < 0) {
        batch_end(x, &d);
        return;
    }
    for (size_t i = 0; i < m->nworkers && !x->failed; i++) {
        for (size_t k = 0; k < logs[i].ndamage; k++) {
            const scope_log_damage *g = &logs[i].damage[k];
            h5_damage_row *r = batch_row(x, &d);
            if (r)
                *r = (h5_damage_row){(uint32_t)i, (uint8_t)g->truncated, g->offset,
                                     g->length,   g->frames_lost,        g->what};
        }
        for (size_t k = 0; k < logs[i].nnotes; k++) {
            h5_note_row *r = batch_row(x, &n);
            if (r)
                *r = (h5_note_row){(uint32_t)i, logs[i].notes[k]};
        }
    }
    batch_end(x, &d);
    batch_end(x, &n);
}

/* A node the merge could not place counted as inconsistent when the run was
 * loaded; leaving it out keeps the loaded file from counting it twice.  A
 * counter the merge refused likewise. */
static int counter_kept(worker_log *log, const log_counter *c) {
    if (!log_string_of(log, c->name))
        return 0;
    if (!c->node)
        return 1;
    const log_node *n = log_node_of(log, c->node);
    return n && !n->unplaced;
}

static void put_phase_nodes(export_ctx *x, const run_model *m, worker_log *logs) {
    batch nb, bb, cb;
    batch_begin(x, &nb, &h5t_nodes);
    batch_begin(x, &bb, &h5t_bins);
    batch_begin(x, &cb, &h5t_counters);
    for (size_t i = 0; i < m->nworkers && !x->failed; i++) {
        worker_log *log = &logs[i];
        for (size_t k = 0; k < log->nnodes; k++) {
            const log_node *n = &log->nodes[k];
            if (n->unplaced)
                continue;
            const run_str *name = log_string_of(log, n->name);
            const run_str *file = n->file ? log_string_of(log, n->file) : NULL;
            h5_node_row *r = batch_row(x, &nb);
            if (!r)
                break;
            *r = (h5_node_row){
                .process = (uint32_t)i,
                .id = n->id,
                .parent = n->parent,
                .thread = n->thread,
                .flags = n->flags,
                .line = n->line,
                .io_flags = n->io_flags,
                .name = name ? h5_cs(*name) : "",
                .file = file ? h5_cs(*file) : "",
                .named = name != NULL,
                .has_agg = (uint8_t)n->has_agg,
                .left_open = (uint8_t)n->left_open,
                .count = n->count,
                .wall_ns = n->wall_ns,
                .min_ns = n->min_ns,
                .max_ns = n->max_ns,
                .cpu_count = n->cpu_count,
                .cpu_wall_ns = n->cpu_wall_ns,
                .cpu_ns = n->cpu_ns,
                .io_count = n->io_count,
                .io_failed = n->io_failed,
                .disk_read = n->disk_read,
                .disk_write = n->disk_write,
                .char_read = n->char_read,
                .char_write = n->char_write,
                .delay_count = n->delay_count,
                .delay_wall_ns = n->delay_wall_ns,
                .delay_ns = n->delay_ns,
            };
            for (uint32_t k2 = 0; k2 < n->nbins; k2++) {
                h5_bin_row *br = batch_row(x, &bb);
                if (br)
                    *br = (h5_bin_row){(uint32_t)i, n->id, n->bins[k2].bucket, n->bins[k2].count};
            }
        }
        for (size_t k = 0; k < log->ncounters; k++) {
            const log_counter *c = &log->counters[k];
            if (!counter_kept(log, c))
                continue;
            h5_counter_row *r = batch_row(x, &cb);
            if (!r)
                break;
            *r = (h5_counter_row){
                (uint32_t)i, c->id,   c->node, c->thread, h5_cs(*log_string_of(log, c->name)),
                c->calls,    c->total};
        }
    }
    batch_end(x, &nb);
    batch_end(x, &bb);
    batch_end(x, &cb);
}

void export_h5_put_resources(export_ctx *x, const run_model *m, const run_h5_table *const t[5]) {
    batch rb, sb, nb, gb, gsb;
    batch_begin(x, &rb, t[0]);
    batch_begin(x, &sb, t[1]);
    batch_begin(x, &nb, t[2]);
    batch_begin(x, &gb, t[3]);
    batch_begin(x, &gsb, t[4]);
    for (size_t i = 0; i < m->nworkers && !x->failed; i++) {
        const res_proc *p = m->workers[i].res;
        if (!p)
            continue;
        uint32_t pi = (uint32_t)i;
        h5_res_row *r = batch_row(x, &rb);
        if (!r)
            break;
        *r = (h5_res_row){
            .process = pi,
            .present = p->present,
            .intervals = p->intervals,
            .sampled_ns = p->sampled_ns,
            .dropped = p->dropped,
            .first_wall_ns = p->first_wall_ns,
            .last_wall_ns = p->last_wall_ns,
            .disk_read = p->disk_read,
            .disk_write = p->disk_write,
            .char_read = p->char_read,
            .char_write = p->char_write,
            .cpu_user_ns = p->cpu_user_ns,
            .cpu_sys_ns = p->cpu_sys_ns,
            .rss_max = p->rss_max,
            .rss_peak = p->rss_peak,
            .rss_last = p->rss_last,
            .thread_records = p->thread_records,
            .t_disk_read = p->t_disk_read,
            .t_disk_write = p->t_disk_write,
            .t_char_read = p->t_char_read,
            .t_char_write = p->t_char_write,
            .t0_ns = p->s.t0_ns,
            .width_ns = p->s.width_ns,
            .nused = p->s.nused,
        };
        for (uint32_t k = 0; k < p->s.nused && k < RES_BUCKETS; k++) {
            h5_res_bucket_row *br = batch_row(x, &sb);
            if (br)
                *br = (h5_res_bucket_row){pi, k, p->s.t0_ns + k * p->s.width_ns, p->b[k]};
        }
        for (size_t k = 0; k < p->nnodes; k++) {
            h5_res_node_row *nr = batch_row(x, &nb);
            if (nr)
                *nr = (h5_res_node_row){pi, p->nodes[k]};
        }
        for (size_t g = 0; g < p->ngpus; g++) {
            const res_gpu_proc *gp = &p->gpus[g];
            h5_gpu_row *gr = batch_row(x, &gb);
            if (!gr)
                break;
            *gr = (h5_gpu_row){
                .process = pi,
                .slot = (uint32_t)g,
                .index = gp->index,
                .present = gp->present,
                .busy_max = gp->busy_max,
                .run_max = gp->run_max,
                .run_seen = (uint8_t)gp->run_seen,
                .busy_ns = gp->busy_ns,
                .run_ns = gp->run_ns,
                .busy_sum = gp->busy_sum,
                .run_sum = gp->run_sum,
                .mem_run_max = gp->mem_run_max,
                .mem_run_last = gp->mem_run_last,
                .mem_total = gp->mem_total,
                .mem_used_max = gp->mem_used_max,
                .t0_ns = gp->s.t0_ns,
                .width_ns = gp->s.width_ns,
                .nused = gp->s.nused,
            };
            for (uint32_t k = 0; k < gp->s.nused && k < RES_BUCKETS; k++) {
                h5_gpu_bucket_row *br = batch_row(x, &gsb);
                if (br)
                    *br = (h5_gpu_bucket_row){pi, (uint32_t)g, k, gp->s.t0_ns + k * gp->s.width_ns,
                                              gp->b[k]};
            }
        }
    }
    batch_end(x, &rb);
    batch_end(x, &sb);
    batch_end(x, &nb);
    batch_end(x, &gb);
    batch_end(x, &gsb);
}

static void put_lines(export_ctx *x, const run_model *m, const worker_log *logs) {
    batch mb, fb, sb, rb, xb;
    batch_begin(x, &mb, &h5t_modules);
    batch_begin(x, &fb, &h5t_frames);
    batch_begin(x, &sb, &h5t_samples);
    batch_begin(x, &rb, &h5t_sampler);
    batch_begin(x, &xb, &h5t_measured);
    for (size_t i = 0; i < m->nworkers && !x->failed; i++) {
        const log_lines *l = &logs[i].lines;
        uint32_t pi = (uint32_t)i;
        for (size_t k = 0; k < l->nmodules; k++) {
            const log_module *mo = &l->modules[k];
            h5_module_row *r = batch_row(x, &mb);
            if (r)
                *r = (h5_module_row){pi,       mo->id,  h5_cs(mo->path), hex(x, mo->build_id),
                                     mo->base, mo->size};
        }
        for (size_t k = 0; k < l->nstacks; k++) {
            const log_stack *st = &l->stacks[k];
            for (uint32_t d = 0; d < st->nframes; d++) {
                h5_frame_row *r = batch_row(x, &fb);
                if (r)
                    *r = (h5_frame_row){pi, st->id, st->frames[d].module, st->frames[d].offset};
            }
        }
        for (size_t k = 0; k < l->ncounts; k++) {
            const log_stack_count *c = &l->counts[k];
            h5_sample_row *r = batch_row(x, &sb);
            if (r)
                *r = (h5_sample_row){pi,       c->thread,    c->node, c->stack,
                                     c->count, c->period_ns, c->state};
        }
        if (l->has_record) {
            h5_sampler_row *r = batch_row(x, &rb);
            if (r)
                *r = (h5_sampler_row){
                    .process = pi,
                    .project = h5_cs(l->project),
                    .hz = l->rec.hz,
                    .clock = l->rec.clock,
                    .threads = l->rec.threads,
                    .threads_failed = l->rec.threads_failed,
                    .flags = l->rec.flags,
                    .period_ns = l->rec.period_ns,
                    .samples = l->rec.samples,
                    .dropped = l->rec.dropped,
                    .truncated = l->rec.truncated,
                    .format_minor = l->minor,
                };
        }
        for (size_t k = 0; k < l->nmeasured; k++) {
            const log_measured_line *ml = &l->measured[k];
            h5_measured_row *r = batch_row(x, &xb);
            if (r)
                *r = (h5_measured_row){.process = pi,
                                       .region = h5_cs(ml->region),
                                       .file = h5_cs(ml->file),
                                       .function = h5_cs(ml->function),
                                       .line = ml->line,
                                       .def_line = ml->def_line,
                                       .hits = ml->hits,
                                       .seconds = ml->seconds};
        }
    }
    batch_end(x, &mb);
    batch_end(x, &fb);
    batch_end(x, &sb);
    batch_end(x, &rb);
    batch_end(x, &xb);
}

/* ---- the model -------------------------------------------------------------- */

typedef struct phase_out {
    batch phases, counters, procs;
    uint64_t *hist; /* one row per phase, grown with them */
    size_t nhist, cap_hist;
    uint64_t next_row;     /* rows of /phases so far */
    const run_role *role;  /* the role being written */
    uint64_t *dominant_at; /* the rows of role->dominant, as they are written */
} phase_out;

static void put_counters(export_ctx *x, phase_out *o, uint32_t role, int64_t phase,
                         const run_counter *c, size_t n) {
    for (size_t k = 0; k < n; k++) {
        h5_phase_counter_row *r = batch_row(x, &o->counters);
        if (r)
            *r = (h5_phase_counter_row){role,       phase,           h5_cs(c[k].name), c[k].calls,
                                        c[k].total, c[k].rate_per_s, c[k].ns_per_unit};
    }
}

static int hist_room(export_ctx *x, phase_out *o) {
    /* A row is SCOPE_HIST_BUCKETS counts: cap_hist counts rows. */
    uint64_t *h =
        scope_vec_grow(o->hist, &o->cap_hist, o->nhist + 1, SCOPE_HIST_BUCKETS * sizeof *o->hist);
    if (!h) {
        export_oom(x);
        return -1;
    }
    o->hist = h;
    return 0;
}

/* The phase and its subtree in pre-order: a phase's row comes before its
 * children's, each naming its parent's row. */
static void put_phase(export_ctx *x, phase_out *o, uint32_t role, int64_t parent,
                      const char *parent_path, const run_phase *p) {
    if (x->failed)
        return;
    const char *path = h5_cs(p->name);
    if (parent_path) {
        size_t a = strlen(parent_path), n = p->name.len;
        char *s = arena_alloc(&x->mem, a + 1 + n + 1);
        if (!s) {
            export_oom(x);
            return;
        }
        memcpy(s, parent_path, a);
        s[a] = '/';
        if (n)
            memcpy(s + a + 1, p->name.s, n);
        path = s;
    }
    int64_t row = (int64_t)o->next_row++;
    h5_phase_row *r = batch_row(x, &o->phases);
    if (!r || hist_room(x, o) < 0)
        return;
    *r = (h5_phase_row){
        .role = role,
        .parent = parent,
        .depth = p->depth,
        .flags = p->flags,
        .line = p->line,
        .name = h5_cs(p->name),
        .path = path,
        .file = h5_cs(p->file),
        .nprocs = p->nprocs,
        .spread_min_ns = p->spread_min_ns,
        .spread_median_ns = p->spread_median_ns,
        .spread_max_ns = p->spread_max_ns,
        .spread_max_process = p->nprocs ? index_or_minus1(p->spread_max_worker) : -1,
        .has_histogram = p->hist != NULL,
        .io_measured = (uint8_t)p->io_measured,
        .io_count = p->io_count,
        .io_failed = p->io_failed,
        .disk_read = p->disk_read,
        .disk_write = p->disk_write,
        .char_read = p->char_read,
        .char_write = p->char_write,
        .cache_read = p->cache_read,
        .disk_bytes_per_s = p->disk_bytes_per_s,
        .smp_io = (uint8_t)p->smp_io,
        .smp_disk_read = p->smp_disk_read,
        .smp_disk_write = p->smp_disk_write,
        .smp_char_read = p->smp_char_read,
        .smp_char_write = p->smp_char_write,
    };
    enum phase_fig ids[PF_N];
    size_t nfig = phase_figures_in(PF_OUT_H5, ids);
    for (size_t k = 0; k < nfig; k++) {
        pf_value v = phase_fig_get(p, ids[k]);
        if (phase_figures[ids[k]].type == PF_F64)
            r->fig[k].d = v.d;
        else
            r->fig[k].u = v.u;
    }
    uint64_t *h = o->hist + o->nhist++ * SCOPE_HIST_BUCKETS;
    memset(h, 0, SCOPE_HIST_BUCKETS * sizeof *h);
    for (size_t k = 0; p->hist && k < p->nhist; k++)
        h[p->hist[k].bucket] = p->hist[k].count;
    for (size_t k = 0; k < p->nprocs; k++) { /* the processes that entered it, in order */
        h5_phase_process_row *pr = batch_row(x, &o->procs);
        if (pr)
            *pr = (h5_phase_process_row){
                (uint64_t)row, (uint32_t)o->role->workers[p->per_proc[k].proc], p->per_proc[k].ns};
    }
    for (size_t k = 0; k < o->role->ndominant; k++)
        if (o->role->dominant[k] == p)
            o->dominant_at[k] = (uint64_t)row;
    put_counters(x, o, role, row, p->counters, p->ncounters);
    for (size_t k = 0; k < p->nchildren; k++)
        put_phase(x, o, role, row, path, p->children[k]);
}

static void put_model(export_ctx *x, const run_model *m) {
    batch ab, rb, rpb, cb;
    if (batch_begin(x, &ab, &h5t_attempts) < 0)
        return;
    for (size_t a = 0; a < m->nattempts; a++) {
        const run_attempt *at = &m->attempts[a];
        h5_attempt_row *r = batch_row(x, &ab);
        if (r)
            *r = (h5_attempt_row){h5_cs(at->run_id), at->nworkers, at->start_wall_ns,
                                  at->end_wall_ns};
    }
    batch_end(x, &ab);

    phase_out o = {0};
    batch db;
    batch_begin(x, &rb, &h5t_roles);
    batch_begin(x, &rpb, &h5t_role_processes);
    batch_begin(x, &db, &h5t_dominant);
    batch_begin(x, &o.phases, run_h5_phases());
    batch_begin(x, &o.counters, &h5t_phase_counters);
    batch_begin(x, &o.procs, &h5t_phase_processes);
    for (size_t i = 0; i < m->nroles && !x->failed; i++) {
        const run_role *role = &m->roles[i];
        const run_dist *it = &role->iterations;
        h5_role_row *r = batch_row(x, &rb);
        if (!r)
            break;
        *r = (h5_role_row){
            .name = h5_cs(role->name),
            .nprocs = role->nprocs,
            .nphases = role->nphases,
            .phase_ns = role->phase_ns,
            .imbalance = role->imbalance,
            .slowest_process = index_or_minus1(role->slowest_worker),
            .first_phase = o.next_row,
            .has_iterations = (uint8_t)role->has_iterations,
            .iterations_count = it->count,
            .iterations_total_ns = it->total_ns,
            .iterations_min_ns = it->min_ns,
            .iterations_max_ns = it->max_ns,
            .iterations_mean_ns = it->mean_ns,
            .iterations_p50_ns = it->p50_ns,
            .iterations_p95_ns = it->p95_ns,
            .iterations_p99_ns = it->p99_ns,
        };
        for (size_t k = 0; k < role->nprocs; k++) {
            h5_role_process_row *rp = batch_row(x, &rpb);
            if (rp)
                *rp = (h5_role_process_row){(uint32_t)i, (uint32_t)role->workers[k]};
        }
        o.role = role;
        o.dominant_at = calloc(role->ndominant + 1, sizeof *o.dominant_at);
        if (!o.dominant_at) {
            export_oom(x);
            break;
        }
        put_counters(x, &o, (uint32_t)i, -1, role->unattached, role->nunattached);
        for (size_t k = 0; role->root && k < role->root->nchildren; k++)
            put_phase(x, &o, (uint32_t)i, -1, NULL, role->root->children[k]);
        for (size_t k = 0; k < role->ndominant; k++) {
            h5_dominant_row *dr = batch_row(x, &db);
            if (dr)
                *dr = (h5_dominant_row){(uint32_t)i, (uint32_t)k, o.dominant_at[k]};
        }
        free(o.dominant_at);
    }
    batch_end(x, &rb);
    batch_end(x, &rpb);
    batch_end(x, &db);
    batch_end(x, &o.phases);
    batch_end(x, &o.counters);
    batch_end(x, &o.procs);
    if (!x->failed && scope_h5_matrix_u64_write(x->f, RUN_H5_PHASE_HIST, o.hist, o.nhist,
                                                SCOPE_HIST_BUCKETS, x->msg, x->msglen) < 0)
        x->failed = 1;
    free(o.hist);

    if (batch_begin(x, &cb, &h5t_caveats) < 0)
        return;
    for (size_t i = 0; i < m->ncaveats; i++) {
        const run_caveat *c = &m->caveats[i];
        h5_caveat_row *r = batch_row(x, &cb);
        if (r)
            *r =
                (h5_caveat_row){run_caveat_kind_name(c->kind), index_or_minus1(c->worker), c->text};
    }
    batch_end(x, &cb);
}

/* The hot lines, symbolized now (the model caches them).  After /caveats:
 * symbolizing adds the lines' own caveats to the model, and /caveats holds
 * the report's. */
static void put_hot_lines(export_ctx *x, run_model *m) {
    batch b;
    if (batch_begin(x, &b, &h5t_lines) < 0)
        return;
    run_lines_info info;
    run_lines_result r = {0};
    char why[256];
    run_lines_query q = {.worker = SIZE_MAX, .attr = RUN_LINES_PROJECT, .sort = RUN_LINES_BY_TIME};
    /* A run without line samples has an empty table. */
    if (run_lines_load(m, NULL, &info, why, sizeof why) == 0 && info.has_lines &&
        run_lines_select(m, &q, &r, why, sizeof why) == 0) {
        for (size_t i = 0; i < r.nrows; i++) {
            const run_line *l = &r.rows[i];
            h5_line_row *row = batch_row(x, &b);
            if (row)
                *row = (h5_line_row){
                    .file = h5_cs(l->file),
                    .function = h5_cs(l->function),
                    .linkage_name = h5_cs(l->linkage),
                    .module = h5_cs(l->module),
                    .kind = l->kind == RUN_LINE_MEASURED ? "measured" : "sampled",
                    .line = l->line,
                    .approximate = (uint8_t)l->approximate,
                    .samples = l->samples,
                    .hits = l->hits,
                    .seconds = l->seconds,
                    .share = l->share,
                    .share_sd = l->share_sd,
                };
        }
        /* The rows' strings belong to the result: out before it is freed. */
        batch_flush(x, &b);
        run_lines_free(&r);
    }
    batch_end(x, &b);
}

static void put_header(export_ctx *x, const run_model *m, const char *run) {
    struct {
        const char *name;
        int64_t v;
    } ints[] = {
        {RUN_H5_ATTR_VERSION, RUN_H5_LAYOUT_VERSION}, {"processes", (int64_t)m->nprocs},
        {"start_wall_ns", (int64_t)m->start_wall_ns}, {"end_wall_ns", (int64_t)m->end_wall_ns},
        {"runtime_ns", (int64_t)m->runtime_ns},       {"hist_buckets", SCOPE_HIST_BUCKETS},
    };
    if (scope_h5_attr_put_str(x->f, "/", RUN_H5_ATTR_LAYOUT, RUN_H5_LAYOUT, x->msg, x->msglen) <
            0 ||
        scope_h5_attr_put_str(x->f, "/", "source", run, x->msg, x->msglen) < 0 ||
        scope_h5_attr_put_str(x->f, "/", "iteration_name", m->iteration_name, x->msg, x->msglen) <
            0 ||
        scope_h5_attr_put_str(x->f, "/", "scope_version", SCOPE_VERSION, x->msg, x->msglen) < 0) {
        x->failed = 1;
        return;
    }
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (scope_h5_attr_put_i64(x->f, "/", ints[i].name, ints[i].v, x->msg, x->msglen) < 0) {
            x->failed = 1;
            return;
        }
}

/* What a file holds (docs/hdf5.md): everything (an export of a run read
 * from its logs); the model as /summary with the model's tables (SUMMARY,
 * or an export of a model that has no processes' tables: one merged from
 * parts); or /summary alone (a part of scope-reduce, which rank 0 merges). */
enum h5_content { H5_WHOLE, H5_SUMMARY, H5_PART };

static int write_file(const run_model *m, const char *run, int fd, enum h5_content what, char *msg,
                      size_t msglen) {
    export_ctx x = {.msg = msg, .msglen = msglen};
    /* The loaded processes' tables are the model's own; writing them
     * changes nothing.  A model merged from parts has none. */
    worker_log *logs = run_model_has_logs(m) ? run_model_logs((run_model *)m) : NULL;
    if (what == H5_WHOLE && !logs)
        what = H5_SUMMARY;
    x.f = scope_h5_create_fd(fd, msg, msglen);
    if (!x.f)
        return -1;
    /* Eight parts, each a pass over every process (the hot lines symbolize
     * the samples first, which shows its own progress). */
    progress prog;
    progress_begin(&prog, "exporting to HDF5", "part", "parts", 8);
    put_header(&x, m, run);
    progress_step(&prog, 1);
    if (what == H5_WHOLE) {
        put_processes(&x, m, logs);
        progress_step(&prog, 2);
        put_damage_and_notes(&x, m, logs);
        progress_step(&prog, 3);
        put_phase_nodes(&x, m, logs);
        progress_step(&prog, 4);
        export_h5_put_resources(&x, m,
                                (const run_h5_table *const[5]){&h5t_res, &h5t_res_buckets,
                                                               &h5t_res_nodes, &h5t_gpus,
                                                               &h5t_gpu_buckets});
        progress_step(&prog, 5);
        put_lines(&x, m, logs);
    } else {
        export_h5_put_summary(&x, m);
    }
    progress_step(&prog, 6);
    if (what != H5_PART) {
        put_model(&x, m);
        progress_step(&prog, 7);
        if (what == H5_WHOLE) /* a summary's hot lines would be symbolized on the ranks */
            put_hot_lines(&x, (run_model *)m);
    }
    progress_step(&prog, 8);
    progress_end(&prog);
    if (scope_h5_close(x.f, x.failed ? NULL : msg, msglen) < 0)
        x.failed = 1;
    arena_free(&x.mem);
    return x.failed ? -1 : 0;
}

static int write_hdf5(const run_model *m, const char *run, int fd, char *msg, size_t msglen) {
    return write_file(m, run, fd, H5_WHOLE, msg, msglen);
}

static int write_hdf5_summary(const run_model *m, const char *run, int fd, char *msg,
                              size_t msglen) {
    return write_file(m, run, fd, H5_SUMMARY, msg, msglen);
}

static int write_hdf5_part(const run_model *m, const char *run, int fd, char *msg, size_t msglen) {
    return write_file(m, run, fd, H5_PART, msg, msglen);
}

const export_format export_format_hdf5 = {
    "hdf5", "the whole model in scope's HDF5 layout (docs/hdf5.md), which report reads back",
    write_hdf5};

const export_format export_format_hdf5_summary = {
    "hdf5-summary", "the model as /summary in scope's HDF5 layout, without the processes' tables",
    write_hdf5_summary};

const export_format export_format_hdf5_part = {
    "hdf5-part", "the model as /summary alone: a part of scope-reduce, merged by rank 0",
    write_hdf5_part};
