/*
 * The Lines view: the hot source lines of the run, one group per role, each
 * line with a bar and its share of the role's samples, ±σ, samples,
 * estimated CPU time, file:line and function, and a detail pane with the
 * line's source text.  By default a sample counts for its innermost line in
 * the project folder (the caller of libm, not libm); `a` shows the line
 * that ran instead.  The process filter narrows it as it does the phase
 * tree; L on a phase narrows it to that phase.  Enter opens the Source view.
 *
 * Lines that line_profiler measured (an imported scope-profiler file) show
 * their exact hits in the samples column and "exact" where a sampled line
 * shows its ±σ: they are counts, not estimates.
 *
 * The run's line data is symbolized the first time the view is drawn (or H
 * or L asks for it), never at start, so a run opened for its phases does not
 * pay for it.
 */
#define _GNU_SOURCE /* memrchr */
#include "view_lines.h"

#include "editor.h"
#include "fmt.h"
#include "hot_lines.h"
#include "layout.h"
#include "lines_sample_count.h"
#include "style.h"
#include "text_escape.h"
#include "view_callers.h"
#include "view_source.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum row_kind { ROW_ROLE, ROW_LINE };

enum sort_key { SORT_TIME, SORT_LINE, SORT_COUNT_ };
static const char *const sort_names[] = {"time", "file and line"};
static_assert(sizeof sort_names / sizeof *sort_names == SORT_COUNT_, "a name per sort order");

/* The detail pane's height, shown when the screen has room for it. */
#define DETAIL_ROWS 5

typedef struct lines_state {
    hot_scope scope; /* which samples; role NULL: a group per role */
    int active;      /* drawn once, or asked for by H or L: the data is loaded */
    /* What the rows were built for: a change rebuilds them when drawn. */
    int built;
    const run_model *built_model;
    size_t built_worker;
    int built_sort;
    enum run_lines_attr built_attr;
    /* One query result per role shown. */
    const run_role **roles;
    run_lines_result *groups;
    size_t ngroups;
    char msg[512]; /* why there are no rows */
    int loc_cols;  /* the widest file:line, for the function's column */
    int fn_cols;   /* the widest function name, for the source text's column */
} lines_state;

/* ---- building -------------------------------------------------------------------- */

static void free_groups(lines_state *st) {
    for (size_t i = 0; i < st->ngroups; i++)
        run_lines_free(&st->groups[i]);
    free(st->groups);
    free(st->roles);
    st->groups = NULL;
    st->roles = NULL;
    st->ngroups = 0;
}

/* The module's file name, without its folder. */
static run_str module_name(run_str module) {
    const char *slash = module.len ? memrchr(module.s, '/', module.len) : NULL;
    return slash ? (run_str){slash + 1, module.len - (size_t)(slash + 1 - module.s)} : module;
}

/* "learner.c:42", or the module's file name for a line without debug info. */
static const char *location(app *a, const run_line *l, char *buf, size_t cap) {
    char file[600];
    if (!l->file.len || !l->line) {
        run_str base = module_name(l->module);
        char mod[300];
        snprintf(buf, cap, "(%s)", base.len ? style_escape(base, mod, sizeof mod) : "unknown");
        return buf;
    }
    snprintf(buf, cap, "%s:%u", hot_file_shown(a, l->file, file, sizeof file), l->line);
    return buf;
}

static int lines_init(view *v) {
    lines_state *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->scope.attr = RUN_LINES_PROJECT;
    st->scope.worker = SIZE_MAX;
    v->priv = st;
    return 0;
}

static void lines_release(view *v) {
    free_groups(v->priv);
}

