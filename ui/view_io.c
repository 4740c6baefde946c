/*
 * The I/O view: per role (or the one process of the process filter), the
 * phases whose I/O was measured exactly (SCOPE_PHASE_IO), then what the 1 Hz
 * sampler saw: bytes read from disk, read from page cache and written, each
 * with its rate, peak and a sparkline over the run; the share of bytes moved
 * with no phase open; and the phases that were open when bytes moved.
 * Tables are laid out by src/layout.h, as the report's are.  A screen of
 * IO_WIDE columns or more also shows the bytes handed to read() and
 * write() (page cache and all), and keeps the phase names next to their
 * figures rather than a screen's width apart.
 */
#include "fmt.h"
#include "layout.h"
#include "run_resources.h"
#include "style.h"
#include "text_view.h"

#include <scope/log_format.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- a table laid out by layout.h into text lines -------------------------------- */

enum { IO_READ, IO_CACHE, IO_WRITE, IO_CHAR_READ, IO_CHAR_WRITE, IO_RATE, IO_NCOLS };
#define IO_WIDE 150

static const layout_column exact_cols[IO_NCOLS] = {
    {"disk read", 10, 0, 1, 0}, {"page cache", 11, 2, 1, 0}, {"disk write", 11, 0, 1, 0},
    {"read()", 11, 0, 1, 1},    {"write()", 11, 0, 1, 1},    {"disk rate", 12, 1, 1, 0},
};

/* The tables' name column on a wide screen: the widest phase path shown
 * (set by fill_io), so that the figures stay beside their names. */
static int io_names;

/* A row: the name cut to its width, then each shown cell right-aligned. */
static void table_row(text_lines *t, enum theme_element el, const layout *L, const char *name,
                      char cells[IO_NCOLS][48]) {
    char line[1024], cut[512];
    snprintf(cut, sizeof cut, "%s", name);
    fmt_fit(cut, sizeof cut, (size_t)(L->name_width > 1 ? L->name_width - 1 : 1), style_utf8);
    size_t n = (size_t)snprintf(line, sizeof line, "%s", cut);
    size_t col = fmt_width(cut);
    for (size_t c = 0; c < IO_NCOLS && n < sizeof line; c++) {
        if (!L->shown[c])
            continue;
        size_t end = (size_t)(L->x[c] + L->width[c]), w = fmt_width(cells[c]);
        size_t start = end > w ? end - w : col;
        if (start <= col)
            start = col + 1;
        n += (size_t)snprintf(line + n, sizeof line - n, "%*s%s", (int)(start - col), "", cells[c]);
        col = start + w;
    }
    text_add(t, el, 0, "%s", line);
}

static layout plan(const text_lines *t) {
    layout_column cols[IO_NCOLS];
    memcpy(cols, exact_cols, sizeof cols);
    int width = t->width - 2;
    if (t->width >= IO_WIDE) {
        int used = io_names;
        for (size_t c = 0; c < IO_NCOLS; c++)
            used += (cols[c].off = 0, cols[c].width + 1);
        if (used < width)
            width = used;
    }
    return layout_fit(cols, IO_NCOLS, width, 1, 18);
}

/* The headings, the last column's named `last` (the tables share widths). */
static void headings(text_lines *t, const layout *L, const char *first, const char *last) {
    char cells[IO_NCOLS][48];
    for (size_t c = 0; c < IO_NCOLS; c++)
        snprintf(cells[c], sizeof cells[c], "%s", c == IO_RATE ? last : exact_cols[c].heading);
    table_row(t, TH_COLUMNS, L, first, cells);
}

/* ---- exact I/O ------------------------------------------------------------------ */

static void collect_io(const run_phase *p, const run_phase **out, size_t *n, size_t cap) {
    for (size_t i = 0; i < p->nchildren; i++) {
        if ((p->children[i]->flags & SCOPE_PHASE_F_IO) && *n < cap)
            out[(*n)++] = p->children[i];
        collect_io(p->children[i], out, n, cap);
    }
}

static void exact_block(text_lines *t, const run_role *r) {
    const run_phase *io[64];
    size_t n = 0;
    collect_io(r->root, io, &n, 64);
    if (!n) {
        text_add(t, TH_DIM, 2, "  I/O BY PHASE: no phase was opened with SCOPE_PHASE_IO");
        return;
    }
    layout L = plan(t);
    headings(t, &L, "  I/O BY PHASE (exact)", exact_cols[IO_RATE].heading);
    for (size_t i = 0; i < n; i++) {
        const run_phase *p = io[i];
        char path[600], name[640], cells[IO_NCOLS][48];
        run_phase_path(p, path, sizeof path);
        snprintf(name, sizeof name, "  %s", path);
        if (!p->io_measured) {
            for (size_t c = 0; c < IO_NCOLS; c++)
                snprintf(cells[c], sizeof cells[c], FMT_NA);
        } else {
            fmt_bytes(cells[IO_READ], 48, (double)p->disk_read);
            fmt_bytes(cells[IO_CACHE], 48, (double)p->cache_read);
            fmt_bytes(cells[IO_WRITE], 48, (double)p->disk_write);
            fmt_bytes(cells[IO_CHAR_READ], 48, (double)p->char_read);
            fmt_bytes(cells[IO_CHAR_WRITE], 48, (double)p->char_write);
            char b[40];
            snprintf(cells[IO_RATE], 48, "%s%s", fmt_bytes(b, sizeof b, p->disk_bytes_per_s),
                     isnan(p->disk_bytes_per_s) ? "" : "/s");
        }
        table_row(t, TH_NORMAL, &L, name, cells);
        if (p->io_failed)
            text_add(t, TH_WARN, 4, "    %llu entr%s whose counters could not be read left out",
                     (unsigned long long)p->io_failed, p->io_failed == 1 ? "y" : "ies");
    }
}

