/*
 * Files the recorder creates from the calling thread: directories, and
 * writes that must not raise SIGXFSZ in the host program.
 */
#ifndef SCOPE_REC_FILES_H
#define SCOPE_REC_FILES_H

#include <signal.h>

/* Creates path and its missing parents (path is modified and restored). */
int rec_mkdir_p(char *path);

/* Writes from the calling thread (the launch file, the log header) must not
 * raise SIGXFSZ under a file-size limit: that would kill the program.  The
 * guard blocks it, and on release swallows the one such a write raised, and
 * only that one. */
typedef struct rec_xfsz_guard {
    sigset_t set, old;
    int was_pending;
} rec_xfsz_guard;

void rec_xfsz_block(rec_xfsz_guard *g);
void rec_xfsz_release(rec_xfsz_guard *g);

#endif
