/*
 * The process's log file: RUN/workers/<host folder>/w_<run-id>_<pid>_<uuid8>.scope
 * (the folder is the host name as scope/host_dir.h encodes it) and the
 * codec's writer on it.
 */
#ifndef SCOPE_REC_LOGFILE_H
#define SCOPE_REC_LOGFILE_H

#include "config.h"
#include "identity.h"

#include <scope/host_dir.h>
#include <scope/log_format.h>

typedef struct rec_log {
    const rec_config *cfg;           /* where it lies */
    char path[4600];                 /* for messages */
    char folder[SCOPE_HOST_DIR_CAP]; /* its host folder under RUN/workers */
    char name[128];                  /* its file name there */
    int fd;                          /* -1 when closed */
    scope_log_writer *w;             /* NULL when closed */
} rec_log;

/* Creates the file and writes its header from the calling thread. */
int rec_log_open(rec_log *log, const rec_config *cfg, const rec_identity *id, char *err,
                 size_t errlen);
/* Frees the codec's writer and closes the file, writing nothing more. */
void rec_log_close(rec_log *log);
/* Closes and deletes a log that was never used. */
void rec_log_remove(rec_log *log);

#endif
