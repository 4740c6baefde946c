/* Phases open while frames are written.  Usage: rt_open RUN_DIR
 *
 * The thread RT_OPEN_HOLDER holds "hold" { "inner" } open for the whole
 * run; RT_OPEN_CHURNERS threads enter and leave "a" { "b" { "c" } } as
 * fast as they can, so the writer copies their open stacks while they
 * change.  The main thread lets that go on for RT_OPEN_MS (a short
 * SCOPE_FRAME_INTERVAL makes many frames of it) and until its log has grown
 * RT_OPEN_FRAMES times since, then stops them all. */
#define _GNU_SOURCE
#include "../../support/own_log.h"
#include "rt_common.h"

#include <scope/scope.h>

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static atomic_int stop;

static void *holder(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), RT_OPEN_HOLDER);
    SCOPE_PHASE("hold") {
        SCOPE_PHASE("inner") {
            while (!atomic_load(&stop)) {
                struct timespec ts = {0, 1000000L};
                nanosleep(&ts, NULL);
            }
        }
    }
    return NULL;
}

static void *churner(void *arg) {
    (void)arg;
    for (unsigned i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
        SCOPE_PHASE("a") {
            SCOPE_PHASE("b") {
                if (i & 1)
                    SCOPE_PHASE("c") {}
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2 || scope_init(argv[1], "open") != 0)
        return 2;
    pthread_t t[1 + RT_OPEN_CHURNERS];
    if (pthread_create(&t[0], NULL, holder, NULL) != 0)
        return 3;
    for (int i = 1; i <= RT_OPEN_CHURNERS; i++)
        if (pthread_create(&t[i], NULL, churner, NULL) != 0)
            return 3;
    struct timespec ts = {RT_OPEN_MS / 1000, (RT_OPEN_MS % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    /* And RT_OPEN_FRAMES writes of frames at least while they run, however
     * few a loaded machine let the writer make in that time. */
    long long size = own_log_size(argv[1]);
    for (int i = 0; i < RT_OPEN_FRAMES; i++)
        if ((size = own_log_grown_past(argv[1], size)) < 0)
            return 4;
    atomic_store(&stop, 1);
    for (int i = 0; i <= RT_OPEN_CHURNERS; i++)
        pthread_join(t[i], NULL);
    scope_shutdown();
    return 0;
}
