/*
 * The Source view: one function's source with the heat of each line, as
 * `perf annotate` shows it: a bar, the line's share of the function's
 * samples and its sample count left of the text, the cursor on the line it
 * was opened on.  n and N step down and up the lines ranked by heat, o opens
 * the editor there, Backspace goes back.  A source file that cannot be found
 * leaves the table of sampled lines, without text, and says so.  Lines
 * that line_profiler measured show their hits in the count column and
 * their share of the function's measured time, and the function is named
 * and listed from the line line_profiler says it starts at ("work at line
 * 28") to its last measured line, as line_profiler prints it.
 *
 * It has no key and no tab of its own: Enter on a line of the Lines view
 * and H open it (views.c, key 0).
 */
#define _GNU_SOURCE /* qsort_r */
#include "view_source.h"

#include "editor.h"
#include "fmt.h"
#include "hot_lines.h"
#include "style.h"
#include "text_escape.h"

#include <stdlib.h>
#include <string.h>

enum row_kind { ROW_TEXT, ROW_FUNCTION };

/* How far the function's text is looked for around its sampled lines: up to
 * its signature (a line starting in the first column) and down to its
 * closing brace, within these many lines; else a few lines of context. */
#define SEARCH_LINES  60
#define CONTEXT_LINES 3

typedef struct source_state {
    hot_scope scope;
    int open;       /* a line was chosen */
    char *file;     /* copies of the chosen line's names: the model's go on reload */
    char *function; /* NUL-terminated for the query */
    size_t file_len, function_len;
    uint32_t line;
    size_t from; /* the view Backspace goes back to */

    run_lines_result res; /* the function's rows */
    uint64_t samples;     /* the function's samples (hits, when measured) in this file */
    double seconds;
    int measured;      /* its rows are measured lines (run_lines.h) */
    uint32_t def_line; /* where the function starts, as its profiler said; 0: not said */
    size_t *rank;      /* list rows of sampled lines, hottest first */
    size_t nrank;
    const run_str *text; /* the file's lines, owned by the model; NULL when not found */
    size_t ntext;
    char why[512]; /* why there is no text */
    char msg[512]; /* why there are no rows */
} source_state;

static int source_init(view *v) {
    source_state *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->scope.worker = SIZE_MAX;
    v->priv = st;
    return 0;
}

static void drop_rows(source_state *st) {
    run_lines_free(&st->res);
    st->res = (run_lines_result){0};
    free(st->rank);
    st->rank = NULL;
    st->nrank = 0;
}

static void source_release(view *v) {
    source_state *st = v->priv;
    drop_rows(st);
    free(st->file);
    free(st->function);
}

/* Samples of a sampled line, hits of a measured one. */
static uint64_t count_of(const run_line *l) {
    return l->kind == RUN_LINE_MEASURED ? l->hits : l->samples;
}

/* A line's share of the function: of its samples, or of its measured time. */
static double share_of(const source_state *st, const run_line *l) {
    if (l->kind == RUN_LINE_MEASURED)
        return st->seconds > 0 ? l->seconds / st->seconds : 0;
    return st->samples ? (double)l->samples / (double)st->samples : 0;
}

