/* Several runs from a command line; see cmd_runs.h. */
#define _GNU_SOURCE
#include "cmd_runs.h"

#include "cmd_util.h"
#include "text_escape.h"

#include <dirent.h>
#include <fcntl.h>
#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Entries looked at in a directory of runs: bounded work on any directory. */
#define DIR_ENTRIES_MAX 100000

static void free_names(char **names, size_t n) {
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int by_string(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Whether `name` in dirfd is a directory holding workers/, neither a link. */
static int is_run_dir(int dirfd, const char *name) {
    struct stat st;
    char sub[4096];
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    if ((size_t)snprintf(sub, sizeof sub, "%s/workers", name) >= sizeof sub)
        return 0;
    return fstatat(dirfd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* The runs in directory `dir`, sorted, into *names (n of them); -1 when it
 * cannot be listed or memory runs out. */
static int runs_in(const char *dir, char ***names, size_t *n) {
    *names = NULL;
    *n = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    size_t cap = 0, seen = 0;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && seen++ < DIR_ENTRIES_MAX && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !is_run_dir(dirfd(d), e->d_name))
            continue;
        if (SCOPE_VEC_RESERVE(*names, cap, *n + 1) < 0) {
            rc = -1;
            break;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!((*names)[*n] = malloc(len))) {
            rc = -1;
            break;
        }
        snprintf((*names)[(*n)++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (rc != 0) {
        free_names(*names, *n);
        *names = NULL;
        *n = 0;
    } else if (*n) {
        qsort(*names, *n, sizeof **names, by_string);
    }
    return rc;
}

static int add(const char *cmd, cmd_runs *r, run_model *m) {
    /* Exactly one more: a few runs at most (RUN_CMP_MAX_BASE). */
    if (SCOPE_VEC_RESIZE(r->v, r->n + 1) < 0) {
        run_free(m);
        fprintf(stderr, "scope-tui %s: out of memory\n", cmd);
        return -1;
    }
    r->v[r->n++] = m;
    return 0;
}

static int too_many(const char *cmd, size_t most) {
    fprintf(stderr, "scope-tui %s: more than %zu runs named; name fewer\n", cmd, most);
    return -1;
}

/* One argument: a run, or a directory of runs. */
static int load_one(const char *cmd, const char *path, size_t most, const run_options *opt,
                    cmd_runs *out) {
    char msg[1024];
    run_model *m = NULL;
    enum run_load_error e = run_load(path, opt, &m, msg, sizeof msg);
    if (e == RUN_OK) {
        if (out->n < most)
            return add(cmd, out, m);
        run_free(m);
        return too_many(cmd, most);
    }
    char **names = NULL;
    size_t n = 0;
    if (e != RUN_ERR_NOT_RUN || runs_in(path, &names, &n) != 0 || n == 0) {
        fprintf(stderr, "scope-tui %s: %s\n", cmd, msg);
        return -1;
    }
    int rc = out->n + n > most ? too_many(cmd, most) : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        run_model *one = cmd_load_run(cmd, names[i], opt);
        rc = one ? add(cmd, out, one) : -1;
    }
    free_names(names, n);
    return rc;
}

int cmd_load_runs(const char *cmd, char *const *paths, size_t npaths, size_t most,
                  const run_options *opt, cmd_runs *out) {
    *out = (cmd_runs){0};
    for (size_t i = 0; i < npaths; i++)
        if (load_one(cmd, paths[i], most, opt, out) != 0) {
            cmd_runs_free(out);
            return -1;
        }
    return 0;
}

void cmd_runs_free(cmd_runs *r) {
    for (size_t i = 0; i < r->n; i++)
        run_free(r->v[i]);
    free(r->v);
    *r = (cmd_runs){0};
}