static int lines_build(view *v) {
    lines_state *st = v->priv;
    app *a = v->app;
    list_clear(&v->list);
    free_groups(st);
    st->msg[0] = '\0';
    st->built = 0;
    st->loc_cols = 8;
    st->fn_cols = 0;
    if (!st->active)
        return list_done(&v->list);
    if (hot_scope_resolve(a, &st->scope))
        app_message(a, 0, "the phase the lines were narrowed to is gone: every sample shown");
    st->built = 1;
    st->built_model = a->model;
    st->built_worker = a->focus_worker;
    st->built_sort = v->sort;
    st->built_attr = st->scope.attr;
    const run_lines_info *info = hot_lines_info(a, st->msg, sizeof st->msg);
    if (!info)
        return list_done(&v->list);
    if (!info->has_lines) {
        hot_lines_none(a, st->msg, sizeof st->msg);
        return list_done(&v->list);
    }
    const run_model *m = a->model;
    size_t n = st->scope.role || a->focus_worker != SIZE_MAX ? 1 : m->nroles;
    st->roles = calloc(n + 1, sizeof *st->roles);
    st->groups = calloc(n + 1, sizeof *st->groups);
    if (!st->roles || !st->groups)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const run_role *role = st->scope.role ? st->scope.role
                               : a->focus_worker != SIZE_MAX
                                   ? run_worker_role(a->model, a->focus_worker)
                                   : &m->roles[i];
        if (!role)
            continue;
        hot_scope one = st->scope;
        one.role = role;
        st->roles[st->ngroups] = role;
        run_lines_result *r = &st->groups[st->ngroups++];
        char msg[512];
        if (hot_lines_select(a, &one, NULL,
                             v->sort == SORT_LINE ? RUN_LINES_BY_LINE : RUN_LINES_BY_TIME, r, msg,
                             sizeof msg) < 0) {
            *r = (run_lines_result){.period_ns = NAN};
            snprintf(st->msg, sizeof st->msg, "%s", msg);
        }
        size_t row = list_add(&v->list, 0, ROW_ROLE, role, st->ngroups - 1);
        if (row == LIST_NONE)
            return -1;
        v->list.rows[row].expanded = 1;
        for (size_t j = 0; j < r->nrows; j++) {
            if (list_add(&v->list, 1, ROW_LINE, &r->rows[j], st->ngroups - 1) == LIST_NONE)
                return -1;
            char loc[700], fn[600];
            int w = (int)fmt_width(location(a, &r->rows[j], loc, sizeof loc));
            if (w > st->loc_cols)
                st->loc_cols = w;
            w = (int)fmt_width(style_escape(r->rows[j].function, fn, sizeof fn));
            if (w > st->fn_cols)
                st->fn_cols = w;
        }
    }
    return list_done(&v->list);
}

/* Builds the rows when they are not what the screen should show: first
 * drawn, a new model, process filter, sort or attribution. */
static void ensure_built(view *v) {
    lines_state *st = v->priv;
    app *a = v->app;
    st->active = 1;
    if (st->built && st->built_model == a->model && st->built_worker == a->focus_worker &&
        st->built_sort == v->sort && st->built_attr == st->scope.attr)
        return;
    if (app_rebuild(v) < 0)
        app_message(a, 1, "out of memory");
}

/* ---- columns --------------------------------------------------------------------- */

enum { COL_BAR, COL_SHARE, COL_SD, COL_SAMPLES, COL_TIME, NCOL };
#define NAME_MIN 40

static layout lay_out(int width) {
    layout_column cols[NCOL] = {
        [COL_BAR] = {"", 10, 3, 0, 0},
        [COL_SHARE] = {"share", 6, 0, 1, 0},
        [COL_SD] = {style_utf8 ? "±" : "+-", 6, 1, 1, 0},
        [COL_SAMPLES] = {"samples", 9, 2, 1, 0},
        [COL_TIME] = {"time", 8, 0, 1, 0},
    };
    return layout_fit(cols, NCOL, width - 1, 1, NAME_MIN);
}

static void put_col(WINDOW *w, int y, const layout *L, size_t c, enum theme_element el,
                    const char *s) {
    if (L->shown[c])
        draw_text_right(w, y, L->x[c], L->width[c], el, s);
}

/* Time a group holds: sampled lines' estimate and measured lines' time. */
static double group_seconds(const run_lines_result *g) {
    return g->seconds + g->measured_seconds;
}

static const char *sd_text(double sd, char *buf, size_t cap) {
    char pct[32];
    if (isnan(sd))
        return snprintf(buf, cap, FMT_NA), buf;
    snprintf(buf, cap, "%s%s", style_utf8 ? "±" : "+-", fmt_percent(pct, sizeof pct, sd, 1));
    return buf;
}

