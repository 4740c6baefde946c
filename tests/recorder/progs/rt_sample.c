/* The resource sampler against known bytes.  Usage:
 *   rt_sample RUN_DIR DISK_DIR MODE     (run with a short SCOPE_SAMPLE_INTERVAL)
 *
 * MODE threads: thread rt-s-writer writes RT_S_PHASE bytes inside the
 *   plain phase "write_phase", well inside it (intervals start with it
 *   open), then RT_S_LOOSE bytes with no phase open; thread rt-s-reader
 *   reads RT_S_READ bytes of a cached file inside "read_phase".  Then
 *   scope_flush() while both still run, and exit.  Nothing else in the
 *   program reads or writes after scope_init.  Where an interval must
 *   start (or end) between two steps, a flush's sample makes sure one
 *   does, whatever the load (sampled_after).
 * MODE dropped: thread rt-s-nofd sets RLIMIT_NOFILE to 0 for several
 *   intervals, so no thread's counters can be opened, writes
 *   RT_S_PHASE bytes in the middle of that window, then, with descriptors
 *   again, RT_S_MARK bytes.
 * MODE sigterm: writes RT_S_PHASE bytes in "work", prints "ready" and
 *   sleeps until a signal ends it.
 * MODE fork: writes RT_S_LOOSE bytes, forks; the child writes RT_S_PHASE
 *   bytes in "child_work" and exits; the parent waits for it. */
#define _GNU_SOURCE
#include "rt_common.h"
#include "rt_files.h"

#include <scope/scope.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *disk_dir;
static double interval_s;

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Several intervals asleep, for the writer's own samples to land among. */
#define SETTLE 20

static void intervals(int n) {
    sleep_s(n * interval_s);
}

/* n intervals asleep, then a sample for certain: a flush takes one before
 * its frame and returns once that frame is written.  The bytes moved next
 * are then in an interval that starts after this point (what a phase's
 * bytes are attributed to is the phase open when an interval starts), on
 * any machine: the writer's own samples, every interval, are not
 * guaranteed to come while a loaded machine keeps it off its CPU. */
static void sampled_after(int n) {
    intervals(n);
    if (scope_flush() != 0)
        rt_die("scope_flush");
}

/* ---- threads ------------------------------------------------------------------ */

static pthread_barrier_t done, flushed;

static void *writer(void *arg) {
    (void)arg;
    prctl(PR_SET_NAME, "rt-s-writer"); /* pthread_setname_np would write to /proc */
    int fd = rt_open_in(disk_dir, "written", O_WRONLY | O_CREAT | O_TRUNC);
    SCOPE_PHASE("write_phase") {
        sampled_after(SETTLE);
        rt_write_n(fd, RT_S_PHASE);
        if (fsync(fd) != 0)
            rt_die("fsync");
        sampled_after(SETTLE);
    }
    sampled_after(SETTLE);
    rt_write_n(fd, RT_S_LOOSE);
    if (fsync(fd) != 0)
        rt_die("fsync");
    close(fd);
    pthread_barrier_wait(&done);
    pthread_barrier_wait(&flushed);
    return NULL;
}

static void *reader(void *arg) {
    int fd = *(int *)arg;
    prctl(PR_SET_NAME, "rt-s-reader");
    SCOPE_PHASE("read_phase") {
        sampled_after(SETTLE);
        rt_read_n(fd, RT_S_READ);
        sampled_after(SETTLE);
    }
    pthread_barrier_wait(&done);
    pthread_barrier_wait(&flushed);
    return NULL;
}

static int threads(const char *run) {
    /* Written and cached before recording starts. */
    int fd = rt_open_in(disk_dir, "cached", O_RDWR | O_CREAT | O_TRUNC);
    rt_write_n(fd, RT_S_READ);
    lseek(fd, 0, SEEK_SET);
    if (scope_init(run, "sample") != 0)
        return 3;
    pthread_barrier_init(&done, NULL, 3);
    pthread_barrier_init(&flushed, NULL, 3);
    pthread_t a, b;
    if (pthread_create(&a, NULL, writer, NULL) != 0 || pthread_create(&b, NULL, reader, &fd) != 0)
        rt_die("pthread_create");
    pthread_barrier_wait(&done);
    if (scope_flush() != 0)
        rt_die("scope_flush");
    pthread_barrier_wait(&flushed);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}

