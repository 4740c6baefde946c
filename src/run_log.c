/*
 * Reading one worker's log into its newest figures: definitions by id, the
 * newest aggregate of every phase node and counter, the marks that become
 * caveats, and what the reader had to skip.  Aggregates are full values, so
 * only the newest is kept: memory follows the number of phases, not the
 * length of the run.
 */
#include "run_internal.h"

#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena -------------------------------------------------------------- */

struct arena_chunk {
    arena_chunk *next;
    size_t used, cap;
    alignas(max_align_t) unsigned char data[];
};

void *arena_alloc(arena *a, size_t n) {
    n = (n + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
    arena_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > 16384 ? n : 16384;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->next = a->head;
        c->used = 0;
        c->cap = cap;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_dup(arena *a, const void *p, size_t n) {
    char *s = arena_alloc(a, n + 1);
    if (s && n)
        memcpy(s, p, n);
    return s;
}

void arena_free(arena *a) {
    for (arena_chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    a->head = NULL;
}

run_str run_str_dup(arena *a, const void *p, size_t n) {
    char *s = arena_dup(a, p, n);
    return (run_str){s ? s : "", s ? n : 0};
}

/* ---- tables ------------------------------------------------------------- */

/* Room for one more element in *arr; NULL when out of memory. */
static void *grow(void *arr, size_t n, size_t *cap, size_t size) {
    if (n < *cap)
        return arr;
    size_t ncap = *cap ? *cap * 2 : 32;
    void *p = realloc(arr, ncap * size);
    if (p)
        *cap = ncap;
    return p;
}

#define GROW(log, arr, n, cap)                                                                     \
    do {                                                                                           \
        void *grown_ = grow((log)->arr, (log)->n, &(log)->cap, sizeof *(log)->arr);                \
        if (!grown_) {                                                                             \
            (log)->nomem = 1;                                                                      \
            return;                                                                                \
        }                                                                                          \
        (log)->arr = grown_;                                                                       \
    } while (0)

const run_str *log_string_of(const worker_log *log, uint32_t id) {
    uint32_t ix;
    return idmap_get(&log->string_ix, id, &ix) ? &log->strings[ix].value : NULL;
}

log_node *log_node_of(worker_log *log, uint32_t id) {
    uint32_t ix;
    return idmap_get(&log->node_ix, id, &ix) ? &log->nodes[ix] : NULL;
}

static void inconsistent(worker_log *log, const char *what) {
    if (!log->inconsistent++)
        snprintf(log->inconsistent_what, sizeof log->inconsistent_what, "%s", what);
}

static void on_string(worker_log *log, const scope_rec_string *s) {
    uint32_t ix;
    if (idmap_get(&log->string_ix, s->id, &ix)) {
        const run_str *old = &log->strings[ix].value;
        if (old->len != s->value.len || memcmp(old->s, s->value.ptr, old->len))
            inconsistent(log, "a name id was defined twice with different names");
        return;
    }
    if (!s->id) {
        inconsistent(log, "a name was defined with id 0");
        return;
    }
    GROW(log, strings, nstrings, cap_strings);
    log->strings[log->nstrings] =
        (log_string){s->id, run_str_dup(&log->mem, s->value.ptr, s->value.len)};
    if (idmap_put(&log->string_ix, s->id, (uint32_t)log->nstrings) < 0) {
        log->nomem = 1;
        return;
    }
    log->nstrings++;
}

static void on_node(worker_log *log, const scope_rec_phase_node *n) {
    log_node *old = log_node_of(log, n->id);
    if (old) {
        if (old->parent != n->parent || old->name != n->name || old->thread != n->thread)
            inconsistent(log, "a phase id was defined twice with different places");
        return;
    }
    if (!n->id || n->parent == n->id) {
        inconsistent(log, "a phase was defined with an impossible id");
        return;
    }
    GROW(log, nodes, nnodes, cap_nodes);
    log->nodes[log->nnodes] = (log_node){
        .id = n->id,
        .parent = n->parent,
        .name = n->name,
        .thread = n->thread,
        .flags = n->flags,
        .file = n->file,
        .line = n->line,
    };
    if (idmap_put(&log->node_ix, n->id, (uint32_t)log->nnodes) < 0) {
        log->nomem = 1;
        return;
    }
    log->nnodes++;
}

static void apply_agg(worker_log *log, log_node *n, const scope_rec_phase_agg *a) {
    if (a->min_ns > a->max_ns && a->count) {
        inconsistent(log, "a phase aggregate with its minimum above its maximum");
        return;
    }
    n->has_agg = 1;
    n->count = a->count;
    n->wall_ns = a->wall_ns;
    n->min_ns = a->min_ns;
    n->max_ns = a->max_ns;
    n->cpu_count = a->cpu_count;
    n->cpu_wall_ns = a->cpu_wall_ns;
    n->cpu_ns = a->cpu_ns;
    n->io_flags = a->io_flags;
    n->io_count = a->io_count;
    n->io_failed = a->io_failed;
    n->disk_read = a->disk_read;
    n->disk_write = a->disk_write;
    n->char_read = a->char_read;
    n->char_write = a->char_write;
    if (!a->nbins)
        return; /* the histogram stays the newest one sent (docs/format.md) */
    if (a->nbins > n->bins_cap) {
        scope_hist_bin *b = realloc(n->bins, a->nbins * sizeof *b);
        if (!b) {
            log->nomem = 1;
            return;
        }
        n->bins = b;
        n->bins_cap = a->nbins;
    }
    memcpy(n->bins, a->bins, a->nbins * sizeof *a->bins);
    n->nbins = a->nbins;
}

/* Definitions may come later in the same frame than a record that uses them
 * (docs/format.md, 5.1): an aggregate of a node not defined yet waits for
 * the end of its frame. */
static void on_agg(worker_log *log, const scope_rec_phase_agg *a) {
    log_node *n = log_node_of(log, a->node);
    if (n) {
        apply_agg(log, n, a);
        return;
    }
    void *grown = grow(log->pending, log->npending, &log->cap_pending, sizeof *log->pending);
    scope_hist_bin *bins = a->nbins ? malloc(a->nbins * sizeof *bins) : NULL;
    if (!grown || (a->nbins && !bins)) {
        if (grown)
            log->pending = grown;
        free(bins);
        log->nomem = 1;
        return;
    }
    log->pending = grown;
    if (bins)
        memcpy(bins, a->bins, a->nbins * sizeof *bins);
    log->pending[log->npending] = *a;
    log->pending[log->npending++].bins = bins;
}

/* At the end of a frame: the aggregates whose nodes it defined after them. */
static void settle_pending(worker_log *log) {
    for (size_t i = 0; i < log->npending; i++) {
        log_node *n = log_node_of(log, log->pending[i].node);
        if (n && !log->nomem)
            apply_agg(log, n, &log->pending[i]);
        else
            inconsistent(log, "figures of a phase whose definition was lost");
        free((void *)log->pending[i].bins);
    }
    log->npending = 0;
}

static void on_counter(worker_log *log, const scope_rec_counter *c) {
    uint32_t ix;
    if (idmap_get(&log->counter_ix, c->id, &ix)) {
        log_counter *old = &log->counters[ix];
        if (old->name != c->name || old->node != c->node || old->thread != c->thread) {
            inconsistent(log, "a counter id was reused for another counter");
            return;
        }
        old->calls = c->calls;
        old->total = c->total;
        return;
    }
    if (!c->id) {
        inconsistent(log, "a counter with id 0");
        return;
    }
    GROW(log, counters, ncounters, cap_counters);
    log->counters[log->ncounters] =
        (log_counter){c->id, c->name, c->node, c->thread, c->calls, c->total};
    if (idmap_put(&log->counter_ix, c->id, (uint32_t)log->ncounters) < 0) {
        log->nomem = 1;
        return;
    }
    log->ncounters++;
}

static log_thread_marks *thread_marks(worker_log *log, uint32_t thread) {
    uint32_t ix;
    /* Keyed by the index itself: every uint32 is a thread (0: the process).
     * Keying by index + 1 turned thread 2^32-1 into key 0, which the map
     * refused, and the whole run failed to load as out of memory. */
    if (idmap_get(&log->thread_ix, thread, &ix))
        return &log->tmarks[ix];
    void *p = grow(log->tmarks, log->ntmarks, &log->cap_tmarks, sizeof *log->tmarks);
    if (!p || idmap_put(&log->thread_ix, thread, (uint32_t)log->ntmarks) < 0) {
        if (p)
            log->tmarks = p;
        log->nomem = 1;
        return NULL;
    }
    log->tmarks = p;
    log->tmarks[log->ntmarks] = (log_thread_marks){.thread = thread};
    return &log->tmarks[log->ntmarks++];
}

static void add_note(worker_log *log, scope_bytes text) {
    if (!text.len)
        return; /* nothing to say beyond the count the caveat gives */
    for (size_t i = 0; i < log->nnotes; i++)
        if (strlen(log->notes[i]) == text.len && !memcmp(log->notes[i], text.ptr, text.len))
            return;
    if (log->nnotes < LOG_MAX_NOTES) {
        char *s = arena_dup(&log->mem, text.ptr, text.len);
        if (s)
            log->notes[log->nnotes++] = s;
    }
}

static void on_mark(worker_log *log, const scope_rec_mark *mk, uint64_t seq) {
    log_thread_marks *t;
    switch (mk->kind) {
    case SCOPE_MARK_SIGNAL:
        log->last_signal = (int)mk->value;
        log->signal_frame = seq + 1;
        break;
    case SCOPE_MARK_SHUTDOWN:
        log->shutdown = 1;
        break;
    case SCOPE_MARK_FLUSH_FAILED:
        log->flush_failed = 1;
        break;
    case SCOPE_MARK_CAVEAT:
        add_note(log, mk->text);
        break;
    case SCOPE_MARK_DROPPED:
        /* The value is the thread's running total: keep the newest. */
        if ((t = thread_marks(log, mk->thread)) && mk->value > 0)
            t->dropped = (uint64_t)mk->value;
        break;
    case SCOPE_MARK_UNBALANCED:
        if (mk->subkind == SCOPE_UNBALANCED_END_EMPTY) {
            /* The value is the thread's running total: keep the newest. */
            if ((t = thread_marks(log, mk->thread)) && mk->value > 0)
                t->unbalanced_ends = (uint64_t)mk->value;
        } else {
            /* Phases left open, one mark per thread saying how many; a
             * subkind from a later minor version counts as one. */
            int left_open = mk->subkind == SCOPE_UNBALANCED_LEFT_OPEN && mk->value2 > 0;
            log->open_phase_marks += left_open ? (uint64_t)mk->value2 : 1;
            add_note(log, mk->text);
        }
        break;
    default:
        break; /* fork, exec: events, not caveats */
    }
}

/* A later PROCESS record (a later scope_init naming a role) replaces the
 * identity; the format says only role and argv may differ. */
static void on_process(worker_log *log, const scope_rec_process *p) {
    run_worker *w = &log->w;
    arena *a = &log->mem;
    w->has_process = 1;
    w->run_id = run_str_dup(a, p->run_id.ptr, p->run_id.len);
    w->uuid = run_str_dup(a, p->uuid.ptr, p->uuid.len);
    w->host = run_str_dup(a, p->host.ptr, p->host.len);
    w->role = run_str_dup(a, p->role.ptr, p->role.len);
    w->job_id = run_str_dup(a, p->job_id.ptr, p->job_id.len);
    w->step_id = run_str_dup(a, p->step_id.ptr, p->step_id.len);
    w->exe = run_str_dup(a, p->exe.ptr, p->exe.len);
    w->cwd = run_str_dup(a, p->cwd.ptr, p->cwd.len);
    w->recorder_version = run_str_dup(a, p->recorder_version.ptr, p->recorder_version.len);
    w->pid = p->pid;
    w->ppid = p->ppid;
    w->rank = p->rank;
    w->local_rank = p->local_rank;
    w->node_rank = p->node_rank;
    w->world_size = p->world_size;
    w->start_wall_ns = p->start_wall_ns;
}

/* ---- the log ------------------------------------------------------------ */

static void read_frames(worker_log *log, scope_log_reader *r) {
    scope_rec_frame fr;
    uint64_t off;
    while (scope_log_reader_next_frame(r, &fr, &off) == 1 && !log->nomem) {
        if (log->frames && fr.mono_ns > log->last_mono_ns &&
            fr.mono_ns - log->last_mono_ns > log->max_gap_ns)
            log->max_gap_ns = fr.mono_ns - log->last_mono_ns;
        log->frames++;
        log->last_seq = fr.seq;
        log->last_mono_ns = fr.mono_ns;
        log->last_wall_ns = fr.wall_ns;
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1 && !log->nomem) {
            switch (rec.type) {
            case SCOPE_REC_PROCESS:
                on_process(log, &rec.u.process);
                break;
            case SCOPE_REC_STRING:
                on_string(log, &rec.u.string);
                break;
            case SCOPE_REC_PHASE_NODE:
                on_node(log, &rec.u.phase_node);
                break;
            case SCOPE_REC_PHASE_AGG:
                on_agg(log, &rec.u.phase_agg);
                break;
            case SCOPE_REC_COUNTER:
                on_counter(log, &rec.u.counter);
                break;
            case SCOPE_REC_MARK:
                on_mark(log, &rec.u.mark, fr.seq);
                break;
            default: /* resource samples, stacks, traces: for views to come */
                break;
            }
        }
        settle_pending(log);
    }
}

/* How the process ended, from its last frames and marks. */
static void settle_end(worker_log *log) {
    run_worker *w = &log->w;
    if (log->shutdown)
        w->end = RUN_END_EXIT;
    else if (log->signal_frame && log->signal_frame == log->last_seq + 1) {
        w->end = RUN_END_SIGNAL;
        w->end_signal = log->last_signal;
    } else
        w->end = RUN_END_KILLED;
}

void log_read(const char *path, worker_log *log) {
    run_worker *w = &log->w;
    w->rank = w->local_rank = w->node_rank = w->world_size = -1;
    w->end = RUN_END_UNKNOWN;
    scope_log_reader *r;
    log->open_rc = scope_log_reader_open(&r, path, log->open_msg, sizeof log->open_msg);
    if (log->open_rc < 0)
        return;
    w->readable = 1;
    read_frames(log, r);
    log->ndamage = scope_log_reader_damage_count(r);
    if (log->ndamage) {
        log->damage = calloc(log->ndamage, sizeof *log->damage);
        if (!log->damage)
            log->nomem = 1, log->ndamage = 0;
    }
    for (size_t i = 0; i < log->ndamage; i++) {
        const scope_log_damage *d = scope_log_reader_damage(r, i);
        log->damage[i] = *d;
        w->bytes_skipped += d->length;
        w->frames_lost += d->frames_lost;
        if (d->truncated)
            w->truncated = 1;
    }
    scope_log_reader_close(r);

    w->frames = log->frames;
    w->last_wall_ns = log->last_wall_ns;
    w->runtime_ns = log->last_wall_ns > w->start_wall_ns ? log->last_wall_ns - w->start_wall_ns : 0;
    w->flush_failed = log->flush_failed;
    for (size_t i = 0; i < log->ntmarks; i++) {
        w->unbalanced += log->tmarks[i].unbalanced_ends;
        w->dropped += log->tmarks[i].dropped;
    }
    w->unbalanced += log->open_phase_marks;
    settle_end(log);

    /* Threads that recorded something; the phase time of the process. */
    idmap seen = {0};
    for (size_t i = 0; i < log->nnodes; i++) {
        const log_node *n = &log->nodes[i];
        uint32_t dummy;
        if (!n->has_agg)
            continue;
        if (!idmap_get(&seen, n->thread, &dummy)) { /* any uint32, as in thread_marks */
            if (idmap_put(&seen, n->thread, 0) < 0)
                log->nomem = 1;
            w->nthreads++;
        }
        if (!n->parent)
            w->phase_ns += n->wall_ns;
    }
    idmap_free(&seen);
}

void log_release(worker_log *log) {
    for (size_t i = 0; i < log->nnodes; i++)
        free(log->nodes[i].bins);
    free(log->nodes);
    free(log->strings);
    free(log->counters);
    free(log->tmarks);
    free(log->damage);
    for (size_t i = 0; i < log->npending; i++)
        free((void *)log->pending[i].bins);
    free(log->pending);
    idmap_free(&log->string_ix);
    idmap_free(&log->node_ix);
    idmap_free(&log->counter_ix);
    idmap_free(&log->thread_ix);
    arena_free(&log->mem);
    memset(log, 0, sizeof *log);
}
