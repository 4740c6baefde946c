/* A thread that records across several frames and exits well before the
 * process does.  Usage: rt_thread_exit RUN_DIR
 *
 * The thread "rt-exiting" enters "step" RT_EXIT_STEPS times, RT_EXIT_STEP_MS
 * apart: with a short SCOPE_FRAME_INTERVAL, periodic frames (which carry
 * histograms only every SCOPE_HIST_INTERVAL) write its count as it grows.
 * It then exits, and the main thread waits for two frames more before the
 * process ends, so the thread's last values go into a periodic frame and no
 * later frame copies it again. */
#define _GNU_SOURCE
#include "../../support/own_log.h"
#include "rt_common.h"

#include <scope/scope.h>

#include <pthread.h>
#include <time.h>

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void *exiting(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), RT_EXIT_THREAD);
    for (int i = 0; i < RT_EXIT_STEPS; i++) {
        SCOPE_PHASE("step") {
            sleep_ms(1);
        }
        sleep_ms(RT_EXIT_STEP_MS);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2 || scope_init(argv[1], "thread_exit") != 0)
        return 2;
    pthread_t t;
    if (pthread_create(&t, NULL, exiting, NULL) != 0)
        return 3;
    pthread_join(t, NULL);
    /* Two frames written after the join: the second was collected after
     * the thread had exited (the writer puts out one frame at a time), so
     * a periodic frame copies its last values, however late a loaded
     * machine lets the writer run. */
    long long size = own_log_size(argv[1]);
    for (int frame = 0; frame < 2; frame++)
        if ((size = own_log_grown_past(argv[1], size)) < 0)
            return 4;
    sleep_ms(RT_EXIT_STEP_MS);
    return 0;
}
