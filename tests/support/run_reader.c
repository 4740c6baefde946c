/* A test-only reader of a whole run directory (see run_reader.h). */
#define _GNU_SOURCE /* memmem */
#include "run_reader.h"

#include "idmap.h"

#include <dirent.h>
#include <errno.h>
#include <scope/log_hist.h>
#include <scope/vec.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- small containers --------------------------------------------------- */

/* Grows *arr (elements of `size` bytes) to hold at least n + 1 elements. */
static void *grow(void *arr, size_t n, size_t *cap, size_t size) {
    void *p = scope_vec_grow(arr, cap, n + 1, size);
    if (!p) {
        fprintf(stderr, "run_reader: out of memory\n");
        abort(); /* test code: there is nothing sensible to go on with */
    }
    return p;
}

/* id -> index: the analysis's own map (src/base/idmap.h).  Test code: out of
 * memory ends the test. */
static void idmap_set(idmap *m, uint32_t key, size_t val) {
    if (idmap_put(m, key, (uint32_t)val) < 0) {
        fprintf(stderr, "run_reader: out of memory\n");
        abort();
    }
}

static rr_bytes copy_bytes(scope_bytes b) {
    rr_bytes r = {malloc(b.len + 1), b.len};
    if (!r.ptr)
        abort();
    if (b.len)
        memcpy(r.ptr, b.ptr, b.len);
    r.ptr[b.len] = '\0';
    return r;
}

static int bytes_eq(const rr_bytes *a, scope_bytes b) {
    return a->len == b.len && (!b.len || memcmp(a->ptr, b.ptr, b.len) == 0);
}

/* ---- reading one log ---------------------------------------------------- */

typedef struct loader {
    rr_log *log;
    size_t cap_strings, cap_threads, cap_nodes, cap_counters, cap_marks, cap_frames;
    size_t cap_resources;
    size_t cap_modules, cap_stacks, cap_samples;
    idmap strings, threads, nodes, counters, agg_ids;
    rr_agg *aggs; /* by node id through agg_ids, joined to nodes at the end */
    uint32_t *agg_node;
    size_t naggs, cap_aggs, cap_agg_node;
    const rr_frame *frame;
} loader;

static void problem(rr_log *log, size_t *counter, const char *fmt, ...) {
    (*counter)++;
    size_t used = strlen(log->problems);
    if (used + 2 >= sizeof log->problems)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(log->problems + used, sizeof log->problems - used - 1, fmt, ap);
    va_end(ap);
    used = strlen(log->problems);
    log->problems[used] = '\n';
    log->problems[used + 1] = '\0';
}

static void on_process(loader *L, const scope_record *rec) {
    rr_log *log = L->log;
    log->nprocess++;
    const scope_rec_process *p = &rec->u.process;
    rr_process *o = &log->process;
    if (log->has_process) {
        /* A repeat is allowed (format.md 5.3): the newest wins, and only the
         * role and argv may differ from the first. */
        if (!bytes_eq(&o->run_id, p->run_id) || !bytes_eq(&o->uuid, p->uuid) ||
            !bytes_eq(&o->host, p->host) || o->pid != p->pid ||
            o->start_wall_ns != p->start_wall_ns || o->start_mono_ns != p->start_mono_ns)
            problem(log, &log->nconflicts,
                    "PROCESS repeated with a different identity (frame %llu)",
                    (unsigned long long)L->frame->seq);
        free(o->role.ptr);
        o->role = copy_bytes(p->role);
        return;
    }
    o->run_id = copy_bytes(p->run_id);
    o->uuid = copy_bytes(p->uuid);
    o->host = copy_bytes(p->host);
    o->role = copy_bytes(p->role);
    o->job_id = copy_bytes(p->job_id);
    o->step_id = copy_bytes(p->step_id);
    o->exe = copy_bytes(p->exe);
    o->cwd = copy_bytes(p->cwd);
    o->recorder_version = copy_bytes(p->recorder_version);
    o->pid = p->pid;
    o->ppid = p->ppid;
    o->rank = p->rank;
    o->local_rank = p->local_rank;
    o->node_rank = p->node_rank;
    o->world_size = p->world_size;
    o->start_wall_ns = p->start_wall_ns;
    o->start_mono_ns = p->start_mono_ns;
    o->argc = p->argc;
    o->argv = calloc(p->argc ? p->argc : 1, sizeof *o->argv);
    if (!o->argv)
        abort();
    for (uint32_t i = 0; i < p->argc; i++)
        o->argv[i] = copy_bytes(p->argv[i]);
    log->has_process = 1;
}

