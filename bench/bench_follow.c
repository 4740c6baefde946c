/*
 * What a refresh of a live run costs the browser: the follower
 * (src/load/run_follow.h) next to reading the run whole again (run_load).
 *
 *   bench_follow SRC WORK [--held K] [--rounds R] [--every N]
 *
 * SRC is a run directory that bench/gen_run wrote (bench_follow.sh makes
 * it: --live).  Each log is copied to the same place under WORK (which must
 * not exist) without its last K frames (default 3), as a process that has
 * not written them yet.  The follower opens WORK; then, R times (default
 * K), one held frame (the real bytes the writer wrote, in order) is
 * appended to every Nth log (default 1: all of them), and the follower
 * refreshes; after each refresh the run is also loaded whole, to compare.
 * Prints, per round, the bytes appended and both times, and the medians.
 */
#define _GNU_SOURCE
#include "run_follow.h"
#include "run_load.h"
#include "run_model.h"

#include <scope/log_format.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct held_log {
    char rel[600];    /* workers/HOST/NAME */
    uint64_t *starts; /* the held frames' offsets in SRC, then the file's end */
    size_t nheld;
    size_t next; /* the next held frame to append */
} held_log;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int die(const char *fmt, const char *a) {
    fprintf(stderr, "bench_follow: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    exit(1);
}

/* Copies bytes [from, to) of the file at src to the end of the file at dst. */
static void copy_range(const char *src, const char *dst, uint64_t from, uint64_t to) {
    int in = open(src, O_RDONLY | O_CLOEXEC);
    int out = open(dst, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (in < 0 || out < 0)
        die("cannot open %s", in < 0 ? src : dst);
    static char buf[1 << 16];
    while (from < to) {
        size_t n = to - from < sizeof buf ? (size_t)(to - from) : sizeof buf;
        ssize_t got = pread(in, buf, n, (off_t)from);
        if (got <= 0 || write(out, buf, (size_t)got) != got)
            die("cannot copy %s", src);
        from += (uint64_t)got;
    }
    close(in);
    close(out);
}

/* The offsets of every frame of a log, and its size. */
static uint64_t *frame_offsets(const char *path, size_t *n, uint64_t *size) {
    scope_log_reader *r;
    char msg[256];
    if (scope_log_reader_open(&r, path, msg, sizeof msg) < 0)
        die("%s", msg);
    *size = scope_log_reader_info(r)->file_size;
    uint64_t *v = NULL;
    size_t cap = 0;
    *n = 0;
    scope_rec_frame fr;
    uint64_t off;
    while (scope_log_reader_next_frame(r, &fr, &off) == 1) {
        if (*n == cap && !(v = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof *v)))
            die("%s", "out of memory");
        v[(*n)++] = off;
    }
    scope_log_reader_close(r);
    return v;
}

static int by_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n) {
    qsort(v, n, sizeof *v, by_double);
    return n ? v[n / 2] : 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_follow SRC WORK [--held K] [--rounds R] [--every N]\n");
        return 2;
    }
    const char *src = argv[1], *work = argv[2];
    size_t held = 3, rounds = 0, every = 1;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--held"))
            held = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--every"))
            every = (size_t)atol(argv[i + 1]);
        else
            die("unknown option %s", argv[i]);
    }
    if (!rounds || rounds > held)
        rounds = held;
    if (!every)
        every = 1;

    /* WORK: every log without its last `held` frames. */
    char path[2048], dst[2048];
    if (mkdir(work, 0755) < 0)
        die("cannot create %s (it must not exist)", work);
    snprintf(path, sizeof path, "%s/workers", work);
    mkdir(path, 0755);
    held_log *logs = NULL;
    size_t nlogs = 0, cap = 0;
    snprintf(path, sizeof path, "%s/workers", src);
    DIR *w = opendir(path);
    if (!w)
        die("%s has no workers/", src);
    struct dirent *h;
    while ((h = readdir(w))) {
        if (h->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/workers/%s", src, h->d_name);
        snprintf(dst, sizeof dst, "%s/workers/%s", work, h->d_name);
        mkdir(dst, 0755);
        DIR *d = opendir(path);
        struct dirent *f;
        while (d && (f = readdir(d))) {
            if (f->d_name[0] == '.')
                continue;
            if (nlogs == cap &&
                !(logs = realloc(logs, (cap = cap ? 2 * cap : 1024) * sizeof *logs)))
                die("%s", "out of memory");
            held_log *l = &logs[nlogs++];
            memset(l, 0, sizeof *l);
            snprintf(l->rel, sizeof l->rel, "workers/%s/%s", h->d_name, f->d_name);
            snprintf(path, sizeof path, "%s/%s", src, l->rel);
            snprintf(dst, sizeof dst, "%s/%s", work, l->rel);
            size_t n;
            uint64_t size;
            uint64_t *offs = frame_offsets(path, &n, &size);
            size_t keep = n > held ? n - held : 1;
            l->nheld = n - keep;
            l->starts = malloc((l->nheld + 1) * sizeof *l->starts);
            for (size_t k = 0; k < l->nheld; k++)
                l->starts[k] = offs[keep + k];
            l->starts[l->nheld] = size;
            copy_range(path, dst, 0, l->nheld ? l->starts[0] : size);
            free(offs);
        }
        if (d)
            closedir(d);
    }
    closedir(w);

    char msg[1024];
    run_model *m = NULL;
    run_follow *f = NULL;
    double t0 = now_s();
    if (run_follow_open(&f, work, NULL, &m, msg, sizeof msg) != RUN_OK || !f)
        die("%s", msg);
    double opened = now_s() - t0;
    printf("bench_follow: %zu logs, %zu frames held back each; first load %.3f s\n", nlogs, held,
           opened);

    double *follow_s = calloc(rounds, sizeof *follow_s), *full_s = calloc(rounds, sizeof *full_s);
    for (size_t r = 0; r < rounds; r++) {
        uint64_t appended = 0;
        size_t grown = 0;
        for (size_t i = 0; i < nlogs; i += every) {
            held_log *l = &logs[i];
            if (l->next >= l->nheld)
                continue;
            snprintf(path, sizeof path, "%s/%s", src, l->rel);
            snprintf(dst, sizeof dst, "%s/%s", work, l->rel);
            copy_range(path, dst, l->starts[l->next], l->starts[l->next + 1]);
            appended += l->starts[l->next + 1] - l->starts[l->next];
            l->next++;
            grown++;
        }
        t0 = now_s();
        if (run_follow_refresh(f, &m, msg, sizeof msg) != RUN_OK)
            die("refresh: %s", msg);
        follow_s[r] = now_s() - t0;
        const run_follow_stats *st = run_follow_last(f);
        run_model *full = NULL;
        t0 = now_s();
        if (run_load(work, NULL, &full, msg, sizeof msg) != RUN_OK)
            die("load: %s", msg);
        full_s[r] = now_s() - t0;
        if (full->nrunning != m->nrunning || full->nprocs != m->nprocs)
            die("%s", "the follower's model and a full load disagree");
        run_free(full);
        printf("round %zu: %.2f MB appended to %zu logs; refresh %.3f s (read on %zu, "
               "unchanged %zu, %.2f MB read); full reload %.3f s\n",
               r + 1, (double)appended / 1e6, grown, follow_s[r], st->read_on, st->unchanged,
               (double)st->bytes / 1e6, full_s[r]);
    }
    printf("median refresh %.3f s, full reload %.3f s, over %zu rounds\n", median(follow_s, rounds),
           median(full_s, rounds), rounds);
    run_free(m);
    run_follow_close(f);
    for (size_t i = 0; i < nlogs; i++)
        free(logs[i].starts);
    free(logs);
    free(follow_s);
    free(full_s);
    return 0;
}
