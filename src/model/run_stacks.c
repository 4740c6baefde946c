/*
 * The flame tree and callers/callees of the sampled call paths; see
 * run_stacks.h.
 *
 * The call paths come from the hot lines' cache as nodes of one interned
 * tree (lines_paths.h), each sample group as a count at the node where its
 * path ends.  A query sums those counts per node, adds each node's into its
 * parent's (children always come after their parents, so one backward pass
 * does it), then maps the nodes with samples onto frames: a node's frame is
 * the child of its parent's frame with the same name, so paths that differ
 * only in what the frames do not show (a call's line, when frames are
 * functions) merge.  Two nodes that map to one frame lie at the same depth,
 * so neither is under the other and their sums add without counting a
 * sample twice.
 */
#define _GNU_SOURCE /* memrchr */
#include "run_stacks.h"

#include "lines_paths.h"
#include "run_lines.h"
#include "text_escape.h"

#include <math.h>
#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- per-node sums -------------------------------------------------------- */

typedef struct node_sums {
    uint64_t *own;   /* samples whose path ends at the node */
    uint64_t *total; /* ... at it or under it */
    double *own_s, *total_s;
    size_t n;
} node_sums;

static int sums_init(node_sums *s, size_t n) {
    s->n = n;
    s->own = calloc(n + 1, sizeof *s->own);
    s->total = calloc(n + 1, sizeof *s->total);
    s->own_s = calloc(n + 1, sizeof *s->own_s);
    s->total_s = calloc(n + 1, sizeof *s->total_s);
    return s->own && s->total && s->own_s && s->total_s ? 0 : -1;
}

static void sums_free(node_sums *s) {
    free(s->own);
    free(s->total);
    free(s->own_s);
    free(s->total_s);
}

/* Sums the counts of role (SIZE_MAX: every role) into s. */
static void sums_fill(node_sums *s, const lines_paths *p, size_t role) {
    memset(s->own, 0, (s->n + 1) * sizeof *s->own);
    memset(s->own_s, 0, (s->n + 1) * sizeof *s->own_s);
    for (size_t i = 0; i < p->n; i++) {
        const lines_path_count *v = &p->v[i];
        if ((role != SIZE_MAX && v->role != role) || v->node >= s->n)
            continue;
        s->own[v->node] += v->count;
        s->own_s[v->node] += v->seconds;
    }
    memcpy(s->total, s->own, (s->n + 1) * sizeof *s->total);
    memcpy(s->total_s, s->own_s, (s->n + 1) * sizeof *s->total_s);
    for (size_t k = s->n; k-- > 1;) {
        uint32_t parent = p->tree->nodes[k].parent;
        s->total[parent] += s->total[k];
        s->total_s[parent] += s->total_s[k];
    }
}

/* ---- the flame tree -------------------------------------------------------- */

typedef struct flame_builder {
    run_flame_frame *frames;
    size_t n, cap;
    size_t *slots; /* open addressing: frame index + 1, 0 empty */
    size_t cap_slots;
    enum run_flame_names names;
} flame_builder;

