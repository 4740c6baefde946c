/*
 * The pieces every HTML page of scope is written with (`report --html`,
 * `compare --html`): one self-contained file, inline CSS and script, no
 * network.
 *
 * Escaping: html_text is the one way text from a run reaches a page, in an
 * element's content or a quoted attribute alike.  It first makes the bytes
 * safe to show (text_escape.h: control characters, bidi and zero-width
 * characters and invalid UTF-8 become visible escapes such as \u202e), then
 * writes the HTML specials (& < > " ') as entities, so a name can neither
 * open a tag, close an attribute, nor reorder the text around it.
 *
 * Numbers: a figure's cell carries its exact value in data-v (as report
 * --json writes it: integers exactly, null when not measured) beside the
 * text a reader sees; the tables sort on data-v, and the tests compare it
 * with the JSON.
 */
#ifndef SCOPE_HTML_OUT_H
#define SCOPE_HTML_OUT_H

#include "phase_figures.h"
#include "run_model.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* n bytes of text, escaped for HTML content and quoted attributes. */
void html_text(FILE *f, const char *s, size_t n);
void html_str(FILE *f, const char *s); /* NUL-terminated; NULL writes nothing */
void html_name(FILE *f, run_str name);
/* Text a model already made displayable (caveats, source lines: escaped by
 * text_escape.h once): only the HTML specials, so a backslash is not
 * doubled again. */
void html_shown(FILE *f, const char *s, size_t n);

/* The page's start (doctype, head with its title, inline style) and end
 * (the inline script).  title is text, escaped here. */
void html_page_begin(FILE *f, const char *title);
void html_page_end(FILE *f);

/* A figure's cell: <td data-k="KEY" data-v="EXACT" title="...">TEXT</td>.
 * key NULL leaves data-k out.  A NAN value is "null" and n/a. */
void html_fig_cell(FILE *f, enum phase_fig fig, pf_value v, const char *key);
/* The same, marked approximate ("~" before it, and why in its tooltip)
 * where approx is a phrase (run_partial.h's note); NULL or "" is exact. */
void html_fig_cell_note(FILE *f, enum phase_fig fig, pf_value v, const char *key,
                        const char *approx);
/* A cell of a number with its own text (bytes, a rate): exact in data-v,
 * its JSON key in data-k (NULL: none); NAN is n/a, an infinity null in
 * data-v (as in JSON) beside its text. */
void html_num_cell(FILE *f, const char *key, double v, const char *text);
/* The same for an integer, written whole (a double rounds one past 2^53);
 * measured 0 writes n/a.  note: what follows the value in the tooltip
 * (" bytes", " ns"; NULL: nothing). */
void html_u64_cell(FILE *f, const char *key, uint64_t v, int measured, const char *note,
                   const char *text);
void html_i64_cell(FILE *f, const char *key, int64_t v, const char *text);

/* The cap phases with the largest keys, largest first, offered one at a
 * time (a walk of the tree); more counts those offered past the cap. */
typedef struct html_top_phases {
    const run_phase **v;
    double *key;
    size_t n, cap, more;
} html_top_phases;
void html_top_offer(html_top_phases *t, const run_phase *p, double key);

/* A line plot of up to 4 series over n columns as inline SVG: each series
 * drawn in its own dash pattern and named in a legend, the largest value
 * and the time span written on the axes.  cols[s][i] NAN is a gap.  unit
 * formats the axis ("B/s", "B", "cores", "%"). */
typedef struct html_series {
    const char *label;
    const double *cols;
} html_series;
void html_plot(FILE *f, const char *title, const html_series *s, size_t nseries, size_t n,
               double span_s, const char *unit);

/* A value in a plot's unit, as text. */
const char *html_unit_text(char *buf, size_t cap, double v, const char *unit);

#endif
