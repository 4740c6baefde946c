/* Threads recording while a trace window opens and closes.  Usage:
 * rt_trace RUN_DIR [api] (the window comes from SCOPE_TRACE, a phase "step";
 * with "api", the main thread asks for it with scope_trace_window while
 * the writer thread writes frames: RT_TRACE_API_FIRST..RT_TRACE_API_LAST
 * of the steps after RT_TRACE_API_AFTER steps and RT_TRACE_API_WAIT_MS).
 *
 * RT_TRACE_WORKERS threads ("rt-worker") enter "work" and count "units" in
 * it without pause while the main thread enters "step" RT_TRACE_STEPS
 * times, each with one "inner" phase that lasts until a worker has begun
 * an entry of "work" inside it; the workers stop after the last step.  Frames every
 * SCOPE_FRAME_INTERVAL take the events while they are being published. */
#define _GNU_SOURCE
#include "rt_common.h"

#include <scope/scope.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

static atomic_int stop;
/* Entries of "work" so far, by all workers, counted inside each. */
static atomic_long works;

static void spin_us(long us) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *worker(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "rt-worker");
    while (!atomic_load(&stop))
        SCOPE_PHASE("work") {
            SCOPE_COUNT("units", 1);
            atomic_fetch_add(&works, 1);
            spin_us(20);
        }
    return NULL;
}

int main(int argc, char **argv) {
    int api = argc == 3 && !strcmp(argv[2], "api");
    if ((argc != 2 && !api) || scope_init(argv[1], "trace") != 0)
        return 2;
    pthread_t t[RT_TRACE_WORKERS];
    for (int i = 0; i < RT_TRACE_WORKERS; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0)
            return 3;
    for (int i = 0; i < RT_TRACE_STEPS; i++) {
        if (api && i == RT_TRACE_API_AFTER) {
            /* Frames are being written meanwhile: the window is armed
             * while the writer thread reads it. */
            nanosleep(&(struct timespec){0, RT_TRACE_API_WAIT_MS * 1000000L}, NULL);
            if (scope_trace_window("step", RT_TRACE_API_FIRST, RT_TRACE_API_LAST) != 0)
                return 4;
        }
        SCOPE_PHASE("step") {
            /* Two entries of "work" counted after this one began: the
             * second began inside it, so every step holds a worker's
             * entry however seldom a loaded machine runs the workers. */
            long before = atomic_load(&works);
            SCOPE_PHASE("inner") {
                spin_us(2000);
                while (atomic_load(&works) < before + 2)
                    sched_yield();
            }
        }
        spin_us(500);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < RT_TRACE_WORKERS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
