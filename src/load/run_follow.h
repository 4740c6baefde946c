/*
 * Following a run directory while it is recorded: each refresh reads only
 * what changed since the one before, and builds the model again from the
 * processes' tables it keeps, so that a refresh of a large live run costs
 * what was appended, not what was recorded.
 *
 * For each log the follower keeps the tables read so far (worker_log.h),
 * where reading goes on (its newest intact frame, run_log.h) and the
 * file's identity: device, inode, size, modification time and a hash of
 * its first bytes (the header and the start of the frame that names the
 * process).  On refresh:
 *   - a log unchanged (same identity) is not opened;
 *   - a log that grew is read on from its newest intact frame, which must
 *     still be there, the same (a frame cut off mid-write before is read
 *     whole now);
 *   - a log cut back, replaced (another inode, other first bytes, another
 *     frame where the newest one was) or unreadable is read again from the
 *     start;
 *   - a log new in the directory (another process, a new attempt) is read;
 *   - a log gone from the directory keeps the figures read before, is said
 *     in a caveat and no longer counts as running.
 * The directory is walked as the run-directory loader walks it (no link
 * followed, every file opened beneath RUN).
 */
#ifndef SCOPE_RUN_FOLLOW_H
#define SCOPE_RUN_FOLLOW_H

#include "run_model.h"

#include <stddef.h>
#include <stdint.h>

typedef struct run_follow run_follow;

/* What the newest refresh did, log by log. */
typedef struct run_follow_stats {
    size_t logs;       /* in the model it built */
    size_t unchanged;  /* not opened */
    size_t read_on;    /* read from where the refresh before stopped */
    size_t read_again; /* cut back, replaced or unreadable: read from the start */
    size_t added;      /* new in the directory */
    size_t vanished;   /* gone from the directory since the refresh before */
    uint64_t bytes;    /* file bytes the reads covered */
} run_follow_stats;

/* Loads path as run_load does (run_load.h) into *m.  When path is a run
 * directory, *out is a follower of it, which owns the processes' tables
 * from now on; otherwise (an imported file, which does not grow) *out is
 * NULL.  opt's strings must outlive the follower.  On failure nothing is
 * kept and msg says why, as run_load says it. */
enum run_load_error run_follow_open(run_follow **out, const char *path, const run_options *opt,
                                    run_model **m, char *msg, size_t msglen);

/* Reads what changed since the model *m (the one this follower gave last:
 * its place in views is to be taken before) and replaces it: *m is freed
 * and set to the new model.  Returns RUN_OK, or an error with msg: when
 * nothing could be read (the run directory is gone or cannot be listed) *m
 * is left as it was and the follower may be asked again later; when
 * building failed after reading (out of memory) *m is freed and NULL, and
 * the follower is to be closed (load the run anew). */
enum run_load_error run_follow_refresh(run_follow *f, run_model **m, char *msg, size_t msglen);

const run_follow_stats *run_follow_last(const run_follow *f);

/* Frees the follower and the tables it keeps: after run_free of the last
 * model it gave. */
void run_follow_close(run_follow *f);

#endif
