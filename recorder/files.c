/*
 * The run's directories and SIGXFSZ-safe writes for identity.c and
 * logfile.c (files.h).
 */
#define _GNU_SOURCE
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void rec_file_error(char *err, size_t errlen, const char *verb, const char *shown, int errnum) {
    if (errnum == ELOOP)
        snprintf(err, errlen, "cannot %s %s: a symbolic link is in the way (not followed)", verb,
                 shown);
    else if (errnum == ENOTDIR)
        snprintf(err, errlen, "cannot %s %s: something that is not a directory is in the way", verb,
                 shown);
    else
        snprintf(err, errlen, "cannot %s %s: %s", verb, shown, strerror(errnum));
}

/* mkdirat with the mode asked for; 1 when it created the directory, 0 when
 * something was there already, -1 on error. */
static int make_dir(int parent, const char *name, const rec_dir_mode *mode) {
    if (mkdirat(parent, name, mode->mode & 0777) == 0)
        return 1;
    return errno == EEXIST ? 0 : -1;
}

/* An exact mode holds whatever the umask, and setgid (a shared group's
 * directory) or sticky bits mkdir does not set; only on what was created. */
static int apply_exact(int fd, const rec_dir_mode *mode) {
    return mode->exact ? fchmod(fd, (mode_t)mode->mode) : 0;
}

int rec_run_dir_resolve(char *path, size_t cap, const rec_dir_mode *mode, char *err,
                        size_t errlen) {
    /* The path's own components: created as a shell's mkdir -p would. */
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int made = make_dir(AT_FDCWD, path, mode);
        if (made == 1 && mode->exact)
            chmod(path, (mode_t)mode->mode);
        *p = '/';
        if (made < 0) {
            rec_file_error(err, errlen, "create", path, errno);
            return -1;
        }
    }
    int made = make_dir(AT_FDCWD, path, mode);
    if (made < 0 || (made == 1 && mode->exact && chmod(path, (mode_t)mode->mode) < 0)) {
        rec_file_error(err, errlen, "create", path, errno);
        return -1;
    }
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        rec_file_error(err, errlen, "resolve", path, errno);
        return -1;
    }
    if (strlen(real) >= cap) {
        snprintf(err, errlen, "run directory path too long");
        return -1;
    }
    strcpy(path, real);
    return 0;
}

int rec_run_dir_open(const char *run_dir, const rec_dir_mode *mode, char *err, size_t errlen) {
    int fd = open(run_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        char again[PATH_MAX];
        snprintf(again, sizeof again, "%s", run_dir);
        if (rec_run_dir_resolve(again, sizeof again, mode, err, errlen) < 0)
            return -1;
        fd = open(run_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0)
        rec_file_error(err, errlen, "open", run_dir, errno);
    return fd;
}

int rec_subdir_open(int parent, const char *name, const char *shown, const rec_dir_mode *mode,
                    char *err, size_t errlen) {
    int made = make_dir(parent, name, mode);
    if (made < 0) {
        rec_file_error(err, errlen, "create", shown, errno);
        return -1;
    }
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        /* O_DIRECTORY | O_NOFOLLOW on a link fails as ENOTDIR: say which. */
        struct stat st;
        int why = errno == ENOTDIR && fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                          S_ISLNK(st.st_mode)
                      ? ELOOP
                      : errno;
        rec_file_error(err, errlen, "open", shown, why);
        return -1;
    }
    if (made == 1 && apply_exact(fd, mode) < 0) {
        rec_file_error(err, errlen, "set the mode of", shown, errno);
        close(fd);
        return -1;
    }
    return fd;
}

void rec_xfsz_block(rec_xfsz_guard *g) {
    sigset_t pending;
    sigemptyset(&g->set);
    sigaddset(&g->set, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &g->set, &g->old);
    sigpending(&pending);
    g->was_pending = sigismember(&pending, SIGXFSZ);
}

void rec_xfsz_release(rec_xfsz_guard *g) {
    sigset_t pending;
    sigpending(&pending);
    if (!g->was_pending && sigismember(&pending, SIGXFSZ)) {
        struct timespec zero = {0, 0};
        sigtimedwait(&g->set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}
