/* Theme styles on the terminal and the drawing primitives; see style.h. */
#include "style.h"

#include "fmt.h"
#include "text_escape.h"

#include <string.h>

int style_utf8;

static attr_t attrs_of[TH_ELEMENT_COUNT];
static short pair_of[TH_ELEMENT_COUNT];

static attr_t curses_attrs(unsigned a) {
    attr_t r = A_NORMAL;
    if (a & THEME_BOLD)
        r |= A_BOLD;
    if (a & THEME_DIM)
        r |= A_DIM;
    if (a & THEME_UNDERLINE)
        r |= A_UNDERLINE;
    if (a & THEME_REVERSE)
        r |= A_REVERSE;
#ifdef A_ITALIC
    if (a & THEME_ITALIC)
        r |= A_ITALIC;
#endif
    return r;
}

int style_init(theme *t, int want_color) {
    int colors = 0;
    if (want_color && has_colors() && start_color() == OK) {
        use_default_colors();
        colors = COLORS;
    }
    if (colors < 8 || COLOR_PAIRS <= TH_ELEMENT_COUNT) {
        theme_strip_color(t);
        /* Reverse video marks the header, tabs and status line without
         * colour; matches get underline instead, so they do not read as
         * more of the same. */
        t->style[TH_MATCH].attrs =
            (t->style[TH_MATCH].attrs & ~THEME_REVERSE) | THEME_UNDERLINE | THEME_BOLD;
        colors = 0;
    }
    for (int e = 0; e < TH_ELEMENT_COUNT; e++) {
        const theme_style *s = &t->style[e];
        attrs_of[e] = curses_attrs(s->attrs);
        pair_of[e] = 0;
        if (!colors)
            continue;
        int fg = theme_color_for(s->fg, colors), bg = theme_color_for(s->bg, colors);
        if (fg < 0 && bg < 0)
            continue;
        /* Extended pairs: a direct-colour terminal's colours are 24-bit RGB
         * values, beyond what init_pair's shorts hold. */
        if (init_extended_pair(e + 1, fg, bg) == OK)
            pair_of[e] = (short)(e + 1);
    }
    return colors;
}

void style_set(WINDOW *w, enum theme_element el) {
    wattr_set(w, attrs_of[el], pair_of[el], NULL);
}

void style_cells(WINDOW *w, int y, int x, int n, enum theme_element el) {
    mvwchgat(w, y, x, n, attrs_of[el], pair_of[el], NULL);
}

/* The last guard before the terminal: text here is escaped already, but a
 * control or format character or a bad byte that slipped through becomes '?', and
 * beyond ASCII becomes \uXXXX when the terminal's locale is not UTF-8. */
static void terminal_safe(const char *s, char *out, size_t cap) {
    size_t n = strlen(s), o = 0;
    for (size_t i = 0; i < n && o + 12 < cap;) {
        uint32_t cp;
        size_t len = scope_utf8_seq_len((const uint8_t *)s + i, n - i, &cp);
        if (len == 0 || scope_is_control(cp) || scope_is_hidden_format(cp)) {
            out[o++] = '?';
            i += len ? len : 1;
        } else if (cp >= 0x80 && !style_utf8) {
            o += (size_t)snprintf(out + o, cap - o, cp > 0xFFFF ? "\\U%08x" : "\\u%04x", cp);
            i += len;
        } else {
            memcpy(out + o, s + i, len);
            o += len;
            i += len;
        }
    }
    out[o] = '\0';
}

const char *style_sort_marker(int ascending) {
    return style_utf8 ? (ascending ? "▲" : "▼") : (ascending ? "^" : "v");
}

void style_selected_row(WINDOW *w, int y, int width) {
    style_set(w, TH_SELECTED);
    mvwaddch(w, y, 0, '>');
    style_cells(w, y, 0, width, TH_SELECTED);
}

