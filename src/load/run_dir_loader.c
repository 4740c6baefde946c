/*
 * The run-directory loader: find the logs of a run directory and read them
 * in parallel, one worker_log each.  Everything that can go wrong with the
 * path itself is said here in one line; everything that goes wrong with one
 * log becomes a caveat naming that worker.
 */
#define _GNU_SOURCE /* get_nprocs */
#include "run_dir_loader.h"

#include "progress.h"
#include "run_builder.h"
#include "run_log.h"
#include "text_escape.h"
#include "worker_log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <scope/vec.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

/* ---- finding the logs ---------------------------------------------------- */

typedef run_dir_entry found;

typedef struct path_list {
    found *v;
    size_t n, cap;
} path_list;

/* Nothing a run directory holds is followed out of it: whoever can write
 * there could point a link anywhere. */
static const char not_followed[] = "a symbolic link, not followed";

static int add_path(path_list *l, const char *a, const char *b, const char *why) {
    if (SCOPE_VEC_RESERVE(l->v, l->cap, l->n + 1) < 0)
        return -1;
    if (asprintf(&l->v[l->n].path, "%s/%s", a, b) < 0)
        return -1;
    l->v[l->n++].why = why;
    return 0;
}

static void free_paths(path_list *l) {
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].path);
    free(l->v);
}

static int by_path(const void *a, const void *b) {
    return strcmp(((const found *)a)->path, ((const found *)b)->path);
}

static int has_ext(const char *name) {
    size_t n = strlen(name), e = strlen("." SCOPE_LOG_FILE_EXT);
    return n > e && !strcmp(name + n - e, "." SCOPE_LOG_FILE_EXT);
}

