/*
 * The scope event log as a source of the model: one log file read into one
 * worker_log (its newest figures, the marks that become caveats, and what
 * the reader had to skip).
 */
#ifndef SCOPE_RUN_LOG_H
#define SCOPE_RUN_LOG_H

#include "worker_log.h"

/* Reads the log at relpath below the directory open on dirfd, following no
 * symbolic link (scope_log_reader_open_beneath), into *log (readied by
 * worker_log_init) and settles its totals.  Never fails as a whole: an
 * unreadable file leaves open_rc < 0 with its message, and running out of
 * memory sets log->nomem. */
void log_read(int dirfd, const char *relpath, worker_log *log);

/* Reads on a log that log_read (or this) read before, from its newest
 * intact frame: the frames appended since, a frame that was cut off
 * mid-write then included, are added and the totals settled again.
 * Returns 1, or 0 with the log untouched when it cannot go on: no frame was
 * read before, the file cannot be opened, is shorter than it was, or no
 * longer holds that frame where it was (it was cut back or replaced), so
 * the caller reads it again from the start. */
int log_read_more(int dirfd, const char *relpath, worker_log *log);

#endif
