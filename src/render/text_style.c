/* The text style and its pieces; see text_style.h. */
#define _GNU_SOURCE
#include "text_style.h"

#include "fmt.h"

#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* ---- style ---------------------------------------------------------------- */

text_style text_style_for(FILE *f, int width, int color_mode) {
    text_style st = {.width = width};
    int fd = fileno(f);
    int tty = fd >= 0 && isatty(fd);
    if (st.width <= 0 && tty) {
        struct winsize ws;
        if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
            st.width = ws.ws_col;
    }
    if (st.width <= 0 && getenv("COLUMNS"))
        st.width = atoi(getenv("COLUMNS"));
    if (st.width <= 0)
        st.width = 100;
    if (st.width < TEXT_MIN_WIDTH)
        st.width = TEXT_MIN_WIDTH;
    const char *no_color = getenv("NO_COLOR");
    st.color = color_mode >= 0 ? color_mode : tty && !(no_color && *no_color);
    const char *cs = nl_langinfo(CODESET);
    st.utf8 = cs && !strcmp(cs, "UTF-8");
    return st;
}

void text_rule(FILE *f, const text_style *st) {
    if (st->color)
        fputs("\033[2m", f);
    for (int i = 0; i < st->width; i++)
        fputs(st->utf8 ? "\xe2\x94\x80" : "-", f);
    fputs(st->color ? "\033[0m\n" : "\n", f);
}

void text_heading(FILE *f, const text_style *st, const char *text) {
    fprintf(f, st->color ? "\033[1m%s\033[0m" : "%s", text);
}

void text_dim(FILE *f, const text_style *st, const char *text) {
    fprintf(f, st->color ? "\033[2m%s\033[0m" : "%s", text);
}

void text_wrap(FILE *f, const text_style *st, const char *text, size_t col, size_t indent) {
    size_t width = (size_t)st->width;
    char word[512];
    int first = 1; /* of its line: no space before it, and never wrapped */
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, " ");
        snprintf(word, sizeof word, "%.*s", (int)n, p);
        size_t w = fmt_width(word);
        if (!first && col + 1 + w > width) {
            fprintf(f, "\n%*s", (int)indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        first = 0;
        fwrite(p, 1, n, f);
        col += w;
        p += n + strspn(p + n, " ");
    }
    fputc('\n', f);
}
