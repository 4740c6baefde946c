/*
 * From workers read one by one to the model: attempts, the newest attempt's
 * header, and for each role one phase tree merged by name path across its
 * processes and threads, with every figure the views print.
 *
 * Merging is by path of names: "iteration/self_play/mcts" on thread 2 of
 * actor 7 and on thread 1 of actor 3 are the same phase.  Histograms are
 * added bucket by bucket, so merged percentiles are as good as one
 * process's.
 *
 * What a phase holds grows with what was merged into it, not with the
 * histogram's 976 buckets or the role's processes: a phase keeps only the
 * buckets with entries and the processes that entered it, so that a run of
 * a million phases of a few entries each fits in memory (docs/trust.md).
 */
#include "run_merge.h"

#include "exact_quantile.h"
#include "run_spread.h"
#include "path_normalize.h"
#include "run_resources.h"

#include <scope/log_hist.h>
#include <scope/vec.h>

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char unnamed[] = "(unnamed phase)";

/* ---- names under an owner -------------------------------------------------- */

/* (owner, name) -> index, for finding a phase's child or a counter by name
 * in constant time.  A scan would make merging quadratic in their number,
 * and a phase may have tens of thousands of distinct children or counters
 * (names made up at run time, or a hostile log), met again for every
 * process merged into it. */
typedef struct name_slot {
    const void *owner; /* NULL: an empty slot */
    run_str name;
    size_t index;
} name_slot;

typedef struct name_index {
    name_slot *slots;
    size_t cap, used;
} name_index;

static name_slot *name_slot_of(const name_index *x, const void *owner, run_str name) {
    uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)(uintptr_t)owner * 0x9e3779b97f4a7c15ull);
    for (size_t i = 0; i < name.len; i++) /* FNV-1a */
        h = (h ^ (uint8_t)name.s[i]) * 0x100000001b3ull;
    size_t i = (size_t)(h ^ (h >> 32)) & (x->cap - 1);
    for (;; i = (i + 1) & (x->cap - 1)) {
        const name_slot *e = &x->slots[i];
        if (!e->owner || (e->owner == owner && run_str_eq(e->name, name)))
            return &x->slots[i];
    }
}

/* 1 with *index set when (owner, name) is there, else 0. */
static int name_find(const name_index *x, const void *owner, run_str name, size_t *index) {
    if (!x->cap)
        return 0;
    const name_slot *e = name_slot_of(x, owner, name);
    if (!e->owner)
        return 0;
    *index = e->index;
    return 1;
}

/* Adds (owner, name) -> index, not there yet.  Returns 0, or -1 when out of
 * memory. */
static int name_add(name_index *x, const void *owner, run_str name, size_t index) {
    if ((x->used + 1) * 2 > x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 64;
        name_index bigger = {calloc(cap, sizeof *bigger.slots), cap, x->used};
        if (!bigger.slots)
            return -1;
        for (size_t i = 0; i < x->cap; i++)
            if (x->slots[i].owner)
                *name_slot_of(&bigger, x->slots[i].owner, x->slots[i].name) = x->slots[i];
        free(x->slots);
        *x = bigger;
    }
    *name_slot_of(x, owner, name) = (name_slot){owner, name, index};
    x->used++;
    return 0;
}

/* Room for element n of an array whose capacity is implied by its length
 * (full at 0 and at every power of two), so that run_model.h needs no
 * capacity fields.  NULL when out of memory. */
static void *room_for(void *arr, size_t n, size_t size) {
    size_t cap = n & (n - 1) ? n + 1 : n; /* at a power of two (or 0) it is full */
    return scope_vec_grow(arr, &cap, n + 1, size);
}

/* Room for `add` more elements after n, once, keeping room_for's rule:
 * the allocation holds the power of two at or above its length (doubling
 * from the power of two at or below n gives one). */
static void *room_for_more(void *arr, size_t n, size_t add, size_t size) {
    size_t cap = n ? 1 : 0; /* below n + add, so that it grows (add > 0) */
    while (cap && cap * 2 <= n)
        cap *= 2;
    if (add > SIZE_MAX - n)
        return NULL;
    return scope_vec_grow(arr, &cap, n + add, size);
}

/* ---- phases --------------------------------------------------------------- */

typedef struct merge_ctx {
    run_model *m;
    arena *mem;
    run_role *role;
    size_t proc; /* the process being merged: index in role->workers */
    int nomem;
    name_index children; /* owner: the parent phase */
    name_index counters; /* owner: the address of the counter array */
    /* Each merged node with entries or a histogram, by the phase it went
     * into: its histogram's buckets (settle_hists), and for exact
     * percentiles (settle_exact) its sorted durations, or NULL when its
     * source kept only aggregates. */
    struct phase_part {
        run_phase *p;
        exact_part part;
        const scope_hist_bin *bins; /* a log node's buckets, or NULL and... */
        const run_hist_bin *merged; /* ...a merged phase's (a partial model, run_merge_parts) */
        uint32_t nbins;
        int has_hist; /* a histogram was recorded, even one without entries */
        int entries;  /* its node had entries (count > 0) */
    } * parts;
    size_t nparts, cap_parts;
    /* settle_hists' scratch: SCOPE_HIST_BUCKETS counts, and whether each
     * bucket was met in the phase at hand; both zero between phases. */
    uint64_t *dense;
    uint8_t *met;
    int take; /* run_merge_parts' take, for the part being added: its order is the model's */
} merge_ctx;

static run_phase *new_phase(merge_ctx *c, run_phase *parent, run_str name) {
    run_phase *p = arena_alloc(c->mem, sizeof *p);
    if (!p) {
        c->nomem = 1;
        return NULL;
    }
    p->name = name;
    p->parent = parent;
    assert(!parent || parent->depth < RUN_MAX_DEPTH); /* place_from stops deeper ones */
    p->depth = parent ? parent->depth + 1 : 0;
    if (parent) {
        run_phase **kids = room_for(parent->children, parent->nchildren, sizeof *kids);
        if (!kids || name_add(&c->children, parent, name, parent->nchildren) < 0) {
            if (kids)
                parent->children = kids;
            c->nomem = 1;
            return NULL;
        }
        parent->children = kids;
        kids[parent->nchildren++] = p;
        c->role->nphases++;
    }
    return p;
}

static run_phase *child_named(merge_ctx *c, run_phase *parent, run_str name) {
    size_t i;
    if (name_find(&c->children, parent, name, &i))
        return parent->children[i];
    return new_phase(c, parent, name);
}