/* Names are interned by the cache: equal names share their bytes. */
static uint64_t frame_hash(size_t parent, const run_line *l, enum run_flame_names names) {
    uint64_t h = (uint64_t)parent * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(uintptr_t)l->function.s * 0xc2b2ae3d27d4eb4full;
    h ^= (uint64_t)(uintptr_t)l->file.s * 0x165667b19e3779f9ull;
    h ^= (uint64_t)(uintptr_t)l->module.s * 0x27d4eb2f165667c5ull;
    if (names == RUN_FLAME_LINES)
        h ^= (uint64_t)l->line * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

static int same_name(const run_flame_frame *f, size_t parent, const run_line *l,
                     enum run_flame_names names) {
    return f->parent == parent && f->function.s == l->function.s && f->file.s == l->file.s &&
           f->module.s == l->module.s && (names != RUN_FLAME_LINES || f->line == l->line);
}

static size_t *frame_slot(flame_builder *b, size_t parent, const run_line *l) {
    size_t i = (size_t)frame_hash(parent, l, b->names) & (b->cap_slots - 1);
    for (;; i = (i + 1) & (b->cap_slots - 1)) {
        size_t v = b->slots[i];
        if (!v || same_name(&b->frames[v - 1], parent, l, b->names))
            return &b->slots[i];
    }
}

static size_t add_frame(flame_builder *b, const run_flame_frame *f) {
    if (SCOPE_VEC_RESERVE(b->frames, b->cap, b->n + 1) < 0)
        return RUN_FLAME_NONE;
    b->frames[b->n] = *f;
    return b->n++;
}

static int grow_slots(flame_builder *b) {
    size_t cap = b->cap_slots ? 2 * b->cap_slots : 1024;
    size_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    free(b->slots);
    b->slots = slots;
    b->cap_slots = cap;
    for (size_t k = 0; k < b->n; k++) {
        const run_flame_frame *f = &b->frames[k];
        if (f->kind != RUN_FRAME_CODE)
            continue;
        run_line l = {
            .function = f->function, .file = f->file, .module = f->module, .line = f->line};
        *frame_slot(b, f->parent, &l) = k + 1;
    }
    return 0;
}

/* The code frame under parent named as l, added when new. */
static size_t code_frame(flame_builder *b, size_t parent, const run_line *l, int in_project) {
    if ((b->n + 1) * 2 > b->cap_slots && grow_slots(b) < 0)
        return RUN_FLAME_NONE;
    size_t *slot = frame_slot(b, parent, l);
    if (*slot) {
        b->frames[*slot - 1].in_project |= in_project;
        return *slot - 1;
    }
    run_flame_frame f = {.kind = RUN_FRAME_CODE,
                         .function = l->function,
                         .file = l->file,
                         .module = l->module,
                         .line = b->names == RUN_FLAME_LINES ? l->line : 0,
                         .approximate = l->approximate,
                         .in_project = in_project,
                         .parent = parent,
                         .depth = b->frames[parent].depth + 1};
    size_t k = add_frame(b, &f);
    if (k != RUN_FLAME_NONE)
        *slot = k + 1;
    return k;
}

static const run_flame_frame *sort_frames; /* qsort has no context argument */

/* Siblings together, widest first, then by name and line for a stable order. */
static int by_parent_then_width(const void *a, const void *b) {
    const run_flame_frame *x = &sort_frames[*(const size_t *)a];
    const run_flame_frame *y = &sort_frames[*(const size_t *)b];
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    int c = run_str_cmp(x->function, y->function);
    if (!c)
        c = run_str_cmp(x->file, y->file);
    if (!c)
        c = run_str_cmp(x->module, y->module);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Puts the frames in depth-first order, children widest first, with their
 * links and left edges.  Returns 0 or -1 (memory). */
static int order_frames(flame_builder *b, run_flame *out) {
    size_t n = b->n;
    size_t *ix = malloc(n * sizeof *ix), *first = malloc(n * sizeof *first);
    size_t *next = malloc(n * sizeof *next), *stack = malloc(n * sizeof *stack);
    size_t *renum = malloc(n * sizeof *renum);
    run_flame_frame *frames = calloc(n, sizeof *frames);
    int rc = -1;
    if (!ix || !first || !next || !stack || !renum || !frames)
        goto out;
    for (size_t k = 0; k < n; k++)
        ix[k] = k, first[k] = next[k] = RUN_FLAME_NONE;
    sort_frames = b->frames;
    qsort(ix + 1, n - 1, sizeof *ix, by_parent_then_width); /* [0] is the root */
    for (size_t k = n; k-- > 1;) {                          /* backwards: first is the widest */
        size_t f = ix[k], p = b->frames[f].parent;
        next[f] = first[p];
        first[p] = f;
    }
    size_t top = 0, out_n = 0;
    stack[top++] = 0;
    while (top) {
        size_t f = stack[--top];
        renum[f] = out_n;
        frames[out_n++] = b->frames[f];
        /* Children pushed, then their run of the stack reversed, so that
         * the widest is popped first. */
        size_t start = top;
        for (size_t c = first[f]; c != RUN_FLAME_NONE; c = next[c])
            stack[top++] = c;
        for (size_t i = start, j = top; i + 1 < j; i++, j--) {
            size_t t = stack[i];
            stack[i] = stack[j - 1];
            stack[j - 1] = t;
        }
    }
    /* Links and left edges in the new numbering: a frame's left edge is its
     * parent's plus the widths of the siblings before it. */
    for (size_t k = 0; k < out_n; k++) {
        run_flame_frame *f = &frames[k];
        f->first_child = f->next_sibling = RUN_FLAME_NONE;
        if (k)
            f->parent = renum[f->parent];
    }
    size_t *last_child = ix; /* reused: the newest child seen of each frame */
    for (size_t k = 0; k < out_n; k++)
        last_child[k] = RUN_FLAME_NONE;
    for (size_t k = 1; k < out_n; k++) {
        run_flame_frame *f = &frames[k];
        run_flame_frame *p = &frames[f->parent];
        if (last_child[f->parent] == RUN_FLAME_NONE) {
            p->first_child = k;
            f->left = p->left;
        } else {
            run_flame_frame *prev = &frames[last_child[f->parent]];
            prev->next_sibling = k;
            f->left = prev->left + prev->samples;
        }
        last_child[f->parent] = k;
        if (f->depth > out->depth)
            out->depth = f->depth;
    }
    out->frames = frames;
    out->nframes = out_n;
    frames = NULL;
    rc = 0;
out:
    free(ix);
    free(first);
    free(next);
    free(stack);
    free(renum);
    free(frames);
    return rc;
}

int run_flame_build(run_model *m, const run_lines_query *q, enum run_flame_names names,
                    run_flame *out, char *msg, size_t msglen) {
    memset(out, 0, sizeof *out);
    out->period_ns = NAN;
    lines_paths p;
    if (lines_paths_select(m, q, &p, msg, msglen) < 0)
        return -1;
    flame_builder b = {.names = names};
    node_sums s = {0};
    size_t nnodes = p.tree->nnodes ? p.tree->nnodes : 1;
    size_t *frame_of = malloc(nnodes * sizeof *frame_of);
    int rc = -1;
    if (!frame_of || sums_init(&s, nnodes) < 0 ||
        add_frame(&b, &(run_flame_frame){.kind = RUN_FRAME_ROOT,
                                         .parent = RUN_FLAME_NONE,
                                         .samples = p.samples,
                                         .seconds = p.seconds}) == RUN_FLAME_NONE)
        goto out;
    const run_role *only = q->role ? run_find_role(m, q->role) : NULL;
    for (size_t r = 0; r < m->nroles; r++) {
        if (only && &m->roles[r] != only)
            continue;
        sums_fill(&s, &p, r);
        if (!s.total[0])
            continue;
        size_t base = 0;
        if (!only) {
            base = add_frame(&b, &(run_flame_frame){.kind = RUN_FRAME_ROLE,
                                                    .function = m->roles[r].name,
                                                    .parent = 0,
                                                    .depth = 1,
                                                    .samples = s.total[0],
                                                    .self = s.own[0],
                                                    .seconds = s.total_s[0]});
            if (base == RUN_FLAME_NONE)
                goto out;
        } else {
            b.frames[0].self += s.own[0];
        }
        frame_of[0] = base;
        for (size_t k = 1; k < p.tree->nnodes; k++) {
            if (!s.total[k])
                continue;
            int in_project;
            run_line l;
            lines_paths_frame(m, p.tree->nodes[k].loc, &l, &in_project);
            size_t f = code_frame(&b, frame_of[p.tree->nodes[k].parent], &l, in_project);
            if (f == RUN_FLAME_NONE)
                goto out;
            b.frames[f].samples += s.total[k];
            b.frames[f].self += s.own[k];
            b.frames[f].seconds += s.total_s[k];
            frame_of[k] = f;
        }
    }
    if (order_frames(&b, out) < 0)
        goto out;
    out->samples = p.samples;
    out->seconds = p.seconds;
    out->period_ns = p.period_ns;
    out->per_signal = p.per_signal;
    rc = 0;
out:
    if (rc < 0) {
        run_flame_free(out);
        snprintf(msg, msglen, "out of memory");
    }
    free(frame_of);
    sums_free(&s);
    free(b.frames);
    free(b.slots);
    lines_paths_free(&p);
    return rc;
}

void run_flame_free(run_flame *f) {
    if (!f)
        return;
    free(f->frames);
    memset(f, 0, sizeof *f);
    f->period_ns = NAN;
}

int run_flame_same(const run_flame_frame *a, const run_flame_frame *b) {
    return a->kind == b->kind && run_str_eq(a->function, b->function) &&
           run_str_eq(a->file, b->file) && run_str_eq(a->module, b->module) && a->line == b->line;
}

/* ---- callers and callees ------------------------------------------------------ */

typedef struct peer_list {
    run_peer *v;
    size_t n, cap;
} peer_list;

static int add_peer(peer_list *l, enum run_peer_kind kind, const run_line *f, uint64_t samples) {
    for (size_t i = 0; i < l->n; i++) {
        run_peer *p = &l->v[i];
        if (p->kind == kind &&
            (kind != RUN_PEER_FUNCTION ||
             (run_str_eq(p->function, f->function) && run_str_eq(p->file, f->file) &&
              run_str_eq(p->module, f->module)))) {
            p->samples += samples;
            return 0;
        }
    }
    if (SCOPE_VEC_RESERVE(l->v, l->cap, l->n + 1) < 0)
        return -1;
    run_peer p = {.kind = kind, .samples = samples};
    if (kind == RUN_PEER_FUNCTION)
        p.function = f->function, p.file = f->file, p.module = f->module;
    l->v[l->n++] = p;
    return 0;
}

static int peer_by_samples(const void *a, const void *b) {
    const run_peer *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    if (x->kind != y->kind)
        return (int)x->kind - (int)y->kind;
    int c = run_str_cmp(x->function, y->function);
    return c ? c : run_str_cmp(x->file, y->file);
}

static void settle_peers(peer_list *l, uint64_t of, double per_signal) {
    for (size_t i = 0; i < l->n; i++) {
        double share = of ? (double)l->v[i].samples / (double)of : 0;
        l->v[i].share = share;
        l->v[i].share_sd = run_lines_share_sd(share, of, per_signal);
    }
    if (l->n)
        qsort(l->v, l->n, sizeof *l->v, peer_by_samples);
}

static int is_function(const run_line *l, run_str function, run_str file, run_str module) {
    return run_str_eq(l->function, function) && run_str_eq(l->file, file) &&
           run_str_eq(l->module, module);
}

int run_callers_select(run_model *m, const run_lines_query *q, run_str function, run_str file,
                       run_str module, run_callers *out, char *msg, size_t msglen) {
    memset(out, 0, sizeof *out);
    out->function = function, out->file = file, out->module = module;
    lines_paths p;
    if (lines_paths_select(m, q, &p, msg, msglen) < 0)
        return -1;
    size_t n = p.tree->nnodes;
    node_sums s = {0};
    uint8_t *is_f = calloc(n + 1, 1), *under_f = calloc(n + 1, 1);
    peer_list callers = {0}, callees = {0};
    int rc = -1;
    if (!is_f || !under_f || sums_init(&s, n ? n : 1) < 0)
        goto nomem;
    sums_fill(&s, &p, SIZE_MAX);
    out->total = p.samples;
    for (size_t k = 1; k < n; k++) {
        if (!s.total[k])
            continue;
        uint32_t parent = p.tree->nodes[k].parent;
        run_line l;
        lines_paths_frame(m, p.tree->nodes[k].loc, &l, NULL);
        is_f[k] = (uint8_t)is_function(&l, function, file, module);
        under_f[k] = (uint8_t)(parent && (is_f[parent] || under_f[parent]));
        if (is_f[k])
            out->self += s.own[k];
        if (parent && is_f[parent] && !under_f[parent] &&
            add_peer(&callees, RUN_PEER_FUNCTION, &l, s.total[k]) < 0)
            goto nomem;
        if (!is_f[k] || under_f[k])
            continue;
        /* The outermost call on these paths: each of its samples counts once. */
        out->samples += s.total[k];
        run_line caller = l;
        if (parent)
            lines_paths_frame(m, p.tree->nodes[parent].loc, &caller, NULL);
        if (add_peer(&callers, parent ? RUN_PEER_FUNCTION : RUN_PEER_OUTERMOST, &caller,
                     s.total[k]) < 0 ||
            (s.own[k] && add_peer(&callees, RUN_PEER_SELF, &l, s.own[k]) < 0))
            goto nomem;
    }
    if (!out->samples) {
        char shown[200];
        scope_escape((const uint8_t *)function.s, function.len, shown, sizeof shown, 0);
        snprintf(msg, msglen, "no sampled stack holds the function '%s'", shown);
        goto fail;
    }
    settle_peers(&callers, out->samples, p.per_signal);
    settle_peers(&callees, out->samples, p.per_signal);
    out->share = out->total ? (double)out->samples / (double)out->total : 0;
    out->share_sd = run_lines_share_sd(out->share, out->total, p.per_signal);
    out->callers = callers.v, out->ncallers = callers.n;
    out->callees = callees.v, out->ncallees = callees.n;
    callers.v = callees.v = NULL;
    rc = 0;
    goto done;
nomem:
    snprintf(msg, msglen, "out of memory");
fail:
    run_callers_free(out);
done:
    free(callers.v);
    free(callees.v);
    free(is_f);
    free(under_f);
    sums_free(&s);
    lines_paths_free(&p);
    return rc;
}

void run_callers_free(run_callers *c) {
    if (!c)
        return;
    free(c->callers);
    free(c->callees);
    c->callers = c->callees = NULL;
    c->ncallers = c->ncallees = 0;
}

const char *run_flame_name(const run_flame_frame *f, char *buf, size_t cap) {
    if (f->kind == RUN_FRAME_ROOT) {
        snprintf(buf, cap, "all");
        return buf;
    }
    run_str name = f->function;
    if (f->kind == RUN_FRAME_CODE && (!name.len || (name.len == 2 && !memcmp(name.s, "??", 2)))) {
        run_str mod = f->module;
        const char *slash = mod.len ? memrchr(mod.s, '/', mod.len) : NULL;
        if (slash)
            mod = (run_str){slash + 1, mod.len - (size_t)(slash + 1 - mod.s)};
        if (!mod.len) {
            snprintf(buf, cap, "[unknown]");
            return buf;
        }
        if (cap < 3) {
            buf[0] = '\0';
            return buf;
        }
        buf[0] = '[';
        scope_escape((const uint8_t *)mod.s, mod.len, buf + 1, cap - 2, 0);
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, "]");
        return buf;
    }
    scope_escape((const uint8_t *)name.s, name.len, buf, cap, 0);
    return buf;
}
