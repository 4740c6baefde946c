/* A process's resource samples as read; see res_proc.h. */
#include "res_proc.h"

#include <scope/vec.h>

#include <stdlib.h>
#include <string.h>

#define FIRST_WIDTH_NS 1000000000ull /* the sampler's default interval */

/* ---- series --------------------------------------------------------------- */

size_t res_series_at(const res_series *s, uint64_t t) {
    if (!s->width_ns || t < s->t0_ns)
        return SIZE_MAX;
    uint64_t i = (t - s->t0_ns) / s->width_ns;
    return i < s->nused ? (size_t)i : SIZE_MAX;
}

static void merge_bucket(res_bucket *into, const res_bucket *b) {
    into->sampled_ns += b->sampled_ns;
    into->disk_read += b->disk_read;
    into->cache_read += b->cache_read;
    into->disk_write += b->disk_write;
    into->char_write += b->char_write;
    into->cpu_ns += b->cpu_ns;
    if (b->rss_max > into->rss_max)
        into->rss_max = b->rss_max;
    if (b->peak_read > into->peak_read)
        into->peak_read = b->peak_read;
    if (b->peak_cache > into->peak_cache)
        into->peak_cache = b->peak_cache;
    if (b->peak_write > into->peak_write)
        into->peak_write = b->peak_write;
}

static void merge_gpu_bucket(res_gpu_bucket *into, const res_gpu_bucket *b) {
    into->busy_ns += b->busy_ns;
    into->run_ns += b->run_ns;
    into->busy_sum += b->busy_sum;
    into->run_sum += b->run_sum;
    if (b->mem_run_max > into->mem_run_max)
        into->mem_run_max = b->mem_run_max;
    into->run_seen |= b->run_seen;
    into->mem_run_present |= b->mem_run_present;
}

/* The bucket for wall time t, halving the resolution as often as it takes
 * for t to fit.  Times before the first sample (clocks are per host and a
 * frame's pair of them is read at one instant, so this is rare) land in
 * bucket 0. */
#define SLOT_OF(s, buckets, merge, t)                                                              \
    __extension__({                                                                                \
        res_series *s_ = (s);                                                                      \
        uint64_t t_ = (t);                                                                         \
        if (!s_->width_ns) {                                                                       \
            s_->t0_ns = t_;                                                                        \
            s_->width_ns = FIRST_WIDTH_NS;                                                         \
        }                                                                                          \
        uint64_t i_ = t_ > s_->t0_ns ? (t_ - s_->t0_ns) / s_->width_ns : 0;                        \
        while (i_ >= RES_BUCKETS) {                                                                \
            for (size_t k_ = 0; k_ < RES_BUCKETS / 2; k_++) {                                      \
                (buckets)[k_] = (buckets)[2 * k_];                                                 \
                merge(&(buckets)[k_], &(buckets)[2 * k_ + 1]);                                     \
            }                                                                                      \
            memset(&(buckets)[RES_BUCKETS / 2], 0, RES_BUCKETS / 2 * sizeof *(buckets));           \
            s_->width_ns *= 2;                                                                     \
            s_->nused = (s_->nused + 1) / 2;                                                       \
            i_ = (t_ - s_->t0_ns) / s_->width_ns;                                                  \
        }                                                                                          \
        if (i_ + 1 > s_->nused)                                                                    \
            s_->nused = (uint32_t)i_ + 1;                                                          \
        &(buckets)[i_];                                                                            \
    })

/* ---- records ---------------------------------------------------------------- */

static float per_s(uint64_t bytes, uint64_t ns) {
    return ns ? (float)((double)bytes / ((double)ns / 1e9)) : 0;
}

