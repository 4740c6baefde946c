/*
 * Following a run directory: see run_follow.h.  A refresh lists the
 * directory, decides for each log whether it is kept, read on or read again
 * (in parallel, one log per job), then builds a model that borrows the
 * follower's tables (run_builder_borrow_logs) and frees the one before.
 */
#define _GNU_SOURCE /* get_nprocs */
#include "run_follow.h"

#include "run_builder.h"
#include "progress.h"
#include "run_dir_loader.h"
#include "read_caps.h"
#include "run_load.h"
#include "run_log.h"
#include "text_escape.h"
#include "worker_log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

/* The first bytes whose hash tells a log grown from a log replaced by
 * another of at least the same size: the header and the start of the first
 * frame, which names the process, its uuid and its start. */
#define HEAD_BYTES 4096

/* A log file as last seen. */
typedef struct log_id {
    int known; /* 0: it could not be opened */
    dev_t dev;
    ino_t ino;
    struct timespec mtime;
    size_t head_len;
    uint64_t head_hash;
} log_id;

struct run_follow {
    char *dir;
    run_options opt;
    worker_log *logs; /* sorted by w.path, as the loader lists them */
    read_caps *caps;  /* what they may hold together: the first model's budget */
    log_id *ids;      /* ids[i] is logs[i]'s file */
    size_t n;
    run_follow_stats last;
};

/* ---- a log's identity ---------------------------------------------------- */

/* relpath below dirfd opened for reading, following no link on the way (as
 * scope_log_reader_open_beneath): a regular file's descriptor, or -1. */
