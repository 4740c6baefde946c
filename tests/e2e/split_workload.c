/*
 * A program that writes known bytes inside and outside phases at a steady
 * pace, for the sampled I/O shares by phase (test_io_split.sh):
 *
 *   split_workload RUN DIR     (DIR on a block device, not tmpfs)
 *
 * One process of role "split", one thread, writing SPLIT_CHUNK bytes at a
 * time, each fsync'd and followed by a SPLIT_PAUSE_MS pause, so that its
 * time goes with its bytes:
 *   2 chunks outside every phase, 33 in "load", 2 outside, 22 in "train"
 *   and 11 in "train/save" (a phase inside it), which first forks a child
 *   that exits at once and reaps it; then 8 in "train/checkpoint"
 *   (SCOPE_PHASE_IO) at a quarter of that pace, so that its share of the
 *   time is no guide to its bytes, over 1.3 s, so that it is open at a
 *   sample at least once, and the interval it starts in holds "save"'s
 *   bytes too.
 * 78 chunks in all, 4 of them outside any phase: the sampler's intervals
 * (1 s) each span several of these stretches.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPLIT_CHUNK    (1u << 20)
#define SPLIT_PAUSE_MS 40

static char buf[SPLIT_CHUNK];

static void chunks_paced(int fd, int n, long pause_ms) {
    for (int i = 0; i < n; i++) {
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf || fsync(fd) != 0) {
            perror("write");
            exit(4);
        }
        nanosleep(&(struct timespec){0, pause_ms * 1000000L}, NULL);
    }
}

static void chunks(int fd, int n) {
    chunks_paced(fd, n, SPLIT_PAUSE_MS);
}

/* A child that exits at once, reaped: the kernel adds a reaped child's I/O
 * to its parent's, so the sampler leaves the process's I/O of that
 * interval unmeasured, while the thread's own record still counts the
 * chunks written in it. */
static void reap_a_child(void) {
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(4);
    }
    if (pid == 0)
        _exit(0);
    if (waitpid(pid, NULL, 0) != pid) {
        perror("waitpid");
        exit(4);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fputs("usage: split_workload RUN DIR\n", stderr);
        return 2;
    }
    memset(buf, 'x', sizeof buf);
    scope_init(argv[1], "split");
    char path[4200];
    snprintf(path, sizeof path, "%s/out", argv[2]);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        perror(path);
        return 4;
    }
    chunks(fd, 2);
    SCOPE_PHASE("load") {
        chunks(fd, 33);
    }
    chunks(fd, 2);
    SCOPE_PHASE("train") {
        chunks(fd, 22);
        SCOPE_PHASE("save") {
            reap_a_child();
            chunks(fd, 11);
        }
        /* Slow and open across a sample: its time is no guide to its
         * bytes, its exact figure is, counted so far at each sample. */
        SCOPE_PHASE_IO("checkpoint") {
            chunks_paced(fd, 8, 4 * SPLIT_PAUSE_MS);
        }
    }
    close(fd);
    return 0;
}
