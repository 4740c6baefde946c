/* The report's sampled blocks; see report_resources.h. */
#include "report_resources.h"

#include "fmt.h"
#include "run_resources.h"

#include <scope/log_format.h>

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LABEL  26 /* the label column of the I/O and memory lines */
#define FIGURE 12

static void put_line(FILE *f, const char *label, const char *figure, const char *after) {
    fmt_put_left(f, label, LABEL);
    fmt_put_right(f, figure, FIGURE);
    if (after && *after)
        fprintf(f, "   %s", after);
    fputc('\n', f);
}

/* A total and its rate, or n/a when the layer was not measured. */
static void put_io_line(FILE *f, const char *label, uint64_t bytes, int measured, double per_s) {
    char a[32], b[32], rate[40] = "";
    if (measured && !isnan(per_s))
        snprintf(rate, sizeof rate, "%s/s", fmt_bytes(b, sizeof b, per_s));
    put_line(f, label, measured ? fmt_bytes(a, sizeof a, (double)bytes) : FMT_NA, rate);
}

/* One sparkline of a metric over the run, with its peak, when the role
 * measured it at all. */
static void put_spark(FILE *f, const run_model *m, const run_role *r, const text_style *st,
                      const char *label, enum run_res_metric what, double peak_per_s) {
    int width = st->width - 2 - 7 - 18;
    if (width < 10)
        return;
    if (width > 120)
        width = 120;
    double cols[120];
    double max = run_res_fold(m, r->workers, r->nprocs, what, NULL, (size_t)width, cols);
    if (isnan(max) || !(max > 0))
        return; /* nothing moved: the total above says 0 */
    char spark[120 * 3 + 1], peak[32];
    fmt_spark(spark, sizeof spark, cols, (size_t)width, max, st->utf8);
    if (!isnan(peak_per_s) && peak_per_s > max)
        max = peak_per_s; /* one process's busiest interval, finer than a column */
    fprintf(f, "  %-6s %s  peak %s/s\n", label, spark, fmt_bytes(peak, sizeof peak, max));
}

/* A part of the bytes no phase explains, with its share of those the
 * phases share out. */
static void put_no_phase_line(FILE *f, const run_res *res, const char *label, const run_res_io *io,
                              double share, int chars, const char *how) {
    char a[32], b[32], all[32], after[200] = "";
    if (!isnan(share))
        snprintf(after, sizeof after, "%s of %s %s", fmt_percent(b, sizeof b, share, 1),
                 fmt_bytes(all, sizeof all, (double)res->shared), how);
    double bytes = (double)(io->char_read + io->char_write);
    put_line(f, label, chars ? fmt_bytes(a, sizeof a, bytes) : FMT_NA, after);
}

static void put_io(FILE *f, const run_model *m, const run_role *r, const run_res *res,
                   const text_style *st) {
    uint32_t pr = res->present;
    int have_io = pr & (SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ |
                        SCOPE_RES_CHAR_WRITE);
    char title[160], n[32], d[32];
    fputc('\n', f);
    text_heading(f, st, "I/O");
    snprintf(title, sizeof title, "  (sampled about once a second: %s intervals, %s dropped)\n",
             fmt_ucount(n, sizeof n, res->intervals), fmt_ucount(d, sizeof d, res->dropped));
    fputs(title, f);
    if (res->series_intervals) {
        /* Read from a snapshot: say which figures are approximate (CAVEATS
         * says up to when, per process). */
        snprintf(title, sizeof title,
                 "  (%s of them known from snapshot series only: totals exact, sparklines and "
                 "peaks there approximate, %s)\n",
                 fmt_ucount(n, sizeof n, res->series_intervals),
                 res->series_no_node_io ? "their bytes in no phase" : "bytes per phase exact");
        text_dim(f, st, title);
    }
    text_rule(f, st);
    if (!have_io) {
        text_dim(f, st, "  n/a: no I/O counter could be read by the sampler\n");
        return;
    }
    put_io_line(f, "Read (from disk)", res->io.disk_read, pr & SCOPE_RES_DISK_READ,
                res->disk_read_per_s);
    put_io_line(f, "Read (from page cache)", res->io.cache_read,
                (pr & SCOPE_RES_CHAR_READ) && (pr & SCOPE_RES_DISK_READ), res->cache_read_per_s);
    put_io_line(f, "Write (to disk)", res->io.disk_write, pr & SCOPE_RES_DISK_WRITE,
                res->disk_write_per_s);
    int chars = pr & (SCOPE_RES_CHAR_READ | SCOPE_RES_CHAR_WRITE);
    put_no_phase_line(f, res, "(outside every phase)", &res->outside_phases,
                      res->outside_phases_share, chars, "through read and write");
    /* Said only where there is some: most runs have none. */
    if (res->unplaced.char_read + res->unplaced.char_write)
        put_no_phase_line(f, res, "(not attributable)", &res->unplaced, res->unplaced_share, chars,
                          "moved by threads that ended mid-interval or had not started recording");
    if (res->dropped) {
        char text[200];
        snprintf(text, sizeof text,
                 "  %s interval%s whose counters could not be read left out, never "
                 "differenced across\n",
                 fmt_ucount(n, sizeof n, res->dropped), res->dropped == 1 ? "" : "s");
        text_dim(f, st, text);
    }
    if (pr & SCOPE_RES_DISK_READ)
        put_spark(f, m, r, st, "read", RUN_RES_DISK_READ, res->disk_read_peak);
    if ((pr & SCOPE_RES_CHAR_READ) && (pr & SCOPE_RES_DISK_READ))
        put_spark(f, m, r, st, "cache", RUN_RES_CACHE_READ, res->cache_read_peak);
    if (pr & SCOPE_RES_DISK_WRITE)
        put_spark(f, m, r, st, "write", RUN_RES_DISK_WRITE, res->disk_write_peak);
}

