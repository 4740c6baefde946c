/*
 * The recorder's own descriptors (own_fd.h).
 */
#define _GNU_SOURCE
#include "own_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kernel's table grows to cover the highest descriptor: 1024 slots
 * keep it at 8 KiB whatever the limit (a container's may be 2^20). */
#define CEILING_CAP 1024
/* How far below the ceiling a descriptor goes when the top slot is taken. */
#define BAND 64

static int ceiling(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur > CEILING_CAP)
        return CEILING_CAP;
    return (int)rl.rlim_cur;
}

/* fd moved into [floor, top), or fd itself when that gains nothing or no
 * number there is free. */
static int move_up(int fd, int floor, int top) {
    if (floor <= fd)
        return fd;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (high < 0)
        return fd; /* EMFILE: every number from floor up to the limit is taken */
    if (high >= top) {
        close(high); /* past the ceiling: the limit is higher, the table would grow */
        return fd;
    }
    close(fd);
    return high;
}

int rec_fd_take(rec_fd *o, int fd) {
    int top = ceiling();
    int moved = move_up(fd, top - 1, top);
    if (moved == fd) {
        int band = top - BAND > top / 2 ? top - BAND : top / 2;
        moved = move_up(fd, band, top);
    }
    struct stat st;
    if (fstat(moved, &st) != 0) {
        close(moved);
        *o = REC_FD_NONE;
        return -1;
    }
    *o = (rec_fd){moved, st.st_dev, st.st_ino};
    return moved;
}

int rec_fd_open(rec_fd *o, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *o = REC_FD_NONE;
        return -1;
    }
    return rec_fd_take(o, fd);
}

int rec_fd_check(rec_fd *o) {
    struct stat st;
    if (o->fd < 0)
        return 0;
    if (fstat(o->fd, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino)
        return 1;
    o->fd = -1;
    return 0;
}

int rec_fd_retake(rec_fd *o, int fd) {
    rec_fd again;
    if (rec_fd_take(&again, fd) < 0)
        return -1;
    if (again.dev != o->dev || again.ino != o->ino) {
        close(again.fd);
        return -1;
    }
    *o = again;
    return o->fd;
}

void rec_fd_close(rec_fd *o) {
    if (rec_fd_check(o))
        close(o->fd);
    *o = REC_FD_NONE;
}
