/* The run as an HTML page; see html_report.h.  The sections' order is the
 * text report's: the run, its caveats, then each role. */
#include "html_report.h"

#include "fmt.h"
#include "html_out.h"
#include "html_parts.h"
#include "phase_figures.h"
#include "run_lines.h"
#include "run_partial.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* The preorder walk the phase table and its anchors share. */
static size_t preorder_find(const run_phase *at, const run_phase *p, size_t *n) {
    if (at == p)
        return *n;
    for (size_t i = 0; i < at->nchildren; i++) {
        ++*n;
        size_t k = preorder_find(at->children[i], p, n);
        if (k != SIZE_MAX)
            return k;
    }
    return SIZE_MAX;
}

size_t html_phase_index(const run_role *r, const run_phase *p) {
    size_t n = 0;
    return preorder_find(r->root, p, &n);
}

void html_phase_path(FILE *f, const run_phase *p) {
    char path[4096];
    run_phase_path(p, path, sizeof path);
    html_shown(f, path, strlen(path));
}

int html_phase_has_row(size_t pre) {
    return pre >= 1 && pre <= HTML_MAX_PHASES;
}

void html_phase_link(FILE *f, const run_role *r, size_t ri, const run_phase *p, size_t pre) {
    if (pre == SIZE_MAX)
        pre = html_phase_index(r, p);
    if (html_phase_has_row(pre))
        fprintf(f, "<a href=\"#ph-%zu-%zu\">", ri, pre);
    else
        fprintf(f,
                "<span title=\"past the first %d phases the table shows: report --json holds "
                "it\">",
                HTML_MAX_PHASES);
    html_phase_path(f, p);
    fputs(html_phase_has_row(pre) ? "</a>" : "</span>", f);
}

static void put_header(FILE *f, const run_model *m) {
    char a[64], b[64];
    fputs("<header><h1>scope report: <code>", f);
    html_str(f, m->dir);
    fputs("</code></h1>\n<p id=\"run\">", f);
    fprintf(f, "<span data-k=\"runtime_ns\" data-v=\"%" PRIu64 "\">runtime %s</span>, ",
            m->runtime_ns, fmt_duration(a, sizeof a, (double)m->runtime_ns));
    fprintf(f, "<span data-k=\"processes\" data-v=\"%zu\">%s process%s</span> on %zu host%s",
            m->nprocs, fmt_ucount(b, sizeof b, m->nprocs), m->nprocs == 1 ? "" : "es", m->nhosts,
            m->nhosts == 1 ? "" : "s");
    if (m->nhosts) {
        fputs(" (", f);
        for (size_t i = 0; i < m->nhosts && i < 8; i++) {
            fputs(i ? ", " : "", f);
            html_name(f, m->hosts[i]);
        }
        fputs(m->nhosts > 8 ? ", ...)" : ")", f);
    }
    if (m->start_wall_ns)
        fprintf(f, ", from %s to %s", fmt_wall(a, sizeof a, m->start_wall_ns),
                fmt_wall(b, sizeof b, m->end_wall_ns));
    if (m->source.len) {
        fputs(". Read from ", f);
        html_name(f, m->source);
    }
    if (m->nrunning)
        fprintf(f, ". <strong>In progress: %zu process%s still running</strong>", m->nrunning,
                m->nrunning == 1 ? "" : "es");
    fputs(".</p>\n<nav class=\"noprint\"><a href=\"#caveats\">caveats</a>", f);
    for (size_t i = 0; i < m->nroles; i++) {
        fprintf(f, "<a href=\"#role-%zu\">", i);
        html_name(f, m->roles[i].name);
        fputs("</a>", f);
    }
    fputs("</nav></header>\n", f);
}

#define MAX_CAVEATS 200