/* ---- drawing --------------------------------------------------------------------- */

/* The file:line column: as wide as the widest, leaving the function at
 * least FUNCTION_MIN columns; a longer path loses its first folders. */
#define FUNCTION_MIN 20
static int loc_width(const lines_state *st, const layout *L) {
    int room = L->name_width - 3 - 2 - FUNCTION_MIN;
    return st->loc_cols < room ? st->loc_cols : room > 8 ? room : 8;
}

/* On a wide screen each line's source text follows its function, as in
 * the detail pane, so the hot lines read without moving the cursor: when
 * the function's column, as wide as the widest name (at most
 * FUNCTION_MAX), leaves SOURCE_MIN columns of the name area.  Returns the
 * source text's column, or -1 when there is no room (80 and 120 columns
 * keep the function alone). */
#define SOURCE_MIN   50
#define FUNCTION_MAX 60
static int source_x(const lines_state *st, const layout *L) {
    if (!st->fn_cols) /* no line to show the text of */
        return -1;
    int fn_w = st->fn_cols < FUNCTION_MAX ? st->fn_cols : FUNCTION_MAX;
    if (fn_w < (int)strlen("function"))
        fn_w = (int)strlen("function");
    int x = 3 + loc_width(st, L) + 2 + fn_w + 2;
    return L->name_width - 1 - x >= SOURCE_MIN ? x : -1;
}

/* The text of a line, without its indentation, in `cols` columns; nothing
 * when the file is not here (the detail pane says why). */
static void draw_source_text(app *a, WINDOW *w, int y, int x, int cols, const run_line *l) {
    if (!l->line || !l->file.len)
        return;
    const run_str *text;
    char why[512];
    size_t n = run_lines_source(a->model, l->file, &text, why, sizeof why);
    if (n < l->line)
        return;
    const char *s = text[l->line - 1].s;
    while (*s == ' ' || *s == '\t')
        s++;
    draw_escaped(w, y, x, cols, TH_NORMAL, s);
}

/* A location in `cols` columns: when it is wider, its end (the file's name
 * and line) after an ellipsis. */
static void draw_location(WINDOW *w, int y, int x, int cols, enum theme_element el,
                          const char *loc) {
    const char *s = loc;
    int dots = style_utf8 ? 1 : 3;
    if ((int)fmt_width(s) > cols && cols > dots) {
        while (*s && (int)fmt_width(s) > cols - dots)
            do
                s++;
            while ((*s & 0xC0) == 0x80);
        x += draw_text(w, y, x, dots, el, style_utf8 ? "…" : "...");
        cols -= dots;
    }
    draw_text(w, y, x, cols, el, s);
}

static void draw_line_row(view *v, WINDOW *w, int y, const layout *L, const list_row *r) {
    lines_state *st = v->priv;
    app *a = v->app;
    const run_line *l = r->item;
    char loc[700], fn[600], buf[64];
    location(a, l, loc, sizeof loc);
    style_escape(l->function, fn, sizeof fn);
    int x = 3;
    int loc_w = loc_width(st, L);
    draw_location(w, y, x, loc_w, l->approximate ? TH_DIM : TH_NORMAL, loc);
    x += loc_w + 2;
    int src = source_x(st, L);
    int fn_end = src >= 0 ? src - 2 : L->name_width;
    if (x < fn_end) {
        int match = app_query_matches(a, fn);
        /* A long C++ name loses its parameters, then its middle: never
         * the columns beside it. */
        fmt_function(fn, sizeof fn, l->function, (size_t)(fn_end - x),
                     style_utf8 ? 0 : SCOPE_ESCAPE_ASCII, style_utf8);
        draw_text(w, y, x, fn_end - x, match ? TH_MATCH : TH_NORMAL, fn);
    }
    if (src >= 0)
        draw_source_text(a, w, y, src, L->name_width - 1 - src, l);
    if (L->shown[COL_BAR])
        draw_bar(w, y, L->x[COL_BAR], L->width[COL_BAR], l->share);
    put_col(w, y, L, COL_SHARE, TH_NORMAL, fmt_percent(buf, sizeof buf, l->share, 1));
    int measured = l->kind == RUN_LINE_MEASURED;
    put_col(w, y, L, COL_SD, TH_DIM, measured ? "exact" : sd_text(l->share_sd, buf, sizeof buf));
    put_col(w, y, L, COL_SAMPLES, TH_NORMAL,
            fmt_ucount(buf, sizeof buf, measured ? l->hits : l->samples));
    put_col(w, y, L, COL_TIME, TH_NORMAL, fmt_duration(buf, sizeof buf, l->seconds * 1e9));
}

