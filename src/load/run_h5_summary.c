/*
 * run_h5_summary: /summary read as one partial model (run_h5_summary.h).
 * Every row is checked before it is used: a process, role, phase or
 * bucket it names must exist, a phase's parent must come before it in its
 * own role, a role's process must be of that role and of the attempt the
 * part shows, and rows come grouped as the writer writes them; so a
 * damaged or hostile file fails in one line and the merge that follows
 * only ever sees a well-formed model.
 */
#include "run_h5_summary.h"

#include "phase_figures.h"
#include "res_proc.h"

#include <math.h>
#include <scope/log_hist.h>
#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

/* What the part owns besides its arena and its trees: the resources. */
typedef struct part_res {
    res_proc **v;
    size_t n;
} part_res;

static void part_res_free(void *p) {
    part_res *r = p;
    for (size_t i = 0; r && i < r->n; i++)
        res_proc_free(r->v[i]);
    if (r)
        free(r->v);
    free(r);
}

typedef struct sum_load {
    h5_load *l;
    run_model *m; /* the part */
    arena *mem;
    run_phase **phases; /* by row of /summary/phases */
    uint32_t *phase_role;
    size_t nphases;
} sum_load;

static run_str str_of(sum_load *s, const char *v) {
    run_str r = run_str_dup(s->mem, v ? v : "", v ? strlen(v) : 0);
    if (!r.s)
        bad(s->l, "out of memory");
    return r;
}

static int end_of(const char *name) {
    for (int e = RUN_END_EXIT; e <= RUN_END_RUNNING; e++)
        if (name && !strcmp(run_end_name((enum run_end)e), name))
            return e;
    return -1;
}

static void load_workers(sum_load *s) {
    size_t n;
    h5_sum_process_row *r = read_table(s->l, &h5t_sum_processes, &n);
    if (!s->l->failed && !n)
        bad(s->l, "%s holds no processes", h5t_sum_processes.path);
    run_model *m = s->m;
    if (!s->l->failed && !(m->workers = arena_alloc(s->mem, (n + 1) * sizeof *m->workers)))
        bad(s->l, "out of memory");
    for (size_t i = 0; !s->l->failed && i < n; i++) {
        const h5_sum_process_row *p = &r[i];
        int end = end_of(p->end);
        if (end < 0) {
            bad(s->l, "%s row %zu: end '%s' is none of exit, signal, killed, unknown, running",
                h5t_sum_processes.path, i, p->end ? p->end : "");
            break;
        }
        m->workers[i] = (run_worker){
            .path = str_of(s, p->path),
            .readable = p->readable != 0,
            .has_process = p->has_process != 0,
            .run_id = str_of(s, p->run_id),
            .uuid = str_of(s, p->uuid),
            .host = str_of(s, p->host),
            .role = str_of(s, p->role),
            .job_id = str_of(s, p->job_id),
            .step_id = str_of(s, p->step_id),
            .exe = str_of(s, p->exe),
            .cwd = str_of(s, p->cwd),
            .recorder_version = str_of(s, p->recorder_version),
            .pid = p->pid,
            .ppid = p->ppid,
            .rank = p->rank,
            .local_rank = p->local_rank,
            .node_rank = p->node_rank,
            .world_size = p->world_size,
            .start_wall_ns = p->start_wall_ns,
            .start_mono_ns = p->start_mono_ns,
            .last_wall_ns = p->last_wall_ns,
            .last_mono_ns = p->last_mono_ns,
            .runtime_ns = p->runtime_ns,
            .frames = p->frames,
            .frames_lost = p->frames_lost,
            .bytes_skipped = p->bytes_skipped,
            .truncated = p->truncated != 0,
            .launcher = str_of(s, p->launcher),
            .array_job_id = str_of(s, p->array_job_id),
            .array_task = p->array_task,
            .restarts = p->restarts,
            .end = (enum run_end)end,
            .end_signal = p->end_signal,
            .stale = p->stale != 0,
            .stale_ns = p->stale_ns,
            .unbalanced = p->unbalanced,
            .dropped = p->dropped,
            .flush_failed = p->flush_failed != 0,
            .nthreads = p->nthreads,
            .phase_ns = p->phase_ns,
            .line_samples = p->line_samples,
            .attempt = SIZE_MAX,
            .role_index = SIZE_MAX,
            .ncaveats = (size_t)p->ncaveats,
            .trace_state = p->trace_state,
            .trace_phase = str_of(s, p->trace_phase),
            .trace_first = p->trace_first,
            .trace_last = p->trace_last,
            .trace_start_mono_ns = p->trace_start_mono_ns,
            .trace_end_mono_ns = p->trace_end_mono_ns,
            .trace_events = p->trace_events,
            .trace_cap = p->trace_cap,
            .trace_lost = p->trace_lost,
        };
        m->nworkers = i + 1;
    }
    scope_h5_table_free(&h5t_sum_processes.t, r, n);
}

