/*
 * The synthetic-run generator's pieces (bench/gen_run.c writes the logs,
 * bench/gen_verify.c reads them back).
 */
#ifndef SCOPE_BENCH_GEN_RUN_H
#define SCOPE_BENCH_GEN_RUN_H

#include <stdint.h>
#include <stdio.h>

#define GEN_SEC ((uint64_t)1000000000u)

/* The recorder's defaults that shape a log (recorder/config.c, writer.c). */
#define GEN_FAST_PERIOD_NS   (300 * GEN_SEC) /* "auto": a frame every 5 s for 5 minutes */
#define GEN_FAST_INTERVAL_NS (5 * GEN_SEC)
#define GEN_SLOW_INTERVAL_NS (30 * GEN_SEC)  /* then every 30 s */
#define GEN_HIST_INTERVAL_NS (120 * GEN_SEC) /* SCOPE_HIST_INTERVAL */
#define GEN_CPU_MIN_NS       50000u          /* cpu_min_us=50.0 */

/* The periodic frame interval of rec_frame_interval() at "auto". */
static inline uint64_t gen_frame_interval(uint64_t since_start_ns) {
    return since_start_ns < GEN_FAST_PERIOD_NS ? GEN_FAST_INTERVAL_NS : GEN_SLOW_INTERVAL_NS;
}

/* Reads a generated log back and checks what the generator promises: an
 * intact file, the recorder's frame cadence and histogram interval,
 * definitions no later than first use, and self-consistent aggregates.
 * Prints one line per problem (at most a few) to out and returns how many
 * there were, or -1 when the file cannot be read as a log. */
int gen_verify_file(const char *path, FILE *out);

/* The snapshot frames of a generated log (bench/gen_verify_snapshot.c): the
 * recorder's schedule, each one complete (every definition, the newest
 * aggregates, marks and resource series recomputed from the intervals
 * before it), and the log read from the newest one alone ending where the
 * whole log ends.  Prints at most a few problems to out; returns how many
 * there were. */
int gen_verify_snapshots(const char *path, FILE *out);

/* Grows a zeroed array of *cap elements of `size` bytes so that index `id`
 * exists (doubling; new elements zeroed).  Returns the array, or NULL when
 * out of memory (the old one freed, *cap 0). */
void *gen_cover(void *arr, uint32_t *cap, uint32_t id, size_t size);

#endif