static void draw_role_row(view *v, WINDOW *w, int y, const layout *L, const list_row *r) {
    lines_state *st = v->priv;
    const run_role *role = r->item;
    const run_lines_result *g = &st->groups[r->index];
    char title[256], text[600], n[48], out[48], buf[64];
    fmt_title(title, sizeof title, role->name);
    if (!g->samples && g->hits)
        snprintf(text, sizeof text, "%s x%zu  %s hit%s measured", title, role->nprocs,
                 fmt_ucount(n, sizeof n, g->hits), fmt_plural(g->hits));
    else if (!g->samples)
        snprintf(text, sizeof text, "%s x%zu  no line samples", title, role->nprocs);
    else if (g->outside_project)
        snprintf(text, sizeof text, "%s x%zu  %s sample%s, %s outside the project", title,
                 role->nprocs, fmt_ucount(n, sizeof n, g->samples), fmt_plural(g->samples),
                 fmt_ucount(out, sizeof out, g->outside_project));
    else
        snprintf(text, sizeof text, "%s x%zu  %s sample%s", title, role->nprocs,
                 fmt_ucount(n, sizeof n, g->samples), fmt_plural(g->samples));
    int limit = L->x[COL_TIME] - 1;
    draw_text(w, y, 1, limit - 1, app_query_matches(v->app, title) ? TH_MATCH : TH_ROLE, text);
    if (g->samples || g->hits)
        put_col(w, y, L, COL_TIME, TH_ROLE, fmt_duration(buf, sizeof buf, group_seconds(g) * 1e9));
}

/* The line above the table: the attribution, the samples and the filter. */
static void draw_summary(view *v, WINDOW *w, int y, int width) {
    lines_state *st = v->priv;
    app *a = v->app;
    const run_lines_info *info = a->lines_model == a->model ? &a->lines_info : NULL;
    char line[1600], n[48], path[1100];
    int len = snprintf(line, sizeof line, " %s",
                       st->scope.attr == RUN_LINES_PROJECT
                           ? "by the project's line (a: by the line that ran)"
                           : "by the line that ran (a: by the project's line)");
    if (info && info->measured_lines && !info->samples)
        len = snprintf(line, sizeof line,
                       " measured by line_profiler: exact hits and time of %s lines in %zu "
                       "process%s",
                       fmt_ucount(n, sizeof n, info->measured_lines), info->measured_workers,
                       info->measured_workers == 1 ? "" : "es");
    else if (info && info->has_lines) {
        len += snprintf(line + len, sizeof line - (size_t)len, "  run: %s sample%s",
                        fmt_ucount(n, sizeof n, info->samples), fmt_plural(info->samples));
        if (info->hz)
            len += snprintf(line + len, sizeof line - (size_t)len, " at %u Hz", info->hz);
        if (info->dropped)
            len += snprintf(line + len, sizeof line - (size_t)len, ", %s dropped",
                            fmt_ucount(n, sizeof n, info->dropped));
        /* Most telling first, as a narrow screen cuts the end: too few
         * samples, the roles' order, then the caveats loading the lines
         * found (the header counts the run's; Overview lists these). */
        double sd50;
        if (lines_too_few(info->samples, info->per_signal, &sd50))
            len += snprintf(line + len, sizeof line - (size_t)len,
                            ", too few: a 50%% share is +-%.1f%% (Overview says how to get more)",
                            sd50);
        if (a->model->roles_by_samples && a->model->nroles > 1)
            len += snprintf(line + len, sizeof line - (size_t)len, "; roles by samples");
        size_t found = a->model->ncaveats - app_run_caveats(a);
        if (found)
            len +=
                snprintf(line + len, sizeof line - (size_t)len, "; %zu line caveat%s (6 lists %s)",
                         found, found == 1 ? "" : "s", found == 1 ? "it" : "them");
    }
    draw_blank(w, y, 0, width, st->scope.phase || st->scope.role ? TH_FILTER : TH_NORMAL);
    if (st->scope.phase || st->scope.role) {
        char role[300];
        fmt_title(role, sizeof role, st->scope.role->name);
        snprintf(line, sizeof line, " only %s%s%s  %s", role, st->scope.phase ? ", phase " : "",
                 st->scope.phase ? run_phase_path(st->scope.phase, path, sizeof path) : "",
                 st->scope.attr == RUN_LINES_PROJECT ? "by the project's line"
                                                     : "by the line that ran");
        draw_text(w, y, 0, width - 14, TH_FILTER, line);
        draw_text_right(w, y, width - 14, 13, TH_FILTER, "Esc clears");
        return;
    }
    draw_text(w, y, 0, width - 1, TH_DIM, line);
}