static void put_caveats(FILE *f, const run_model *m) {
    fprintf(f, "<section id=\"caveats\" class=\"caveats\" data-n=\"%zu\"><h2>Caveats</h2>\n",
            m->ncaveats);
    if (!m->ncaveats)
        fputs("<p>None: every log was read whole and nothing was lost.</p>", f);
    else /* reading the line samples adds the "lines" ones, which report --json has not */
        fputs("<p class=\"dim\">As the text report says them; those of kind <em>lines</em> "
              "come from reading the line samples, as in scope-tui lines.</p><ul>",
              f);
    for (size_t i = 0; i < m->ncaveats && i < MAX_CAVEATS; i++) {
        fputs("<li data-kind=\"", f);
        html_str(f, run_caveat_kind_name(m->caveats[i].kind));
        fputs("\"><strong>", f);
        html_str(f, run_caveat_kind_name(m->caveats[i].kind));
        fputs("</strong>: ", f);
        html_shown(f, m->caveats[i].text, strlen(m->caveats[i].text));
        fputs("</li>\n", f);
    }
    if (m->ncaveats > MAX_CAVEATS)
        fprintf(f, "<li>and %zu more (scope-tui report --json lists every one)</li>",
                m->ncaveats - MAX_CAVEATS);
    if (m->ncaveats)
        fputs("</ul>", f);
    fputs("</section>\n", f);
}

/* The heading cells of the figures ids[0..n). */
static void put_fig_heads(FILE *f, const enum phase_fig *ids, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const phase_figure *pf = &phase_figures[ids[i]];
        fputs("<th title=\"", f);
        html_str(f, pf->json);
        fputs("\">", f);
        html_str(f, pf->column.heading ? pf->column.heading : pf->name);
        fputs("</th>", f);
    }
}

/* A phase's name cell: its path, linked to its row in the phase table. */
static void put_phase_link(FILE *f, const run_role *r, size_t ri, const run_phase *p) {
    fputs("<td class=\"name\">", f);
    html_phase_link(f, r, ri, p, SIZE_MAX);
    fputs("</td>", f);
}

static void put_dominant(FILE *f, const run_role *r, size_t ri) {
    enum phase_fig ids[PF_N];
    size_t n = 0;
    ids[n++] = PF_SHARE;
    for (int k = 0; k < PF_N; k++)
        if (phase_figures[k].flags & PF_DOMINANT)
            ids[n++] = (enum phase_fig)k;
    fprintf(f, "<section id=\"dominant-%zu\"><h3>Dominant phases</h3>\n", ri);
    if (!r->ndominant) {
        fputs("<p>No phase recorded time.</p></section>\n", f);
        return;
    }
    fputs("<p class=\"dim\">The phases with the most self time, most first; a phase's "
          "<a href=\"#lines-",
          f);
    fprintf(f, "%zu\">hot lines</a> follow below.</p>\n", ri);
    fputs("<table class=\"sortable\"><thead><tr><th>phase</th>", f);
    put_fig_heads(f, ids, n);
    fputs("<th>lines</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < r->ndominant; i++) {
        const run_phase *p = r->dominant[i];
        fprintf(f, "<tr data-pre=\"%zu\">", html_phase_index(r, p));
        put_phase_link(f, r, ri, p);
        for (size_t k = 0; k < n; k++)
            html_fig_cell(f, ids[k], phase_fig_get(p, ids[k]), phase_figures[ids[k]].json);
        fprintf(f, "<td><a href=\"#lines-%zu-%zu\">lines</a></td></tr>\n", ri, i);
    }
    fputs("</tbody></table></section>\n", f);
}

static void put_iterations(FILE *f, const run_model *m, const run_role *r, size_t ri) {
    enum phase_fig ids[PF_N], dist[PF_N];
    size_t n = phase_figures_in(PF_OUT_JSON, ids), nd = 0;
    for (size_t i = 0; i < n; i++)
        if (phase_figures[ids[i]].in_dist)
            dist[nd++] = ids[i];
    fprintf(f, "<section id=\"iterations-%zu\"><h3>Iterations</h3>\n", ri);
    if (!r->has_iterations) {
        fputs("<p>No phase is named <code>", f);
        html_str(f, m->iteration_name);
        fputs("</code> (report --iteration NAME names another).</p></section>\n", f);
        return;
    }
    fputs("<p class=\"dim\">The entries of the outermost phases named <code>", f);
    html_str(f, m->iteration_name);
    fputs("</code>, merged over the role's processes.</p>\n<table><thead><tr>", f);
    put_fig_heads(f, dist, nd);
    fputs("</tr></thead><tbody><tr>", f);
    for (size_t k = 0; k < nd; k++)
        html_fig_cell(f, dist[k], phase_fig_dist_get(&r->iterations, dist[k]),
                      phase_figures[dist[k]].json);
    fputs("</tr></tbody></table></section>\n", f);
}