static res_node_io *node_io(res_proc *p, uint32_t node) {
    uint32_t ix;
    if (idmap_get(&p->node_ix, node, &ix))
        return &p->nodes[ix];
    if (p->nnodes >= UINT32_MAX || SCOPE_VEC_RESERVE(p->nodes, p->cap_nodes, p->nnodes + 1) < 0 ||
        idmap_put(&p->node_ix, node, (uint32_t)p->nnodes) < 0)
        return NULL;
    res_node_io *n = &p->nodes[p->nnodes++];
    *n = (res_node_io){.node = node};
    return n;
}

/* I/O bits of a record, each field counted only when measured. */
#define RES_IO_BITS                                                                                \
    (SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ | SCOPE_RES_CHAR_WRITE)

static uint64_t io_field(const scope_rec_resource *r, uint32_t bit, uint64_t v) {
    return r->present & bit ? v : 0;
}

/* A per-interval byte count as a bucket, a peak or the page-cache part
 * shows it.  2^63 bytes or more cannot have moved in one interval: it is a
 * difference below zero, which recorders before format 1.9's run delay
 * wrote where the recorder's own reads, taken out of the process's
 * counters a moment apart, left a field a few bytes below the last (an
 * actor's 10 MB read as a peak of 18.4 EB/s).  The totals add it as it is,
 * which the next interval's excess wraps back to exact; the series count 0
 * there. */
static uint64_t in_series(uint64_t v) {
    return (int64_t)v < 0 ? 0 : v;
}

static int unmeasured_interval(const res_proc *p, uint64_t mono_ns) {
    uint64_t n = p->nunmeasured < RES_UNMEASURED_KEPT ? p->nunmeasured : RES_UNMEASURED_KEPT;
    for (uint64_t i = 0; i < n; i++)
        if (p->unmeasured_mono_ns[i] == mono_ns)
            return 1;
    return 0;
}

static res_bucket *bucket_at_wall(res_proc *p, uint64_t wall);

static int add_thread(res_proc *p, const scope_rec_resource *r, uint64_t wall) {
    uint64_t dr = io_field(r, SCOPE_RES_DISK_READ, r->disk_read);
    uint64_t dw = io_field(r, SCOPE_RES_DISK_WRITE, r->disk_write);
    uint64_t cr = io_field(r, SCOPE_RES_CHAR_READ, r->char_read);
    uint64_t cw = io_field(r, SCOPE_RES_CHAR_WRITE, r->char_write);
    p->thread_records++;
    p->t_disk_read += dr;
    p->t_disk_write += dw;
    p->t_char_read += cr;
    p->t_char_write += cw;
    if (unmeasured_interval(p, r->mono_ns)) {
        /* The interval of a process record that could not measure I/O:
         * the thread's bytes are the process's that are known. */
        p->disk_read += dr;
        p->disk_write += dw;
        p->char_read += cr;
        p->char_write += cw;
        p->unmeasured_records++;
        /* And the sparklines theirs: the interval is not a gap there.  Its
         * peak stays the process records' (these are parts of it). */
        res_bucket *b = bucket_at_wall(p, wall);
        b->disk_read += in_series(dr);
        b->cache_read += in_series(cr) > in_series(dr) ? in_series(cr) - in_series(dr) : 0;
        b->disk_write += in_series(dw);
        b->char_write += in_series(cw);
    }
    res_node_io *n = node_io(p, r->node);
    if (!n)
        return -1;
    n->disk_read += dr;
    n->disk_write += dw;
    n->char_read += cr;
    n->char_write += cw;
    return 0;
}

static res_gpu_proc *gpu_of(res_proc *p, uint32_t index) {
    for (size_t i = 0; i < p->ngpus; i++)
        if (p->gpus[i].index == index)
            return &p->gpus[i];
    if (p->ngpus >= RES_MAX_GPUS || SCOPE_VEC_RESERVE(p->gpus, p->cap_gpus, p->ngpus + 1) < 0)
        return NULL;
    res_gpu_proc *g = &p->gpus[p->ngpus++];
    memset(g, 0, sizeof *g);
    g->index = index;
    return g;
}

