/* Resources of a set of processes; see run_resources.h. */
#include "run_resources.h"

#include "res_proc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The k-th process of a set, NULL when the index is not a worker's (a set
 * handed in by hand, without workers). */
static const run_worker *worker_at(const run_model *m, const size_t *workers, size_t k) {
    return workers && workers[k] < m->nworkers ? &m->workers[workers[k]] : NULL;
}

/* ---- devices ---------------------------------------------------------------- */

static run_res_gpu *device_of(run_res *r, run_str host, uint32_t index, size_t cap) {
    for (size_t i = 0; i < r->ngpus; i++)
        if (r->gpus[i].index == index && run_str_eq(r->gpus[i].host, host))
            return &r->gpus[i];
    if (r->ngpus >= cap)
        return NULL;
    run_res_gpu *g = &r->gpus[r->ngpus++];
    *g = (run_res_gpu){.host = host, .index = index, .busy_peak = NAN};
    return g;
}

static int by_device(const void *a, const void *b) {
    const run_res_gpu *x = a, *y = b;
    int c = run_str_cmp(x->host, y->host);
    if (c)
        return c;
    return (x->index > y->index) - (x->index < y->index);
}

/* The devices the processes saw, with their figures: busy averaged over
 * every process's samples of it (they all read the same device), the
 * processes' own shares and memory added up over time (run_res_fold). */
static int settle_gpus(const run_model *m, run_res *r, const size_t *workers, size_t n) {
    size_t cap = 0;
    for (size_t k = 0; k < n; k++) {
        const run_worker *w = worker_at(m, workers, k);
        if (w && w->res)
            cap += w->res->ngpus;
    }
    if (!cap)
        return 0;
    r->gpus = calloc(cap, sizeof *r->gpus);
    if (!r->gpus)
        return -1;
    /* busy: time-weighted over every sample; per device in scratch. */
    double *busy_sum = calloc(cap, sizeof *busy_sum);
    uint64_t *busy_ns = calloc(cap, sizeof *busy_ns);
    int *run_seen = calloc(cap, sizeof *run_seen);
    if (!busy_sum || !busy_ns || !run_seen) {
        free(busy_sum), free(busy_ns), free(run_seen);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        const run_worker *w = worker_at(m, workers, k);
        if (!w || !w->res)
            continue;
        for (size_t d = 0; d < w->res->ngpus; d++) {
            const res_gpu_proc *gp = &w->res->gpus[d];
            run_res_gpu *g = device_of(r, w->host, gp->index, cap);
            size_t gi = (size_t)(g - r->gpus);
            if (!g->workers && !(g->workers = calloc(n, sizeof *g->workers)))
                goto nomem;
            g->workers[g->nworkers++] = workers[k];
            if (gp->run_seen || gp->mem_run_max)
                g->nrunning++;
            busy_sum[gi] += gp->busy_sum;
            busy_ns[gi] += gp->busy_ns;
            run_seen[gi] |= gp->run_seen;
            double peak = gp->present & SCOPE_GPU_BUSY ? gp->busy_max / 10000.0 : NAN;
            if (!isnan(peak) && (isnan(g->busy_peak) || peak > g->busy_peak))
                g->busy_peak = peak;
            if (gp->mem_total > g->mem_total)
                g->mem_total = gp->mem_total;
        }
    }
    for (size_t i = 0; i < r->ngpus; i++) {
        run_res_gpu *g = &r->gpus[i];
        g->busy_mean = busy_ns[i] ? busy_sum[i] / (double)busy_ns[i] / 10000.0 : NAN;
        if (!busy_ns[i])
            g->busy_peak = NAN;
        g->idle = isnan(g->busy_mean) ? NAN : 1.0 - g->busy_mean;
        g->run_mean = g->run_peak = g->vram_run_mean = g->vram_run_peak = NAN;
    }
    free(busy_sum), free(busy_ns);
    qsort(r->gpus, r->ngpus, sizeof *r->gpus, by_device);
    /* The run's share and memory over time: a fine fold, then its mean and
     * peak over the columns where anything was sampled. */
    enum { COLS = 512 };
    double *cols = malloc(COLS * sizeof *cols);
    if (!cols) {
        free(run_seen);
        return -1;
    }
    for (size_t i = 0; i < r->ngpus; i++) {
        run_res_gpu *g = &r->gpus[i];
        int seen = 0;
        for (size_t k = 0; k < g->nworkers && !seen; k++) {
            const res_proc *p = m->workers[g->workers[k]].res;
            for (size_t d = 0; d < p->ngpus; d++)
                seen |= p->gpus[d].index == g->index && p->gpus[d].run_seen;
        }
        static const enum run_res_metric what[2] = {RUN_RES_GPU_RUN, RUN_RES_GPU_VRAM};
        for (int w = 0; w < 2; w++) {
            if (w == 0 && !seen)
                continue; /* n/a: NVML never attributed a sample to these processes */
            double peak = run_res_fold(m, g->workers, g->nworkers, what[w], g, COLS, cols);
            double sum = 0;
            size_t used = 0;
            for (size_t c = 0; c < COLS; c++)
                if (!isnan(cols[c]))
                    sum += cols[c], used++;
            double mean = used ? sum / (double)used : NAN;
            if (w == 0)
                g->run_mean = mean, g->run_peak = peak;
            else
                g->vram_run_mean = mean, g->vram_run_peak = peak;
        }
    }
    free(cols);
    free(run_seen);
    return 0;
nomem:
    free(busy_sum), free(busy_ns), free(run_seen);
    return -1;
}

