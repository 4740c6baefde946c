/* The text report; see report_text.h. */
#define _GNU_SOURCE
#include "report_text.h"

#include "counter_cells.h"
#include "fmt.h"
#include "layout.h"
#include "phase_columns.h"
#include "report_resources.h"
#include "run_partial.h"

#include <scope/log_format.h>

#include <assert.h>
#include <inttypes.h>
#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* ---- the run header ----------------------------------------------------- */

static void put_hosts(FILE *f, const run_model *m) {
    char name[256];
    size_t shown = m->nhosts <= 4 ? m->nhosts : 3;
    for (size_t h = 0; h < shown; h++)
        fprintf(f, "%s%s", h ? ", " : "", fmt_name(name, sizeof name, m->hosts[h]));
    if (shown < m->nhosts)
        fprintf(f, ", ... %s", fmt_name(name, sizeof name, m->hosts[m->nhosts - 1]));
    fprintf(f, " (%zu node%s)", m->nhosts, m->nhosts == 1 ? "" : "s");
}

/* The launcher line, when a launcher said anything: its name, the steps of
 * the job, the array task and the restarts. */
static void put_launch(FILE *f, const run_model *m, const text_style *st) {
    char buf[256];
    if (!m->launcher.len && !m->nsteps && !m->array_job_id.len)
        return;
    const char *sep = "";
    if (m->launcher.len) {
        text_heading(f, st, "Launcher");
        fprintf(f, " %s", fmt_name(buf, sizeof buf, m->launcher));
        sep = "   ";
    }
    if (m->nsteps) {
        fputs(sep, f);
        text_heading(f, st, m->nsteps == 1 ? "Step" : "Steps");
        for (size_t s = 0; s < m->nsteps; s++)
            fprintf(f, "%s%s", s ? ", " : " ", fmt_name(buf, sizeof buf, m->steps[s]));
        sep = "   ";
    }
    if (m->array_job_id.len) {
        fputs(sep, f);
        text_heading(f, st, "Array");
        fprintf(f, " %s task %d", fmt_name(buf, sizeof buf, m->array_job_id), m->array_task);
        sep = "   ";
    }
    if (m->restarts > 0) {
        fputs(sep, f);
        text_heading(f, st, "Restarts");
        fprintf(f, " %d", m->restarts);
    }
    fputc('\n', f);
}

void report_text_header(FILE *f, const run_model *m, const text_style *st) {
    char buf[256];
    text_heading(f, st, "Runtime");
    fprintf(f, " %s", fmt_duration(buf, sizeof buf, (double)m->runtime_ns));
    /* Figures of a run in progress are as of each process's newest frame. */
    if (m->nrunning)
        fprintf(f, " so far, in progress (%zu of %zu process%s running)", m->nrunning, m->nprocs,
                m->nprocs == 1 ? "" : "es");
    fputs("   ", f);
    text_heading(f, st, "Processes");
    fprintf(f, " %zu   ", m->nprocs);
    text_heading(f, st, "Roles");
    for (size_t r = 0; r < m->nroles; r++)
        fprintf(f, "%s %s x%zu", r ? "," : "", fmt_name(buf, sizeof buf, m->roles[r].name),
                m->roles[r].nprocs);
    if (m->roles_by_samples && m->nroles > 1)
        fputs("  (by line samples, most first)", f);
    fputc('\n', f);
    text_heading(f, st, "Hosts");
    fputc(' ', f);
    put_hosts(f, m);
    fputs("   ", f);
    text_heading(f, st, "Run");
    fprintf(f, " %s", fmt_name(buf, sizeof buf, m->attempts[m->shown_attempt].run_id));
    if (m->nranked) {
        fputs("   ", f);
        text_heading(f, st, "Ranks");
        if (m->rank_min == m->rank_max)
            fprintf(f, " %d", m->rank_min);
        else
            fprintf(f, " %d-%d", m->rank_min, m->rank_max);
        if (m->nranked < m->nprocs)
            fprintf(f, " (%zu of %zu processes)", m->nranked, m->nprocs);
    }
    if (m->job_id.len) {
        fputs("   ", f);
        text_heading(f, st, "Job");
        fprintf(f, " %s", fmt_name(buf, sizeof buf, m->job_id));
        if (m->njob_ids > 1)
            fprintf(f, " (+%zu more)", m->njob_ids - 1);
    }
    fputc('\n', f);
    put_launch(f, m, st);
    text_dim(f, st, "Started ");
    fmt_wall(buf, sizeof buf, m->start_wall_ns);
    fprintf(f, "%s%s", buf, m->start_wall_ns ? " UTC" : "");
    if (m->nattempts > 1)
        fprintf(f, "   (attempt %zu of %zu, %s; --attempt N shows another)", m->shown_attempt + 1,
                m->nattempts, m->shown_attempt + 1 == m->nattempts ? "the newest" : "chosen");
    fputc('\n', f);
    double queued = run_queued_share(m);
    if (queued >= RUN_LOADED_QUEUED) {
        text_heading(f, st, "Loaded host");
        fprintf(f, " phases spent %s of their time waiting for a CPU (the queued part of wait)\n",
                fmt_percent(buf, sizeof buf, queued, 0));
    }
    if (m->source.len) {
        text_dim(f, st, "Source ");
        fprintf(f, "%s\n", fmt_name(buf, sizeof buf, m->source));
    }
}

