/* The pieces of scope's HTML pages; see html_out.h. */
#include "html_out.h"

#include "fmt.h"
#include "text_escape.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The HTML specials of already displayable text, as entities. */
void html_shown(FILE *f, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc(s[i], f);
        }
    }
}

void html_text(FILE *f, const char *s, size_t n) {
    char small[512];
    size_t need = scope_escape((const uint8_t *)s, n, small, sizeof small, 0);
    if (need < sizeof small) {
        html_shown(f, small, need);
        return;
    }
    char *big = malloc(need + 1);
    if (!big) { /* out of memory: a visible gap, never the raw bytes */
        fputs("[name left out: out of memory]", f);
        return;
    }
    scope_escape((const uint8_t *)s, n, big, need + 1, 0);
    html_shown(f, big, need);
    free(big);
}

void html_str(FILE *f, const char *s) {
    if (s)
        html_text(f, s, strlen(s));
}

void html_name(FILE *f, run_str name) {
    html_text(f, name.s ? name.s : "", name.s ? name.len : 0);
}

/* The one way a cell with an exact value is written: data-k KEY (NULL:
 * none), data-v EXACT (NULL: not measured, "null" and n/a), a tooltip of
 * "NAME: EXACT NOTE, approximate: APPROX" (NAME NULL: the value alone;
 * no tooltip for a value not measured without a name), and TEXT, after a
 * "~" when APPROX says why it is approximate. */
typedef struct exact_cell_text {
    const char *name, *note, *approx;
} exact_cell_text;

static void exact_cell(FILE *f, const char *key, const char *exact, exact_cell_text t,
                       const char *text) {
    int rough = t.approx && *t.approx;
    fputs("<td class=\"n\"", f);
    if (key)
        fprintf(f, " data-k=\"%s\"", key);
    fprintf(f, " data-v=\"%s\"", exact ? exact : "null");
    if (exact || t.name) {
        fputs(" title=\"", f);
        if (t.name) {
            html_str(f, t.name);
            fputs(": ", f);
        }
        fputs(exact ? exact : "not measured", f);
        html_str(f, t.note);
        if (rough) {
            fputs(", approximate: ", f);
            html_shown(f, t.approx, strlen(t.approx));
        }
        fputc('"', f);
    }
    fputs(rough ? ">~" : ">", f);
    html_str(f, exact ? text : FMT_NA);
    fputs("</td>", f);
}

/* A figure's exact value as report --json writes it. */
static void fig_exact(char *buf, size_t cap, const phase_figure *pf, pf_value v) {
    if (pf->type != PF_F64)
        snprintf(buf, cap, "%" PRIu64, v.u);
    else if (isnan(v.d) || isinf(v.d))
        snprintf(buf, cap, "null");
    else
        snprintf(buf, cap, "%.17g", v.d);
}

void html_fig_cell(FILE *f, enum phase_fig fig, pf_value v, const char *key) {
    html_fig_cell_note(f, fig, v, key, NULL);
}

void html_fig_cell_note(FILE *f, enum phase_fig fig, pf_value v, const char *key,
                        const char *approx) {
    const phase_figure *pf = &phase_figures[fig];
    char exact[32], text[64];
    int na = pf->type == PF_F64 && isnan(v.d);
    fig_exact(exact, sizeof exact, pf, v);
    exact_cell(f, key, na ? NULL : exact,
               (exact_cell_text){pf->name, pf->unit == PF_UNIT_NS ? " ns" : NULL, approx},
               phase_fig_text(fig, v, text, sizeof text));
}

void html_num_cell(FILE *f, const char *key, double v, const char *text) {
    char exact[32];
    if (isinf(v))
        snprintf(exact, sizeof exact, "null"); /* as JSON, which has no infinity */
    else
        snprintf(exact, sizeof exact, "%.17g", v);
    exact_cell(f, key, isnan(v) ? NULL : exact, (exact_cell_text){0}, text);
}

void html_u64_cell(FILE *f, const char *key, uint64_t v, int measured, const char *note,
                   const char *text) {
    char exact[32];
    snprintf(exact, sizeof exact, "%" PRIu64, v);
    exact_cell(f, key, measured ? exact : NULL, (exact_cell_text){.note = note}, text);
}

