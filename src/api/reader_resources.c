/*
 * The reader API's tables of sampled resources: each process's 1 Hz series
 * (res_proc.h: buckets one second wide that double as a long run goes on,
 * so a 12-hour process keeps 256 of about three minutes), and the GPUs each
 * role used (run_resources.h), as report --json's roles[].resources.gpus.
 */
#include "reader_run.h"

#include "res_proc.h"
#include "run_resources.h"

#include <scope/log_format.h>

#include <math.h>

/* A byte count the process measured, else missing (not measured is not 0). */
static void measured(scope_table *t, size_t col, uint64_t v, int present) {
    if (present)
        rt_u64(t, col, v);
    else
        rt_missing(t, col);
}

/* A table of samples asked of a run opened without them. */
static int no_samples(const run_model *m, char *msg, size_t msglen) {
    return reader_fail(SCOPE_READER_NO_SAMPLES, msg, msglen, "%s was opened without its samples",
                       m->dir);
}

int reader_samples(scope_run *run, scope_table *t, char *msg, size_t msglen) {
    const run_model *m = run->m;
    if (m->no_samples)
        return no_samples(m, msg, msglen);
    size_t worker = rt_column(t, "worker", "", SCOPE_COL_I64),
           role = rt_column(t, "role", "", SCOPE_COL_STR),
           rank = rt_column(t, "rank", "", SCOPE_COL_I64),
           start = rt_column(t, "start_wall_ns", "ns", SCOPE_COL_U64),
           width = rt_column(t, "width_ns", "ns", SCOPE_COL_U64),
           sampled = rt_column(t, "sampled_ns", "ns", SCOPE_COL_U64),
           disk_read = rt_column(t, "disk_read", "bytes", SCOPE_COL_U64),
           cache_read = rt_column(t, "cache_read", "bytes", SCOPE_COL_U64),
           disk_write = rt_column(t, "disk_write", "bytes", SCOPE_COL_U64),
           char_write = rt_column(t, "char_write", "bytes", SCOPE_COL_U64),
           cpu = rt_column(t, "cpu_ns", "ns", SCOPE_COL_U64),
           rss = rt_column(t, "rss_max", "bytes", SCOPE_COL_U64),
           peak_read = rt_column(t, "peak_disk_read_per_s", "bytes/s", SCOPE_COL_F64),
           peak_cache = rt_column(t, "peak_cache_read_per_s", "bytes/s", SCOPE_COL_F64),
           peak_write = rt_column(t, "peak_disk_write_per_s", "bytes/s", SCOPE_COL_F64),
           approx = rt_column(t, "approximate", "", SCOPE_COL_BOOL);
    for (size_t w = 0; w < m->nworkers; w++) {
        const run_worker *wk = &m->workers[w];
        const res_proc *p = wk->res;
        if (!p || wk->role_index == SIZE_MAX)
            continue; /* no samples, or not of the attempt shown */
        uint32_t pr = p->present;
        int dr = (pr & SCOPE_RES_DISK_READ) != 0, cr = (pr & SCOPE_RES_CHAR_READ) != 0,
            dw = (pr & SCOPE_RES_DISK_WRITE) != 0, cw = (pr & SCOPE_RES_CHAR_WRITE) != 0,
            cpu_measured = (pr & (SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS)) != 0;
        for (uint32_t i = 0; i < p->s.nused && i < RES_BUCKETS; i++) {
            const res_bucket *b = &p->b[i];
            if (!b->sampled_ns)
                continue; /* no interval fell here */
            uint64_t t0 = p->s.t0_ns + (uint64_t)i * p->s.width_ns;
            rt_row(t);
            rt_i64(t, worker, (int64_t)w);
            rt_name(t, role, wk->role);
            rt_i64_or_missing(t, rank, wk->rank);
            rt_u64(t, start, t0);
            rt_u64(t, width, p->s.width_ns);
            rt_u64(t, sampled, b->sampled_ns);
            measured(t, disk_read, b->disk_read, dr);
            measured(t, cache_read, b->cache_read, dr && cr);
            measured(t, disk_write, b->disk_write, dw);
            measured(t, char_write, b->char_write, cw);
            measured(t, cpu, b->cpu_ns, cpu_measured);
            measured(t, rss, b->rss_max, b->rss_max != 0);
            rt_f64(t, peak_read, dr ? b->peak_read : NAN);
            rt_f64(t, peak_cache, dr && cr ? b->peak_cache : NAN);
            rt_f64(t, peak_write, dw ? b->peak_write : NAN);
            /* Placed whole from a snapshot's series (res_proc.h). */
            rt_bool(t, approx, p->series.intervals && t0 < p->series.until_wall_ns);
        }
    }
    return SCOPE_READER_OK;
}

int reader_gpu(scope_run *run, scope_table *t, char *msg, size_t msglen) {
    run_model *m = run->m;
    if (m->no_samples)
        return no_samples(m, msg, msglen);
    size_t role = rt_column(t, "role", "", SCOPE_COL_STR),
           host = rt_column(t, "host", "", SCOPE_COL_STR),
           index = rt_column(t, "index", "", SCOPE_COL_U64),
           busy = rt_column(t, "busy", "fraction", SCOPE_COL_F64),
           busy_peak = rt_column(t, "busy_peak", "fraction", SCOPE_COL_F64),
           this_run = rt_column(t, "this_run", "fraction", SCOPE_COL_F64),
           this_run_peak = rt_column(t, "this_run_peak", "fraction", SCOPE_COL_F64),
           idle = rt_column(t, "idle", "fraction", SCOPE_COL_F64),
           vram = rt_column(t, "vram_this_run", "bytes", SCOPE_COL_F64),
           vram_peak = rt_column(t, "vram_this_run_peak", "bytes", SCOPE_COL_F64),
           mem_total = rt_column(t, "mem_total", "bytes", SCOPE_COL_U64),
           processes = rt_column(t, "processes", "count", SCOPE_COL_U64),
           running = rt_column(t, "running", "count", SCOPE_COL_U64);
    for (size_t r = 0; r < m->nroles; r++) {
        const run_res *res = run_role_res(m, &m->roles[r]);
        if (!res)
            return reader_fail(SCOPE_READER_NO_MEMORY, msg, msglen, "out of memory");
        for (size_t g = 0; g < res->ngpus; g++) {
            const run_res_gpu *gpu = &res->gpus[g];
            rt_row(t);
            rt_name(t, role, m->roles[r].name);
            rt_name(t, host, gpu->host);
            rt_u64(t, index, gpu->index);
            rt_f64(t, busy, gpu->busy_mean);
            rt_f64(t, busy_peak, gpu->busy_peak);
            rt_f64(t, this_run, gpu->run_mean);
            rt_f64(t, this_run_peak, gpu->run_peak);
            rt_f64(t, idle, gpu->idle);
            rt_f64(t, vram, gpu->vram_run_mean);
            rt_f64(t, vram_peak, gpu->vram_run_peak);
            measured(t, mem_total, gpu->mem_total, gpu->mem_total != 0);
            rt_u64(t, processes, gpu->nworkers);
            rt_u64(t, running, gpu->nrunning);
        }
    }
    return SCOPE_READER_OK;
}