static void put_memory(FILE *f, const run_model *m, const run_role *r, const run_res *res,
                       const text_style *st) {
    char a[32], b[32], who[400], text[600];
    fputc('\n', f);
    text_heading(f, st, "MEMORY");
    fputc('\n', f);
    text_rule(f, st);
    if (res->rss_peak_worker == SIZE_MAX) {
        put_line(f, "RSS peak", FMT_NA, "not measured");
    } else {
        run_worker_label(m, res->rss_peak_worker, who, sizeof who);
        put_line(f, "RSS peak", fmt_bytes(a, sizeof a, (double)res->rss_peak), who);
        if (r->nprocs > 1) {
            snprintf(text, sizeof text, "summed over the role's %zu processes", res->nsampled);
            put_line(f, "RSS peaks added up", fmt_bytes(b, sizeof b, (double)res->rss_peak_sum),
                     text);
        }
    }
    if (isnan(res->cpu_cores)) {
        put_line(f, "CPU", FMT_NA, "not measured");
    } else {
        snprintf(text, sizeof text, "%.2f cores busy on average", res->cpu_cores);
        put_line(f, "CPU", fmt_duration(a, sizeof a, (double)res->cpu_ns), text);
    }
}

static const char *device_name(char *buf, size_t cap, const run_model *m, const run_res_gpu *g) {
    char host[128];
    if (m->nhosts > 1)
        snprintf(buf, cap, "%s GPU %" PRIu32, fmt_name(host, sizeof host, g->host), g->index);
    else
        snprintf(buf, cap, "GPU %" PRIu32, g->index);
    return buf;
}

static void put_gpu(FILE *f, const run_model *m, const run_res *res, const text_style *st) {
    if (!res->ngpus)
        return;
    char name[160], a[32], b[32], c[32], d[32];
    fputc('\n', f);
    text_heading(f, st, "GPU");
    fputs("  (NVML, sampled: busy is the whole device, this run is this role's own share)\n", f);
    text_rule(f, st);
    fmt_put_left(f, "", LABEL);
    fputs("      busy   this run       idle\n", f);
    for (size_t i = 0; i < res->ngpus; i++) {
        const run_res_gpu *g = &res->gpus[i];
        device_name(name, sizeof name, m, g);
        fmt_put_left(f, name, LABEL);
        fprintf(f, "%10s %10s %10s\n", fmt_percent(a, sizeof a, g->busy_mean, 1),
                fmt_percent(b, sizeof b, g->run_mean, 1), fmt_percent(c, sizeof c, g->idle, 1));
    }
    for (size_t i = 0; i < res->ngpus; i++) {
        const run_res_gpu *g = &res->gpus[i];
        char label[200], text[200];
        snprintf(label, sizeof label, "VRAM, %s", device_name(name, sizeof name, m, g));
        int n = snprintf(text, sizeof text, "peak %s", fmt_bytes(b, sizeof b, g->vram_run_peak));
        if (g->mem_total)
            snprintf(text + n, sizeof text - (size_t)n, " of %s",
                     fmt_bytes(d, sizeof d, (double)g->mem_total));
        put_line(f, label, fmt_bytes(a, sizeof a, g->vram_run_mean), text);
    }
    for (size_t i = 0; i < res->ngpus; i++) {
        const run_res_gpu *g = &res->gpus[i];
        char text[400];
        snprintf(text, sizeof text, "  %s: %zu process%s of this role sampled it, %zu ran on it\n",
                 device_name(name, sizeof name, m, g), g->nworkers, g->nworkers == 1 ? "" : "es",
                 g->nrunning);
        text_dim(f, st, text);
    }
}

void report_resources_print(FILE *f, const run_model *m, const run_role *r, const text_style *st) {
    run_res *res = run_res_of(m, r->workers, r->nprocs);
    if (!res) {
        fputs("\n(resources: out of memory)\n", f);
        return;
    }
    if (res->nsampled) {
        put_io(f, m, r, res, st);
        put_memory(f, m, r, res, st);
        put_gpu(f, m, res, st);
    }
    run_res_free(res);
}
