/*
 * run_load: find the logs of a run directory, read them in parallel, and
 * hand them to the merge.  Everything that can go wrong with the path
 * itself is said here in one line; everything that goes wrong with one log
 * becomes a caveat naming that worker.
 */
#define _GNU_SOURCE /* get_nprocs */
#include "run_internal.h"
#include "text_escape.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>

/* One process alone, as a role of one (run_worker_role). */
typedef struct worker_role {
    run_role role;
    size_t worker; /* role.workers points here */
} worker_role;

/* The model with what it owns behind it; renderers see only `pub`. */
typedef struct run_model_impl {
    run_model pub;
    arena mem;
    worker_log *logs; /* kept after loading, to merge one process alone */
    size_t nlogs;
    size_t ndominant;    /* as loaded (run_options) */
    worker_role **alone; /* run_worker_role's, per worker (nlogs); NULL until asked */
} run_model_impl;

static run_model_impl *impl_of(run_model *m) {
    return (run_model_impl *)((char *)m - offsetof(run_model_impl, pub));
}

arena *run_arena(run_model *m) {
    return &impl_of(m)->mem;
}

/* ---- finding the logs ---------------------------------------------------- */

typedef struct path_list {
    char **v;
    size_t n, cap;
} path_list;

static int add_path(path_list *l, const char *a, const char *b) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v, l->cap = cap;
    }
    if (asprintf(&l->v[l->n], "%s/%s", a, b) < 0)
        return -1;
    l->n++;
    return 0;
}

static void free_paths(path_list *l) {
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static int by_string(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_ext(const char *name) {
    size_t n = strlen(name), e = strlen("." SCOPE_LOG_FILE_EXT);
    return n > e && !strcmp(name + n - e, "." SCOPE_LOG_FILE_EXT);
}

/* The logs under RUN/workers/<host>/, as paths relative to RUN.  Returns
 * 0, or an errno from listing workers/ itself (host folders that cannot be
 * listed are skipped; the caller learns nothing was found). */
static int list_logs(const char *dir, path_list *out, size_t *unlisted) {
    char workers[4096];
    snprintf(workers, sizeof workers, "%s/workers", dir);
    DIR *d = opendir(workers);
    if (!d)
        return errno;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char host[4096 + 256];
        snprintf(host, sizeof host, "%s/%s", workers, e->d_name);
        DIR *h = opendir(host);
        if (!h) {
            if (errno != ENOTDIR)
                (*unlisted)++;
            continue;
        }
        struct dirent *f;
        while ((f = readdir(h))) {
            if (f->d_name[0] == '.' || !has_ext(f->d_name))
                continue;
            char rel[600];
            snprintf(rel, sizeof rel, "workers/%s", e->d_name);
            if (add_path(out, rel, f->d_name) < 0) {
                closedir(h);
                closedir(d);
                return ENOMEM;
            }
        }
        closedir(h);
    }
    closedir(d);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_string);
    return 0;
}

/* ---- reading them in parallel -------------------------------------------- */

typedef struct read_job {
    const char *dir;
    char **paths;
    worker_log *logs;
    size_t n;
    atomic_size_t next;
} read_job;

static void *read_some(void *arg) {
    read_job *job = arg;
    size_t i;
    while ((i = atomic_fetch_add(&job->next, 1)) < job->n) {
        char full[8192];
        snprintf(full, sizeof full, "%s/%s", job->dir, job->paths[i]);
        log_read(full, &job->logs[i]);
    }
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
    read_some(job); /* this thread reads too; with no helper it reads them all */
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}

/* ---- run_load ------------------------------------------------------------ */

static enum run_load_error fail(char *msg, size_t len, enum run_load_error e, const char *fmt,
                                ...) {
    if (msg && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return e;
}

/* Checks the path before anything is read, so each kind of wrong path gets
 * its own plain sentence. */
static enum run_load_error check_dir(const char *dir, char *msg, size_t len) {
    char shown[512];
    scope_escape((const uint8_t *)dir, strlen(dir), shown, sizeof shown, 0);
    struct stat st;
    if (stat(dir, &st) < 0) {
        if (errno == EACCES)
            return fail(msg, len, RUN_ERR_PERMISSION, "%s: permission denied", shown);
        return fail(msg, len, RUN_ERR_NOT_FOUND, "%s: no such run directory", shown);
    }
    if (!S_ISDIR(st.st_mode)) {
        if (has_ext(dir))
            return fail(msg, len, RUN_ERR_NOT_DIR,
                        "%s is one process's log, not a run directory "
                        "('scope-tui dump %s' reads a single log)",
                        shown, shown);
        return fail(msg, len, RUN_ERR_NOT_DIR, "%s is a file, not a run directory", shown);
    }
    char workers[4096];
    snprintf(workers, sizeof workers, "%s/workers", dir);
    if (stat(workers, &st) < 0 || !S_ISDIR(st.st_mode)) {
        DIR *d = opendir(dir);
        if (!d && errno == EACCES)
            return fail(msg, len, RUN_ERR_PERMISSION, "%s: permission denied", shown);
        int empty = 1;
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)))
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                    empty = 0;
            closedir(d);
        }
        return fail(msg, len, RUN_ERR_NOT_RUN,
                    empty ? "%s is empty: no process has recorded into it"
                          : "%s is not a scope run directory (it has no workers/ folder)",
                    shown);
    }
    return RUN_OK;
}

