/*
 * For a test program that records: its own log's size, and a wait for that
 * log to grow, so that it can go on once the recorder has written a frame
 * (an event) rather than after a length of time, which a loaded machine
 * stretches.  The writer puts each frame out in one write(2), so a log
 * that grew past a size holds at least one frame more than it did.
 *
 * Header-only: the programs that use it link libscope and nothing else.
 */
#ifndef SCOPE_TESTS_OWN_LOG_H
#define SCOPE_TESTS_OWN_LOG_H

#include <glob.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* The size of this process's log in the run directory RUN, or -1 when it is
 * not there (or not alone). */
static inline long long own_log_size(const char *run) {
    char pattern[4200];
    snprintf(pattern, sizeof pattern, "%s/workers/*/w_*_%d_*.scope", run, (int)getpid());
    glob_t g;
    long long size = -1;
    struct stat st;
    if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1 && stat(g.gl_pathv[0], &st) == 0)
        size = st.st_size;
    globfree(&g);
    return size;
}

/* Waits for this process's log in RUN to grow past `size` bytes and returns
 * its new size; -1, with a line on stderr, when it is not there or does not
 * grow within ten minutes (a bound no machine needs, only a recorder that
 * stopped writing). */
static inline long long own_log_grown_past(const char *run, long long size) {
    for (int ms = 0; size >= 0 && ms < 600000; ms++) {
        long long now = own_log_size(run);
        if (now > size)
            return now;
        usleep(1000);
    }
    fprintf(stderr, "own_log: the log in %s %s\n", run,
            size < 0 ? "is not there" : "did not grow in 10 minutes");
    return -1;
}

#endif