/* ---- sampled I/O ------------------------------------------------------------------ */

/* A layer's total, rate and peak, and its sparkline over the run below. */
static void sampled_layer(text_lines *t, const run_model *m, const size_t *workers, size_t n,
                          const char *label, enum run_res_metric what, uint64_t total, double per_s,
                          double peak, int measured) {
    char a[40], b[40], c[40];
    if (!measured) {
        text_add(t, TH_NORMAL, 4, "  %-24s %10s", label, FMT_NA);
        return;
    }
    size_t cols = t->width > 16 ? (size_t)t->width - 8 : 8;
    if (cols > 400)
        cols = 400;
    double v[400];
    double max = run_res_fold(m, workers, n, what, NULL, cols, v);
    /* The larger of the folded peak and one process's busiest interval,
     * which is finer than a column. */
    if (isnan(peak) || (!isnan(max) && max > peak))
        peak = max;
    text_add(t, TH_NORMAL, 4, "  %-24s %10s   %s/s   peak %s/s", label,
             fmt_bytes(a, sizeof a, (double)total), fmt_bytes(b, sizeof b, per_s),
             fmt_bytes(c, sizeof c, peak));
    if (isnan(max) || !(max > 0))
        return;
    char spark[400 * 3 + 1];
    fmt_spark(spark, sizeof spark, v, cols, max, style_utf8);
    text_add(t, TH_BAR, 0, "    %s", spark);
}

typedef struct phase_bytes {
    const run_phase *p;
    uint64_t moved;
} phase_bytes;

static void collect_sampled(const run_phase *p, phase_bytes *out, size_t *n, size_t cap) {
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *k = p->children[i];
        if (k->smp_io && *n < cap)
            out[(*n)++] = (phase_bytes){k, k->smp_char_read + k->smp_char_write};
        collect_sampled(k, out, n, cap);
    }
}

static int by_moved(const void *x, const void *y) {
    const phase_bytes *a = x, *b = y;
    return (a->moved < b->moved) - (a->moved > b->moved);
}

/* The phases open when the bytes moved, most bytes first. */
/* A part of the bytes no phase explains (run_resources.h), with its share
 * of those the phases share out. */
static void no_phase_row(text_lines *t, const layout *L, const char *name, const run_res_io *io,
                         double share) {
    char cells[IO_NCOLS][48], b[40];
    fmt_bytes(cells[IO_READ], 48, (double)io->disk_read);
    fmt_bytes(cells[IO_CACHE], 48, (double)io->cache_read);
    fmt_bytes(cells[IO_WRITE], 48, (double)io->disk_write);
    fmt_bytes(cells[IO_CHAR_READ], 48, (double)io->char_read);
    fmt_bytes(cells[IO_CHAR_WRITE], 48, (double)io->char_write);
    snprintf(cells[IO_RATE], 48, "%s", fmt_percent(b, sizeof b, share, 1));
    table_row(t, TH_DIM, L, name, cells);
}

static void open_phases(text_lines *t, const run_role *r, const run_res *res) {
    enum { MAX_SHOWN = 8, CAP = 1024 };
    phase_bytes *ph = malloc(CAP * sizeof *ph);
    if (!ph)
        return;
    size_t n = 0;
    collect_sampled(r->root, ph, &n, CAP);
    if (n)
        qsort(ph, n, sizeof *ph, by_moved);
    layout L = plan(t);
    headings(t, &L, "  PHASES OPEN (sampled)", "of all");
    for (size_t i = 0; i < n && i < MAX_SHOWN; i++) {
        run_res_io io;
        run_phase_sampled_io(ph[i].p, &io);
        char path[600], name[640], cells[IO_NCOLS][48];
        run_phase_path(ph[i].p, path, sizeof path);
        snprintf(name, sizeof name, "  %s", path);
        fmt_bytes(cells[IO_READ], 48, (double)io.disk_read);
        fmt_bytes(cells[IO_CACHE], 48, (double)io.cache_read);
        fmt_bytes(cells[IO_WRITE], 48, (double)io.disk_write);
        fmt_bytes(cells[IO_CHAR_READ], 48, (double)io.char_read);
        fmt_bytes(cells[IO_CHAR_WRITE], 48, (double)io.char_write);
        fmt_percent(cells[IO_RATE], 48,
                    res->shared ? (double)ph[i].moved / (double)res->shared : NAN, 1);
        table_row(t, TH_NORMAL, &L, name, cells);
    }
    if (n > MAX_SHOWN)
        text_add(t, TH_DIM, 4, "  ... and %zu more (scope-tui report --json: sampled_io)",
                 n - MAX_SHOWN);
    no_phase_row(t, &L, "  (outside every phase)", &res->outside_phases, res->outside_phases_share);
    if (res->unplaced.char_read + res->unplaced.char_write) /* most runs have none */
        no_phase_row(t, &L, "  (not attributable)", &res->unplaced, res->unplaced_share);
    free(ph);
}