int draw_text(WINDOW *w, int y, int x, int cols, enum theme_element el, const char *s) {
    if (cols <= 0)
        return 0;
    char buf[1024];
    terminal_safe(s, buf, sizeof buf);
    fmt_fit(buf, sizeof buf, (size_t)cols, style_utf8);
    style_set(w, el);
    mvwaddstr(w, y, x, buf);
    return (int)fmt_width(buf);
}

void draw_text_right(WINDOW *w, int y, int x, int cols, enum theme_element el, const char *s) {
    if (cols <= 0)
        return;
    int width = (int)fmt_width(s);
    if (width > cols)
        width = cols;
    draw_text(w, y, x + cols - width, width, el, s);
}

const char *style_escape(run_str name, char *buf, size_t cap) {
    scope_escape((const uint8_t *)name.s, name.len, buf, cap, style_utf8 ? 0 : SCOPE_ESCAPE_ASCII);
    return buf;
}

int draw_escaped(WINDOW *w, int y, int x, int cols, enum theme_element el, const char *s) {
    if (style_utf8)
        return draw_text(w, y, x, cols, el, s);
    char buf[2048];
    size_t len = 0, n = strlen(s);
    for (size_t i = 0; i < n && len + 12 < sizeof buf;) {
        uint32_t cp;
        size_t seq =
            (unsigned char)s[i] < 0x80 ? 1 : scope_utf8_seq_len((const uint8_t *)s + i, n - i, &cp);
        if (seq == 1 || seq == 0) {
            buf[len++] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
            i++;
            continue;
        }
        len +=
            (size_t)snprintf(buf + len, sizeof buf - len, cp > 0xFFFF ? "\\U%08x" : "\\u%04x", cp);
        i += seq;
    }
    buf[len] = '\0';
    return draw_text(w, y, x, cols, el, buf);
}

int draw_name(WINDOW *w, int y, int x, int cols, enum theme_element el, run_str name) {
    char buf[1024];
    return draw_text(w, y, x, cols, el, style_escape(name, buf, sizeof buf));
}

void draw_blank(WINDOW *w, int y, int x, int cols, enum theme_element el) {
    style_set(w, el);
    if (cols > 0)
        mvwhline(w, y, x, ' ', cols);
}

void draw_rule(WINDOW *w, int y, int cols) {
    style_set(w, TH_DIM);
    if (style_utf8)
        mvwhline_set(w, y, 0, WACS_HLINE, cols);
    else
        mvwhline(w, y, 0, '-', cols);
}

void draw_bar(WINDOW *w, int y, int x, int cols, double frac) {
    static const char *const eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    if (cols <= 0)
        return;
    if (!(frac > 0))
        frac = 0;
    if (frac > 1)
        frac = 1;
    int units = (int)(frac * cols * 8 + 0.5);
    int full = units / 8, part = units % 8;
    style_set(w, TH_BAR);
    wmove(w, y, x);
    for (int i = 0; i < full; i++)
        waddstr(w, style_utf8 ? "█" : "#");
    int used = full;
    if (part && used < cols) {
        waddstr(w, style_utf8 ? eighths[part] : (part >= 4 ? "#" : " "));
        used++;
    }
    style_set(w, TH_BAR_EMPTY);
    for (; used < cols; used++)
        waddstr(w, style_utf8 ? "·" : ".");
}

void draw_sparkline(WINDOW *w, int y, int x, const uint64_t *v, size_t n) {
    static const char *const blocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static const char ascii[] = ".:-=+*#@";
    uint64_t max = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > max)
            max = v[i];
    style_set(w, TH_BAR);
    wmove(w, y, x);
    for (size_t i = 0; i < n; i++) {
        if (!v[i] || !max) {
            waddch(w, ' ');
            continue;
        }
        /* Level 0..7; anything above zero shows at least the lowest mark. */
        int level = (int)((double)v[i] * 7.0 / (double)max + 0.5);
        if (level > 7)
            level = 7;
        if (style_utf8)
            waddstr(w, blocks[level]);
        else
            waddch(w, (chtype)ascii[level]);
    }
}