/* The merged phase of a node, placing its ancestors first.  NULL when its
 * chain is broken (a parent whose definition was lost, or a cycle in a
 * damaged log) or nests deeper than RUN_MAX_DEPTH: the log's inconsistency
 * count says so, once per node left out.  A failure is remembered (unplaced)
 * because place() is asked again for the same node by each of its
 * descendants and counters, and each broken node must be counted once, its
 * descendants too.
 *
 * `hops` counts the unplaced ancestors walked so far above the node first
 * asked.  Past RUN_MAX_DEPTH of them that node is nested too deep, whatever
 * lies further up, so the walk stops there: the recursion stays within
 * RUN_MAX_DEPTH frames even when a damaged log chains a hundred thousand
 * nodes, and so does every walk of the tree that results.  The nodes
 * between are not judged by that walk (they may nest shallowly enough) but
 * when they are asked themselves. */
static run_phase *place_from(merge_ctx *c, worker_log *log, log_node *n, unsigned hops) {
    if (n->merged || n->unplaced)
        return n->merged;
    if (n->placing)
        return NULL; /* a cycle: each node on it is counted as it fails */
    if (hops > RUN_MAX_DEPTH)
        return NULL; /* not judged */
    n->placing = 1;
    run_phase *parent = c->role->root;
    const char *why = NULL;
    static const char too_deep[] = "a phase nested deeper than any recorder nests";
    if (n->parent) {
        log_node *pn = log_node_of(log, n->parent);
        parent = pn ? place_from(c, log, pn, hops + 1) : NULL;
        if (!pn)
            why = "a phase whose parent's definition was lost";
        else if (pn->placing)
            why = "phases whose parents form a cycle";
        else if (!pn->merged && !pn->unplaced) {
            if (hops) {
                n->placing = 0; /* not judged either */
                return NULL;
            }
            why = too_deep;
        } else
            why = "a phase inside one that could not be placed";
    }
    if (parent && parent->depth >= RUN_MAX_DEPTH) {
        parent = NULL;
        why = too_deep;
    }
    run_phase *p = NULL;
    if (parent) {
        assert(parent->depth < RUN_MAX_DEPTH);
        const run_str *name = log_string_of(log, n->name);
        p = child_named(c, parent, name ? *name : (run_str){unnamed, sizeof unnamed - 1});
    } else {
        n->unplaced = 1;
        log_inconsistent(log, why);
    }
    n->placing = 0;
    n->merged = p;
    return p;
}

static run_phase *place(merge_ctx *c, worker_log *log, log_node *n) {
    return place_from(c, log, n, 0);
}

/* The total of the process being merged in p, 0 when it is new there.
 * Processes are merged one after the other, so p->per_proc stays in their
 * order by appending.  NULL when out of memory. */
static run_proc_ns *proc_total(merge_ctx *c, run_phase *p) {
    if (p->nprocs && p->per_proc[p->nprocs - 1].proc == c->proc)
        return &p->per_proc[p->nprocs - 1];
    run_proc_ns *grown = room_for(p->per_proc, p->nprocs, sizeof *grown);
    if (!grown) {
        c->nomem = 1;
        return NULL;
    }
    p->per_proc = grown;
    grown[p->nprocs] = (run_proc_ns){.proc = c->proc};
    return &grown[p->nprocs++];
}

/* A source's figures added into the phase p: a log node's (add_node) or a
 * phase of a partial model (add_phase), so that merging processes and
 * merging partial models add the same figures the same way.  Sums of
 * integers, so the order of the sources does not change them. */
static void add_figures(run_phase *p, const run_phase *f) {
    p->flags |= f->flags;
    p->open_threads += f->open_threads;
    run_dist *d = &p->dist;
    d->total_ns += f->dist.total_ns;
    p->open_ns += f->open_ns;
    if (f->dist.count && (!d->count || f->dist.min_ns < d->min_ns))
        d->min_ns = f->dist.min_ns;
    if (f->dist.max_ns > d->max_ns)
        d->max_ns = f->dist.max_ns;
    d->count += f->dist.count;
    p->cpu_count += f->cpu_count;
    p->cpu_wall_ns += f->cpu_wall_ns;
    p->cpu_ns += f->cpu_ns;
    p->delay_count += f->delay_count;
    p->delay_wall_ns += f->delay_wall_ns;
    p->delay_ns += f->delay_ns;
    if (f->io_measured) {
        p->io_measured = 1;
        p->io_count += f->io_count;
        p->disk_read += f->disk_read;
        p->disk_write += f->disk_write;
        p->char_read += f->char_read;
        p->char_write += f->char_write;
    }
    p->io_failed += f->io_failed;
    p->hist_count += f->hist_count; /* the buckets are added up by settle_hists */
    if (f->smp_io) {
        p->smp_io = 1;
        p->smp_disk_read += f->smp_disk_read;
        p->smp_disk_write += f->smp_disk_write;
        p->smp_char_read += f->smp_char_read;
        p->smp_char_write += f->smp_char_write;
    }
}

static int add_part(merge_ctx *c, struct phase_part part) {
    if (SCOPE_VEC_RESERVE(c->parts, c->cap_parts, c->nparts + 1) < 0) {
        c->nomem = 1;
        return -1;
    }
    c->parts[c->nparts++] = part;
    return 0;
}

