/*
 * reduce_scratch: the scratch files of reduce_run.c's parts, removed when
 * a stop signal ends the rank (reduce_scratch.h).
 */
#define _GNU_SOURCE /* mkdtemp, O_CLOEXEC */
#include "reduce_scratch.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const int stop_signals[] = {SIGTERM, SIGINT, SIGHUP};
#define NSTOP (sizeof stop_signals / sizeof *stop_signals)

/* The scratch file and folder while they exist, for the handler: set and
 * cleared with the stop signals blocked.  A launcher ends the other ranks
 * of a failed job with SIGTERM; a SIGKILL leaves the folder behind. */
static const char *volatile scratch_file, *volatile scratch_dir;

static void remove_scratch_and_stop(int sig) {
    if (scratch_file)
        unlink(scratch_file);
    if (scratch_dir)
        rmdir(scratch_dir);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void block_stops(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < NSTOP; i++)
        sigaddset(&set, stop_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

int scratch_open(char *dir, size_t dircap, char *file, size_t filecap) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/')
        tmp = "/tmp";
    snprintf(dir, dircap, "%s/scope-reduce-XXXXXX", tmp);
    sigset_t old;
    block_stops(&old);
    int fd = -1;
    if (mkdtemp(dir)) {
        snprintf(file, filecap, "%s/part.h5", dir);
        fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
            rmdir(dir);
        else {
            scratch_dir = dir;
            scratch_file = file;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return fd;
}

void scratch_close(int fd, const char *dir, const char *file) {
    if (fd < 0)
        return;
    sigset_t old;
    block_stops(&old);
    close(fd);
    unlink(file);
    rmdir(dir);
    scratch_file = scratch_dir = NULL;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Handles the stop signals that are not ignored, for the scratch files. */
void guard_scratch(void) {
    struct sigaction sa = {.sa_handler = remove_scratch_and_stop};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSTOP; i++)
        sigaddset(&sa.sa_mask, stop_signals[i]);
    for (size_t i = 0; i < NSTOP; i++) {
        struct sigaction old;
        sigaction(stop_signals[i], NULL, &old);
        if (old.sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
    }
}
