/* Moving a known number of bytes through real files, for the test
 * programs whose I/O the recorder measures (rt_io, rt_sample).  Any
 * failure ends the program with status 4 and the reason on stderr. */
#ifndef SCOPE_TESTS_RT_FILES_H
#define SCOPE_TESTS_RT_FILES_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each thread's own: the bytes' content does not matter, but threads that
 * shared one buffer would race on it. */
static __thread char rt_buf[1 << 16];

static inline void rt_die(const char *what) {
    perror(what);
    exit(4);
}

static inline int rt_open_in(const char *dir, const char *name, int flags) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, flags | O_CLOEXEC, 0644);
    if (fd < 0)
        rt_die(path);
    return fd;
}

/* Exactly n bytes, through as many calls as it takes. */
static inline void rt_move_n(int fd, size_t n, int writing) {
    while (n) {
        size_t k = n < sizeof rt_buf ? n : sizeof rt_buf;
        ssize_t m = writing ? write(fd, rt_buf, k) : read(fd, rt_buf, k);
        if (m <= 0)
            rt_die(writing ? "write" : "read");
        n -= (size_t)m;
    }
}

static inline void rt_write_n(int fd, size_t n) {
    rt_move_n(fd, n, 1);
}

static inline void rt_read_n(int fd, size_t n) {
    rt_move_n(fd, n, 0);
}

#endif
