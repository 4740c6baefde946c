/* A program that takes its descriptors back from whatever library holds
 * them, as daemons, sandboxes and exec-hygiene code do.
 *
 * Usage: rt_fds MODE OUTDIR [RUN_DIR]
 *
 * Built twice: rt_fds, linked with libscope, records into RUN_DIR when one
 * is given (scope_init); rt_fds_plain (RT_FDS_PLAIN) knows nothing of
 * libscope and records only when it is preloaded with SCOPE_PROFILE=1.
 *
 * MODE close_range, closefrom or dup2: enters "before" RT_FDS_BEFORE times
 * (and an I/O phase, so its thread holds the descriptor of its counters),
 * waits for a frame, then
 *   close_range  closes every descriptor from 3 up (close_range(2)),
 *   closefrom    the same with a loop of close() up to the descriptor limit,
 *   dup2         opens OUTDIR/f0 and dup2()s it over every other
 *                descriptor from 3 up,
 * opens OUTDIR/f0..f(RT_FDS_FILES-1) and for RT_FDS_STEPS steps, RT_FDS_STEP_MS
 * apart, enters "after" and writes one RT_FDS_LINE into each.  It returns
 * from main with them all open, so the recorder's exit flush runs while the
 * numbers it once held name the program's files.  A destructor, which runs
 * after the recorder's exit handler, checks that each of the program's
 * descriptors still names the file it opened (exit status 5 otherwise).
 *
 * RT_FDS_THEN=unlink (linked, with a RUN_DIR) removes the logs in
 * RUN_DIR/workers/ right after it took its descriptors back: the recorder
 * cannot find its log again.  RT_FDS_THEN=squeeze lowers its descriptor
 * limit to what it holds for the first half of the steps, and asks for a
 * frame then: the recorder cannot open its log again until the second
 * half.
 *
 * With RT_FDS_LIBM=SECONDS in its environment it also spends that much CPU
 * time in libm's exp() (code without unwind information, whose stacks a
 * line sampler's unwinder must check addresses for) before it takes its
 * descriptors back and again after.
 *
 * MODE count: prints "held N:" and the descriptors from 3 up that it did
 * not open itself (the recorder's, once it has written a frame), then tries
 * to open RT_FDS_TRIES files in OUTDIR and prints "opened K of
 * RT_FDS_TRIES".  Run under ulimit -n RT_FDS_LIMIT, K shows how many
 * descriptors the recorder keeps.  An open refused with EMFILE is tried
 * again for up to a second: the recorder may hold one more for the few
 * microseconds a sample of /proc takes, which is not what is counted.
 * After the first open refused that long, the others are tried once. */
#define _GNU_SOURCE
#include "rt_common.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef RT_FDS_PLAIN
#define RT_PHASE(name)    if (1)
#define RT_PHASE_IO(name) if (1)
#else
#include <scope/scope.h>
#define RT_PHASE(name)    SCOPE_PHASE(name)
#define RT_PHASE_IO(name) SCOPE_PHASE_IO(name)
#endif

/* The program's own descriptors and the files they were opened on. */
static struct owned {
    int fd;
    dev_t dev;
    ino_t ino;
} owned[1100];
static int nowned;

static void own(int fd, int file) {
    struct stat st;
    if (fstat(file, &st) != 0 || nowned == (int)(sizeof owned / sizeof owned[0])) {
        perror("rt_fds: own");
        exit(4);
    }
    owned[nowned++] = (struct owned){fd, st.st_dev, st.st_ino};
}

/* After every exit handler, the recorder's included. */
__attribute__((destructor)) static void check_owned(void) {
    for (int i = 0; i < nowned; i++) {
        struct stat st;
        if (fstat(owned[i].fd, &st) != 0) {
            fprintf(stderr, "rt_fds: descriptor %d was closed under the program\n", owned[i].fd);
            _exit(5);
        }
        if (st.st_dev != owned[i].dev || st.st_ino != owned[i].ino) {
            fprintf(stderr, "rt_fds: descriptor %d names another file\n", owned[i].fd);
            _exit(5);
        }
    }
}

/* A frame is written: whatever the recorder opens at start is open.  The
 * plain build finds scope_flush when libscope is preloaded. */
static void wait_for_frame(void) {
    int (*flush)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "scope_flush");
    if (flush)
        flush();
}

static int open_out(const char *dir, const char *name, int flags) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return open(path, flags | O_CLOEXEC, 0644);
}

/* Descriptors from 3 up, less `except` and the listing's own. */
static int list_fds(int *out, int cap, int except) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        perror("rt_fds: /proc/self/fd");
        exit(4);
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd >= 3 && fd != dirfd(d) && fd != except && n < cap)
            out[n++] = fd;
    }
    closedir(d);
    return n;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int count(const char *dir) {
    wait_for_frame();
    int held[64], n = list_fds(held, 64, -1);
    printf("held %d:", n);
    for (int i = 0; i < n; i++) {
        char link[64], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", held[i]);
        ssize_t len = readlink(link, target, sizeof target - 1);
        target[len > 0 ? len : 0] = '\0';
        printf(" %d -> %s%s", held[i], target, i + 1 < n ? "," : "");
    }
    printf("\n");
    /* Once an open has been refused for a whole second, the table is full
     * of descriptors that stay (nothing here closes one), so the opens
     * after it are tried once each rather than waited on a second each. */
    int opened = 0, full = 0;
    for (int i = 0; i < RT_FDS_TRIES; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%d", i);
        int fd = open_out(dir, name, O_WRONLY | O_CREAT | O_TRUNC);
        for (int tries = 0; fd < 0 && errno == EMFILE && !full && tries < 100; tries++) {
            sleep_ms(10);
            fd = open_out(dir, name, O_WRONLY | O_CREAT | O_TRUNC);
        }
        full |= fd < 0 && errno == EMFILE;
        opened += fd >= 0;
    }
    printf("opened %d of %d\n", opened, RT_FDS_TRIES);
    return 0;
}