/* ---- a set of processes -------------------------------------------------- */

static double rate(uint64_t bytes, uint32_t present, uint32_t bit, double s) {
    return (present & bit) && s > 0 ? (double)bytes / s : NAN;
}

/* One byte figure of a process: `placed` under phases, `recorded` in the
 * records that place bytes (the phases' and those with no phase open),
 * `total` the process's (its records', and its threads' where those
 * measured no I/O, res_proc.h).  No phase explains the bytes recorded with
 * none open (*outside: moved outside every phase), nor the process's beyond
 * what its threads recorded (*unplaced: threads that ended mid-interval, or
 * moved bytes before they attached, so no phase can be named). */
static void no_phase_of(uint64_t placed, uint64_t recorded, uint64_t total, uint64_t *outside,
                        uint64_t *unplaced) {
    *outside = recorded > placed ? recorded - placed : 0;
    *unplaced = total > recorded ? total - recorded : 0;
}

static void add_io(run_res_io *to, const run_res_io *io) {
    to->disk_read += io->disk_read;
    to->disk_write += io->disk_write;
    to->char_read += io->char_read;
    to->char_write += io->char_write;
    to->cache_read += io->char_read > io->disk_read ? io->char_read - io->disk_read : 0;
}

/* Of the bytes handed to read() and write() that phases share (r->shared). */
static double share_of(const run_res *r, const run_res_io *io) {
    return r->shared ? (double)(io->char_read + io->char_write) / (double)r->shared : NAN;
}

static void add_no_phase(run_res *r, const res_proc *p) {
    int by_thread = p->thread_records > 0;
    run_res_io placed = {0}, recorded = {0};
    for (size_t i = 0; i < p->nnodes; i++) {
        const res_node_io *n = &p->nodes[i];
        run_res_io io = {.disk_read = by_thread ? n->disk_read : n->p_disk_read,
                         .disk_write = by_thread ? n->disk_write : n->p_disk_write,
                         .char_read = by_thread ? n->char_read : n->p_char_read,
                         .char_write = by_thread ? n->char_write : n->p_char_write};
        run_res_io *to[] = {&recorded, n->node ? &placed : NULL};
        for (size_t k = 0; k < 2 && to[k]; k++) {
            to[k]->disk_read += io.disk_read, to[k]->disk_write += io.disk_write;
            to[k]->char_read += io.char_read, to[k]->char_write += io.char_write;
        }
    }
    /* The bytes a snapshot's series summarize reached no phase when it
     * had no NODE_IO records, and are no phase's either (res_proc.h). */
    const res_from_series *fs = &p->series;
    if (!fs->node_io) {
        run_res_io *to[] = {&recorded, &placed};
        for (size_t k = 0; k < 2; k++) {
            to[k]->disk_read += fs->disk_read, to[k]->disk_write += fs->disk_write;
            to[k]->char_read += fs->char_read, to[k]->char_write += fs->char_write;
        }
    }
    run_res_io out = {0}, un = {0};
    no_phase_of(placed.disk_read, recorded.disk_read, p->disk_read, &out.disk_read, &un.disk_read);
    no_phase_of(placed.disk_write, recorded.disk_write, p->disk_write, &out.disk_write,
                &un.disk_write);
    no_phase_of(placed.char_read, recorded.char_read, p->char_read, &out.char_read, &un.char_read);
    no_phase_of(placed.char_write, recorded.char_write, p->char_write, &out.char_write,
                &un.char_write);
    run_res_io np = {.disk_read = out.disk_read + un.disk_read,
                     .disk_write = out.disk_write + un.disk_write,
                     .char_read = out.char_read + un.char_read,
                     .char_write = out.char_write + un.char_write};
    add_io(&r->no_phase, &np);
    add_io(&r->outside_phases, &out);
    add_io(&r->unplaced, &un);
}