static void add_node(merge_ctx *c, worker_log *log, log_node *n, run_phase *p) {
    if (!p->file.len && n->file) {
        const run_str *f = log_string_of(log, n->file);
        if (f) {
            /* Normalised as the hot lines' files are: "src/../lib/io.c" is
             * "lib/io.c" (path_normalize.h). */
            char *norm =
                !f->len || memchr(f->s, '\0', f->len) ? NULL : arena_alloc(c->mem, f->len + 2);
            p->file = norm ? (run_str){norm, path_normalize(f->s, f->len, norm)} : *f;
            p->line = n->line;
            p->file_proc = c->proc;
        }
    }
    if (!p->tags.len && n->tags) {
        const run_str *t = log_string_of(log, n->tags);
        if (t)
            p->tags = *t;
    }
    run_proc_ns *proc = proc_total(c, p);
    if (!proc)
        return;
    /* An entry open at the process's newest frame counts its time up to
     * that frame, so that a parent's total covers its children's; not its
     * count, mean or percentiles, which are those of completed entries. */
    run_phase f = {.flags = n->flags,
                   .open_threads = n->left_open || n->open_now,
                   .open_ns = n->open_ns,
                   .dist.total_ns = n->open_ns};
    proc->ns += (double)n->open_ns;
    proc->open_ns += n->open_ns;
    if (!n->has_agg) {
        add_figures(p, &f);
        return;
    }
    if ((n->count || n->nbins) &&
        add_part(c, (struct phase_part){.p = p,
                                        .part = {n->exact_ns, n->exact_ns ? (size_t)n->count : 0},
                                        .bins = n->bins,
                                        .nbins = n->nbins,
                                        .has_hist = n->nbins > 0,
                                        .entries = n->count > 0}) < 0)
        return;
    f.dist.count = n->count;
    f.dist.min_ns = n->min_ns;
    f.dist.max_ns = n->max_ns;
    f.dist.total_ns += n->wall_ns;
    proc->ns += (double)n->wall_ns;
    proc->count += n->count;
    proc->cpu_ns += n->cpu_ns;
    f.cpu_count = n->cpu_count;
    f.cpu_wall_ns = n->cpu_wall_ns;
    f.cpu_ns = n->cpu_ns;
    f.delay_count = n->delay_count;
    f.delay_wall_ns = n->delay_wall_ns;
    f.delay_ns = n->delay_ns;
    if (n->io_flags & SCOPE_IO_MEASURED) {
        f.io_measured = 1;
        f.io_count = n->io_count;
        f.disk_read = n->disk_read;
        f.disk_write = n->disk_write;
        f.char_read = n->char_read;
        f.char_write = n->char_write;
    }
    f.io_failed = n->io_failed;
    f.hist_count = n->nbins ? n->hist_count : 0;
    add_figures(p, &f);
}

/* ---- counters ------------------------------------------------------------- */

/* Counter totals are int64 summed over threads and processes, and a log may
 * hold any value: a sum past the range stops at its end instead of
 * overflowing (undefined behaviour, and a wrapped sum would show a huge
 * total of the wrong sign). */
static int64_t add_saturated(int64_t a, int64_t b) {
    int64_t sum;
    if (__builtin_add_overflow(a, b, &sum))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return sum;
}

static void add_counter(merge_ctx *c, run_counter **arr, size_t *n, run_str name, uint64_t calls,
                        int64_t total) {
    size_t i;
    if (name_find(&c->counters, arr, name, &i)) {
        run_counter *k = &(*arr)[i];
        k->calls += calls;
        k->total = add_saturated(k->total, total);
        return;
    }
    run_counter *grown = room_for(*arr, *n, sizeof **arr);
    if (!grown || name_add(&c->counters, arr, name, *n) < 0) {
        if (grown)
            *arr = grown;
        c->nomem = 1;
        return;
    }
    *arr = grown;
    grown[(*n)++] = (run_counter){.name = name, .calls = calls, .total = total};
}

/* The sampled bytes of a log's intervals, onto the phases open when they
 * began: by thread records, or by the process records when the log has
 * none (res_proc.h).  Node 0 and nodes that cannot be placed are left to
 * the role's "(no phase open)" (run_resources.c). */
static void add_sampled_io(merge_ctx *c, worker_log *log) {
    const res_proc *rp = log->res;
    if (!rp)
        return;
    int by_thread = rp->thread_records > 0;
    for (size_t i = 0; i < rp->nnodes; i++) {
        const res_node_io *nio = &rp->nodes[i];
        log_node *n = nio->node ? log_node_of(log, nio->node) : NULL;
        run_phase *p = n ? place(c, log, n) : NULL;
        if (!p)
            continue;
        run_phase f = {.smp_io = 1,
                       .smp_disk_read = by_thread ? nio->disk_read : nio->p_disk_read,
                       .smp_disk_write = by_thread ? nio->disk_write : nio->p_disk_write,
                       .smp_char_read = by_thread ? nio->char_read : nio->p_char_read,
                       .smp_char_write = by_thread ? nio->char_write : nio->p_char_write};
        add_figures(p, &f);
    }
}

static void merge_log(merge_ctx *c, worker_log *log) {
    for (size_t i = 0; i < log->nnodes && !c->nomem; i++) {
        run_phase *p = place(c, log, &log->nodes[i]);
        if (p)
            add_node(c, log, &log->nodes[i], p);
    }
    add_sampled_io(c, log);
    for (size_t i = 0; i < log->ncounters && !c->nomem; i++) {
        const log_counter *lc = &log->counters[i];
        const run_str *name = log_string_of(log, lc->name);
        if (!name) {
            if (!log->tally.hit[READ_NAMES]) /* else the reader's caps left its name out */
                log_inconsistent(log, "a counter whose name was lost");
            continue;
        }
        if (!lc->node) {
            add_counter(c, &c->role->unattached, &c->role->nunattached, *name, lc->calls,
                        lc->total);
            continue;
        }
        log_node *n = log_node_of(log, lc->node);
        run_phase *p = n ? place(c, log, n) : NULL;
        if (p)
            add_counter(c, &p->counters, &p->ncounters, *name, lc->calls, lc->total);
        else if (n || !log->tally.hit[READ_NODES]) /* else the caps left its phase out */
            log_inconsistent(log, "a counter whose phase was lost");
    }
}

/* ---- figures -------------------------------------------------------------- */

/* The q-quantile of a histogram (its buckets with entries, in order): the
 * middle of the bucket holding the entry of that rank, kept within the
 * exact minimum and maximum. */
static double quantile(const run_hist_bin *hist, size_t nhist, uint64_t total, double q,
                       uint64_t lo, uint64_t hi) {
    uint64_t rank = (uint64_t)ceil(q * (double)total);
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < nhist; i++) {
        seen += hist[i].count;
        if (seen >= rank) {
            uint32_t b = hist[i].bucket;
            double mid = ((double)scope_hist_lower(b) + (double)scope_hist_upper(b)) / 2;
            if (mid < (double)lo)
                mid = (double)lo;
            if (hi && mid > (double)hi)
                mid = (double)hi;
            return mid;
        }
    }
    return NAN;
}

/* open_ns: the part of total_ns that is entries still open, not in count. */
static void settle_dist(run_dist *d, const run_hist_bin *hist, size_t nhist, uint64_t open_ns) {
    d->mean_ns = d->count ? (double)(d->total_ns - open_ns) / (double)d->count : NAN;
    d->p50_ns = d->p95_ns = d->p99_ns = NAN;
    uint64_t total = 0;
    for (size_t i = 0; hist && i < nhist; i++)
        total += hist[i].count;
    if (!total)
        return;
    d->p50_ns = quantile(hist, nhist, total, 0.50, d->min_ns, d->max_ns);
    d->p95_ns = quantile(hist, nhist, total, 0.95, d->min_ns, d->max_ns);
    d->p99_ns = quantile(hist, nhist, total, 0.99, d->min_ns, d->max_ns);
}

