/*
 * The descriptors the recorder keeps open, held so that the program's own
 * never meet them, and checked before each use.
 *
 * A program may close every descriptor it did not open (close_range,
 * closefrom, a loop up to the limit) or dup2() its own file over them:
 * daemons, sandboxes and exec-hygiene code do.  The number the recorder
 * held then names the program's file, or nothing, and a write through it
 * would land in the program's file.  So every descriptor the recorder
 * keeps is
 *
 *   - moved high when it is taken (F_DUPFD_CLOEXEC): to the top slot below
 *     the ceiling, min(RLIMIT_NOFILE's soft limit, 1024), when it is free,
 *     else to the lowest free slot of the 64 below the ceiling (never
 *     lower than half the ceiling), else left where open() put it.  The
 *     program's own opens take the lowest free numbers, so they meet the
 *     recorder's only once the program holds nearly all it may; 1024
 *     bounds the kernel's descriptor table (8 KiB, which fork copies)
 *     however high the limit.
 *   - checked before each use: its device and inode (fstat) must still be
 *     the file's it was taken on.  One system call, on the writer thread
 *     before each frame or on an I/O phase's boundary, never on the path
 *     of an ordinary phase.
 *   - closed only while the check says it is still the recorder's: a
 *     number the program reused is forgotten, never closed.
 *
 * A check cannot close the window between itself and the use that follows
 * it (one system call): a program that replaces the descriptor from
 * another thread in that window is not caught.
 */
#ifndef SCOPE_REC_OWN_FD_H
#define SCOPE_REC_OWN_FD_H

#include <sys/types.h>

typedef struct rec_fd {
    int fd;    /* -1: none */
    dev_t dev; /* the file it was taken on */
    ino_t ino;
} rec_fd;

#define REC_FD_NONE ((rec_fd){-1, 0, 0})

/* Takes fd, which the recorder has just opened, as its own: moves it high
 * and notes its file.  Returns the number it now has, or -1 (fd closed)
 * when it cannot be examined. */
int rec_fd_take(rec_fd *o, int fd);

/* Opens path read-only for the recorder and takes it; -1 (errno set) when
 * it cannot be opened. */
int rec_fd_open(rec_fd *o, const char *path);

/* Whether o still names the file it was taken on: 1, or 0 when the program
 * closed it or put another file in its place; the number is then
 * forgotten (not closed): o holds none, but still knows its file.  0 too
 * when it holds none. */
int rec_fd_check(rec_fd *o);

/* Takes fd, opened again on the file o lost, in its place: its number,
 * or -1 (fd closed) when fd is open on another file. */
int rec_fd_retake(rec_fd *o, int fd);

/* Closes o when it is still the recorder's, forgets it either way. */
void rec_fd_close(rec_fd *o);

#endif
