/*
 * What a snapshot's resource series cost (series_cost.h).
 */
#include "series_cost.h"

#include "res_series.h"

#include <scope/log_format.h>

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

int series_cost_measure(double hours, int gpus, series_cost *out) {
    unsigned nfig = 8 + 5 * (unsigned)gpus;
    rec_series *s = calloc(nfig, sizeof *s);
    if (!s)
        return -1;
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
    /* Every series as one frame, as a snapshot carries them, through the
     * real writer at the recorder's level. */
    int rc = -1, fd = -1;
    scope_log_writer *w = NULL;
    char path[] = "/tmp/bench_series-XXXXXX";
    if ((fd = mkstemp(path)) < 0)
        goto out;
    unlink(path);
    if (scope_log_writer_open(&w, fd, NULL) != 0)
        goto out;
    for (unsigned k = 0; k < nfig; k++) {
        uint32_t fig = k < 8 ? SCOPE_SERIES_RSS + k : SCOPE_SERIES_GPU_BUSY + (k - 8) % 5;
        scope_record r = {.type = SCOPE_REC_RESOURCE_SERIES};
        r.u.resource_series = rec_series_record(&s[k], 0, fig, k < 8 ? 0 : (k - 8) / 5);
        if (scope_log_writer_add(w, &r) != 0)
            goto out;
    }
    uint64_t raw = scope_log_writer_pending(w);
    if (scope_log_writer_close_frame(w, SCOPE_FRAME_FLUSH, t0 + n * SEC, 0) < 0)
        goto out;
    *out = (series_cost){nfig,
                         s[0].nused,
                         s[0].bucket_ns,
                         nfig * sizeof *s,
                         raw,
                         scope_log_writer_bytes(w) - SCOPE_LOG_HEADER_SIZE};
    rc = 0;
out:
    scope_log_writer_free(w);
    if (fd >= 0)
        close(fd);
    free(s);
    return rc;
}
