/* The comparison as an HTML page; see html_compare.h. */
#include "html_compare.h"

#include "fmt.h"
#include "html_out.h"
#include "run_noise.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static const char *side_words(enum run_cmp_side s) {
    return s == RUN_CMP_ONLY_A ? "only in A" : s == RUN_CMP_ONLY_B ? "only in B" : "both";
}

/* A change's cell: its exact fraction in data-v, "+12.5%" as text. */
static void put_change(FILE *f, const char *key, const run_cmp_fig *fig) {
    char t[32], k[96];
    snprintf(k, sizeof k, "%s.change", key);
    html_num_cell(f, k, fig->change,
                  isnan(fig->change) ? "" : fmt_change(t, sizeof t, fig->change));
}

/* One side's figure as text, by its unit. */
static void put_side(FILE *f, enum phase_fig fig, const char *key, const char *side, double v) {
    char t[48], k[96];
    snprintf(k, sizeof k, "%s.%s", key, side);
    html_num_cell(
        f, k, v,
        isnan(v) ? "" : phase_fig_text(fig, (pf_value){(uint64_t)(v > 0 ? v : 0), v}, t, sizeof t));
}

/* The mean's verdict, as compare's text marks it: a change whose interval
 * leaves 0 out is beyond the noise. */
static void put_verdict(FILE *f, const run_cmp_phase *p) {
    const run_cmp_fig *m = &p->fig[PF_MEAN];
    char lo[32], hi[32];
    if (p->side != RUN_CMP_BOTH) {
        fprintf(f, "<td>%s</td><td></td>", side_words(p->side));
        return;
    }
    if (isnan(m->lo) || isnan(m->hi)) {
        fputs("<td class=\"dim\">noise unknown</td><td data-k=\"mean_ns.significant\" "
              "data-v=\"false\"></td>",
              f);
        return;
    }
    int sig = run_cmp_fig_beyond_noise(m); /* compare --json's "significant" */
    fprintf(f, "<td class=\"n\">%s..%s</td>", fmt_change(lo, sizeof lo, m->lo),
            fmt_change(hi, sizeof hi, m->hi));
    fprintf(f, "<td data-k=\"mean_ns.significant\" data-v=\"%s\"%s>%s</td>", sig ? "true" : "false",
            sig ? (sig > 0 ? " class=\"up\"" : " class=\"down\"") : "",
            !sig      ? "within noise"
            : sig > 0 ? "&#9650; slower"
                      : "&#9660; faster");
}

static void put_phase(FILE *f, const run_cmp_phase *p, const enum phase_fig *ids, size_t n) {
    fprintf(f, "<tr data-depth=\"%u\" data-side=\"%s\"><td class=\"name\">", p->depth,
            run_cmp_side_name(p->side));
    html_shown(f, p->path, strlen(p->path));
    fputs("</td>", f);
    put_verdict(f, p);
    for (size_t i = 0; i < n; i++) {
        const phase_figure *pf = &phase_figures[ids[i]];
        const run_cmp_fig *fig = &p->fig[ids[i]];
        put_side(f, ids[i], pf->json, "a", fig->a);
        put_side(f, ids[i], pf->json, "b", fig->b);
        if (!(pf->flags & PF_CMP_SIDES))
            put_change(f, pf->json, fig);
    }
    fputs("</tr>\n", f);
}

static void put_heads(FILE *f, const enum phase_fig *ids, size_t n) {
    fputs("<thead><tr><th>phase</th><th>mean: interval of change</th><th>verdict</th>", f);
    for (size_t i = 0; i < n; i++) {
        const phase_figure *pf = &phase_figures[ids[i]];
        fputs("<th>", f);
        html_str(f, pf->name);
        fputs(" A</th><th>", f);
        html_str(f, pf->name);
        fputs(" B</th>", f);
        if (!(pf->flags & PF_CMP_SIDES)) {
            fputs("<th>", f);
            html_str(f, pf->name);
            fputs(" change</th>", f);
        }
    }
    fputs("</tr></thead>", f);
}