run_res *run_res_of(const run_model *m, const size_t *workers, size_t n) {
    run_res *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->rss_peak_worker = SIZE_MAX;
    double peak_read = 0, peak_cache = 0, peak_write = 0;
    for (size_t k = 0; k < n; k++) {
        const run_worker *w = worker_at(m, workers, k);
        const res_proc *p = w ? w->res : NULL;
        if (!p || !p->intervals)
            continue;
        r->nsampled++;
        r->present |= p->present;
        r->intervals += p->intervals;
        r->dropped += p->dropped;
        r->series_intervals += p->series.intervals;
        if (p->series.intervals && !p->series.node_io) {
            r->series_no_node_io++;
            r->series_io.disk_read += p->series.disk_read;
            r->series_io.disk_write += p->series.disk_write;
            r->series_io.char_read += p->series.char_read;
            r->series_io.char_write += p->series.char_write;
        }
        if ((double)p->sampled_ns / 1e9 > r->sampled_s)
            r->sampled_s = (double)p->sampled_ns / 1e9;
        r->io.disk_read += p->disk_read;
        r->io.disk_write += p->disk_write;
        r->io.char_read += p->char_read;
        r->io.char_write += p->char_write;
        add_no_phase(r, p);
        r->cpu_ns += p->cpu_user_ns + p->cpu_sys_ns;
        uint64_t peak = p->rss_peak > p->rss_max ? p->rss_peak : p->rss_max;
        r->rss_peak_sum += peak;
        if (peak && (r->rss_peak_worker == SIZE_MAX || peak > r->rss_peak)) {
            r->rss_peak = peak;
            r->rss_peak_worker = workers[k];
        }
        for (uint32_t b = 0; b < p->s.nused; b++) {
            if (p->b[b].peak_read > peak_read)
                peak_read = p->b[b].peak_read;
            if (p->b[b].peak_cache > peak_cache)
                peak_cache = p->b[b].peak_cache;
            if (p->b[b].peak_write > peak_write)
                peak_write = p->b[b].peak_write;
        }
    }
    r->io.cache_read = r->io.char_read > r->io.disk_read ? r->io.char_read - r->io.disk_read : 0;
    double s = (double)m->runtime_ns / 1e9;
    if (!(s > 0))
        s = r->sampled_s;
    r->disk_read_per_s = rate(r->io.disk_read, r->present, SCOPE_RES_DISK_READ, s);
    r->cache_read_per_s = (r->present & SCOPE_RES_DISK_READ)
                              ? rate(r->io.cache_read, r->present, SCOPE_RES_CHAR_READ, s)
                              : NAN;
    r->disk_write_per_s = rate(r->io.disk_write, r->present, SCOPE_RES_DISK_WRITE, s);
    r->disk_read_peak = r->present & SCOPE_RES_DISK_READ ? peak_read : NAN;
    r->cache_read_peak =
        (r->present & SCOPE_RES_DISK_READ) && (r->present & SCOPE_RES_CHAR_READ) ? peak_cache : NAN;
    r->disk_write_peak = r->present & SCOPE_RES_DISK_WRITE ? peak_write : NAN;
    /* Of the bytes that could reach a phase: not a snapshot's series'. */
    r->shared =
        r->io.char_read + r->io.char_write - r->series_io.char_read - r->series_io.char_write;
    r->no_phase_share = share_of(r, &r->no_phase);
    r->outside_phases_share = share_of(r, &r->outside_phases);
    r->unplaced_share = share_of(r, &r->unplaced);
    r->cpu_cores = (r->present & (SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS)) && s > 0
                       ? (double)r->cpu_ns / 1e9 / s
                       : NAN;
    if (settle_gpus(m, r, workers, n) < 0) {
        run_res_free(r);
        return NULL;
    }
    return r;
}