/* The headings, the sorted one marked: time, hottest first, or the
 * lines in file and line order. */
static void draw_headings(const view *v, WINDOW *w, int y, const layout *L, int width) {
    const lines_state *st = v->priv;
    draw_blank(w, y, 0, width, TH_COLUMNS);
    char head[128], line_head[48], time_head[32];
    int loc_w = loc_width(st, L);
    snprintf(line_head, sizeof line_head, "role / line%s%s", v->sort == SORT_LINE ? " " : "",
             v->sort == SORT_LINE ? style_sort_marker(1) : "");
    /* printf pads by bytes: the marker's bytes beyond its one column too. */
    int pad = loc_w + 4 + (int)(strlen(line_head) - fmt_width(line_head));
    snprintf(head, sizeof head, "%-*sfunction", pad, line_head);
    draw_text(w, y, 1, L->name_width - 1, TH_COLUMNS, head);
    int src = source_x(st, L);
    if (src >= 0)
        draw_text(w, y, src, L->name_width - 1 - src, TH_COLUMNS, "source");
    snprintf(time_head, sizeof time_head, "%stime",
             v->sort == SORT_TIME ? style_sort_marker(0) : "");
    /* Measured lines show hits where sampled ones show samples. */
    int sampled = 0, measured = 0;
    for (size_t i = 0; i < st->ngroups; i++) {
        sampled |= st->groups[i].samples > 0;
        measured |= st->groups[i].hits > 0;
    }
    const char *count_head = !measured ? "samples" : sampled ? "smp|hits" : "hits";
    const char *const headings[NCOL] = {"", "share", "", count_head, time_head};
    for (size_t c = 0; c < NCOL; c++)
        put_col(w, y, L, c, TH_COLUMNS, c == COL_SD ? (style_utf8 ? "±" : "+-") : headings[c]);
}