static void on_string(loader *L, const scope_rec_string *s) {
    rr_log *log = L->log;
    uint32_t at;
    if (s->id == 0) {
        problem(log, &log->nconflicts, "STRING with id 0");
        return;
    }
    if (idmap_get(&L->strings, s->id, &at)) {
        if (!bytes_eq(&log->strings[at].value, s->value))
            problem(log, &log->nconflicts, "STRING %u redefined with different bytes", s->id);
        return;
    }
    log->strings = grow(log->strings, log->nstrings, &L->cap_strings, sizeof *log->strings);
    log->strings[log->nstrings] = (rr_string){s->id, copy_bytes(s->value)};
    idmap_set(&L->strings, s->id, log->nstrings++);
}

static void on_thread(loader *L, const scope_rec_thread *t) {
    rr_log *log = L->log;
    uint32_t at;
    if (t->index == 0) {
        problem(log, &log->nconflicts, "THREAD with index 0");
        return;
    }
    if (idmap_get(&L->threads, t->index, &at)) {
        const rr_thread *o = &log->threads[at];
        if (o->tid != t->tid || o->start_mono_ns != t->start_mono_ns ||
            !bytes_eq(&o->name, t->name))
            problem(log, &log->nconflicts,
                    "THREAD %u redefined: tid %lld -> %lld, name '%s' -> '%.*s'", t->index,
                    (long long)o->tid, (long long)t->tid, o->name.ptr, (int)t->name.len,
                    (const char *)t->name.ptr);
        return;
    }
    log->threads = grow(log->threads, log->nthreads, &L->cap_threads, sizeof *log->threads);
    log->threads[log->nthreads] =
        (rr_thread){t->index, t->tid, t->start_mono_ns, copy_bytes(t->name)};
    idmap_set(&L->threads, t->index, log->nthreads++);
}

static void on_node(loader *L, const scope_rec_phase_node *n) {
    rr_log *log = L->log;
    uint32_t at;
    if (n->id == 0) {
        problem(log, &log->nconflicts, "PHASE_NODE with id 0");
        return;
    }
    if (idmap_get(&L->nodes, n->id, &at)) {
        const rr_node *o = &log->nodes[at];
        if (o->parent != n->parent || o->name != n->name || o->thread != n->thread ||
            o->flags != n->flags || o->file != n->file || o->line != n->line)
            problem(log, &log->nconflicts,
                    "PHASE_NODE %u redefined: (parent %u, name %u, thread %u) then (parent %u, "
                    "name %u, thread %u)",
                    n->id, o->parent, o->name, o->thread, n->parent, n->name, n->thread);
        return;
    }
    log->nodes = grow(log->nodes, log->nnodes, &L->cap_nodes, sizeof *log->nodes);
    log->nodes[log->nnodes] =
        (rr_node){n->id, n->parent, n->name, n->thread, n->flags, n->file, n->line, 0, {0}};
    idmap_set(&L->nodes, n->id, log->nnodes++);
}

static void on_agg(loader *L, const scope_rec_phase_agg *a) {
    rr_log *log = L->log;
    rr_agg g = {
        .count = a->count,
        .wall_ns = a->wall_ns,
        .min_ns = a->min_ns,
        .max_ns = a->max_ns,
        .cpu_count = a->cpu_count,
        .cpu_wall_ns = a->cpu_wall_ns,
        .cpu_ns = a->cpu_ns,
        .delay_count = a->delay_count,
        .delay_wall_ns = a->delay_wall_ns,
        .delay_ns = a->delay_ns,
        .io_flags = a->io_flags,
        .io_count = a->io_count,
        .io_failed = a->io_failed,
        .disk_read = a->disk_read,
        .disk_write = a->disk_write,
        .char_read = a->char_read,
        .char_write = a->char_write,
        .frame_seq = L->frame->seq,
        .has_hist = a->nbins > 0,
        .nbins = a->nbins,
        .bins_increasing = 1,
        .hist_frame_seq = L->frame->seq,
    };
    for (uint32_t i = 0; i < a->nbins; i++) {
        g.bins_total += a->bins[i].count;
        if (i && a->bins[i].bucket <= a->bins[i - 1].bucket)
            g.bins_increasing = 0;
    }
    for (uint64_t i = 0, seen = 0; i < a->nbins && 2 * seen < g.bins_total; i++) {
        seen += a->bins[i].count;
        if (2 * seen >= g.bins_total && a->bins[i].bucket < SCOPE_HIST_BUCKETS)
            g.median_ns = scope_hist_upper(a->bins[i].bucket);
    }
    uint32_t at;
    int known = idmap_get(&L->agg_ids, a->node, &at);
    if (known && !a->nbins && a->count) {
        /* Scalars only: the histogram stays the newest one sent. */
        const rr_agg *old = &L->aggs[at];
        g.has_hist = old->has_hist;
        g.nbins = old->nbins;
        g.bins_total = old->bins_total;
        g.median_ns = old->median_ns;
        g.bins_increasing = old->bins_increasing;
        g.hist_frame_seq = old->hist_frame_seq;
    }
    if (known) {
        /* Aggregates are totals since the start: a newer one never counts
         * less.  One that does was written for a different node. */
        if (a->count < L->aggs[at].count || a->cpu_count < L->aggs[at].cpu_count)
            problem(log, &log->nbad_aggs,
                    "PHASE_AGG of node %u went backwards: count %llu (frame %llu) then %llu "
                    "(frame %llu)",
                    a->node, (unsigned long long)L->aggs[at].count,
                    (unsigned long long)L->aggs[at].frame_seq, (unsigned long long)a->count,
                    (unsigned long long)L->frame->seq);
        L->aggs[at] = g;
        return;
    }
    L->aggs = grow(L->aggs, L->naggs, &L->cap_aggs, sizeof *L->aggs);
    L->agg_node = grow(L->agg_node, L->naggs, &L->cap_agg_node, sizeof *L->agg_node);
    L->aggs[L->naggs] = g;
    L->agg_node[L->naggs] = a->node;
    idmap_set(&L->agg_ids, a->node, L->naggs++);
}