enum run_load_error run_load(const char *dir, const run_options *opt, run_model **out, char *msg,
                             size_t msglen) {
    *out = NULL;
    run_options defaults = {0};
    if (!opt)
        opt = &defaults;
    enum run_load_error e = check_dir(dir, msg, msglen);
    if (e != RUN_OK)
        return e;
    char shown[512];
    scope_escape((const uint8_t *)dir, strlen(dir), shown, sizeof shown, 0);

    path_list paths = {0};
    size_t unlisted = 0;
    int err = list_logs(dir, &paths, &unlisted);
    if (err) {
        free_paths(&paths);
        if (err == EACCES)
            return fail(msg, msglen, RUN_ERR_PERMISSION, "%s/workers: permission denied", shown);
        return fail(msg, msglen, err == ENOMEM ? RUN_ERR_NOMEM : RUN_ERR_IO,
                    "%s/workers: cannot list: %s", shown, strerror(err));
    }
    if (paths.n == 0) {
        free_paths(&paths);
        if (unlisted)
            return fail(msg, msglen, RUN_ERR_PERMISSION,
                        "%s/workers: %zu host folder(s) could not be listed "
                        "(permission denied?) and no log was found",
                        shown, unlisted);
        return fail(msg, msglen, RUN_ERR_EMPTY, "%s/workers holds no scope logs (*.%s)", shown,
                    SCOPE_LOG_FILE_EXT);
    }

    run_model_impl *impl = calloc(1, sizeof *impl);
    worker_log *logs = impl ? calloc(paths.n, sizeof *logs) : NULL;
    if (!logs) {
        free(impl);
        free_paths(&paths);
        return fail(msg, msglen, RUN_ERR_NOMEM, "%s: out of memory", shown);
    }
    impl->logs = logs;
    impl->nlogs = paths.n;
    impl->ndominant = opt->ndominant;
    read_job job = {.dir = dir, .paths = paths.v, .logs = logs, .n = paths.n};
    read_all(&job, opt->threads);

    run_model *m = &impl->pub;
    int nomem = 0, readable = 0;
    m->dir = arena_dup(&impl->mem, dir, strlen(dir));
    m->workers = arena_alloc(&impl->mem, paths.n * sizeof *m->workers);
    nomem |= !m->dir || !m->workers;
    for (size_t i = 0; i < paths.n && !nomem; i++) {
        nomem |= logs[i].nomem;
        readable += logs[i].w.readable;
        m->workers[i] = logs[i].w;
        m->workers[i].path = run_str_dup(&impl->mem, paths.v[i], strlen(paths.v[i]));
    }
    m->nworkers = paths.n;
    free_paths(&paths);
    if (!nomem && readable == 0) {
        char first[300];
        snprintf(first, sizeof first, "%s", logs[0].open_msg);
        run_free(m);
        return fail(msg, msglen, RUN_ERR_NO_READABLE,
                    "%s: none of its %zu log(s) could be read (first: %s)", shown, job.n, first);
    }
    if (nomem || run_merge(m, logs, opt) < 0 || run_add_caveats(m, logs) < 0) {
        run_free(m);
        return fail(msg, msglen, RUN_ERR_NOMEM, "%s: out of memory while loading", shown);
    }
    *out = m;
    return RUN_OK;
}

/* ---- one process alone --------------------------------------------------- */

const run_role *run_worker_role(run_model *m, size_t worker) {
    run_model_impl *impl = impl_of(m);
    if (worker >= m->nworkers || worker >= impl->nlogs || m->workers[worker].role_index == SIZE_MAX)
        return NULL;
    if (!impl->alone && !(impl->alone = calloc(impl->nlogs, sizeof *impl->alone)))
        return NULL;
    if (impl->alone[worker])
        return &impl->alone[worker]->role;
    worker_role *wr = calloc(1, sizeof *wr);
    if (!wr)
        return NULL;
    wr->worker = worker;
    wr->role = (run_role){.name = m->workers[worker].role, .nprocs = 1, .workers = &wr->worker};
    run_options opt = {.iteration_name = m->iteration_name, .ndominant = impl->ndominant};
    if (run_merge_alone(m, impl->logs, &wr->role, &opt) < 0) {
        run_role_free(&wr->role);
        free(wr);
        return NULL;
    }
    impl->alone[worker] = wr;
    return &wr->role;
}

void run_free(run_model *m) {
    if (!m)
        return;
    run_model_impl *impl = impl_of(m);
    if (impl->alone) {
        for (size_t i = 0; i < impl->nlogs; i++) {
            if (impl->alone[i])
                run_role_free(&impl->alone[i]->role);
            free(impl->alone[i]);
        }
        free(impl->alone);
    }
    for (size_t i = 0; i < impl->nlogs; i++)
        log_release(&impl->logs[i]);
    free(impl->logs);
    run_merge_free(m);
    arena_free(&impl->mem);
    free(impl);
}
