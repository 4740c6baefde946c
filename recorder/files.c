/*
 * Directories and SIGXFSZ-safe writes for identity.c and logfile.c.
 */
#define _GNU_SOURCE
#include "files.h"

#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

int rec_mkdir_p(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0777);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return -1;
    return 0;
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