static int is_link(int dir, const char *name) {
    struct stat st;
    return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/* The logs in the host folder `host` of workers/ (the descriptor wd). */
static int list_host(int wd, const char *host, path_list *out, size_t *unlisted) {
    int fd = openat(wd, host, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *h = fd >= 0 ? fdopendir(fd) : NULL;
    if (!h) {
        if (fd >= 0)
            close(fd);
        else if (errno != ENOTDIR)
            (*unlisted)++;
        return 0;
    }
    char rel[600];
    snprintf(rel, sizeof rel, "workers/%s", host);
    struct dirent *f;
    while ((f = readdir(h))) {
        if (f->d_name[0] == '.' || !has_ext(f->d_name))
            continue;
        if (add_path(out, rel, f->d_name, is_link(fd, f->d_name) ? not_followed : NULL) < 0) {
            closedir(h);
            return ENOMEM;
        }
    }
    closedir(h);
    return 0;
}

/* The logs under RUN/workers/, as paths relative to RUN: in every host
 * folder (a folder is a host name as scope/host_dir.h encodes it, or
 * whatever an older recorder made of one, a leading '.' included), and
 * directly in workers/ (where an older recorder put a host named ".").
 * Symbolic links are listed, to be named, and never followed.  Returns 0,
 * or an errno from listing workers/ itself (host folders that cannot be
 * listed are skipped; the caller learns nothing was found). */
static int list_logs(const char *dir, path_list *out, size_t *unlisted) {
    int run = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (run < 0)
        return errno;
    int wd = openat(run, "workers", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno == ENOTDIR && is_link(run, "workers") ? ELOOP : errno;
    close(run);
    DIR *d = wd >= 0 ? fdopendir(wd) : NULL;
    if (!d) {
        if (wd >= 0) {
            err = errno;
            close(wd);
        }
        return err;
    }
    struct dirent *e;
    err = 0;
    while (!err && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(wd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            if (add_path(out, "workers", e->d_name, not_followed) < 0)
                err = ENOMEM;
        } else if (S_ISDIR(st.st_mode)) {
            err = list_host(wd, e->d_name, out, unlisted);
        } else if (e->d_name[0] != '.' && has_ext(e->d_name)) {
            if (add_path(out, "workers", e->d_name, NULL) < 0)
                err = ENOMEM;
        }
    }
    closedir(d);
    if (!err && out->n)
        qsort(out->v, out->n, sizeof *out->v, by_path);
    return err;
}

/* ---- reading them in parallel -------------------------------------------- */

typedef struct read_job {
    int dirfd; /* RUN */
    found *paths;
    worker_log *logs;
    size_t n;
    atomic_size_t next; /* the next log to read, shared by the readers */
    atomic_size_t read; /* logs read, by all */
    progress *prog;     /* stepped by the calling thread only (progress.h) */
} read_job;

/* Reads logs until none is left; reports: the calling thread, which steps
 * the progress (the helpers do not: progress.h reports from one thread). */
static void read_logs(read_job *job, int reports) {
    size_t i;
    while ((i = atomic_fetch_add(&job->next, 1)) < job->n) {
        if (reports && job->prog)
            progress_step(job->prog, atomic_load(&job->read));
        if (job->paths[i].why) {
            worker_log *log = &job->logs[i];
            log->open_rc = -1;
            snprintf(log->open_msg, sizeof log->open_msg, "%s", job->paths[i].why);
        } else
            log_read(job->dirfd, job->paths[i].path, &job->logs[i]);
        atomic_fetch_add(&job->read, 1);
    }
}

static void *read_some(void *arg) {
    read_logs(arg, 0);
    return NULL;
}

static void read_all(read_job *job, int threads) {
    if (threads <= 0) {
        threads = get_nprocs();
        if (threads > 8)
            threads = 8;
    }
    if ((size_t)threads > job->n)
        threads = (int)job->n;
    pthread_t tid[64];
    int started = 0;
    for (int t = 1; t < threads && t < 64; t++)
        if (pthread_create(&tid[started], NULL, read_some, job) == 0)
            started++;
    read_logs(job, 1); /* this thread reads too; with no helper it reads them all */
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}

/* ---- the loader ---------------------------------------------------------- */

/* Checks the path before anything is read, so each kind of wrong path gets
 * its own plain sentence. */
static enum run_load_error check_dir(const char *dir, char *msg, size_t len) {
    char shown[512];
    scope_escape((const uint8_t *)dir, strlen(dir), shown, sizeof shown, 0);
    struct stat st;
    if (stat(dir, &st) < 0) {
        if (errno == EACCES)
            return run_load_fail(msg, len, RUN_ERR_PERMISSION, "%s: permission denied", shown);
        return run_load_fail(msg, len, RUN_ERR_NOT_FOUND, "%s: no such run directory", shown);
    }
    if (!S_ISDIR(st.st_mode)) {
        if (has_ext(dir))
            return run_load_fail(msg, len, RUN_ERR_NOT_DIR,
                                 "%s is one process's log, not a run directory "
                                 "('scope-tui dump %s' reads a single log)",
                                 shown, shown);
        return run_load_fail(msg, len, RUN_ERR_NOT_DIR,
                             "%s is a file, not a run directory nor an HDF5 file", shown);
    }
    char workers[4096];
    snprintf(workers, sizeof workers, "%s/workers", dir);
    if (stat(workers, &st) < 0 || !S_ISDIR(st.st_mode)) {
        DIR *d = opendir(dir);
        if (!d && errno == EACCES)
            return run_load_fail(msg, len, RUN_ERR_PERMISSION, "%s: permission denied", shown);
        int empty = 1;
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)))
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                    empty = 0;
            closedir(d);
        }
        return run_load_fail(msg, len, RUN_ERR_NOT_RUN,
                             empty ? "%s is empty: no process has recorded into it"
                                   : "%s is not a scope run directory (it has no workers/ folder)",
                             shown);
    }
    return RUN_OK;
}

static int probe_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- one part of the logs, for a reduction over several readers --------------- */