void run_res_free(run_res *r) {
    if (!r)
        return;
    for (size_t i = 0; i < r->ngpus; i++)
        free(r->gpus[i].workers);
    free(r->gpus);
    free(r);
}

/* ---- kept by the model ----------------------------------------------------- */

const run_res *run_role_res(run_model *m, const run_role *role) {
    run_role *rw = (run_role *)role; /* the cache is the model's own */
    if (!rw->res)
        rw->res = run_res_of(m, role->workers, role->nprocs);
    return rw->res;
}

const run_res *run_worker_res(run_model *m, size_t worker) {
    if (worker >= m->nworkers)
        return NULL;
    if (!m->proc_res && !(m->proc_res = calloc(m->nworkers, sizeof *m->proc_res)))
        return NULL;
    if (!m->proc_res[worker])
        m->proc_res[worker] = run_res_of(m, &worker, 1);
    return m->proc_res[worker];
}

const run_res *run_all_res(run_model *m) {
    if (m->all_res)
        return m->all_res;
    size_t *all = malloc((m->nworkers + 1) * sizeof *all), n = 0;
    if (!all)
        return NULL;
    for (size_t i = 0; i < m->nworkers; i++)
        if (m->nattempts && m->workers[i].attempt == m->shown_attempt)
            all[n++] = i;
    m->all_res = run_res_of(m, all, n);
    free(all);
    return m->all_res;
}

int run_has_samples(const run_model *m) {
    for (size_t i = 0; i < m->nworkers; i++)
        if (m->nattempts && m->workers[i].attempt == m->shown_attempt && m->workers[i].res &&
            m->workers[i].res->intervals)
            return 1;
    return 0;
}

int run_phase_sampled_io(const run_phase *p, run_res_io *io) {
    memset(io, 0, sizeof *io);
    if (!p->smp_io)
        return 0;
    io->disk_read = p->smp_disk_read;
    io->disk_write = p->smp_disk_write;
    io->char_read = p->smp_char_read;
    io->char_write = p->smp_char_write;
    io->cache_read = io->char_read > io->disk_read ? io->char_read - io->disk_read : 0;
    return 1;
}

/* ---- over time ---------------------------------------------------------------- */

/* What one bucket adds to a column it overlaps by `frac` of its width, as
 * a sum (bytes, CPU ns, GPU permyriad x ns) or a level (RSS, VRAM). */
typedef struct fold_cell {
    double sum;    /* summed metrics */
    double weight; /* ns of sampled time behind the sum */
    double level;  /* the largest level seen; NAN: none */
} fold_cell;

/* The first column a bucket starting at lo (ns from the run's start, below
 * 0 when a host's clock puts it earlier) may overlap. */
static size_t first_column(double lo, double cw) {
    double c = floor(lo / cw);
    return c <= 0 ? 0 : c >= (double)SIZE_MAX ? SIZE_MAX : (size_t)c;
}

/* Spreads what bucket i of series s holds (sum and weight shared out by
 * overlap, a level kept whole; level NAN: none) over the columns of width
 * cw it overlaps, the run starting at `start`. */
static void spread(const res_series *s, uint32_t i, uint64_t start, double cw, size_t ncols,
                   fold_cell *cells, double sum, double weight, double level) {
    double lo = (double)(s->t0_ns + (uint64_t)i * s->width_ns) - (double)start;
    double hi = lo + (double)s->width_ns;
    for (size_t c = first_column(lo, cw); c < ncols && (double)c * cw < hi; c++) {
        double clo = (double)c * cw, chi = clo + cw;
        double ov = (hi < chi ? hi : chi) - (lo > clo ? lo : clo);
        if (ov <= 0)
            continue;
        double frac = ov / (double)s->width_ns;
        fold_cell *e = &cells[c];
        e->sum += sum * frac;
        e->weight += weight * frac;
        if (!isnan(level) && (isnan(e->level) || level > e->level))
            e->level = level;
    }
}

