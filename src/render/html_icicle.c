/* The phase tree as an icicle and each phase's spread across processes, as
 * inline SVG; see html_parts.h. */
#include "fmt.h"
#include "html_out.h"
#include "html_parts.h"
#include "html_report.h"
#include "phase_figures.h"
#include "run_spread.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ICE_W   1000.0
#define ICE_ROW 24
#define ICE_MIN 1.0 /* narrower than a pixel: counted, not drawn */

typedef struct icicle {
    FILE *f;
    const run_role *r;
    size_t ri, pre, hidden;
    unsigned depth;
} icicle;

/* wait% as one of five shades; one more for "not measured" (w0, lightest,
 * and said in the tooltip). */
static int wait_shade(double wait) {
    if (isnan(wait))
        return 0;
    int s = (int)(wait * 5);
    return s > 4 ? 4 : s < 0 ? 0 : s;
}

static void put_tooltip(FILE *f, const run_phase *p) {
    char t[64];
    fputs("<title>", f);
    html_phase_path(f, p);
    static const enum phase_fig shown[] = {PF_SHARE, PF_TOTAL,  PF_SELF,
                                           PF_WAIT,  PF_QUEUED, PF_COUNT};
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        pf_value v = phase_fig_get(p, shown[i]);
        fputs(i ? ", " : ": ", f);
        html_str(f, phase_figures[shown[i]].name);
        fputc(' ', f);
        html_str(f, phase_figures[shown[i]].type == PF_F64 && isnan(v.d)
                        ? FMT_NA
                        : phase_fig_text(shown[i], v, t, sizeof t));
    }
    fputs("</title>", f);
}

/* The phases under p. */
static size_t subtree_size(const run_phase *p) {
    size_t n = 0;
    for (size_t i = 0; i < p->nchildren; i++)
        n += 1 + subtree_size(p->children[i]);
    return n;
}

/* The children of p, from x, within p's span, which ends at end. */
static void put_node(icicle *ic, const run_phase *p, double x, double end) {
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *c = p->children[i];
        size_t pre = ++ic->pre;
        double w = ic->r->phase_ns ? ICE_W * (double)c->dist.total_ns / (double)ic->r->phase_ns : 0;
        if (w > end - x)
            w = end > x ? end - x : 0; /* open entries can stretch children past their parent */
        if (w < ICE_MIN || c->depth > HTML_ICICLE_DEPTH) {
            ic->hidden += 1 + subtree_size(c);
            ic->pre += subtree_size(c); /* its descendants keep their numbers */
            x += w;
            continue;
        }
        double y = (c->depth - 1) * ICE_ROW;
        /* A phase past the table's rows is drawn, not linked. */
        int linked = html_phase_has_row(pre);
        if (linked)
            fprintf(ic->f, "<a href=\"#ph-%zu-%zu\">", ic->ri, pre);
        fputs("<g>", ic->f);
        put_tooltip(ic->f, c);
        fprintf(ic->f, "<rect class=\"w%d\" x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\"/>",
                wait_shade(c->wait), x, y, w, ICE_ROW - 1);
        if (!isnan(c->queued) && c->queued > 0)
            fprintf(ic->f, "<rect class=\"q\" x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\"/>",
                    x, y + ICE_ROW - 7, w * c->queued, 6);
        if (w > 40) {
            char share[16];
            fprintf(ic->f,
                    "<svg x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\"><text%s x=\"3\" "
                    "y=\"15\">",
                    x, y, w - 2, ICE_ROW, wait_shade(c->wait) >= 3 ? " class=\"lt\"" : "");
            html_name(ic->f, c->name);
            fprintf(ic->f, " %s</text></svg>", fmt_percent(share, sizeof share, c->share, 1));
        }
        fputs(linked ? "</g></a>" : "</g>", ic->f);
        put_node(ic, c, x, x + w);
        x += w;
    }
}

static unsigned tree_depth(const run_phase *p) {
    unsigned d = p->depth;
    for (size_t i = 0; i < p->nchildren; i++) {
        unsigned c = tree_depth(p->children[i]);
        d = c > d ? c : d;
    }
    return d;
}

void html_icicle(FILE *f, const run_role *r, size_t ri) {
    fprintf(f, "<section id=\"icicle-%zu\"><h3>Phase tree</h3>\n", ri);
    unsigned depth = tree_depth(r->root);
    if (!r->root->nchildren || !r->phase_ns) {
        fputs("<p>No phase recorded time.</p></section>\n", f);
        return;
    }
    if (depth > HTML_ICICLE_DEPTH)
        depth = HTML_ICICLE_DEPTH;
    icicle ic = {.f = f, .r = r, .ri = ri};
    fprintf(f,
            "<figure><svg class=\"ice\" role=\"img\" viewBox=\"0 0 %.0f %u\" width=\"100%%\" "
            "preserveAspectRatio=\"none\"><title>The phase tree: each phase as wide as its share "
            "of the role's phase time</title>",
            ICE_W, depth * ICE_ROW);
    put_node(&ic, r->root, 0, ICE_W);
    fputs("</svg><figcaption>Width: share of the role's phase time (children under their "
          "parent). Shade: wait% (time off CPU), lightest 0-20%, darkest 80-100%; lightest "
          "also where not measured. Hatched strip: the queued part (runnable, waiting for a "
          "CPU), as wide as its share of the phase's time. Click a phase for its row; hover "
          "for its figures.",
          f);
    if (ic.hidden)
        fprintf(f,
                " %zu phase%s narrower than a pixel or deeper than %d levels %s not drawn "
                "(the phase table has them).",
                ic.hidden, ic.hidden == 1 ? "" : "s", HTML_ICICLE_DEPTH,
                ic.hidden == 1 ? "is" : "are");
    fputs("</figcaption></figure></section>\n", f);
}