void html_i64_cell(FILE *f, const char *key, int64_t v, const char *text) {
    char exact[32];
    snprintf(exact, sizeof exact, "%" PRId64, v);
    exact_cell(f, key, exact, (exact_cell_text){0}, text);
}

void html_top_offer(html_top_phases *t, const run_phase *p, double key) {
    if (t->n == t->cap)
        t->more++;
    if (t->n < t->cap || (t->n && t->key[t->n - 1] < key)) {
        size_t at = t->n < t->cap ? t->n++ : t->n - 1;
        for (; at > 0 && t->key[at - 1] < key; at--) {
            t->v[at] = t->v[at - 1];
            t->key[at] = t->key[at - 1];
        }
        t->v[at] = p;
        t->key[at] = key;
    }
}

const char *html_unit_text(char *buf, size_t cap, double v, const char *unit) {
    char t[48];
    if (!strcmp(unit, "B/s"))
        snprintf(buf, cap, "%s/s", fmt_bytes(t, sizeof t, v));
    else if (!strcmp(unit, "B"))
        snprintf(buf, cap, "%s", fmt_bytes(t, sizeof t, v));
    else if (!strcmp(unit, "%"))
        snprintf(buf, cap, "%s", fmt_percent(t, sizeof t, v, 0));
    else
        snprintf(buf, cap, "%.2f %s", v, unit);
    return buf;
}

#define PLOT_W 720
#define PLOT_H 150
#define PLOT_L 70 /* room for the axis label */
#define PLOT_B 20
#define PLOT_T 8

void html_plot(FILE *f, const char *title, const html_series *s, size_t nseries, size_t n,
               double span_s, const char *unit) {
    static const char *const dash[] = {"", "7 3", "2 2", "9 3 2 3"};
    double max = 0;
    for (size_t k = 0; k < nseries; k++)
        for (size_t i = 0; i < n; i++)
            if (!isnan(s[k].cols[i]) && s[k].cols[i] > max)
                max = s[k].cols[i];
    char top[64], span[32];
    html_unit_text(top, sizeof top, max, unit);
    fmt_duration(span, sizeof span, span_s * 1e9);
    fprintf(f,
            "<figure class=\"plot\"><svg role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\"><title>",
            PLOT_W, PLOT_H, PLOT_W, PLOT_H);
    html_shown(f, title, strlen(title)); /* ours, or a name escaped already */
    fprintf(f, ", peak %s</title>", top);
    int w = PLOT_W - PLOT_L - 4, h = PLOT_H - PLOT_B - PLOT_T;
    fprintf(f,
            "<rect class=\"axis\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>"
            "<text x=\"%d\" y=\"%d\">0s</text>"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>",
            PLOT_L, PLOT_T, w, h, PLOT_L - 4, PLOT_T + 10, top, PLOT_L - 4, PLOT_T + h, PLOT_L,
            PLOT_H - 4, PLOT_L + w, PLOT_H - 4, span);
    for (size_t k = 0; k < nseries && k < 4; k++) {
        int open = 0;
        for (size_t i = 0; i < n; i++) {
            double v = s[k].cols[i];
            if (isnan(v)) {
                if (open)
                    fputs("\"/>", f);
                open = 0;
                continue;
            }
            double x = PLOT_L + (n > 1 ? (double)w * (double)i / (double)(n - 1) : 0);
            double y = PLOT_T + h - (max > 0 ? (double)h * v / max : 0);
            if (!open)
                fprintf(f, "<polyline class=\"s%zu\" stroke-dasharray=\"%s\" points=\"", k,
                        dash[k]);
            fprintf(f, "%s%.1f,%.1f", open ? " " : "", x, y);
            open = 1;
        }
        if (open)
            fputs("\"/>", f);
    }
    fputs("</svg><figcaption>", f);
    html_shown(f, title, strlen(title));
    fputs(": ", f);
    for (size_t k = 0; k < nseries && k < 4; k++) {
        fprintf(f,
                "<span class=\"key\"><svg width=\"28\" height=\"8\"><line class=\"s%zu\" "
                "stroke-dasharray=\"%s\" x1=\"0\" y1=\"4\" x2=\"28\" y2=\"4\"/></svg> ",
                k, dash[k]);
        html_str(f, s[k].label);
        fputs("</span> ", f);
    }
    fprintf(f,
            "(peak of a column %s; the run's %s spread over %zu columns)</figcaption></figure>\n",
            top, span, n);
}
