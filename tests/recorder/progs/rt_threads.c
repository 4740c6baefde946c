/* Eight threads nesting phases and counting, all at once, while the writer
 * thread snapshots them: the log must hold exactly the counts each thread
 * made, on that thread, with every counter in the phase open when counted.
 *
 * usage: rt_threads RUN_DIR
 * Per worker i (see rt_common.h for the numbers):
 *   iteration                 N_i   counters: iterations (N_i x 1)
 *   iteration/self_play       N_i
 *   .../self_play/mcts      3 N_i   counters: mcts_simulations (3 N_i x 64)
 *   .../self_play/env_step    N_i   counters: env_steps (N_i x (i+1)), explicit form
 *   iteration/train           T_i   explicit begin/end; counters: samples (T_i x 256)
 *   (no phase)                      counters: outside (N_i x 1)
 * The main thread holds "main" open while the workers run: they must not
 * nest under it. */
#define _GNU_SOURCE
#include "rt_common.h"

#include <scope/scope.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int ready;
static volatile uint64_t sink;

static void *worker(void *arg) {
    int i = (int)(intptr_t)arg;
    char name[16];
    snprintf(name, sizeof name, RT_THREAD_NAME, i);
    pthread_setname_np(pthread_self(), name);
    /* Start together, so the threads intern names and create nodes
     * concurrently rather than one after the other. */
    atomic_fetch_add(&ready, 1);
    while (atomic_load(&ready) < RT_THREADS)
        ;
    uint64_t n = rt_thread_iterations(i);
    for (uint64_t it = 0; it < n; it++) {
        SCOPE_PHASE("iteration") {
            SCOPE_COUNT("iterations", 1);
            SCOPE_PHASE("self_play") {
                for (int k = 0; k < RT_MCTS_PER_IT; k++) {
                    SCOPE_PHASE("mcts") {
                        SCOPE_COUNT("mcts_simulations", RT_MCTS_SIMS);
                        sink += it * (uint64_t)k;
                    }
                }
                SCOPE_PHASE("env_step") {
                    scope_count("env_steps", i + 1);
                }
            }
            if (it % RT_TRAIN_EVERY == 0) {
                scope_phase_begin("train");
                scope_count("samples", RT_SAMPLES);
                scope_phase_end();
            }
        }
        SCOPE_COUNT("outside", 1);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: rt_threads RUN_DIR\n");
        return 2;
    }
    if (scope_init(argv[1], "threads") != 0)
        return 3;
    pthread_t th[RT_THREADS];
    SCOPE_PHASE("main") {
        for (int i = 0; i < RT_THREADS; i++)
            if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) != 0)
                return 4;
        for (int i = 0; i < RT_THREADS; i++)
            pthread_join(th[i], NULL);
    }
    printf("done\n");
    return 0;
}