static void fold_proc_io(const res_proc *p, enum run_res_metric what, uint64_t start, double cw,
                         size_t ncols, fold_cell *cells) {
    for (uint32_t i = 0; i < p->s.nused; i++) {
        const res_bucket *b = &p->b[i];
        if (!b->sampled_ns)
            continue;
        double v = what == RUN_RES_DISK_READ    ? (double)b->disk_read
                   : what == RUN_RES_CACHE_READ ? (double)b->cache_read
                   : what == RUN_RES_DISK_WRITE ? (double)b->disk_write
                   : what == RUN_RES_CPU        ? (double)b->cpu_ns
                                                : 0;
        double level = what == RUN_RES_RSS && b->rss_max ? (double)b->rss_max : NAN;
        spread(&p->s, i, start, cw, ncols, cells, v, (double)b->sampled_ns, level);
    }
}

static void fold_proc_gpu(const res_gpu_proc *g, enum run_res_metric what, uint64_t start,
                          double cw, size_t ncols, fold_cell *cells) {
    for (uint32_t i = 0; i < g->s.nused; i++) {
        const res_gpu_bucket *b = &g->b[i];
        if (what == RUN_RES_GPU_BUSY && b->busy_ns)
            spread(&g->s, i, start, cw, ncols, cells, b->busy_sum, (double)b->busy_ns, NAN);
        else if (what == RUN_RES_GPU_RUN && b->run_ns)
            spread(&g->s, i, start, cw, ncols, cells, b->run_sum, (double)b->run_ns, NAN);
        else if (what == RUN_RES_GPU_VRAM && b->mem_run_present)
            spread(&g->s, i, start, cw, ncols, cells, 0, 0, (double)b->mem_run_max);
    }
}

double run_res_fold(const run_model *m, const size_t *workers, size_t n, enum run_res_metric what,
                    const run_res_gpu *gpu, size_t ncols, double *cols) {
    for (size_t c = 0; c < ncols; c++)
        cols[c] = NAN;
    if (!ncols || !m->nattempts)
        return NAN;
    uint64_t start = m->start_wall_ns, end = m->end_wall_ns;
    if (end <= start)
        end = start + 1000000000ull;
    double cw = (double)(end - start) / (double)ncols;
    fold_cell *one = malloc(ncols * sizeof *one);
    if (!one)
        return NAN;
    int gpu_metric =
        what == RUN_RES_GPU_BUSY || what == RUN_RES_GPU_RUN || what == RUN_RES_GPU_VRAM;
    double *busy_n = gpu_metric ? calloc(ncols, sizeof *busy_n) : NULL;
    for (size_t k = 0; k < n; k++) {
        const run_worker *w = worker_at(m, workers, k);
        const res_proc *p = w ? w->res : NULL;
        if (!p)
            continue;
        for (size_t c = 0; c < ncols; c++)
            one[c] = (fold_cell){0, 0, NAN};
        if (!gpu_metric) {
            fold_proc_io(p, what, start, cw, ncols, one);
        } else {
            if (!gpu || !run_str_eq(gpu->host, w->host))
                continue;
            for (size_t d = 0; d < p->ngpus; d++)
                if (p->gpus[d].index == gpu->index)
                    fold_proc_gpu(&p->gpus[d], what, start, cw, ncols, one);
        }
        for (size_t c = 0; c < ncols; c++) {
            double v = NAN;
            const fold_cell *e = &one[c];
            switch (what) {
            case RUN_RES_DISK_READ:
            case RUN_RES_CACHE_READ:
            case RUN_RES_DISK_WRITE:
                v = e->weight > 0 ? e->sum / (cw / 1e9) : NAN;
                break;
            case RUN_RES_CPU:
                v = e->weight > 0 ? e->sum / cw : NAN;
                break;
            case RUN_RES_RSS:
            case RUN_RES_GPU_VRAM:
                v = e->level;
                break;
            case RUN_RES_GPU_BUSY:
            case RUN_RES_GPU_RUN:
                v = e->weight > 0 ? e->sum / e->weight / 10000.0 : NAN;
                break;
            }
            if (isnan(v))
                continue;
            /* Busy is one device's figure, which each process read: their
             * mean.  The rest are the processes' own, added up. */
            cols[c] = isnan(cols[c]) ? v : cols[c] + v;
            if (busy_n)
                busy_n[c]++;
        }
    }
    if (what == RUN_RES_GPU_BUSY && busy_n)
        for (size_t c = 0; c < ncols; c++)
            if (busy_n[c] > 0)
                cols[c] /= busy_n[c];
    free(busy_n);
    free(one);
    double peak = NAN;
    for (size_t c = 0; c < ncols; c++)
        if (!isnan(cols[c]) && (isnan(peak) || cols[c] > peak))
            peak = cols[c];
    return peak;
}