/* CPU time in libm's exp(), when RT_FDS_LIBM asks for it. */
static volatile double sink;

static void burn_libm(void) {
    const char *s = getenv("RT_FDS_LIBM");
    double secs = s ? atof(s) : 0, start = -1;
    for (;;) {
        struct timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        double now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
        if (start < 0)
            start = now;
        if (now - start >= secs)
            return;
        for (int i = 0; i < 20000; i++)
            sink += exp((double)(i & 1023) * (1.0 / 1024.0));
    }
}

/* Removes the logs of RUN/workers/HOST/. */
static void unlink_logs(const char *run) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/workers", run);
    DIR *w = opendir(path);
    for (struct dirent *h; w && (h = readdir(w));) {
        if (h->d_name[0] == '.')
            continue;
        char host[PATH_MAX + 256];
        snprintf(host, sizeof host, "%s/%s", path, h->d_name);
        DIR *d = opendir(host);
        for (struct dirent *e; d && (e = readdir(d));) {
            char log[PATH_MAX + 512];
            snprintf(log, sizeof log, "%s/%s", host, e->d_name);
            if (e->d_name[0] != '.' && unlink(log) != 0)
                perror(log);
        }
        if (d)
            closedir(d);
    }
    if (w)
        closedir(w);
}

/* The descriptor limit: lowered to `top` (no number below it free) or put
 * back. */
static void squeeze(int top, int on) {
    static struct rlimit saved;
    if (on) {
        getrlimit(RLIMIT_NOFILE, &saved);
        struct rlimit low = saved;
        low.rlim_cur = (rlim_t)top;
        if (setrlimit(RLIMIT_NOFILE, &low) != 0)
            perror("rt_fds: setrlimit");
    } else {
        setrlimit(RLIMIT_NOFILE, &saved);
    }
}

static void close_all(void) {
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 ? max : 1024); fd++)
        close((int)fd);
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4)
        return 2;
    const char *mode = argv[1], *dir = argv[2];
#ifndef RT_FDS_PLAIN
    if (argc == 4 && scope_init(argv[3], "fds") != 0)
        return 2;
#endif
    if (!strcmp(mode, "count"))
        return count(dir);

    for (int i = 0; i < RT_FDS_BEFORE; i++)
        RT_PHASE("before") {}
    RT_PHASE_IO("io") {}
    burn_libm();
    wait_for_frame();

    int files[RT_FDS_FILES];
    int first = 0;
    if (!strcmp(mode, "close_range")) {
        if (close_range(3, ~0U, 0) != 0) {
            perror("rt_fds: close_range");
            return 4;
        }
    } else if (!strcmp(mode, "closefrom")) {
        close_all();
    } else if (!strcmp(mode, "dup2")) {
        files[0] = open_out(dir, "f0", O_WRONLY | O_CREAT | O_TRUNC);
        if (files[0] < 0) {
            perror("rt_fds: f0");
            return 4;
        }
        own(files[0], files[0]);
        static int others[1024];
        int n = list_fds(others, 1024, files[0]);
        for (int i = 0; i < n; i++) {
            if (dup2(files[0], others[i]) < 0) {
                perror("rt_fds: dup2");
                return 4;
            }
            own(others[i], files[0]);
        }
        first = 1;
    } else {
        return 2;
    }
    for (int i = first; i < RT_FDS_FILES; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%d", i);
        if ((files[i] = open_out(dir, name, O_WRONLY | O_CREAT | O_TRUNC)) < 0) {
            perror("rt_fds: open");
            return 4;
        }
        own(files[i], files[i]);
    }
    const char *then = getenv("RT_FDS_THEN");
    int squeezed = then && !strcmp(then, "squeeze");
    if (then && !strcmp(then, "unlink") && argc == 4)
        unlink_logs(argv[3]);
    if (squeezed) {
        int top = 0;
        for (int i = 0; i < RT_FDS_FILES; i++)
            top = files[i] > top ? files[i] : top;
        squeeze(top + 1, 1);
        wait_for_frame(); /* one the recorder cannot write */
    }
    burn_libm();
    for (int step = 0; step < RT_FDS_STEPS; step++) {
        if (squeezed && step == RT_FDS_STEPS / 2)
            squeeze(0, 0);
        RT_PHASE("after") {
            for (int i = 0; i < RT_FDS_FILES; i++) {
                char line[64];
                int len = snprintf(line, sizeof line, RT_FDS_LINE, i, step);
                if (write(files[i], line, (size_t)len) != len) {
                    perror("rt_fds: write");
                    return 4;
                }
            }
        }
        RT_PHASE_IO("io") {}
        sleep_ms(RT_FDS_STEP_MS);
    }
    return 0;
}
