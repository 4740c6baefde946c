/*
 * A process whose figures rest, by construction, on part of its entries,
 * stopped before it can say more:
 *
 *   partial_workload RUN
 *
 * "step" completes 80 entries, then scope_flush() writes them with their
 * histogram (and the snapshot after a flush); 5 more entries follow, which
 * the next periodic frame carries without a histogram (85 entries have not
 * grown an eighth past 80), so the percentiles rest on 80 of 85 entries.
 * "brief" completes 30 entries in between.  How many entries of each read
 * their CPU time is the CPU-time setting's (SCOPE_CPU_TIME=always: all;
 * SCOPE_CPU_MIN_US=1000000000: the first alone, as the next would need
 * 1000 s of the phase's time), which the driver chooses, never the
 * machine's speed or load.
 *
 * It waits for a periodic frame collected after the 5 entries, not for a
 * length of time: its log grows by one write a frame, and the second frame
 * to reach it after the entries is such a frame.  Then it prints "ready"
 * and stops itself (SIGSTOP) for its SIGKILL, so that no later snapshot
 * (one follows a periodic frame once the log has grown by four snapshots,
 * about 50 empty frames) can bring the 85 entries' histogram before the
 * driver kills it, however slow the machine.  Run it with
 * SCOPE_FRAME_INTERVAL=0.5 and SCOPE_SAMPLE_INTERVAL=0.
 */
#define _GNU_SOURCE
#include "../support/own_log.h"

#include <scope/scope.h>

#include <signal.h>
#include <stdio.h>
#include <time.h>

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
    if (scope_flush() != 0) {
        fprintf(stderr, "partial_workload: scope_flush failed\n");
        return 4;
    }
    for (int i = 0; i < 5; i++)
        SCOPE_PHASE("step") {
            spin_ns(20000);
        }
    /* The first frame to reach the log after this size was taken may have
     * been collected before the 5 entries ended; the one after it was
     * collected after that one was written (one writer thread, one write a
     * frame), so after them. */
    long long size = own_log_size(argv[1]);
    for (int frame = 0; frame < 2; frame++) {
        size = own_log_grown_past(argv[1], size);
        if (size < 0)
            return 5;
    }
    puts("ready");
    fflush(stdout);
    raise(SIGSTOP);
    return 0; /* continued: the driver did not kill it */
}
