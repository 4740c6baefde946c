/* One small program, several ways of starting (or not starting) the
 * recorder.  It always prints the same result lines, so a driver can tell
 * that the program itself ran unaffected.
 *
 * usage: rt_basic MODE [RUN_DIR [ROLE]]
 *   init RUN [ROLE]  scope_init(RUN, ROLE or NULL), then the workload
 *   noinit           the workload only: recording depends on SCOPE_PROFILE
 *   lateinit ROLE    the workload, then scope_init(NULL, ROLE), then "late"
 *                    (under SCOPE_PROFILE=1 the workload starts recording)
 *   api              no scope_init, then every call of the API, misuse
 *                    included, then scope_shutdown and more calls after it
 *   names RUN        phases and counters named with control characters
 *                    and invalid UTF-8 (rt_odd_names)
 *   unbalanced RUN   scope_phase_end() with nothing open
 *   openexit RUN     returns from main with "left_open" still open
 *   threadend RUN    a new thread's first call is scope_phase_end()
 *   quiet RUN        3 bursts of 100 entries of "burst", 300 ms apart and
 *                    each followed by a periodic frame (run with a short
 *                    SCOPE_FRAME_INTERVAL), then "burst" stays quiet until
 *                    exit
 *   diskfull RUN     many frames of new, poorly compressible names, each
 *                    flushed: run under a small RLIMIT_FSIZE
 *
 * The workload: RT_BASIC_STEPS entries of "step" (items += 2 in each) and
 * as many of "explicit" (begin/end form); prints "init=R" (init mode),
 * "sum=S" and "flush=F". */
#define _GNU_SOURCE
#include "../../support/own_log.h"
#include "rt_common.h"

#include <scope/scope.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define RT_BASIC_STEPS 10

static int workload(void) {
    unsigned long long sum = 0;
    for (int i = 0; i < RT_BASIC_STEPS; i++) {
        SCOPE_PHASE("step") {
            SCOPE_COUNT("items", 2);
            sum += (unsigned long long)i * i;
        }
        scope_phase_begin("explicit");
        sum += 1;
        scope_phase_end();
    }
    printf("sum=%llu\n", sum);
    printf("flush=%d\n", scope_flush());
    return 0;
}

/* Every call, in every state: before anything, unbalanced, IO and SYNC
 * phases, counters with odd arguments, shutdown, and use after shutdown
 * (which must stay a no-op, not restart anything). */
static int api(void) {
    scope_phase_end(); /* nothing open */
    SCOPE_PHASE_IO("io") {
        SCOPE_COUNT("io_items", 1);
    }
    SCOPE_PHASE_SYNC("sync") {
        scope_count("negative", -5);
    }
    scope_phase_begin(NULL);
    scope_count(NULL, 1);
    scope_phase_end();
    int flushed = scope_flush();
    scope_shutdown();
    scope_shutdown();
    SCOPE_PHASE("after_shutdown") {
        SCOPE_COUNT("after_items", 1);
    }
    scope_phase_begin("after_explicit");
    scope_phase_end();
    printf("flush=%d after=%d\n", flushed, scope_flush());
    return 0;
}

static void *stray_end(void *arg) {
    (void)arg;
    scope_phase_end(); /* this thread's first call: nothing is open */
    SCOPE_PHASE("thread_work") {
        SCOPE_COUNT("items", 1);
    }
    return NULL;
}

/* splitmix64: names that look random compress poorly, so the log grows. */
static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int diskfull(void) {
    uint64_t seed = 42;
    char name[96];
    for (int f = 0; f < 300; f++) {
        for (int k = 0; k < 40; k++) {
            snprintf(name, sizeof name, "p%d_%d_%016llx%016llx", f, k,
                     (unsigned long long)mix(&seed), (unsigned long long)mix(&seed));
            scope_phase_begin(name);
            scope_count("bytes", k);
            scope_phase_end();
        }
        /* Fails once the limit is reached: the data stays queued, and the
         * program must not notice beyond the return value. */
        (void)scope_flush();
    }
    printf("done\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: rt_basic MODE [RUN_DIR [ROLE]]\n");
        return 2;
    }
    const char *mode = argv[1], *run = argc > 2 ? argv[2] : NULL;
    if (!strcmp(mode, "noinit"))
        return workload();
    if (!strcmp(mode, "api"))
        return api();
    if (!strcmp(mode, "lateinit") && run) {
        int rc = workload();
        printf("init=%d\n", scope_init(NULL, run)); /* the argument is the role */
        SCOPE_PHASE("late") {
            SCOPE_COUNT("items", 1);
        }
        return rc;
    }
    if (!run)
        return 2;
    if (!strcmp(mode, "init")) {
        printf("init=%d\n", scope_init(run, argc > 3 ? argv[3] : NULL));
        return workload();
    }
    if (scope_init(run, NULL) != 0)
        return 3;
    if (!strcmp(mode, "names")) {
        for (size_t i = 0; i < RT_ODD_NAMES; i++) {
            scope_phase_begin(rt_odd_names[i]);
            scope_count(rt_odd_names[i], (int64_t)i + 1);
            scope_phase_end();
        }
        return 0;
    }
    if (!strcmp(mode, "unbalanced")) {
        SCOPE_PHASE("ok") {
            scope_count("items", 1);
        }
        scope_phase_end();
        return 0;
    }
    if (!strcmp(mode, "openexit")) {
        scope_phase_begin("left_open");
        SCOPE_PHASE("closed") {
            scope_count("items", 1);
        }
        return 0;
    }
    if (!strcmp(mode, "threadend")) {
        SCOPE_PHASE("main_work") {
            SCOPE_COUNT("items", 1);
        }
        pthread_t th;
        if (pthread_create(&th, NULL, stray_end, NULL) != 0)
            return 4;
        pthread_join(th, NULL);
        return 0;
    }
    if (!strcmp(mode, "quiet")) {
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 100; i++) {
                SCOPE_PHASE("burst") {
                    scope_count("items", 1);
                }
            }
            /* 300 ms, and a periodic frame after the burst for certain
             * (its log grew), however late a loaded machine writes it. */
            long long size = own_log_size(run);
            struct timespec ts = {0, 300000000};
            while (nanosleep(&ts, &ts) != 0)
                ;
            if (own_log_grown_past(run, size) < 0)
                return 4;
        }
        return 0;
    }
    if (!strcmp(mode, "diskfull"))
        return diskfull();
    return 2;
}