static void load_attempts(sum_load *s) {
    size_t n;
    h5_attempt_row *r = read_table(s->l, &h5t_sum_attempts, &n);
    run_model *m = s->m;
    if (!s->l->failed && !(m->attempts = arena_alloc(s->mem, (n + 1) * sizeof *m->attempts)))
        bad(s->l, "out of memory");
    for (size_t i = 0; !s->l->failed && i < n; i++)
        m->attempts[m->nattempts++] = (run_attempt){str_of(s, r[i].run_id), (size_t)r[i].nprocs,
                                                    r[i].start_wall_ns, r[i].end_wall_ns};
    scope_h5_table_free(&h5t_sum_attempts.t, r, n);
    int64_t shown = -1;
    char err[300];
    if (!s->l->failed && scope_h5_attr_get_i64(s->l->f, RUN_H5_SUMMARY, RUN_H5_SUM_SHOWN, &shown,
                                               err, sizeof err) < 0)
        bad(s->l, "%s", err);
    else if (!s->l->failed && (shown < 0 || (uint64_t)shown >= m->nattempts) && m->nattempts)
        bad(s->l, "%s: attribute %s is %lld; it has %zu attempts", RUN_H5_SUMMARY, RUN_H5_SUM_SHOWN,
            (long long)shown, m->nattempts);
    m->shown_attempt = shown > 0 ? (size_t)shown : 0;
}

/* The roles and their processes: each of that role, of the attempt shown,
 * and listed once. */
static void load_roles(sum_load *s) {
    size_t n, np;
    run_model *m = s->m;
    h5_sum_role_row *r = read_table(s->l, &h5t_sum_roles, &n);
    h5_sum_role_process_row *rp = read_table(s->l, &h5t_sum_role_processes, &np);
    uint8_t *seen = s->l->failed ? NULL : calloc(m->nworkers + 1, 1);
    if (!s->l->failed && (!seen || !(m->roles = arena_alloc(s->mem, (n + 1) * sizeof *m->roles))))
        bad(s->l, "out of memory");
    if (!s->l->failed && n && !m->nattempts)
        bad(s->l, "%s holds roles but %s no attempt", h5t_sum_roles.path, h5t_sum_attempts.path);
    for (size_t i = 0; !s->l->failed && i < n; i++) {
        m->roles[i] = (run_role){.name = str_of(s, r[i].name)};
        m->nroles = i + 1;
    }
    for (size_t k = 0; !s->l->failed && k < np; k++) /* counted, then placed */
        if (rp[k].role >= n || (k && rp[k].role < rp[k - 1].role))
            bad(s->l, "%s row %zu: role %u out of order or past the %zu of %s",
                h5t_sum_role_processes.path, k, rp[k].role, n, h5t_sum_roles.path);
        else
            m->roles[rp[k].role].nprocs++;
    for (size_t i = 0; !s->l->failed && i < n; i++) {
        run_role *role = &m->roles[i];
        if (!(role->workers = arena_alloc(s->mem, (role->nprocs + 1) * sizeof *role->workers)))
            bad(s->l, "out of memory");
        role->nprocs = 0;
    }
    run_str shown = m->nattempts ? m->attempts[m->shown_attempt].run_id : (run_str){"", 0};
    for (size_t k = 0; !s->l->failed && k < np; k++) {
        run_role *role = &m->roles[rp[k].role];
        uint64_t w = rp[k].process;
        if (w >= m->nworkers || seen[w] || !m->workers[w].has_process ||
            !run_str_eq(m->workers[w].role, role->name) ||
            !run_str_eq(m->workers[w].run_id, shown)) {
            bad(s->l,
                "%s row %zu: process %llu is not a process of its role and of the attempt shown, "
                "listed once",
                h5t_sum_role_processes.path, k, (unsigned long long)w);
            break;
        }
        seen[w] = 1;
        role->workers[role->nprocs++] = (size_t)w;
    }
    free(seen);
    scope_h5_table_free(&h5t_sum_roles.t, r, n);
    scope_h5_table_free(&h5t_sum_role_processes.t, rp, np);
}

