/* Phases nested from intervals; see run_intervals.h. */
#include "run_intervals.h"

#include <scope/log_hist.h>
#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

static int by_start(const void *a, const void *b) {
    const run_interval *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1; /* the longer first: it is the outer */
    return (x->kind > y->kind) - (x->kind < y->kind);
}

static int by_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A node being built: its place and every duration recorded into it. */
typedef struct new_node {
    uint32_t parent, kind; /* parent: node id, 0 at the top */
    uint64_t *ns;
    size_t n, cap;
    uint64_t total;
} new_node;

/* (parent, kind) -> node id, open addressing; ids are 1.. */
typedef struct child_map {
    uint64_t *keys;
    uint32_t *ids;
    size_t cap, used;
} child_map;

static size_t slot_of(const child_map *m, uint64_t key) {
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h ^ (h >> 29)) & (m->cap - 1);
    while (m->ids[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int map_grow(child_map *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    child_map g = {calloc(cap, sizeof *g.keys), calloc(cap, sizeof *g.ids), cap, m->used};
    if (!g.keys || !g.ids) {
        free(g.keys);
        free(g.ids);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->ids[i]) {
            size_t j = slot_of(&g, m->keys[i]);
            g.keys[j] = m->keys[i];
            g.ids[j] = m->ids[i];
        }
    free(m->keys);
    free(m->ids);
    *m = g;
    return 0;
}

/* The id of the node for kind under parent, made when new; 0 when out of
 * memory. */
static uint32_t node_for(child_map *m, new_node **nodes, size_t *nnodes, size_t *cap,
                         uint32_t parent, uint32_t kind) {
    if ((m->used + 1) * 2 > m->cap && map_grow(m) < 0)
        return 0;
    uint64_t key = (uint64_t)parent << 32 | kind;
    size_t i = slot_of(m, key);
    if (m->ids[i])
        return m->ids[i];
    if (*nnodes >= UINT32_MAX - 1 || SCOPE_VEC_RESERVE(*nodes, *cap, *nnodes + 1) < 0)
        return 0;
    (*nodes)[*nnodes] = (new_node){.parent = parent, .kind = kind};
    m->keys[i] = key;
    m->ids[i] = (uint32_t)++ * nnodes;
    m->used++;
    return m->ids[i];
}

static int add_duration(new_node *nd, uint64_t ns) {
    if (SCOPE_VEC_RESERVE(nd->ns, nd->cap, nd->n + 1) < 0)
        return -1;
    nd->ns[nd->n++] = ns;
    nd->total = nd->total > UINT64_MAX - ns ? UINT64_MAX : nd->total + ns;
    return 0;
}

/* The node's definition and figures into the log; its durations, sorted,
 * go with it (exact_ns). */
static int emit(worker_log *log, uint32_t thread, uint32_t id, new_node *nd,
                const interval_kind *k) {
    log_add_node(log, &(scope_rec_phase_node){.id = id,
                                              .parent = nd->parent,
                                              .name = k->name,
                                              .thread = thread,
                                              .file = k->file,
                                              .line = k->line});
    if (nd->n)
        qsort(nd->ns, nd->n, sizeof *nd->ns, by_u64);
    /* The histogram, bucket by bucket: sorted durations fill buckets in
     * increasing order. */
    scope_hist_bin *bins = NULL;
    size_t nbins = 0, cap = 0;
    for (size_t i = 0; i < nd->n; i++) {
        uint32_t b = scope_hist_bucket(nd->ns[i]);
        if (nbins && bins[nbins - 1].bucket == b) {
            bins[nbins - 1].count++;
            continue;
        }
        if (SCOPE_VEC_RESERVE(bins, cap, nbins + 1) < 0) {
            free(bins);
            return -1;
        }
        bins[nbins++] = (scope_hist_bin){b, 1};
    }
    log_add_agg(log, &(scope_rec_phase_agg){.node = id,
                                            .count = nd->n,
                                            .wall_ns = nd->total,
                                            .min_ns = nd->n ? nd->ns[0] : 0,
                                            .max_ns = nd->n ? nd->ns[nd->n - 1] : 0,
                                            .nbins = (uint32_t)nbins,
                                            .bins = bins});
    free(bins);
    log_node *ln = log_node_of(log, id);
    if (!ln || log->nomem)
        return -1;
    ln->exact_ns = nd->ns; /* the log frees it from here on */
    ln->tags = k->tags;
    nd->ns = NULL;
    return 0;
}

int run_intervals_add(worker_log *log, uint32_t thread, run_interval *v, size_t n,
                      const interval_kind *kinds, size_t nkinds, interval_stats *stats) {
    (void)nkinds;
    if (n)
        qsort(v, n, sizeof *v, by_start);
    new_node *nodes = NULL;
    size_t nnodes = 0, cap = 0;
    child_map map = {0};
    /* The calls open at the one being placed, outermost first. */
    struct open_call {
        int64_t end;
        uint32_t node;
    } stack[RUN_MAX_DEPTH];
    size_t depth = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const run_interval *c = &v[i];
        while (depth && stack[depth - 1].end < c->end) {
            if (stack[depth - 1].end > c->start)
                stats->overlaps++;
            depth--;
        }
        if (depth == RUN_MAX_DEPTH - 1) {
            stats->too_deep++;
            depth--;
        }
        uint32_t id =
            node_for(&map, &nodes, &nnodes, &cap, depth ? stack[depth - 1].node : 0, c->kind);
        if (!id || add_duration(&nodes[id - 1], (uint64_t)c->end - (uint64_t)c->start) < 0) {
            rc = -1;
            break;
        }
        stack[depth++] = (struct open_call){c->end, id};
    }
    for (size_t i = 0; i < nnodes; i++) {
        if (rc == 0)
            rc = emit(log, thread, (uint32_t)(i + 1), &nodes[i], &kinds[nodes[i].kind]);
        free(nodes[i].ns);
    }
    log_settle_pending(log);
    free(nodes);
    free(map.keys);
    free(map.ids);
    if (rc < 0)
        log->nomem = 1;
    return rc;
}
