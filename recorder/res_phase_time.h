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
 *
 * A phase opened with SCOPE_PHASE_IO also counts its exact bytes at each
 * exit: the bytes of its entries that ended in the interval are its own
 * (less those of SCOPE_PHASE_IO phases inside it), and only the rest of
 * the interval's bytes are shared by time, over the time those entries
 * do not account for.  So a 10 ms checkpoint that writes 3 MB in a 1 s
 * interval gets its 3 MB, not 1 % of the interval's bytes; one open at
 * a sample gets the bytes it moved so far in the interval that ends there
 * (rec_phase_clock_open_io) and the rest in the next.
 */
#ifndef SCOPE_REC_RES_PHASE_TIME_H
#define SCOPE_REC_RES_PHASE_TIME_H

#include "thread.h"

#include <stdint.h>

/* The four byte figures, in RESOURCE's order. */
enum { REC_PT_DISK_READ, REC_PT_DISK_WRITE, REC_PT_CHAR_READ, REC_PT_CHAR_WRITE, REC_PT_FIGURES };

/* One node as a take found it. */
typedef struct rec_phase_mark {
    uint64_t ns;                    /* its entries' time so far, the open one's up to now */
    uint64_t ended_ns;              /* of that, its ended entries' */
    uint64_t bytes[REC_PT_FIGURES]; /* its ended entries' exact bytes: SCOPE_PHASE_IO only */
    /* An I/O phase's open entry: its thread's counters at its start
     * (rec_io_counters' order), to count its bytes so far once the
     * sampler has read the thread's counters now (rec_phase_clock_open_io) */
    uint64_t open_at[4];
    uint8_t open_io;
} rec_phase_mark;

/* Each node as one take found it, by node idx - 1. */
typedef struct rec_phase_clock {
    rec_phase_mark *nodes;
    uint32_t n, cap;
    uint64_t at_ns;    /* CLOCK_MONOTONIC when the open entries were read */
    uint64_t at_ticks; /* the thread's ticks then; 0: not read (at_ns alone) */
} rec_phase_clock;

/* A node's part of one interval: its exact bytes, and its time as the
 * innermost phase open that they do not account for. */
typedef struct rec_phase_share {
    uint32_t node; /* its id in the log; 0: no phase open */
    uint64_t ns;
    uint64_t exact[REC_PT_FIGURES];
} rec_phase_share;

typedef struct rec_phase_shares {
    rec_phase_share *rows; /* the nodes with time or bytes, then no phase's (node 0), always */
    uint32_t n, cap;
    uint64_t exact[REC_PT_FIGURES]; /* the rows' exact bytes added up */
    /* scratch, by node idx (0: the thread's top level) */
    int64_t *self;
    int64_t (*own)[REC_PT_FIGURES];
    uint32_t cap_self, cap_own;
} rec_phase_shares;

/* t's node times now into *c.  Returns 0, or -1 when out of memory. */
int rec_phase_clock_take(rec_phase_clock *c, rec_thread *t);

/* The thread's counters now (now[4], rec_io_counters' order, read just
 * after the take c): an I/O phase's open entry has moved now - open_at so
 * far, which its mark counts among its exact bytes, with its time so far
 * among its ended entries' (its bytes are known).  Without it an entry
 * that spans a sample had the bytes it moved before the sample shared by
 * time with the phases around it, and its exact bytes, arriving whole at
 * its exit, were capped at what the next interval moved. */
void rec_phase_clock_open_io(rec_phase_clock *c, const uint64_t now[4]);

/* Each node's part of t's interval between the takes then and now, into
 * out->rows: its exact bytes, and the time it was the innermost phase open
 * less its ended entries' where it has exact bytes; what the nodes do not
 * account for of the time between the takes is no phase's.  Measured
 * between the takes, not the sampler's interval ends, so that a phase
 * open throughout is all of it however late the take came.  Returns the
 * rows' total ns, or 0 with out empty when out of memory. */
uint64_t rec_phase_split(const rec_phase_clock *then, const rec_phase_clock *now, rec_thread *t,
                         rec_phase_shares *out);

void rec_phase_clock_free(rec_phase_clock *c);
void rec_phase_shares_free(rec_phase_shares *s);

#endif