static int by_phase(const void *a, const void *b) {
    const struct phase_part *x = a, *y = b;
    return (x->p > y->p) - (x->p < y->p);
}

/* The buckets of `n` sorted bucket numbers whose counts are in c->dense,
 * those with entries, into an array of their own (non-NULL even when none
 * holds entries, since a histogram was recorded); the scratch is zeroed
 * again.  NULL when out of memory. */
static run_hist_bin *compact_hist(merge_ctx *c, const uint32_t *buckets, size_t n, size_t *nhist) {
    run_hist_bin *h = malloc((n ? n : 1) * sizeof *h);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t b = buckets[i];
        if (h && c->dense[b])
            h[k++] = (run_hist_bin){b, c->dense[b]};
        c->dense[b] = 0;
        c->met[b] = 0;
    }
    *nhist = k;
    return h;
}

static int by_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Each phase's histogram, its nodes' buckets added up, from the parts
 * sorted by phase: one dense scratch for the whole role, and each phase
 * keeps only the buckets with entries. */
static int settle_hists(merge_ctx *c) {
    uint32_t touched[SCOPE_HIST_BUCKETS];
    if (!c->dense && !(c->dense = calloc(SCOPE_HIST_BUCKETS, sizeof *c->dense)))
        return -1;
    if (!c->met && !(c->met = calloc(SCOPE_HIST_BUCKETS, sizeof *c->met)))
        return -1;
    for (size_t i = 0, j; i < c->nparts; i = j) {
        size_t nt = 0;
        int any = 0;
        for (j = i; j < c->nparts && c->parts[j].p == c->parts[i].p; j++) {
            const struct phase_part *pt = &c->parts[j];
            any |= pt->has_hist;
            for (uint32_t k = 0; k < pt->nbins; k++) {
                uint32_t b = pt->bins ? pt->bins[k].bucket : pt->merged[k].bucket;
                if (b >= SCOPE_HIST_BUCKETS)
                    continue;
                if (!c->met[b]) {
                    c->met[b] = 1;
                    touched[nt++] = b;
                }
                c->dense[b] += pt->bins ? pt->bins[k].count : pt->merged[k].count;
            }
        }
        if (!any)
            continue;
        if (nt > 1)
            qsort(touched, nt, sizeof *touched, by_u32);
        run_phase *p = c->parts[i].p;
        if (!(p->hist = compact_hist(c, touched, nt, &p->nhist)))
            return -1;
    }
    return 0;
}

/* Percentiles from every entry's duration, for the phases all of whose
 * merged nodes kept them; the histogram's estimates stay for the rest. */
static int settle_exact(merge_ctx *c) {
    exact_part *group = malloc((c->nparts + 1) * sizeof *group);
    if (!group)
        return -1;
    for (size_t i = 0, j; i < c->nparts; i = j) {
        int all = 1;
        size_t n = 0;
        for (j = i; j < c->nparts && c->parts[j].p == c->parts[i].p; j++) {
            if (!c->parts[j].entries)
                continue; /* a histogram alone: no durations to miss */
            all &= c->parts[j].part.v != NULL;
            group[n++] = c->parts[j].part;
        }
        run_dist *d = &c->parts[i].p->dist;
        if (!all || !d->count)
            continue;
        d->p50_ns = (double)exact_quantile(group, n, 0.50);
        d->p95_ns = (double)exact_quantile(group, n, 0.95);
        d->p99_ns = (double)exact_quantile(group, n, 0.99);
        d->exact_pct = 1;
    }
    free(group);
    c->nparts = 0; /* the next role's start afresh */
    return 0;
}

static int by_total(const void *a, const void *b) {
    const run_phase *x = *(run_phase *const *)a, *y = *(run_phase *const *)b;
    if (x->dist.total_ns != y->dist.total_ns)
        return x->dist.total_ns < y->dist.total_ns ? 1 : -1;
    return run_str_cmp(x->name, y->name);
}

static int by_counter_name(const void *a, const void *b) {
    const run_counter *x = a, *y = b;
    return run_str_cmp(x->name, y->name);
}

static void settle_counters(run_counter *k, size_t n, double phase_ns) {
    if (n)
        qsort(k, n, sizeof *k, by_counter_name);
    for (size_t i = 0; i < n; i++) {
        k[i].rate_per_s = phase_ns > 0 ? (double)k[i].total / (phase_ns / 1e9) : NAN;
        k[i].ns_per_unit = k[i].total > 0 && phase_ns >= 0 && !isnan(phase_ns)
                               ? phase_ns / (double)k[i].total
                               : NAN;
    }
}

/* Places the k-th smallest of v[0..n) at v[k], the smaller before it and
 * the larger after (quickselect): the median of a phase's per-process
 * totals without sorting them all, which at 100,000 processes was a fifth
 * of opening a SUMMARY. */
static void select_kth(double *v, size_t n, size_t k) {
    /* Wirth's selection: signed indices, as j may step below lo. */
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (lo < hi) {
        double x = v[kk];
        ptrdiff_t i = lo, j = hi;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk)
            lo = i;
        if (kk < i)
            hi = j;
    }
}

static void settle_spread(run_phase *p, const run_role *role, double *scratch) {
    size_t n = 0;
    p->spread_max_worker = SIZE_MAX;
    for (size_t i = 0; i < p->nprocs; i++) { /* in process order */
        const run_proc_ns *e = &p->per_proc[i];
        if (p->spread_max_worker == SIZE_MAX || e->ns > p->spread_max_ns) {
            p->spread_max_ns = e->ns;
            p->spread_max_worker = role->workers[e->proc];
        }
        scratch[n++] = e->ns;
    }
    if (!n) {
        p->spread_min_ns = p->spread_median_ns = p->spread_max_ns = NAN;
        return;
    }
    double min = scratch[0];
    for (size_t i = 1; i < n; i++)
        if (scratch[i] < min)
            min = scratch[i];
    p->spread_min_ns = min;
    select_kth(scratch, n, n / 2); /* n > 0 here */
    double upper = scratch[n / 2]; /* run_sorted_quantile's rule at 0.5, by selection */
    if (n % 2) {
        p->spread_median_ns = upper;
        return;
    }
    double lower = scratch[0]; /* the largest below it */
    for (size_t i = 1; i < n / 2; i++)
        if (scratch[i] > lower)
            lower = scratch[i];
    p->spread_median_ns = (lower + upper) / 2;
}

