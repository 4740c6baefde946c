/* One process's line-sampling tables; see log_lines.h. */
#include "log_lines.h"

#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

static int bytes_eq(run_str a, scope_bytes b) {
    return a.len == b.len && (!a.len || !memcmp(a.s, b.ptr, a.len));
}

const log_module *log_lines_module(const log_lines *l, uint32_t id) {
    uint32_t ix;
    return idmap_get(&l->module_ix, id, &ix) ? &l->modules[ix] : NULL;
}

const log_stack *log_lines_stack(const log_lines *l, uint32_t id) {
    uint32_t ix;
    return idmap_get(&l->stack_ix, id, &ix) ? &l->stacks[ix] : NULL;
}

void log_lines_add_module(log_lines *l, arena *mem, const scope_rec_module *m) {
    const log_module *old = log_lines_module(l, m->id);
    if (old) {
        if (!bytes_eq(old->path, m->path) || !bytes_eq(old->build_id, m->build_id) ||
            old->base != m->base || old->size != m->size)
            l->inconsistent++;
        return;
    }
    if (!m->id || l->nmodules >= UINT32_MAX) {
        l->inconsistent++;
        return;
    }
    if (SCOPE_VEC_RESERVE(l->modules, l->cap_modules, l->nmodules + 1) < 0) {
        l->nomem = 1;
        return;
    }
    char *path = arena_dup(mem, m->path.ptr, m->path.len);
    char *bid = arena_dup(mem, m->build_id.ptr, m->build_id.len);
    if (!path || !bid || idmap_put(&l->module_ix, m->id, (uint32_t)l->nmodules) < 0) {
        l->nomem = 1;
        return;
    }
    l->modules[l->nmodules++] =
        (log_module){m->id, {path, m->path.len}, {bid, m->build_id.len}, m->base, m->size};
}

/* Whether two stacks hold the same frames.  Field by field: the padding
 * after a frame's module id is whatever the decoder's memory held. */
static int same_frames(const scope_frame_addr *a, const scope_frame_addr *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (a[i].module != b[i].module || a[i].offset != b[i].offset)
            return 0;
    return 1;
}

void log_lines_add_stack(log_lines *l, arena *mem, const scope_rec_stack *s) {
    const log_stack *old = log_lines_stack(l, s->id);
    if (old) {
        /* A snapshot restates every stack (docs/format.md 5.2.1). */
        if (old->nframes != s->nframes || !same_frames(old->frames, s->frames, s->nframes))
            l->inconsistent++;
        return;
    }
    if (!s->id || l->nstacks >= UINT32_MAX) {
        l->inconsistent++;
        return;
    }
    if (SCOPE_VEC_RESERVE(l->stacks, l->cap_stacks, l->nstacks + 1) < 0) {
        l->nomem = 1;
        return;
    }
    scope_frame_addr *frames = NULL;
    if (s->nframes) {
        /* nframes is bounded by the record's length: each frame needs 2 bytes. */
        frames = arena_alloc(mem, (size_t)s->nframes * sizeof *frames);
        if (!frames) {
            l->nomem = 1;
            return;
        }
        memcpy(frames, s->frames, (size_t)s->nframes * sizeof *frames);
    }
    if (idmap_put(&l->stack_ix, s->id, (uint32_t)l->nstacks) < 0) {
        l->nomem = 1;
        return;
    }
    l->stacks[l->nstacks++] = (log_stack){s->id, s->nframes, frames};
}

static size_t key_hash(uint32_t thread, uint32_t node, uint32_t state, uint32_t stack) {
    uint64_t h = ((uint64_t)thread * 0x9e3779b97f4a7c15ull) ^
                 ((uint64_t)node * 0xc2b2ae3d27d4eb4full) ^
                 ((uint64_t)stack * 0x165667b19e3779f9ull) ^ ((uint64_t)state << 61);
    return (size_t)(h ^ (h >> 29));
}

/* The slot of (thread, node, state, stack): holding its index + 1, or 0
 * (free). */
static size_t *count_slot(const log_lines *l, uint32_t thread, uint32_t node, uint32_t state,
                          uint32_t stack) {
    size_t i = key_hash(thread, node, state, stack) & (l->cap_slots - 1);
    for (;; i = (i + 1) & (l->cap_slots - 1)) {
        size_t v = l->count_slots[i];
        if (!v)
            return &l->count_slots[i];
        const log_stack_count *c = &l->counts[v - 1];
        if (c->thread == thread && c->node == node && c->state == state && c->stack == stack)
            return &l->count_slots[i];
    }
}

static int grow_slots(log_lines *l) {
    size_t cap = l->cap_slots ? 2 * l->cap_slots : 256;
    size_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    free(l->count_slots);
    l->count_slots = slots;
    l->cap_slots = cap;
    for (size_t k = 0; k < l->ncounts; k++) {
        const log_stack_count *c = &l->counts[k];
        *count_slot(l, c->thread, c->node, c->state, c->stack) = k + 1;
    }
    return 0;
}

void log_lines_add_samples(log_lines *l, const scope_rec_stack_samples *s) {
    for (uint32_t i = 0; i < s->n && !l->nomem; i++) {
        const scope_stack_count *p = &s->counts[i];
        if ((l->ncounts + 1) * 2 > l->cap_slots && grow_slots(l) < 0) {
            l->nomem = 1;
            return;
        }
        size_t *slot = count_slot(l, s->thread, s->node, s->state, p->stack);
        if (*slot) {
            l->counts[*slot - 1].count = p->count;
            l->counts[*slot - 1].period_ns = s->period_ns;
            continue;
        }
        if (SCOPE_VEC_RESERVE(l->counts, l->cap_counts, l->ncounts + 1) < 0) {
            l->nomem = 1;
            return;
        }
        l->counts[l->ncounts] = (log_stack_count){.thread = s->thread,
                                                  .node = s->node,
                                                  .stack = p->stack,
                                                  .state = s->state,
                                                  .count = p->count,
                                                  .period_ns = s->period_ns};
        *slot = ++l->ncounts;
    }
}

void log_lines_set(log_lines *l, arena *mem, const scope_rec_lines *r) {
    if (!l->has_record || !bytes_eq(l->project, r->project)) {
        char *p = arena_dup(mem, r->project.ptr, r->project.len);
        if (!p) {
            l->nomem = 1;
            return;
        }
        l->project = (run_str){p, r->project.len};
    }
    l->has_record = 1;
    l->rec = *r;
    l->rec.project = (scope_bytes){0};
}

/* A copy in mem; the empty name when out of memory. */
static run_str dup_in(log_lines *l, arena *mem, run_str s) {
    if (!s.len)
        return (run_str){"", 0};
    char *c = arena_dup(mem, s.s, s.len);
    if (!c)
        l->nomem = 1;
    return c ? (run_str){c, s.len} : (run_str){"", 0};
}

void log_lines_add_measured(log_lines *l, arena *mem, const log_measured_line *m) {
    if (SCOPE_VEC_RESERVE(l->measured, l->cap_measured, l->nmeasured + 1) < 0) {
        l->nomem = 1;
        return;
    }
    log_measured_line c = *m;
    c.file = dup_in(l, mem, m->file);
    c.function = dup_in(l, mem, m->function);
    c.region = dup_in(l, mem, m->region);
    l->measured[l->nmeasured++] = c;
}

void log_lines_release(log_lines *l) {
    free(l->measured);
    free(l->modules);
    free(l->stacks);
    free(l->counts);
    free(l->count_slots);
    idmap_free(&l->module_ix);
    idmap_free(&l->stack_ix);
    memset(l, 0, sizeof *l);
}
