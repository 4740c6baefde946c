/*
 * Resource series as a snapshot carries them (docs/format.md 5.19): each
 * figure of the RESOURCE intervals a process wrote, over its whole life, in
 * a fixed number of buckets whose width doubles as the process runs longer.
 * The generator folds its own RESOURCE records into them (bench/gen_run.c)
 * and the verifier recomputes each bucket from the records it read
 * (bench/gen_verify_snapshot.c); both take the figures of a record from
 * gen_series_figures, the table of 5.19.
 */
#ifndef SCOPE_BENCH_GEN_SERIES_H
#define SCOPE_BENCH_GEN_SERIES_H

#include "res_series.h"

#include <scope/log_format.h>

#include <stdint.h>

/* The first bucket width, before any doubling: the sampler's 1 s interval. */
#define GEN_SERIES_BUCKET0_NS 1000000000ull

/* Per process: the 8 process-level figures and 5 per GPU, for 2 GPUs. */
#define GEN_SERIES_MAX 18

/* One figure's series, kept by the recorder's own code (recorder/res_series.c),
 * so that a generated run has the recorder's buckets exactly. */
typedef struct gen_series {
    uint32_t figure, device; /* thread is always 0: the process as a whole */
    rec_series s;
} gen_series;

/* One figure of one RESOURCE record: which series it goes to, and its value. */
typedef struct gen_figure {
    uint32_t figure, device;
    uint64_t value;
} gen_figure;

/* The figures a process-level RESOURCE record measured (its presence bits
 * and its GPU entries' bits), into out[GEN_SERIES_MAX]; returns how many.
 * A thread's record (thread != 0) gives none: series are per process. */
int gen_series_figures(const scope_rec_resource *r, gen_figure *out);

/* The process's series: at most GEN_SERIES_MAX, found or added by key. */
typedef struct gen_series_set {
    int n;
    gen_series s[GEN_SERIES_MAX];
} gen_series_set;

void gen_series_set_init(gen_series_set *set);

/* Folds one process-level RESOURCE record into its figures' series. */
void gen_series_set_add(gen_series_set *set, const scope_rec_resource *r);

/* The RESOURCE_SERIES record of a series (pointers into it). */
scope_rec_resource_series gen_series_record(const gen_series *s);

#endif
