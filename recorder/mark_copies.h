/*
 * The marks this log holds, kept for its snapshots: a snapshot frame holds
 * no events, so it restates the marks written before it as MARK_STATE
 * records (docs/format.md 5.20), and a reader that starts there still knows
 * the process's signals, shutdowns, caveats and running totals.
 *
 * Bounded as the format says, so memory stays the same over a run of any
 * length: of the marks whose value is a running total (DROPPED, FOLDED,
 * UNBALANCED end-empty and left-in-block) only the newest per thread and subkind is
 * kept, in the slot of the first; of the rest, the first REC_MARK_COPIES
 * copies, and a count of the marks left out past them.  Writer thread only.
 */
#ifndef SCOPE_REC_MARK_COPIES_H
#define SCOPE_REC_MARK_COPIES_H

#include "recorder.h"

#include <scope/log_format.h>

#define REC_MARK_COPIES 1024u

/* A mark was added to a frame: keep its copy (its text is copied). */
void rec_mark_copies_keep(const scope_rec_mark *m);
/* The copies kept, oldest first (i < rec_mark_copies_count()). */
uint32_t rec_mark_copies_count(void);
const scope_rec_mark *rec_mark_copies_at(uint32_t i);
/* Marks that found no room (or no memory for their text). */
uint64_t rec_mark_copies_left_out(void);
/* A new file (a forked child's): it holds none of these marks. */
void rec_mark_copies_clear(void);

#endif