/* ---- dropped intervals -------------------------------------------------------- */

static void *no_fd(void *arg) {
    (void)arg;
    prctl(PR_SET_NAME, "rt-s-nofd");
    int fd = rt_open_in(disk_dir, "dropped", O_WRONLY | O_CREAT | O_TRUNC);
    SCOPE_PHASE("attach") {}
    sampled_after(3);
    /* No new descriptor at all, whatever other threads close meanwhile;
     * the open ones still work.  Two samples for certain in the window, so
     * at least two intervals dropped, and one after it before the last
     * bytes, their interval's start. */
    struct rlimit old, low;
    if (getrlimit(RLIMIT_NOFILE, &old) != 0)
        rt_die("getrlimit");
    low = old;
    low.rlim_cur = 0;
    if (setrlimit(RLIMIT_NOFILE, &low) != 0)
        rt_die("setrlimit");
    sampled_after(4);
    rt_write_n(fd, RT_S_PHASE);
    sampled_after(4);
    setrlimit(RLIMIT_NOFILE, &old);
    sampled_after(3);
    rt_write_n(fd, RT_S_MARK);
    /* A thread that exits between two samples loses its last partial
     * interval: one more sample before it does. */
    sampled_after(3);
    close(fd);
    return NULL;
}

static int dropped(const char *run) {
    if (scope_init(run, "sample") != 0)
        return 3;
    pthread_t t;
    if (pthread_create(&t, NULL, no_fd, NULL) != 0)
        rt_die("pthread_create");
    pthread_join(t, NULL);
    return 0;
}

/* ---- a signal, a fork ---------------------------------------------------------- */

static int sigterm(const char *run) {
    if (scope_init(run, "sample") != 0)
        return 3;
    int fd = rt_open_in(disk_dir, "signalled", O_WRONLY | O_CREAT | O_TRUNC);
    SCOPE_PHASE("work") {
        rt_write_n(fd, RT_S_PHASE);
    }
    static const char ready[] = "ready\n";
    if (write(1, ready, sizeof ready - 1) < 0)
        rt_die("write ready");
    for (;;)
        pause();
}

static int forked(const char *run) {
    if (scope_init(run, "sample") != 0)
        return 3;
    int fd = rt_open_in(disk_dir, "parent", O_WRONLY | O_CREAT | O_TRUNC);
    SCOPE_PHASE("parent_work") {
        rt_write_n(fd, RT_S_LOOSE);
    }
    /* Its bytes in an interval of their own, before the one in which it
     * reaps the child (whose I/O figures are left unmeasured). */
    sampled_after(2);
    pid_t pid = fork();
    if (pid < 0)
        rt_die("fork");
    if (pid == 0) {
        int cfd = rt_open_in(disk_dir, "child", O_WRONLY | O_CREAT | O_TRUNC);
        intervals(2);
        SCOPE_PHASE("child_work") {
            rt_write_n(cfd, RT_S_PHASE);
        }
        intervals(2);
        exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        rt_die("child");
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4)
        return 2;
    disk_dir = argv[2];
    const char *iv = getenv("SCOPE_SAMPLE_INTERVAL");
    interval_s = iv ? atof(iv) : 1.0;
    memset(rt_buf, 's', sizeof rt_buf);
    if (!strcmp(argv[3], "threads"))
        return threads(argv[1]);
    if (!strcmp(argv[3], "dropped"))
        return dropped(argv[1]);
    if (!strcmp(argv[3], "sigterm"))
        return sigterm(argv[1]);
    if (!strcmp(argv[3], "fork"))
        return forked(argv[1]);
    return 2;
}
