/* Hot lines in the HTML report: the role's hottest source lines with their
 * text and heat, then each dominant phase's, which the dominant table links
 * to; see html_parts.h.  Shares and their +- are run_lines.h's. */
#include "fmt.h"
#include "html_out.h"
#include "html_parts.h"
#include "html_report.h"
#include "run_lines.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* The source line's text, or why it cannot be shown, as a cell. */
static void put_source(FILE *f, run_model *m, const run_line *l) {
    char why[200];
    const run_str *lines;
    fputs("<td>", f);
    size_t n = l->file.len && l->line ? run_lines_source(m, l->file, &lines, why, sizeof why) : 0;
    if (l->file.len && l->line && n >= l->line) {
        fputs("<pre class=\"src\">", f);
        html_shown(f, lines[l->line - 1].s, lines[l->line - 1].len);
        fputs("</pre>", f);
    } else {
        fputs("<span class=\"dim\">", f);
        if (!l->file.len || !l->line)
            fputs("no line information", f);
        else if (n)
            fprintf(f, "the file has %zu lines: it changed since the run", n);
        else
            html_shown(f, why, strlen(why));
        fputs("</span>", f);
    }
    fputs("</td>", f);
}

static void put_rows(FILE *f, run_model *m, const run_lines_result *res, size_t top) {
    char t[48], sd[48];
    fputs("<table class=\"sortable lines\"><thead><tr><th>share</th><th>heat</th><th>time</th>"
          "<th>file:line</th><th>function</th><th>source</th></tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < res->nrows && i < top; i++) {
        const run_line *l = &res->rows[i];
        fputs("<tr>", f);
        fprintf(f, "<td class=\"n\" data-v=\"%.17g\" title=\"", l->share);
        if (l->kind == RUN_LINE_SAMPLED)
            fprintf(f, "%" PRIu64 " samples, share %.4f +- %.4f (one sd)", l->samples, l->share,
                    l->share_sd);
        else
            fprintf(f, "%" PRIu64 " hits, measured", l->hits);
        fputs("\">", f);
        fputs(fmt_percent(t, sizeof t, l->share, 1), f);
        if (l->kind == RUN_LINE_SAMPLED && !isnan(l->share_sd))
            fprintf(f, " &plusmn;%s", fmt_percent(sd, sizeof sd, l->share_sd, 1));
        fprintf(f, "</td><td><span class=\"heat\" style=\"width:%.0fpx\"></span></td>",
                1 + 120 * l->share);
        html_num_cell(f, NULL, l->seconds, fmt_duration(t, sizeof t, l->seconds * 1e9));
        fputs("<td class=\"name\">", f);
        html_name(f, l->file.len ? l->file : (run_str){"??", 2});
        if (l->line)
            fprintf(f, ":%" PRIu32, l->line);
        fputs("</td><td class=\"name\">", f);
        html_name(f, l->function);
        fputs("</td>", f);
        put_source(f, m, l);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (res->nrows > top)
        fprintf(f,
                "<p class=\"truncated dim\">The hottest %zu of %zu lines; scope-tui lines "
                "shows every one.</p>\n",
                top, res->nrows);
}

int html_lines(FILE *f, run_model *m, const run_role *r, size_t ri, int has_lines, char *msg,
               size_t msglen) {
    char role[512];
    fprintf(f, "<section id=\"lines-%zu\"><h3>Hot lines</h3>\n", ri);
    run_lines_result res = {0};
    snprintf(role, sizeof role, "%.*s", (int)r->name.len, r->name.s);
    run_lines_query q = {.role = role, .worker = SIZE_MAX};
    if (!has_lines || run_lines_select(m, &q, &res, msg, msglen) < 0 || !res.nrows) {
        if (has_lines)
            fputs("<p>No line samples in this role: it used too little CPU to be sampled, or "
                  "its processes were not sampled.</p>",
                  f);
        else {
            fputs("<p>No line samples: ", f);
            html_str(f, run_lines_how_to_record(m));
            fputs("</p>", f);
        }
        for (size_t i = 0; i < r->ndominant; i++)
            fprintf(f, "<span id=\"lines-%zu-%zu\"></span>", ri, i);
        fputs("</section>\n", f);
        run_lines_free(&res);
        msg[0] = '\0';
        return 0;
    }
    fprintf(f,
            "<p class=\"dim\">%" PRIu64 " line samples; share of the role's samples with one "
            "standard deviation, attributed to the innermost line of the project.</p>\n",
            res.samples);
    put_rows(f, m, &res, HTML_LINES);
    run_lines_free(&res);
    for (size_t i = 0; i < r->ndominant; i++) {
        const run_phase *p = r->dominant[i];
        fprintf(f, "<h4 id=\"lines-%zu-%zu\">Under <code>", ri, i);
        html_phase_link(f, r, ri, p, SIZE_MAX);
        fputs("</code></h4>\n", f);
        run_lines_query pq = q;
        pq.phase = p;
        run_lines_result pr = {0};
        if (run_lines_select(m, &pq, &pr, msg, msglen) < 0 || !pr.nrows)
            fputs("<p class=\"dim\">No line samples while it was open.</p>\n", f);
        else
            put_rows(f, m, &pr, HTML_PHASE_LINES);
        run_lines_free(&pr);
    }
    msg[0] = '\0';
    fputs("</section>\n", f);
    return 0;
}
