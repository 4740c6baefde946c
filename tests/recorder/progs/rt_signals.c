/* Targets for signals sent by the driver.
 *
 * usage: rt_signals MODE RUN_DIR
 *   wait     RT_SIG_ITERS entries of "work" (each with "inner" inside and
 *            items += 3), print "ready", then wait to be signalled
 *   handler  the same, with the program's own SIGUSR1 handler installed
 *            before scope_init; after it ran, print "handled", make
 *            RT_SIG_MORE more entries and exit 0
 *   spin     enter "work" forever (items += 3 each), printing "ready" after
 *            the first; for SIGKILL
 *   early    one entry of "work" right after scope_init, print "ready" and
 *            wait: a signal that comes while the recorder is starting
 * Every mode ends itself after a minute, so a driver that failed before
 * sending its signal leaves nothing behind. */
#define _GNU_SOURCE
#include "rt_common.h"

#include <scope/scope.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static volatile uint64_t sink;

static void on_usr1(int sig) {
    (void)sig;
    handled = 1;
}

static void work(int n) {
    for (int i = 0; i < n; i++) {
        SCOPE_PHASE("work") {
            SCOPE_PHASE("inner") {
                sink += (uint64_t)i;
            }
            SCOPE_COUNT("items", 3);
        }
    }
}

static void say(const char *line) {
    fputs(line, stdout);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: rt_signals wait|handler|spin|early RUN_DIR\n");
        return 2;
    }
    const char *mode = argv[1];
    alarm(60);
    if (!strcmp(mode, "handler")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr1;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, NULL);
    }
    if (scope_init(argv[2], "signals") != 0)
        return 3;
    if (!strcmp(mode, "early")) {
        work(1);
        say("ready\n");
        for (;;)
            pause();
    }
    if (!strcmp(mode, "spin")) {
        work(1);
        say("ready\n");
        for (;;)
            work(1);
    }
    work(RT_SIG_ITERS);
    if (!strcmp(mode, "wait")) {
        say("ready\n");
        for (;;)
            pause();
    }
    if (strcmp(mode, "handler") != 0)
        return 2;
    /* Blocked until sigsuspend, so a signal that comes right after "ready"
     * cannot slip in between the flag test and the wait. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, &old);
    say("ready\n");
    while (!handled)
        sigsuspend(&old);
    sigprocmask(SIG_SETMASK, &old, NULL);
    say("handled\n");
    work(RT_SIG_MORE);
    return 0;
}