static const run_role *role_of_phase(sum_load *s, size_t row) {
    return &s->m->roles[s->phase_role[row]];
}

/* A phase row's figures into p. */
static void fill_phase(sum_load *s, run_phase *p, const h5_sum_phase_row *r,
                       const enum phase_fig *figs, size_t nfigs) {
    p->name = str_of(s, r->name);
    p->file = str_of(s, r->file);
    p->tags = str_of(s, r->tags);
    p->line = r->line;
    p->flags = r->flags;
    p->file_proc = (size_t)r->file_proc;
    for (size_t k = 0; k < nfigs; k++)
        phase_fig_set(p, figs[k], r->fig[k]);
    p->delay_count = r->delay_count;
    p->delay_wall_ns = r->delay_wall_ns;
    p->delay_ns = r->delay_ns;
    p->io_measured = r->io_measured != 0;
    p->io_count = r->io_count;
    p->io_failed = r->io_failed;
    p->disk_read = r->disk_read;
    p->disk_write = r->disk_write;
    p->char_read = r->char_read;
    p->char_write = r->char_write;
    p->smp_io = r->smp_io != 0;
    p->smp_disk_read = r->smp_disk_read;
    p->smp_disk_write = r->smp_disk_write;
    p->smp_char_read = r->smp_char_read;
    p->smp_char_write = r->smp_char_write;
}

/* The trees: each phase after its parent, in its parent's role, no deeper
 * than the model holds. */
