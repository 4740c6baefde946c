/*
 * Records kept to restate in every snapshot frame after the state they
 * came from is gone: the last definitions and aggregates of a thread that
 * exited, whose nodes the recorder frees (source_phases.c).  A snapshot
 * holds every definition and aggregate the file has (docs/format.md
 * 5.2.1), so these stay for the life of the file: encoded, a few dozen
 * bytes a record.  Writer thread only.
 */
#ifndef SCOPE_REC_KEPT_RECORDS_H
#define SCOPE_REC_KEPT_RECORDS_H

#include "frame.h"

/* Keeps r, encoded.  Returns 0, or -1 without memory (the record is lost
 * to later snapshots, not to the log: it is in a frame already). */
int rec_kept_add(const scope_record *r);
/* Adds every record kept, in the order kept, to the frame f. */
void rec_kept_replay(const rec_frame_ctx *f);
/* Records kept, and their encoded bytes. */
size_t rec_kept_count(void);
size_t rec_kept_bytes(void);
/* A new file: none of them belongs to it. */
void rec_kept_clear(void);

#endif