/* Post-order: children first, so a parent's self time sees their totals. */
static void settle_phase(run_phase *p, const run_role *role, double *scratch) {
    if (p->nchildren) /* qsort wants a real array even for none */
        qsort(p->children, p->nchildren, sizeof *p->children, by_total);
    uint64_t kids = 0;
    for (size_t i = 0; i < p->nchildren; i++) {
        settle_phase(p->children[i], role, scratch);
        kids += p->children[i]->dist.total_ns;
    }
    if (!p->parent) {
        p->dist.total_ns = kids; /* the root: the role's phase time */
        return;
    }
    p->self_ns = p->dist.total_ns > kids ? p->dist.total_ns - kids : 0;
    settle_dist(&p->dist, p->hist, p->nhist, p->open_ns);
    p->wait = NAN;
    if (p->cpu_count && p->cpu_wall_ns) {
        double w = 1.0 - (double)p->cpu_ns / (double)p->cpu_wall_ns;
        p->wait = w < 0 ? 0 : w > 1 ? 1 : w;
    }
    p->queued = NAN;
    if (p->delay_count && p->delay_wall_ns && !isnan(p->wait)) {
        /* Never more than wait: the two rest on nearly the same entries,
         * and a run delay is off-CPU time. */
        double q = (double)p->delay_ns / (double)p->delay_wall_ns;
        p->queued = q < 0 ? 0 : q > p->wait ? p->wait : q;
    }
    settle_spread(p, role, scratch);
    p->cache_read = p->char_read > p->disk_read ? p->char_read - p->disk_read : 0;
    p->disk_bytes_per_s =
        p->io_measured && p->dist.total_ns
            ? (double)(p->disk_read + p->disk_write) / ((double)p->dist.total_ns / 1e9)
            : NAN;
    settle_counters(p->counters, p->ncounters, (double)p->dist.total_ns);
}

static void set_shares(run_phase *p, double role_ns) {
    for (size_t i = 0; i < p->nchildren; i++) {
        run_phase *k = p->children[i];
        k->share = role_ns > 0 ? (double)k->dist.total_ns / role_ns : NAN;
        set_shares(k, role_ns);
    }
}

/* ---- dominant phases and iterations -------------------------------------- */

static void collect(run_phase *p, run_phase **out, size_t *n) {
    for (size_t i = 0; i < p->nchildren; i++) {
        out[(*n)++] = p->children[i];
        collect(p->children[i], out, n);
    }
}

static int by_self(const void *a, const void *b) {
    const run_phase *x = *(run_phase *const *)a, *y = *(run_phase *const *)b;
    if (x->self_ns != y->self_ns)
        return x->self_ns < y->self_ns ? 1 : -1;
    return by_total(a, b);
}

static int pick_dominant(merge_ctx *c, size_t want) {
    run_role *r = c->role;
    run_phase **all = malloc((r->nphases + 1) * sizeof *all);
    if (!all)
        return -1;
    size_t n = 0;
    collect(r->root, all, &n);
    if (n)
        qsort(all, n, sizeof *all, by_self);
    while (n && all[n - 1]->self_ns == 0)
        n--;
    r->ndominant = n < want ? n : want;
    r->dominant = arena_alloc(c->mem, (r->ndominant + 1) * sizeof *r->dominant);
    if (!r->dominant) {
        free(all);
        return -1;
    }
    memcpy(r->dominant, all, r->ndominant * sizeof *all);
    free(all);
    return 0;
}

/* The outermost phases with the iteration name, merged into one
 * distribution (a phase of that name nested in another is part of it). */
static void add_iterations(run_phase *p, const char *name, run_dist *d, uint64_t *hist,
                           int *found) {
    for (size_t i = 0; i < p->nchildren; i++) {
        run_phase *k = p->children[i];
        if (run_str_eq(k->name, (run_str){name, strlen(name)})) {
            if (k->dist.count && (!d->count || k->dist.min_ns < d->min_ns))
                d->min_ns = k->dist.min_ns;
            if (k->dist.max_ns > d->max_ns)
                d->max_ns = k->dist.max_ns;
            d->count += k->dist.count;
            d->total_ns += k->dist.total_ns - k->open_ns; /* completed iterations only */
            for (size_t b = 0; k->hist && b < k->nhist; b++)
                hist[k->hist[b].bucket] += k->hist[b].count;
            *found = 1;
        } else {
            add_iterations(k, name, d, hist, found);
        }
    }
}

static int settle_iterations(run_role *r, const char *name) {
    uint64_t *hist = calloc(SCOPE_HIST_BUCKETS, sizeof *hist);
    run_hist_bin *bins = malloc(SCOPE_HIST_BUCKETS * sizeof *bins);
    if (!hist || !bins) {
        free(hist);
        free(bins);
        return -1;
    }
    add_iterations(r->root, name, &r->iterations, hist, &r->has_iterations);
    size_t n = 0;
    for (uint32_t b = 0; b < SCOPE_HIST_BUCKETS; b++)
        if (hist[b])
            bins[n++] = (run_hist_bin){b, hist[b]};
    settle_dist(&r->iterations, bins, n, 0);
    free(hist);
    free(bins);
    return 0;
}

/* ---- roles ---------------------------------------------------------------- */

static const run_model *sort_model; /* qsort has no context argument */

