/*
 * Figures that rest on part of a phase's entries, said where they are
 * shown: percentiles from a histogram older than the phase's count (a log
 * that ended after a frame that sent counts without a fresh histogram:
 * SIGKILL, or a run still being recorded), and a wait% read on few entries
 * (the adaptive CPU-time rule reads a short phase's CPU time rarely).  The
 * text report, the browser and the JSON say the same thing from these.
 */
#ifndef SCOPE_RUN_PARTIAL_H
#define SCOPE_RUN_PARTIAL_H

#include "run_model.h"

#include <stddef.h>

/* Below this many entries with CPU time read, a wait% says how many. */
#define RUN_WAIT_FEW_ENTRIES 20

/* 1 when p's percentiles rest on fewer entries than it counts
 * (p->hist_count of p->dist.count). */
int run_phase_hist_partial(const run_phase *p);

/* 1 when p's wait% is measured on fewer than RUN_WAIT_FEW_ENTRIES entries. */
int run_phase_wait_few(const run_phase *p);

/* A wait% read on part of the entries holds for all of them only within a
 * range, whatever the rule that chose the entries read: the unread
 * entries' wall time may have been all waiting or none.  The adaptive
 * rule's sample leans (its reads follow the phase's long entries, and
 * start again just after the thread was given its CPU back), so past
 * RUN_WAIT_FEW_ENTRIES the range is said when it is at least this wide
 * (a share, 0..1). */
#define RUN_WAIT_RANGE_WIDE 0.03

/* 1 when p's wait% rests on part of its entries, however few: the range
 * it allows over all of them, [*lo, *hi] (0..1), each unread entry's time
 * all waiting or none.  The JSON's wait_range. */
int run_phase_wait_bounds(const run_phase *p, double *lo, double *hi);

/* 1 when p's wait% rests on part of its entries, on RUN_WAIT_FEW_ENTRIES
 * or more, and the range it allows over all of them, [*lo, *hi] (0..1),
 * is at least RUN_WAIT_RANGE_WIDE wide. */
int run_phase_wait_range(const run_phase *p, double *lo, double *hi);

/* What they say, as one phrase ("percentiles as of 24 of 223 entries;
 * wait% from 3 of 223 entries", "wait% from 8,109 of 20,000 entries:
 * 84 to 94% over all"), into buf; "" when none applies.
 * Returns buf. */
const char *run_phase_partial_note(const run_phase *p, char *buf, size_t cap);

#endif