static void load_phases(sum_load *s) {
    const run_h5_table *t = run_h5_sum_phases();
    size_t n;
    h5_sum_phase_row *r = read_table(s->l, t, &n);
    run_model *m = s->m;
    enum phase_fig figs[PF_N];
    size_t nfigs = run_h5_sum_figures(figs);
    if (!s->l->failed) {
        s->phases = calloc(n + 1, sizeof *s->phases);
        s->phase_role = calloc(n + 1, sizeof *s->phase_role);
        if (!s->phases || !s->phase_role)
            bad(s->l, "out of memory");
    }
    for (size_t i = 0; !s->l->failed && i < m->nroles; i++) {
        if (!(m->roles[i].root = arena_alloc(s->mem, sizeof *m->roles[i].root)))
            bad(s->l, "out of memory");
        else
            m->roles[i].root->name = (run_str){"", 0};
    }
    /* Children counted first, so each parent's array is made once. */
    for (size_t i = 0; !s->l->failed && i < n; i++) {
        const h5_sum_phase_row *p = &r[i];
        int parent_ok = p->parent < 0 || ((uint64_t)p->parent < i && r[p->parent].role == p->role);
        if (p->role >= m->nroles || !parent_ok) {
            bad(s->l,
                "%s row %zu: role %u or parent %lld is not a role, or not an earlier phase "
                "of its role",
                t->path, i, p->role, (long long)p->parent);
            break;
        }
        const run_role *role = &m->roles[p->role];
        if (p->file && *p->file && p->file_proc >= role->nprocs) {
            bad(s->l, "%s row %zu: file_proc %llu past its role's %zu processes", t->path, i,
                (unsigned long long)p->file_proc, role->nprocs);
            break;
        }
        run_phase *parent = p->parent < 0 ? role->root : s->phases[p->parent];
        if (parent->depth >= RUN_MAX_DEPTH) {
            bad(s->l, "%s row %zu: deeper than %d phases", t->path, i, RUN_MAX_DEPTH);
            break;
        }
        run_phase *ph = arena_alloc(s->mem, sizeof *ph);
        if (!ph) {
            bad(s->l, "out of memory");
            break;
        }
        ph->parent = parent;
        ph->depth = parent->depth + 1;
        fill_phase(s, ph, p, figs, nfigs);
        s->phases[i] = ph;
        s->phase_role[i] = p->role;
        s->nphases = i + 1;
        parent->nchildren++; /* the array is made below */
        m->roles[p->role].nphases++;
    }
    /* The children arrays, then each phase into its parent's. */
    for (size_t i = 0; !s->l->failed && i < m->nroles; i++) {
        run_phase *root = m->roles[i].root;
        if (!(root->children = malloc((root->nchildren + 1) * sizeof *root->children)))
            bad(s->l, "out of memory");
        root->nchildren = 0;
    }
    for (size_t i = 0; !s->l->failed && i < s->nphases; i++) {
        run_phase *ph = s->phases[i];
        if (!(ph->children = malloc((ph->nchildren + 1) * sizeof *ph->children)))
            bad(s->l, "out of memory");
        ph->nchildren = 0;
    }
    for (size_t i = 0; !s->l->failed && i < s->nphases; i++) {
        run_phase *ph = s->phases[i];
        ph->parent->children[ph->parent->nchildren++] = ph;
        if (r[i].has_histogram && !(ph->hist = malloc(sizeof *ph->hist)))
            bad(s->l, "out of memory");
    }
    scope_h5_table_free(&t->t, r, n);
}

/* Rows of t grouped by phase, phases in order: [first, end) of the phase
 * at rows[first].  -1 with the load failed when out of order. */
static void load_phase_processes(sum_load *s) {
    size_t n;
    h5_sum_phase_process_row *r = read_table(s->l, &h5t_sum_phase_processes, &n);
    for (size_t k = 0, end; !s->l->failed && k < n; k = end) {
        uint32_t ph = r[k].phase;
        for (end = k; end < n && r[end].phase == ph; end++)
            ;
        if (ph >= s->nphases || (k && r[k - 1].phase > ph) || s->phases[ph]->nprocs) {
            bad(s->l, "%s row %zu: phase %llu out of order or past the %zu of %s",
                h5t_sum_phase_processes.path, k, (unsigned long long)ph, s->nphases,
                run_h5_sum_phases()->path);
            break;
        }
        run_phase *p = s->phases[ph];
        size_t nprocs = role_of_phase(s, ph)->nprocs;
        if (!(p->per_proc = malloc((end - k) * sizeof *p->per_proc))) {
            bad(s->l, "out of memory");
            break;
        }
        for (size_t i = k; i < end; i++) {
            if (r[i].proc >= nprocs || (i > k && r[i].proc <= r[i - 1].proc)) {
                bad(s->l, "%s row %zu: process %llu out of order or past its role's %zu",
                    h5t_sum_phase_processes.path, i, (unsigned long long)r[i].proc, nprocs);
                break;
            }
            p->per_proc[p->nprocs++] =
                (run_proc_ns){(size_t)r[i].proc, r[i].ns, r[i].count, r[i].open_ns, r[i].cpu_ns};
        }
    }
    scope_h5_table_free(&h5t_sum_phase_processes.t, r, n);
}

