/* A host program whose own signals and definitions press on the recorder.
 *
 * usage: rt_hostsig MODE RUN_DIR
 *   forktimer  a 1 ms timer whose SIGALRM handler forks (the child _exits
 *              at once), while "work" is entered in a loop.  The main
 *              thread blocks SIGALRM but for a moment every few entries, and
 *              asks for a frame each time (scope_flush), so most ticks go
 *              to whichever other thread does not block them, while the
 *              recorder's writer is busy.
 *              Ends after RT_FORKS forks or 5 s and prints "forks=N".
 *   exitsig    SIGUSR2, whose handler calls exit(RT_EXIT_STATUS), is sent to
 *              the process while the main thread blocks it; the main thread
 *              records for 0.3 s, then unblocks it.
 *   defs       creates a new phase and a new counter in it on every
 *              iteration, forever; prints "ready" after the first 100.
 *   defs-n N   the same for N iterations, then exits 0.
 * Every mode ends itself after a minute at most. */
#define _GNU_SOURCE
#include "rt_common.h"

#include <scope/scope.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t forks;
static volatile uint64_t sink;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_alarm(int sig) {
    (void)sig;
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    if (pid > 0)
        forks = forks + 1;
}

static void on_usr2(int sig) {
    (void)sig;
    exit(RT_EXIT_STATUS);
}

static void handle(int sig, void (*fn)(int)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static void block(int sig, int how) {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    pthread_sigmask(how, &s, NULL);
}

static void work(int n) {
    for (int i = 0; i < n; i++) {
        SCOPE_PHASE("work") {
            sink += (uint64_t)i;
            SCOPE_COUNT("items", 1);
        }
    }
}

static int fork_timer(void) {
    /* Children are reaped by the kernel: the handler only forks. */
    signal(SIGCHLD, SIG_IGN);
    block(SIGALRM, SIG_BLOCK);
    handle(SIGALRM, on_alarm);
    struct itimerval it = {{0, 1000}, {0, 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
    double end = now_s() + 5;
    while (forks < RT_FORKS && now_s() < end) {
        work(200);
        /* The writer at work holds its lock: keep it busy. */
        scope_flush();
        block(SIGALRM, SIG_UNBLOCK);
        block(SIGALRM, SIG_BLOCK);
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("forks=%d\n", (int)forks);
    return 0;
}

static int exit_signal(void) {
    handle(SIGUSR2, on_usr2);
    block(SIGUSR2, SIG_BLOCK);
    kill(getpid(), SIGUSR2);
    double end = now_s() + 0.3;
    while (now_s() < end)
        work(100);
    block(SIGUSR2, SIG_UNBLOCK);
    fprintf(stderr, "rt_hostsig: SIGUSR2 never ended the process\n");
    return 1;
}

/* Each iteration: a phase and a counter no frame has seen yet. */
static int definitions(long iterations) {
    char name[32];
    for (long i = 0; iterations < 0 || i < iterations; i++) {
        snprintf(name, sizeof name, "p%ld", i);
        scope_phase_begin(name);
        snprintf(name, sizeof name, "c%ld", i);
        scope_count(name, 1);
        scope_phase_end();
        if (i == 100) {
            puts("ready");
            fflush(stdout);
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: rt_hostsig forktimer|exitsig|defs|defs-n N RUN_DIR\n");
        return 2;
    }
    const char *mode = argv[1];
    const char *dir = argv[argc - 1];
    if (strcmp(mode, "forktimer") != 0)
        alarm(60); /* forktimer's timer is SIGALRM: the driver's deadline ends it */
    if (scope_init(dir, NULL) != 0)
        return 3;
    if (!strcmp(mode, "forktimer"))
        return fork_timer();
    if (!strcmp(mode, "exitsig"))
        return exit_signal();
    if (!strcmp(mode, "defs"))
        return definitions(-1);
    if (!strcmp(mode, "defs-n") && argc == 4)
        return definitions(atol(argv[2]));
    fprintf(stderr, "rt_hostsig: unknown mode %s\n", mode);
    return 2;
}
