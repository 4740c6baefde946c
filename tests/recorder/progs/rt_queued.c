/* A phase that spins and a phase that sleeps, beside BUSY busy loops that
 * share its one CPU: off-CPU time must split into queued (the spinner,
 * runnable but waiting for that CPU) and blocked (the sleeper).
 *
 * usage: rt_queued RUN_DIR BUSY REPEATS
 * Pins itself to the first CPU it may run on and starts BUSY processes
 * that spin there until it ends (before scope_init: they record nothing).
 * Each of REPEATS rounds enters "spin", 30 ms of spinning, then "sleep",
 * 20 ms asleep.  Prints what it measured itself around the blocks, from its
 * thread's CPU clock and /proc/thread-self/schedstat (run delay), as
 *   spin WALL_NS CPU_NS DELAY_NS
 *   sleep WALL_NS CPU_NS DELAY_NS
 * so a driver holds the recorder's figures to the truth of this run. */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_BUSY 8

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The thread's run delay (ns), the second field of its schedstat. */
static uint64_t run_delay_ns(int fd) {
    char buf[128];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    unsigned long long exec = 0, delay = 0;
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return sscanf(buf, "%llu %llu", &exec, &delay) == 2 ? delay : 0;
}

static void pin_to_one_cpu(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            CPU_ZERO(&set);
            CPU_SET(c, &set);
            (void)sched_setaffinity(0, sizeof set, &set);
            return;
        }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: rt_queued RUN_DIR BUSY REPEATS\n");
        return 2;
    }
    int nbusy = atoi(argv[2]), repeats = atoi(argv[3]);
    if (nbusy < 0 || nbusy > MAX_BUSY)
        return 2;
    pin_to_one_cpu();
    pid_t busy[MAX_BUSY];
    for (int i = 0; i < nbusy; i++) {
        busy[i] = fork();
        if (busy[i] == 0) {
            volatile uint64_t spins = 0;
            for (;;)
                spins++;
        }
    }
    if (scope_init(argv[1], "queued") != 0)
        return 3;
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 4;
    volatile uint64_t spins = 0;
    uint64_t wall[2] = {0, 0}, cpu[2] = {0, 0}, delay[2] = {0, 0};
    for (int r = 0; r < repeats; r++) {
        uint64_t d0 = run_delay_ns(fd), w0 = clock_ns(CLOCK_MONOTONIC),
                 c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        SCOPE_PHASE("spin") {
            uint64_t end = clock_ns(CLOCK_MONOTONIC) + 30000000u;
            while (clock_ns(CLOCK_MONOTONIC) < end)
                spins++;
        }
        uint64_t c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w1 = clock_ns(CLOCK_MONOTONIC),
                 d1 = run_delay_ns(fd);
        SCOPE_PHASE("sleep") {
            struct timespec ts = {0, 20000000};
            while (nanosleep(&ts, &ts) != 0)
                ;
        }
        uint64_t c2 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w2 = clock_ns(CLOCK_MONOTONIC),
                 d2 = run_delay_ns(fd);
        wall[0] += w1 - w0, cpu[0] += c1 - c0, delay[0] += d1 - d0;
        /* The sleeper's block starts where the spinner's ends. */
        wall[1] += w2 - w1, cpu[1] += c2 - c1, delay[1] += d2 - d1;
    }
    for (int i = 0; i < nbusy; i++) {
        kill(busy[i], SIGKILL);
        waitpid(busy[i], NULL, 0);
    }
    printf("spin %llu %llu %llu\nsleep %llu %llu %llu\n", (unsigned long long)wall[0],
           (unsigned long long)cpu[0], (unsigned long long)delay[0], (unsigned long long)wall[1],
           (unsigned long long)cpu[1], (unsigned long long)delay[1]);
    return 0;
}