static void on_counter(loader *L, const scope_rec_counter *c) {
    rr_log *log = L->log;
    uint32_t at;
    if (c->id == 0) {
        problem(log, &log->nconflicts, "COUNTER with id 0");
        return;
    }
    if (idmap_get(&L->counters, c->id, &at)) {
        rr_counter *o = &log->counters[at];
        if (o->name != c->name || o->node != c->node || o->thread != c->thread)
            problem(log, &log->nconflicts,
                    "COUNTER %u reused: (name %u, node %u, thread %u) then (name %u, node %u, "
                    "thread %u)",
                    c->id, o->name, o->node, o->thread, c->name, c->node, c->thread);
        else if (c->calls < o->calls)
            problem(log, &log->nbad_aggs, "COUNTER %u went backwards: calls %llu then %llu", c->id,
                    (unsigned long long)o->calls, (unsigned long long)c->calls);
        *o = (rr_counter){c->id, c->name, c->node, c->thread, c->calls, c->total, L->frame->seq};
        return;
    }
    log->counters = grow(log->counters, log->ncounters, &L->cap_counters, sizeof *log->counters);
    log->counters[log->ncounters] =
        (rr_counter){c->id, c->name, c->node, c->thread, c->calls, c->total, L->frame->seq};
    idmap_set(&L->counters, c->id, log->ncounters++);
}

static void on_resource(loader *L, const scope_rec_resource *r) {
    rr_log *log = L->log;
    log->resources =
        grow(log->resources, log->nresources, &L->cap_resources, sizeof *log->resources);
    rr_resource *o = &log->resources[log->nresources++];
    memset(o, 0, sizeof *o);
    o->r = *r;
    o->r.gpus = NULL;
    o->ngpus = r->ngpus < RR_MAX_GPUS ? r->ngpus : RR_MAX_GPUS;
    for (uint32_t i = 0; i < o->ngpus; i++)
        o->gpus[i] = r->gpus[i];
    o->frame_seq = L->frame->seq;
    o->frame_reason = L->frame->reason;
}

static void on_mark(loader *L, const scope_rec_mark *m) {
    rr_log *log = L->log;
    log->marks = grow(log->marks, log->nmarks, &L->cap_marks, sizeof *log->marks);
    log->marks[log->nmarks++] =
        (rr_mark){m->kind,       m->thread,       m->mono_ns, m->value, copy_bytes(m->text),
                  L->frame->seq, L->frame->reason};
}

/* References resolved once the whole file is read: inside a frame order
 * does not matter, and a definition may come in any earlier frame. */
/* ---- line samples ---------------------------------------------------------- */

static void on_module(loader *L, const scope_rec_module *m) {
    rr_log *log = L->log;
    if (rr_module_by_id(log, m->id))
        return; /* definitions never change: the first copy stands */
    log->modules = grow(log->modules, log->nmodules, &L->cap_modules, sizeof *log->modules);
    rr_module *d = &log->modules[log->nmodules++];
    *d = (rr_module){.id = m->id, .path = copy_bytes(m->path), .base = m->base, .size = m->size};
    d->build_id_len = m->build_id.len < sizeof d->build_id ? m->build_id.len : sizeof d->build_id;
    if (d->build_id_len)
        memcpy(d->build_id, m->build_id.ptr, d->build_id_len);
}

static void on_stack(loader *L, const scope_rec_stack *st) {
    rr_log *log = L->log;
    if (rr_stack_by_id(log, st->id))
        return;
    log->stacks = grow(log->stacks, log->nstacks, &L->cap_stacks, sizeof *log->stacks);
    rr_stack *d = &log->stacks[log->nstacks++];
    d->id = st->id;
    d->nframes = st->nframes;
    d->frames = calloc(st->nframes + 1, sizeof *d->frames);
    if (!d->frames)
        abort();
    memcpy(d->frames, st->frames, st->nframes * sizeof *d->frames);
}

