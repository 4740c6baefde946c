/*
 * One resource figure over the whole life of the process in a fixed number
 * of buckets (docs/format.md 5.19, RESOURCE_SERIES): what a snapshot frame
 * carries so that a reader draws hours of sparkline without reading back
 * every 1 Hz interval.
 *
 * Each bucket keeps the intervals that started in it: how many, their
 * summed length, the smallest and largest per-interval value, and their
 * sum.  Buckets start as wide as the sampling interval; when an interval
 * falls past the last bucket, neighbours are merged pairwise and the width
 * doubles, as often as it takes.  So a series costs the same memory after
 * a week as after a minute, sums and extremes stay exact, and only the
 * time resolution coarsens.
 *
 * REC_SERIES_BUCKETS is 256: once a process has run longer than 128
 * sampling intervals, at least 128 buckets hold its whole run (a 12-hour
 * run at 1 Hz: 169 buckets of 256 s), about what the sparkline of a
 * 160-column terminal shows; the 1 Hz intervals after the snapshot a
 * reader starts at are there at full resolution.  A series is 256 x 40
 * bytes, 10 KiB, and a snapshot carries each process figure's in about
 * 1 KiB (bench/bench_series).
 */
#ifndef SCOPE_REC_RES_SERIES_H
#define SCOPE_REC_RES_SERIES_H

#include <scope/log_format.h>

#include <stdint.h>

#define REC_SERIES_BUCKETS 256u

typedef struct rec_series {
    uint64_t start_ns;      /* start of bucket 0; set by the first interval */
    uint64_t bucket_ns;     /* each bucket's width; 0: nothing added yet */
    uint64_t samples_total; /* intervals added */
    uint32_t nused;         /* buckets 0 .. nused-1 may hold intervals */
    scope_series_bucket b[REC_SERIES_BUCKETS];
} rec_series;

/* An empty series whose buckets start first_bucket_ns wide (at least 1). */
void rec_series_init(rec_series *s, uint64_t first_bucket_ns);

/* One interval starting at mono_ns, interval_ns long, whose figure was
 * value.  An interval starting before bucket 0 counts in bucket 0. */
void rec_series_add(rec_series *s, uint64_t mono_ns, uint64_t interval_ns, uint64_t value);

/* The record that carries s (its buckets point into s). */
scope_rec_resource_series rec_series_record(const rec_series *s, uint32_t thread, uint32_t figure,
                                            uint32_t device);

#endif
