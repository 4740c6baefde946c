/* Exact I/O phases on real files.  Usage: rt_io RUN_DIR DISK_DIR SHM_DIR
 *
 * DISK_DIR must be on a block device and SHM_DIR on tmpfs.  Each phase
 * below moves a known number of bytes; the driver (test_recorder_io.c)
 * holds the log to them:
 *   big_write   (thread rt-io-main) writes and fsyncs RT_IO_BIG bytes while
 *               thread rt-io-noise writes RT_IO_NOISE bytes of its own,
 *               which must not land on it;
 *   cold_read   reads RT_IO_FILE bytes dropped from the page cache;
 *   warm_read   reads them again, from the cache;
 *   outer/inner nested I/O phases reading RT_IO_OUTER and RT_IO_INNER;
 *   shm_write   writes RT_IO_SHM bytes to tmpfs;
 *   no_fd       (thread rt-io-nofd) runs with no descriptor to spare: its
 *               counters cannot be read, it must count as failed;
 *   after_no_fd then runs with descriptors again;
 *   first, closed, reopened (thread rt-io-closed): the program closes the
 *               recorder's descriptor of its counters between the first
 *               and the second; the recorder finds it gone before it reads
 *               and opens another, so all three are measured. */
#define _GNU_SOURCE
#include "rt_common.h"
#include "rt_files.h"

#include <scope/scope.h>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *disk_dir, *shm_dir;

/* ---- another thread's traffic during big_write -------------------------- */

static int go[2];

static void *noise(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "rt-io-noise");
    SCOPE_PHASE("noise_setup") {}
    char c;
    if (read(go[0], &c, 1) != 1)
        rt_die("read go");
    int fd = rt_open_in(disk_dir, "noise", O_WRONLY | O_CREAT | O_TRUNC);
    SCOPE_PHASE("noise") {
        rt_write_n(fd, RT_IO_NOISE);
        fsync(fd);
    }
    close(fd);
    return NULL;
}

static void big_write(void) {
    pthread_t t;
    if (pipe(go) != 0 || pthread_create(&t, NULL, noise, NULL) != 0)
        rt_die("noise thread");
    int fd = rt_open_in(disk_dir, "big", O_WRONLY | O_CREAT | O_TRUNC);
    SCOPE_PHASE_IO("big_write") {
        if (write(go[1], "x", 1) != 1)
            rt_die("write go");
        rt_write_n(fd, RT_IO_BIG);
        if (fsync(fd) != 0)
            rt_die("fsync");
        pthread_join(t, NULL); /* all of its bytes moved inside the phase */
    }
    close(fd);
}

static void reads(void) {
    int fd = rt_open_in(disk_dir, "file", O_RDWR | O_CREAT | O_TRUNC);
    rt_write_n(fd, RT_IO_FILE);
    if (fsync(fd) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
        rt_die("drop from the page cache");
    lseek(fd, 0, SEEK_SET);
    SCOPE_PHASE_IO("cold_read") {
        rt_read_n(fd, RT_IO_FILE);
    }
    lseek(fd, 0, SEEK_SET);
    SCOPE_PHASE_IO("warm_read") {
        rt_read_n(fd, RT_IO_FILE);
    }
    lseek(fd, 0, SEEK_SET);
    SCOPE_PHASE_IO("outer") {
        rt_read_n(fd, RT_IO_OUTER);
        SCOPE_PHASE_IO("inner") {
            rt_read_n(fd, RT_IO_INNER);
        }
    }
    close(fd);
    fd = rt_open_in(shm_dir, "shm", O_WRONLY | O_CREAT | O_TRUNC);
    SCOPE_PHASE_IO("shm_write") {
        rt_write_n(fd, RT_IO_SHM);
    }
    close(fd);
}

/* ---- counters that cannot be read ------------------------------------------ */

static int close_my_counters(void);

static void *no_fd(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "rt-io-nofd");
    SCOPE_PHASE("attach") {}
    /* The sampler opened the thread's counters as it attached: closed here,
     * and no descriptor to open them again with. */
    close_my_counters();
    /* No new descriptor at all, whatever other threads close meanwhile. */
    struct rlimit old, low;
    if (getrlimit(RLIMIT_NOFILE, &old) != 0)
        rt_die("getrlimit");
    low = old;
    low.rlim_cur = 0;
    if (setrlimit(RLIMIT_NOFILE, &low) != 0)
        rt_die("setrlimit");
    SCOPE_PHASE_IO("no_fd") {}
    setrlimit(RLIMIT_NOFILE, &old);
    SCOPE_PHASE_IO("after_no_fd") {}
    return NULL;
}

/* Closes this thread's /proc/PID/task/TID/io descriptor, if it has one, as
 * a program that closes every descriptor it does not know would; returns
 * how many it closed. */
static int close_my_counters(void) {
    char want[64], link[256], path[300];
    snprintf(want, sizeof want, "/task/%ld/io", (long)syscall(SYS_gettid));
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        rt_die("/proc/self/fd");
    int closed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= 0)
            continue;
        link[n] = '\0';
        size_t wl = strlen(want);
        if ((size_t)n > wl && !strcmp(link + n - wl, want)) {
            close(atoi(e->d_name));
            closed++;
        }
    }
    closedir(d);
    return closed;
}

static void *closed(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "rt-io-closed");
    SCOPE_PHASE_IO("first") {}
    if (close_my_counters() != 1)
        rt_die("no descriptor of this thread's counters to close");
    SCOPE_PHASE_IO("closed") {}
    SCOPE_PHASE_IO("reopened") {}
    return NULL;
}

static void in_thread(void *(*fn)(void *)) {
    pthread_t t;
    if (pthread_create(&t, NULL, fn, NULL) != 0)
        rt_die("pthread_create");
    pthread_join(t, NULL);
}

int main(int argc, char **argv) {
    if (argc != 4)
        return 2;
    disk_dir = argv[2];
    shm_dir = argv[3];
    memset(rt_buf, 'x', sizeof rt_buf);
    pthread_setname_np(pthread_self(), "rt-io-main");
    if (scope_init(argv[1], "io") != 0)
        return 3;
    big_write();
    reads();
    in_thread(no_fd);
    in_thread(closed);
    return 0;
}