static int by_rank_pid(const void *a, const void *b) {
    const run_worker *x = &sort_model->workers[*(const size_t *)a];
    const run_worker *y = &sort_model->workers[*(const size_t *)b];
    /* Ranked processes first, by rank; then by pid. */
    if ((x->rank < 0) != (y->rank < 0))
        return x->rank < 0 ? 1 : -1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The role's processes in its order (ranked first, by rank, then by pid)
 * and its root: the start of merging a role, from logs or from parts. */
static int begin_role(merge_ctx *c) {
    run_role *r = c->role;
    sort_model = c->m;
    if (r->nprocs)
        qsort(r->workers, r->nprocs, sizeof *r->workers, by_rank_pid);
    r->root = new_phase(c, NULL, (run_str){"", 0});
    return r->root ? 0 : -1;
}

static int settle_role(merge_ctx *c, const run_options *opt);

static int merge_role(merge_ctx *c, worker_log *logs, const run_options *opt) {
    run_role *r = c->role;
    if (begin_role(c) < 0)
        return -1;
    for (size_t k = 0; k < r->nprocs && !c->nomem; k++) {
        c->proc = k;
        merge_log(c, &logs[r->workers[k]]);
    }
    return settle_role(c, opt);
}

/* Every figure of the role, from what was added into its tree: the same
 * whether processes or partial models were merged. */
static int settle_role(merge_ctx *c, const run_options *opt) {
    run_role *r = c->role;
    run_model *m = c->m;
    double *scratch = malloc((r->nprocs + 1) * sizeof *scratch);
    if (c->nomem || !scratch) {
        free(scratch);
        return -1;
    }
    if (c->nparts)
        qsort(c->parts, c->nparts, sizeof *c->parts, by_phase);
    if (settle_hists(c) < 0) {
        free(scratch);
        return -1;
    }
    settle_phase(r->root, r, scratch);
    free(scratch);
    if (settle_exact(c) < 0)
        return -1;
    r->phase_ns = r->root->dist.total_ns;
    set_shares(r->root, (double)r->phase_ns);
    settle_counters(r->unattached, r->nunattached, NAN);

    /* Imbalance: the busiest process against the mean of the role. */
    double sum = 0, max = -1;
    r->slowest_worker = SIZE_MAX;
    for (size_t k = 0; k < r->nprocs; k++) {
        const run_worker *w = &m->workers[r->workers[k]];
        sum += (double)w->phase_ns;
        if ((double)w->phase_ns > max) {
            max = (double)w->phase_ns;
            r->slowest_worker = r->workers[k];
        }
    }
    double mean = r->nprocs ? sum / (double)r->nprocs : 0;
    r->imbalance = mean > 0 ? max / mean : NAN;
    if (!(mean > 0))
        r->slowest_worker = SIZE_MAX;

    if (pick_dominant(c, opt->ndominant ? opt->ndominant : 8) < 0)
        return -1;
    return settle_iterations(r, m->iteration_name);
}

static int by_phase_time(const void *a, const void *b) {
    const run_role *x = a, *y = b;
    if (x->phase_ns != y->phase_ns)
        return x->phase_ns < y->phase_ns ? 1 : -1;
    return run_str_cmp(x->name, y->name);
}

/* ---- attempts and the run header ----------------------------------------- */

static int by_start(const void *a, const void *b) {
    const run_attempt *x = a, *y = b;
    if (x->start_wall_ns != y->start_wall_ns)
        return x->start_wall_ns < y->start_wall_ns ? -1 : 1;
    return (x->end_wall_ns > y->end_wall_ns) - (x->end_wall_ns < y->end_wall_ns);
}

static int find_attempts(run_model *m, arena *mem) {
    m->attempts = arena_alloc(mem, (m->nworkers + 1) * sizeof *m->attempts);
    if (!m->attempts)
        return -1;
    for (size_t i = 0; i < m->nworkers; i++) {
        run_worker *w = &m->workers[i];
        if (!w->has_process)
            continue;
        size_t a = 0;
        while (a < m->nattempts && !run_str_eq(m->attempts[a].run_id, w->run_id))
            a++;
        run_attempt *at = &m->attempts[a];
        if (a == m->nattempts) {
            m->nattempts++;
            *at = (run_attempt){.run_id = w->run_id, .start_wall_ns = w->start_wall_ns};
        }
        at->nworkers++;
        if (w->start_wall_ns < at->start_wall_ns)
            at->start_wall_ns = w->start_wall_ns;
        if (w->last_wall_ns > at->end_wall_ns)
            at->end_wall_ns = w->last_wall_ns;
    }
    qsort(m->attempts, m->nattempts, sizeof *m->attempts, by_start);
    for (size_t i = 0; i < m->nworkers; i++) {
        run_worker *w = &m->workers[i];
        w->attempt = SIZE_MAX;
        w->role_index = SIZE_MAX;
        for (size_t a = 0; w->has_process && a < m->nattempts; a++)
            if (run_str_eq(m->attempts[a].run_id, w->run_id))
                w->attempt = a;
        if (w->attempt != SIZE_MAX && w->last_wall_ns > m->attempts[w->attempt].start_wall_ns)
            w->last_in_attempt_ns = w->last_wall_ns - m->attempts[w->attempt].start_wall_ns;
    }
    return 0;
}

static int by_str(const void *a, const void *b) {
    const run_str *x = a, *y = b;
    return run_str_cmp(*x, *y);
}

/* The n names sorted, each once; returns how many remain. */
static size_t sort_distinct(run_str *v, size_t n) {
    if (n < 2)
        return n;
    qsort(v, n, sizeof *v, by_str);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (!run_str_eq(v[i], v[k - 1]))
            v[k++] = v[i];
    return k;
}

/* Step ids are numbers ("0", "1", ...) or Slurm's names for the others
 * ("batch", "extern"): numbers first, by value, then names. */
static int by_step(const void *a, const void *b) {
    const run_str *x = a, *y = b;
    char xs[32], ys[32];
    snprintf(xs, sizeof xs, "%.*s", (int)x->len, x->s);
    snprintf(ys, sizeof ys, "%.*s", (int)y->len, y->s);
    char *xe, *ye;
    unsigned long long xn = strtoull(xs, &xe, 10), yn = strtoull(ys, &ye, 10);
    int xnum = xe != xs && !*xe && x->len < sizeof xs,
        ynum = ye != ys && !*ye && y->len < sizeof ys;
    if (xnum != ynum)
        return xnum ? -1 : 1;
    if (xnum && xn != yn)
        return xn < yn ? -1 : 1;
    return run_str_cmp(*x, *y);
}

/* What the launcher said of the attempt shown: its name and array task
 * (the same in every process of a launch, so the first, by path, speaks),
 * every step, and the most restarts any process saw. */
static void settle_launch(run_model *m, const run_worker *w) {
    if (!m->launcher.len && w->launcher.len)
        m->launcher = w->launcher;
    if (!m->array_job_id.len && w->array_job_id.len) {
        m->array_job_id = w->array_job_id;
        m->array_task = w->array_task;
    }
    if (w->restarts > m->restarts)
        m->restarts = w->restarts;
    if (w->step_id.len) {
        size_t s = 0;
        while (s < m->nsteps && !run_str_eq(m->steps[s], w->step_id))
            s++;
        if (s == m->nsteps)
            m->steps[m->nsteps++] = w->step_id;
    }
}

static int settle_header(run_model *m, arena *mem) {
    size_t newest = m->shown_attempt; /* the newest, unless chosen */
    const run_attempt *at = &m->attempts[newest];
    m->start_wall_ns = at->start_wall_ns;
    m->end_wall_ns = at->end_wall_ns;
    m->runtime_ns = at->end_wall_ns > at->start_wall_ns ? at->end_wall_ns - at->start_wall_ns : 0;
    m->hosts = arena_alloc(mem, (at->nworkers + 1) * sizeof *m->hosts);
    run_str *jobs = arena_alloc(mem, (at->nworkers + 1) * sizeof *jobs);
    m->steps = arena_alloc(mem, (at->nworkers + 1) * sizeof *m->steps);
    if (!m->hosts || !jobs || !m->steps)
        return -1;
    m->array_task = m->restarts = -1;
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        if (w->attempt != newest)
            continue;
        m->nprocs++;
        m->hosts[m->nhosts++] = w->host; /* made distinct below */
        if (w->rank >= 0) {
            if (!m->nranked || w->rank < m->rank_min)
                m->rank_min = w->rank;
            if (!m->nranked || w->rank > m->rank_max)
                m->rank_max = w->rank;
            m->nranked++;
        }
        if (w->job_id.len)
            jobs[m->njob_ids++] = w->job_id; /* made distinct below */
        settle_launch(m, w);
    }
    /* Sorted, then each name once: a search for each process's host among
     * those seen took 100,000 processes on 12,500 hosts seconds. */
    m->nhosts = sort_distinct(m->hosts, m->nhosts);
    m->njob_ids = sort_distinct(jobs, m->njob_ids);
    if (m->njob_ids)
        m->job_id = jobs[0];
    if (m->nsteps)
        qsort(m->steps, m->nsteps, sizeof *m->steps, by_step);
    return 0;
}