typedef struct table_walk {
    FILE *f;
    const run_role *r;
    size_t ri, n, shown;
    enum phase_fig ids[PF_N];
    size_t nids;
} table_walk;

static void put_phase_rows(table_walk *t, const run_phase *p) {
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *c = p->children[i];
        size_t pre = ++t->n;
        if (t->shown < HTML_MAX_PHASES) {
            t->shown++;
            fprintf(t->f, "<tr id=\"ph-%zu-%zu\" data-pre=\"%zu\" data-depth=\"%u\">", t->ri, pre,
                    pre, c->depth);
            fprintf(t->f, "<td class=\"name\" style=\"padding-left:%upx\">",
                    8 + 12 * (c->depth - 1));
            html_name(t->f, c->name);
            fputs("</td>", t->f);
            char note[256];
            double lo, hi;
            run_phase_partial_note(c, note, sizeof note);
            int wait_rough = run_phase_wait_few(c) || run_phase_wait_range(c, &lo, &hi);
            for (size_t k = 0; k < t->nids; k++) {
                enum phase_fig id = t->ids[k];
                int rough =
                    id == PF_WAIT || id == PF_QUEUED
                        ? wait_rough
                        : phase_figures[id].merge == PF_MERGE_HIST && run_phase_hist_partial(c);
                html_fig_cell_note(t->f, id, phase_fig_get(c, id), phase_figures[id].json,
                                   rough ? note : NULL);
            }
            fputs("<td class=\"dim\">", t->f);
            html_shown(t->f, note, strlen(note));
            fputs("</td></tr>\n", t->f);
        }
        put_phase_rows(t, c);
    }
}

static void put_phase_table(FILE *f, const run_role *r, size_t ri) {
    table_walk t = {.f = f, .r = r, .ri = ri};
    t.nids = phase_figures_in(PF_OUT_JSON, t.ids);
    fprintf(f, "<section id=\"phases-%zu\"><h3>Phases</h3>\n", ri);
    fputs("<p class=\"dim\">Every figure of report --json, in its order; hover a cell for its "
          "exact value, click a heading to sort. A figure marked ~ rests on part of the "
          "phase's entries, as its last column says.</p>\n"
          "<div class=\"wide\"><table class=\"sortable phases\"><thead><tr><th>phase</th>",
          f);
    put_fig_heads(f, t.ids, t.nids);
    fputs("<th>from part of the entries</th></tr></thead><tbody>\n", f);
    put_phase_rows(&t, r->root);
    fputs("</tbody></table></div>\n", f);
    if (t.n > t.shown)
        fprintf(f,
                "<p class=\"truncated\">The first %zu of %zu phases, in tree order; report "
                "--json holds every one.</p>\n",
                t.shown, t.n);
    fputs("</section>\n", f);
}

typedef struct counter_walk {
    FILE *f;
    const run_role *r;
    size_t ri, n, shown;
} counter_walk;

