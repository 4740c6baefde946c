/*
 * run_h5_loader: a file of scope's own HDF5 layout (run_h5_layout.h) read
 * back into one worker_log per process, through the same functions the
 * log reader fills them with, so the merge and the caveats see what they
 * saw when the run directory was loaded.
 *
 * Everything read is checked before it is used: a table that is missing,
 * of the wrong types, or whose rows name processes, nodes or buckets that
 * do not exist makes the whole file fail with one line saying where.
 */
#include "run_h5_loader.h"

#include "run_builder.h"
#include "run_h5_layout.h"
#include "run_h5_load_priv.h"
#include "run_h5_summary.h"
#include "text_escape.h"
#include "worker_log.h"

#include <h5_child.h>
#include <h5_probe.h>
#include <h5_table.h>
#include <scope/log_hist.h>
#include <scope/vec.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The most a table may expand from its bytes in the file: deflate's limit
 * is 1032:1; a table claiming more rows than that would take is refused
 * before memory is spent on it. */
#define MAX_EXPANSION 1100

void bad(h5_load *l, const char *fmt, ...) {
    if (l->failed)
        return;
    l->failed = 1;
    char what[600], what_shown[700], shown[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    scope_escape((const uint8_t *)l->path, strlen(l->path), shown, sizeof shown, 0);
    /* It may quote the file's own names (a link's target). */
    scope_escape((const uint8_t *)what, strlen(what), what_shown, sizeof what_shown, 0);
    snprintf(l->msg, l->msglen, "%s: %s", shown, what_shown);
}

static size_t max_rows(const h5_load *l, const scope_h5_table *t) {
    return (size_t)(l->file_size / t->row_size * MAX_EXPANSION + 64);
}

void *read_table(h5_load *l, const run_h5_table *t, size_t *n) {
    void *rows = NULL;
    char err[400];
    *n = 0;
    if (l->failed)
        return NULL;
    if (scope_h5_table_read(l->f, t->path, &t->t, max_rows(l, &t->t), &rows, n, err, sizeof err) <
        0) {
        bad(l, "%s", err);
        return NULL;
    }
    return rows;
}

/* Row k of a per-process table names a process of the file. */
static worker_log *log_of(h5_load *l, const run_h5_table *t, size_t k, uint32_t process) {
    if (process >= l->nlogs) {
        bad(l, "%s row %zu names process %u; the file has %zu", t->path, k, process, l->nlogs);
        return NULL;
    }
    return &l->logs[process];
}

static run_str dup_str(worker_log *log, const char *s) {
    return run_str_dup(&log->mem, s ? s : "", s ? strlen(s) : 0);
}

/* A fresh string id of the process for s (names are matched by their
 * bytes, never by id, so each use may have its own). */
static uint32_t add_string(h5_load *l, uint32_t process, const char *s) {
    uint32_t id = ++l->next_string[process];
    size_t n = s ? strlen(s) : 0;
    log_add_string(&l->logs[process], &(scope_rec_string){id, {(const uint8_t *)(s ? s : ""), n}});
    return id;
}

/* ---- the processes ------------------------------------------------------------ */

static void load_process(h5_load *l, size_t i, const h5_process_row *r) {
    worker_log *log = &l->logs[i];
    run_worker *w = &log->w;
    int end = run_h5_end_of(r->end ? r->end : "");
    if (end < 0) {
        bad(l, "%s row %zu: end '%s' is none of exit, signal, killed, unknown", h5t_processes.path,
            i, r->end ? r->end : "");
        return;
    }
    w->path = dup_str(log, r->path);
    w->readable = r->readable != 0;
    w->has_process = r->has_process != 0;
    w->run_id = dup_str(log, r->run_id);
    w->uuid = dup_str(log, r->uuid);
    w->host = dup_str(log, r->host);
    w->role = dup_str(log, r->role);
    w->job_id = dup_str(log, r->job_id);
    w->step_id = dup_str(log, r->step_id);
    w->exe = dup_str(log, r->exe);
    w->cwd = dup_str(log, r->cwd);
    w->recorder_version = dup_str(log, r->recorder_version);
    w->pid = r->pid;
    w->ppid = r->ppid;
    w->rank = r->rank;
    w->local_rank = r->local_rank;
    w->node_rank = r->node_rank;
    w->world_size = r->world_size;
    if (r->launcher_known) {
        w->launcher = dup_str(log, r->launcher);
        w->array_job_id = dup_str(log, r->array_job_id);
        w->array_task = r->array_task;
        w->restarts = r->restarts;
    } else {
        w->array_task = w->restarts = -1;
    }
    w->start_wall_ns = r->start_wall_ns;
    w->last_wall_ns = r->last_wall_ns;
    w->runtime_ns = r->runtime_ns;
    w->frames = r->frames;
    w->frames_lost = r->frames_lost;
    w->bytes_skipped = r->bytes_skipped;
    w->truncated = r->truncated != 0;
    w->end = (enum run_end)end;
    w->end_signal = r->end_signal;
    w->flush_failed = r->flush_failed != 0;
    log->open_rc = w->readable ? 0 : (r->open_rc < 0 ? r->open_rc : -1);
    snprintf(log->open_msg, sizeof log->open_msg, "%s", r->open_msg ? r->open_msg : "");
    log->max_gap_ns = r->max_gap_ns;
    log->open_phase_marks = r->open_phase_marks;
    log->frames = r->frames;
    log->last_wall_ns = r->last_wall_ns;
}

/* What worker_log_settle derives from the tables, and the inconsistencies
 * the log's reader counted, as the file states them: the tables written
 * leave out what was inconsistent, so they would not count it again. */
static void settle_process(h5_load *l, size_t i) {
    worker_log *log = &l->logs[i];
    const h5_process_row *r = &l->procs[i];
    log->w.unbalanced = r->unbalanced;
    log->w.dropped = r->dropped;
    log->w.nthreads = r->nthreads;
    log->w.phase_ns = r->phase_ns;
    log->inconsistent = r->inconsistent;
    snprintf(log->inconsistent_what, sizeof log->inconsistent_what, "%s",
             r->inconsistent_what ? r->inconsistent_what : "");
    log->lines.inconsistent = 0;
    log->w.res = log->res;
    log->nomem |= log->lines.nomem;
}

static void load_damage_and_notes(h5_load *l) {
    size_t n;
    h5_damage_row *d = read_table(l, &h5t_damage, &n);
    for (size_t k = 0; d && k < n && !l->failed; k++) {
        worker_log *log = log_of(l, &h5t_damage, k, d[k].process);
        if (!log)
            break;
        if (SCOPE_VEC_RESERVE(log->damage, log->cap_damage, log->ndamage + 1) < 0) {
            bad(l, "out of memory");
            break;
        }
        scope_log_damage *g = &log->damage[log->ndamage++];
        *g =
            (scope_log_damage){d[k].offset, d[k].length, d[k].frames_lost, d[k].truncated != 0, ""};
        snprintf(g->what, sizeof g->what, "%s", d[k].what ? d[k].what : "");
    }
    scope_h5_table_free(&h5t_damage.t, d, n);

    h5_note_row *notes = read_table(l, &h5t_notes, &n);
    for (size_t k = 0; notes && k < n && !l->failed; k++) {
        worker_log *log = log_of(l, &h5t_notes, k, notes[k].process);
        const char *t = notes[k].text ? notes[k].text : "";
        if (log)
            log_add_note(log, (scope_bytes){(const uint8_t *)t, strlen(t)});
    }
    scope_h5_table_free(&h5t_notes.t, notes, n);

    /* An export made before the table existed says nothing of caps. */
    if (l->failed || !scope_h5_exists(l->f, h5t_caps.path))
        return;
    h5_cap_row *caps = read_table(l, &h5t_caps, &n);
    for (size_t k = 0; caps && k < n && !l->failed; k++) {
        worker_log *log = log_of(l, &h5t_caps, k, caps[k].process);
        if (!log)
            break;
        int kind = -1;
        for (int j = 0; j < READ_KINDS; j++)
            if (caps[k].kind && !strcmp(caps[k].kind, run_h5_cap_kinds[j]))
                kind = j;
        if (kind < 0 || !caps[k].cap) {
            bad(l,
                "%s row %zu: kind '%s', cap %llu: a kind of nodes, counters, names or "
                "histograms and a cap >= 1 wanted",
                h5t_caps.path, k, caps[k].kind ? caps[k].kind : "",
                (unsigned long long)caps[k].cap);
            break;
        }
        log->tally.hit[kind] = 1;
        log->tally.left_out[kind] = caps[k].left_out;
        log->tally.by_run[kind] = caps[k].by_run != 0;
        log->tally.cap[kind] = caps[k].cap;
    }
    scope_h5_table_free(&h5t_caps.t, caps, n);
}

/* ---- phases and counters -------------------------------------------------------- */

/* The bins of node row k: the rows of bins at *cursor naming its process
 * and node, buckets strictly increasing. */
static scope_hist_bin *node_bins(h5_load *l, const h5_node_row *nr, size_t k,
                                 const h5_bin_row *bins, size_t nbins, size_t *cursor,
                                 uint32_t *count) {
    size_t first = *cursor;
    while (*cursor < nbins && bins[*cursor].process == nr->process && bins[*cursor].node == nr->id)
        (*cursor)++;
    *count = (uint32_t)(*cursor - first);
    if (!*count)
        return NULL;
    if (*cursor - first > SCOPE_HIST_BUCKETS) {
        bad(l, "%s: node row %zu has more bins than buckets", h5t_bins.path, k);
        return NULL;
    }
    scope_hist_bin *out = malloc(*count * sizeof *out);
    if (!out) {
        bad(l, "out of memory");
        return NULL;
    }
    for (size_t b = first; b < *cursor; b++) {
        if (bins[b].bucket >= SCOPE_HIST_BUCKETS ||
            (b > first && bins[b].bucket <= bins[b - 1].bucket)) {
            bad(l, "%s row %zu: bucket %u out of order or past %u", h5t_bins.path, b,
                bins[b].bucket, (unsigned)SCOPE_HIST_BUCKETS);
            free(out);
            return NULL;
        }
        out[b - first] = (scope_hist_bin){bins[b].bucket, bins[b].count};
    }
    return out;
}

static void load_nodes(h5_load *l) {
    size_t n, nbins, cursor = 0;
    h5_node_row *nodes = read_table(l, &h5t_nodes, &n);
    h5_bin_row *bins = read_table(l, &h5t_bins, &nbins);
    for (size_t k = 0; nodes && bins && k < n && !l->failed; k++) {
        const h5_node_row *r = &nodes[k];
        worker_log *log = log_of(l, &h5t_nodes, k, r->process);
        if (!log)
            break;
        uint32_t name = r->named ? add_string(l, r->process, r->name) : 0;
        uint32_t file = r->file && *r->file ? add_string(l, r->process, r->file) : 0;
        log_add_node(log, &(scope_rec_phase_node){r->id, r->parent, name, r->thread, r->flags, file,
                                                  r->line});
        uint32_t nb = 0;
        scope_hist_bin *b = node_bins(l, r, k, bins, nbins, &cursor, &nb);
        if (l->failed)
            break;
        if (r->has_agg)
            log_add_agg(log, &(scope_rec_phase_agg){
                                 .node = r->id,
                                 .count = r->count,
                                 .wall_ns = r->wall_ns,
                                 .min_ns = r->min_ns,
                                 .max_ns = r->max_ns,
                                 .cpu_count = r->cpu_count,
                                 .cpu_wall_ns = r->cpu_wall_ns,
                                 .cpu_ns = r->cpu_ns,
                                 .io_flags = r->io_flags,
                                 .io_count = r->io_count,
                                 .io_failed = r->io_failed,
                                 .disk_read = r->disk_read,
                                 .disk_write = r->disk_write,
                                 .char_read = r->char_read,
                                 .char_write = r->char_write,
                                 .delay_count = r->delay_count,
                                 .delay_wall_ns = r->delay_wall_ns,
                                 .delay_ns = r->delay_ns,
                                 .nbins = nb,
                                 .bins = b,
                             });
        free(b);
        log_node *ln = log_node_of(log, r->id);
        if (ln)
            ln->left_open = r->left_open != 0;
    }
    if (!l->failed && cursor != nbins)
        bad(l, "%s row %zu names no phase node of %s (rows follow their nodes)", h5t_bins.path,
            cursor, h5t_nodes.path);
    for (size_t i = 0; i < l->nlogs; i++)
        log_settle_pending(&l->logs[i]);
    scope_h5_table_free(&h5t_nodes.t, nodes, n);
    scope_h5_table_free(&h5t_bins.t, bins, nbins);
}

static void load_counters(h5_load *l) {
    size_t n;
    h5_counter_row *c = read_table(l, &h5t_counters, &n);
    for (size_t k = 0; c && k < n && !l->failed; k++) {
        worker_log *log = log_of(l, &h5t_counters, k, c[k].process);
        if (!log)
            break;
        uint32_t name = add_string(l, c[k].process, c[k].name);
        log_add_counter(log, &(scope_rec_counter){c[k].id, name, c[k].node, c[k].thread, c[k].calls,
                                                  c[k].total});
    }
    scope_h5_table_free(&h5t_counters.t, c, n);
}

/* ---- resources -------------------------------------------------------------------- */

/* The resources slot of process row k of t names: a log's, or (a summary)
 * the load's own.  NULL with the load failed when there is no such process. */
static res_proc **res_slot(h5_load *l, const run_h5_table *t, size_t k, uint32_t process) {
    if (!l->logs) {
        if (process >= l->nres) {
            bad(l, "%s row %zu names process %u; the file has %zu", t->path, k, process, l->nres);
            return NULL;
        }
        return &l->res[process];
    }
    worker_log *log = log_of(l, t, k, process);
    return log ? &log->res : NULL;
}

static res_proc *res_of(h5_load *l, const run_h5_table *t, const run_h5_table *rows, size_t k,
                        uint32_t process) {
    res_proc **slot = res_slot(l, t, k, process);
    if (slot && !*slot)
        bad(l, "%s row %zu names process %u, which has no row in %s", t->path, k, process,
            rows->path);
    return slot ? *slot : NULL;
}

static void load_res_rows(h5_load *l, const run_h5_table *t) {
    size_t n;
    h5_res_row *r = read_table(l, t, &n);
    for (size_t k = 0; r && k < n && !l->failed; k++) {
        res_proc **slot = res_slot(l, t, k, r[k].process);
        if (!slot)
            break;
        if (*slot || r[k].nused > RES_BUCKETS) {
            bad(l, "%s row %zu: %s", t->path, k,
                *slot ? "a second row for its process" : "more buckets than a series holds");
            break;
        }
        res_proc *p = calloc(1, sizeof *p);
        if (!p) {
            bad(l, "out of memory");
            break;
        }
        *slot = p;
        *p = (res_proc){
            .present = r[k].present,
            .intervals = r[k].intervals,
            .sampled_ns = r[k].sampled_ns,
            .dropped = r[k].dropped,
            .first_wall_ns = r[k].first_wall_ns,
            .last_wall_ns = r[k].last_wall_ns,
            .disk_read = r[k].disk_read,
            .disk_write = r[k].disk_write,
            .char_read = r[k].char_read,
            .char_write = r[k].char_write,
            .cpu_user_ns = r[k].cpu_user_ns,
            .cpu_sys_ns = r[k].cpu_sys_ns,
            .rss_max = r[k].rss_max,
            .rss_peak = r[k].rss_peak,
            .rss_last = r[k].rss_last,
            .thread_records = r[k].thread_records,
            .t_disk_read = r[k].t_disk_read,
            .t_disk_write = r[k].t_disk_write,
            .t_char_read = r[k].t_char_read,
            .t_char_write = r[k].t_char_write,
            .s = {r[k].t0_ns, r[k].width_ns, r[k].nused},
        };
    }
    scope_h5_table_free(&t->t, r, n);
}

static void load_res_series(h5_load *l, const run_h5_table *const t[5]) {
    size_t n;
    h5_res_bucket_row *b = read_table(l, t[1], &n);
    for (size_t k = 0; b && k < n && !l->failed; k++) {
        res_proc *p = res_of(l, t[1], t[0], k, b[k].process);
        if (p && b[k].bucket >= p->s.nused)
            bad(l, "%s row %zu: bucket %u past the series' %u", t[1]->path, k, b[k].bucket,
                p->s.nused);
        else if (p)
            p->b[b[k].bucket] = b[k].b;
    }
    scope_h5_table_free(&t[1]->t, b, n);

    h5_res_node_row *io = read_table(l, t[2], &n);
    for (size_t k = 0; io && k < n && !l->failed; k++) {
        res_proc *p = res_of(l, t[2], t[0], k, io[k].process);
        uint32_t seen;
        if (!p)
            break;
        if (idmap_get(&p->node_ix, io[k].io.node, &seen)) {
            bad(l, "%s row %zu: node %u twice", t[2]->path, k, io[k].io.node);
            break;
        }
        if (SCOPE_VEC_RESERVE(p->nodes, p->cap_nodes, p->nnodes + 1) < 0 ||
            idmap_put(&p->node_ix, io[k].io.node, (uint32_t)p->nnodes) < 0) {
            bad(l, "out of memory");
            break;
        }
        p->nodes[p->nnodes++] = io[k].io;
    }
    scope_h5_table_free(&t[2]->t, io, n);
}

static void load_gpus(h5_load *l, const run_h5_table *const t[5]) {
    size_t n;
    h5_gpu_row *g = read_table(l, t[3], &n);
    for (size_t k = 0; g && k < n && !l->failed; k++) {
        res_proc *p = res_of(l, t[3], t[0], k, g[k].process);
        if (!p)
            break;
        if (g[k].slot != p->ngpus || p->ngpus >= RES_MAX_GPUS || g[k].nused > RES_BUCKETS) {
            bad(l,
                "%s row %zu: slot %u out of order, past %d devices, or more buckets than a "
                "series holds",
                t[3]->path, k, g[k].slot, RES_MAX_GPUS);
            break;
        }
        if (SCOPE_VEC_RESERVE(p->gpus, p->cap_gpus, p->ngpus + 1) < 0) {
            bad(l, "out of memory");
            break;
        }
        res_gpu_proc *gp = &p->gpus[p->ngpus++];
        memset(gp, 0, sizeof *gp);
        gp->index = g[k].index;
        gp->present = g[k].present;
        gp->run_seen = g[k].run_seen != 0;
        gp->busy_ns = g[k].busy_ns;
        gp->run_ns = g[k].run_ns;
        gp->busy_sum = g[k].busy_sum;
        gp->run_sum = g[k].run_sum;
        gp->busy_max = g[k].busy_max;
        gp->run_max = g[k].run_max;
        gp->mem_run_max = g[k].mem_run_max;
        gp->mem_run_last = g[k].mem_run_last;
        gp->mem_total = g[k].mem_total;
        gp->mem_used_max = g[k].mem_used_max;
        gp->s = (res_series){g[k].t0_ns, g[k].width_ns, g[k].nused};
    }
    scope_h5_table_free(&t[3]->t, g, n);

    h5_gpu_bucket_row *b = read_table(l, t[4], &n);
    for (size_t k = 0; b && k < n && !l->failed; k++) {
        res_proc *p = res_of(l, t[4], t[0], k, b[k].process);
        if (!p)
            break;
        if (b[k].slot >= p->ngpus || b[k].bucket >= p->gpus[b[k].slot].s.nused) {
            bad(l, "%s row %zu: device slot %u or bucket %u is not in %s", t[4]->path, k, b[k].slot,
                b[k].bucket, t[3]->path);
            break;
        }
        p->gpus[b[k].slot].b[b[k].bucket] = b[k].b;
    }
    scope_h5_table_free(&t[4]->t, b, n);
}

void load_resources(h5_load *l, const run_h5_table *const t[5]) {
    load_res_rows(l, t[0]);
    load_res_series(l, t);
    load_gpus(l, t);
}

/* ---- line samples ------------------------------------------------------------------ */

static int unhex(const char *s, uint8_t *out, size_t cap, size_t *n) {
    size_t len = strlen(s);
    if (len % 2 || len / 2 > cap)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    *n = len / 2;
    return 0;
}

static void load_modules(h5_load *l) {
    size_t n;
    h5_module_row *mo = read_table(l, &h5t_modules, &n);
    for (size_t k = 0; mo && k < n && !l->failed; k++) {
        worker_log *log = log_of(l, &h5t_modules, k, mo[k].process);
        uint8_t id[256];
        size_t idlen = 0;
        if (!log)
            break;
        if (unhex(mo[k].build_id ? mo[k].build_id : "", id, sizeof id, &idlen) < 0) {
            bad(l, "%s row %zu: build_id is not hexadecimal digits", h5t_modules.path, k);
            break;
        }
        const char *path = mo[k].path ? mo[k].path : "";
        log_lines_add_module(&log->lines, &log->mem,
                             &(scope_rec_module){mo[k].id,
                                                 {(const uint8_t *)path, strlen(path)},
                                                 {id, idlen},
                                                 mo[k].base,
                                                 mo[k].size});
    }
    scope_h5_table_free(&h5t_modules.t, mo, n);
}

static void load_stacks(h5_load *l) {
    size_t n;
    h5_frame_row *fr = read_table(l, &h5t_frames, &n);
    scope_frame_addr *frames = NULL;
    size_t cap = 0;
    for (size_t k = 0; fr && k < n && !l->failed;) {
        worker_log *log = log_of(l, &h5t_frames, k, fr[k].process);
        if (!log)
            break;
        size_t end = k;
        while (end < n && fr[end].process == fr[k].process && fr[end].stack == fr[k].stack)
            end++;
        if (end - k > UINT32_MAX || SCOPE_VEC_RESERVE(frames, cap, end - k) < 0) {
            bad(l, "out of memory");
            break;
        }
        for (size_t d = k; d < end; d++)
            frames[d - k] = (scope_frame_addr){fr[d].module, fr[d].offset};
        log_lines_add_stack(&log->lines, &log->mem,
                            &(scope_rec_stack){fr[k].stack, (uint32_t)(end - k), frames});
        k = end;
    }
    free(frames);
    scope_h5_table_free(&h5t_frames.t, fr, n);
}

static void load_samples(h5_load *l) {
    size_t n;
    h5_sample_row *s = read_table(l, &h5t_samples, &n);
    for (size_t k = 0; s && k < n && !l->failed; k++) {
        worker_log *log = log_of(l, &h5t_samples, k, s[k].process);
        if (!log)
            break;
        scope_stack_count c = {s[k].stack, s[k].count};
        log_lines_add_samples(&log->lines, &(scope_rec_stack_samples){.thread = s[k].thread,
                                                                      .node = s[k].node,
                                                                      .period_ns = s[k].period_ns,
                                                                      .n = 1,
                                                                      .counts = &c,
                                                                      .state = s[k].state});
    }
    scope_h5_table_free(&h5t_samples.t, s, n);

    h5_sampler_row *r = read_table(l, &h5t_sampler, &n);
    for (size_t k = 0; r && k < n && !l->failed; k++) {
        worker_log *log = log_of(l, &h5t_sampler, k, r[k].process);
        if (!log)
            break;
        const char *project = r[k].project ? r[k].project : "";
        log_lines_set(&log->lines, &log->mem,
                      &(scope_rec_lines){
                          .project = {(const uint8_t *)project, strlen(project)},
                          .hz = r[k].hz,
                          .clock = r[k].clock,
                          .period_ns = r[k].period_ns,
                          .samples = r[k].samples,
                          .dropped = r[k].dropped,
                          .truncated = r[k].truncated,
                          .threads = r[k].threads,
                          .threads_failed = r[k].threads_failed,
                          .flags = r[k].flags,
                      });
        if (r[k].format_minor > UINT16_MAX) {
            bad(l, "%s, row %zu: format minor version %llu is past any", h5t_sampler.path, k,
                (unsigned long long)r[k].format_minor);
            break;
        }
        log->lines.minor = (uint16_t)r[k].format_minor;
    }
    scope_h5_table_free(&h5t_sampler.t, r, n);
}

/* A row's string as it is, copied by whoever keeps it. */
static run_str view(const char *s) {
    return (run_str){s ? s : "", s ? strlen(s) : 0};
}

/* Lines measured exactly.  An export made before the table existed has
 * none: it could hold no measured lines. */
static void load_measured(h5_load *l) {
    if (l->failed || !scope_h5_exists(l->f, h5t_measured.path))
        return;
    size_t n;
    h5_measured_row *r = read_table(l, &h5t_measured, &n);
    for (size_t k = 0; r && k < n && !l->failed; k++) {
        worker_log *log = log_of(l, &h5t_measured, k, r[k].process);
        if (!log)
            break;
        if (r[k].line == 0 || !(r[k].seconds >= 0)) {
            bad(l, "%s row %zu: line %u, %g s: a measured line needs a line >= 1 and a time >= 0",
                h5t_measured.path, k, r[k].line, r[k].seconds);
            break;
        }
        log_lines_add_measured(&log->lines, &log->mem,
                               &(log_measured_line){
                                   .file = view(r[k].file),
                                   .function = view(r[k].function),
                                   .region = view(r[k].region),
                                   .line = r[k].line,
                                   .def_line = r[k].def_line,
                                   .hits = r[k].hits,
                                   .seconds = r[k].seconds,
                               });
        if (log->lines.nomem)
            bad(l, "out of memory");
    }
    scope_h5_table_free(&h5t_measured.t, r, n);
}

/* ---- the loader -------------------------------------------------------------------- */

/* The layout named by the file's root attribute; "" when it names none. */
static void layout_of(scope_h5_file *f, char *buf, size_t cap) {
    char err[200];
    if (scope_h5_attr_get_str(f, "/", RUN_H5_ATTR_LAYOUT, buf, cap, err, sizeof err) < 0)
        buf[0] = '\0';
}

/* 1 when path opens as HDF5 and its root names our layout. */
static int names_our_layout(const char *path) {
    char err[200], layout[64];
    scope_h5_file *f = scope_h5_open(path, err, sizeof err);
    if (!f)
        return 0;
    layout_of(f, layout, sizeof layout);
    scope_h5_close(f, NULL, 0);
    return !strcmp(layout, RUN_H5_LAYOUT);
}

/* Ours: an HDF5 file whose root names our layout.  Any HDF5 file is probed,
 * and libhdf5 parses its metadata to find the attribute; a damaged file can
 * crash or hang the library there (sp_child.h says why), so the check runs
 * in a child process, bounded by PROBE_SECONDS.  A child that crashes,
 * hangs or answers no leaves the file to the scope-profiler loader after
 * this one, which claims every HDF5 file left and refuses a damaged one in
 * one line. */
#define PROBE_SECONDS 30
static int probe(const char *path) {
    if (!scope_h5_probe(path))
        return 0;
#ifdef SCOPE_SP_IN_PROCESS
    return names_our_layout(path); /* the fuzz build: its coverage must see the check */
#else
    pid_t pid = fork();
    if (pid < 0)
        return names_our_layout(path);
    if (pid == 0) {
        scope_h5_child_start(); /* a crash ends it quietly, whatever the host's handlers */
        alarm(PROBE_SECONDS);   /* its default action ends a hung child */
        _exit(names_our_layout(path) ? 0 : 1);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
#endif
}

static enum run_load_error load(run_model_builder *b, const char *path, const run_options *opt,
                                char *msg, size_t msglen) {
    h5_load l = {.path = path, .msg = msg, .msglen = msglen};
    char err[400];
    struct stat st;
    if (stat(path, &st) < 0) {
        bad(&l, "cannot be read");
        return RUN_ERR_IO;
    }
    l.file_size = (uint64_t)st.st_size;
    l.f = scope_h5_open(path, err, sizeof err);
    if (!l.f) {
        bad(&l, "%s", err);
        return RUN_ERR_IO;
    }
    int64_t version = 0;
    if (scope_h5_attr_get_i64(l.f, "/", RUN_H5_ATTR_VERSION, &version, err, sizeof err) < 0)
        bad(&l, "%s", err);
    else if (version != RUN_H5_LAYOUT_VERSION)
        bad(&l, "version %lld of scope's HDF5 layout; this scope reads version %d",
            (long long)version, RUN_H5_LAYOUT_VERSION);

    /* A summary (SUMMARY, docs/reduce.md): one partial model, without the
     * processes' tables. */
    if (!l.failed && scope_h5_exists(l.f, RUN_H5_SUMMARY)) {
        run_h5_load_summary(&l, b, opt);
        scope_h5_close(l.f, NULL, 0);
        return l.failed ? RUN_ERR_NOT_RUN : RUN_OK;
    }
    size_t nprocs = 0;
    h5_process_row *procs = read_table(&l, &h5t_processes, &nprocs);
    if (!l.failed && !nprocs)
        bad(&l, "%s holds no processes", h5t_processes.path);
    if (!l.failed) {
        l.procs = procs;
        l.nlogs = nprocs;
        l.logs = run_builder_add_workers(b, nprocs);
        l.next_string = calloc(nprocs, sizeof *l.next_string);
        if (!l.logs || !l.next_string)
            bad(&l, "out of memory");
    }
    for (size_t i = 0; !l.failed && i < nprocs; i++) {
        l.logs[i].no_samples = opt->no_samples;
        load_process(&l, i, &procs[i]);
    }
    load_damage_and_notes(&l);
    load_nodes(&l);
    load_counters(&l);
    if (!opt->no_samples) {
        load_resources(&l,
                       (const run_h5_table *const[5]){&h5t_res, &h5t_res_buckets, &h5t_res_nodes,
                                                      &h5t_gpus, &h5t_gpu_buckets});
    }
    load_modules(&l);
    load_stacks(&l);
    load_samples(&l);
    load_measured(&l);
    for (size_t i = 0; !l.failed && i < nprocs; i++)
        settle_process(&l, i);
    free(l.next_string);
    scope_h5_table_free(&h5t_processes.t, procs, nprocs);
    scope_h5_close(l.f, NULL, 0);
    return l.failed ? RUN_ERR_NOT_RUN : RUN_OK;
}

const run_loader run_h5_loader = {"scope HDF5 export", probe, load};
