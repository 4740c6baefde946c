/*
 * The run's sampled call paths as one tree of interned nodes: a node is a
 * (parent node, location) pair, so a call path that thousands of processes
 * and threads sampled is stored once, and a query sums counts per node
 * instead of walking every stack frame by frame.  Node 0 is the root (no
 * frame); a node's index is always greater than its parent's, so one pass
 * from the last node to the first visits children before their parents.
 */
#ifndef SCOPE_STACK_TREE_H
#define SCOPE_STACK_TREE_H

#include <stddef.h>
#include <stdint.h>

typedef struct stack_node {
    uint32_t parent; /* node index; the root's is 0 too */
    uint32_t loc;    /* the frame's location (run_lines.c's interned locations) */
} stack_node;

typedef struct stack_tree {
    stack_node *nodes; /* [0]: the root */
    size_t nnodes, cap_nodes;
    uint32_t *slots; /* open addressing over nodes 1..: index, 0 empty */
    size_t cap_slots;
} stack_tree;

/* The child of parent at loc, added when new.  Returns its index (>= 1), or
 * 0 when out of memory. */
uint32_t stack_tree_child(stack_tree *t, uint32_t parent, uint32_t loc);

void stack_tree_free(stack_tree *t);

#endif