static void detail_line(view *v, WINDOW *w, int y, int width, const list_row *r) {
    lines_state *st = v->priv;
    app *a = v->app;
    const run_line *l = r->item;
    const run_lines_result *g = &st->groups[r->index];
    char file[700], fn[600], line[1600], b[4][48];
    hot_file_shown(a, l->file, file, sizeof file);
    style_escape(l->function, fn, sizeof fn);
    if (l->line)
        snprintf(line, sizeof line, "%s:%u  in %s", file, l->line, fn);
    else
        snprintf(line, sizeof line, "%s  (no line information)", fn);
    draw_text(w, y, 1, width - 2, TH_ROLE, line);
    if (l->line && l->file.len) {
        const run_str *text;
        char why[512];
        size_t n = run_lines_source(a->model, l->file, &text, why, sizeof why);
        if (n >= l->line)
            draw_escaped(w, y + 1, 1, width - 2, TH_NORMAL, text[l->line - 1].s);
        else
            draw_text(w, y + 1, 1, width - 2, TH_DIM,
                      n ? "the source file is shorter than this line: it changed since the run"
                        : why);
    }
    char role[256];
    fmt_title(role, sizeof role, st->roles[r->index]->name);
    char sd[48], cpu[48];
    if (l->kind == RUN_LINE_MEASURED) {
        snprintf(
            line, sizeof line, "%s hits of %s in %s, %s of the %s measured (exact)",
            fmt_ucount(b[0], 48, l->hits), role, fmt_duration(cpu, sizeof cpu, l->seconds * 1e9),
            fmt_percent(b[2], 48, l->share, 1), fmt_duration(b[1], 48, g->measured_seconds * 1e9));
        draw_text(w, y + 2, 1, width - 2, TH_NORMAL, line);
        draw_text(w, y + 3, 1, width - 2, TH_DIM,
                  "measured by line_profiler: every hit counted and timed, no sampling");
        return;
    }
    snprintf(line, sizeof line, "%s of %s sample%s of %s: %s %s, about %s of CPU",
             fmt_ucount(b[0], 48, l->samples), fmt_ucount(b[1], 48, g->samples),
             fmt_plural(g->samples), role, fmt_percent(b[2], 48, l->share, 1),
             sd_text(l->share_sd, sd, sizeof sd), fmt_duration(cpu, sizeof cpu, l->seconds * 1e9));
    draw_text(w, y + 2, 1, width - 2, TH_NORMAL, line);
    char mod[700];
    if (!l->module.len)
        snprintf(line, sizeof line, "in no module the process recorded: no line information");
    else if (l->approximate)
        snprintf(line, sizeof line,
                 "function only: %s: no debug info here (-g or a debug file gives lines), or "
                 "it changed",
                 style_escape(l->module, mod, sizeof mod));
    else
        snprintf(line, sizeof line, "in %s", style_escape(module_name(l->module), mod, sizeof mod));
    if (l->linkage.len && !run_str_eq(l->linkage, l->function)) {
        char linkage[600];
        snprintf(line + strlen(line), sizeof line - strlen(line), ", symbol %s",
                 style_escape(l->linkage, linkage, sizeof linkage));
    }
    draw_text(w, y + 3, 1, width - 2, l->approximate ? TH_WARN : TH_DIM, line);
}

static void detail_role(view *v, WINDOW *w, int y, int width, const list_row *r) {
    lines_state *st = v->priv;
    app *a = v->app;
    const run_lines_result *g = &st->groups[r->index];
    const run_lines_info *info = &a->lines_info;
    char title[256], line[1200], b[4][48];
    fmt_title(title, sizeof title, ((const run_role *)r->item)->name);
    if (!g->samples && g->hits) {
        snprintf(line, sizeof line, "%s: %s hit%s in %s measured by line_profiler (exact)", title,
                 fmt_ucount(b[0], 48, g->hits), fmt_plural(g->hits),
                 fmt_duration(b[1], 48, g->measured_seconds * 1e9));
        draw_text(w, y++, 1, width - 2, TH_ROLE, line);
        snprintf(line, sizeof line, "run: %s measured lines in %zu process%s",
                 fmt_ucount(b[0], 48, info->measured_lines), info->measured_workers,
                 info->measured_workers == 1 ? "" : "es");
        draw_text(w, y++, 1, width - 2, TH_DIM, line);
        return;
    }
    snprintf(line, sizeof line, "%s: %s sample%s, about %s of CPU", title,
             fmt_ucount(b[0], 48, g->samples), fmt_plural(g->samples),
             fmt_duration(b[1], 48, g->seconds * 1e9));
    if (!isnan(g->period_ns))
        snprintf(line + strlen(line), sizeof line - strlen(line), ", one sample per %s",
                 fmt_duration(b[2], 48, g->period_ns));
    draw_text(w, y++, 1, width - 2, TH_ROLE, line);
    if (g->outside_project) {
        snprintf(line, sizeof line,
                 "%s sample%s had no frame in the project folder: counted by the line that ran",
                 fmt_ucount(b[0], 48, g->outside_project), fmt_plural(g->outside_project));
        draw_text(w, y++, 1, width - 2, TH_NORMAL, line);
    }
    snprintf(line, sizeof line,
             "run: %zu process%s sampled, %s sample%s dropped, %s stack%s cut, %zu module%s "
             "unsymbolized",
             info->sampled_workers, info->sampled_workers == 1 ? "" : "es",
             fmt_ucount(b[0], 48, info->dropped), fmt_plural(info->dropped),
             fmt_ucount(b[1], 48, info->truncated), fmt_plural(info->truncated), info->unsymbolized,
             info->unsymbolized == 1 ? "" : "s");
    draw_text(w, y++, 1, width - 2,
              info->dropped || info->truncated || info->unsymbolized ? TH_WARN : TH_DIM, line);
    if (info->project.len) {
        char project[700];
        snprintf(line, sizeof line, "project folder %s",
                 style_escape(info->project, project, sizeof project));
        draw_text(w, y, 1, width - 2, TH_DIM, line);
    }
}