static void put_counter_rows(counter_walk *w, const run_phase *p) {
    char t[48];
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *c = p->children[i];
        size_t pre = ++w->n;
        for (size_t k = 0; k < c->ncounters && w->shown < HTML_MAX_PHASES; k++, w->shown++) {
            const run_counter *ct = &c->counters[k];
            fprintf(w->f, "<tr data-pre=\"%zu\" data-cn=\"%zu\"><td class=\"name\">", pre, k);
            html_phase_link(w->f, w->r, w->ri, c, pre);
            fputs("</td><td class=\"name\">", w->f);
            html_name(w->f, ct->name);
            fputs("</td>", w->f);
            html_u64_cell(w->f, "calls", ct->calls, 1, NULL, fmt_ucount(t, sizeof t, ct->calls));
            html_i64_cell(w->f, "total", ct->total, fmt_count(t, sizeof t, ct->total));
            html_num_cell(w->f, "rate_per_s", ct->rate_per_s,
                          isnan(ct->rate_per_s) ? FMT_NA : fmt_rate(t, sizeof t, ct->rate_per_s));
            fputs("</tr>\n", w->f);
        }
        put_counter_rows(w, c);
    }
}

/* The counters counted under each phase: calls, total and rate per second
 * of the phase's time, as report --json's. */
static void put_counters(FILE *f, const run_role *r, size_t ri) {
    fprintf(f, "<section id=\"counters-%zu\"><h3>Counters</h3>\n", ri);
    fputs("<table class=\"sortable\"><thead><tr><th>phase</th><th>counter</th><th>calls</th>"
          "<th>total</th><th>per second</th></tr></thead><tbody>\n",
          f);
    counter_walk w = {.f = f, .r = r, .ri = ri};
    put_counter_rows(&w, r->root);
    fputs("</tbody></table>", f);
    if (!w.shown)
        fputs("<p>No counter was counted under a phase.</p>", f);
    if (w.shown >= HTML_MAX_PHASES)
        fprintf(f,
                "<p class=\"truncated\">The first %d counters; report --json holds every "
                "one.</p>",
                HTML_MAX_PHASES);
    fputs("</section>\n", f);
}

static void put_role(FILE *f, run_model *m, size_t ri, int has_lines, char *msg, size_t msglen,
                     int *rc) {
    const run_role *r = &m->roles[ri];
    char a[32], b[32];
    fprintf(f, "<section class=\"role\" id=\"role-%zu\"><h2>Role <code>", ri);
    html_name(f, r->name);
    fprintf(f, "</code></h2>\n<p><span data-k=\"nprocs\" data-v=\"%zu\">%zu process%s</span>, ",
            r->nprocs, r->nprocs, r->nprocs == 1 ? "" : "es");
    fprintf(f, "<span data-k=\"phase_ns\" data-v=\"%" PRIu64 "\">%s of phase time</span>",
            r->phase_ns, fmt_duration(a, sizeof a, (double)r->phase_ns));
    if (!isnan(r->imbalance))
        fprintf(f, ", imbalance %s (the busiest process over the mean)",
                fmt_ratio(b, sizeof b, r->imbalance));
    fputs(".</p>\n", f);
    html_icicle(f, r, ri);
    put_dominant(f, r, ri);
    put_iterations(f, m, r, ri);
    put_phase_table(f, r, ri);
    put_counters(f, r, ri);
    html_spread(f, m, r, ri);
    if (*rc == 0 && html_lines(f, m, r, ri, has_lines, msg, msglen) < 0)
        *rc = -1;
    html_resources(f, m, r, ri);
    fputs("</section>\n", f);
}

int html_report_print(FILE *f, run_model *m, char *msg, size_t msglen) {
    run_lines_info info = {0};
    int has_lines = 0;
    if (run_lines_load(m, NULL, &info, msg, msglen) < 0)
        return -1;
    has_lines = info.has_lines;
    char title[300], dir[256];
    snprintf(dir, sizeof dir, "%s", m->dir);
    snprintf(title, sizeof title, "scope report: %s", dir);
    html_page_begin(f, title);
    put_header(f, m);
    put_caveats(f, m);
    int rc = 0;
    if (!m->nroles)
        fputs("<p>No role of this run recorded anything.</p>\n", f);
    for (size_t i = 0; i < m->nroles; i++)
        put_role(f, m, i, has_lines, msg, msglen, &rc);
    fputs("<footer class=\"dim\"><p>Written by scope-tui report --html. Every figure is the "
          "run model's, the same as scope-tui report --json.</p></footer>\n",
          f);
    html_page_end(f);
    return rc;
}
