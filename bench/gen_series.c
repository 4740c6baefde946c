/*
 * Resource series in constant memory (bench/gen_series.h), through the
 * recorder's own series (recorder/res_series.c).
 */
#include "gen_series.h"

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

void gen_series_set_init(gen_series_set *set) {
    set->n = 0;
}

static gen_series *find(gen_series_set *set, uint32_t figure, uint32_t device) {
    for (int i = 0; i < set->n; i++)
        if (set->s[i].figure == figure && set->s[i].device == device)
            return &set->s[i];
    if (set->n == GEN_SERIES_MAX)
        return NULL;
    gen_series *s = &set->s[set->n++];
    s->figure = figure;
    s->device = device;
    rec_series_init(&s->s, GEN_SERIES_BUCKET0_NS);
    return s;
}

void gen_series_set_add(gen_series_set *set, const scope_rec_resource *r) {
    gen_figure f[GEN_SERIES_MAX];
    int n = gen_series_figures(r, f);
    for (int i = 0; i < n; i++) {
        gen_series *s = find(set, f[i].figure, f[i].device);
        if (s)
            rec_series_add(&s->s, r->mono_ns, r->interval_ns, f[i].value);
    }
}

scope_rec_resource_series gen_series_record(const gen_series *s) {
    return rec_series_record(&s->s, 0, s->figure, s->device);
}