/* Why there are no rows, broken into lines at ": " and ", " where the screen
 * is too narrow for it. */
static void draw_message(WINDOW *w, int y, int width, const char *msg) {
    char rest[600];
    snprintf(rest, sizeof rest, "%s", msg);
    char *s = rest;
    for (int i = 0; i < 4 && *s; i++) {
        char *cut = NULL;
        if ((int)fmt_width(s) > width - 2)
            for (char *p = s; (p = strpbrk(p, ":,")) && p[1] == ' '; p++)
                if ((int)(p - s) < width - 3)
                    cut = p + 1;
        if (cut)
            *cut = '\0';
        draw_text(w, y + i, 1, width - 2, TH_DIM, s);
        if (!cut)
            break;
        s = cut + 1;
        while (*s == ' ')
            s++;
    }
}

static void lines_draw(view *v, WINDOW *w, int top, int height, int width) {
    lines_state *st = v->priv;
    char none[300];
    ensure_built(v);
    layout L = lay_out(width);
    int detail = height >= 18 ? DETAIL_ROWS : 0;
    int list_h = height - 2 - detail;
    draw_summary(v, w, top, width);
    draw_headings(v, w, top + 1, &L, width);
    list *l = &v->list;
    list_scroll_to_cursor(l, list_h);
    if (!l->nrows)
        draw_message(w, top + 2, width,
                     st->msg[0] ? st->msg : hot_lines_none(v->app, none, sizeof none));
    for (int i = 0; i < list_h && l->top + (size_t)i < l->nvisible; i++) {
        const list_row *r = &l->rows[l->visible[l->top + (size_t)i]];
        int y = top + 2 + i;
        if (r->kind == ROW_ROLE)
            draw_role_row(v, w, y, &L, r);
        else
            draw_line_row(v, w, y, &L, r);
        if (l->top + (size_t)i == l->cursor)
            style_selected_row(w, y, width);
    }
    if (detail) {
        int y = top + height - detail;
        draw_rule(w, y, width);
        size_t sel = list_selected(l);
        if (sel != LIST_NONE && l->rows[sel].kind == ROW_LINE)
            detail_line(v, w, y + 1, width, &l->rows[sel]);
        else if (sel != LIST_NONE)
            detail_role(v, w, y + 1, width, &l->rows[sel]);
    }
}

/* ---- keys -------------------------------------------------------------------------- */

/* Shows the view with its scope set to the role and phase (either NULL). */
static void lines_view_narrow(view *v, const run_role *role, const run_phase *phase) {
    lines_state *st = v->priv;
    app *a = v->app;
    hot_scope_set(a, &st->scope, role, phase);
    st->active = 1;
    a->current = view_of_ops(&lines_view_ops);
    if (app_rebuild(v) < 0)
        app_message(a, 1, "out of memory");
    list_home(&v->list);
}

/* The attribution the Lines view shows (a toggles it). */
static enum run_lines_attr lines_view_attr(view *v) {
    return ((lines_state *)v->priv)->scope.attr;
}

void lines_view_show_hottest(app *a, const run_role *role, const run_phase *phase) {
    size_t lines = view_of_ops(&lines_view_ops);
    source_view_show_hottest(a, lines_view_attr(&a->views[lines]), role, phase);
}

void lines_view_show_phase(app *a, const run_role *role, const run_phase *phase) {
    size_t lines = view_of_ops(&lines_view_ops);
    lines_view_narrow(&a->views[lines], role, phase);
}