static int find_roles(run_model *m, arena *mem) {
    size_t newest = m->shown_attempt; /* the newest, unless chosen */
    m->roles = arena_alloc(mem, (m->nprocs + 1) * sizeof *m->roles);
    if (!m->roles)
        return -1;
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        if (w->attempt != newest)
            continue;
        size_t r = 0;
        while (r < m->nroles && !run_str_eq(m->roles[r].name, w->role))
            r++;
        if (r == m->nroles)
            m->roles[m->nroles++] = (run_role){.name = w->role};
        m->roles[r].nprocs++;
    }
    for (size_t r = 0; r < m->nroles; r++) {
        m->roles[r].workers = arena_alloc(mem, m->roles[r].nprocs * sizeof(size_t));
        if (!m->roles[r].workers)
            return -1;
        m->roles[r].nprocs = 0;
    }
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        if (w->attempt != newest)
            continue;
        size_t r = 0;
        while (!run_str_eq(m->roles[r].name, w->role))
            r++;
        m->roles[r].workers[m->roles[r].nprocs++] = i;
    }
    return 0;
}

/* Each process's line samples. */
static void count_line_samples(run_model *m, const worker_log *logs) {
    for (size_t i = 0; i < m->nworkers; i++) {
        const log_lines *ll = &logs[i].lines;
        uint64_t n = 0;
        for (size_t k = 0; k < ll->ncounts; k++)
            n += ll->counts[k].count;
        m->workers[i].line_samples = n;
    }
}

static int by_line_samples(const void *a, const void *b);

/* Each role's line samples, what orders the roles of a run without phases,
 * the roles in their order, and each process's role. */
static void order_roles(run_model *m) {
    int phases = 0;
    for (size_t r = 0; r < m->nroles; r++) {
        run_role *role = &m->roles[r];
        for (size_t k = 0; k < role->nprocs; k++)
            role->line_samples += m->workers[role->workers[k]].line_samples;
        phases |= role->nphases || role->nunattached;
    }
    m->roles_by_samples = !phases;
    if (m->nroles)
        qsort(m->roles, m->nroles, sizeof *m->roles,
              m->roles_by_samples ? by_line_samples : by_phase_time);
    for (size_t r = 0; r < m->nroles; r++)
        for (size_t k = 0; k < m->roles[r].nprocs; k++)
            m->workers[m->roles[r].workers[k]].role_index = r;
}

static int by_line_samples(const void *a, const void *b) {
    const run_role *x = a, *y = b;
    if (x->line_samples != y->line_samples)
        return x->line_samples < y->line_samples ? 1 : -1;
    return run_str_cmp(x->name, y->name);
}

/* Attempts, the attempt shown, its header and roles (not yet merged), from
 * m->workers.  Returns 1 when there is nothing to merge, 0, -1 when out of
 * memory, -2 when opt->attempt names no attempt. */
static int begin_merge(run_model *m, arena *mem, const run_options *opt) {
    const char *it = opt->iteration_name ? opt->iteration_name : "iteration";
    m->iteration_name = arena_dup(mem, it, strlen(it));
    if (!m->iteration_name || find_attempts(m, mem) < 0)
        return -1;
    if (!m->nattempts)
        return 1; /* nothing could be placed: every worker is a caveat */
    if (opt->attempt > m->nattempts)
        return -2;
    m->shown_attempt = opt->attempt ? opt->attempt - 1 : m->nattempts - 1;
    if (settle_header(m, mem) < 0 || find_roles(m, mem) < 0)
        return -1;
    return 0;
}

static void free_ctx(merge_ctx *c) {
    free(c->children.slots);
    free(c->counters.slots);
    free(c->parts);
    free(c->dense);
    free(c->met);
}

int run_merge(run_model *m, arena *mem, worker_log *logs, const run_options *opt) {
    int begun = begin_merge(m, mem, opt);
    if (begun)
        return begun > 0 ? 0 : begun;
    merge_ctx c = {.m = m, .mem = mem};
    int rc = 0;
    for (size_t r = 0; r < m->nroles && rc == 0; r++) {
        c.role = &m->roles[r];
        rc = merge_role(&c, logs, opt);
    }
    free_ctx(&c);
    if (rc < 0)
        return -1;
    count_line_samples(m, logs);
    order_roles(m);
    return 0;
}

/* ---- partial models --------------------------------------------------------- */

/* A phase of a partial model added into p: its figures, its processes'
 * totals (map: the part's role positions to the merged role's), its
 * histogram for settle_hists, its counters and, by name, its children. */