static int add_gpu(res_proc *p, const scope_gpu_figures *f, uint64_t len, uint64_t wall) {
    res_gpu_proc *g = gpu_of(p, f->index);
    if (!g)
        return p->ngpus >= RES_MAX_GPUS ? 0 : -1;
    g->present |= f->present;
    res_gpu_bucket *b = SLOT_OF(&g->s, g->b, merge_gpu_bucket, wall);
    uint32_t busy = f->busy_permyriad > 10000 ? 10000 : f->busy_permyriad;
    uint32_t run = f->run_permyriad > 10000 ? 10000 : f->run_permyriad;
    if (f->present & SCOPE_GPU_BUSY) {
        g->busy_ns += len;
        g->busy_sum += (double)busy * (double)len;
        b->busy_ns += len;
        b->busy_sum += (double)busy * (double)len;
        if (busy > g->busy_max)
            g->busy_max = busy;
    }
    if (f->present & SCOPE_GPU_RUN) {
        g->run_ns += len;
        g->run_sum += (double)run * (double)len;
        b->run_ns += len;
        b->run_sum += (double)run * (double)len;
        if (run > g->run_max)
            g->run_max = run;
    }
    if (f->present & SCOPE_GPU_RUN_SEEN) {
        g->run_seen = 1;
        b->run_seen = 1;
    }
    if (f->present & SCOPE_GPU_MEM_RUN) {
        g->mem_run_last = f->mem_run;
        if (f->mem_run > g->mem_run_max)
            g->mem_run_max = f->mem_run;
        b->mem_run_present = 1;
        if (f->mem_run > b->mem_run_max)
            b->mem_run_max = f->mem_run;
    }
    if ((f->present & SCOPE_GPU_MEM_USED) && f->mem_used > g->mem_used_max)
        g->mem_used_max = f->mem_used;
    if (f->present & SCOPE_GPU_MEM_TOTAL)
        g->mem_total = f->mem_total;
    return 0;
}

/* The largest RSS of r's interval, as far as its reads tell (0: none
 * read).  The RSS read at the sample misses a block allocated and freed
 * between two samples; the kernel's high-water mark (VmHWM, the record's
 * rss_peak) does not, and it only rises: when it rose since the process's
 * previous record, the interval's peak is the new mark.  When it did not,
 * the peak lies between the RSS read and the mark, and the read is kept.
 * A process's first record holds the mark since the process started. */
static uint64_t interval_rss_peak(const res_proc *p, const scope_rec_resource *r) {
    uint64_t v = (r->present & SCOPE_RES_RSS) ? r->rss : 0;
    if ((r->present & SCOPE_RES_RSS_PEAK) && r->rss_peak > p->rss_peak && r->rss_peak > v)
        v = r->rss_peak;
    return v;
}

