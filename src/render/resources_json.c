/* Resources in JSON; see resources_json.h. */
#include "resources_json.h"

#include <scope/log_format.h>

#include <math.h>

static void put_measured(json_out *j, cJSON *o, const char *key, uint64_t v, int measured) {
    if (measured)
        jo_u64(j, o, key, v);
    else
        jo_null(j, o, key);
}

static void put_bytes(json_out *j, cJSON *o, const run_res_io *io, uint32_t present) {
    int dr = present & SCOPE_RES_DISK_READ, cr = present & SCOPE_RES_CHAR_READ;
    put_measured(j, o, "disk_read", io->disk_read, dr);
    put_measured(j, o, "cache_read", io->cache_read, dr && cr);
    put_measured(j, o, "disk_write", io->disk_write, present & SCOPE_RES_DISK_WRITE);
    put_measured(j, o, "char_read", io->char_read, cr);
    put_measured(j, o, "char_write", io->char_write, present & SCOPE_RES_CHAR_WRITE);
}

static void put_gpu(json_out *j, cJSON *arr, const run_res_gpu *g) {
    cJSON *o = jo_object(j, arr, NULL);
    jo_name(j, o, "host", g->host);
    jo_u64(j, o, "index", g->index);
    jo_num(j, o, "busy", g->busy_mean);
    jo_num(j, o, "busy_peak", g->busy_peak);
    jo_num(j, o, "this_run", g->run_mean);
    jo_num(j, o, "this_run_peak", g->run_peak);
    jo_num(j, o, "idle", g->idle);
    jo_num(j, o, "vram_this_run", g->vram_run_mean);
    jo_num(j, o, "vram_this_run_peak", g->vram_run_peak);
    put_measured(j, o, "mem_total", g->mem_total, g->mem_total != 0);
    cJSON *w = jo_array(j, o, "workers");
    for (size_t i = 0; i < g->nworkers; i++)
        jo_index(j, w, NULL, g->workers[i]);
    jo_u64(j, o, "running", g->nrunning);
}

void resources_json_put(json_out *j, cJSON *parent, const char *key, const run_model *m,
                        const run_res *r) {
    (void)m;
    if (!r || !r->nsampled) {
        jo_null(j, parent, key);
        return;
    }
    cJSON *o = jo_object(j, parent, key);
    jo_u64(j, o, "sampled_processes", r->nsampled);
    jo_u64(j, o, "intervals", r->intervals);
    jo_u64(j, o, "dropped", r->dropped);
    jo_u64(j, o, "series_intervals", r->series_intervals);
    jo_num(j, o, "sampled_s", r->sampled_s);
    cJSON *io = jo_object(j, o, "io");
    put_bytes(j, io, &r->io, r->present);
    jo_num(j, io, "disk_read_per_s", r->disk_read_per_s);
    jo_num(j, io, "cache_read_per_s", r->cache_read_per_s);
    jo_num(j, io, "disk_write_per_s", r->disk_write_per_s);
    jo_num(j, io, "disk_read_peak_per_s", r->disk_read_peak);
    jo_num(j, io, "cache_read_peak_per_s", r->cache_read_peak);
    jo_num(j, io, "disk_write_peak_per_s", r->disk_write_peak);
    cJSON *np = jo_object(j, o, "no_phase");
    put_bytes(j, np, &r->no_phase, r->present);
    jo_num(j, np, "share", r->no_phase_share);
    jo_u64(j, np, "shared", r->shared);
    /* no_phase in its two parts (run_resources.h). */
    cJSON *out = jo_object(j, o, "outside_phases");
    put_bytes(j, out, &r->outside_phases, r->present);
    jo_num(j, out, "share", r->outside_phases_share);
    cJSON *un = jo_object(j, o, "not_attributable");
    put_bytes(j, un, &r->unplaced, r->present);
    jo_num(j, un, "share", r->unplaced_share);
    cJSON *mem = jo_object(j, o, "memory");
    int rss = r->rss_peak_worker != SIZE_MAX;
    put_measured(j, mem, "rss_peak", r->rss_peak, rss);
    jo_index(j, mem, "rss_peak_worker", r->rss_peak_worker);
    put_measured(j, mem, "rss_peak_sum", r->rss_peak_sum, rss);
    cJSON *cpu = jo_object(j, o, "cpu");
    put_measured(j, cpu, "cpu_ns", r->cpu_ns, !isnan(r->cpu_cores));
    jo_num(j, cpu, "cores", r->cpu_cores);
    cJSON *gpus = jo_array(j, o, "gpus");
    for (size_t i = 0; i < r->ngpus; i++)
        put_gpu(j, gpus, &r->gpus[i]);
}

void resources_json_phase(json_out *j, cJSON *parent, const char *key, const run_phase *p) {
    run_res_io io;
    if (!run_phase_sampled_io(p, &io)) {
        jo_null(j, parent, key);
        return;
    }
    cJSON *o = jo_object(j, parent, key);
    jo_u64(j, o, "disk_read", io.disk_read);
    jo_u64(j, o, "cache_read", io.cache_read);
    jo_u64(j, o, "disk_write", io.disk_write);
    jo_u64(j, o, "char_read", io.char_read);
    jo_u64(j, o, "char_write", io.char_write);
}
