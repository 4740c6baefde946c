/* A host program whose 1 kHz timer handler forks: the child _exits at once
 * and the handler reaps it.  The recorder must neither deadlock it (a fork
 * from a handler that interrupted the recorder's own allocation on the
 * same thread) nor slow it down much (fork handlers that cost more than
 * the timer's period would keep the handler running and the program still).
 *
 * usage: rt_forksig STEPS FORKS RUN_DIR
 *
 * The main thread does STEPS steps of fixed work, each inside phase "step",
 * and each entering one more phase it never entered before (a new name:
 * the recorder's first entry of a node allocates).  Meanwhile ITIMER_REAL
 * raises SIGALRM every millisecond, whose handler forks until FORKS forks
 * are done.  The program ends when both are done: a fixed amount of work,
 * however the machine is loaded.  It prints
 *
 *   forks=N failed=F wall_ms=W cpu_ms=C
 *
 * F being the children that did not exit 0 (a fork handler crashed them),
 * and C the CPU time of its main thread and of its reaped children
 * (their fork handlers run there).  Built linked with libscope (scope_init on
 * RUN_DIR; SCOPE_PROFILE=0 runs it without recording) and without it
 * (RT_PLAIN, for LD_PRELOAD), from this one file.  Ends itself after
 * RT_FORKSIG_LIMIT_S: the driver's deadline sees a hang first. */
#define _GNU_SOURCE
#include "rt_common.h"

#ifndef RT_PLAIN
#include <scope/scope.h>
#endif

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t forks, forks_wanted, children_failed;
static volatile uint64_t sink;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_alarm(int sig) {
    (void)sig;
    if (forks >= forks_wanted)
        return;
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    if (pid > 0) {
        int status;
        while (waitpid(pid, &status, 0) < 0)
            ; /* EINTR: only this handler reaps */
        forks = forks + 1;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            children_failed = children_failed + 1; /* a fork handler crashed it */
    }
}

/* A fixed stretch of arithmetic: some 50 microseconds here. */
static void spin(void) {
    for (int i = 0; i < 150000; i++)
        sink += (uint64_t)i * 2654435761u;
}

/* The CPU time of this thread, the one that works and forks, and of the
 * children it reaped, where their fork handlers ran; not the recorder's
 * writer thread's, which runs beside the program rather than in its way. */
static double cpu_ms(void) {
    struct rusage self, kids;
    getrusage(RUSAGE_THREAD, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    double s = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                        kids.ru_stime.tv_sec);
    double us = (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
                         kids.ru_stime.tv_usec);
    return s * 1e3 + us / 1e3;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: rt_forksig STEPS FORKS RUN_DIR\n");
        return 2;
    }
    long steps = atol(argv[1]);
    forks_wanted = atoi(argv[2]);
#ifndef RT_PLAIN
    if (scope_init(argv[3], "forksig") != 0)
        return 3;
#endif
    double t0 = now_s();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 1000}, {0, 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
    char name[32];
    for (long i = 0; i < steps && now_s() - t0 < RT_FORKSIG_LIMIT_S; i++) {
#ifndef RT_PLAIN
        SCOPE_PHASE("step") {
            snprintf(name, sizeof name, "first-%ld", i);
            scope_phase_begin(name);
            spin();
            scope_phase_end();
        }
#else
        snprintf(name, sizeof name, "first-%ld", i);
        spin();
#endif
    }
    /* The rest of the forks without using CPU: each tick ends a pause. */
    while (forks < forks_wanted && now_s() - t0 < RT_FORKSIG_LIMIT_S)
        pause();
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("forks=%d failed=%d wall_ms=%.0f cpu_ms=%.0f\n", (int)forks, (int)children_failed,
           (now_s() - t0) * 1e3, cpu_ms());
    return forks == forks_wanted && !children_failed ? 0 : 1;
}
