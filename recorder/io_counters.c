/*
 * Reading /proc/.../io (io_counters.h).  The file is a seq_file: a
 * descriptor kept open is re-read from offset 0 with pread, a system call
 * and a few hundred bytes of text, about a microsecond.
 */
#include "io_counters.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* The number after "key: " at the start of a line of buf, or -1. */
static int field(const char *buf, const char *key, size_t klen, uint64_t *out) {
    const char *p = buf;
    for (;;) {
        if (!strncmp(p, key, klen) && p[klen] == ':')
            break;
        p = strchr(p, '\n');
        if (!p++)
            return -1;
    }
    p += klen + 1;
    while (*p == ' ')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    uint64_t v = 0;
    while (*p >= '0' && *p <= '9')
        v = v * 10 + (uint64_t)(*p++ - '0');
    *out = v;
    return 0;
}

#define FIELD(buf, key, out) field(buf, key, sizeof key - 1, out)

long rec_io_read(int fd, rec_io_counters *out) {
    char buf[512];
    if (fd < 0)
        return -1;
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    if (FIELD(buf, "rchar", &out->rchar) < 0 || FIELD(buf, "wchar", &out->wchar) < 0 ||
        FIELD(buf, "read_bytes", &out->read_bytes) < 0 ||
        FIELD(buf, "write_bytes", &out->write_bytes) < 0)
        return -1;
    return (long)n;
}

long rec_io_read_path(const char *path, rec_io_counters *out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    long n = rec_io_read(fd, out);
    if (fd >= 0)
        close(fd);
    return n;
}