int res_proc_add(res_proc **pp, const scope_rec_resource *r, uint64_t wall) {
    if (!*pp && !(*pp = calloc(1, sizeof **pp)))
        return -1;
    res_proc *p = *pp;
    if (r->thread)
        return add_thread(p, r, wall);
    uint64_t len = r->interval_ns;
    p->present |= r->present;
    p->intervals++;
    /* Without I/O bits (a child was reaped in it), its threads' records
     * of the same interval, which start where it does, hold the only bytes
     * of it.  They come in the same frame, after it (a frame's batch holds
     * each thread's records together, the process's first), so the last
     * few such intervals are all they are compared with. */
    if (!(r->present & RES_IO_BITS))
        p->unmeasured_mono_ns[p->nunmeasured++ % RES_UNMEASURED_KEPT] = r->mono_ns;
    p->sampled_ns += len;
    p->dropped += r->dropped;
    if (!p->first_wall_ns || wall < p->first_wall_ns)
        p->first_wall_ns = wall;
    if (wall + len > p->last_wall_ns)
        p->last_wall_ns = wall + len;
    uint64_t dr = io_field(r, SCOPE_RES_DISK_READ, r->disk_read);
    uint64_t dw = io_field(r, SCOPE_RES_DISK_WRITE, r->disk_write);
    uint64_t cr = io_field(r, SCOPE_RES_CHAR_READ, r->char_read);
    uint64_t cw = io_field(r, SCOPE_RES_CHAR_WRITE, r->char_write);
    uint64_t cache = (r->present & SCOPE_RES_CHAR_READ) && in_series(cr) > in_series(dr)
                         ? in_series(cr) - in_series(dr)
                         : 0;
    res_node_io *n = node_io(p, r->node);
    if (!n)
        return -1;
    n->p_disk_read += dr;
    n->p_disk_write += dw;
    n->p_char_read += cr;
    n->p_char_write += cw;
    uint64_t cpu = io_field(r, SCOPE_RES_CPU_USER, r->cpu_user_ns) +
                   io_field(r, SCOPE_RES_CPU_SYS, r->cpu_sys_ns);
    p->disk_read += dr;
    p->disk_write += dw;
    p->char_read += cr;
    p->char_write += cw;
    p->cpu_user_ns += io_field(r, SCOPE_RES_CPU_USER, r->cpu_user_ns);
    p->cpu_sys_ns += io_field(r, SCOPE_RES_CPU_SYS, r->cpu_sys_ns);
    uint64_t rss_in_interval = interval_rss_peak(p, r);
    if (r->present & SCOPE_RES_RSS) {
        p->rss_last = r->rss;
        if (r->rss > p->rss_max)
            p->rss_max = r->rss;
    }
    if ((r->present & SCOPE_RES_RSS_PEAK) && r->rss_peak > p->rss_peak)
        p->rss_peak = r->rss_peak;

    res_bucket *b = SLOT_OF(&p->s, p->b, merge_bucket, wall);
    b->sampled_ns += len;
    b->disk_read += in_series(dr);
    b->cache_read += cache;
    b->disk_write += in_series(dw);
    b->char_write += in_series(cw);
    b->cpu_ns += cpu;
    if (rss_in_interval > b->rss_max)
        b->rss_max = rss_in_interval;
    float rd = per_s(in_series(dr), len), rc = per_s(cache, len), wr = per_s(in_series(dw), len);
    if (rd > b->peak_read)
        b->peak_read = rd;
    if (rc > b->peak_cache)
        b->peak_cache = rc;
    if (wr > b->peak_write)
        b->peak_write = wr;

    uint32_t ngpus = r->ngpus;
    for (uint32_t i = 0; i < ngpus; i++)
        if (add_gpu(p, &r->gpus[i], len, wall) < 0)
            return -1;
    return 0;
}

/* ---- a snapshot's series -------------------------------------------------- */

/* Wall time of monotonic time t, by the frame's pair of clocks. */
static uint64_t wall_of(uint64_t t, uint64_t frame_mono, uint64_t frame_wall) {
    uint64_t before = frame_mono > t ? frame_mono - t : 0;
    return frame_wall > before ? frame_wall - before : 0;
}

/* The bucket's largest interval as a rate over the bucket's mean interval
 * length: the peak, approximately (the series keeps no interval's own). */
static float peak_of(const scope_series_bucket *b) {
    return b->samples ? per_s(b->max, b->covered_ns / b->samples) : 0;
}

static const scope_rec_resource_series *find_series(const scope_rec_resource_series *s, size_t n,
                                                    uint32_t figure, uint32_t device) {
    for (size_t i = 0; i < n; i++)
        if (!s[i].thread && s[i].figure == figure && s[i].device == device && s[i].bucket_ns)
            return &s[i];
    return NULL;
}

/* The sum of `figure` in the bucket of `like` that starts at the same time
 * (the figures of one process share their grid unless one was first
 * measured later); 0 when there is none. */
