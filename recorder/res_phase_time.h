/*
 * Where a thread's time went between two samples of the resource sampler:
 * how long each phase node was the innermost phase open on it, and how
 * long no phase was open.  The sampler shares each interval's bytes out in
 * those proportions (source_resources.c), so a phase gets the bytes of the
 * part of the interval it was open, not the whole interval it began in.
 *
 * Nothing is added to the entry or exit: a take reads what the phases
 * source reads for frames, from the writer thread.  Each node's time so
 * far is its ended entries' wall_ns (under the node's sequence counter)
 * plus, for the nodes on the open stack, their open entry's time up to
 * now.  Two takes differenced give each node's time in the interval,
 * children included; less its children's, the time it was innermost.
 * An entry that ends between the read of its node and the read of the
 * stack counts in neither until the next take: time moves to the next
 * interval, none is lost or counted twice.
 */
#ifndef SCOPE_REC_RES_PHASE_TIME_H
#define SCOPE_REC_RES_PHASE_TIME_H

#include "thread.h"

#include <stdint.h>

/* Each node's time so far, by node idx - 1, as one take found it. */
typedef struct rec_phase_clock {
    uint64_t *ns;
    uint32_t n, cap;
    uint64_t at_ns;    /* CLOCK_MONOTONIC when the open entries were read */
    uint64_t at_ticks; /* the thread's ticks then; 0: not read (at_ns alone) */
} rec_phase_clock;

/* A node's time as the innermost phase open, in one interval. */
typedef struct rec_phase_share {
    uint32_t node; /* its id in the log; 0: no phase open */
    uint64_t ns;
} rec_phase_share;

typedef struct rec_phase_shares {
    rec_phase_share *rows; /* the nodes with time, then no phase's (node 0) last */
    uint32_t n, cap;
    int64_t *self; /* scratch: by node idx, 0 for the thread's top level */
    uint32_t cap_self;
} rec_phase_shares;

/* t's node times now into *c.  Returns 0, or -1 when out of memory. */
int rec_phase_clock_take(rec_phase_clock *c, rec_thread *t);

/* The time each node of t was the innermost phase open between the takes
 * then and now, into out->rows; what the nodes do not account for of the
 * time between the two is no phase's.  Measured between the takes, not
 * the sampler's interval ends, so that a phase open throughout is all of
 * it however late the take came.  Returns the rows' total ns (0: no time
 * to share by), or 0 with out empty when out of memory. */
uint64_t rec_phase_split(const rec_phase_clock *then, const rec_phase_clock *now, rec_thread *t,
                         rec_phase_shares *out);

void rec_phase_clock_free(rec_phase_clock *c);
void rec_phase_shares_free(rec_phase_shares *s);

#endif
