/* Phases whose wait% and CPU-time reads are known by construction, for the
 * adaptive CPU-time rule and the reads' cost (test_recorder_cpu_rule).
 *
 * usage: rt_cpu_rule RUN_DIR CASE
 *   mixed    "mixed": 10 entries spinning 2 us, then 20 asleep for 10 ms
 *            each; prints "mixed WALL_NS CPU_NS", its own measure inside
 *            every entry, so the driver knows the true wait%
 *   preempt  "tiny": a first entry off its CPU for 20 ms (what a preempted
 *            entry looks like to the recorder), then 200,000 empty entries
 *   empty    "empty": 1,000,000 empty entries
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(long ns) {
    struct timespec ts = {0, ns};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void mixed(void) {
    volatile uint64_t spins = 0;
    uint64_t wall = 0, cpu = 0;
    for (int i = 0; i < 30; i++) {
        /* Timed inside the phase: the recorder's own work at its ends (much
         * of it under a sanitizer) is in neither figure. */
        SCOPE_PHASE("mixed") {
            uint64_t w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
            if (i < 10) {
                uint64_t end = clock_ns(CLOCK_MONOTONIC) + 2000u;
                while (clock_ns(CLOCK_MONOTONIC) < end)
                    spins++;
            } else {
                sleep_ns(10000000);
            }
            cpu += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
            wall += clock_ns(CLOCK_MONOTONIC) - w0;
        }
    }
    printf("mixed %llu %llu\n", (unsigned long long)wall, (unsigned long long)cpu);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: rt_cpu_rule RUN_DIR mixed|preempt|empty\n");
        return 2;
    }
    if (scope_init(argv[1], "cpu_rule") != 0)
        return 3;
    if (!strcmp(argv[2], "mixed")) {
        mixed();
    } else if (!strcmp(argv[2], "preempt")) {
        SCOPE_PHASE("tiny") {
            sleep_ns(20000000);
        }
        for (int i = 0; i < 200000; i++)
            SCOPE_PHASE("tiny") {}
    } else if (!strcmp(argv[2], "empty")) {
        for (int i = 0; i < 1000000; i++)
            SCOPE_PHASE("empty") {}
    } else {
        fprintf(stderr, "rt_cpu_rule: unknown case %s\n", argv[2]);
        return 2;
    }
    return 0;
}
