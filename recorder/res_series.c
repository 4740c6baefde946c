/* A resource figure's fixed-size series (res_series.h). */
#include "res_series.h"

#include <string.h>

void rec_series_init(rec_series *s, uint64_t first_bucket_ns) {
    memset(s, 0, sizeof *s);
    s->bucket_ns = first_bucket_ns ? first_bucket_ns : 1;
}

static void merge(scope_series_bucket *into, const scope_series_bucket *b) {
    if (!b->samples)
        return;
    if (!into->samples) {
        *into = *b;
        return;
    }
    into->samples += b->samples;
    into->covered_ns += b->covered_ns;
    into->sum += b->sum;
    if (b->min < into->min)
        into->min = b->min;
    if (b->max > into->max)
        into->max = b->max;
}

/* Halves the resolution: bucket k becomes buckets 2k and 2k+1. */
static void coarsen(rec_series *s) {
    for (uint32_t k = 0; k < REC_SERIES_BUCKETS / 2; k++) {
        scope_series_bucket m = s->b[2 * k];
        merge(&m, &s->b[2 * k + 1]);
        s->b[k] = m;
    }
    memset(&s->b[REC_SERIES_BUCKETS / 2], 0, REC_SERIES_BUCKETS / 2 * sizeof s->b[0]);
    s->bucket_ns *= 2;
    s->nused = (s->nused + 1) / 2;
}

void rec_series_add(rec_series *s, uint64_t mono_ns, uint64_t interval_ns, uint64_t value) {
    if (!s->samples_total)
        s->start_ns = mono_ns;
    uint64_t off = mono_ns > s->start_ns ? mono_ns - s->start_ns : 0;
    while (off / s->bucket_ns >= REC_SERIES_BUCKETS)
        coarsen(s);
    uint32_t i = (uint32_t)(off / s->bucket_ns);
    merge(&s->b[i],
          &(scope_series_bucket){
              .samples = 1, .covered_ns = interval_ns, .min = value, .max = value, .sum = value});
    if (i + 1 > s->nused)
        s->nused = i + 1;
    s->samples_total++;
}

scope_rec_resource_series rec_series_record(const rec_series *s, uint32_t thread, uint32_t figure,
                                            uint32_t device) {
    return (scope_rec_resource_series){.thread = thread,
                                       .figure = figure,
                                       .device = device,
                                       .start_mono_ns = s->start_ns,
                                       .bucket_ns = s->bucket_ns,
                                       .samples_total = s->samples_total,
                                       .nbuckets = s->nused,
                                       .buckets = s->b};
}