static int lines_action(view *v, enum action act) {
    lines_state *st = v->priv;
    app *a = v->app;
    size_t sel = list_selected(&v->list);
    const list_row *r = sel == LIST_NONE ? NULL : &v->list.rows[sel];
    switch (act) {
    case ACT_ENTER:
        if (!r || r->kind != ROW_LINE)
            return 0;
        {
            hot_scope one = st->scope;
            one.role = st->roles[r->index];
            source_view_open(&a->views[view_of_ops(&source_view_ops)], &one, r->item, a->current);
        }
        return 1;
    case ACT_CALLERS:
        if (!r || r->kind != ROW_LINE) {
            app_message(a, 1, "c shows a function's callers: select a line");
            return 1;
        }
        {
            const run_line *l = r->item;
            if (l->kind == RUN_LINE_MEASURED) {
                app_message(a, 1, "a measured line has no stacks: its callers are not known");
                return 1;
            }
            hot_scope one = st->scope;
            one.role = st->roles[r->index];
            callers_view_open(a, &one, l->function, l->file, l->module, a->current);
        }
        return 1;
    case ACT_ATTRIBUTION:
        st->scope.attr = st->scope.attr == RUN_LINES_PROJECT ? RUN_LINES_SELF : RUN_LINES_PROJECT;
        if (app_rebuild(v) < 0)
            app_message(a, 1, "out of memory");
        else
            app_message(a, 0, "%s",
                        st->scope.attr == RUN_LINES_PROJECT
                            ? "each sample counts for its innermost line in the project folder"
                            : "each sample counts for the line that ran, wherever it is");
        return 1;
    case ACT_CLEAR:
        if (st->scope.phase || st->scope.role) {
            hot_scope_set(a, &st->scope, NULL, NULL);
            if (app_rebuild(v) < 0)
                app_message(a, 1, "out of memory");
            else
                app_message(a, 0, "phase filter cleared: every sample of each role");
            return 1;
        }
        if (a->focus_worker != SIZE_MAX) {
            size_t here = a->current;
            app_set_focus(a, SIZE_MAX);
            a->current = here;
            app_message(a, 0, "process filter cleared: every process of each role");
            return 1;
        }
        return 0;
    case ACT_OPEN_SOURCE:
        if (!r || r->kind != ROW_LINE)
            app_message(a, 1, "o opens a line's source: select a line");
        else
            editor_open_line(a, r->item, st->roles[r->index]);
        return 1;
    case ACT_HOTTEST:
        lines_view_show_hottest(a, st->scope.role, st->scope.phase);
        return 1;
    default:
        return 0;
    }
}

static void lines_hint(view *v, char *buf, size_t cap) {
    lines_state *st = v->priv;
    snprintf(buf, cap, "Enter source  a %s  s sort:%s  H hottest",
             st->scope.attr == RUN_LINES_PROJECT ? "self" : "project", sort_names[v->sort]);
}

static int lines_row_text(view *v, const list_row *r, char *buf, size_t cap) {
    if (r->kind == ROW_ROLE) {
        fmt_title(buf, cap, ((const run_role *)r->item)->name);
        return 1;
    }
    const run_line *l = r->item;
    char fn[600], loc[700];
    style_escape(l->function, fn, sizeof fn);
    snprintf(buf, cap, "%s %s", fn, location(v->app, l, loc, sizeof loc));
    return 1;
}

static int lines_row_key(view *v, const list_row *r, char *buf, size_t cap) {
    lines_state *st = v->priv;
    char role[256];
    style_escape(st->roles[r->index]->name, role, sizeof role);
    if (r->kind == ROW_ROLE) {
        snprintf(buf, cap, "%s", role);
        return 1;
    }
    const run_line *l = r->item;
    char file[600], fn[600];
    style_escape(l->file, file, sizeof file);
    style_escape(l->function, fn, sizeof fn);
    snprintf(buf, cap, "%s\x1f%s\x1f%u\x1f%s", role, file, l->line, fn);
    return 1;
}

const view_ops lines_view_ops = {
    .narrowed = 1,
    .init = lines_init,
    .build = lines_build,
    .draw = lines_draw,
    .action = lines_action,
    .hint = lines_hint,
    .row_text = lines_row_text,
    .row_key = lines_row_key,
    .release = lines_release,
    .sorts = sort_names,
    .nsorts = SORT_COUNT_,
};
