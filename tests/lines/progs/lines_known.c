/*
 * A workload whose per-line costs are known by construction, for the line
 * sampler end to end (tests/lines/test_lines_known.sh): four noinline
 * kernels, each one loop on one line, and each timed here with its thread's
 * CPU clock, so the truth the sampled shares are checked against is
 * measured, not assumed:
 *
 *   kernel_one    1 unit of work     phase pair    (thread 1)
 *   kernel_two    2 units            phase pair    (thread 2 with --threads)
 *   kernel_three  3 units            phase three   (thread 1)
 *   kernel_libm   2 units, in exp()  phase libm    (thread 2 with --threads)
 *
 * The kernels' bodies differ (their constants), so the compiler cannot fold
 * them into one; exp's argument stays in [0.25, 1], far from its error path.
 *
 * Usage: lines_known RUN [--threads] [--units N] [--block-sigprof]
 *   --block-sigprof   the main thread blocks SIGPROF before its work, after
 *                     starting the second thread (the sampler must say so,
 *                     not break)
 *
 * Built with LINES_KNOWN_PLAIN it links no recorder at all (phases and
 * scope_init compile to nothing): a program that was never instrumented,
 * for `scope-tui record`.
 * Prints, after scope_shutdown: "LINE <kernel> <line>" for each kernel's
 * loop line, "CPU <kernel> <ns>" for each kernel's measured CPU time, and
 * "RUSAGE <ns>": user + system CPU time of the whole process.
 */
#define _GNU_SOURCE
#ifdef LINES_KNOWN_PLAIN
#define SCOPE_PHASE(name)   if (1)
#define scope_init(dir, rl) ((void)(dir), 0)
#define scope_shutdown()    ((void)0)
#else
#include <scope/scope.h>
#endif

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Iterations per unit of work: about 0.17 s of CPU on this machine. */
#define ITERS_PER_UNIT 100000000ull

static volatile double out, seed = 1.5; /* opaque starting points: nothing to fold */
static uint64_t units = 2;
static int64_t cpu_ns[4];

static int64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

enum { LINE_ONE = __LINE__ + 4 };
__attribute__((noinline)) static double kernel_one(uint64_t n) {
    double x = seed;
    /* clang-format off */
    for (uint64_t i = 0; i < n; i++) x = x * 0.999999 + 0.000001;
    /* clang-format on */
    return x;
}

enum { LINE_TWO = __LINE__ + 4 };
__attribute__((noinline)) static double kernel_two(uint64_t n) {
    double x = seed + 1;
    /* clang-format off */
    for (uint64_t i = 0; i < n; i++) x = x * 0.999998 + 0.000003;
    /* clang-format on */
    return x;
}

enum { LINE_THREE = __LINE__ + 4 };
__attribute__((noinline)) static double kernel_three(uint64_t n) {
    double x = seed + 2;
    /* clang-format off */
    for (uint64_t i = 0; i < n; i++) x = x * 0.999997 + 0.000005;
    /* clang-format on */
    return x;
}

/* exp() costs several times the loops above: fewer iterations per unit. */
enum { LINE_LIBM = __LINE__ + 4 };
__attribute__((noinline)) static double kernel_libm(uint64_t n) {
    double s = 0, x = seed - 1;
    /* clang-format off */
    for (uint64_t i = 0; i < n; i++) s += exp(x), x = x * 0.5 + 0.375;
    /* clang-format on */
    return s;
}

typedef double (*kernel_fn)(uint64_t);

static void timed(int k, kernel_fn fn, uint64_t n) {
    int64_t t0 = thread_cpu_ns();
    out += fn(n);
    cpu_ns[k] += thread_cpu_ns() - t0;
}

static void work_one_three(void) {
    SCOPE_PHASE("pair") {
        timed(0, kernel_one, units * ITERS_PER_UNIT);
    }
    SCOPE_PHASE("three") {
        timed(2, kernel_three, 3 * units * ITERS_PER_UNIT);
    }
}

static void work_two_libm(void) {
    SCOPE_PHASE("pair") {
        timed(1, kernel_two, 2 * units * ITERS_PER_UNIT);
    }
    SCOPE_PHASE("libm") {
        timed(3, kernel_libm, 2 * units * ITERS_PER_UNIT / 8);
    }
}

static void *second_thread(void *arg) {
    (void)arg;
    work_two_libm();
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: lines_known RUN [--threads] [--units N]\n");
        return 2;
    }
    int threads = 0, block = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--threads"))
            threads = 1;
        else if (!strcmp(argv[i], "--block-sigprof"))
            block = 1;
        else if (!strcmp(argv[i], "--units") && i + 1 < argc)
            units = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "lines_known: bad argument %s\n", argv[i]);
            return 2;
        }
    }
    if (scope_init(argv[1], "known") != 0)
        return 1;
    pthread_t t;
    if (threads && pthread_create(&t, NULL, second_thread, NULL) != 0)
        return 1;
    if (block) { /* the main thread only: the second one was started before */
        sigset_t prof;
        sigemptyset(&prof);
        sigaddset(&prof, SIGPROF);
        pthread_sigmask(SIG_BLOCK, &prof, NULL);
    }
    if (threads) {
        work_one_three();
        pthread_join(t, NULL);
    } else {
        work_one_three();
        work_two_libm();
    }
    scope_shutdown();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    int64_t rusage_ns = ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
                        ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
    const char *names[4] = {"kernel_one", "kernel_two", "kernel_three", "kernel_libm"};
    const int lines[4] = {LINE_ONE, LINE_TWO, LINE_THREE, LINE_LIBM};
    for (int k = 0; k < 4; k++)
        printf("LINE %s %d\nCPU %s %lld\n", names[k], lines[k], names[k], (long long)cpu_ns[k]);
    printf("RUSAGE %lld\n", (long long)rusage_ns);
    return 0;
}