static void load_bins(sum_load *s) {
    size_t n;
    h5_sum_bin_row *r = read_table(s->l, &h5t_sum_bins, &n);
    for (size_t k = 0, end; !s->l->failed && k < n; k = end) {
        uint64_t ph = r[k].phase;
        for (end = k; end < n && r[end].phase == ph; end++)
            ;
        if (ph >= s->nphases || (k && r[k - 1].phase > ph) || !s->phases[ph]->hist ||
            s->phases[ph]->nhist || end - k > SCOPE_HIST_BUCKETS) {
            bad(s->l, "%s row %zu: phase %llu out of order, past the phases or without a histogram",
                h5t_sum_bins.path, k, (unsigned long long)ph);
            break;
        }
        run_phase *p = s->phases[ph];
        if (SCOPE_VEC_RESIZE(p->hist, end - k) < 0) {
            bad(s->l, "out of memory");
            break;
        }
        run_hist_bin *h = p->hist;
        for (size_t i = k; i < end; i++) {
            if (r[i].bucket >= SCOPE_HIST_BUCKETS || (i > k && r[i].bucket <= r[i - 1].bucket)) {
                bad(s->l, "%s row %zu: bucket %u out of order or past %u", h5t_sum_bins.path, i,
                    r[i].bucket, (unsigned)SCOPE_HIST_BUCKETS);
                break;
            }
            h[p->nhist++] = (run_hist_bin){r[i].bucket, r[i].count};
        }
    }
    scope_h5_table_free(&h5t_sum_bins.t, r, n);
}

static void load_counters(sum_load *s) {
    size_t n;
    h5_sum_counter_row *r = read_table(s->l, &h5t_sum_counters, &n);
    run_model *m = s->m;
    /* Counted, then placed: each array made once. */
    for (int pass = 0; pass < 2 && !s->l->failed; pass++) {
        for (size_t k = 0; !s->l->failed && k < n; k++) {
            const h5_sum_counter_row *c = &r[k];
            int ok = c->role < m->nroles && (c->phase < 0 || ((uint64_t)c->phase < s->nphases &&
                                                              s->phase_role[c->phase] == c->role));
            if (!ok) {
                bad(s->l, "%s row %zu: role %u or phase %lld is not there", h5t_sum_counters.path,
                    k, c->role, (long long)c->phase);
                break;
            }
            run_role *role = &m->roles[c->role];
            run_counter **arr = c->phase < 0 ? &role->unattached : &s->phases[c->phase]->counters;
            size_t *cnt = c->phase < 0 ? &role->nunattached : &s->phases[c->phase]->ncounters;
            if (pass == 0) {
                ++*cnt;
                continue;
            }
            (*arr)[(*cnt)++] = (run_counter){.name = str_of(s, c->name),
                                             .calls = c->calls,
                                             .total = c->total,
                                             .rate_per_s = NAN,
                                             .ns_per_unit = NAN};
        }
        if (pass == 1 || s->l->failed)
            break;
        for (size_t i = 0; i < m->nroles && !s->l->failed; i++) {
            run_role *role = &m->roles[i];
            if (!(role->unattached = malloc((role->nunattached + 1) * sizeof *role->unattached)))
                bad(s->l, "out of memory");
            role->nunattached = 0;
        }
        for (size_t i = 0; i < s->nphases && !s->l->failed; i++) {
            run_phase *p = s->phases[i];
            if (!(p->counters = malloc((p->ncounters + 1) * sizeof *p->counters)))
                bad(s->l, "out of memory");
            p->ncounters = 0;
        }
    }
    scope_h5_table_free(&h5t_sum_counters.t, r, n);
}

