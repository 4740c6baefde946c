#include "model.h"

#include "rng.h"

#include <math.h>

/* The board as the player to move sees it, so one network plays both sides. */
static void features(const sample *s, float x[MODEL_INPUTS]) {
    for (int k = 0; k < GAME_CELLS; k++) {
        x[k] = s->cell[k] == s->to_move ? 1.0f : 0.0f;
        x[GAME_CELLS + k] = s->cell[k] != 0 && s->cell[k] != s->to_move ? 1.0f : 0.0f;
    }
}

void model_init(model *m, uint64_t seed) {
    /* Small random weights (scaled by 1/sqrt(fan-in)) so the hidden units differ from the start. */
    float scale1 = 1.0f / sqrtf((float)MODEL_INPUTS), scale2 = 1.0f / sqrtf((float)MODEL_HIDDEN);
    for (int j = 0; j < MODEL_HIDDEN; j++) {
        for (int k = 0; k < MODEL_INPUTS; k++)
            m->w1[j][k] = scale1 * rng_signed_unit(&seed);
        m->b1[j] = 0.0f;
        m->w2[j] = scale2 * rng_signed_unit(&seed);
    }
    m->b2 = 0.0f;
}

static float forward(const model *m, const float x[MODEL_INPUTS], float h[MODEL_HIDDEN]) {
    float out = m->b2;
    for (int j = 0; j < MODEL_HIDDEN; j++) {
        float a = m->b1[j];
        for (int k = 0; k < MODEL_INPUTS; k++)
            a += m->w1[j][k] * x[k];
        h[j] = tanhf(a);
        out += m->w2[j] * h[j];
    }
    return tanhf(out);
}

float model_sgd_step(model *m, const sample *s, float learning_rate) {
    float x[MODEL_INPUTS], h[MODEL_HIDDEN];
    features(s, x);
    float v = forward(m, x, h);
    float err = v - (float)s->result;
    /* d(err^2)/d(pre-activation of the output), through its tanh. */
    float d_out = 2.0f * err * (1.0f - v * v);
    for (int j = 0; j < MODEL_HIDDEN; j++) {
        float d_hidden = d_out * m->w2[j] * (1.0f - h[j] * h[j]);
        m->w2[j] -= learning_rate * d_out * h[j];
        m->b1[j] -= learning_rate * d_hidden;
        for (int k = 0; k < MODEL_INPUTS; k++)
            m->w1[j][k] -= learning_rate * d_hidden * x[k];
    }
    m->b2 -= learning_rate * d_out;
    return err * err;
}
