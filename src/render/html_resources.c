/* A role's sampled resources over time, as inline SVG plots: I/O in its
 * layers with the bytes each phase was billed for, memory and CPU, and
 * each GPU's busy time against this role's share; see html_parts.h.  The
 * totals are the model's (run_resources.h), the series run_res_fold's. */
#include "fmt.h"
#include "html_out.h"
#include "html_parts.h"
#include "html_report.h"
#include "run_resources.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <scope/log_format.h>

static double span_s(const run_model *m) {
    return m->end_wall_ns > m->start_wall_ns ? (double)(m->end_wall_ns - m->start_wall_ns) / 1e9
                                             : 1;
}

/* A total's row: its label and exact bytes, n/a where not measured. */
static void put_total(FILE *f, const char *label, const char *key, uint64_t v, int measured) {
    char t[32];
    fputs("<tr><th>", f);
    html_str(f, label);
    fputs("</th>", f);
    html_u64_cell(f, key, v, measured, " bytes", fmt_bytes(t, sizeof t, (double)v));
    fputs("</tr>", f);
}

/* The phases the sampler billed bytes to (each its own: the intervals
 * that began while it was innermost), most bytes first: the phases open
 * under the I/O, since the model keeps time series per process, not per
 * phase. */
#define IO_PHASES 12

static void pick_io(html_top_phases *k, const run_phase *p) {
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *c = p->children[i];
        run_res_io io;
        uint64_t b = run_phase_sampled_io(c, &io) ? io.char_read + io.disk_write : 0;
        if (b)
            html_top_offer(k, c, (double)b);
        pick_io(k, c);
    }
}

static void put_io_row(FILE *f, const run_res_io *io) {
    char t[32];
    html_num_cell(f, NULL, (double)io->disk_read, fmt_bytes(t, sizeof t, (double)io->disk_read));
    html_num_cell(f, NULL, (double)io->cache_read, fmt_bytes(t, sizeof t, (double)io->cache_read));
    html_num_cell(f, NULL, (double)io->disk_write, fmt_bytes(t, sizeof t, (double)io->disk_write));
    fputs("</tr>\n", f);
}

static void put_io_by_phase(FILE *f, const run_role *r, size_t ri, const run_res *res) {
    const run_phase *top[IO_PHASES];
    double bytes[IO_PHASES];
    html_top_phases k = {top, bytes, 0, IO_PHASES, 0};
    pick_io(&k, r->root);
    fputs("<table class=\"sortable\"><thead><tr><th>phase open under the I/O</th><th>disk "
          "read</th><th>page cache</th><th>disk write</th></tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < k.n; i++) {
        run_res_io io;
        run_phase_sampled_io(k.v[i], &io);
        fputs("<tr><td class=\"name\">", f);
        html_phase_link(f, r, ri, k.v[i], SIZE_MAX);
        fputs("</td>", f);
        put_io_row(f, &io);
    }
    fputs("<tr><td>outside every phase</td>", f);
    put_io_row(f, &res->outside_phases);
    fputs("<tr><td>not attributable (threads that ended mid-interval)</td>", f);
    put_io_row(f, &res->unplaced);
    fputs("</tbody></table>", f);
    if (k.more)
        fprintf(f,
                "<p class=\"truncated dim\">The %d phases with the most bytes; %zu more moved "
                "some.</p>",
                IO_PHASES, k.more);
    fputs("<p class=\"dim\">Where the bytes went: each sampled interval's bytes go to the phase "
          "innermost on the thread that moved them when the interval began (a second's "
          "resolution), each phase its own bytes, not its children's.</p>\n",
          f);
}

static void put_io(FILE *f, const run_model *m, const run_role *r, size_t ri, const run_res *res) {
    fprintf(f, "<section id=\"io-%zu\"><h3>I/O over time</h3>\n", ri);
    uint32_t pr = res->present;
    if (!(pr & (SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ))) {
        fputs("<p>Not measured.</p></section>\n", f);
        return;
    }
    double c[3][HTML_COLS];
    run_res_fold(m, r->workers, r->nprocs, RUN_RES_DISK_READ, NULL, HTML_COLS, c[0]);
    run_res_fold(m, r->workers, r->nprocs, RUN_RES_CACHE_READ, NULL, HTML_COLS, c[1]);
    run_res_fold(m, r->workers, r->nprocs, RUN_RES_DISK_WRITE, NULL, HTML_COLS, c[2]);
    html_series s[3] = {{"disk read", c[0]}, {"page cache read", c[1]}, {"disk write", c[2]}};
    html_plot(f, "I/O rate", s, 3, HTML_COLS, span_s(m), "B/s");
    if (res->series_intervals)
        fprintf(f,
                "<p class=\"approx\">%" PRIu64 " of %" PRIu64 " intervals are known from a "
                "snapshot's series only: the totals are exact, the plot there approximate.</p>",
                res->series_intervals, res->intervals);
    fputs("<table>", f);
    int dr = pr & SCOPE_RES_DISK_READ, cr = pr & SCOPE_RES_CHAR_READ;
    put_total(f, "disk read", "disk_read", res->io.disk_read, dr);
    put_total(f, "page cache read", "cache_read", res->io.cache_read, dr && cr);
    put_total(f, "disk write", "disk_write", res->io.disk_write, pr & SCOPE_RES_DISK_WRITE);
    fputs("</table>\n", f);
    put_io_by_phase(f, r, ri, res);
    fputs("</section>\n", f);
}