static void sampled_block(text_lines *t, const run_model *m, const run_role *r,
                          const run_res *res) {
    char a[32], b[32];
    if (m->no_samples) {
        text_add(t, TH_DIM, 2, "  SAMPLED: not loaded (--no-samples)");
        return;
    }
    if (!res || !res->nsampled) {
        text_add(t, TH_DIM, 2,
                 "  SAMPLED: no resource samples (the recorder's sampler was off: "
                 "SCOPE_SAMPLE_INTERVAL=0, or a recorder without one)");
        return;
    }
    text_add(t, TH_COLUMNS, 2, "  SAMPLED  (%s intervals, %s dropped; one-interval resolution)",
             fmt_ucount(a, sizeof a, res->intervals), fmt_ucount(b, sizeof b, res->dropped));
    if (res->series_intervals)
        text_add(t, TH_DIM, 2,
                 "  (%s of them known from snapshot series only: totals exact, sparklines and "
                 "peaks there approximate, %s)",
                 fmt_ucount(a, sizeof a, res->series_intervals),
                 res->series_no_node_io ? "their bytes in no phase" : "bytes per phase exact");
    uint32_t pr = res->present;
    sampled_layer(t, m, r->workers, r->nprocs, "Read (from disk)", RUN_RES_DISK_READ,
                  res->io.disk_read, res->disk_read_per_s, res->disk_read_peak,
                  pr & SCOPE_RES_DISK_READ);
    sampled_layer(t, m, r->workers, r->nprocs, "Read (from page cache)", RUN_RES_CACHE_READ,
                  res->io.cache_read, res->cache_read_per_s, res->cache_read_peak,
                  (pr & SCOPE_RES_DISK_READ) && (pr & SCOPE_RES_CHAR_READ));
    sampled_layer(t, m, r->workers, r->nprocs, "Write (to disk)", RUN_RES_DISK_WRITE,
                  res->io.disk_write, res->disk_write_per_s, res->disk_write_peak,
                  pr & SCOPE_RES_DISK_WRITE);
    open_phases(t, r, res);
}

/* The widest "  PATH" of a phase under p (names as the tables cut them). */
static int widest_path(const run_phase *p, int widest) {
    for (size_t i = 0; i < p->nchildren; i++) {
        char path[600];
        int w = 2 + (int)fmt_width(run_phase_path(p->children[i], path, sizeof path));
        if (w > widest)
            widest = w;
        widest = widest_path(p->children[i], widest);
    }
    return widest;
}

static void fill_io(view *v, text_lines *t) {
    app *a = v->app;
    run_model *m = a->model;
    /* At least the tables' own headings, and a name column's gap after. */
    io_names = (int)strlen("  PHASES OPEN (sampled)");
    for (size_t i = 0; i < m->nroles; i++)
        io_names = widest_path(m->roles[i].root, io_names);
    io_names += 2;
    if (a->focus_worker != SIZE_MAX) {
        const run_role *r = run_worker_role(m, a->focus_worker);
        char who[600];
        app_worker_label(a, a->focus_worker, who, sizeof who);
        text_add(t, TH_ROLE, 2, "%s", who);
        if (!r) {
            text_add(t, TH_ERROR, 2, "  out of memory");
            return;
        }
        exact_block(t, r);
        sampled_block(t, m, r, run_worker_res(m, a->focus_worker));
        return;
    }
    for (size_t i = 0; i < m->nroles; i++) {
        const run_role *r = &m->roles[i];
        char title[256];
        fmt_title(title, sizeof title, r->name);
        if (i)
            text_add(t, TH_NORMAL, 0, "%s", "");
        text_add(t, TH_ROLE, 2, "%s  (%zu process%s)", title, r->nprocs,
                 r->nprocs == 1 ? "" : "es");
        exact_block(t, r);
        sampled_block(t, m, r, run_role_res(m, r));
    }
    if (!m->nroles)
        text_add(t, TH_DIM, 0, "no role in this run");
}

static int io_init(view *v) {
    return text_view_init(v, fill_io);
}

const view_ops io_view_ops = TEXT_VIEW_OPS(io_init, .narrowed = 1);