static void put_bytes_row(FILE *f, const char *label, const run_cmp_fig *fig) {
    char a[32], b[32], c[32];
    fprintf(f,
            "<tr><th>%s</th><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s"
            "</td></tr>",
            label, isnan(fig->a) ? FMT_NA : fmt_bytes(a, sizeof a, fig->a),
            isnan(fig->b) ? FMT_NA : fmt_bytes(b, sizeof b, fig->b),
            isnan(fig->change) ? "-" : fmt_change(c, sizeof c, fig->change));
}

static void put_resources(FILE *f, const run_cmp_role *r, size_t ri) {
    fprintf(f, "<section id=\"cmp-io-%zu\"><h3>I/O and GPU</h3>", ri);
    if (!r->res) {
        fputs("<p>Neither run sampled resources.</p></section>\n", f);
        return;
    }
    fputs("<table><thead><tr><th></th><th>A</th><th>B</th><th>change</th></tr></thead><tbody>", f);
    put_bytes_row(f, "disk read", &r->disk_read);
    put_bytes_row(f, "page cache read", &r->cache_read);
    put_bytes_row(f, "disk write", &r->disk_write);
    char a[32], b[32], c[64];
    for (size_t i = 0; i < r->ngpus; i++) {
        const run_cmp_gpu *g = &r->gpus[i];
        fprintf(f, "<tr><th>GPU %" PRIu32 " on ", g->index);
        html_name(f, g->host);
        fprintf(f, ", busy / this role's share</th><td class=\"n\">%s / ",
                fmt_percent(a, sizeof a, g->busy.a, 1));
        fprintf(f, "%s</td>", fmt_percent(a, sizeof a, g->this_run.a, 1));
        fprintf(f, "<td class=\"n\">%s / ", fmt_percent(b, sizeof b, g->busy.b, 1));
        fprintf(f, "%s</td><td></td></tr>", fmt_percent(c, sizeof c, g->this_run.b, 1));
    }
    fputs("</tbody></table></section>\n", f);
}

static void put_lines(FILE *f, const run_cmp_role *r, size_t ri) {
    const run_cmp_role_lines *ls = r->lines;
    fprintf(f, "<section id=\"cmp-lines-%zu\"><h3>Hot lines</h3>", ri);
    if (!ls || (!ls->sampled_a && !ls->sampled_b)) {
        fputs("<p>Neither run sampled lines.</p></section>\n", f);
        return;
    }
    fputs("<table class=\"sortable\"><thead><tr><th>function</th><th>file:line A &rarr; B</th>"
          "<th>share A</th><th>share B</th><th>change</th><th>beyond noise</th></tr></thead>"
          "<tbody>\n",
          f);
    char a[32], b[32], d[32];
    for (size_t i = 0; i < ls->n; i++) {
        const run_cmp_line *x = &ls->v[i];
        fputs("<tr><td class=\"name\">", f);
        html_name(f, x->function);
        fputs("</td><td class=\"name\">", f);
        html_name(f, x->file);
        fprintf(f, ":%" PRIu32 " &rarr; %" PRIu32 "</td>", x->line_a, x->line_b);
        html_num_cell(f, NULL, x->share.a, fmt_percent(a, sizeof a, x->share.a, 1));
        html_num_cell(f, NULL, x->share.b, fmt_percent(b, sizeof b, x->share.b, 1));
        snprintf(d, sizeof d, "%+.1f pt", 100 * x->share.delta);
        html_num_cell(f, NULL, x->share.delta, isnan(x->share.delta) ? "-" : d);
        fprintf(f, "<td>%s</td></tr>\n", x->significant ? "yes" : "no");
    }
    fputs("</tbody></table>", f);
    if (ls->more)
        fprintf(f, "<p class=\"truncated dim\">%zu more lines left out.</p>", ls->more);
    fputs("</section>\n", f);
}