static void put_memory(FILE *f, const run_model *m, const run_role *r, size_t ri,
                       const run_res *res) {
    char t[32], who[256];
    fprintf(f, "<section id=\"memory-%zu\"><h3>Memory and CPU over time</h3>\n", ri);
    double rss[HTML_COLS], cpu[HTML_COLS];
    run_res_fold(m, r->workers, r->nprocs, RUN_RES_RSS, NULL, HTML_COLS, rss);
    run_res_fold(m, r->workers, r->nprocs, RUN_RES_CPU, NULL, HTML_COLS, cpu);
    html_plot(f, "RSS, the processes' added up", (html_series[]){{"RSS", rss}}, 1, HTML_COLS,
              span_s(m), "B");
    html_plot(f, "CPU, cores busy", (html_series[]){{"CPU", cpu}}, 1, HTML_COLS, span_s(m),
              "cores");
    fputs("<table>", f);
    put_total(f, "RSS peak of one process", "rss_peak", res->rss_peak,
              res->rss_peak_worker != SIZE_MAX);
    if (res->rss_peak_worker != SIZE_MAX) {
        fputs("<tr><th>its process</th><td>", f);
        run_worker_label(m, res->rss_peak_worker, who, sizeof who);
        html_shown(f, who, strlen(who));
        fputs("</td></tr>", f);
    }
    fputs("<tr><th>CPU time</th>", f);
    char cores[48];
    snprintf(cores, sizeof cores, " ns, %.3f cores", res->cpu_cores);
    html_u64_cell(f, "cpu_ns", res->cpu_ns, !isnan(res->cpu_cores), cores,
                  fmt_duration(t, sizeof t, (double)res->cpu_ns));
    fputs("</tr>", f);
    fputs("</table></section>\n", f);
}

static void put_gpus(FILE *f, const run_model *m, const run_role *r, size_t ri,
                     const run_res *res) {
    char t[48], name[300];
    fprintf(f, "<section id=\"gpu-%zu\"><h3>GPU</h3>\n", ri);
    if (!res->ngpus) {
        fputs("<p>No GPU was sampled.</p></section>\n", f);
        return;
    }
    for (size_t i = 0; i < res->ngpus; i++) {
        const run_res_gpu *g = &res->gpus[i];
        double busy[HTML_COLS], mine[HTML_COLS];
        run_res_fold(m, r->workers, r->nprocs, RUN_RES_GPU_BUSY, g, HTML_COLS, busy);
        run_res_fold(m, r->workers, r->nprocs, RUN_RES_GPU_RUN, g, HTML_COLS, mine);
        char host[200];
        snprintf(name, sizeof name, "GPU %" PRIu32 " on %s", g->index,
                 fmt_name(host, sizeof host, g->host));
        /* NVML never attributing a sample to these processes is not a
         * share of 0: the line is left out, and the table says n/a. */
        int attributed = !isnan(g->run_mean);
        html_plot(f, name, (html_series[]){{"device busy", busy}, {"this role's share", mine}},
                  attributed ? 2 : 1, HTML_COLS, span_s(m), "%");
        fprintf(f, "<table data-gpu=\"%zu\"><tr><th>busy</th>", i);
        html_num_cell(f, "busy", g->busy_mean, fmt_percent(t, sizeof t, g->busy_mean, 1));
        fputs("<th>this role's share</th>", f);
        html_num_cell(f, "this_run", g->run_mean, fmt_percent(t, sizeof t, g->run_mean, 1));
        fputs("<th>idle</th>", f);
        html_num_cell(f, "idle", g->idle, fmt_percent(t, sizeof t, g->idle, 1));
        fputs("</tr></table>\n", f);
    }
    fputs("</section>\n", f);
}

void html_resources(FILE *f, run_model *m, const run_role *r, size_t ri) {
    const run_res *res = m->no_samples ? NULL : run_role_res(m, r);
    if (!res || !res->nsampled) {
        const char *why = m->no_samples ? "not read (--no-samples)" : "no resource samples";
        fprintf(f, "<section id=\"io-%zu\"><h3>I/O over time</h3><p>%s</p></section>\n", ri, why);
        fprintf(f,
                "<section id=\"memory-%zu\"><h3>Memory and CPU over time</h3><p>%s</p>"
                "</section>\n",
                ri, why);
        fprintf(f, "<section id=\"gpu-%zu\"><h3>GPU</h3><p>%s</p></section>\n", ri, why);
        return;
    }
    put_io(f, m, r, ri, res);
    put_memory(f, m, r, ri, res);
    put_gpus(f, m, r, ri, res);
}