/* STACK_SAMPLES (state SCOPE_CPU_ON) or OFFCPU_SAMPLES: each (thread, node,
 * state, stack) its newest count. */
static void on_stack_samples(loader *L, const scope_rec_stack_samples *ss, uint32_t state) {
    rr_log *log = L->log;
    for (uint32_t k = 0; k < ss->n; k++) {
        rr_sample_count *c = NULL;
        for (size_t i = 0; i < log->nsamples && !c; i++)
            if (log->samples[i].thread == ss->thread && log->samples[i].node == ss->node &&
                log->samples[i].stack == ss->counts[k].stack && log->samples[i].state == state)
                c = &log->samples[i];
        if (!c) {
            log->samples = grow(log->samples, log->nsamples, &L->cap_samples, sizeof *log->samples);
            c = &log->samples[log->nsamples++];
            *c = (rr_sample_count){ss->thread, ss->node, ss->counts[k].stack, 0, 0, state};
        }
        c->count = ss->counts[k].count; /* newest wins */
        c->period_ns = ss->period_ns;
    }
}

static void on_lines(loader *L, const scope_rec_lines *l) {
    rr_log *log = L->log;
    free(log->lines_project.ptr);
    log->lines_project = copy_bytes(l->project);
    log->lines = *l;
    log->lines.project = (scope_bytes){(const uint8_t *)log->lines_project.ptr, l->project.len};
    log->has_lines = 1;
}

const rr_module *rr_module_by_id(const rr_log *log, uint32_t id) {
    for (size_t i = 0; i < log->nmodules; i++)
        if (log->modules[i].id == id)
            return &log->modules[i];
    return NULL;
}

const rr_stack *rr_stack_by_id(const rr_log *log, uint32_t id) {
    for (size_t i = 0; i < log->nstacks; i++)
        if (log->stacks[i].id == id)
            return &log->stacks[i];
    return NULL;
}

uint64_t rr_samples_of(const rr_log *log, uint32_t thread, uint32_t node) {
    uint64_t sum = 0;
    for (size_t i = 0; i < log->nsamples; i++)
        if ((!thread || log->samples[i].thread == thread) &&
            (node == UINT32_MAX || log->samples[i].node == node))
            sum += log->samples[i].count;
    return sum;
}

static void resolve(loader *L) {
    rr_log *log = L->log;
    uint32_t at;
    for (size_t i = 0; i < L->naggs; i++) {
        if (!idmap_get(&L->nodes, L->agg_node[i], &at)) {
            problem(log, &log->ndangling, "PHASE_AGG of undefined node %u", L->agg_node[i]);
            continue;
        }
        log->nodes[at].has_agg = 1;
        log->nodes[at].agg = L->aggs[i];
    }
    for (size_t i = 0; i < log->nnodes; i++) {
        const rr_node *n = &log->nodes[i];
        if (!idmap_get(&L->strings, n->name, &at))
            problem(log, &log->ndangling, "PHASE_NODE %u names undefined string %u", n->id,
                    n->name);
        if (!idmap_get(&L->threads, n->thread, &at))
            problem(log, &log->ndangling, "PHASE_NODE %u on undefined thread %u", n->id, n->thread);
        if (n->parent && !idmap_get(&L->nodes, n->parent, &at))
            problem(log, &log->ndangling, "PHASE_NODE %u has undefined parent %u", n->id,
                    n->parent);
        else if (n->parent && log->nodes[at].thread != n->thread)
            problem(log, &log->nconflicts, "PHASE_NODE %u (thread %u) has parent %u on thread %u",
                    n->id, n->thread, n->parent, log->nodes[at].thread);
        if (n->has_agg) {
            char why[200];
            if (rr_check_agg(&n->agg, why, sizeof why))
                problem(log, &log->nbad_aggs, "PHASE_AGG of node %u: %s", n->id, why);
        }
    }
    for (size_t i = 0; i < log->ncounters; i++) {
        const rr_counter *c = &log->counters[i];
        if (!idmap_get(&L->strings, c->name, &at))
            problem(log, &log->ndangling, "COUNTER %u names undefined string %u", c->id, c->name);
        if (!idmap_get(&L->threads, c->thread, &at))
            problem(log, &log->ndangling, "COUNTER %u on undefined thread %u", c->id, c->thread);
        if (c->node && !idmap_get(&L->nodes, c->node, &at))
            problem(log, &log->ndangling, "COUNTER %u in undefined node %u", c->id, c->node);
        else if (c->node && log->nodes[at].thread != c->thread)
            problem(log, &log->nconflicts, "COUNTER %u (thread %u) in node %u of thread %u", c->id,
                    c->thread, c->node, log->nodes[at].thread);
    }
}