/* Which of `nparts` parts each of paths (sorted) goes to: consecutive logs
 * holding about a share of the bytes each, cut between host folders when there are
 * enough of them (4 a part) for the parts to come out even, else between
 * logs.  Every reader computes the same cuts from the same listing, and the
 * parts in order are the listing, so the processes of a reduction come in
 * the order of one reader's. */
static void assign_parts(int dirfd, const path_list *paths, unsigned nparts, unsigned *owners) {
    size_t n = paths->n, hosts = 0;
    uint64_t *bytes = calloc(n ? n : 1, sizeof *bytes);
    size_t *unit = calloc(n ? n : 1, sizeof *unit);
    if (!bytes || !unit) {
        /* Without the sizes every part is cut by count: still a partition. */
        free(bytes);
        bytes = NULL;
    }
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (bytes)
            bytes[i] = fstatat(dirfd, paths->v[i].path, &st, AT_SYMLINK_NOFOLLOW) == 0
                           ? (uint64_t)st.st_size + 1
                           : 1;
        const char *a = paths->v[i].path, *slash = strrchr(a, '/');
        int same = 0;
        if (i) {
            const char *p = paths->v[i - 1].path, *ps = strrchr(p, '/');
            same = slash - a == ps - p && !memcmp(a, p, (size_t)(slash - a));
        }
        if (i && !same)
            hosts++;
        if (unit)
            unit[i] = hosts;
    }
    int by_host = unit && hosts + 1 >= 4 * (size_t)nparts;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += bytes ? bytes[i] : 1;
    /* A unit goes to the part its middle byte falls in. */
    uint64_t before = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        if (by_host)
            while (j < n && unit[j] == unit[i])
                j++;
        uint64_t size = 0;
        for (size_t k = i; k < j; k++)
            size += bytes ? bytes[k] : 1;
        unsigned owner = (unsigned)((double)(before + size / 2) * nparts / (double)total);
        if (owner >= nparts)
            owner = nparts - 1;
        for (size_t k = i; k < j; k++)
            owners[k] = owner;
        before += size;
        i = j;
    }
    free(bytes);
    free(unit);
}

/* Lists dir's logs into *paths, as the loader does: RUN_OK, or the
 * loader's error for the whole directory. */
static enum run_load_error list_dir(const char *dir, path_list *paths, size_t *unlisted, char *msg,
                                    size_t msglen) {
    enum run_load_error e = check_dir(dir, msg, msglen);
    if (e != RUN_OK)
        return e;
    char shown[512];
    scope_escape((const uint8_t *)dir, strlen(dir), shown, sizeof shown, 0);
    int err = list_logs(dir, paths, unlisted);
    if (!err)
        return RUN_OK;
    free_paths(paths);
    if (err == EACCES)
        return run_load_fail(msg, msglen, RUN_ERR_PERMISSION, "%s/workers: permission denied",
                             shown);
    if (err == ELOOP)
        return run_load_fail(msg, msglen, RUN_ERR_NOT_RUN,
                             "%s/workers is a symbolic link: not followed, since a run "
                             "directory's links could point anywhere",
                             shown);
    return run_load_fail(msg, msglen, err == ENOMEM ? RUN_ERR_NOMEM : RUN_ERR_IO,
                         "%s/workers: cannot list: %s", shown, strerror(err));
}

/* Keeps of paths (sorted) part `part` of `nparts` (assign_parts). */
static void keep_part(int dirfd, path_list *paths, unsigned part, unsigned nparts) {
    unsigned *owners = calloc(paths->n ? paths->n : 1, sizeof *owners);
    size_t kept = 0;
    if (owners)
        assign_parts(dirfd, paths, nparts, owners);
    for (size_t k = 0; k < paths->n; k++) {
        /* Without memory for the owners, by count. */
        unsigned owner = owners ? owners[k] : (unsigned)(k * nparts / paths->n);
        if (owner == part)
            paths->v[kept++] = paths->v[k];
        else
            free(paths->v[k].path);
    }
    paths->n = kept;
    free(owners);
}

