/*
 * The GPU view: every device NVML showed the run's processes (or the one
 * process of the process filter), by host and NVML index: whole-device busy
 * and the run's own share over time as sparklines, the run's device memory
 * over time, each role's share, and the processes on the device.  "n/a"
 * for the share means NVML never attributed a sample to those processes,
 * which is not a measured 0.
 */
#include "fmt.h"
#include "run_resources.h"
#include "style.h"
#include "text_view.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define SPARK_MAX 400

/* One metric of the device over the run: its sparkline on a fixed 0..max
 * scale (1.0 for shares, so 50% is half height whatever the run did). */
static void spark_line(text_lines *t, const run_model *m, const size_t *workers, size_t n,
                       const run_res_gpu *g, enum run_res_metric what, const char *label,
                       double scale) {
    size_t cols = t->width > 28 ? (size_t)t->width - 19 : 8; /* 4 + label 10 + 1, in width - 2 */
    if (cols > SPARK_MAX)
        cols = SPARK_MAX;
    double v[SPARK_MAX];
    double max = run_res_fold(m, workers, n, what, g, cols, v);
    if (isnan(max)) {
        text_add(t, TH_DIM, 0, "    %-10s n/a", label);
        return;
    }
    char spark[SPARK_MAX * 3 + 1];
    fmt_spark(spark, sizeof spark, v, cols, scale > 0 ? scale : max, style_utf8);
    text_add(t, TH_BAR, 0, "    %-10s %s", label, spark);
}

static void device(text_lines *t, app *a, const run_res_gpu *g, const size_t *workers, size_t n) {
    run_model *m = a->model;
    char name[200], host[128], b[6][40];
    if (m->nhosts > 1)
        snprintf(name, sizeof name, "%s GPU %" PRIu32, style_escape(g->host, host, sizeof host),
                 g->index);
    else
        snprintf(name, sizeof name, "GPU %" PRIu32, g->index);
    text_add(t, TH_ROLE, 2, "%s   busy %s (peak %s)   this run %s (peak %s)   idle %s", name,
             fmt_percent(b[0], 40, g->busy_mean, 1), fmt_percent(b[1], 40, g->busy_peak, 1),
             fmt_percent(b[2], 40, g->run_mean, 1), fmt_percent(b[3], 40, g->run_peak, 1),
             fmt_percent(b[4], 40, g->idle, 1));
    spark_line(t, m, workers, n, g, RUN_RES_GPU_BUSY, "busy", 1.0);
    if (isnan(g->run_mean))
        text_add(t, TH_DIM, 4, "    %-10s n/a: NVML never attributed a sample to these processes",
                 "this run");
    else
        spark_line(t, m, workers, n, g, RUN_RES_GPU_RUN, "this run", 1.0);
    spark_line(t, m, workers, n, g, RUN_RES_GPU_VRAM, "VRAM", 0);
    text_add(t, TH_NORMAL, 4, "    VRAM of this run %s, peak %s%s%s",
             fmt_bytes(b[0], 40, g->vram_run_mean), fmt_bytes(b[1], 40, g->vram_run_peak),
             g->mem_total ? " of " : "",
             g->mem_total ? fmt_bytes(b[2], 40, (double)g->mem_total) : "");
    /* Each role's own share of it, under no process filter. */
    if (a->focus_worker == SIZE_MAX && m->nroles > 1) {
        char line[1024];
        size_t len = (size_t)snprintf(line, sizeof line, "    by role:");
        for (size_t r = 0; r < m->nroles && len < sizeof line - 200; r++) {
            const run_res *rr = run_role_res(m, &m->roles[r]);
            for (size_t d = 0; rr && d < rr->ngpus; d++)
                if (rr->gpus[d].index == g->index && run_str_eq(rr->gpus[d].host, g->host)) {
                    char role[128];
                    style_escape(m->roles[r].name, role, sizeof role);
                    len += (size_t)snprintf(line + len, sizeof line - len, " %s %s", role,
                                            fmt_percent(b[5], 40, rr->gpus[d].run_mean, 1));
                }
        }
        text_add(t, TH_NORMAL, 6, "%s", line);
    }
    text_add(t, TH_NORMAL, 4, "    processes (%zu sampled it, %zu ran on it):", g->nworkers,
             g->nrunning);
    for (size_t k = 0; k < g->nworkers && k < 16; k++) {
        char who[600];
        text_add(t, TH_NORMAL, 8, "      %s", app_worker_label(a, g->workers[k], who, sizeof who));
    }
    if (g->nworkers > 16)
        text_add(t, TH_DIM, 8, "      ... and %zu more", g->nworkers - 16);
}

static void fill_gpu(view *v, text_lines *t) {
    app *a = v->app;
    run_model *m = a->model;
    if (m->no_samples) {
        text_add(t, TH_DIM, 0, "GPU figures were not loaded (--no-samples).");
        return;
    }
    size_t one = a->focus_worker;
    const run_res *res = one != SIZE_MAX ? run_worker_res(m, one) : run_all_res(m);
    if (!res) {
        text_add(t, TH_ERROR, 0, "out of memory");
        return;
    }
    if (!res->nsampled) {
        text_add(t, TH_DIM, 0,
                 "No resource samples in this run: the recorder's sampler was off "
                 "(SCOPE_SAMPLE_INTERVAL=0) or the recorder has none.");
        return;
    }
    if (!res->ngpus) {
        text_add(t, TH_DIM, 0,
                 "No GPU figures: NVML (libnvidia-ml.so.1) was not found, could not start, "
                 "or showed no device to %s.",
                 one != SIZE_MAX ? "this process" : "the run's processes");
        return;
    }
    text_add(t, TH_DIM, 0,
             "busy: the whole device, any process (other tenants too); this run: the "
             "processes' own share, added up (NVML)");
    if (res->series_intervals)
        text_add(t, TH_DIM, 0,
                 "Before a snapshot the figures come from its series: means and peaks by bucket, "
                 "approximate (CAVEATS says up to when).");
    for (size_t i = 0; i < res->ngpus; i++) {
        const run_res_gpu *g = &res->gpus[i];
        text_add(t, TH_NORMAL, 0, "%s", "");
        device(t, a, g, g->workers, g->nworkers);
    }
}

static int gpu_init(view *v) {
    return text_view_init(v, fill_gpu);
}

const view_ops gpu_view_ops = TEXT_VIEW_OPS(gpu_init, .narrowed = 1);