int rr_load_file(const char *path, rr_log *log) {
    memset(log, 0, sizeof *log);
    log->path = strdup(path);
    if (!log->path)
        abort();
    loader L = {.log = log};
    scope_log_reader *r = NULL;
    log->open_rc = scope_log_reader_open(&r, path, log->open_msg, sizeof log->open_msg);
    if (log->open_rc < 0)
        return log->open_rc;
    log->file_size = scope_log_reader_info(r)->file_size;

    scope_rec_frame fr;
    uint64_t off;
    while (scope_log_reader_next_frame(r, &fr, &off) == 1) {
        log->frames = grow(log->frames, log->nframes, &L.cap_frames, sizeof *log->frames);
        rr_frame *f = &log->frames[log->nframes++];
        *f = (rr_frame){off, fr.seq, fr.mono_ns, fr.wall_ns, fr.reason, {0}};
        L.frame = f;
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1) {
            if (scope_rec_type_known(rec.type))
                f->nrec[rec.type]++;
            switch (rec.type) {
            case SCOPE_REC_PROCESS:
                on_process(&L, &rec);
                break;
            case SCOPE_REC_STRING:
                on_string(&L, &rec.u.string);
                break;
            case SCOPE_REC_THREAD:
                on_thread(&L, &rec.u.thread);
                break;
            case SCOPE_REC_PHASE_NODE:
                on_node(&L, &rec.u.phase_node);
                break;
            case SCOPE_REC_PHASE_AGG:
                on_agg(&L, &rec.u.phase_agg);
                break;
            case SCOPE_REC_COUNTER:
                on_counter(&L, &rec.u.counter);
                break;
            case SCOPE_REC_MARK:
                on_mark(&L, &rec.u.mark);
                break;
            case SCOPE_REC_RESOURCE:
                on_resource(&L, &rec.u.resource);
                break;
            case SCOPE_REC_MODULE:
                on_module(&L, &rec.u.module);
                break;
            case SCOPE_REC_STACK:
                on_stack(&L, &rec.u.stack);
                break;
            case SCOPE_REC_STACK_SAMPLES:
                on_stack_samples(&L, &rec.u.stack_samples, SCOPE_CPU_ON);
                break;
            case SCOPE_REC_OFFCPU_SAMPLES:
                on_stack_samples(&L, &rec.u.offcpu_samples, rec.u.offcpu_samples.state);
                break;
            case SCOPE_REC_LINES:
                on_lines(&L, &rec.u.lines);
                break;
            default:
                if (!scope_rec_type_known(rec.type))
                    log->nunknown++;
                break;
            }
        }
    }
    /* Damage found on the way is complete only once every frame was read. */
    log->ndamage = scope_log_reader_damage_count(r);
    if (log->ndamage) {
        log->damage = calloc(log->ndamage, sizeof *log->damage);
        if (!log->damage)
            abort();
        for (size_t i = 0; i < log->ndamage; i++)
            log->damage[i] = *scope_log_reader_damage(r, i);
    }
    scope_log_reader_close(r);
    resolve(&L);
    idmap_free(&L.strings);
    idmap_free(&L.threads);
    idmap_free(&L.nodes);
    idmap_free(&L.counters);
    idmap_free(&L.agg_ids);
    free(L.aggs);
    free(L.agg_node);
    return 0;
}

static void free_process(rr_process *p) {
    rr_bytes *all[] = {&p->run_id, &p->uuid,   &p->host,
                       &p->role,   &p->job_id, &p->step_id,
                       &p->exe,    &p->cwd,    &p->recorder_version};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]->ptr);
    for (uint32_t i = 0; p->argv && i < p->argc; i++)
        free(p->argv[i].ptr);
    free(p->argv);
}

void rr_log_free(rr_log *log) {
    if (log->has_process)
        free_process(&log->process);
    for (size_t i = 0; i < log->nstrings; i++)
        free(log->strings[i].value.ptr);
    for (size_t i = 0; i < log->nthreads; i++)
        free(log->threads[i].name.ptr);
    for (size_t i = 0; i < log->nmarks; i++)
        free(log->marks[i].text.ptr);
    free(log->strings);
    free(log->threads);
    free(log->nodes);
    free(log->counters);
    free(log->marks);
    free(log->resources);
    free(log->frames);
    free(log->damage);
    for (size_t i = 0; i < log->nmodules; i++)
        free(log->modules[i].path.ptr);
    for (size_t i = 0; i < log->nstacks; i++)
        free(log->stacks[i].frames);
    free(log->modules);
    free(log->stacks);
    free(log->samples);
    free(log->lines_project.ptr);
    free(log->path);
    memset(log, 0, sizeof *log);
}

