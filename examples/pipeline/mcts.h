/* Monte Carlo tree search (UCT with random playouts) for connect four. */
#ifndef PIPELINE_MCTS_H
#define PIPELINE_MCTS_H

#include "game.h"

#include <stdint.h>

typedef struct mcts_node {
    int32_t child[GAME_COLS]; /* tree index of the position after each move; -1 not expanded */
    int32_t parent;           /* -1 at the root */
    uint32_t visits;
    float wins;    /* playout results for `mover`: 1 a win, 0.5 a draw */
    uint8_t mover; /* the player whose move led here */
} mcts_node;

typedef struct mcts {
    mcts_node *node; /* one simulation adds at most one node: max_sims + 1 of them */
    int max_sims;
    uint64_t rng;
} mcts;

/* Returns 0, or -1 when out of memory. */
int mcts_init(mcts *t, int max_sims, uint64_t seed);
void mcts_free(mcts *t);

/* Runs sims (at most max_sims) simulations from position g, which must not
 * be over, and returns the column to play: the most visited one, or one drawn
 * in proportion to the visits when `explore` (varied openings). */
int mcts_search(mcts *t, const game *g, int sims, int explore);

#endif
