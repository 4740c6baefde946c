/* A small, seedable random number generator (splitmix64): every actor's games
 * and the learner's batches are the same from one run to the next. */
#ifndef PIPELINE_RNG_H
#define PIPELINE_RNG_H

#include <stdint.h>

static inline uint64_t rng_next(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in 0..n-1 (n > 0). */
static inline uint32_t rng_below(uint64_t *state, uint32_t n) {
    return (uint32_t)(((rng_next(state) >> 32) * n) >> 32);
}

/* Uniform in [-1, 1). */
static inline float rng_signed_unit(uint64_t *state) {
    return (float)(rng_next(state) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

#endif