static void load_caveats(sum_load *s) {
    size_t n;
    h5_caveat_row *r = read_table(s->l, &h5t_sum_caveats, &n);
    run_model *m = s->m;
    if (!s->l->failed && !(m->caveats = malloc((n + 1) * sizeof *m->caveats)))
        bad(s->l, "out of memory");
    m->cap_caveats = n + 1;
    for (size_t k = 0; !s->l->failed && k < n; k++) {
        int kind = -1;
        for (int j = 0; j < RUN_CAVEAT_KIND_LIMIT && kind < 0; j++)
            if (r[k].kind && !strcmp(r[k].kind, run_caveat_kind_name((enum run_caveat_kind)j)))
                kind = j;
        if (kind < 0 || r[k].process < -1 ||
            (r[k].process >= 0 && (uint64_t)r[k].process >= m->nworkers)) {
            bad(s->l, "%s row %zu: kind '%s' or process %lld is not there", h5t_sum_caveats.path, k,
                r[k].kind ? r[k].kind : "", (long long)r[k].process);
            break;
        }
        const char *text = r[k].text ? r[k].text : "";
        char *t = arena_dup(s->mem, text, strlen(text));
        if (!t) {
            bad(s->l, "out of memory");
            break;
        }
        m->caveats[m->ncaveats++] = (run_caveat){
            (enum run_caveat_kind)kind, r[k].process < 0 ? SIZE_MAX : (size_t)r[k].process, t};
    }
    scope_h5_table_free(&h5t_sum_caveats.t, r, n);
}

static void load_part_resources(sum_load *s, const run_options *opt) {
    run_model *m = s->m;
    part_res *pr = calloc(1, sizeof *pr);
    if (!pr || !(pr->v = calloc(m->nworkers + 1, sizeof *pr->v))) {
        free(pr);
        bad(s->l, "out of memory");
        return;
    }
    pr->n = m->nworkers;
    run_model_set_extension(m, pr, part_res_free); /* freed with the part, whatever happens */
    if (opt->no_samples)
        return;
    s->l->res = pr->v;
    s->l->nres = pr->n;
    load_resources(s->l, (const run_h5_table *const[5]){&h5t_sum_res, &h5t_sum_res_buckets,
                                                        &h5t_sum_res_nodes, &h5t_sum_gpus,
                                                        &h5t_sum_gpu_buckets});
    s->l->res = NULL;
    for (size_t i = 0; i < m->nworkers; i++)
        m->workers[i].res = pr->v[i];
}

/* After a failure, the trees as far as they were made, freed here: a
 * phase may count children whose array was never made, which the model's
 * own free would walk. */
static void discard_trees(sum_load *s) {
    for (size_t i = 0; i < s->nphases; i++) {
        run_phase *p = s->phases[i];
        free(p->children);
        free(p->counters);
        free(p->per_proc);
        free(p->hist);
    }
    for (size_t i = 0; i < s->m->nroles; i++) {
        run_role *role = &s->m->roles[i];
        if (role->root)
            free(role->root->children);
        free(role->unattached);
        role->root = NULL;
        role->unattached = NULL;
    }
}

int run_h5_load_summary(h5_load *l, run_model_builder *b, const run_options *opt) {
    run_model_builder *pb = run_builder_new(l->path, opt);
    if (!pb) {
        bad(l, "out of memory");
        return -1;
    }
    /* The part is the builder's model, filled here rather than merged. */
    run_model *part = run_builder_model(pb);
    sum_load s = {.l = l, .m = part, .mem = run_model_arena(part)};
    load_workers(&s);
    load_attempts(&s);
    load_roles(&s);
    load_phases(&s);
    load_phase_processes(&s);
    load_bins(&s);
    load_counters(&s);
    load_caveats(&s);
    if (!l->failed)
        load_part_resources(&s, opt);
    if (!l->failed && run_builder_own_parts(b, &part, 1) < 0)
        bad(l, "out of memory");
    if (l->failed)
        discard_trees(&s);
    free(s.phases);
    free(s.phase_role);
    if (l->failed) {
        run_free(part);
        return -1;
    }
    /* Its resources were not read when it was made: not known, not none. */
    int64_t unread = 0;
    char err[200];
    if (scope_h5_attr_get_i64(l->f, RUN_H5_SUMMARY, RUN_H5_SUM_NO_SAMPLES, &unread, err,
                              sizeof err) < 0)
        unread = 0; /* a summary written before it said */
    part->no_samples = opt->no_samples || unread != 0;
    return 0;
}
