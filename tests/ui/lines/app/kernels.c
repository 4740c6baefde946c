/* Kernels of known shape for the browser's hot-lines screens.  Each label
 * marks a statement that write_run.c charges samples to; the code runs once,
 * on a few numbers, only to take those addresses. */
#include "../sites.h"

static double field[64];

static void step_physics(int n) {
    double energy = 0; /* Σ field², what the step conserves */
    sites.physics_force = &&force;
    sites.physics_integrate = &&integrate;
    sites.physics_clamp = &&clamp;
    for (int i = 0; i < n; i++) {
    force:
        field[i] = 0.5 * field[i] + fm_exp(-field[i]);
    integrate:
        energy += field[i] * field[i];
    clamp:
        if (field[i] > 4.0)
            field[i] = 4.0;
    }
    sites.sink += energy;
}

static void shade_pixels(int n) {
    double light = 0.25;
    sites.shade_blend = &&blend;
    sites.shade_store = &&store;
    for (int i = 0; i < n; i++) {
    blend:
        light = light * 0.9 + field[i % 64] * 0.1;
    store:
        field[i % 64] = light;
    }
}

void simulate(void) {
    sites.simulate_physics = &&physics;
    sites.simulate_shade = &&shade;
physics:
    step_physics(64);
shade:
    shade_pixels(256);
}
