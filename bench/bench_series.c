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
#include "res_series.h"

#include <scope/log_format.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SEC 1000000000ull

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv) {
    double hours = argc > 1 ? atof(argv[1]) : 12;
    int gpus = argc > 2 ? atoi(argv[2]) : 0;
    if (hours <= 0 || gpus < 0 || gpus > 8) {
        fprintf(stderr, "usage: bench_series [HOURS] [GPUS (0..8)]\n");
        return 2;
    }
    unsigned nfig = 8 + 5 * (unsigned)gpus;
    rec_series *s = calloc(nfig, sizeof *s);
    if (!s)
        return 1;
    for (unsigned k = 0; k < nfig; k++)
        rec_series_init(&s[k], SEC);
    uint64_t n = (uint64_t)(hours * 3600), t0 = 5000 * SEC, rss = 800ull << 20;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t t = t0 + i * SEC, len = SEC - (SEC >> 20) + (next() % 3) * (SEC >> 20);
        rss += (next() % 9) * 4096 - 4 * 4096;
        int burst = next() % 10 < 3;
        uint64_t v[8] = {rss,
                         (700 + next() % 300) * 1000000ull & ~((1ull << 20) - 1),
                         (20 + next() % 40) * 1000000ull & ~((1ull << 20) - 1),
                         burst ? (next() % 64) << 16 : 0,
                         burst ? (next() % 128) << 16 : 0,
                         burst ? (next() % 256) << 16 : next() % 4096,
                         burst ? (next() % 128) << 16 : next() % 4096,
                         rss + (64ull << 20)};
        for (unsigned k = 0; k < 8; k++)
            rec_series_add(&s[k], t, len, v[k]);
        for (int g = 0; g < gpus; g++) {
            uint64_t busy = 6000 + next() % 4000;
            uint64_t gv[5] = {busy, busy - busy / 8, (30ull << 30) + (next() % 64 << 20),
                              (28ull << 30) + (next() % 64 << 20), 80ull << 30};
            for (unsigned k = 0; k < 5; k++)
                rec_series_add(&s[8 + 5 * g + k], t, len, gv[k]);
        }
    }
    char path[] = "/tmp/bench_series-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    unlink(path);
    scope_log_writer *w;
    if (scope_log_writer_open(&w, fd, NULL) != 0)
        return 1;
    uint64_t raw = 0;
    for (unsigned k = 0; k < nfig; k++) {
        uint32_t fig = k < 8 ? SCOPE_SERIES_RSS + k : SCOPE_SERIES_GPU_BUSY + (k - 8) % 5;
        scope_record r = {.type = SCOPE_REC_RESOURCE_SERIES};
        r.u.resource_series = rec_series_record(&s[k], 0, fig, k < 8 ? 0 : (k - 8) / 5);
        if (scope_log_writer_add(w, &r) != 0)
            return 1;
    }
    raw = scope_log_writer_pending(w);
    if (scope_log_writer_close_frame(w, SCOPE_FRAME_FLUSH, t0 + n * SEC, 0) < 0)
        return 1;
    uint64_t file = scope_log_writer_bytes(w);
    scope_log_writer_free(w);
    close(fd);
    printf("resource series of a process sampled at 1 Hz for %g h, %d GPU%s\n", hours, gpus,
           gpus == 1 ? "" : "s");
    printf("  %-40s %10u\n", "series (figures)", nfig);
    printf("  %-40s %10u of %u, %llu s wide\n", "buckets used", s[0].nused, REC_SERIES_BUCKETS,
           (unsigned long long)(s[0].bucket_ns / SEC));
    printf("  %-40s %10.1f KiB\n", "memory", (double)(nfig * sizeof *s) / 1024);
    printf("  %-40s %10.1f KiB\n", "records, uncompressed", (double)raw / 1024);
    printf("  %-40s %10.1f KiB\n", "in the log (one frame, compressed)",
           (double)(file - SCOPE_LOG_HEADER_SIZE) / 1024);
    free(s);
    return 0;
}
