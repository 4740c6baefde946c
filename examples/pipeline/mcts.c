#include "mcts.h"

#include "rng.h"

#include <math.h>
#include <stdlib.h>

/* The usual exploration constant of UCT, sqrt(2). */
#define EXPLORATION 1.41421356f

int mcts_init(mcts *t, int max_sims, uint64_t seed) {
    t->node = malloc(((size_t)max_sims + 1) * sizeof *t->node);
    t->max_sims = max_sims;
    t->rng = seed;
    return t->node ? 0 : -1;
}

void mcts_free(mcts *t) {
    free(t->node);
    t->node = NULL;
}

static void node_reset(mcts_node *n, int32_t parent, uint8_t mover) {
    for (int c = 0; c < GAME_COLS; c++)
        n->child[c] = -1;
    n->parent = parent;
    n->visits = 0;
    n->wins = 0.0f;
    n->mover = mover;
}

/* A legal move of node n not expanded yet, chosen at random; -1 when none is left. */
static int untried_move(mcts *t, const mcts_node *n, const game *g) {
    uint8_t legal[GAME_COLS], untried[GAME_COLS];
    int nlegal = game_legal_moves(g, legal), nuntried = 0;
    for (int i = 0; i < nlegal; i++)
        if (n->child[legal[i]] < 0)
            untried[nuntried++] = legal[i];
    return nuntried ? untried[rng_below(&t->rng, (uint32_t)nuntried)] : -1;
}

/* The child of a fully expanded node with the best upper confidence bound. */
static int best_move(const mcts *t, const mcts_node *n) {
    float log_visits = logf((float)n->visits);
    float best = -1.0f;
    int move = -1;
    for (int c = 0; c < GAME_COLS; c++) {
        if (n->child[c] < 0)
            continue;
        const mcts_node *ch = &t->node[n->child[c]];
        float ucb =
            ch->wins / (float)ch->visits + EXPLORATION * sqrtf(log_visits / (float)ch->visits);
        if (ucb > best) {
            best = ucb;
            move = c;
        }
    }
    return move;
}

static void random_playout(mcts *t, game *g) {
    uint8_t legal[GAME_COLS];
    while (!game_over(g)) {
        int n = game_legal_moves(g, legal);
        game_play(g, legal[rng_below(&t->rng, (uint32_t)n)]);
    }
}

int mcts_search(mcts *t, const game *root, int sims, int explore) {
    int used = 1;
    node_reset(&t->node[0], -1, (uint8_t)(3 - root->to_move));
    if (sims > t->max_sims)
        sims = t->max_sims;

    for (int s = 0; s < sims; s++) {
        game g = *root;
        int32_t n = 0;
        /* Selection down the expanded tree, then expansion of one new node. */
        while (!game_over(&g)) {
            int move = untried_move(t, &t->node[n], &g);
            if (move >= 0) {
                int32_t c = used++;
                node_reset(&t->node[c], n, g.to_move);
                t->node[n].child[move] = c;
                game_play(&g, move);
                n = c;
                break;
            }
            move = best_move(t, &t->node[n]);
            game_play(&g, move);
            n = t->node[n].child[move];
        }
        random_playout(t, &g);
        /* Backpropagation: each node scores the result for the player who moved into it. */
        for (; n >= 0; n = t->node[n].parent) {
            mcts_node *node = &t->node[n];
            node->visits++;
            if (g.winner == node->mover)
                node->wins += 1.0f;
            else if (g.winner == 0)
                node->wins += 0.5f;
        }
    }

    const mcts_node *r = &t->node[0];
    if (explore) {
        /* Every simulation went through exactly one of the root's children. */
        uint32_t pick = rng_below(&t->rng, r->visits);
        for (int c = 0; c < GAME_COLS; c++) {
            if (r->child[c] < 0)
                continue;
            uint32_t v = t->node[r->child[c]].visits;
            if (pick < v)
                return c;
            pick -= v;
        }
    }
    int best = -1;
    uint32_t most = 0;
    for (int c = 0; c < GAME_COLS; c++)
        if (r->child[c] >= 0 && t->node[r->child[c]].visits >= most) {
            most = t->node[r->child[c]].visits;
            best = c;
        }
    return best;
}
