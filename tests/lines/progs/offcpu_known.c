/*
 * A workload whose waits are known by construction, for the off-CPU stacks
 * end to end (tests/lines/test_offcpu_known.sh).  In phase "wait", each
 * round calls
 *
 *   main -> a -> wait_in_read    read() on a pipe another thread writes
 *                                to --read-ms later
 *   main -> a -> wait_in_sleep   clock_nanosleep to --sleep-ms later
 *                                (again after each EINTR, to its deadline)
 *   main -> a -> spin            runs on a CPU for --spin-ms
 *
 * The program measures each function's wall time (CLOCK_MONOTONIC) and the
 * phase's CPU time (the thread's CPU clock), so the shares the off-CPU
 * stacks are checked against are measured, not assumed: on a loaded
 * machine spin's wall time holds time spent waiting for a CPU.
 *
 * Usage: offcpu_known RUN [--rounds N] [--read-ms N] [--sleep-ms N]
 *                         [--spin-ms N]
 * Prints after scope_shutdown "WALL <function> <ns>" for the three, and
 * "PHASE <wall ns> <cpu ns>" for phase wait.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long rounds = 4, read_ms = 60, sleep_ms = 40, spin_ms = 50;
static int pipe_fd[2], req_fd[2]; /* the data, and main's requests for it */
static volatile double sink;

static int64_t now_ns(clockid_t clk) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sleeps to an absolute deadline, whatever signals come meanwhile. */
__attribute__((noinline)) static void sleep_until(int64_t deadline) {
    struct timespec ts = {(time_t)(deadline / 1000000000), (long)(deadline % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* The other end of the pipe: a byte --read-ms after each request. */
static void *writer_main(void *arg) {
    (void)arg;
    for (long r = 0; r < rounds; r++) {
        char go;
        ssize_t n;
        while ((n = read(req_fd[0], &go, 1)) < 0 && errno == EINTR)
            ;
        if (n != 1)
            break;
        sleep_until(now_ns(CLOCK_MONOTONIC) + read_ms * 1000000);
        if (write(pipe_fd[1], "x", 1) != 1)
            break;
    }
    return NULL;
}

static int64_t w_read, w_sleep, w_spin;

__attribute__((noinline)) static void wait_in_read(void) {
    int64_t t0 = now_ns(CLOCK_MONOTONIC);
    if (write(req_fd[1], "?", 1) != 1)
        abort();
    char c;
    ssize_t n;
    while ((n = read(pipe_fd[0], &c, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        abort();
    w_read += now_ns(CLOCK_MONOTONIC) - t0;
}

__attribute__((noinline)) static void wait_in_sleep(void) {
    int64_t t0 = now_ns(CLOCK_MONOTONIC);
    sleep_until(t0 + sleep_ms * 1000000);
    w_sleep += now_ns(CLOCK_MONOTONIC) - t0;
}

__attribute__((noinline)) static void spin(void) {
    int64_t t0 = now_ns(CLOCK_MONOTONIC), end = t0 + spin_ms * 1000000;
    double x = 1.5;
    while (now_ns(CLOCK_MONOTONIC) < end)
        for (int i = 0; i < 1000; i++)
            x = x * 0.999999 + 0.000001;
    sink += x;
    w_spin += now_ns(CLOCK_MONOTONIC) - t0;
}

__attribute__((noinline)) static void a(void) {
    wait_in_read();
    wait_in_sleep();
    spin();
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: offcpu_known RUN [--rounds N] [--read-ms N] [--sleep-ms N] "
                        "[--spin-ms N]\n");
        return 2;
    }
    for (int i = 2; i + 1 < argc; i += 2) {
        long v = strtol(argv[i + 1], NULL, 10);
        if (!strcmp(argv[i], "--rounds"))
            rounds = v;
        else if (!strcmp(argv[i], "--read-ms"))
            read_ms = v;
        else if (!strcmp(argv[i], "--sleep-ms"))
            sleep_ms = v;
        else if (!strcmp(argv[i], "--spin-ms"))
            spin_ms = v;
    }
    if (pipe(pipe_fd) != 0 || pipe(req_fd) != 0 || scope_init(argv[1], "offcpu") != 0) {
        fprintf(stderr, "offcpu_known: cannot start\n");
        return 1;
    }
    pthread_t writer;
    if (pthread_create(&writer, NULL, writer_main, NULL) != 0)
        return 1;
    int64_t wall0 = 0, cpu0 = 0, wall = 0, cpu = 0;
    SCOPE_PHASE("wait") {
        wall0 = now_ns(CLOCK_MONOTONIC);
        cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        for (long r = 0; r < rounds; r++)
            a();
        wall = now_ns(CLOCK_MONOTONIC) - wall0;
        cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    }
    pthread_join(writer, NULL);
    scope_shutdown();
    printf("WALL wait_in_read %lld\n", (long long)w_read);
    printf("WALL wait_in_sleep %lld\n", (long long)w_sleep);
    printf("WALL spin %lld\n", (long long)w_spin);
    printf("PHASE %lld %lld\n", (long long)wall, (long long)cpu);
    return 0;
}
