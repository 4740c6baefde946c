/*
 * A program that moves known bytes under known phases, for the report's
 * I/O figures (test_report_io.sh):
 *
 *   io_workload RUN DIR     (DIR on a block device, not tmpfs)
 *
 * One process of role "io":
 *   checkpoint  (SCOPE_PHASE_IO) writes IO_CKPT bytes to DIR/ckpt and
 *               fsyncs them: IO_CKPT reach the disk;
 *   cold_read   (SCOPE_PHASE_IO) reads IO_DATA bytes of DIR/data after
 *               they were dropped from the page cache: all from the disk;
 *   warm_read   (SCOPE_PHASE_IO) reads them again: all from the cache;
 *   spill       (a plain phase) writes IO_SPILL_EACH bytes to DIR/spill
 *               every 100 ms, IO_SPILL_TIMES times (about 3 s), so that the
 *               1 Hz sampler sees them under it, between two flushes whose
 *               samples put all of them under it (and a third just
 *               before it opens, which keeps the bytes before it off it).
 * Nothing else reads or writes a file, so the run's sampled bytes are these.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IO_CKPT        (4u << 20)
#define IO_DATA        (2u << 20)
#define IO_SPILL_EACH  (256u << 10)
#define IO_SPILL_TIMES 30

static char buf[1 << 16];

static void die(const char *what) {
    perror(what);
    exit(4);
}

static int open_in(const char *dir, const char *name, int flags) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, flags | O_CLOEXEC, 0644);
    if (fd < 0)
        die(path);
    return fd;
}

static void write_n(int fd, size_t n) {
    while (n) {
        size_t k = n < sizeof buf ? n : sizeof buf;
        ssize_t w = write(fd, buf, k);
        if (w <= 0)
            die("write");
        n -= (size_t)w;
    }
}

static void read_n(int fd, size_t n) {
    while (n) {
        size_t k = n < sizeof buf ? n : sizeof buf;
        ssize_t r = read(fd, buf, k);
        if (r <= 0)
            die("read");
        n -= (size_t)r;
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fputs("usage: io_workload RUN DIR\n", stderr);
        return 2;
    }
    const char *dir = argv[2];
    memset(buf, 'x', sizeof buf);
    scope_init(argv[1], "io");

    int fd = open_in(dir, "ckpt", O_WRONLY | O_CREAT | O_TRUNC);
    SCOPE_PHASE_IO("checkpoint") {
        write_n(fd, IO_CKPT);
        if (fsync(fd) != 0)
            die("fsync");
    }
    close(fd);

    fd = open_in(dir, "data", O_RDWR | O_CREAT | O_TRUNC);
    write_n(fd, IO_DATA);
    if (fsync(fd) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
        die("dropping the data from the page cache");
    lseek(fd, 0, SEEK_SET);
    SCOPE_PHASE_IO("cold_read") {
        read_n(fd, IO_DATA);
    }
    lseek(fd, 0, SEEK_SET);
    SCOPE_PHASE_IO("warm_read") {
        read_n(fd, IO_DATA);
    }
    close(fd);

    fd = open_in(dir, "spill", O_WRONLY | O_CREAT | O_TRUNC);
    /* A sample just before it opens, one as it starts and one before it
     * ends (a flush takes one and returns once written): its bytes fall in
     * intervals it was open throughout, and the bytes before it in
     * intervals that end before it opens (an interval's bytes are shared
     * over the phases open in it by their time in it), whenever a loaded
     * machine lets the 1 Hz sampler run in between. */
    scope_flush();
    SCOPE_PHASE("spill") {
        scope_flush();
        for (int i = 0; i < IO_SPILL_TIMES; i++) {
            write_n(fd, IO_SPILL_EACH);
            nanosleep(&(struct timespec){0, 100000000}, NULL);
        }
        scope_flush();
    }
    close(fd);
    return 0;
}
