/*
 * The theme on the terminal: one ncurses colour pair and attribute set per
 * theme element, and the few drawing primitives every view uses (text cut
 * to a width, numbers aligned right, bars and sparklines).  Names from
 * logs are escaped before they get here (text_escape.h).
 */
#ifndef SCOPE_UI_STYLE_H
#define SCOPE_UI_STYLE_H

#include "run_model.h"
#include "theme.h"

#include <curses.h>
#include <stdint.h>

/* Sets the styles up for the terminal ncurses has opened: colour when
 * `want_color` and the terminal has it, else the theme without colour
 * (theme_strip_color).  Returns the number of colours used (0: none). */
int style_init(theme *t, int want_color);

/* Draws with an element's style from now on. */
void style_set(WINDOW *w, enum theme_element el);

/* Restyles n cells at (y, x) without changing their text (n < 0: to the
 * end of the line), as for the selected row. */
void style_cells(WINDOW *w, int y, int x, int n, enum theme_element el);

/* The mark a sorted column's heading carries, as file managers draw it:
 * up for ascending (smallest first, names A to Z), down for descending;
 * "^" and "v" in ASCII. */
const char *style_sort_marker(int ascending);

/* Marks row y as the selected one: a '>' in the first column, so the
 * selection shows in saved screens and without colour too, and the row in
 * the selected style. */
void style_selected_row(WINDOW *w, int y, int width);

/* Whether the terminal takes UTF-8 (from LC_CTYPE); else drawing is ASCII. */
extern int style_utf8;

/* Text at (y, x) in at most `cols` columns, cut with an ellipsis when it is
 * longer, in the element's style.  Returns the columns written. */
int draw_text(WINDOW *w, int y, int x, int cols, enum theme_element el, const char *s);
/* The same, right-aligned in `cols` columns. */
void draw_text_right(WINDOW *w, int y, int x, int cols, enum theme_element el, const char *s);
/* A name from a log, escaped for this terminal (ASCII escapes beyond ASCII
 * when the locale is not UTF-8). */
int draw_name(WINDOW *w, int y, int x, int cols, enum theme_element el, run_str name);
/* Text already escaped for a UTF-8 terminal (a source line of the model's,
 * run_lines_source), drawn as it is there; in a non-UTF-8 locale each
 * character beyond ASCII as \uXXXX.  Returns the columns written. */
int draw_escaped(WINDOW *w, int y, int x, int cols, enum theme_element el, const char *s);
/* The name escaped for this terminal into buf; returns buf. */
const char *style_escape(run_str name, char *buf, size_t cap);
/* Spaces over `cols` columns. */
void draw_blank(WINDOW *w, int y, int x, int cols, enum theme_element el);

/* A horizontal rule across the row (box drawing, '-' in ASCII), above a
 * detail pane. */
void draw_rule(WINDOW *w, int y, int cols);

/* A bar `cols` wide filled to frac (0..1): eighth blocks in UTF-8, '#' in
 * ASCII. */
void draw_bar(WINDOW *w, int y, int x, int cols, double frac);

/* A sparkline of n values, one column each, scaled to the largest:
 * ▁▂▃▄▅▆▇█ in UTF-8, " .:-=+*#" in ASCII; a zero is a blank, a value
 * above zero never is. */
void draw_sparkline(WINDOW *w, int y, int x, const uint64_t *v, size_t n);

#endif
