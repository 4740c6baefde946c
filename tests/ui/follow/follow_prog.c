/*
 * A real recording program for the browser to follow (test_follow.sh):
 *
 *   follow_prog RUN SYNC ROUNDS
 *
 * Round r (1..ROUNDS) records 10 entries of the phase "step", flushes
 * (the frame is on disk when scope_flush returns), creates SYNC/flushed-r,
 * then waits until SYNC/scope-phases-r.txt exists (the test's headless
 * browser, run in SYNC, saved its r-th screen with P).
 * Then it shuts down and creates SYNC/done.  So the browser sees 10, 20,
 * 30 ... entries, one round per refresh.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int touch(const char *dir, const char *name, int round) {
    char path[4096];
    snprintf(path, sizeof path, round ? "%s/%s-%d" : "%s/%s", dir, name, round);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* Waits for SYNC/scope-phases-round.txt, at most a minute. */
static int await(const char *dir, int round) {
    char path[4096];
    snprintf(path, sizeof path, "%s/scope-phases-%d.txt", dir, round);
    for (int i = 0; i < 6000; i++) {
        if (access(path, F_OK) == 0)
            return 0;
        struct timespec ts = {0, 10000000L};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "follow_prog: %s never appeared\n", path);
    return -1;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: follow_prog RUN SYNC ROUNDS\n");
        return 2;
    }
    int rounds = atoi(argv[3]);
    if (scope_init(argv[1], "follower") != 0)
        return 1;
    for (int r = 1; r <= rounds; r++) {
        for (int i = 0; i < 10; i++)
            SCOPE_PHASE("step") {
                struct timespec ts = {0, 1000000L};
                nanosleep(&ts, NULL);
            }
        if (scope_flush() != 0 || touch(argv[2], "flushed", r) < 0 || await(argv[2], r) < 0)
            return 1;
    }
    scope_shutdown();
    return touch(argv[2], "done", 0) < 0;
}
