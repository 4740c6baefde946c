/* Prose views; see text_view.h. */
#include "text_view.h"

#include "fmt.h"
#include "style.h"

#include <assert.h>
#include <scope/vec.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct text_state {
    text_fill_fn fill;
    text_lines lines;
} text_state;

static void push(text_lines *t, enum theme_element el, const char *s, size_t n) {
    if (t->nomem)
        return;
    if (SCOPE_VEC_RESERVE(t->v, t->cap, t->n + 1) < 0) {
        t->nomem = 1;
        return;
    }
    char *copy = strndup(s, n);
    if (!copy) {
        t->nomem = 1;
        return;
    }
    t->v[t->n++] = (text_line){copy, el};
}

void text_add(text_lines *t, enum theme_element el, int indent, const char *fmt, ...) {
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t width = t->width > 20 ? (size_t)t->width - 2 : 18;
    const char *s = text;
    char piece[4200];
    int first = 1;
    /* Greedy breaking at spaces, by display columns. */
    while (*s || first) {
        int pad = first ? 0 : indent;
        size_t avail = width > (size_t)pad + 10 ? width - (size_t)pad : 10;
        size_t len = strlen(s), cut = len;
        if (fmt_width(s) > avail) {
            size_t best = 0, i = 0;
            char tmp[4096];
            while (i < len) {
                size_t next = i + 1;
                while (next < len && s[next] != ' ')
                    next++;
                memcpy(tmp, s, next);
                tmp[next] = '\0';
                if (fmt_width(tmp) > avail)
                    break;
                best = next;
                i = next;
            }
            cut = best ? best : avail; /* a word longer than the line is cut */
            while (cut < len && (s[cut] & 0xC0) == 0x80)
                cut++;
        }
        snprintf(piece, sizeof piece, "%*s%.*s", pad, "", (int)cut, s);
        push(t, el, piece, strlen(piece));
        s += cut;
        while (*s == ' ')
            s++;
        first = 0;
    }
}

static void lines_free(text_lines *t) {
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].text);
    free(t->v);
    *t = (text_lines){0};
}

int text_view_init(view *v, text_fill_fn fill) {
    assert(!v->priv); /* once, before the first build */
    text_state *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->fill = fill;
    st->lines.width = 80;
    v->priv = st;
    return 0;
}

int text_view_build(view *v) {
    text_state *st = v->priv;
    int width = st->lines.width;
    lines_free(&st->lines);
    st->lines.width = width;
    st->fill(v, &st->lines);
    if (st->lines.nomem)
        return -1;
    list_clear(&v->list);
    for (size_t i = 0; i < st->lines.n; i++)
        if (list_add(&v->list, 0, 0, NULL, i) == LIST_NONE)
            return -1;
    return list_done(&v->list);
}

void text_view_draw(view *v, WINDOW *w, int top, int height, int width) {
    text_state *st = v->priv;
    if (st->lines.width != width) {
        /* Wrapped for another width: fill again, keeping the line the
         * cursor was on about where it was. */
        size_t at = v->list.nrows ? v->list.cursor * 1000 / v->list.nrows : 0;
        st->lines.width = width;
        if (text_view_build(v) < 0) {
            draw_text(w, top, 1, width - 2, TH_ERROR, "out of memory");
            return;
        }
        v->list.cursor = v->list.nvisible ? at * v->list.nvisible / 1000 : 0;
    }
    list *l = &v->list;
    list_scroll_to_cursor(l, height);
    for (int i = 0; i < height && l->top + (size_t)i < l->nvisible; i++) {
        const text_line *t = &st->lines.v[l->rows[l->visible[l->top + (size_t)i]].index];
        int y = top + i;
        draw_text(w, y, 1, width - 2, app_query_matches(v->app, t->text) ? TH_MATCH : t->el,
                  t->text);
        if (l->top + (size_t)i == l->cursor)
            style_selected_row(w, y, width);
    }
}

int text_view_row_text(view *v, const list_row *r, char *buf, size_t cap) {
    text_state *st = v->priv;
    assert(r->index < st->lines.n); /* a row per line */
    snprintf(buf, cap, "%s", st->lines.v[r->index].text);
    return 1;
}

int text_view_row_key(view *v, const list_row *r, char *buf, size_t cap) {
    return text_view_row_text(v, r, buf, cap);
}

void text_view_release(view *v) {
    text_state *st = v->priv;
    lines_free(&st->lines);
}
