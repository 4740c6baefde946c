/*
 * A program that knows what its trace window must hold: it enters the phase
 * "step" STEPS times (each with two nested "inner" phases and a count of
 * "items" equal to the step's number), all inside an outer "run" phase
 * entered before any window, and writes each entry's number and its
 * CLOCK_MONOTONIC bounds (read just outside the phase) to TIMES:
 *
 *   step PID I T0 T1
 *   poll PID I T0 T1      (--thread: a second thread's "poll" phases, two
 *                         of which end between any two steps)
 *
 * usage: trace-workload TIMES STEPS [--thread] [--fork] [--api FIRST-LAST]
 *                       [--kill-at K]
 *   --fork        a child forked before the first step runs the same steps
 *                 (its lines carry its own pid)
 *   --api F-L     scope_trace_window("step", F, L) before scope_init
 *   --api-late F-L  the same after step 2, when "step" has its node: the
 *                 window counts the entries after the call
 *   --kill-at K   inside step K, after its inner phases: scope_flush(),
 *                 then SIGKILL itself
 * Records into $SCOPE_RUN_DIR (scope_init(NULL, "tracer")).
 */
#include <scope/scope.h>

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin_us(unsigned us) {
    uint64_t end = mono_ns() + us * 1000ull;
    while (mono_ns() < end) {
    }
}

static FILE *times;
static pthread_mutex_t times_lock = PTHREAD_MUTEX_INITIALIZER;

static void note(const char *what, long i, uint64_t t0, uint64_t t1) {
    pthread_mutex_lock(&times_lock);
    fprintf(times, "%s %d %ld %" PRIu64 " %" PRIu64 "\n", what, (int)getpid(), i, t0, t1);
    pthread_mutex_unlock(&times_lock);
}

static unsigned long long late_first, late_last;
static atomic_int stop;
static atomic_long polls_done;
static int with_thread;

static void *poller(void *arg) {
    (void)arg;
    for (long i = 1; !atomic_load(&stop); i++) {
        uint64_t t0 = mono_ns();
        SCOPE_PHASE("poll") {
            spin_us(150);
        }
        note("poll", i, t0, mono_ns());
        atomic_fetch_add(&polls_done, 1);
        spin_us(50);
    }
    return NULL;
}

static void steps(long n, long kill_at) {
    SCOPE_PHASE("run") {
        for (long i = 1; i <= n; i++) {
            uint64_t t0 = mono_ns();
            SCOPE_PHASE("step") {
                SCOPE_PHASE("inner") {
                    spin_us(100);
                }
                SCOPE_PHASE("inner") {
                    spin_us(100);
                }
                SCOPE_COUNT("items", i);
                if (i == kill_at) {
                    fflush(times);
                    scope_flush();
                    raise(SIGKILL);
                }
            }
            note("step", i, t0, mono_ns());
            /* Between steps, with no phase of its own open but run: the
             * second thread ends two polls here, so polls lie between any
             * two steps however the machine schedules the threads. */
            long target = atomic_load(&polls_done) + 2;
            while (with_thread && atomic_load(&polls_done) < target)
                usleep(100);
            spin_us(100);
            if (i == 2 && late_first && scope_trace_window("step", late_first, late_last) != 0)
                exit(3);
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: trace-workload TIMES STEPS [--thread] [--fork] [--api F-L] "
                        "[--kill-at K]\n");
        return 2;
    }
    long n = atol(argv[2]), kill_at = 0;
    int do_fork = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--thread"))
            with_thread = 1;
        else if (!strcmp(argv[i], "--fork"))
            do_fork = 1;
        else if (!strcmp(argv[i], "--api") && i + 1 < argc) {
            unsigned long long f, l;
            if (sscanf(argv[++i], "%llu-%llu", &f, &l) != 2 ||
                scope_trace_window("step", f, l) != 0)
                return 3;
        } else if (!strcmp(argv[i], "--api-late") && i + 1 < argc) {
            if (sscanf(argv[++i], "%llu-%llu", &late_first, &late_last) != 2)
                return 3;
        } else if (!strcmp(argv[i], "--kill-at") && i + 1 < argc)
            kill_at = atol(argv[++i]);
        else
            return 2;
    }
    times = fopen(argv[1], "a");
    if (!times || scope_init(NULL, "tracer") != 0)
        return 1;
    setvbuf(times, NULL, _IOLBF, 0);
    pid_t child = -1;
    if (do_fork) {
        child = fork();
        if (child < 0)
            return 1;
    }
    pthread_t th;
    if (with_thread && pthread_create(&th, NULL, poller, NULL) != 0)
        return 1;
    steps(n, kill_at);
    if (with_thread) {
        atomic_store(&stop, 1);
        pthread_join(th, NULL);
    }
    if (child > 0) {
        int st;
        if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
    }
    fclose(times);
    return 0;
}
