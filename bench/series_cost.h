/*
 * What a snapshot's resource series (RESOURCE_SERIES, recorder/res_series.h)
 * cost after a process has run some hours at 1 Hz, measured with libscope's
 * own series code and the real log writer: bench_series prints it, and
 * bench_recorder --log-size adds it to each snapshot of its hours.
 */
#ifndef SCOPE_BENCH_SERIES_COST_H
#define SCOPE_BENCH_SERIES_COST_H

#include <stdint.h>

typedef struct series_cost {
    unsigned figures;      /* 8 process figures and 5 per GPU */
    unsigned buckets_used; /* of REC_SERIES_BUCKETS */
    uint64_t bucket_ns;
    uint64_t memory;     /* bytes of every rec_series */
    uint64_t raw;        /* bytes of the records, uncompressed */
    uint64_t compressed; /* bytes of the one frame holding them, as a snapshot carries them */
} series_cost;

/* Feeds a process sampled every second for `hours` (RSS drifting slowly,
 * CPU time busy with noise, I/O in bursts with idle seconds between, and
 * each GPU's busy and run shares and memory) to one series per figure,
 * then writes every series as one frame.  Returns 0, or -1 when memory or
 * a temporary file could not be had. */
int series_cost_measure(double hours, int gpus, series_cost *out);

#endif