static uint64_t sum_at(const scope_rec_resource_series *like, uint64_t t) {
    if (!like || t < like->start_mono_ns || (t - like->start_mono_ns) % like->bucket_ns)
        return 0;
    uint64_t i = (t - like->start_mono_ns) / like->bucket_ns;
    return i < like->nbuckets ? like->buckets[i].sum : 0;
}

static void add_proc_series(res_proc *p, const scope_rec_resource_series *s,
                            const scope_rec_resource_series *all, size_t n, uint64_t fm,
                            uint64_t fw) {
    static const uint32_t bit[] = {
        [SCOPE_SERIES_RSS] = SCOPE_RES_RSS,
        [SCOPE_SERIES_CPU_USER] = SCOPE_RES_CPU_USER,
        [SCOPE_SERIES_CPU_SYS] = SCOPE_RES_CPU_SYS,
        [SCOPE_SERIES_DISK_READ] = SCOPE_RES_DISK_READ,
        [SCOPE_SERIES_DISK_WRITE] = SCOPE_RES_DISK_WRITE,
        [SCOPE_SERIES_CHAR_READ] = SCOPE_RES_CHAR_READ,
        [SCOPE_SERIES_CHAR_WRITE] = SCOPE_RES_CHAR_WRITE,
        [SCOPE_SERIES_RSS_PEAK] = SCOPE_RES_RSS_PEAK,
    };
    const scope_rec_resource_series *disk = find_series(all, n, SCOPE_SERIES_DISK_READ, 0);
    for (uint32_t i = 0; i < s->nbuckets; i++) {
        const scope_series_bucket *k = &s->buckets[i];
        if (!k->samples)
            continue;
        uint64_t t = s->start_mono_ns + i * s->bucket_ns;
        p->present |= bit[s->figure];
        res_bucket *b = SLOT_OF(&p->s, p->b, merge_bucket, wall_of(t, fm, fw));
        switch (s->figure) {
        case SCOPE_SERIES_RSS:
            if (k->max > p->rss_max)
                p->rss_max = k->max;
            if (k->max > b->rss_max)
                b->rss_max = k->max;
            p->rss_last = k->sum / k->samples;
            break;
        case SCOPE_SERIES_RSS_PEAK:
            /* Buckets in order, before any RESOURCE record: a mark above
             * every bucket's before it rose in this one, so this bucket's
             * peak is that mark (interval_rss_peak). */
            if (k->max > p->rss_peak) {
                p->rss_peak = k->max;
                if (k->max > b->rss_max)
                    b->rss_max = k->max;
            }
            break;
        case SCOPE_SERIES_CPU_USER:
        case SCOPE_SERIES_CPU_SYS:
            *(s->figure == SCOPE_SERIES_CPU_USER ? &p->cpu_user_ns : &p->cpu_sys_ns) += k->sum;
            b->cpu_ns += k->sum;
            break;
        case SCOPE_SERIES_DISK_READ:
            p->disk_read += k->sum;
            p->series.disk_read += k->sum;
            b->disk_read += k->sum;
            if (peak_of(k) > b->peak_read)
                b->peak_read = peak_of(k);
            break;
        case SCOPE_SERIES_DISK_WRITE:
            p->disk_write += k->sum;
            p->series.disk_write += k->sum;
            b->disk_write += k->sum;
            if (peak_of(k) > b->peak_write)
                b->peak_write = peak_of(k);
            break;
        case SCOPE_SERIES_CHAR_READ: {
            uint64_t dr = sum_at(disk, t);
            uint64_t cache =
                in_series(k->sum) > in_series(dr) ? in_series(k->sum) - in_series(dr) : 0;
            p->char_read += k->sum;
            p->series.char_read += k->sum;
            b->cache_read += cache;
            float pc = per_s(cache, k->covered_ns); /* the mean: no interval's own */
            if (pc > b->peak_cache)
                b->peak_cache = pc;
            break;
        }
        case SCOPE_SERIES_CHAR_WRITE:
            p->char_write += k->sum;
            p->series.char_write += k->sum;
            b->char_write += k->sum;
            break;
        }
    }
}