/* ---- spread across processes ------------------------------------------ */

/* The phases with the most time that some process entered. */
static void pick(html_top_phases *t, const run_phase *p) {
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *c = p->children[i];
        if (c->nprocs)
            html_top_offer(t, c, (double)c->dist.total_ns);
        pick(t, c);
    }
}

#define SP_W   1000.0
#define SP_ROW 22

static double sx(double ns, double max) {
    return max > 0 ? 4 + (SP_W - 8) * ns / max : 4;
}

static void put_spread_row(FILE *f, const run_phase *p, double max, double *vals, int y) {
    char lo[32], med[32], hi[32];
    run_spread sp;
    size_t n = run_phase_spread(p, vals, &sp);
    fprintf(f,
            "<g data-nprocs=\"%zu\" data-min=\"%.17g\" data-q1=\"%.17g\" data-median=\"%.17g\" "
            "data-q3=\"%.17g\" data-max=\"%.17g\"><title>",
            n, sp.min_ns, sp.q1_ns, sp.median_ns, sp.q3_ns, sp.max_ns);
    html_phase_path(f, p);
    fprintf(f, ": %zu process%s, min %s, median %s, max %s</title>", n, n == 1 ? "" : "es",
            fmt_duration(lo, sizeof lo, sp.min_ns), fmt_duration(med, sizeof med, sp.median_ns),
            fmt_duration(hi, sizeof hi, sp.max_ns));
    int mid = y + SP_ROW / 2;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", sx(sp.min_ns, max), mid,
            sx(sp.max_ns, max), mid);
    fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>", sx(sp.q1_ns, max), y + 4,
            sx(sp.q3_ns, max) - sx(sp.q1_ns, max) + 0.5, SP_ROW - 8);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke-width=\"3\"/>",
            sx(sp.median_ns, max), y + 2, sx(sp.median_ns, max), y + SP_ROW - 2);
    if (n <= HTML_SPREAD_DOTS)
        for (size_t i = 0; i < n; i++)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%d\" r=\"2\"/>", sx(vals[i], max),
                    mid + (int)(i % 3) * 3 - 3);
    fputs("</g>", f);
}

void html_spread(FILE *f, const run_model *m, const run_role *r, size_t ri) {
    (void)m;
    fprintf(f, "<section id=\"spread-%zu\"><h3>Spread across processes</h3>\n", ri);
    const run_phase *chosen[HTML_SPREAD_PHASES];
    double totals[HTML_SPREAD_PHASES];
    html_top_phases s = {chosen, totals, 0, HTML_SPREAD_PHASES, 0};
    pick(&s, r->root);
    double *vals = s.n ? malloc(r->nprocs * sizeof *vals + sizeof *vals) : NULL;
    if (!s.n || !vals) {
        fputs(s.n ? "<p>Left out: out of memory.</p>" : "<p>No phase recorded time.</p>", f);
        fputs("</section>\n", f);
        free(vals);
        return;
    }
    double max = 0;
    for (size_t i = 0; i < s.n; i++)
        max = chosen[i]->spread_max_ns > max ? chosen[i]->spread_max_ns : max;
    char top[32];
    fputs("<table class=\"spread\"><thead><tr><th>phase</th><th>processes</th><th>min</th>"
          "<th>median</th><th>max</th><th>",
          f);
    fprintf(f, "each process's total, 0 to %s</th></tr></thead><tbody>\n",
            fmt_duration(top, sizeof top, max));
    for (size_t i = 0; i < s.n; i++) {
        const run_phase *p = chosen[i];
        size_t pre = html_phase_index(r, p);
        fprintf(f, "<tr data-pre=\"%zu\"><td class=\"name\">", pre);
        html_phase_link(f, r, ri, p, pre);
        fputs("</td>", f);
        html_u64_cell(f, "nprocs", p->nprocs, 1, NULL, fmt_ucount(top, sizeof top, p->nprocs));
        html_num_cell(f, NULL, p->spread_min_ns, fmt_duration(top, sizeof top, p->spread_min_ns));
        html_num_cell(f, NULL, p->spread_median_ns,
                      fmt_duration(top, sizeof top, p->spread_median_ns));
        html_num_cell(f, NULL, p->spread_max_ns, fmt_duration(top, sizeof top, p->spread_max_ns));
        fprintf(f, "<td><svg class=\"box\" viewBox=\"0 0 %.0f %d\" width=\"420\" height=\"%d\">",
                SP_W, SP_ROW, SP_ROW);
        put_spread_row(f, p, max, vals, 0);
        fputs("</svg></td></tr>\n", f);
    }
    fprintf(f,
            "</tbody></table><p class=\"dim\">The %zu phase%s with the most time. Box: the "
            "middle half of the processes; thick bar: the median; whiskers: the least and the "
            "most; dots: each process (drawn where %d or fewer).</p></section>\n",
            s.n, s.n == 1 ? "" : "s", HTML_SPREAD_DOTS);
    free(vals);
}
