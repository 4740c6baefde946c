/*
 * A small instrumented program for the compare/check end-to-end test: the
 * same work every run, except that "compute" can be made slower.
 *
 *   cmp_workload RUN SLOW [extra|half]
 *
 * Records into RUN as role "worker": 12 iterations (6 with "half") of
 *
 *   prepare { load { sleep 2 ms } sleep 1 ms }
 *   compute { sleep 6*SLOW ms; count items 64 }
 *   write   { sleep 2 ms }
 *   cleanup { sleep 1 ms }   (with "extra" only: a phase one run lacks)
 *
 * Sleeps, not spins: the figures hold on a loaded machine, where a spin
 * would stretch with every other process competing for the CPU.
 */
#include <scope/scope.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ITERATIONS 12

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4 || atoi(argv[2]) < 1) {
        fputs("usage: cmp_workload RUN SLOW [extra|half] (SLOW: 1 or more)\n", stderr);
        return 2;
    }
    useconds_t slow = (useconds_t)atoi(argv[2]);
    int extra = argc == 4 && !strcmp(argv[3], "extra");
    int iterations = argc == 4 && !strcmp(argv[3], "half") ? ITERATIONS / 2 : ITERATIONS;
    if (scope_init(argv[1], "worker") != 0)
        fputs("cmp_workload: scope_init failed\n", stderr);
    for (int i = 0; i < iterations; i++) {
        SCOPE_PHASE("prepare") {
            SCOPE_PHASE("load") {
                usleep(2000);
            }
            usleep(1000);
        }
        SCOPE_PHASE("compute") {
            usleep(6000 * slow);
            SCOPE_COUNT("items", 64);
        }
        SCOPE_PHASE("write") {
            usleep(2000);
        }
        if (extra)
            SCOPE_PHASE("cleanup") {
                usleep(1000);
            }
    }
    scope_shutdown();
    return 0;
}