static void add_phase(merge_ctx *c, run_phase *p, const run_phase *src, const size_t *map) {
    if (src->file.len && (!p->file.len || map[src->file_proc] < p->file_proc)) {
        p->file = src->file;
        p->line = src->line;
        p->file_proc = map[src->file_proc];
    }
    if (!p->tags.len && src->tags.len)
        p->tags = src->tags;
    if (c->take && !p->nprocs && src->nprocs) {
        /* Taken whole: the part's order is the model's (map is the identity). */
        run_phase *given = (run_phase *)src;
        p->per_proc = given->per_proc;
        p->nprocs = given->nprocs;
        given->per_proc = NULL;
        given->nprocs = 0;
    } else if (src->nprocs) {
        run_proc_ns *grown = room_for_more(p->per_proc, p->nprocs, src->nprocs, sizeof *grown);
        if (!grown) {
            c->nomem = 1;
            return;
        }
        p->per_proc = grown;
    }
    for (size_t i = 0; i < src->nprocs; i++) {
        p->per_proc[p->nprocs] = src->per_proc[i];
        p->per_proc[p->nprocs++].proc = map[src->per_proc[i].proc];
    }
    /* Its durations are not kept in a partial model: exact percentiles
     * become its histogram's (docs/reduce.md). */
    if ((src->dist.count || src->hist) &&
        add_part(c, (struct phase_part){.p = p,
                                        .merged = src->hist,
                                        .nbins = (uint32_t)src->nhist,
                                        .has_hist = src->hist != NULL,
                                        .entries = src->dist.count > 0}) < 0)
        return;
    add_figures(p, src);
    for (size_t i = 0; i < src->ncounters && !c->nomem; i++)
        add_counter(c, &p->counters, &p->ncounters, src->counters[i].name, src->counters[i].calls,
                    src->counters[i].total);
    for (size_t i = 0; i < src->nchildren && !c->nomem; i++) {
        run_phase *kid = child_named(c, p, src->children[i]->name);
        if (kid)
            add_phase(c, kid, src->children[i], map);
    }
}

static int by_proc(const void *a, const void *b) {
    const run_proc_ns *x = a, *y = b;
    return (x->proc > y->proc) - (x->proc < y->proc);
}

/* Each phase's processes in the role's order, as merging logs leaves them. */
static void order_procs(run_phase *p) {
    if (p->nprocs > 1)
        qsort(p->per_proc, p->nprocs, sizeof *p->per_proc, by_proc);
    for (size_t i = 0; i < p->nchildren; i++)
        order_procs(p->children[i]);
}

static const run_role *part_role(const run_model *part, run_str name) {
    for (size_t r = 0; r < part->nroles; r++)
        if (run_str_eq(part->roles[r].name, name))
            return &part->roles[r];
    return NULL;
}

static int merge_role_parts(merge_ctx *c, run_model *const *parts, const size_t *first,
                            size_t nparts, int take, size_t *pos, const run_options *opt) {
    run_role *r = c->role;
    if (begin_role(c) < 0)
        return -1;
    for (size_t k = 0; k < r->nprocs; k++)
        pos[r->workers[k]] = k;
    for (size_t i = 0; i < nparts && !c->nomem; i++) {
        const run_role *pr = part_role(parts[i], r->name);
        if (!pr)
            continue;
        size_t *map = malloc((pr->nprocs + 1) * sizeof *map);
        if (!map)
            return -1;
        int identity = 1;
        for (size_t k = 0; k < pr->nprocs; k++) {
            map[k] = pos[first[i] + pr->workers[k]];
            identity &= map[k] == k;
        }
        c->take = take && identity;
        for (size_t k = 0; k < pr->root->nchildren && !c->nomem; k++) {
            run_phase *top = child_named(c, r->root, pr->root->children[k]->name);
            if (top)
                add_phase(c, top, pr->root->children[k], map);
        }
        for (size_t k = 0; k < pr->nunattached && !c->nomem; k++)
            add_counter(c, &r->unattached, &r->nunattached, pr->unattached[k].name,
                        pr->unattached[k].calls, pr->unattached[k].total);
        free(map);
    }
    if (c->nomem)
        return -1;
    order_procs(r->root);
    return settle_role(c, opt);
}

int run_merge_parts(run_model *m, arena *mem, run_model *const *parts, const size_t *first,
                    size_t nparts, int take, const run_options *opt) {
    int begun = begin_merge(m, mem, opt);
    if (begun)
        return begun > 0 ? 0 : begun;
    run_str shown = m->attempts[m->shown_attempt].run_id;
    for (size_t i = 0; i < nparts; i++) {
        const run_model *pm = parts[i];
        int has_shown = 0;
        for (size_t w = 0; w < pm->nworkers && !has_shown; w++)
            has_shown = pm->workers[w].has_process && run_str_eq(pm->workers[w].run_id, shown);
        if (has_shown && !run_str_eq(pm->attempts[pm->shown_attempt].run_id, shown))
            return -3; /* its roles are of another attempt */
    }
    size_t *pos = malloc((m->nworkers + 1) * sizeof *pos);
    if (!pos)
        return -1;
    merge_ctx c = {.m = m, .mem = mem};
    int rc = 0;
    for (size_t r = 0; r < m->nroles && rc == 0; r++) {
        c.role = &m->roles[r];
        rc = merge_role_parts(&c, parts, first, nparts, take, pos, opt);
    }
    free(pos);
    free_ctx(&c);
    if (rc < 0)
        return -1;
    order_roles(m);
    return 0;
}

/* ---- one process alone ---------------------------------------------------- */

int run_merge_alone(run_model *m, arena *mem, worker_log *logs, run_role *role,
                    const run_options *opt) {
    /* Its nodes still point into its role's tree, and those that could not
     * be placed are marked: place afresh. */
    worker_log *log = &logs[role->workers[0]];
    for (size_t i = 0; i < log->nnodes; i++) {
        log->nodes[i].merged = NULL;
        log->nodes[i].placing = 0;
        log->nodes[i].unplaced = 0;
    }
    /* The caveats were worded from the first merge's counts: this one
     * finds the same records again and must not add them. */
    uint64_t inconsistent = log->inconsistent;
    char what[sizeof log->inconsistent_what];
    memcpy(what, log->inconsistent_what, sizeof what);
    merge_ctx c = {.m = m, .mem = mem, .role = role};
    int rc = merge_role(&c, logs, opt);
    free_ctx(&c);
    log->inconsistent = inconsistent;
    memcpy(log->inconsistent_what, what, sizeof what);
    return rc;
}

/* ---- freeing -------------------------------------------------------------- */

static void free_phase(run_phase *p) {
    for (size_t i = 0; i < p->nchildren; i++)
        free_phase(p->children[i]);
    free(p->children);
    free(p->counters);
    free(p->per_proc);
    free(p->hist);
}

void run_role_free(run_role *role) {
    if (role->root)
        free_phase(role->root);
    free(role->unattached);
    run_res_free(role->res);
}

void run_merge_free(run_model *m) {
    for (size_t r = 0; r < m->nroles; r++)
        run_role_free(&m->roles[r]);
}
