/*
 * Resource figures on both sides of a snapshot (tests/analysis/
 * test_res_snapshot.c): a process that writes known bytes in a phase,
 * flushes, then writes and reads more in another.
 *
 *   an_series RUN FILE:
 *     write_a { 40 x (32 KiB to FILE, 5 ms) }  scope_flush()
 *     write_b { 40 x (64 KiB to FILE, 5 ms) }  read_b { FILE read back }
 *
 * Run with a short SCOPE_SAMPLE_INTERVAL, so that each half spans many
 * intervals.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms) {
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static int write_chunks(int fd, size_t size, int n) {
    static char buf[64 * 1024];
    memset(buf, 'x', sizeof buf);
    for (int i = 0; i < n; i++) {
        if (write(fd, buf, size) != (ssize_t)size)
            return -1;
        sleep_ms(5);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: an_series RUN FILE\n");
        return 2;
    }
    if (scope_init(argv[1], "series") != 0)
        return 1;
    int rc = 0;
    int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return 1;
    SCOPE_PHASE("write_a") {
        rc |= write_chunks(fd, 32 * 1024, 40);
    }
    rc |= scope_flush();
    SCOPE_PHASE("write_b") {
        rc |= write_chunks(fd, 64 * 1024, 40);
    }
    SCOPE_PHASE("read_b") {
        char buf[65536];
        ssize_t k;
        if (lseek(fd, 0, SEEK_SET) != 0)
            rc = 1;
        while ((k = read(fd, buf, sizeof buf)) > 0)
            sleep_ms(1);
    }
    close(fd);
    scope_shutdown();
    return rc ? 1 : 0;
}