/* ---- the phase table ------------------------------------------------------ */

/* The phase figures (phase_columns.h), then the spread across processes:
 * right-aligned in their width, which holds the space before them.  The
 * spread is the first to go when the terminal is narrow. */
enum { COL_SPREAD = PF_NCOLUMNS, NCOLS };
static_assert(NCOLS <= LAYOUT_MAX_COLUMNS, "the phase table fits a layout");
#define MIN_NAME 22

/* The phase figures and the spread, nothing given up yet. */
static void table_columns(layout_column cols[NCOLS]) {
    phase_columns_of(cols);
    cols[COL_SPREAD] = (layout_column){"spread min/med/max", 24, 1, 1, 0};
}

/* Columns for a role's table.  The count and spread columns widen to
 * their widest cell plus the space before it (counts in the billions, which
 * a long run of short phases reaches; spreads naming how many processes
 * entered a phase) rather than run into their neighbour; the spread is for
 * roles of more than one process. */
static layout plan(const text_style *st, const run_role *role) {
    layout_column cols[NCOLS];
    table_columns(cols);
    int need = phase_count_width(role->root) + 2;
    if (need > cols[PF_COUNT].width)
        cols[PF_COUNT].width = need;
    cols[PF_QUEUED].off = !phase_queued_measured(role->root);
    cols[COL_SPREAD].off = role->nprocs <= 1;
    if (!cols[COL_SPREAD].off) {
        need = phase_spread_width(role->root, role->nprocs) + 2;
        if (need > cols[COL_SPREAD].width)
            cols[COL_SPREAD].width = need;
    }
    layout lay = layout_fit(cols, NCOLS, st->width, 0, MIN_NAME);
    /* TEXT_MIN_WIDTH leaves the name 25 columns beside share and total. */
    assert(lay.name_width >= MIN_NAME);
    return lay;
}

/* A cell right-aligned in its column, whose width holds the space before
 * it: a cell as wide as its column or wider (a figure the widths did not
 * foresee) still gets that space, so it never runs into its neighbour. */
static void put_cell(FILE *f, const layout *lay, size_t c, const char *text) {
    if (!lay->shown[c])
        return;
    fputc(' ', f);
    fmt_put_right(f, text, lay->width[c] > 0 ? (size_t)lay->width[c] - 1 : 0);
}

/* The phase's figures in the columns the layout shows. */
static void put_figures(FILE *f, const layout *lay, const run_phase *p) {
    char buf[48];
    for (size_t c = 0; c < PF_NCOLUMNS; c++)
        if (lay->shown[c]) {
            phase_cell(p, (enum phase_fig)c, buf, sizeof buf);
            put_cell(f, lay, c, buf);
        }
}

static void put_name(FILE *f, const text_style *st, const layout *lay, unsigned indent,
                     const char *prefix, run_str name) {
    char buf[1024];
    size_t pre = strlen(prefix);
    if (indent > 40)
        indent = 40;
    memset(buf, ' ', indent);
    memcpy(buf + indent, prefix, pre);
    fmt_name(buf + indent + pre, sizeof buf - indent - pre, name);
    fmt_fit(buf, sizeof buf, (size_t)lay->name_width - 1, st->utf8);
    fmt_put_left(f, buf, (size_t)lay->name_width);
}

static void put_spread(FILE *f, const layout *lay, const run_phase *p, size_t role_procs) {
    char cell[96];
    if (lay->shown[COL_SPREAD])
        put_cell(f, lay, COL_SPREAD, phase_spread_cell(p, role_procs, cell, sizeof cell));
}

/* What follows a counter's total: "  rate  unit", giving up the unit,
 * then the rate, until it takes at most `room` columns. */
