/*
 * The scratch files of scope-reduce's parts (reduce_run.h).
 */
#ifndef SCOPE_REDUCE_SCRATCH_H
#define SCOPE_REDUCE_SCRATCH_H

#include <stddef.h>

/* A private scratch file for a part, in a folder of its own (0700) under
 * $TMPDIR or /tmp: *dir and *file its paths, its descriptor returned, -1
 * when it cannot be made.  libhdf5 opens files by a name that resolves to
 * a folder's entry, so a memfd or an O_TMPFILE file will not do; the
 * folder keeps others from swapping the name. */
int scratch_open(char *dir, size_t dircap, char *file, size_t filecap);

/* Closes fd and removes the file and its folder (fd -1: nothing). */
void scratch_close(int fd, const char *dir, const char *file);

/* From here on SIGTERM, SIGINT and SIGHUP (those not ignored) remove the
 * scratch file open at the time before they end the process as they would
 * have: a launcher ends the other ranks of a failed job with SIGTERM. */
void guard_scratch(void);

#endif