/* Reads the logs of paths (sorted, taken over) into b. */
static enum run_load_error read_paths(run_model_builder *b, const char *dir, const run_options *opt,
                                      path_list *paths, size_t unlisted, size_t *nread, char *msg,
                                      size_t msglen) {
    char shown[512];
    scope_escape((const uint8_t *)dir, strlen(dir), shown, sizeof shown, 0);
    if (paths->n == 0) {
        free_paths(paths);
        if (unlisted)
            return run_load_fail(msg, msglen, RUN_ERR_PERMISSION,
                                 "%s/workers: %zu host folder(s) could not be listed "
                                 "(permission denied?) and no log was found",
                                 shown, unlisted);
        return run_load_fail(msg, msglen, RUN_ERR_EMPTY, "%s/workers holds no scope logs (*.%s)",
                             shown, SCOPE_LOG_FILE_EXT);
    }
    worker_log *logs = run_builder_add_workers(b, paths->n);
    if (!logs) {
        free_paths(paths);
        return run_load_fail(msg, msglen, RUN_ERR_NOMEM, "%s: out of memory", shown);
    }
    for (size_t i = 0; i < paths->n; i++) {
        logs[i].w.path = run_str_dup(&logs[i].mem, paths->v[i].path, strlen(paths->v[i].path));
        logs[i].no_samples = opt->no_samples;
        logs[i].read_all = opt->read_all;
        logs[i].snapshot_min_size =
            opt->snapshot_min_bytes ? opt->snapshot_min_bytes : RUN_SNAPSHOT_MIN_BYTES;
    }
    /* RUN was listed through its own descriptor; its logs are read through
     * one too, so that RUN cannot be swapped in between. */
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        free_paths(paths);
        return run_load_fail(msg, msglen, RUN_ERR_IO, "%s: cannot open: %s", shown,
                             strerror(errno));
    }
    progress prog;
    progress_begin(&prog, "reading the run", "log", "logs", paths->n);
    read_job job = {.dirfd = dirfd, .paths = paths->v, .logs = logs, .n = paths->n, .prog = &prog};
    read_all(&job, opt->threads);
    progress_end(&prog);
    close(dirfd);
    *nread = paths->n;
    free_paths(paths);
    return RUN_OK;
}

static enum run_load_error load_dir_part(run_model_builder *b, const char *dir,
                                         const run_options *opt, unsigned part, unsigned nparts,
                                         size_t *nread, char *msg, size_t msglen) {
    path_list paths = {0};
    size_t unlisted = 0;
    enum run_load_error e = list_dir(dir, &paths, &unlisted, msg, msglen);
    if (e != RUN_OK)
        return e;
    if (nparts > 1 && paths.n > 0) {
        int rd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        keep_part(rd, &paths, part, nparts);
        if (rd >= 0)
            close(rd);
        if (paths.n == 0) { /* this part is empty; another holds the logs */
            free_paths(&paths);
            return RUN_OK;
        }
    }
    return read_paths(b, dir, opt, &paths, unlisted, nread, msg, msglen);
}

static enum run_load_error load_dir(run_model_builder *b, const char *dir, const run_options *opt,
                                    char *msg, size_t msglen) {
    size_t nread = 0;
    return load_dir_part(b, dir, opt, 0, 1, &nread, msg, msglen);
}

enum run_load_error run_dir_load_part(run_model_builder *b, const char *dir, const run_options *opt,
                                      unsigned part, unsigned nparts, size_t *nread, char *msg,
                                      size_t msglen) {
    *nread = 0;
    return load_dir_part(b, dir, opt, part, nparts ? nparts : 1, nread, msg, msglen);
}

