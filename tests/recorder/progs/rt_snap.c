/* A program whose log must hold snapshot frames (docs/format.md 5.2.1),
 * each complete alone: threads nesting phases and counting, a thread that
 * exits early with a phase left open (its nodes are freed, the snapshots
 * must still restate them), marks (a caveat, unbalanced ends, a phase left
 * open), a trace window, line samples and resource intervals (events a
 * snapshot must not hold).
 *
 * usage: rt_snap RUN_DIR MODE
 *   run    RT_SNAP_ROUNDS rounds of work by RT_SNAP_WORKERS threads, a
 *          scope_flush() halfway, then exit 0
 *   wait   the same rounds, print "ready", then keep working until a
 *          signal ends the process (a minute at most)
 *   churn  RT_SNAP_CHURN threads one after the other, each saturating a
 *          counter of its own and leaving a phase open when it exits: more
 *          marks than a snapshot copies
 *   fork   one round, then a forked child works RT_SNAP_ROUNDS / 4 rounds
 *          in phases of its own and exits 0; the parent waits, exits 0
 * The driver sets SCOPE_FRAME_INTERVAL, SCOPE_SAMPLE_INTERVAL and the trace
 * window (SCOPE_TRACE). */
#define _GNU_SOURCE
#include "rt_common.h"

#include <scope/scope.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static atomic_int rounds_wanted, forever;

static void spin_us(long us) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 200; i++)
            sink += (uint64_t)i;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

/* us of wall time, and cpu_us of this thread's CPU time at least, however
 * long a loaded machine makes that take: what the line sampler (on the
 * CPU clock) samples is CPU time. */
static long us_between(const struct timespec *a, const struct timespec *b) {
    return (b->tv_sec - a->tv_sec) * 1000000L + (b->tv_nsec - a->tv_nsec) / 1000;
}

static void spin_us_and_cpu(long us, long cpu_us) {
    struct timespec w0, w, c0, c;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    do {
        for (int i = 0; i < 200; i++)
            sink += (uint64_t)i;
        clock_gettime(CLOCK_MONOTONIC, &w);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
    } while (us_between(&w0, &w) < us || us_between(&c0, &c) < cpu_us);
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* One round of a worker: nested phases and counters, and now and then an
 * end with nothing open (a running total mark). */
static void round_of(int i, int r) {
    SCOPE_PHASE("outer") {
        SCOPE_COUNT("items", i + 1);
        SCOPE_PHASE("inner") {
            spin_us(200);
            SCOPE_COUNT("inner_items", 2);
        }
        if (i == 0 && r % 8 == 0)
            SCOPE_PHASE_SYNC("gpu_step") { /* no CUDA here: a caveat */
                spin_us(50);
            }
    }
    if (i == 1 && r % 10 == 0)
        scope_phase_end(); /* nothing open: unbalanced end-empty */
}

static void *worker(void *arg) {
    int i = (int)(intptr_t)arg;
    char name[16];
    snprintf(name, sizeof name, "snap-w%d", i);
    pthread_setname_np(pthread_self(), name);
    for (int r = 0; r < atomic_load(&rounds_wanted) || atomic_load(&forever); r++) {
        round_of(i, r);
        sleep_ms(RT_SNAP_ROUND_MS);
    }
    return NULL;
}

/* Exits with "left" open: the recorder writes its last values and a mark,
 * then frees its nodes. */
static void *early_exit(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "snap-early");
    SCOPE_PHASE("early") {
        spin_us(300);
    }
    scope_phase_begin("left");
    spin_us(100);
    return NULL;
}

static void work(int rounds, int flush_halfway) {
    pthread_t t[RT_SNAP_WORKERS], e;
    atomic_store(&rounds_wanted, rounds);
    for (int i = 0; i < RT_SNAP_WORKERS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    pthread_create(&e, NULL, early_exit, NULL);
    pthread_join(e, NULL);
    if (flush_halfway) {
        /* Busy, so the line sampler, which follows only this thread in a
         * TSan build, has samples to write: 50 ms of CPU at least, five
         * periods at 99 Hz and fifty at the default 997, whatever share of a CPU
         * the thread gets. */
        SCOPE_PHASE("main_busy") {
            spin_us_and_cpu((long)rounds * RT_SNAP_ROUND_MS * 1000 / 2, 50000);
        }
        scope_flush();
    }
    if (atomic_load(&forever)) {
        printf("ready\n");
        fflush(stdout);
        sleep(60);
        return;
    }
    for (int i = 0; i < RT_SNAP_WORKERS; i++)
        pthread_join(t[i], NULL);
}

/* Thread i: a counter of its own name that passes INT64_MAX (a saturated
 * mark each), and a phase left open as it exits (marks a slot's later
 * holders add to, thread.h). */
static void *churner(void *arg) {
    char name[32];
    snprintf(name, sizeof name, "sat-%d", (int)(intptr_t)arg);
    scope_phase_begin("churn");
    scope_count(name, INT64_MAX);
    scope_count(name, 1);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: rt_snap RUN_DIR run|wait|churn|fork\n");
        return 2;
    }
    if (scope_init(argv[1], "snap") != 0)
        return 1;
    scope_lines_begin(NULL);
    const char *mode = argv[2];
    if (strcmp(mode, "run") == 0) {
        work(RT_SNAP_ROUNDS, 1);
    } else if (strcmp(mode, "wait") == 0) {
        atomic_store(&forever, 1);
        work(RT_SNAP_ROUNDS, 1);
    } else if (strcmp(mode, "churn") == 0) {
        for (int i = 0; i < RT_SNAP_CHURN; i++) {
            pthread_t t;
            pthread_create(&t, NULL, churner, (void *)(intptr_t)i);
            pthread_join(t, NULL);
        }
        sleep_ms(200); /* a periodic frame or two retire them */
    } else if (strcmp(mode, "fork") == 0) {
        work(1, 0);
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            SCOPE_PHASE("child") {
                work(RT_SNAP_ROUNDS / 4, 0);
            }
            exit(0);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
    } else {
        fprintf(stderr, "rt_snap: unknown mode %s\n", mode);
        return 2;
    }
    scope_lines_end();
    return 0;
}