/* A device's figure: busy and run shares weigh each interval by its
 * length, here each bucket's sum by the mean length. */
static int add_gpu_series(res_proc *p, const scope_rec_resource_series *s, uint64_t fm,
                          uint64_t fw) {
    res_gpu_proc *g = gpu_of(p, s->device);
    if (!g)
        return p->ngpus >= RES_MAX_GPUS ? 0 : -1;
    static const uint32_t bit[] = {
        [SCOPE_SERIES_GPU_BUSY - SCOPE_SERIES_GPU_BUSY] = SCOPE_GPU_BUSY,
        [SCOPE_SERIES_GPU_RUN - SCOPE_SERIES_GPU_BUSY] = SCOPE_GPU_RUN,
        [SCOPE_SERIES_GPU_MEM_USED - SCOPE_SERIES_GPU_BUSY] = SCOPE_GPU_MEM_USED,
        [SCOPE_SERIES_GPU_MEM_RUN - SCOPE_SERIES_GPU_BUSY] = SCOPE_GPU_MEM_RUN,
        [SCOPE_SERIES_GPU_MEM_TOTAL - SCOPE_SERIES_GPU_BUSY] = SCOPE_GPU_MEM_TOTAL,
    };
    for (uint32_t i = 0; i < s->nbuckets; i++) {
        const scope_series_bucket *k = &s->buckets[i];
        if (!k->samples)
            continue;
        uint64_t t = s->start_mono_ns + i * s->bucket_ns;
        res_gpu_bucket *b = SLOT_OF(&g->s, g->b, merge_gpu_bucket, wall_of(t, fm, fw));
        double mean_len = (double)k->covered_ns / (double)k->samples;
        uint32_t mx = k->max > 10000 ? 10000 : (uint32_t)k->max;
        g->present |= bit[s->figure - SCOPE_SERIES_GPU_BUSY];
        switch (s->figure) {
        case SCOPE_SERIES_GPU_BUSY:
            g->busy_ns += k->covered_ns;
            g->busy_sum += (double)k->sum * mean_len;
            b->busy_ns += k->covered_ns;
            b->busy_sum += (double)k->sum * mean_len;
            if (mx > g->busy_max)
                g->busy_max = mx;
            break;
        case SCOPE_SERIES_GPU_RUN:
            g->run_ns += k->covered_ns;
            g->run_sum += (double)k->sum * mean_len;
            b->run_ns += k->covered_ns;
            b->run_sum += (double)k->sum * mean_len;
            if (mx > g->run_max)
                g->run_max = mx;
            /* NVML's own word (SCOPE_GPU_RUN_SEEN) has no series: a
             * share above 0 says it attributed samples. */
            if (k->max) {
                g->run_seen = 1;
                b->run_seen = 1;
            }
            break;
        case SCOPE_SERIES_GPU_MEM_USED:
            if (k->max > g->mem_used_max)
                g->mem_used_max = k->max;
            break;
        case SCOPE_SERIES_GPU_MEM_RUN:
            g->mem_run_last = k->sum / k->samples;
            if (k->max > g->mem_run_max)
                g->mem_run_max = k->max;
            b->mem_run_present = 1;
            if (k->max > b->mem_run_max)
                b->mem_run_max = k->max;
            break;
        case SCOPE_SERIES_GPU_MEM_TOTAL:
            g->mem_total = k->max;
            break;
        }
    }
    return 0;
}

