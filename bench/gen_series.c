/*
 * Resource series in constant memory (bench/gen_series.h): a fixed number of
 * buckets from the process's start; when an interval starts past the last
 * bucket, neighbours merge pairwise and the width doubles, as often as it
 * takes.
 */
#include "gen_series.h"

#include <string.h>

int gen_series_figures(const scope_rec_resource *r, gen_figure *out) {
    static const struct {
        uint32_t bit, figure;
    } proc_figures[] = {
        {SCOPE_RES_RSS, SCOPE_SERIES_RSS},
        {SCOPE_RES_CPU_USER, SCOPE_SERIES_CPU_USER},
        {SCOPE_RES_CPU_SYS, SCOPE_SERIES_CPU_SYS},
        {SCOPE_RES_DISK_READ, SCOPE_SERIES_DISK_READ},
        {SCOPE_RES_DISK_WRITE, SCOPE_SERIES_DISK_WRITE},
        {SCOPE_RES_CHAR_READ, SCOPE_SERIES_CHAR_READ},
        {SCOPE_RES_CHAR_WRITE, SCOPE_SERIES_CHAR_WRITE},
        {SCOPE_RES_RSS_PEAK, SCOPE_SERIES_RSS_PEAK},
    };
    const uint64_t proc_values[] = {r->rss,        r->cpu_user_ns, r->cpu_sys_ns, r->disk_read,
                                    r->disk_write, r->char_read,   r->char_write, r->rss_peak};
    int n = 0;
    if (r->thread)
        return 0;
    for (unsigned i = 0; i < sizeof proc_figures / sizeof proc_figures[0]; i++)
        if (r->present & proc_figures[i].bit)
            out[n++] = (gen_figure){proc_figures[i].figure, 0, proc_values[i]};
    for (uint32_t g = 0; g < r->ngpus && n + 5 <= GEN_SERIES_MAX; g++) {
        const scope_gpu_figures *d = &r->gpus[g];
        const struct {
            uint32_t bit, figure;
            uint64_t value;
        } gpu_figures[] = {
            {SCOPE_GPU_BUSY, SCOPE_SERIES_GPU_BUSY, d->busy_permyriad},
            {SCOPE_GPU_RUN, SCOPE_SERIES_GPU_RUN, d->run_permyriad},
            {SCOPE_GPU_MEM_USED, SCOPE_SERIES_GPU_MEM_USED, d->mem_used},
            {SCOPE_GPU_MEM_RUN, SCOPE_SERIES_GPU_MEM_RUN, d->mem_run},
            {SCOPE_GPU_MEM_TOTAL, SCOPE_SERIES_GPU_MEM_TOTAL, d->mem_total},
        };
        for (unsigned i = 0; i < sizeof gpu_figures / sizeof gpu_figures[0]; i++)
            if (d->present & gpu_figures[i].bit)
                out[n++] = (gen_figure){gpu_figures[i].figure, d->index, gpu_figures[i].value};
    }
    return n;
}

void gen_series_set_init(gen_series_set *set, uint64_t start_mono) {
    set->start_mono = start_mono;
    set->n = 0;
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

/* Halves the resolution: bucket i becomes buckets 2i and 2i+1. */
static void double_width(gen_series *s) {
    for (uint32_t i = 0; i < GEN_SERIES_BUCKETS / 2; i++) {
        scope_series_bucket m = s->b[2 * i];
        merge(&m, &s->b[2 * i + 1]);
        s->b[i] = m;
    }
    memset(&s->b[GEN_SERIES_BUCKETS / 2], 0, sizeof s->b / 2);
    s->bucket_ns *= 2;
    s->used = (s->used + 1) / 2;
}

static void series_add(gen_series *s, uint64_t at, uint64_t len, uint64_t value) {
    uint64_t since = at > s->start_mono ? at - s->start_mono : 0;
    while (since / s->bucket_ns >= GEN_SERIES_BUCKETS)
        double_width(s);
    uint32_t i = (uint32_t)(since / s->bucket_ns);
    merge(&s->b[i], &(scope_series_bucket){1, len, value, value, value});
    if (i + 1 > s->used)
        s->used = i + 1;
    s->samples_total++;
}

static gen_series *find(gen_series_set *set, uint32_t figure, uint32_t device) {
    for (int i = 0; i < set->n; i++)
        if (set->s[i].figure == figure && set->s[i].device == device)
            return &set->s[i];
    if (set->n == GEN_SERIES_MAX)
        return NULL;
    gen_series *s = &set->s[set->n++];
    memset(s, 0, sizeof *s);
    s->figure = figure;
    s->device = device;
    s->start_mono = set->start_mono;
    s->bucket_ns = GEN_SERIES_BUCKET0_NS;
    return s;
}

void gen_series_set_add(gen_series_set *set, const scope_rec_resource *r) {
    gen_figure f[GEN_SERIES_MAX];
    int n = gen_series_figures(r, f);
    for (int i = 0; i < n; i++) {
        gen_series *s = find(set, f[i].figure, f[i].device);
        if (s)
            series_add(s, r->mono_ns, r->interval_ns, f[i].value);
    }
}

scope_rec_resource_series gen_series_record(const gen_series *s) {
    return (scope_rec_resource_series){
        .thread = 0,
        .figure = s->figure,
        .device = s->device,
        .start_mono_ns = s->start_mono,
        .bucket_ns = s->bucket_ns,
        .samples_total = s->samples_total,
        .nbuckets = s->used,
        .buckets = s->b,
    };
}
