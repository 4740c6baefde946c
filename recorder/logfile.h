/*
 * The process's log file: RUN/workers/<host folder>/w_<run-id>_<pid>_<uuid8>.scope
 * (the folder is the host name as scope/host_dir.h encodes it) and the
 * codec's writer on it.
 */
#ifndef SCOPE_REC_LOGFILE_H
#define SCOPE_REC_LOGFILE_H

#include "config.h"
#include "identity.h"
#include "own_fd.h"

#include <scope/host_dir.h>
#include <scope/log_format.h>

typedef struct rec_log {
    const rec_config *cfg;           /* where it lies */
    char path[4600];                 /* for messages */
    char folder[SCOPE_HOST_DIR_CAP]; /* its host folder under RUN/workers */
    char name[128];                  /* its file name there */
    rec_fd fd;                       /* the recorder's own (own_fd.h); none when closed or lost */
    int gone;                        /* lost, and its file cannot be found again */
    scope_log_writer *w;             /* NULL when closed */
} rec_log;

/* Creates the file and writes its header from the calling thread. */
int rec_log_open(rec_log *log, const rec_config *cfg, const rec_identity *id, char *err,
                 size_t errlen);

/* Before each write: whether the log's descriptor is still the log's.  The
 * program may have closed it or put a file of its own in its place; then
 * the log is opened again by its path (the directories below RUN one at a
 * time, following no link) and goes on, when that finds the very file it
 * lost (same device and inode): its frames follow the ones before, and a
 * reader reads one log.  Returns 0 when it can be written; a negative
 * errno when it cannot be now (no descriptor to spare, say: tried again at
 * the next write); with log->gone set when its file is not there any more,
 * which is for good.  One line on stderr says what became of it, once per
 * log and outcome. */
int rec_log_usable(rec_log *log);

/* Frees the codec's writer and closes the file, writing nothing more. */
void rec_log_close(rec_log *log);
/* Closes and deletes a log that was never used. */
void rec_log_remove(rec_log *log);

#endif
