/*
 * bench_series: what a snapshot's resource series (RESOURCE_SERIES,
 * recorder/res_series.h) cost in the log and in memory after a process has
 * run H hours at 1 Hz.
 *
 *   bench_series [HOURS] [GPUS]   (default 12 hours, 0 GPUs)
 *
 * Feeds one rec_series per figure the intervals of a process sampled every
 * second for HOURS (libscope's own series code, linked from its static
 * archive): RSS drifting slowly, CPU time busy with noise, I/O in bursts
 * with idle seconds between, and for each GPU its busy and run shares and
 * memory.  Then writes one frame holding every series, as a snapshot
 * carries them, through the real log writer (level 3, as the recorder), and
 * prints its size next to the figures' memory.
 */
#include "series_cost.h"

#include "res_series.h"

#include <stdio.h>
#include <stdlib.h>

#define SEC 1000000000ull

int main(int argc, char **argv) {
    double hours = argc > 1 ? atof(argv[1]) : 12;
    int gpus = argc > 2 ? atoi(argv[2]) : 0;
    if (hours <= 0 || gpus < 0 || gpus > 8) {
        fprintf(stderr, "usage: bench_series [HOURS] [GPUS (0..8)]\n");
        return 2;
    }
    series_cost c;
    if (series_cost_measure(hours, gpus, &c) < 0) {
        fprintf(stderr, "bench_series: out of memory or no temporary file\n");
        return 1;
    }
    printf("resource series of a process sampled at 1 Hz for %g h, %d GPU%s\n", hours, gpus,
           gpus == 1 ? "" : "s");
    printf("  %-40s %10u\n", "series (figures)", c.figures);
    printf("  %-40s %10u of %u, %llu s wide\n", "buckets used", c.buckets_used, REC_SERIES_BUCKETS,
           (unsigned long long)(c.bucket_ns / SEC));
    printf("  %-40s %10.1f KiB\n", "memory", (double)c.memory / 1024);
    printf("  %-40s %10.1f KiB\n", "records, uncompressed", (double)c.raw / 1024);
    printf("  %-40s %10.1f KiB\n", "in the log (one frame, compressed)",
           (double)c.compressed / 1024);
    return 0;
}