/* ---- a run directory ------------------------------------------------------ */

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Paths of every log under RUN/workers/<host>/, sorted.  Returns the count
 * or a negative errno. */
static int list_logs(const char *run_dir, char ***out) {
    *out = NULL;
    char workers[4096];
    snprintf(workers, sizeof workers, "%s/workers", run_dir);
    DIR *d = opendir(workers);
    if (!d)
        return errno == ENOENT ? 0 : -errno;
    char **paths = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char host[4400];
        snprintf(host, sizeof host, "%s/%s", workers, e->d_name);
        DIR *h = opendir(host);
        if (!h) {
            if (errno == ENOTDIR)
                continue;
            rc = -errno;
            break;
        }
        struct dirent *f;
        while ((f = readdir(h)) != NULL) {
            if (f->d_name[0] == '.' || !ends_with(f->d_name, "." SCOPE_LOG_FILE_EXT))
                continue;
            paths = grow(paths, n, &cap, sizeof *paths);
            if (asprintf(&paths[n], "%s/%s", host, f->d_name) < 0)
                abort();
            n++;
        }
        closedir(h);
    }
    closedir(d);
    if (rc < 0) {
        for (size_t i = 0; i < n; i++)
            free(paths[i]);
        free(paths);
        return rc;
    }
    if (n)
        qsort(paths, n, sizeof *paths, cmp_str);
    *out = paths;
    return (int)n;
}

int rr_list(const char *run_dir, char *first, size_t cap) {
    char **paths;
    int n = list_logs(run_dir, &paths);
    if (n > 0 && first)
        snprintf(first, cap, "%s", paths[0]);
    for (int i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return n;
}

int rr_load(const char *run_dir, rr_run *run) {
    memset(run, 0, sizeof *run);
    run->dir = strdup(run_dir);
    if (!run->dir)
        abort();
    char **paths;
    int n = list_logs(run_dir, &paths);
    if (n <= 0)
        return n;
    run->logs = calloc((size_t)n, sizeof *run->logs);
    if (!run->logs)
        abort();
    for (int i = 0; i < n; i++) {
        rr_load_file(paths[i], &run->logs[i]);
        free(paths[i]);
    }
    free(paths);
    run->nlogs = (size_t)n;
    return n;
}

void rr_free(rr_run *run) {
    for (size_t i = 0; i < run->nlogs; i++)
        rr_log_free(&run->logs[i]);
    free(run->logs);
    free(run->dir);
    memset(run, 0, sizeof *run);
}

/* ---- lookups ---------------------------------------------------------------- */

const rr_bytes *rr_str(const rr_log *log, uint32_t id) {
    for (size_t i = 0; i < log->nstrings; i++)
        if (log->strings[i].id == id)
            return &log->strings[i].value;
    return NULL;
}

int rr_str_is(const rr_log *log, uint32_t id, const void *bytes, size_t len) {
    const rr_bytes *s = rr_str(log, id);
    return s && s->len == len && (!len || memcmp(s->ptr, bytes, len) == 0);
}

const rr_node *rr_node_by_id(const rr_log *log, uint32_t id) {
    for (size_t i = 0; i < log->nnodes; i++)
        if (log->nodes[i].id == id)
            return &log->nodes[i];
    return NULL;
}

const rr_thread *rr_thread_by_index(const rr_log *log, uint32_t index) {
    for (size_t i = 0; i < log->nthreads; i++)
        if (log->threads[i].index == index)
            return &log->threads[i];
    return NULL;
}

const rr_thread *rr_thread_named(const rr_log *log, const char *name) {
    for (size_t i = 0; i < log->nthreads; i++)
        if (!strcmp(log->threads[i].name.ptr, name))
            return &log->threads[i];
    return NULL;
}

const rr_node *rr_child(const rr_log *log, uint32_t thread, uint32_t parent, const void *name,
                        size_t len) {
    for (size_t i = 0; i < log->nnodes; i++) {
        const rr_node *n = &log->nodes[i];
        if (n->thread == thread && n->parent == parent && rr_str_is(log, n->name, name, len))
            return n;
    }
    return NULL;
}

const rr_node *rr_find(const rr_log *log, uint32_t thread, const char *path) {
    const rr_node *n = NULL;
    for (const char *p = path; *p;) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        n = rr_child(log, thread, n ? n->id : 0, p, len);
        if (!n)
            return NULL;
        p += len + (slash != NULL);
    }
    return n;
}