static int by_heat(const void *x, const void *y, void *ctx) {
    const list *l = ctx;
    const list_row *a = &l->rows[*(const size_t *)x], *b = &l->rows[*(const size_t *)y];
    const run_line *la = a->item, *lb = b->item;
    if (la->kind == RUN_LINE_MEASURED && la->seconds != lb->seconds)
        return la->seconds < lb->seconds ? 1 : -1;
    if (la->samples != lb->samples)
        return la->samples < lb->samples ? 1 : -1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The first and last line to show: from the function's signature to its
 * closing brace when the text has them near, else the sampled lines with a
 * little context. */
static void span(const source_state *st, uint32_t first, uint32_t last, size_t *lo, size_t *hi) {
    *lo = first > CONTEXT_LINES ? first - CONTEXT_LINES : 1;
    *hi = last + CONTEXT_LINES;
    for (size_t k = first; k >= 1 && k + SEARCH_LINES > first && k <= st->ntext; k--) {
        const char *s = st->text[k - 1].s;
        if (s[0] && s[0] != ' ' && s[0] != '\t' && s[0] != '{' && s[0] != '}' && s[0] != '#' &&
            s[0] != '/' && s[0] != '*') {
            *lo = k;
            break;
        }
    }
    for (size_t k = last; k <= st->ntext && k < last + SEARCH_LINES; k++)
        if (st->text[k - 1].s[0] == '}') {
            *hi = k;
            break;
        }
    if (*hi > st->ntext)
        *hi = st->ntext;
}

static int source_build(view *v) {
    source_state *st = v->priv;
    app *a = v->app;
    list_clear(&v->list);
    drop_rows(st);
    st->msg[0] = st->why[0] = '\0';
    st->text = NULL;
    st->ntext = 0;
    st->samples = 0;
    st->seconds = 0;
    st->measured = 0;
    st->def_line = 0;
    if (!st->open) {
        snprintf(st->msg, sizeof st->msg,
                 "no line chosen: Enter on a line of the Lines view, or H, shows its source here");
        return list_done(&v->list);
    }
    hot_scope_resolve(a, &st->scope);
    if (hot_lines_select(a, &st->scope, st->function, RUN_LINES_BY_LINE, &st->res, st->msg,
                         sizeof st->msg) < 0) {
        st->res = (run_lines_result){0};
        return list_done(&v->list);
    }
    run_str file = {st->file, st->file_len};
    uint32_t first = 0, last = 0;
    for (size_t i = 0; i < st->res.nrows; i++) {
        const run_line *l = &st->res.rows[i];
        if (!run_str_eq(l->file, file))
            continue;
        st->samples += count_of(l);
        st->seconds += l->seconds;
        st->measured |= l->kind == RUN_LINE_MEASURED;
        if (l->line && (!first || l->line < first))
            first = l->line;
        if (l->line > last)
            last = l->line;
        if (l->def_line && (!st->def_line || l->def_line < st->def_line))
            st->def_line = l->def_line;
    }
    if (!st->samples && !st->measured) {
        char fn[600];
        snprintf(st->msg, sizeof st->msg, "no samples in %s with this attribution (a switches)",
                 style_escape((run_str){st->function, st->function_len}, fn, sizeof fn));
        return list_done(&v->list);
    }
    if (file.len && first)
        st->ntext = run_lines_source(a->model, file, &st->text, st->why, sizeof st->why);
    else
        snprintf(st->why, sizeof st->why,
                 "no line information: its module has no debug info here, or changed since the "
                 "run");
    if (!st->ntext)
        st->text = NULL;
    /* Function-level rows first (no line to put them on), then the text. */
    for (size_t i = 0; i < st->res.nrows; i++) {
        const run_line *l = &st->res.rows[i];
        if (run_str_eq(l->file, file) && !l->line &&
            list_add(&v->list, 0, ROW_FUNCTION, l, 0) == LIST_NONE)
            return -1;
    }
    if (first) {
        size_t lo = first, hi = last;
        if (st->text)
            span(st, first, last, &lo, &hi);
        if (st->def_line && st->def_line <= first) {
            /* From where its profiler said it starts to its last line with
             * figures, as line_profiler lists a function. */
            lo = st->def_line;
            hi = last;
        }
        if (hi < last)
            hi = last;   /* the file is shorter than its samples say: changed since the run */
        size_t next = 0; /* the next sampled row in line order */
        for (size_t n = lo; n <= hi; n++) {
            const run_line *hit = NULL;
            for (; next < st->res.nrows; next++) {
                const run_line *l = &st->res.rows[next];
                if (!run_str_eq(l->file, file) || l->line < n)
                    continue;
                if (l->line == n)
                    hit = l;
                break;
            }
            /* Without text only the sampled lines are rows. */
            if ((st->text || hit) && list_add(&v->list, 0, ROW_TEXT, hit, n) == LIST_NONE)
                return -1;
        }
    }
    if (list_done(&v->list) < 0)
        return -1;
    st->rank = malloc((v->list.nrows + 1) * sizeof *st->rank);
    if (!st->rank)
        return -1;
    for (size_t i = 0; i < v->list.nrows; i++)
        if (v->list.rows[i].item)
            st->rank[st->nrank++] = i;
    qsort_r(st->rank, st->nrank, sizeof *st->rank, by_heat, &v->list);
    return 0;
}

/* ---- drawing --------------------------------------------------------------------- */

/* Columns left of the text: line number, bar, share, samples. */
typedef struct source_cols {
    int line_x, bar_x, bar_w, share_x, samples_x, text_x;
} source_cols;

static source_cols lay_out(int width) {
    source_cols c = {.line_x = 1};
    int x = 8;
    c.bar_w = width >= 90 ? 10 : width >= 70 ? 6 : 0;
    c.bar_x = x;
    x += c.bar_w ? c.bar_w + 1 : 0;
    c.share_x = x;
    x += 7;
    c.samples_x = x;
    x += 9;
    c.text_x = x + 2;
    return c;
}

static void draw_header(view *v, WINDOW *w, int y, int width) {
    source_state *st = v->priv;
    app *a = v->app;
    char fn[640], file[700], line[1800], n[48], t[48];
    if (st->file_len)
        hot_file_shown(a, (run_str){st->file, st->file_len}, file, sizeof file);
    else
        snprintf(file, sizeof file, "(no source file)");
    char rest[1000];
    if (st->measured)
        snprintf(rest, sizeof rest, "  %s  %s hit%s, %s measured (exact)", file,
                 fmt_ucount(n, sizeof n, st->samples), fmt_plural(st->samples),
                 fmt_duration(t, sizeof t, st->seconds * 1e9));
    else
        snprintf(rest, sizeof rest, "  %s  %s sample%s, about %s of CPU", file,
                 fmt_ucount(n, sizeof n, st->samples), fmt_plural(st->samples),
                 fmt_duration(t, sizeof t, st->seconds * 1e9));
    /* A long C++ name is shortened (fmt_function) so the file and the
     * figures stay on screen, keeping at least half the width. */
    int fn_cols = width - 2 - (int)fmt_width(rest);
    if (fn_cols < width / 2)
        fn_cols = width / 2;
    char at[32] = ""; /* as line_profiler names it: "work at line 28" */
    if (st->def_line)
        snprintf(at, sizeof at, " at line %u", st->def_line);
    fn_cols -= (int)strlen(at);
    fmt_function(fn, sizeof fn, (run_str){st->function, st->function_len},
                 (size_t)(fn_cols > 1 ? fn_cols : 1), style_utf8 ? 0 : SCOPE_ESCAPE_ASCII,
                 style_utf8);
    snprintf(line, sizeof line, " %s%s%s", fn, at, rest);
    draw_blank(w, y, 0, width, TH_NORMAL);
    draw_text(w, y, 0, width - 1, TH_ROLE, line);
    char role[300], path[1100];
    if (st->scope.role)
        fmt_title(role, sizeof role, st->scope.role->name);
    snprintf(line, sizeof line, " %s%s%s%s  %s", st->scope.role ? "in " : "every role",
             st->scope.role ? role : "", st->scope.phase ? ", phase " : "",
             st->scope.phase ? run_phase_path(st->scope.phase, path, sizeof path) : "",
             st->scope.attr == RUN_LINES_PROJECT
                 ? "by the project's line (a: by the line that ran)"
                 : "by the line that ran (a: by the project's line)");
    draw_text(w, y + 1, 0, width - 1, TH_DIM, line);
}

static void draw_headings(const source_state *st, WINDOW *w, int y, const source_cols *c,
                          int width) {
    draw_blank(w, y, 0, width, TH_COLUMNS);
    draw_text_right(w, y, c->line_x, 6, TH_COLUMNS, "line");
    draw_text_right(w, y, c->share_x, 6, TH_COLUMNS, "share");
    draw_text_right(w, y, c->samples_x, 8, TH_COLUMNS, st->measured ? "hits" : "samples");
    draw_text(w, y, c->text_x, width - c->text_x - 1, TH_COLUMNS, "source");
}

static void draw_row(view *v, WINDOW *w, int y, const source_cols *c, const list_row *r,
                     int width) {
    source_state *st = v->priv;
    const run_line *l = r->item;
    char buf[64];
    if (r->kind == ROW_TEXT) {
        snprintf(buf, sizeof buf, "%zu", r->index);
        draw_text_right(w, y, c->line_x, 6, TH_DIM, buf);
    }
    if (l) {
        double share = share_of(st, l);
        if (c->bar_w)
            draw_bar(w, y, c->bar_x, c->bar_w, share);
        draw_text_right(w, y, c->share_x, 6, share >= 0.1 ? TH_WARN : TH_NORMAL,
                        fmt_percent(buf, sizeof buf, share, 1));
        draw_text_right(w, y, c->samples_x, 8, TH_NORMAL, fmt_ucount(buf, sizeof buf, count_of(l)));
    }
    int tw = width - c->text_x - 1;
    if (r->kind == ROW_FUNCTION)
        draw_text(w, y, c->text_x, tw, TH_DIM, "(the whole function: no line information)");
    else if (st->text && r->index <= st->ntext)
        draw_escaped(w, y, c->text_x, tw,
                     app_query_matches(v->app, st->text[r->index - 1].s) ? TH_MATCH : TH_NORMAL,
                     st->text[r->index - 1].s);
}

static void source_draw(view *v, WINDOW *w, int top, int height, int width) {
    source_state *st = v->priv;
    source_cols c = lay_out(width);
    list *l = &v->list;
    int head = 2;
    draw_header(v, w, top, width);
    if (st->open && !st->text && l->nrows) {
        char line[700];
        snprintf(line, sizeof line, " no source text: %s%s", st->why,
                 v->app->source_dir || !st->file_len ? "" : "; --source-dir DIR says where");
        draw_text(w, top + head++, 0, width - 1, TH_WARN, line);
    }
    draw_headings(st, w, top + head, &c, width);
    int list_h = height - head - 1;
    list_scroll_to_cursor(l, list_h);
    if (!l->nrows)
        draw_text(w, top + head + 1, 1, width - 2, TH_DIM, st->msg);
    for (int i = 0; i < list_h && l->top + (size_t)i < l->nvisible; i++) {
        int y = top + head + 1 + i;
        draw_row(v, w, y, &c, &l->rows[l->visible[l->top + (size_t)i]], width);
        if (l->top + (size_t)i == l->cursor)
            style_selected_row(w, y, width);
    }
}

/* ---- keys ------------------------------------------------------------------------ */

/* Puts the cursor on the row of line `line` (or the first row), with a few
 * lines of the function above it. */
static void show_line(view *v, uint32_t line) {
    list *l = &v->list;
    size_t row = 0;
    for (size_t i = 0; i < l->nrows; i++)
        if (l->rows[i].kind == ROW_TEXT && l->rows[i].index == line)
            row = i;
    if (!l->nrows)
        return;
    list_reveal(l, row);
    l->top = l->cursor > 6 ? l->cursor - 6 : 0;
}

void source_view_open(view *v, const hot_scope *sc, const run_line *line, size_t from) {
    source_state *st = v->priv;
    app *a = v->app;
    size_t here = view_of_ops(&source_view_ops);
    char *file = strndup(line->file.s, line->file.len);
    char *function = strndup(line->function.s, line->function.len);
    if (!file || !function) {
        free(file);
        free(function);
        app_message(a, 1, "out of memory");
        return;
    }
    free(st->file);
    free(st->function);
    st->file = file;
    st->file_len = line->file.len;
    st->function = function;
    st->function_len = line->function.len;
    st->line = line->line;
    st->open = 1;
    hot_scope_set(a, &st->scope, sc->role, sc->phase);
    st->scope.attr = sc->attr;
    if (from != here)
        st->from = from;
    a->current = here;
    a->query_len = 0; /* n and N step through the heat here, not a search */
    a->query[0] = '\0';
    if (source_build(v) < 0) {
        app_message(a, 1, "out of memory");
        return;
    }
    show_line(v, line->line);
}

void source_view_show_hottest(app *a, enum run_lines_attr attr, const run_role *role,
                              const run_phase *phase) {
    char msg[512];
    hot_scope sc = {.attr = attr};
    size_t source = view_of_ops(&source_view_ops);
    hot_scope_set(a, &sc, role, phase);
    const run_lines_info *info = hot_lines_info(a, msg, sizeof msg);
    if (info && !info->has_lines) {
        app_message(a, 1, "H: this run has no line samples (%s records them)",
                    run_lines_switch(a->model));
        return;
    }
    run_lines_result r;
    if (hot_lines_select(a, &sc, NULL, RUN_LINES_BY_TIME, &r, msg, sizeof msg) < 0) {
        app_message(a, 1, "H: %s", msg);
        return;
    }
    if (!r.nrows) {
        char path[600];
        if (phase)
            app_message(a, 1, "H: no line samples while %s ran",
                        run_phase_path(phase, path, sizeof path));
        else
            app_message(a, 1, "H: no line samples here");
        run_lines_free(&r);
        return;
    }
    source_view_open(&a->views[source], &sc, &r.rows[0], a->current);
    run_lines_free(&r);
}

/* n (dir 1) and N (-1): the next line down or up the ranking by heat. */
static void step_heat(view *v, int dir) {
    source_state *st = v->priv;
    app *a = v->app;
    if (!st->nrank) {
        app_message(a, 1, "no sampled line here");
        return;
    }
    size_t sel = list_selected(&v->list);
    size_t pos = st->nrank; /* not a sampled line */
    for (size_t i = 0; i < st->nrank; i++)
        if (st->rank[i] == sel)
            pos = i;
    size_t to;
    if (pos == st->nrank)
        to = 0;
    else if (dir > 0 && pos + 1 < st->nrank)
        to = pos + 1;
    else if (dir < 0 && pos > 0)
        to = pos - 1;
    else {
        app_message(a, 1,
                    dir > 0 ? "this is the coldest sampled line (N goes hotter)"
                            : "this is the hottest line (n goes colder)");
        return;
    }
    list_reveal(&v->list, st->rank[to]);
    const run_line *l = v->list.rows[st->rank[to]].item;
    char pct[32];
    app_message(a, 0, "line %zu: %s%zu of %zu by heat, %s of the function's %s",
                v->list.rows[st->rank[to]].index, to == 0 ? "the hottest, " : "", to + 1, st->nrank,
                fmt_percent(pct, sizeof pct, share_of(st, l), 1),
                st->measured ? "measured time" : "samples");
}

static int source_action(view *v, enum action act) {
    source_state *st = v->priv;
    app *a = v->app;
    size_t sel = list_selected(&v->list);
    switch (act) {
    case ACT_SEARCH_NEXT:
    case ACT_SEARCH_PREV:
        if (a->query_len)
            return 0; /* a search typed here: n and N find its matches */
        step_heat(v, act == ACT_SEARCH_NEXT ? 1 : -1);
        return 1;
    case ACT_BACK:
        a->current = st->open ? st->from : view_of_ops(&lines_view_ops);
        return 1;
    case ACT_ENTER:
        return 1;
    case ACT_OPEN_SOURCE:
        if (!st->open || sel == LIST_NONE) {
            app_message(a, 1, "no source shown");
        } else {
            const list_row *r = &v->list.rows[sel];
            run_line l = {
                .file = {st->file, st->file_len},
                .line = r->kind == ROW_TEXT ? (uint32_t)r->index : 0,
                .function = {st->function, st->function_len},
            };
            editor_open_line(a, &l, st->scope.role);
        }
        return 1;
    case ACT_ATTRIBUTION:
        st->scope.attr = st->scope.attr == RUN_LINES_PROJECT ? RUN_LINES_SELF : RUN_LINES_PROJECT;
        if (app_rebuild(v) < 0)
            app_message(a, 1, "out of memory");
        return 1;
    default:
        return 0;
    }
}

static void source_hint(view *v, char *buf, size_t cap) {
    (void)v;
    snprintf(buf, cap, "n/N hotter lines  o edit  <- back");
}

static int source_row_text(view *v, const list_row *r, char *buf, size_t cap) {
    source_state *st = v->priv;
    if (r->kind != ROW_TEXT || !st->text || r->index > st->ntext)
        return 0;
    snprintf(buf, cap, "%s", st->text[r->index - 1].s);
    return 1;
}

static int source_row_key(view *v, const list_row *r, char *buf, size_t cap) {
    (void)v;
    snprintf(buf, cap, "%d:%zu", r->kind, r->index);
    return 1;
}

const view_ops source_view_ops = {
    .narrowed = 1,
    .init = source_init,
    .build = source_build,
    .draw = source_draw,
    .action = source_action,
    .hint = source_hint,
    .row_text = source_row_text,
    .row_key = source_row_key,
    .release = source_release,
};