static void counter_after_total(const counter_cells *c, int room, char *out, size_t cap) {
    snprintf(out, cap, "%s%s%s%s", c->rate[0] ? "  " : "", c->rate, c->unit[0] ? "  " : "",
             c->unit);
    if ((int)fmt_width(out) > room)
        snprintf(out, cap, "%s%s", c->rate[0] ? "  " : "", c->rate);
    if ((int)fmt_width(out) > room)
        out[0] = '\0';
}

/* A counter row: "+ name", then its total right-aligned to end where the
 * table's total column ends, then rate and what a unit costs
 * (counter_cells.h), as many of the two as the width holds.  In the narrow
 * blocks (dominant phases) the numbers end at the right edge instead. */
static void put_counter(FILE *f, const text_style *st, const layout *lay, unsigned indent,
                        const run_counter *k, int at_right_edge) {
    counter_cells c;
    char after[120];
    counter_cells_of(k, &c);
    int total_w = (int)fmt_width(c.total);
    if (at_right_edge) {
        enum { NAME_LEAST = 10 };
        counter_after_total(&c, st->width - NAME_LEAST - 2 - total_w, after, sizeof after);
        int room = st->width - total_w - (int)fmt_width(after) - 2;
        layout narrow = *lay;
        narrow.name_width = room > NAME_LEAST ? room : NAME_LEAST;
        put_name(f, st, &narrow, indent, "+ ", k->name);
        fmt_put_left(f, "",
                     (size_t)(st->width - narrow.name_width - total_w - (int)fmt_width(after)));
        fprintf(f, "%s%s\n", c.total, after);
        return;
    }
    put_name(f, st, lay, indent, "+ ", k->name);
    /* Share and total are never given up, so the total's column is there. */
    assert(lay->shown[PF_SHARE] && lay->shown[PF_TOTAL]);
    int total_end = lay->width[PF_SHARE] + lay->width[PF_TOTAL];
    /* A total wider than its columns still stands apart from the name, and
     * pushes what follows it right. */
    int used = lay->name_width + (total_w + 1 > total_end ? total_w + 1 : total_end);
    counter_after_total(&c, st->width - used, after, sizeof after);
    fputc(' ', f);
    fmt_put_right(f, c.total, (size_t)total_end - 1);
    fprintf(f, "%s\n", after);
}

/* Whether any phase below p has a counter. */
static int has_counters(const run_phase *p) {
    for (size_t i = 0; i < p->nchildren; i++)
        if (p->children[i]->ncounters || has_counters(p->children[i]))
            return 1;
    return 0;
}

/* The counter rows' headings, under the table's: their total ends where
 * the phases' total does. */
static void put_counter_header(FILE *f, const text_style *st, const layout *lay) {
    int total_end = lay->width[PF_SHARE] + lay->width[PF_TOTAL];
    fmt_put_left(f, "  + counter", (size_t)lay->name_width);
    fmt_put_right(f, "total", (size_t)total_end);
    /* As far as the width holds, as the counter rows' cells are. */
    int room = st->width - lay->name_width - total_end;
    fputs(room >= 16 ? "  rate  per unit\n" : room >= 6 ? "  rate\n" : "\n", f);
}

static void put_phase(FILE *f, const text_style *st, const layout *lay, const run_phase *p,
                      size_t role_procs) {
    put_name(f, st, lay, 2 * (p->depth - 1), "", p->name);
    put_figures(f, lay, p);
    put_spread(f, lay, p, role_procs);
    fputc('\n', f);
    for (size_t i = 0; i < p->ncounters; i++)
        put_counter(f, st, lay, 2 * p->depth, &p->counters[i], 0);
    for (size_t i = 0; i < p->nchildren; i++)
        put_phase(f, st, lay, p->children[i], role_procs);
}

static void put_table_header(FILE *f, const text_style *st, const layout *lay, int counters) {
    if (st->color)
        fputs("\033[2m", f);
    fmt_put_left(f, "phase", (size_t)lay->name_width);
    layout_column cols[NCOLS];
    table_columns(cols);
    for (size_t c = 0; c < NCOLS; c++)
        put_cell(f, lay, c, cols[c].heading);
    fputs("\n", f);
    if (counters)
        put_counter_header(f, st, lay);
    if (st->color)
        fputs("\033[0m", f);
}

/* ---- per role ------------------------------------------------------------- */

