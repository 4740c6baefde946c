/*
 * Views that are prose (overview, help): lines of text with a style each,
 * wrapped to the screen's width, scrolled and searched like any list.
 * A view fills the lines for a width; they are filled again when the width
 * changes or the model is reloaded.
 */
#ifndef SCOPE_UI_TEXT_VIEW_H
#define SCOPE_UI_TEXT_VIEW_H

#include "browser.h"

typedef struct text_line {
    char *text;
    enum theme_element el;
} text_line;

typedef struct text_lines {
    text_line *v;
    size_t n, cap;
    int width; /* what they were wrapped for */
    int nomem;
} text_lines;

/* Adds text (printf-style) broken at spaces to fit the width, each later
 * piece indented by `indent` columns. */
void text_add(text_lines *t, enum theme_element el, int indent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* How a prose view fills its lines (for the width in t->width). */
typedef void (*text_fill_fn)(view *v, text_lines *t);

/* The parts of view_ops every prose view shares. */
int text_view_build(view *v);
void text_view_draw(view *v, WINDOW *w, int top, int height, int width);
int text_view_row_text(view *v, const list_row *r, char *buf, size_t cap);
int text_view_row_key(view *v, const list_row *r, char *buf, size_t cap);
void text_view_release(view *v);

/* A prose view's init op calls this with the view's fill: v->priv becomes
 * the text view's state.  Returns 0, or -1 when out of memory. */
int text_view_init(view *v, text_fill_fn fill);

/* The view_ops of a prose view, given its init op. */
#define TEXT_VIEW_OPS(init_op, ...)                                                                \
    {                                                                                              \
        .init = (init_op), .build = text_view_build, .draw = text_view_draw,                       \
        .row_text = text_view_row_text, .row_key = text_view_row_key,                              \
        .release = text_view_release, __VA_ARGS__                                                  \
    }

#endif
