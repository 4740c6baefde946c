/*
 * The sampling sites of the hot-lines fixture: addresses of statements in
 * app/kernels.c and vendor/fastmath.c, taken with GCC's labels as values
 * when the kernels run once, so write_run.c can make stacks of them whose
 * lines the symbolizer finds in this very binary's debug info.
 */
#ifndef SCOPE_TESTS_LINES_SITES_H
#define SCOPE_TESTS_LINES_SITES_H

typedef struct fixture_sites {
    /* main's call of simulate, simulate's calls of the kernels */
    void *main_simulate, *simulate_physics, *simulate_shade, *simulate_hostile;
    /* statements inside the kernels */
    void *physics_force, *physics_integrate, *physics_clamp, *shade_blend, *shade_store;
    void *exp_series; /* in vendor/, outside the project folder */
    void *hostile_body;
    double sink;
} fixture_sites;

extern fixture_sites sites;

/* Runs the kernels once, which fills `sites`. */
void simulate(void);

/* The outside-the-project function the physics calls, as code calls libm. */
double fm_exp(double x);

#endif