const char *rr_path_of(const rr_log *log, const rr_node *n, char *buf, size_t cap) {
    char tmp[1024];
    buf[0] = '\0';
    for (int depth = 0; n && depth < 300; depth++) {
        const rr_bytes *s = rr_str(log, n->name);
        char part[300];
        if (s)
            snprintf(part, sizeof part, "%.*s", (int)s->len, s->ptr);
        else
            snprintf(part, sizeof part, "(string #%u)", n->name);
        snprintf(tmp, sizeof tmp, "%s%s%s", part, buf[0] ? "/" : "", buf);
        snprintf(buf, cap, "%s", tmp);
        if (!n->parent)
            break;
        const rr_node *p = rr_node_by_id(log, n->parent);
        if (!p) {
            snprintf(tmp, sizeof tmp, "(phase #%u)/%s", n->parent, buf);
            snprintf(buf, cap, "%s", tmp);
        }
        n = p;
    }
    return buf;
}

uint64_t rr_path_count(const rr_log *log, const char *path, size_t *nodes) {
    uint64_t sum = 0;
    size_t matched = 0;
    for (size_t i = 0; i < log->nthreads; i++) {
        const rr_node *n = rr_find(log, log->threads[i].index, path);
        if (!n)
            continue;
        matched++;
        if (n->has_agg)
            sum += n->agg.count;
    }
    if (nodes)
        *nodes = matched;
    return sum;
}

int64_t rr_counter_total(const rr_log *log, uint32_t thread, const char *path, const char *name,
                         uint64_t *calls) {
    int64_t total = 0;
    uint64_t ncalls = 0;
    for (size_t t = 0; t < log->nthreads; t++) {
        uint32_t ti = log->threads[t].index;
        if (thread && ti != thread)
            continue;
        uint32_t node = 0;
        if (path && *path) {
            const rr_node *n = rr_find(log, ti, path);
            if (!n)
                continue;
            node = n->id;
        }
        for (size_t i = 0; i < log->ncounters; i++) {
            const rr_counter *c = &log->counters[i];
            if (c->thread == ti && c->node == node && rr_str_is(log, c->name, name, strlen(name))) {
                total += c->total;
                ncalls += c->calls;
            }
        }
    }
    if (calls)
        *calls = ncalls;
    return total;
}

size_t rr_marks(const rr_log *log, uint32_t kind, const char *substr, const rr_mark **first) {
    size_t n = 0;
    if (first)
        *first = NULL;
    for (size_t i = 0; i < log->nmarks; i++) {
        const rr_mark *m = &log->marks[i];
        if (m->kind != kind ||
            (substr && !memmem(m->text.ptr, m->text.len, substr, strlen(substr))))
            continue;
        if (!n && first)
            *first = m;
        n++;
    }
    return n;
}

size_t rr_run_ids(const rr_run *run) {
    size_t n = 0;
    for (size_t i = 0; i < run->nlogs; i++) {
        const rr_log *a = &run->logs[i];
        if (!a->has_process)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            const rr_log *b = &run->logs[j];
            seen = b->has_process && !strcmp(a->process.run_id.ptr, b->process.run_id.ptr);
        }
        n += !seen;
    }
    return n;
}

const rr_log *rr_log_with_role(const rr_run *run, const char *role, size_t n) {
    for (size_t i = 0; i < run->nlogs; i++) {
        const rr_log *l = &run->logs[i];
        if (l->has_process && !strcmp(l->process.role.ptr, role) && n-- == 0)
            return l;
    }
    return NULL;
}

/* ---- checks ------------------------------------------------------------------ */

int rr_check_agg(const rr_agg *a, char *why, size_t cap) {
    if (a->count && !a->has_hist)
        snprintf(why, cap, "%llu entries and never a histogram", (unsigned long long)a->count);
    else if (a->bins_total > a->count)
        snprintf(why, cap, "histogram holds %llu entries, more than the count %llu",
                 (unsigned long long)a->bins_total, (unsigned long long)a->count);
    else if (!a->bins_increasing)
        snprintf(why, cap, "histogram buckets not strictly increasing");
    else if (a->count && a->min_ns > a->max_ns)
        snprintf(why, cap, "min %llu > max %llu", (unsigned long long)a->min_ns,
                 (unsigned long long)a->max_ns);
    else if (a->count && ((unsigned __int128)a->min_ns * a->count > a->wall_ns ||
                          (unsigned __int128)a->max_ns * a->count < a->wall_ns))
        snprintf(why, cap, "wall %llu ns outside count %llu x [min %llu, max %llu]",
                 (unsigned long long)a->wall_ns, (unsigned long long)a->count,
                 (unsigned long long)a->min_ns, (unsigned long long)a->max_ns);
    else if (a->cpu_count > a->count || a->cpu_wall_ns > a->wall_ns)
        snprintf(why, cap, "CPU subset (%llu entries, %llu ns) exceeds the whole (%llu, %llu)",
                 (unsigned long long)a->cpu_count, (unsigned long long)a->cpu_wall_ns,
                 (unsigned long long)a->count, (unsigned long long)a->wall_ns);
    else if (!a->cpu_count && (a->cpu_ns || a->cpu_wall_ns))
        snprintf(why, cap, "CPU time without CPU entries");
    else
        return 0;
    return 1;
}

