/*
 * What the resource sampler adds to a log, per interval and per process-hour:
 *
 *   bench_sample_size [SECONDS]        (default 20)
 *
 * Runs the same loop (phases "iteration", "work" and "write", 4 KiB written
 * and 2 ms asleep an iteration, one thread) twice at once for SECONDS, into
 * two run directories under $TMPDIR: once with the sampler off
 * (SCOPE_SAMPLE_INTERVAL=0) and once sampling every SECONDS/120 s, so that
 * 30 intervals share each 5 s frame as 30 one-second intervals share each of
 * the recorder's 30 s frames in a long run.  The difference in log size over
 * the intervals recorded is the cost of one interval (its process record and
 * the thread record of the writing thread), compressed as in a long run.
 */
#define _GNU_SOURCE
#include <scope/log_format.h>
#include <scope/scope.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The size of the one log under RUN/workers/<host>/, and its sample intervals. */
static long long log_size(const char *run, unsigned long long *intervals) {
    char path[4200];
    snprintf(path, sizeof path, "%s/workers", run);
    DIR *w = opendir(path);
    struct dirent *h, *f;
    long long size = -1;
    while (w && (h = readdir(w)) && size < 0) {
        if (h->d_name[0] == '.')
            continue;
        char host[4600];
        snprintf(host, sizeof host, "%s/%s", path, h->d_name);
        DIR *d = opendir(host);
        while (d && (f = readdir(d)) && size < 0) {
            if (f->d_name[0] == '.')
                continue;
            char file[4900];
            snprintf(file, sizeof file, "%s/%s", host, f->d_name);
            struct stat st;
            if (stat(file, &st) == 0)
                size = st.st_size;
            scope_log_reader *r;
            *intervals = 0;
            if (scope_log_reader_open(&r, file, NULL, 0) == 0) {
                scope_rec_frame fr;
                scope_record rec;
                while (scope_log_reader_next_frame(r, &fr, NULL) == 1)
                    while (scope_log_reader_next_record(r, &rec) == 1)
                        *intervals += rec.type == SCOPE_REC_RESOURCE && !rec.u.resource.thread;
                scope_log_reader_close(r);
            }
        }
        if (d)
            closedir(d);
    }
    if (w)
        closedir(w);
    return size;
}

static void work(const char *run, const char *junk, double seconds) {
    scope_init(run, "sampled");
    int fd = open(junk, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    static char buf[4096];
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        SCOPE_PHASE("iteration") {
            SCOPE_PHASE("work") {
                for (volatile int i = 0; i < 20000; i++)
                    ;
            }
            SCOPE_PHASE("write") {
                if (write(fd, buf, sizeof buf) < 0)
                    _exit(1);
            }
            usleep(2000);
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
    close(fd);
    exit(0);
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 20;
    if (seconds < 5 || seconds > 3600) {
        fputs("usage: bench_sample_size [SECONDS]   (5 to 3600, default 20)\n", stderr);
        return 2;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/bench-sample-size-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char interval[32];
    snprintf(interval, sizeof interval, "%.6f", seconds / 120);
    const char *settings[2] = {"0", interval};
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        char run[4200], junk[4200];
        snprintf(run, sizeof run, "%s/run%d", dir, i);
        snprintf(junk, sizeof junk, "%s/junk%d", dir, i);
        pid[i] = fork();
        if (pid[i] == 0) {
            setenv("SCOPE_SAMPLE_INTERVAL", settings[i], 1);
            work(run, junk, seconds);
        }
    }
    for (int i = 0; i < 2; i++) {
        int st;
        if (waitpid(pid[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "bench_sample_size: the loop failed\n");
            return 1;
        }
    }
    char run[4200];
    unsigned long long n0, n1;
    snprintf(run, sizeof run, "%s/run0", dir);
    long long s0 = log_size(run, &n0);
    snprintf(run, sizeof run, "%s/run1", dir);
    long long s1 = log_size(run, &n1);
    if (s0 < 0 || s1 < 0 || !n1) {
        fprintf(stderr, "bench_sample_size: no log, or no sample, under %s\n", dir);
        return 1;
    }
    double per = (double)(s1 - s0) / (double)n1;
    printf("resource samples in a log (one process, one thread writing), %.0f s\n", seconds);
    printf("  log without samples                  %10lld bytes\n", s0);
    printf("  log with %5llu intervals (30 a frame) %9lld bytes\n", n1, s1);
    printf("  per interval                          %9.1f bytes\n", per);
    printf("  per process-hour at 1 Hz              %9.1f KiB\n", per * 3600 / 1024);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
