/*
 * A process whose figures rest, by construction, on part of its entries,
 * killed before it can say more:
 *
 *   partial_workload RUN
 *
 * "step" completes 80 entries, then scope_flush() writes them with their
 * histogram; 5 more entries follow, which the periodic frames then carry
 * without a histogram (85 entries have not grown an eighth past 80), so
 * the percentiles rest on 80 of 85 entries.  "brief" completes 30 entries
 * of about a microsecond, of which the adaptive CPU-time rule reads the
 * first alone on a quiet machine (the next would need 50 us of the phase's
 * time, it has 30; a preempted entry can give it that), so its wait% rests
 * on 1 (or a few) of 30 entries.  It prints "ready" after the
 * frames that carry all this and waits for its SIGKILL.  Run it with
 * SCOPE_FRAME_INTERVAL=0.1.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void spin_ns(long ns) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: partial_workload RUN\n");
        return 2;
    }
    if (scope_init(argv[1], "partial") != 0)
        return 3;
    for (int i = 0; i < 80; i++)
        SCOPE_PHASE("step") {
            spin_ns(20000);
        }
    for (int i = 0; i < 30; i++)
        SCOPE_PHASE("brief") {
            spin_ns(1000);
        }
    scope_flush();
    for (int i = 0; i < 5; i++)
        SCOPE_PHASE("step") {
            spin_ns(20000);
        }
    usleep(500000); /* periodic frames every 0.1 s carry the new count */
    puts("ready");
    fflush(stdout);
    for (int i = 0; i < 600; i++)
        sleep(1); /* a minute at most, should the driver never kill it */
    return 0;
}