int run_dir_cut(const char *dir, unsigned nparts, char **out, size_t *outlen, char *msg,
                size_t msglen) {
    path_list paths = {0};
    size_t unlisted = 0;
    *out = NULL;
    *outlen = 0;
    enum run_load_error e = list_dir(dir, &paths, &unlisted, msg, msglen);
    if (e != RUN_OK)
        return -1;
    if (paths.n == 0) { /* the loader's words for it */
        size_t none = 0;
        read_paths(NULL, dir, NULL, &paths, unlisted, &none, msg, msglen);
        return -1;
    }
    unsigned *owners = calloc(paths.n, sizeof *owners);
    size_t len = 0;
    char shown[512];
    scope_escape((const uint8_t *)dir, strlen(dir), shown, sizeof shown, 0);
    int rd = owners ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (rd >= 0) {
        assign_parts(rd, &paths, nparts ? nparts : 1, owners);
        close(rd);
        for (size_t i = 0; i < paths.n; i++)
            len += 11 + strlen(paths.v[i].path) + 1;
    }
    char *buf = rd >= 0 ? malloc(len + 1) : NULL;
    if (!buf) {
        free(owners);
        free_paths(&paths);
        run_load_fail(msg, msglen, RUN_ERR_IO, "%s: cannot open, or out of memory", shown);
        return -1;
    }
    size_t at = 0;
    for (size_t i = 0; i < paths.n; i++) {
        at += (size_t)snprintf(buf + at, 11, "%u", owners[i]) + 1; /* its NUL kept */
        size_t k = strlen(paths.v[i].path) + 1;
        memcpy(buf + at, paths.v[i].path, k);
        at += k;
    }
    free(owners);
    free_paths(&paths);
    *out = buf;
    *outlen = at;
    return 0;
}

enum run_load_error run_dir_load_cut(run_model_builder *b, const char *dir, const run_options *opt,
                                     const char *cut, size_t cutlen, unsigned part, size_t *nread,
                                     char *msg, size_t msglen) {
    *nread = 0;
    path_list paths = {0};
    char shown[512];
    scope_escape((const uint8_t *)dir, strlen(dir), shown, sizeof shown, 0);
    for (size_t at = 0; at < cutlen;) {
        const char *owner = cut + at, *oe = memchr(owner, '\0', cutlen - at);
        const char *path = oe ? oe + 1 : NULL;
        const char *pe =
            path && path < cut + cutlen ? memchr(path, '\0', (size_t)(cut + cutlen - path)) : NULL;
        if (!pe) {
            free_paths(&paths);
            return run_load_fail(msg, msglen, RUN_ERR_IO, "%s: the list of parts is cut short",
                                 shown);
        }
        at = (size_t)(pe + 1 - cut);
        if (strtoul(owner, NULL, 10) != part)
            continue;
        found f = {.path = strdup(path)};
        if (!f.path || SCOPE_VEC_RESERVE(paths.v, paths.cap, paths.n + 1) < 0) {
            free(f.path);
            free_paths(&paths);
            return run_load_fail(msg, msglen, RUN_ERR_NOMEM, "%s: out of memory", shown);
        }
        paths.v[paths.n++] = f;
    }
    if (paths.n == 0)
        return RUN_OK; /* this part is empty; another holds the logs */
    return read_paths(b, dir, opt, &paths, 0, nread, msg, msglen);
}

const run_loader run_dir_loader = {
    .name = "run directory",
    .probe = probe_dir,
    .load = load_dir,
};

int run_dir_list_logs(const char *dir, run_dir_entry **v, size_t *n) {
    path_list l = {0};
    size_t unlisted = 0;
    int err = list_logs(dir, &l, &unlisted);
    if (err) {
        free_paths(&l);
        return err;
    }
    *v = l.v;
    *n = l.n;
    return 0;
}

void run_dir_entries_free(run_dir_entry *v, size_t n) {
    path_list l = {v, n, n};
    free_paths(&l);
}