int res_proc_add_series(res_proc **pp, const scope_rec_resource_series *s, size_t n, uint64_t fm,
                        uint64_t fw) {
    if (!n)
        return 0;
    if (!*pp && !(*pp = calloc(1, sizeof **pp)))
        return -1;
    res_proc *p = *pp;
    /* The intervals: those of the process figure measured most often. */
    const scope_rec_resource_series *most = NULL;
    for (size_t i = 0; i < n; i++)
        if (!s[i].thread && s[i].figure >= SCOPE_SERIES_RSS &&
            s[i].figure <= SCOPE_SERIES_RSS_PEAK && s[i].bucket_ns &&
            (!most || s[i].samples_total > most->samples_total))
            most = &s[i];
    for (size_t i = 0; i < n; i++) {
        if (s[i].thread || !s[i].bucket_ns)
            continue;
        if (s[i].figure >= SCOPE_SERIES_RSS && s[i].figure <= SCOPE_SERIES_RSS_PEAK)
            add_proc_series(p, &s[i], s, n, fm, fw);
        else if (s[i].figure >= SCOPE_SERIES_GPU_BUSY &&
                 s[i].figure <= SCOPE_SERIES_GPU_MEM_TOTAL && add_gpu_series(p, &s[i], fm, fw) < 0)
            return -1;
        if (s[i].bucket_ns > p->series.bucket_ns)
            p->series.bucket_ns = s[i].bucket_ns;
    }
    if (most) {
        uint64_t covered = 0, first = UINT64_MAX, end = 0;
        for (uint32_t i = 0; i < most->nbuckets; i++) {
            if (!most->buckets[i].samples)
                continue;
            uint64_t t = most->start_mono_ns + i * most->bucket_ns;
            covered += most->buckets[i].covered_ns;
            /* The time the bucket's intervals cover, once (not per
             * figure): what the figures over time weigh a bucket by, and
             * skip it without (run_res_fold). */
            SLOT_OF(&p->s, p->b, merge_bucket, wall_of(t, fm, fw))->sampled_ns +=
                most->buckets[i].covered_ns;
            first = t < first ? t : first;
            end = t + most->bucket_ns;
        }
        p->intervals += most->samples_total;
        p->sampled_ns += covered;
        p->series.intervals += most->samples_total;
        p->series.sampled_ns += covered;
        if (first != UINT64_MAX) {
            uint64_t w0 = wall_of(first, fm, fw);
            uint64_t w1 = wall_of(end < fm ? end : fm, fm, fw);
            if (!p->first_wall_ns || w0 < p->first_wall_ns)
                p->first_wall_ns = w0;
            if (w1 > p->last_wall_ns)
                p->last_wall_ns = w1;
        }
    }
    p->series.until_wall_ns = fw;
    return 0;
}

int res_proc_add_node_io(res_proc **pp, const scope_rec_node_io *r, size_t n) {
    if (!n)
        return 0;
    if (!*pp && !(*pp = calloc(1, sizeof **pp)))
        return -1;
    res_proc *p = *pp;
    for (size_t i = 0; i < n; i++) {
        res_node_io *io = node_io(p, r[i].node);
        if (!io)
            return -1;
        const scope_io_sums *t = &r[i].thread, *q = &r[i].process;
        p->thread_records += t->intervals;
        p->t_disk_read += t->disk_read;
        p->t_disk_write += t->disk_write;
        p->t_char_read += t->char_read;
        p->t_char_write += t->char_write;
        io->disk_read += t->disk_read;
        io->disk_write += t->disk_write;
        io->char_read += t->char_read;
        io->char_write += t->char_write;
        io->p_disk_read += q->disk_read;
        io->p_disk_write += q->disk_write;
        io->p_char_read += q->char_read;
        io->p_char_write += q->char_write;
    }
    p->series.node_io += n;
    return 0;
}

void res_proc_free(res_proc *p) {
    if (!p)
        return;
    free(p->nodes);
    idmap_free(&p->node_ix);
    free(p->gpus);
    free(p);
}

/* Defined last: SLOT_OF's bucket for a record's wall time. */
static res_bucket *bucket_at_wall(res_proc *p, uint64_t wall) {
    return SLOT_OF(&p->s, p->b, merge_bucket, wall);
}
