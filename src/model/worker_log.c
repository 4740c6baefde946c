/* One process's tables, filled by a loader; see worker_log.h. */
#include "worker_log.h"

#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void worker_log_init(worker_log *log) {
    run_worker *w = &log->w;
    w->rank = w->local_rank = w->node_rank = w->world_size = -1;
    w->array_task = w->restarts = -1;
    w->end = RUN_END_UNKNOWN;
    w->trace_state = -1;
}

void worker_log_share_caps(worker_log *log, read_caps *caps) {
    read_caps_drop(log->caps);
    log->caps = read_caps_hold(caps);
}

run_str run_str_dup(arena *a, const void *p, size_t n) {
    char *s = arena_dup(a, p, n);
    return (run_str){s ? s : "", s ? n : 0};
}

const run_str *log_string_of(const worker_log *log, uint32_t id) {
    uint32_t ix;
    return idmap_get(&log->string_ix, id, &ix) ? &log->strings[ix].value : NULL;
}

log_node *log_node_of(worker_log *log, uint32_t id) {
    uint32_t ix;
    return idmap_get(&log->node_ix, id, &ix) ? &log->nodes[ix] : NULL;
}

void log_inconsistent(worker_log *log, const char *what) {
    if (!log->inconsistent++)
        snprintf(log->inconsistent_what, sizeof log->inconsistent_what, "%s", what);
}

/* Room for one more element in a table of the log; on failure the log is
 * out of memory and the caller returns.  The id maps keep indexes as
 * uint32, so a table stops short of UINT32_MAX entries. */
#define ROOM_FOR_ONE(log, arr, n, cap)                                                             \
    (((log)->n < UINT32_MAX && SCOPE_VEC_RESERVE((log)->arr, (log)->cap, (log)->n + 1) == 0) ||    \
     ((log)->nomem = 1, 0))

/* One more definition of kind k, new to the log, within the reader's caps:
 * 1, or 0 when a cap leaves it out (counted once, where it is defined
 * rather than restated). */
static int within_caps(worker_log *log, enum read_cap_kind k) {
    if (read_caps_take(log->caps, &log->tally, k, 1) == 0)
        return 1;
    if (!log->restating)
        log->tally.left_out[k]++;
    return 0;
}

/* Maps id to entry n of a table, just filled: 0, or -1 when out of memory
 * (then the entry is not counted). */
static int index_entry(worker_log *log, idmap *ix, uint32_t id, size_t n) {
    if (idmap_put(ix, id, (uint32_t)n) == 0)
        return 0;
    log->nomem = 1;
    return -1;
}

void log_add_string(worker_log *log, const scope_rec_string *s) {
    uint32_t ix;
    if (idmap_get(&log->string_ix, s->id, &ix)) {
        const run_str *old = &log->strings[ix].value;
        if (old->len != s->value.len || memcmp(old->s, s->value.ptr, old->len))
            log_inconsistent(log, "a name id was defined twice with different names");
        return;
    }
    if (!s->id) {
        log_inconsistent(log, "a name was defined with id 0");
        return;
    }
    if (!within_caps(log, READ_NAMES))
        return;
    if (!ROOM_FOR_ONE(log, strings, nstrings, cap_strings))
        return;
    log->strings[log->nstrings] =
        (log_string){s->id, run_str_dup(&log->mem, s->value.ptr, s->value.len)};
    if (index_entry(log, &log->string_ix, s->id, log->nstrings) == 0)
        log->nstrings++;
}

void log_add_node(worker_log *log, const scope_rec_phase_node *n) {
    log_node *old = log_node_of(log, n->id);
    if (old) {
        if (old->parent != n->parent || old->name != n->name || old->thread != n->thread)
            log_inconsistent(log, "a phase id was defined twice with different places");
        return;
    }
    if (!n->id || n->parent == n->id) {
        log_inconsistent(log, "a phase was defined with an impossible id");
        return;
    }
    if (!within_caps(log, READ_NODES) || !ROOM_FOR_ONE(log, nodes, nnodes, cap_nodes))
        return;
    log->nodes[log->nnodes] = (log_node){
        .id = n->id,
        .parent = n->parent,
        .name = n->name,
        .thread = n->thread,
        .flags = n->flags,
        .file = n->file,
        .line = n->line,
    };
    if (index_entry(log, &log->node_ix, n->id, log->nnodes) == 0)
        log->nnodes++;
}

/* The node's histogram becomes bins[0 .. nbins), held exactly (a node with
 * one bucket costs one), within the reader's caps on buckets.  Past them
 * the node keeps no histogram: its percentiles rest on the other entries
 * merged with it, and the caveats say how many nodes lost theirs. */
