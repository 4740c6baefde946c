/* The interned tree of call paths; see stack_tree.h. */
#include "stack_tree.h"

#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

static size_t node_hash(uint32_t parent, uint32_t loc) {
    uint64_t h = (uint64_t)parent * 0x9e3779b97f4a7c15ull ^ (uint64_t)loc * 0xc2b2ae3d27d4eb4full;
    return (size_t)(h ^ (h >> 31));
}

static uint32_t *slot_of(const stack_tree *t, uint32_t parent, uint32_t loc) {
    size_t i = node_hash(parent, loc) & (t->cap_slots - 1);
    for (;; i = (i + 1) & (t->cap_slots - 1)) {
        uint32_t v = t->slots[i];
        if (!v || (t->nodes[v].parent == parent && t->nodes[v].loc == loc))
            return &t->slots[i];
    }
}

static int grow(stack_tree *t) {
    size_t cap = t->cap_slots ? 2 * t->cap_slots : 1024;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    free(t->slots);
    t->slots = slots;
    t->cap_slots = cap;
    for (size_t k = 1; k < t->nnodes; k++)
        *slot_of(t, t->nodes[k].parent, t->nodes[k].loc) = (uint32_t)k;
    return 0;
}

uint32_t stack_tree_child(stack_tree *t, uint32_t parent, uint32_t loc) {
    if (!t->nnodes) {
        if (SCOPE_VEC_RESERVE(t->nodes, t->cap_nodes, 1) < 0)
            return 0;
        t->nodes[0] = (stack_node){0, 0};
        t->nnodes = 1;
    }
    if ((t->nnodes + 1) * 2 > t->cap_slots && grow(t) < 0)
        return 0;
    uint32_t *slot = slot_of(t, parent, loc);
    if (*slot)
        return *slot;
    if (t->nnodes >= UINT32_MAX || SCOPE_VEC_RESERVE(t->nodes, t->cap_nodes, t->nnodes + 1) < 0)
        return 0;
    t->nodes[t->nnodes] = (stack_node){parent, loc};
    *slot = (uint32_t)t->nnodes;
    return (uint32_t)t->nnodes++;
}

void stack_tree_free(stack_tree *t) {
    free(t->nodes);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
