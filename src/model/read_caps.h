/*
 * What reading a run may hold, whoever wrote its logs.  A log's definitions
 * cost the reader memory however few bytes of the file they took: a forged
 * log can define a phase node in a few bytes, and a shared run directory
 * can hold many logs.  So each log, and the run as a whole, keeps at most
 * so many phase nodes, counters, names and histogram buckets; what comes
 * past a cap is left out, counted, and said in a caveat (run_caveats.c).
 * docs/trust.md states the caps and the memory they bound.
 *
 * The caps per log hold everything an honest recorder writes for a thread
 * (262,144 nodes: recorder/recorder.h, REC_MAX_CHUNKS), four times over; a
 * run holds four logs at their caps, or 10,000 processes of 419 nodes each.
 * SCOPE_READ_MAX_NODES lowers them (a smaller machine, the tests): N nodes
 * and counters, 2 N names and 16 N buckets a log, four times that a run.
 *
 * A run's budget is shared by the threads that read its logs, and each log
 * returns what it held when it is released, so a follower's reread logs
 * (run_follow.h) are not counted twice.  Thread-safe.
 */
#ifndef SCOPE_READ_CAPS_H
#define SCOPE_READ_CAPS_H

#include <stdatomic.h>
#include <stdint.h>

enum read_cap_kind {
    READ_NODES,    /* phase node definitions */
    READ_COUNTERS, /* counter definitions */
    READ_NAMES,    /* string definitions */
    READ_BINS,     /* histogram buckets with entries, over a log's nodes */
    READ_KINDS
};

#define READ_MAX_NODES_PER_LOG (1u << 20) /* 1,048,576 */
#define READ_LOGS_PER_RUN      4u         /* a run holds this many logs at their caps */
#define READ_NAMES_PER_NODE    2u         /* a phase's name and its file's */
#define READ_BINS_PER_NODE     16u

typedef struct read_caps {
    uint64_t per_log[READ_KINDS], per_run[READ_KINDS];
    _Atomic uint64_t held[READ_KINDS]; /* over every log of the run */
    atomic_int refs;
} read_caps;

/* What one log holds and what its caps left out.  Zeroed: nothing. */
typedef struct read_tally {
    uint64_t held[READ_KINDS];
    uint64_t left_out[READ_KINDS]; /* distinct definitions (READ_BINS: nodes whose histogram) */
    int hit[READ_KINDS];           /* a cap refused something, counted or not */
    int by_run[READ_KINDS];        /* the run's cap did, not the log's */
    /* The cap that refused kind k as the log was read, where the reader
     * of that time said so (an HDF5 export read back); 0: this reader's. */
    uint64_t cap[READ_KINDS];
} read_tally;

/* A run's budget at the caps above, lowered by SCOPE_READ_MAX_NODES when
 * set; one reference, held by the caller.  NULL when out of memory. */
read_caps *read_caps_new(void);
read_caps *read_caps_hold(read_caps *c);
void read_caps_drop(read_caps *c); /* NULL: nothing */

/* n more of kind k for a log holding t: 0, or -1 with nothing taken when
 * its log's or its run's cap would be passed (t->hit and t->by_run say
 * which).  c NULL: the default caps of one log, no run. */
int read_caps_take(read_caps *c, read_tally *t, enum read_cap_kind k, uint64_t n);

/* Returns n of kind k that the log held. */
void read_caps_give(read_caps *c, read_tally *t, enum read_cap_kind k, uint64_t n);

/* Returns everything the log holds (it is being released). */
void read_caps_give_all(read_caps *c, read_tally *t);

/* The cap that refused kind k for the log: its run's, else its log's. */
uint64_t read_caps_cap_of(const read_caps *c, const read_tally *t, enum read_cap_kind k);

#endif
