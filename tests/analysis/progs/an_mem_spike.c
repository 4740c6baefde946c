/*
 * A memory peak between two samples (tests/analysis/test_mem_spike.c): a
 * process that maps and touches a 64 MiB block for a few milliseconds,
 * well inside one 1 s sampling interval, and unmaps it, so the RSS read at
 * every sample misses it.  Then it flushes (a snapshot frame follows,
 * whose series hold the block's interval) and waits past the next sample.
 *
 *   an_mem_spike RUN
 *     prints "before_kib N" (its ru_maxrss before the block) and
 *     "maxrss_kib N" (its ru_maxrss at the end: the test's own measure of
 *     the peak, kept by the kernel as VmHWM is).
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#define BLOCK (64ul << 20)

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static long maxrss_kib(void) {
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: an_mem_spike RUN\n");
        return 2;
    }
    if (scope_init(argv[1], "spike") != 0)
        return 1;
    int rc = 0;
    sleep_ms(1300); /* a sample or more of the process at rest */
    long before = maxrss_kib();
    SCOPE_PHASE("spike") {
        /* mmap, not malloc: the block leaves the RSS at munmap whatever the
         * allocator (ASan's quarantine keeps freed blocks). */
        char *block = mmap(NULL, BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (block == MAP_FAILED) {
            rc = 1;
        } else {
            memset(block, 1, BLOCK);
            munmap(block, BLOCK);
        }
    }
    sleep_ms(300);
    rc |= scope_flush();
    sleep_ms(1300); /* past the next sample */
    printf("before_kib %ld\nmaxrss_kib %ld\n", before, maxrss_kib());
    fflush(stdout);
    scope_shutdown();
    return rc ? 1 : 0;
}