static void put_role_title(FILE *f, const run_model *m, const run_role *r, const text_style *st) {
    char up[256], ratio[16], who[400], busy[32], text[700];
    fmt_title(up, sizeof up, r->name);
    text_heading(f, st, up);
    int n =
        snprintf(text, sizeof text, "(%zu process%s, phase time %s, imbalance %s", r->nprocs,
                 r->nprocs == 1 ? "" : "es", fmt_duration(busy, sizeof busy, (double)r->phase_ns),
                 fmt_ratio(ratio, sizeof ratio, r->imbalance));
    if (r->nprocs > 1 && r->slowest_worker != SIZE_MAX)
        n += snprintf(text + n, sizeof text - (size_t)n, "; busiest %s",
                      run_worker_label(m, r->slowest_worker, who, sizeof who));
    snprintf(text + n, sizeof text - (size_t)n, ")");
    fputs("  ", f);
    text_wrap(f, st, text, fmt_width(up) + 2, 2);
}

static void put_dominant(FILE *f, const run_role *r, const text_style *st) {
    if (!r->ndominant)
        return;
    /* The figures marked for it (self, wait, p50, p99), none given up: the
     * name takes what they leave. */
    layout_column cols[NCOLS];
    table_columns(cols);
    for (size_t c = 0; c < NCOLS; c++) {
        cols[c].off = c >= PF_NCOLUMNS || !(phase_figures[c].flags & PF_DOMINANT);
        cols[c].drop = 0;
    }
    layout lay = layout_fit(cols, NCOLS, st->width, 0, 0);
    fputc('\n', f);
    if (st->color)
        fputs("\033[1m", f);
    fmt_put_left(f, "DOMINANT PHASES", (size_t)lay.name_width);
    for (size_t c = 0; c < NCOLS; c++)
        put_cell(f, &lay, c, cols[c].heading);
    fputs(st->color ? "\033[0m\n" : "\n", f);
    for (size_t i = 0; i < r->ndominant; i++) {
        const run_phase *p = r->dominant[i];
        char path[1024];
        run_phase_path(p, path, sizeof path);
        /* Cut from the left: dominant phases often share their first
         * names (iteration/...), and the innermost name tells them apart. */
        fmt_fit_left(path, sizeof path, (size_t)lay.name_width - 1, st->utf8);
        fmt_put_left(f, path, (size_t)lay.name_width);
        put_figures(f, &lay, p);
        fputc('\n', f);
        for (size_t k = 0; k < p->ncounters; k++)
            put_counter(f, st, &lay, 4, &p->counters[k], 1);
    }
}

static void put_iterations(FILE *f, const run_model *m, const run_role *r, const text_style *st) {
    if (!r->has_iterations)
        return;
    char n[32], mean[24], p50[24], p95[24], p99[24], title[300];
    fputc('\n', f);
    snprintf(title, sizeof title, "ITERATIONS");
    text_heading(f, st, title);
    fprintf(f, "  (%s entries of '%s')\n", fmt_ucount(n, sizeof n, r->iterations.count),
            m->iteration_name);
    fprintf(f, "  mean %9s   p50 %9s   p95 %9s   p99 %9s\n",
            fmt_duration(mean, sizeof mean, r->iterations.mean_ns),
            fmt_duration(p50, sizeof p50, r->iterations.p50_ns),
            fmt_duration(p95, sizeof p95, r->iterations.p95_ns),
            fmt_duration(p99, sizeof p99, r->iterations.p99_ns));
}

/* Phases opened with SCOPE_PHASE_IO, whose bytes are read at their own
 * entry and exit: exact, unlike anything sampled.  A phase that asked for
 * it but whose counters were never read says so instead of showing 0. */
static void put_io_phase(FILE *f, const text_style *st, const run_phase *p) {
    char path[1024], a[32], b[32], c[32];
    run_phase_path(p, path, sizeof path);
    fmt_fit(path, sizeof path, 30, st->utf8);
    fputs("  ", f);
    fmt_put_left(f, path, 32);
    if (!p->io_measured) {
        if (p->io_failed)
            fprintf(f, "n/a: the I/O counters could not be read (%" PRIu64 " entries)\n",
                    p->io_failed);
        else
            fputs("n/a: not measured (the recorder that wrote it reads no I/O counters)\n", f);
        return;
    }
    fmt_bytes(c, sizeof c, p->disk_bytes_per_s);
    fprintf(f, "r %10s   w %10s   %s%s\n", fmt_bytes(a, sizeof a, (double)p->disk_read),
            fmt_bytes(b, sizeof b, (double)p->disk_write), c,
            isnan(p->disk_bytes_per_s) ? "" : "/s");
    if (p->cache_read)
        fprintf(f, "%34s+ %s read from page cache\n", "",
                fmt_bytes(a, sizeof a, (double)p->cache_read));
    if (p->io_failed)
        fprintf(f, "%34s%" PRIu64 " entr%s whose I/O could not be read are left out\n", "",
                p->io_failed, p->io_failed == 1 ? "y" : "ies");
}