int rr_check_clean(const rr_log *log, char *why, size_t cap) {
    if (log->open_rc < 0)
        snprintf(why, cap, "%s: cannot open: %s", log->path, log->open_msg);
    else if (log->ndamage)
        snprintf(why, cap, "%s: %zu damaged stretch(es), first at %llu: %s", log->path,
                 log->ndamage, (unsigned long long)log->damage[0].offset, log->damage[0].what);
    else if (!log->has_process)
        snprintf(why, cap, "%s: no PROCESS record", log->path);
    else if (log->nconflicts || log->ndangling || log->nbad_aggs)
        snprintf(why, cap, "%s: %zu conflicting, %zu dangling, %zu inconsistent:\n%s", log->path,
                 log->nconflicts, log->ndangling, log->nbad_aggs, log->problems);
    else {
        for (size_t i = 0; i < log->nframes; i++) {
            if (log->frames[i].seq != i) {
                snprintf(why, cap, "%s: frame %zu has sequence number %llu", log->path, i,
                         (unsigned long long)log->frames[i].seq);
                return 1;
            }
        }
        return 0;
    }
    return 1;
}

static void print_bytes(FILE *out, const rr_bytes *b) {
    for (size_t i = 0; i < b->len; i++) {
        unsigned char c = (unsigned char)b->ptr[i];
        if (c < 0x20 || c >= 0x7f || c == '\\')
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
}

void rr_print(FILE *out, const rr_log *log) {
    fprintf(out, "log %s (%llu bytes, %zu frames, %zu damaged)\n", log->path,
            (unsigned long long)log->file_size, log->nframes, log->ndamage);
    if (log->open_rc < 0) {
        fprintf(out, "  open failed: %s\n", log->open_msg);
        return;
    }
    if (log->has_process) {
        const rr_process *p = &log->process;
        fprintf(out, "  process run %s role %s pid %lld ppid %lld rank %d/%d\n", p->run_id.ptr,
                p->role.ptr, (long long)p->pid, (long long)p->ppid, p->rank, p->world_size);
    }
    for (size_t i = 0; i < log->nframes; i++)
        fprintf(out, "  frame seq %llu at %llu reason %s\n", (unsigned long long)log->frames[i].seq,
                (unsigned long long)log->frames[i].offset,
                scope_frame_reason_name(log->frames[i].reason));
    for (size_t i = 0; i < log->ndamage; i++)
        fprintf(out, "  damage at %llu length %llu truncated %d: %s\n",
                (unsigned long long)log->damage[i].offset,
                (unsigned long long)log->damage[i].length, log->damage[i].truncated,
                log->damage[i].what);
    for (size_t i = 0; i < log->nthreads; i++)
        fprintf(out, "  thread %u tid %lld '%s'\n", log->threads[i].index,
                (long long)log->threads[i].tid, log->threads[i].name.ptr);
    for (size_t i = 0; i < log->nnodes; i++) {
        const rr_node *n = &log->nodes[i];
        char path[1024];
        rr_path_of(log, n, path, sizeof path);
        rr_bytes shown = {path, strlen(path)};
        fprintf(out, "  node %u thread %u parent %u ", n->id, n->thread, n->parent);
        print_bytes(out, &shown);
        if (n->has_agg)
            fprintf(out, ": count %llu wall %llu cpu %llu/%llu ns\n",
                    (unsigned long long)n->agg.count, (unsigned long long)n->agg.wall_ns,
                    (unsigned long long)n->agg.cpu_ns, (unsigned long long)n->agg.cpu_wall_ns);
        else
            fprintf(out, ": no aggregate\n");
    }
    for (size_t i = 0; i < log->ncounters; i++) {
        const rr_counter *c = &log->counters[i];
        const rr_bytes *s = rr_str(log, c->name);
        fprintf(out, "  counter %u thread %u node %u ", c->id, c->thread, c->node);
        if (s)
            print_bytes(out, s);
        fprintf(out, ": calls %llu total %lld\n", (unsigned long long)c->calls,
                (long long)c->total);
    }
    for (size_t i = 0; i < log->nmarks; i++) {
        const rr_mark *m = &log->marks[i];
        fprintf(out, "  mark %s thread %u value %lld (frame %llu, %s) ",
                scope_mark_kind_name(m->kind), m->thread, (long long)m->value,
                (unsigned long long)m->frame_seq, scope_frame_reason_name(m->frame_reason));
        print_bytes(out, &m->text);
        fputc('\n', out);
    }
    if (log->problems[0])
        fprintf(out, "  problems:\n%s", log->problems);
}
