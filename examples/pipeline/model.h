/* The learner's model: a small value network, board in, expected result out,
 * trained with plain stochastic gradient descent. */
#ifndef PIPELINE_MODEL_H
#define PIPELINE_MODEL_H

#include "game.h"

#include <stdint.h>

#define MODEL_INPUTS (2 * GAME_CELLS) /* the mover's discs, then the opponent's */
#define MODEL_HIDDEN 128

/* One training example: a position and how the game went on from it. */
typedef struct sample {
    uint8_t cell[GAME_CELLS];
    uint8_t to_move;
    int8_t result; /* for to_move: 1 won, 0 drawn, -1 lost */
} sample;

typedef struct model {
    float w1[MODEL_HIDDEN][MODEL_INPUTS];
    float b1[MODEL_HIDDEN];
    float w2[MODEL_HIDDEN];
    float b2;
} model;

void model_init(model *m, uint64_t seed);

/* One gradient step of the squared error on s; returns the error before it. */
float model_sgd_step(model *m, const sample *s, float learning_rate);

#endif
