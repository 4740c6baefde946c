/*
 * A workload whose call stacks and their costs are known by construction,
 * for the stacks end to end (tests/lines/test_stacks_known.sh):
 *
 *   main -> a -> b -> c     in phase "work"
 *             -> d
 *   main -> e               in phase "rest"
 *
 * Every function does work of its own in its own body (a loop the compiler
 * cannot fold: each one's constants differ), a, b and c and d in the ratio
 * 1 : 1 : 2 : 2, e 1.  Each function's own CPU time is measured here with
 * the thread's CPU clock (its total less its callees'), so the truth the
 * folded stacks are checked against is measured, not assumed.
 *
 * Usage: stacks_known RUN [--units N]
 * Prints, after scope_shutdown, "SELF <path> <ns>" for each path, as folded
 * stacks write it from main ("main;a;b;c"), with the CPU time spent running
 * its last function.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Iterations per unit of work: about 0.1 s of CPU on this machine. */
#define ITERS_PER_UNIT 60000000ull

static volatile double out, seed = 1.5;
static uint64_t units = 1;

static int64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Work in the caller's own body: an inline loop, so its samples are the
 * caller's. */
#define SPIN(n, mul, add)                                                                          \
    do {                                                                                           \
        double x_ = seed;                                                                          \
        for (uint64_t i_ = 0; i_ < (n); i_++)                                                      \
            x_ = x_ * (mul) + (add);                                                               \
        out += x_;                                                                                 \
    } while (0)

static int64_t t_a, t_b, t_c, t_d, t_e;

__attribute__((noinline)) static void c(void) {
    int64_t t0 = thread_cpu_ns();
    SPIN(2 * units * ITERS_PER_UNIT, 0.999997, 0.000005);
    t_c += thread_cpu_ns() - t0;
}

__attribute__((noinline)) static void b(void) {
    int64_t t0 = thread_cpu_ns();
    SPIN(units * ITERS_PER_UNIT, 0.999998, 0.000003);
    c();
    t_b += thread_cpu_ns() - t0;
}

__attribute__((noinline)) static void d(void) {
    int64_t t0 = thread_cpu_ns();
    SPIN(2 * units * ITERS_PER_UNIT, 0.999996, 0.000007);
    t_d += thread_cpu_ns() - t0;
}

__attribute__((noinline)) static void a(void) {
    int64_t t0 = thread_cpu_ns();
    SPIN(units * ITERS_PER_UNIT, 0.999999, 0.000001);
    b();
    d();
    t_a += thread_cpu_ns() - t0;
}

__attribute__((noinline)) static void e(void) {
    int64_t t0 = thread_cpu_ns();
    SPIN(units * ITERS_PER_UNIT, 0.999995, 0.000009);
    t_e += thread_cpu_ns() - t0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: stacks_known RUN [--units N]\n");
        return 2;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--units") && i + 1 < argc)
            units = strtoull(argv[++i], NULL, 10);
    if (scope_init(argv[1], "stacks") != 0) {
        fprintf(stderr, "stacks_known: scope_init failed\n");
        return 1;
    }
    SCOPE_PHASE("work") {
        a();
    }
    SCOPE_PHASE("rest") {
        e();
    }
    scope_shutdown();
    printf("SELF main;a %lld\n", (long long)(t_a - t_b - t_d));
    printf("SELF main;a;b %lld\n", (long long)(t_b - t_c));
    printf("SELF main;a;b;c %lld\n", (long long)t_c);
    printf("SELF main;a;d %lld\n", (long long)t_d);
    printf("SELF main;e %lld\n", (long long)t_e);
    return 0;
}