static void set_hist(worker_log *log, log_node *n, const scope_hist_bin *bins, uint32_t nbins) {
    read_caps_give(log->caps, &log->tally, READ_BINS, n->nbins);
    if (read_caps_take(log->caps, &log->tally, READ_BINS, nbins) < 0) {
        if (!n->hist_left_out)
            log->tally.left_out[READ_BINS]++;
        n->hist_left_out = 1;
        nbins = 0;
    }
    if (nbins != n->nbins) {
        /* Exactly nbins: the reader's caps count bins one by one. */
        if (SCOPE_VEC_RESIZE(n->bins, nbins) < 0) {
            read_caps_give(log->caps, &log->tally, READ_BINS, nbins);
            log->nomem = 1;
            nbins = 0; /* none held, the old ones freed */
            free(n->bins);
            n->bins = NULL;
        }
    }
    if (nbins)
        memcpy(n->bins, bins, nbins * sizeof *bins);
    n->nbins = nbins;
    n->hist_count = 0;
    for (uint32_t i = 0; i < nbins; i++)
        n->hist_count += bins[i].count;
}

static void apply_agg(worker_log *log, log_node *n, const scope_rec_phase_agg *a) {
    if (a->min_ns > a->max_ns && a->count) {
        log_inconsistent(log, "a phase aggregate with its minimum above its maximum");
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
    n->delay_count = a->delay_count;
    n->delay_wall_ns = a->delay_wall_ns;
    n->delay_ns = a->delay_ns;
    n->io_flags = a->io_flags;
    n->io_count = a->io_count;
    n->io_failed = a->io_failed;
    n->disk_read = a->disk_read;
    n->disk_write = a->disk_write;
    n->char_read = a->char_read;
    n->char_write = a->char_write;
    if (!a->nbins)
        return; /* the histogram stays the newest one sent (docs/format.md) */
    set_hist(log, n, a->bins, a->nbins);
}

void log_add_agg(worker_log *log, const scope_rec_phase_agg *a) {
    log_node *n = log_node_of(log, a->node);
    if (n) {
        apply_agg(log, n, a);
        return;
    }
    if (!ROOM_FOR_ONE(log, pending, npending, cap_pending))
        return;
    scope_hist_bin *bins = a->nbins ? malloc(a->nbins * sizeof *bins) : NULL;
    if (a->nbins && !bins) {
        log->nomem = 1;
        return;
    }
    if (bins)
        memcpy(bins, a->bins, a->nbins * sizeof *bins);
    log->pending[log->npending] = *a;
    log->pending[log->npending++].bins = bins;
}

void log_settle_pending(worker_log *log) {
    for (size_t i = 0; i < log->npending; i++) {
        log_node *n = log_node_of(log, log->pending[i].node);
        if (n && !log->nomem)
            apply_agg(log, n, &log->pending[i]);
        else if (!log->tally.hit[READ_NODES]) /* else its node is one the caps left out */
            log_inconsistent(log, "figures of a phase whose definition was lost");
        free((void *)log->pending[i].bins);
    }
    log->npending = 0;
}

void log_add_counter(worker_log *log, const scope_rec_counter *c) {
    uint32_t ix;
    if (idmap_get(&log->counter_ix, c->id, &ix)) {
        log_counter *old = &log->counters[ix];
        if (old->name != c->name || old->node != c->node || old->thread != c->thread) {
            log_inconsistent(log, "a counter id was reused for another counter");
            return;
        }
        old->calls = c->calls;
        old->total = c->total;
        return;
    }
    if (!c->id) {
        log_inconsistent(log, "a counter with id 0");
        return;
    }
    if (!within_caps(log, READ_COUNTERS) || !ROOM_FOR_ONE(log, counters, ncounters, cap_counters))
        return;
    log->counters[log->ncounters] =
        (log_counter){c->id, c->name, c->node, c->thread, c->calls, c->total};
    if (index_entry(log, &log->counter_ix, c->id, log->ncounters) == 0)
        log->ncounters++;
}

static log_thread_marks *thread_marks(worker_log *log, uint32_t thread) {
    uint32_t ix;
    /* Keyed by the index itself: every uint32 is a thread (0: the
     * process), and the map takes every uint32 as a key. */
    if (idmap_get(&log->thread_ix, thread, &ix))
        return &log->tmarks[ix];
    if (!ROOM_FOR_ONE(log, tmarks, ntmarks, cap_tmarks))
        return NULL;
    if (index_entry(log, &log->thread_ix, thread, log->ntmarks) < 0)
        return NULL;
    log->tmarks[log->ntmarks] = (log_thread_marks){.thread = thread};
    return &log->tmarks[log->ntmarks++];
}

void log_set_unbalanced_ends(worker_log *log, uint32_t thread, int64_t total) {
    log_thread_marks *t = thread_marks(log, thread);
    if (t && total > 0)
        t->unbalanced_ends = (uint64_t)total;
}

void log_set_left_in_block(worker_log *log, uint32_t thread, int64_t total) {
    log_thread_marks *t = thread_marks(log, thread);
    if (t && total > 0)
        t->left_in_block = (uint64_t)total;
}

void log_set_dropped(worker_log *log, uint32_t thread, int64_t total) {
    log_thread_marks *t = thread_marks(log, thread);
    if (t && total > 0)
        t->dropped = (uint64_t)total;
}

void log_add_open_phases(worker_log *log, uint64_t n, uint32_t innermost, scope_bytes text) {
    log->open_phase_marks += n;
    /* The nodes are defined no later than the frame holding the mark; a
     * damaged chain stops the walk at the first node not defined. */
    log_node *node = innermost ? log_node_of(log, innermost) : NULL;
    for (uint64_t i = 0; i < n && i < RUN_MAX_DEPTH && node; i++) {
        node->left_open = 1;
        node = node->parent ? log_node_of(log, node->parent) : NULL;
    }
    log_add_note(log, text);
}

void log_frame_begins(worker_log *log, uint64_t mono_ns) {
    log->nopen = 0;
    log->open_mono_ns = mono_ns;
}

void log_add_open(worker_log *log, const scope_rec_open *o) {
    for (uint32_t i = 0; i < o->n; i++) {
        if (!ROOM_FOR_ONE(log, open, nopen, cap_open))
            return;
        log->open[log->nopen++] = (log_open){o->phases[i].node, o->phases[i].start_ns};
    }
}

/* The newest frame's open entries onto their nodes.  A node this log never
 * defined (a damaged log) is left out: it has nowhere to go.  A start after
 * the frame (a clock that stepped, or damage) counts nothing.  A process
 * that shut down said what it left open with left-open marks: those phases
 * read as open, as they do in a log before format 1.4, not as running to
 * its exit. */
static void settle_open(worker_log *log) {
    for (size_t i = 0; i < log->nnodes; i++) { /* an earlier settle's newest frame */
        log->nodes[i].open_now = 0;
        log->nodes[i].open_ns = 0;
    }
    for (size_t i = 0; i < log->nopen && !log->shutdown; i++) {
        log_node *n = log_node_of(log, log->open[i].node);
        if (!n)
            continue;
        n->open_now = 1;
        n->open_ns = log->open_mono_ns > log->open[i].start_ns
                         ? log->open_mono_ns - log->open[i].start_ns
                         : 0;
    }
}

void log_add_note(worker_log *log, scope_bytes text) {
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

void worker_log_settle(worker_log *log) {
    run_worker *w = &log->w;
    /* Totals from the tables as they are: settling again after more frames
     * were read (run_log.h, log_read_more) counts nothing twice. */
    w->unbalanced = w->dropped = w->phase_ns = 0;
    w->nthreads = 0;
    for (size_t i = 0; i < log->ntmarks; i++) {
        w->unbalanced += log->tmarks[i].unbalanced_ends + log->tmarks[i].left_in_block;
        w->dropped += log->tmarks[i].dropped;
    }
    w->unbalanced += log->open_phase_marks;
    if (log->lines.inconsistent > log->lines_counted) {
        log_inconsistent(log, "a module or stack id defined twice differently, or as 0");
        log->inconsistent += log->lines.inconsistent - log->lines_counted - 1;
        log->lines_counted = log->lines.inconsistent;
    }

    settle_open(log);
    /* Threads that recorded something; the phase time of the process. */
    idmap seen = {0};
    for (size_t i = 0; i < log->nnodes; i++) {
        const log_node *n = &log->nodes[i];
        uint32_t dummy;
        if (!n->has_agg && !n->open_now)
            continue;
        if (!idmap_get(&seen, n->thread, &dummy)) { /* any uint32, as in thread_marks */
            if (idmap_put(&seen, n->thread, 0) < 0)
                log->nomem = 1;
            w->nthreads++;
        }
        if (!n->parent)
            w->phase_ns += n->wall_ns + n->open_ns;
    }
    idmap_free(&seen);
}

void worker_log_unmerge(worker_log *log) {
    for (size_t i = 0; i < log->nnodes; i++) {
        log->nodes[i].merged = NULL;
        log->nodes[i].placing = 0;
        log->nodes[i].unplaced = 0;
    }
    log->inconsistent = log->read_inconsistent;
    memcpy(log->inconsistent_what, log->read_inconsistent_what, sizeof log->inconsistent_what);
}

void worker_log_release(worker_log *log) {
    read_caps_give_all(log->caps, &log->tally);
    read_caps_drop(log->caps);
    for (size_t i = 0; i < log->nnodes; i++) {
        free(log->nodes[i].bins);
        free(log->nodes[i].exact_ns);
    }
    free(log->nodes);
    free(log->strings);
    free(log->counters);
    free(log->tmarks);
    free(log->open);
    free(log->damage);
    for (size_t i = 0; i < log->npending; i++)
        free((void *)log->pending[i].bins);
    free(log->pending);
    idmap_free(&log->string_ix);
    idmap_free(&log->node_ix);
    idmap_free(&log->counter_ix);
    idmap_free(&log->thread_ix);
    res_proc_free(log->res);
    log_lines_release(&log->lines);
    arena_free(&log->mem);
    memset(log, 0, sizeof *log);
}
