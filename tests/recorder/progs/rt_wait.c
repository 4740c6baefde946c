/* A phase that sleeps and a phase that spins, each for 20 ms at a time:
 * wait% (1 - cpu_ns / cpu_wall_ns) must tell them apart.
 *
 * usage: rt_wait RUN_DIR REPEATS [SHORT]
 * then SHORT entries (default 0) of "short", which spins 2 us each.
 * Prints what it measured itself around each 20 ms block, as
 *   sleep WALL_NS CPU_NS
 *   busy WALL_NS CPU_NS
 * so a driver can tell a recorder that measures wrongly from a machine too
 * busy to let the spinner run. */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: rt_wait RUN_DIR REPEATS [SHORT]\n");
        return 2;
    }
    if (scope_init(argv[1], "wait") != 0)
        return 3;
    int repeats = atoi(argv[2]);
    volatile uint64_t spins = 0;
    uint64_t wall[2] = {0, 0}, cpu[2] = {0, 0};
    for (int r = 0; r < repeats; r++) {
        uint64_t w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        SCOPE_PHASE("sleep") {
            struct timespec ts = {0, 20000000};
            while (nanosleep(&ts, &ts) != 0)
                ;
        }
        uint64_t w1 = clock_ns(CLOCK_MONOTONIC), c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        SCOPE_PHASE("busy") {
            uint64_t end = clock_ns(CLOCK_MONOTONIC) + 20000000u;
            while (clock_ns(CLOCK_MONOTONIC) < end)
                spins++;
        }
        uint64_t w2 = clock_ns(CLOCK_MONOTONIC), c2 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        wall[0] += w1 - w0;
        cpu[0] += c1 - c0;
        wall[1] += w2 - w1;
        cpu[1] += c2 - c1;
    }
    int nshort = argc > 3 ? atoi(argv[3]) : 0;
    for (int r = 0; r < nshort; r++) {
        SCOPE_PHASE("short") {
            uint64_t end = clock_ns(CLOCK_MONOTONIC) + 2000u;
            while (clock_ns(CLOCK_MONOTONIC) < end)
                spins++;
        }
    }
    printf("sleep %llu %llu\nbusy %llu %llu\n", (unsigned long long)wall[0],
           (unsigned long long)cpu[0], (unsigned long long)wall[1], (unsigned long long)cpu[1]);
    return 0;
}