static void find_io_phases(const run_phase *p, const run_phase **out, size_t *n, size_t cap) {
    for (size_t i = 0; i < p->nchildren; i++) {
        if ((p->children[i]->flags & SCOPE_PHASE_F_IO) && *n < cap)
            out[(*n)++] = p->children[i];
        find_io_phases(p->children[i], out, n, cap);
    }
}

static void put_io(FILE *f, const run_role *r, const text_style *st) {
    const run_phase *io[64];
    size_t n = 0;
    find_io_phases(r->root, io, &n, sizeof io / sizeof *io);
    if (!n)
        return;
    fputc('\n', f);
    text_heading(f, st, "I/O BY PHASE");
    fputs("  (measured exactly, at each entry and exit)\n", f);
    for (size_t i = 0; i < n; i++)
        put_io_phase(f, st, io[i]);
}

/* Phases whose percentiles or wait% rest on part of their entries
 * (run_partial.h), under a heading printed before the first. */
static void put_partial_phases(FILE *f, const run_phase *p, const text_style *st, int *said) {
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *k = p->children[i];
        char note[160], path[1024];
        if (*run_phase_partial_note(k, note, sizeof note)) {
            if (!*said) {
                fputc('\n', f);
                text_heading(f, st, "FROM PART OF THE ENTRIES");
                fputs("  (figures of the table above that rest on fewer entries than it counts)\n",
                      f);
                *said = 1;
            }
            run_phase_path(k, path, sizeof path);
            fmt_fit(path, sizeof path, 30, st->utf8);
            fputs("  ", f);
            fmt_put_left(f, path, 32);
            text_wrap(f, st, note, 34, 34);
        }
        put_partial_phases(f, k, st, said);
    }
}

static void put_role(FILE *f, const run_model *m, const run_role *r, const text_style *st) {
    fputc('\n', f);
    put_role_title(f, m, r, st);
    text_rule(f, st);
    layout lay = plan(st, r);
    if (!r->nphases && !r->nunattached) {
        text_dim(f, st, "  no phase recorded\n");
        return;
    }
    put_table_header(f, st, &lay, has_counters(r->root) || r->nunattached);
    for (size_t i = 0; i < r->root->nchildren; i++)
        put_phase(f, st, &lay, r->root->children[i], r->nprocs);
    if (r->nunattached) {
        text_dim(f, st, "(no phase open)\n");
        for (size_t i = 0; i < r->nunattached; i++)
            put_counter(f, st, &lay, 0, &r->unattached[i], 0);
    }
    int said = 0;
    put_partial_phases(f, r->root, st, &said);
    put_dominant(f, r, st);
    put_iterations(f, m, r, st);
    put_io(f, r, st);
    if (!m->no_samples)
        report_resources_print(f, m, r, st);
}

void report_text_caveats(FILE *f, const run_model *m, const text_style *st) {
    if (!m->ncaveats)
        return;
    fputc('\n', f);
    text_heading(f, st, "CAVEATS");
    fprintf(f, "  (%zu)\n", m->ncaveats);
    text_rule(f, st);
    for (size_t i = 0; i < m->ncaveats; i++) {
        fputs("- ", f);
        text_wrap(f, st, m->caveats[i].text, 2, 2);
    }
}

void report_text_print(FILE *f, const run_model *m, const text_style *st) {
    assert(st->width >= TEXT_MIN_WIDTH);
    if (!m->nattempts) {
        fputs("No worker of this run could be placed in an attempt.\n", f);
        report_text_caveats(f, m, st);
        return;
    }
    report_text_header(f, m, st);
    for (size_t r = 0; r < m->nroles; r++)
        put_role(f, m, &m->roles[r], st);
    report_text_caveats(f, m, st);
    fputc('\n', f);
    text_dim(f, st,
             "share: of the role's phase time   self: total minus sub-phases\n"
             "wait: share of wall time off CPU  spread: per-process totals\n");
    int queued = 0;
    for (size_t r = 0; r < m->nroles && !queued; r++)
        queued = phase_queued_measured(m->roles[r].root);
    if (queued)
        text_dim(f, st, "queued: of wait, runnable but waiting for a CPU (the rest is blocked)\n");
    text_dim(f, st, "n/a: not measured (never the same as 0)\n");
}
