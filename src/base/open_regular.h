/*
 * Opening a file whose name came from input (a log's module paths, a debug
 * file's name from a module's .gnu_debuglink, a source file named by debug
 * info) only when it is a regular file.
 *
 * Its type is looked at before anything opens it (stat), so a named pipe,
 * a device or a socket is never opened: opening a FIFO for reading waits
 * for a writer, a device's open can act (a tape rewinds, a watchdog
 * starts), and one that reads forever exhausts the reader.  What is then
 * opened is pinned first (O_PATH, which opens nothing for I/O) and checked
 * again, and read through /proc/self/fd (the same inode, not the name
 * again), so a name swapped meanwhile cannot bring a device in; without
 * /proc, the file opened by name must be the one examined.  Reading never
 * waits (O_NONBLOCK) and never takes a terminal (O_NOCTTY).  Symbolic links
 * are followed: module paths are system paths, full of them (/lib,
 * libfoo.so.1), and what they lead to must be a regular file all the same.
 */
#ifndef SCOPE_OPEN_REGULAR_H
#define SCOPE_OPEN_REGULAR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

enum open_regular {
    OPEN_REGULAR_OK = 0,
    OPEN_REGULAR_MISSING,     /* no such file */
    OPEN_REGULAR_UNREADABLE,  /* there, but it cannot be examined or opened */
    OPEN_REGULAR_NOT_REGULAR, /* a directory, FIFO, device or socket: not opened */
    OPEN_REGULAR_TOO_LARGE,   /* larger than max_bytes: not opened */
    OPEN_REGULAR_CHANGED,     /* replaced between being examined and opened */
};

/* Opens path read-only (close-on-exec) when it is a regular file of at
 * most max_bytes: OPEN_REGULAR_OK with *fd set and *st describing it, or
 * why not (*st is then what was seen, when anything was). */
enum open_regular open_regular(const char *path, uint64_t max_bytes, int *fd, struct stat *st);

/* What a file of this mode is, when it is not a regular file: "a named pipe
 * (FIFO)", "a character device", ... */
const char *open_regular_kind(mode_t mode);

/* A phrase for a refusal ("not a regular file (a named pipe (FIFO))", "no
 * such file", ...) into buf; returns buf. */
const char *open_regular_why(enum open_regular r, const struct stat *st, char *buf, size_t cap);

#endif
