/* open_regular: regular files only, looked at before they are opened; see
 * open_regular.h. */
#define _GNU_SOURCE /* O_PATH */
#include "open_regular.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define READ_FLAGS (O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)

static int same_file(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The regular file pinned by the O_PATH descriptor path_fd, opened for
 * reading: through /proc/self/fd, else (no /proc) by name, checked to be
 * the same file.  -1 when it cannot be. */
static int reopen(int path_fd, const char *path, const struct stat *want) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", path_fd);
    int fd = open(proc, READ_FLAGS);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
        fd = open(path, READ_FLAGS);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !same_file(&st, want))) {
        close(fd);
        errno = ESTALE;
        fd = -1;
    }
    return fd;
}

enum open_regular open_regular(const char *path, uint64_t max_bytes, int *fd, struct stat *st) {
    *fd = -1;
    if (stat(path, st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? OPEN_REGULAR_MISSING : OPEN_REGULAR_UNREADABLE;
    if (!S_ISREG(st->st_mode))
        return OPEN_REGULAR_NOT_REGULAR;
    if ((uint64_t)st->st_size > max_bytes)
        return OPEN_REGULAR_TOO_LARGE;
    int path_fd = open(path, O_PATH | O_CLOEXEC);
    if (path_fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? OPEN_REGULAR_MISSING : OPEN_REGULAR_UNREADABLE;
    struct stat pinned;
    enum open_regular r = OPEN_REGULAR_OK;
    if (fstat(path_fd, &pinned) != 0)
        r = OPEN_REGULAR_UNREADABLE;
    else if (!S_ISREG(pinned.st_mode) || !same_file(&pinned, st) ||
             (uint64_t)pinned.st_size > max_bytes)
        r = OPEN_REGULAR_CHANGED;
    else if ((*fd = reopen(path_fd, path, &pinned)) < 0)
        r = errno == ESTALE ? OPEN_REGULAR_CHANGED : OPEN_REGULAR_UNREADABLE;
    else
        *st = pinned;
    close(path_fd);
    return r;
}

const char *open_regular_kind(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a named pipe (FIFO)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a file";
}

const char *open_regular_why(enum open_regular r, const struct stat *st, char *buf, size_t cap) {
    switch (r) {
    case OPEN_REGULAR_OK:
        snprintf(buf, cap, "read");
        break;
    case OPEN_REGULAR_MISSING:
        snprintf(buf, cap, "no such file");
        break;
    case OPEN_REGULAR_UNREADABLE:
        snprintf(buf, cap, "cannot be opened");
        break;
    case OPEN_REGULAR_NOT_REGULAR:
        snprintf(buf, cap, "not a regular file (%s)", open_regular_kind(st->st_mode));
        break;
    case OPEN_REGULAR_TOO_LARGE:
        snprintf(buf, cap, "too large (%llu bytes)", (unsigned long long)st->st_size);
        break;
    case OPEN_REGULAR_CHANGED:
        snprintf(buf, cap, "replaced while being opened");
        break;
    }
    return buf;
}