static void put_role(FILE *f, const run_cmp *c, size_t ri) {
    const run_cmp_role *r = &c->roles[ri];
    char a[32], b[32];
    fprintf(f, "<section class=\"role\" id=\"role-%zu\"><h2>Role <code>", ri);
    html_name(f, r->name);
    fprintf(f, "</code> <small>(%s)</small></h2>\n", side_words(r->side));
    fprintf(f, "<p>phase time %s &rarr; %s",
            isnan(r->phase_ns.a) ? "-" : fmt_duration(a, sizeof a, r->phase_ns.a),
            isnan(r->phase_ns.b) ? "-" : fmt_duration(b, sizeof b, r->phase_ns.b));
    if (!isnan(r->phase_ns.change))
        fprintf(f, " (%s)", fmt_change(a, sizeof a, r->phase_ns.change));
    fputs("</p>\n", f);
    enum phase_fig ids[PF_N];
    size_t n = phase_figures_in(PF_OUT_COMPARE_JSON, ids);
    fprintf(f,
            "<section id=\"cmp-phases-%zu\"><h3>Phases, biggest change in time first</h3>"
            "<div class=\"wide\"><table class=\"sortable\">",
            ri);
    put_heads(f, ids, n);
    fputs("<tbody>\n", f);
    for (size_t i = 0; i < r->nphases && i < HTML_CMP_MAX_PHASES; i++)
        put_phase(f, &r->phases[i], ids, n);
    fputs("</tbody></table></div>", f);
    if (r->nphases > HTML_CMP_MAX_PHASES)
        fprintf(f,
                "<p class=\"truncated\">The %d phases of most impact of %zu; compare --json "
                "holds every one.</p>",
                HTML_CMP_MAX_PHASES, r->nphases);
    fputs("</section>\n", f);
    put_resources(f, r, ri);
    put_lines(f, r, ri);
    fputs("</section>\n", f);
}

static void put_run(FILE *f, const char *label, const run_model *m) {
    char t[32];
    fprintf(f, "<li>%s: <code>", label);
    html_str(f, m->dir);
    fprintf(f, "</code>, runtime %s, %zu process%s",
            fmt_duration(t, sizeof t, (double)m->runtime_ns), m->nprocs,
            m->nprocs == 1 ? "" : "es");
    if (m->ncaveats)
        fprintf(f, ", <strong>%zu caveat%s</strong> (scope-tui report says which)", m->ncaveats,
                m->ncaveats == 1 ? "" : "s");
    fputs("</li>\n", f);
}

void html_compare_print(FILE *f, const run_cmp *c) {
    char title[600], a[256], b[256];
    snprintf(a, sizeof a, "%s", c->a->dir);
    snprintf(b, sizeof b, "%s", c->b->dir);
    snprintf(title, sizeof title, "scope compare: %s vs %s", a, b);
    html_page_begin(f, title);
    fputs("<header><h1>scope compare</h1><ul id=\"runs\">", f);
    put_run(f, "A, the base", c->a);
    put_run(f, "B, the candidate", c->b);
    fprintf(f,
            "</ul><p id=\"caveats\" class=\"caveats\">Intervals at %g%% confidence from the "
            "noise within %s; a mean whose interval leaves out 0 is marked slower or faster, "
            "others are within noise. Caveats of either run make their figures less certain: "
            "see each run's report.</p>\n<nav class=\"noprint\">",
            100 * c->confidence, c->nbase > 1 ? "the base runs" : "each run");
    for (size_t i = 0; i < c->nroles; i++) {
        fprintf(f, "<a href=\"#role-%zu\">", i);
        html_name(f, c->roles[i].name);
        fputs("</a>", f);
    }
    fputs("</nav></header>\n", f);
    for (size_t i = 0; i < c->nroles; i++)
        put_role(f, c, i);
    fputs("<footer class=\"dim\"><p>Written by scope-tui compare --html: the figures of "
          "scope-tui compare --json.</p></footer>\n",
          f);
    html_page_end(f);
}