static int open_beneath(int dirfd, const char *relpath) {
    int at = dirfd;
    const char *p = relpath;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        char part[NAME_MAX + 1];
        if (n == 0 || n > NAME_MAX || (n == 2 && !memcmp(p, "..", 2)))
            break;
        memcpy(part, p, n);
        part[n] = '\0';
        struct stat st;
        int fd = -1;
        if (slash)
            fd = openat(at, part, O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
        else if (fstatat(at, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            fd = openat(at, part, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
        if (at != dirfd)
            close(at);
        if (fd < 0 || !slash)
            return fd;
        at = fd;
        p = slash + 1;
    }
    if (at != dirfd)
        close(at);
    return -1;
}

static uint64_t fnv1a64(const uint8_t *p, size_t n) {
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* The identity of the file at relpath now; with head_len 0, of as many
 * first bytes as there are (up to HEAD_BYTES), else of head_len of them.
 * Also the file's size.  0, or -1 when it cannot be read. */
static int take_id(int dirfd, const char *relpath, size_t head_len, log_id *id, uint64_t *size) {
    memset(id, 0, sizeof *id);
    int fd = open_beneath(dirfd, relpath);
    if (fd < 0)
        return -1;
    struct stat st;
    uint8_t head[HEAD_BYTES];
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    if (!head_len)
        head_len = (size_t)st.st_size < sizeof head ? (size_t)st.st_size : sizeof head;
    ssize_t got = pread(fd, head, head_len, 0);
    close(fd);
    if (got < 0)
        return -1;
    *id = (log_id){.known = 1,
                   .dev = st.st_dev,
                   .ino = st.st_ino,
                   .mtime = st.st_mtim,
                   .head_len = (size_t)got,
                   .head_hash = fnv1a64(head, (size_t)got)};
    *size = (uint64_t)st.st_size;
    return 0;
}

static int same_file(const log_id *a, const log_id *b) {
    return a->known && b->known && a->dev == b->dev && a->ino == b->ino;
}

/* ---- one log's refresh ---------------------------------------------------- */

#define NONE SIZE_MAX

enum fate { KEPT, READ_ON, READ_AGAIN, ADDED, VANISHED };

/* The plan for one log of the new table, and what came of it. */
typedef struct slot {
    size_t old;   /* its index in the follower's table before, NONE: new */
    size_t entry; /* its index in the listing, NONE: gone from the directory */
    enum fate fate;
    int retire;     /* the old tables are freed once the old model is */
    uint64_t bytes; /* file bytes read */
} slot;

typedef struct refresh_job {
    run_follow *f;
    int dirfd;
    const run_dir_entry *entries;
    slot *slots;
    worker_log *logs; /* the new table */
    log_id *ids;
    size_t n;
    atomic_size_t next;
    atomic_size_t done; /* slots refreshed, by all threads */
} refresh_job;

/* A log read from the start into *log, readied here. */
static void read_fresh(refresh_job *job, const run_dir_entry *e, worker_log *log, log_id *id,
                       slot *s) {
    worker_log_init(log);
    worker_log_share_caps(log, job->f->caps);
    log->w.path = run_str_dup(&log->mem, e->path, strlen(e->path));
    log->no_samples = job->f->opt.no_samples;
    log->read_all = job->f->opt.read_all;
    log->snapshot_min_size =
        job->f->opt.snapshot_min_bytes ? job->f->opt.snapshot_min_bytes : RUN_SNAPSHOT_MIN_BYTES;
    memset(id, 0, sizeof *id);
    if (e->why) {
        log->open_rc = -1;
        snprintf(log->open_msg, sizeof log->open_msg, "%s", e->why);
        return;
    }
    /* Its identity before its bytes: what is appended in between is read
     * on at the next refresh, never missed. */
    uint64_t size;
    take_id(job->dirfd, e->path, 0, id, &size);
    log_read(job->dirfd, e->path, log);
    s->bytes = log->read_size;
}

static void refresh_one(refresh_job *job, size_t j) {
    run_follow *f = job->f;
    slot *s = &job->slots[j];
    worker_log *log = &job->logs[j];
    log_id *id = &job->ids[j];
    if (s->entry == NONE) {
        *log = f->logs[s->old];
        *id = f->ids[s->old];
        s->fate = log->vanished ? KEPT : VANISHED;
        log->vanished = 1;
        return;
    }
    const run_dir_entry *e = &job->entries[s->entry];
    if (s->old != NONE) {
        worker_log *was = &f->logs[s->old];
        const log_id *had = &f->ids[s->old];
        log_id now;
        uint64_t size;
        if (!e->why && !was->vanished && was->open_rc >= 0 &&
            take_id(job->dirfd, e->path, had->head_len, &now, &size) == 0 && same_file(had, &now)) {
            if (size == was->read_size && now.mtime.tv_sec == had->mtime.tv_sec &&
                now.mtime.tv_nsec == had->mtime.tv_nsec) {
                *log = *was;
                *id = *had;
                s->fate = KEPT;
                return;
            }
            uint64_t before = was->read_size;
            if (now.head_hash == had->head_hash && size >= before &&
                log_read_more(job->dirfd, e->path, was)) {
                /* The hash of more first bytes, now that there are more. */
                if (had->head_len < HEAD_BYTES)
                    take_id(job->dirfd, e->path, 0, &now, &size);
                *log = *was;
                *id = now;
                s->fate = READ_ON;
                s->bytes = log->read_size - before;
                return;
            }
        }
        s->retire = 1;
    }
    read_fresh(job, e, log, id, s);
    s->fate = s->old != NONE ? READ_AGAIN : ADDED;
}

/* Refreshes slots until none is left; prog: the calling thread's progress
 * (progress.h reports from one thread), NULL for the helpers. */
static void refresh_slots(refresh_job *job, progress *prog) {
    size_t j;
    while ((j = atomic_fetch_add(&job->next, 1)) < job->n) {
        if (prog)
            progress_step(prog, atomic_load(&job->done));
        refresh_one(job, j);
        atomic_fetch_add(&job->done, 1);
    }
}

static void *refresh_some(void *arg) {
    refresh_slots(arg, NULL);
    return NULL;
}

/* Every slot's refresh, on up to opt.threads threads (0: the CPUs, at
 * most 8), as the loader reads. */
static void refresh_all(refresh_job *job, int threads) {
    if (threads <= 0)
        threads = get_nprocs() < 8 ? get_nprocs() : 8;
    if ((size_t)threads > job->n)
        threads = (int)job->n;
    pthread_t tid[64];
    int started = 0;
    for (int t = 1; t < threads && t < 64; t++)
        if (pthread_create(&tid[started], NULL, refresh_some, job) == 0)
            started++;
    progress prog;
    progress_begin(&prog, "reading the run", "log", "logs", job->n);
    refresh_slots(job, &prog);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    progress_end(&prog);
}

/* ---- the follower --------------------------------------------------------- */

static const char *path_of(const worker_log *log) {
    return log->w.path.s ? log->w.path.s : "";
}

/* The model of the follower's tables as they are now. */
static enum run_load_error build(run_follow *f, run_model **out, char *msg, size_t msglen) {
    run_model_builder *b = run_builder_new(f->dir, &f->opt);
    if (!b)
        return run_load_fail(msg, msglen, RUN_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < f->n; i++)
        worker_log_unmerge(&f->logs[i]);
    run_builder_borrow_logs(b, f->logs, f->n);
    return run_builder_finish(b, out, msg, msglen);
}

enum run_load_error run_follow_open(run_follow **out, const char *path, const run_options *opt,
                                    run_model **m, char *msg, size_t msglen) {
    *out = NULL;
    enum run_load_error e = run_load(path, opt, m, msg, msglen);
    struct stat st;
    if (e != RUN_OK || stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
        return e;
    run_follow *f = calloc(1, sizeof *f);
    int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (f && dirfd >= 0) {
        f->dir = strdup(path);
        f->n = (*m)->nworkers;
        f->ids = calloc(f->n ? f->n : 1, sizeof *f->ids);
    }
    if (!f || dirfd < 0 || !f->dir || !f->ids) {
        if (dirfd >= 0)
            close(dirfd);
        if (f) {
            free(f->dir);
            free(f->ids);
            free(f);
        }
        run_free(*m);
        *m = NULL;
        return run_load_fail(msg, msglen, RUN_ERR_NOMEM, "out of memory");
    }
    if (opt)
        f->opt = *opt;
    f->logs = run_model_release_logs(*m, &f->n);
    /* Its logs count against the first model's budget, which they hold;
     * the logs read from now on count against it too. */
    f->caps = read_caps_hold(f->n ? f->logs[0].caps : NULL);
    /* Taken after the read: a log grown since has another size than the one
     * read (read_size) and is read on at the first refresh. */
    for (size_t i = 0; i < f->n; i++) {
        uint64_t size;
        if (f->logs[i].open_rc >= 0)
            take_id(dirfd, path_of(&f->logs[i]), 0, &f->ids[i], &size);
    }
    close(dirfd);
    f->last.logs = f->n;
    *out = f;
    return RUN_OK;
}

/* The slots of the new table: the listing and the old table merged by path
 * (both sorted), an old log no longer listed kept as gone. */
static slot *plan(const run_follow *f, const run_dir_entry *v, size_t nv, size_t *n) {
    slot *s = calloc(nv + f->n + 1, sizeof *s);
    if (!s)
        return NULL;
    size_t i = 0, k = 0, j = 0;
    while (i < f->n || k < nv) {
        int c = i == f->n ? 1 : k == nv ? -1 : strcmp(path_of(&f->logs[i]), v[k].path);
        s[j].old = c <= 0 ? i++ : NONE;
        s[j].entry = c >= 0 ? k++ : NONE;
        j++;
    }
    *n = j;
    return s;
}

enum run_load_error run_follow_refresh(run_follow *f, run_model **m, char *msg, size_t msglen) {
    char shown[512];
    scope_escape((const uint8_t *)f->dir, strlen(f->dir), shown, sizeof shown, 0);
    run_dir_entry *v = NULL;
    size_t nv = 0, n = 0;
    int err = run_dir_list_logs(f->dir, &v, &nv);
    if (err == ENOENT)
        return run_load_fail(msg, msglen, RUN_ERR_NOT_FOUND, "%s: no such run directory", shown);
    if (err)
        return run_load_fail(msg, msglen, err == EACCES ? RUN_ERR_PERMISSION : RUN_ERR_IO,
                             "%s/workers: cannot list: %s", shown, strerror(err));
    int dirfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    slot *slots = dirfd >= 0 ? plan(f, v, nv, &n) : NULL;
    worker_log *logs = slots ? calloc(n + 1, sizeof *logs) : NULL;
    log_id *ids = logs ? calloc(n + 1, sizeof *ids) : NULL;
    if (!ids) {
        err = dirfd < 0 ? errno : ENOMEM;
        if (dirfd >= 0)
            close(dirfd);
        run_dir_entries_free(v, nv);
        free(slots);
        free(logs);
        return run_load_fail(msg, msglen, err == ENOMEM ? RUN_ERR_NOMEM : RUN_ERR_IO,
                             "%s: cannot read again: %s", shown, strerror(err));
    }
    refresh_job job = {
        .f = f, .dirfd = dirfd, .entries = v, .slots = slots, .logs = logs, .ids = ids, .n = n};
    refresh_all(&job, f->opt.threads);
    close(dirfd);
    run_dir_entries_free(v, nv);

    run_follow_stats st = {.logs = n};
    for (size_t j = 0; j < n; j++) {
        st.bytes += slots[j].bytes;
        switch (slots[j].fate) {
        case KEPT:
            st.unchanged++;
            break;
        case READ_ON:
            st.read_on++;
            break;
        case READ_AGAIN:
            st.read_again++;
            break;
        case ADDED:
            st.added++;
            break;
        case VANISHED:
            st.vanished++;
            break;
        }
    }
    /* The new model is built before the old one is freed, so that the two
     * are never at one address (views tell models apart by it); then the
     * old tables replaced go with the old model. */
    worker_log *old_logs = f->logs;
    log_id *old_ids = f->ids;
    f->logs = logs;
    f->ids = ids;
    f->n = n;
    f->last = st;
    run_model *old = *m;
    enum run_load_error e = build(f, m, msg, msglen);
    if (e != RUN_OK)
        *m = NULL;
    run_free(old);
    for (size_t j = 0; j < n; j++)
        if (slots[j].retire)
            worker_log_release(&old_logs[slots[j].old]);
    free(slots);
    free(old_logs);
    free(old_ids);
    return e;
}

const run_follow_stats *run_follow_last(const run_follow *f) {
    return &f->last;
}

void run_follow_close(run_follow *f) {
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        worker_log_release(&f->logs[i]);
    free(f->logs);
    free(f->ids);
    free(f->dir);
    read_caps_drop(f->caps);
    free(f);
}
