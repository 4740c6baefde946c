/*
 * The Phases view: each role's merged phase tree, roles at the top (process
 * count, imbalance), phases below with their figures, counters under their
 * phase, and a detail pane for the selected row (histogram, spread across
 * processes, source).  With a process filter on, the tree is that process's
 * alone (run_worker_role).  Figures are the model's, printed with fmt.h as
 * the text report prints them.
 */
#define _GNU_SOURCE /* qsort_r */
#include "browser.h"
#include "counter_cells.h"
#include "editor.h"
#include "fmt.h"
#include "layout.h"
#include "phase_columns.h"
#include "run_partial.h"
#include "style.h"
#include "view_lines.h"
#include "view_phases.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum row_kind { ROW_ROLE, ROW_PHASE, ROW_COUNTER };

/* Sort orders, cycled by `s`. */
enum sort_key {
    SORT_TOTAL,
    SORT_SELF,
    SORT_WAIT,
    SORT_P99,
    SORT_COUNT,
    SORT_IMBALANCE,
    SORT_NAME,
    SORT_COUNT_
};
static const char *const sort_names[] = {
    "total", "self", "wait", "p99", "count", "imbalance (roles)", "name"};
static_assert(sizeof sort_names / sizeof *sort_names == SORT_COUNT_, "a name per sort order");

/* The detail pane's height, shown when the screen has room for it. */
#define DETAIL_ROWS 7

/* The view's own state (v->priv). */
typedef struct phases_state {
    /* Set when the rows are built.  The widest entry count in the tree, so
     * counts in the billions keep every digit; the widest spread cell (0
     * when no role has two processes); the columns the widest name needs
     * with its indent, so a wide terminal keeps the figures near the
     * names; whether any row is a counter (their headings take a row);
     * whether any phase measured its run delay (the queued column). */
    int count_cols, spread_cols, name_cols;
    int has_counters, has_queued;
} phases_state;

/* ---- building ----------------------------------------------------------------- */

static double phase_key(const run_phase *p, int sort) {
    switch (sort) {
    case SORT_SELF:
        return (double)p->self_ns;
    case SORT_WAIT:
        return isnan(p->wait) ? -1 : p->wait;
    case SORT_P99:
        return isnan(p->dist.p99_ns) ? -1 : p->dist.p99_ns;
    case SORT_COUNT:
        return (double)p->dist.count;
    default:
        return (double)p->dist.total_ns;
    }
}

/* qsort_r's comparison, in the view's order (largest first, names A to Z)
 * or its reverse; ctx is the view. */
static int by_sort_key(const void *x, const void *y, void *ctx) {
    const run_phase *a = *(const run_phase *const *)x, *b = *(const run_phase *const *)y;
    const view *v = ctx;
    int c = 0;
    if (v->sort == SORT_NAME)
        c = run_str_cmp(a->name, b->name);
    double ka = phase_key(a, v->sort), kb = phase_key(b, v->sort);
    if (!c && ka != kb)
        c = ka < kb ? 1 : -1;
    if (c)
        return v->reverse ? -c : c;
    return run_str_cmp(a->name, b->name);
}

static int add_phase(view *v, const run_phase *p);

/* A phase's children, in the view's sort order. */
static int add_children(view *v, const run_phase *p) {
    if (!p->nchildren)
        return 0;
    const run_phase **kids = malloc(p->nchildren * sizeof *kids);
    if (!kids)
        return -1;
    memcpy(kids, p->children, p->nchildren * sizeof *kids);
    qsort_r(kids, p->nchildren, sizeof *kids, by_sort_key, v);
    int rc = 0;
    for (size_t i = 0; i < p->nchildren && rc == 0; i++)
        rc = add_phase(v, kids[i]);
    free(kids);
    return rc;
}

/* A phase, its counters right under it (as the report lists them), then
 * its children. */
static int add_phase(view *v, const run_phase *p) {
    if (list_add(&v->list, p->depth, ROW_PHASE, p, 0) == LIST_NONE)
        return -1;
    for (size_t i = 0; i < p->ncounters; i++)
        if (list_add(&v->list, p->depth + 1, ROW_COUNTER, &p->counters[i], 0) == LIST_NONE)
            return -1;
    return add_children(v, p);
}

/* qsort_r's comparison; ctx is the view, whose reverse turns it round. */
static int by_role_order(const void *x, const void *y, void *ctx) {
    const run_role *a = *(const run_role *const *)x, *b = *(const run_role *const *)y;
    const view *v = ctx;
    int c = 0;
    if (v->sort == SORT_NAME)
        c = run_str_cmp(a->name, b->name);
    if (v->sort == SORT_IMBALANCE) {
        double ia = isnan(a->imbalance) ? -1 : a->imbalance;
        double ib = isnan(b->imbalance) ? -1 : b->imbalance;
        if (ia != ib)
            c = ia < ib ? 1 : -1;
    }
    if (!c && a->phase_ns != b->phase_ns)
        c = a->phase_ns < b->phase_ns ? 1 : -1;
    if (c)
        return v->reverse ? -c : c;
    return run_str_cmp(a->name, b->name);
}

static int add_role(view *v, const run_role *r) {
    size_t row = list_add(&v->list, 0, ROW_ROLE, r, 0);
    if (row == LIST_NONE)
        return -1;
    for (size_t i = 0; i < r->nunattached; i++)
        if (list_add(&v->list, 1, ROW_COUNTER, &r->unattached[i], 0) == LIST_NONE)
            return -1;
    size_t first = v->list.nrows;
    if (add_children(v, r->root) < 0)
        return -1;
    /* Opened at first: the role and two levels of phases, so the first
     * screen shows where the time goes without a key pressed. */
    v->list.rows[row].expanded = 1;
    for (size_t i = first; i < v->list.nrows; i++)
        if (v->list.rows[i].depth <= 2)
            v->list.rows[i].expanded = 1;
    return 0;
}

/* The columns a row's name takes from the screen's left edge: the
 * indent, the tree's mark and the name (draw_phase_row). */
static int name_cols(const list_row *r) {
    char name[512];
    run_str s = r->kind == ROW_PHASE ? ((const run_phase *)r->item)->name
                                     : ((const run_counter *)r->item)->name;
    style_escape(s, name, sizeof name);
    return 2 * (int)r->depth + 2 + (int)fmt_width(name);
}

/* The widths these roles' trees need: the count column's, the spread's,
 * the names'; and whether a counter is among the rows. */
static void measure(view *v, const run_role *const *roles, size_t n) {
    phases_state *st = v->priv;
    st->count_cols = 11;
    st->spread_cols = 0;
    st->has_queued = 0;
    for (size_t i = 0; i < n; i++) {
        st->has_queued |= phase_queued_measured(roles[i]->root);
        int w = phase_count_width(roles[i]->root);
        if (w > st->count_cols)
            st->count_cols = w;
        w = roles[i]->nprocs > 1 && v->app->focus_worker == SIZE_MAX
                ? phase_spread_width(roles[i]->root, roles[i]->nprocs)
                : 0;
        if (w > st->spread_cols)
            st->spread_cols = w;
    }
    st->name_cols = 0;
    st->has_counters = 0;
    for (size_t i = 0; i < v->list.nrows; i++) {
        const list_row *r = &v->list.rows[i];
        if (r->kind == ROW_ROLE)
            continue;
        st->has_counters |= r->kind == ROW_COUNTER;
        int w = name_cols(r);
        if (w > st->name_cols)
            st->name_cols = w;
    }
}

static int phases_init(view *v) {
    v->priv = calloc(1, sizeof(phases_state));
    return v->priv ? 0 : -1;
}

static int phases_build(view *v) {
    app *a = v->app;
    list_clear(&v->list);
    const run_model *m = a->model;
    if (a->focus_worker != SIZE_MAX) {
        const run_role *r = run_worker_role(a->model, a->focus_worker);
        if (!r || add_role(v, r) < 0)
            return -1;
        measure(v, &r, 1);
        return list_done(&v->list);
    }
    const run_role **roles = malloc((m->nroles + 1) * sizeof *roles);
    if (!roles)
        return -1;
    for (size_t i = 0; i < m->nroles; i++)
        roles[i] = &m->roles[i];
    qsort_r(roles, m->nroles, sizeof *roles, by_role_order, v);
    int rc = 0;
    for (size_t i = 0; i < m->nroles && rc == 0; i++)
        rc = add_role(v, roles[i]);
    measure(v, roles, m->nroles);
    free(roles);
    if (rc)
        return -1;
    return list_done(&v->list);
}

/* ---- columns -------------------------------------------------------------------- */

/* A bar of the share, the phase figures (phase_columns.h), then the spread
 * across processes, right of the names.  A wide screen shows the mean, the
 * p95 and the spread too, but only once the names have the room they need;
 * beyond that the figures stay beside the names and the rest of the row is
 * blank, so the eye does not travel 170 columns from a name to its numbers.
 * A narrow screen gives up the spread, p95, mean and bar first, then the
 * figures in the order the text report gives them up (self last), so the
 * name keeps room to be read. */
enum { COL_BAR, COL_FIGURES, COL_SPREAD = COL_FIGURES + PF_NCOLUMNS, NCOL };
static_assert(NCOL <= LAYOUT_MAX_COLUMNS, "the phase tree's columns fit a layout");
#define FIGURE(c) (COL_FIGURES + (c)) /* the column of a phase figure */
/* The name's columns at the least, the gap after it not counted. */
#define NAME_MIN 23
/* The most columns names are given however wide the screen. */
#define NAME_MAX 64
/* The drop ranks of the columns a wide screen adds: the spread first, then
 * the figure columns a table must turn on (phase_columns.h: p95, then
 * mean, the later column first), then the bar.  The phase figures' own
 * ranks come after them. */
enum { RANK_SPREAD = 1 };

/* The rank of the bar, the last of the columns a wide screen adds. */
static int rank_extras(void) {
    int rank = RANK_SPREAD + 1;
    for (size_t c = 0; c < PF_NCOLUMNS; c++)
        rank += phase_figures[c].column.off;
    return rank;
}

static void tree_columns(const view *v, layout_column cols[NCOL]) {
    const phases_state *st = v->priv;
    int extras = rank_extras();
    cols[COL_BAR] = (layout_column){"", 10, extras, 0, 0};
    phase_columns_of(cols + COL_FIGURES);
    for (size_t c = 0; c < PF_NCOLUMNS; c++)
        if (cols[FIGURE(c)].drop)
            cols[FIGURE(c)].drop += extras;
    int rank = RANK_SPREAD;
    for (size_t c = PF_NCOLUMNS; c-- > 0;)
        if (cols[FIGURE(c)].off) {
            cols[FIGURE(c)].off = 0;
            cols[FIGURE(c)].drop = ++rank;
        }
    /* Queued only where some phase measured it: n/a in every row says
     * nothing a log before format 1.9 could have said. */
    cols[FIGURE(PF_QUEUED)].off = !st->has_queued;
    cols[FIGURE(PF_COUNT)].width = st->count_cols;
    /* The spread's cells hold three durations: a space more sets them apart
     * from the count. */
    const char *spread = "spread min/med/max";
    int spread_w =
        st->spread_cols + 1 > (int)strlen(spread) ? st->spread_cols + 1 : (int)strlen(spread);
    cols[COL_SPREAD] = (layout_column){spread, spread_w, RANK_SPREAD, 1, st->spread_cols == 0};
}

/* Each column after a one-column gap, the screen's last column left blank;
 * the count column as wide as the largest count. */
static layout lay_out(const view *v, int width) {
    const phases_state *st = v->priv;
    layout_column cols[NCOL];
    tree_columns(v, cols);
    int want = st->name_cols + 1;
    want = want < NAME_MIN ? NAME_MIN : want > NAME_MAX ? NAME_MAX : want;
    layout L = layout_fit(cols, NCOL, width - 1, 1, NAME_MIN);
    /* What a wide screen adds comes after the names' own needs. */
    for (int rank = 1, extras = rank_extras(); rank <= extras && L.name_width < want; rank++) {
        for (size_t c = 0; c < NCOL; c++)
            if (cols[c].drop == rank)
                cols[c].off = 1;
        L = layout_fit(cols, NCOL, width - 1, 1, NAME_MIN);
    }
    /* Room to spare: the figures move left, next to the names. */
    if (L.name_width > want) {
        int spare = L.name_width - want;
        for (size_t c = 0; c < NCOL; c++)
            if (L.shown[c])
                L.x[c] -= spare;
        L.name_width = want;
    }
    return L;
}

static void put_col(WINDOW *w, int y, const layout *L, size_t c, enum theme_element el,
                    const char *s) {
    if (L->shown[c])
        draw_text_right(w, y, L->x[c], L->width[c], el, s);
}

/* ---- rows ------------------------------------------------------------------------- */

static void draw_phase_row(view *v, WINDOW *w, int y, const layout *L, const list_row *r) {
    const run_phase *p = r->item;
    char buf[96], name[512];
    int indent = 2 * ((int)r->depth - 1) + 1;
    const char *mark = !list_has_children(&v->list, (size_t)(r - v->list.rows)) ? "  "
                       : r->expanded ? (style_utf8 ? "▾ " : "- ")
                                     : (style_utf8 ? "▸ " : "+ ");
    int x = 1 + indent;
    x += draw_text(w, y, x, L->name_width - x, TH_DIM, mark);
    style_escape(p->name, name, sizeof name);
    draw_text(w, y, x, L->name_width - x, app_query_matches(v->app, name) ? TH_MATCH : TH_NORMAL,
              name);
    if (L->shown[COL_BAR])
        draw_bar(w, y, L->x[COL_BAR], L->width[COL_BAR], p->share);
    for (size_t c = 0; c < PF_NCOLUMNS; c++)
        if (L->shown[FIGURE(c)]) {
            int na = phase_cell(p, (enum phase_fig)c, buf, sizeof buf);
            put_col(w, y, L, FIGURE(c), na ? TH_DIM : TH_NORMAL, buf);
        }
    if (L->shown[COL_SPREAD]) {
        size_t row = (size_t)(r - v->list.rows);
        while (row != LIST_NONE && v->list.rows[row].kind != ROW_ROLE)
            row = v->list.rows[row].parent;
        const run_role *role = row == LIST_NONE ? NULL : v->list.rows[row].item;
        if (role && role->nprocs > 1)
            put_col(w, y, L, COL_SPREAD, TH_NORMAL,
                    phase_spread_cell(p, role->nprocs, buf, sizeof buf));
    }
}

/* A counter row's three cells (counter_cells.h): the total ends where the
 * phases' total does, the rate and the cost of a unit follow, each as wide
 * as its widest text ("999,999.9/s", "999.9 MB/call"), while the screen
 * has room for them. */
enum { COUNTER_RATE_COLS = 11, COUNTER_UNIT_COLS = 13, COUNTER_GAP = 2 };

typedef struct counter_layout {
    int total_end;      /* one past the total's last column */
    int rate_x, unit_x; /* where the rate's and the unit's cells start; -1: not shown */
} counter_layout;

static counter_layout counter_lay_out(const layout *L, int width) {
    /* The total is never given up: the counters' total goes under it. */
    assert(L->shown[FIGURE(PF_TOTAL)]);
    counter_layout C = {L->x[FIGURE(PF_TOTAL)] + L->width[FIGURE(PF_TOTAL)], -1, -1};
    int right = width - 1; /* the last column stays blank, as the tree's */
    int x = C.total_end + COUNTER_GAP;
    if (x + COUNTER_RATE_COLS <= right) {
        C.rate_x = x;
        x += COUNTER_RATE_COLS + COUNTER_GAP;
        if (x + COUNTER_UNIT_COLS <= right)
            C.unit_x = x;
    }
    return C;
}

static void draw_counter_row(view *v, WINDOW *w, int y, const layout *L, const list_row *r) {
    const run_counter *k = r->item;
    char name[512];
    counter_cells cells;
    counter_cells_of(k, &cells);
    counter_layout C = counter_lay_out(L, getmaxx(w));
    int total_x = C.total_end - (int)fmt_width(cells.total);
    /* A total wider than its column takes from the name, a space apart. */
    int name_end = total_x - 1 < L->name_width ? total_x - 1 : L->name_width;
    int x = 1 + 2 * ((int)r->depth - 1) + 1;
    /* "+" as in the text report; in ASCII "+" marks a closed phase, so "*". */
    x += draw_text(w, y, x, name_end - x, TH_COUNTER, style_utf8 ? "+ " : "* ");
    style_escape(k->name, name, sizeof name);
    draw_text(w, y, x, name_end - x, app_query_matches(v->app, name) ? TH_MATCH : TH_COUNTER, name);
    draw_text(w, y, total_x, C.total_end - total_x, TH_COUNTER, cells.total);
    if (C.rate_x >= 0)
        draw_text_right(w, y, C.rate_x, COUNTER_RATE_COLS, TH_COUNTER, cells.rate);
    if (C.unit_x >= 0)
        draw_text_right(w, y, C.unit_x, COUNTER_UNIT_COLS, TH_COUNTER, cells.unit);
}

static void draw_role_row(view *v, WINDOW *w, int y, const layout *L, const list_row *r) {
    const run_role *role = r->item;
    const app *a = v->app;
    char title[256], text[900], ratio[32], who[600], buf[64];
    fmt_title(title, sizeof title, role->name);
    /* The total is never given up: the role's phase time goes there. */
    assert(L->shown[FIGURE(PF_TOTAL)]);
    int limit = L->x[FIGURE(PF_TOTAL)] - 1;
    if (a->focus_worker != SIZE_MAX) {
        snprintf(text, sizeof text, "%s  one process: %s", title,
                 app_worker_label(a, a->focus_worker, who, sizeof who));
    } else {
        int n = snprintf(text, sizeof text, "%s x%zu  imbalance %s", title, role->nprocs,
                         fmt_ratio(ratio, sizeof ratio, role->imbalance));
        if (role->nprocs > 1 && role->slowest_worker != SIZE_MAX) {
            /* The busiest process in full when it fits, else by rank or pid,
             * else not at all (the detail pane has it in full). */
            const run_worker *b = &a->model->workers[role->slowest_worker];
            snprintf(text + n, sizeof text - (size_t)n, "  busiest %s",
                     app_worker_label(a, role->slowest_worker, who, sizeof who));
            if ((int)fmt_width(text) > limit - 1 && b->has_process) {
                if (b->rank >= 0)
                    snprintf(text + n, sizeof text - (size_t)n, "  busiest rank %d", b->rank);
                else if (b->pid > 0)
                    snprintf(text + n, sizeof text - (size_t)n, "  busiest pid %lld",
                             (long long)b->pid);
            }
            if ((int)fmt_width(text) > limit - 1)
                text[n] = '\0'; /* no room: the imbalance alone */
        }
    }
    enum theme_element el = app_query_matches(a, title) ? TH_MATCH : TH_ROLE;
    draw_text(w, y, 1, limit - 1, el, text);
    put_col(w, y, L, FIGURE(PF_TOTAL), TH_ROLE,
            fmt_duration(buf, sizeof buf, (double)role->phase_ns));
}

/* The column each sort order sorts by (SIZE_MAX: the names'). */
static size_t sort_column(int sort) {
    switch (sort) {
    case SORT_TOTAL:
        return FIGURE(PF_TOTAL);
    case SORT_SELF:
        return FIGURE(PF_SELF);
    case SORT_WAIT:
        return FIGURE(PF_WAIT);
    case SORT_P99:
        return FIGURE(PF_P99);
    case SORT_COUNT:
        return FIGURE(PF_COUNT);
    default:
        return SIZE_MAX;
    }
}

/* The headings, the sorted column's with its marker ("▼total"); when that
 * column is given up, or the order is by name or imbalance, the names'
 * heading says what the order is. */
static void draw_headings(view *v, WINDOW *w, int y, const layout *L, int width) {
    char text[96];
    const char *mark = style_sort_marker((v->sort == SORT_NAME) != v->reverse);
    draw_blank(w, y, 0, width, TH_COLUMNS);
    size_t sorted = sort_column(v->sort);
    if (v->sort == SORT_NAME)
        snprintf(text, sizeof text, "role / phase %s", mark);
    else if (v->sort == SORT_IMBALANCE)
        snprintf(text, sizeof text, "role / phase  roles by imbalance %s", mark);
    else if (!L->shown[sorted])
        snprintf(text, sizeof text, "role / phase  by %s %s", sort_names[v->sort], mark);
    else
        snprintf(text, sizeof text, "role / phase");
    draw_text(w, y, 1, L->name_width - 1, TH_COLUMNS, text);
    layout_column cols[NCOL];
    tree_columns(v, cols);
    for (size_t c = 0; c < NCOL; c++) {
        if (c == sorted && L->shown[c]) {
            snprintf(text, sizeof text, "%s%s", mark, cols[c].heading);
            put_col(w, y, L, c, TH_COLUMNS, text);
        } else {
            put_col(w, y, L, c, TH_COLUMNS, cols[c].heading);
        }
    }
}

/* The counters' headings, a row of their own under the figures' headings:
 * a counter's cells are not the phase columns they stand under. */
static void draw_counter_headings(WINDOW *w, int y, const layout *L, int width) {
    draw_blank(w, y, 0, width, TH_COLUMNS);
    counter_layout C = counter_lay_out(L, width);
    draw_text(w, y, 3, L->name_width - 3, TH_COLUMNS, style_utf8 ? "+ counter" : "* counter");
    const char *total = COUNTER_HEADING_TOTAL;
    int tw = (int)strlen(total);
    draw_text(w, y, C.total_end - tw, tw, TH_COLUMNS, total);
    if (C.rate_x >= 0)
        draw_text_right(w, y, C.rate_x, COUNTER_RATE_COLS, TH_COLUMNS, COUNTER_HEADING_RATE);
    if (C.unit_x >= 0)
        draw_text_right(w, y, C.unit_x, COUNTER_UNIT_COLS, TH_COLUMNS, COUNTER_HEADING_UNIT);
}

/* ---- the detail pane ---------------------------------------------------------------- */

static const run_role *role_of_row(const view *v, size_t row) {
    while (row != LIST_NONE && v->list.rows[row].kind != ROW_ROLE)
        row = v->list.rows[row].parent;
    return row == LIST_NONE ? NULL : v->list.rows[row].item;
}

/* A phase's tags (one per line in the model) as the pane shows them before
 * its source: "tags golden, fast   ". */
static void tags_text(run_str tags, char *out, size_t cap) {
    char joined[400];
    size_t n = 0;
    for (size_t i = 0; i < tags.len && n + 3 < sizeof joined; i++) {
        if (tags.s[i] == '\n') {
            joined[n++] = ',';
            joined[n++] = ' ';
        } else {
            joined[n++] = tags.s[i];
        }
    }
    char shown[380];
    style_escape((run_str){joined, n}, shown, sizeof shown);
    snprintf(out, cap, "tags %s   ", shown);
}

/* What follows a figure resting on part of the entries (run_partial.h):
 * on how many, "" when on all. */
static const char *figure_note(const run_phase *p, unsigned flags, int compact, char *out,
                               size_t cap) {
    char a[48], b[48];
    out[0] = '\0';
    if ((flags & PF_NOTE_HIST) && run_phase_hist_partial(p))
        snprintf(out, cap, compact ? " (of %s)" : " (as of %s of %s entries)",
                 fmt_ucount(a, sizeof a, p->hist_count), fmt_ucount(b, sizeof b, p->dist.count));
    double lo, hi;
    if ((flags & PF_NOTE_CPU) && run_phase_wait_few(p))
        snprintf(out, cap, " (from %s of %s entries)", fmt_ucount(a, sizeof a, p->cpu_count),
                 fmt_ucount(b, sizeof b, p->dist.count));
    else if ((flags & PF_NOTE_CPU) && run_phase_wait_range(p, &lo, &hi))
        snprintf(out, cap, " (%.0f to %.0f%% over all)", 100 * lo, 100 * hi);
    return out;
}

/* Line `line` of the pane's figures (phase_figures.h: the tens of their
 * detail place), "label value" each, three spaces apart, or two when
 * compact (with the notes' short form). */
static void detail_figures(const run_phase *p, int line, int compact, char *out, size_t cap) {
    enum phase_fig ids[PF_N];
    size_t n = phase_figures_in(PF_OUT_DETAIL, ids), used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && used < cap; i++) {
        const phase_figure *pf = &phase_figures[ids[i]];
        if (pf->at[PF_OUT_DETAIL] / 10 != line)
            continue;
        if ((pf->flags & PF_DETAIL_IF_MEASURED) && isnan(phase_fig_value(p, ids[i])))
            continue;
        char value[48], note[96];
        int k = snprintf(out + used, cap - used, "%s%s %s%s", used ? (compact ? "  " : "   ") : "",
                         pf->detail,
                         phase_fig_text(ids[i], phase_fig_get(p, ids[i]), value, sizeof value),
                         figure_note(p, pf->flags, compact, note, sizeof note));
        used += k > 0 ? (size_t)k : 0;
    }
}

static void detail_phase(view *v, WINDOW *w, int y, int width, const run_phase *p,
                         const run_role *role) {
    const app *a = v->app;
    char path[1024], line[1200], b[8][48];
    run_phase_path(p, path, sizeof path);
    fmt_fit_left(path, sizeof path, (size_t)(width > 2 ? width - 2 : 0), style_utf8);
    int x = draw_text(w, y, 1, width - 2, TH_ROLE, path);
    char tags[400] = "";
    if (p->tags.len)
        tags_text(p->tags, tags, sizeof tags);
    if (p->file.len) {
        char file[700], src[1200];
        style_escape(p->file, file, sizeof file);
        snprintf(src, sizeof src, "%s%s:%u", tags, file, p->line);
        if (width - x - 4 > 12)
            draw_text_right(w, y, x + 2, width - x - 3, TH_DIM, src);
    } else if (tags[0]) {
        if (width - x - 4 > 12)
            draw_text_right(w, y, x + 2, width - x - 3, TH_DIM, tags);
    } else if (width - x - 4 > 24) {
        draw_text_right(w, y, x + 2, width - x - 3, TH_DIM, "source not recorded");
    }
    /* Narrow panes get the short form, "p99 43.0ms (of 836)", and two spaces
     * between figures, so that the note is never the part cut off. */
    for (int compact = 0; compact < 2; compact++) {
        detail_figures(p, 1, compact, line, sizeof line);
        if ((int)fmt_width(line) <= width - 2)
            break;
    }
    draw_text(w, y + 1, 1, width - 2, TH_NORMAL, line);
    detail_figures(p, 2, 0, line, sizeof line);
    draw_text(w, y + 2, 1, width - 2, TH_NORMAL, line);

    /* The histogram, folded by the model to the width there is. */
    int spark_x = 12, spark_w = width - spark_x - 26;
    draw_text(w, y + 3, 1, 10, TH_DIM, "durations");
    if (spark_w > 4) {
        uint64_t cols[512];
        double lo, hi;
        if (spark_w > 512)
            spark_w = 512;
        if (run_hist_fold(p, (size_t)spark_w, cols, &lo, &hi)) {
            draw_sparkline(w, y + 3, spark_x, cols, (size_t)spark_w);
            snprintf(line, sizeof line, "%s .. %s", fmt_duration(b[0], 48, lo),
                     fmt_duration(b[1], 48, hi));
            draw_text(w, y + 3, spark_x + spark_w + 1, width - spark_x - spark_w - 2, TH_DIM, line);
        } else {
            draw_text(w, y + 3, spark_x, width - spark_x - 1, TH_DIM, "n/a: no histogram recorded");
        }
    }
    if (p->nprocs && role->nprocs > 1) {
        char who[600];
        snprintf(
            line, sizeof line, "spread over %zu of %zu processes: min %s  median %s  max %s in %s",
            p->nprocs, role->nprocs, fmt_duration(b[0], 48, p->spread_min_ns),
            fmt_duration(b[1], 48, p->spread_median_ns), fmt_duration(b[2], 48, p->spread_max_ns),
            app_worker_label(a, p->spread_max_worker, who, sizeof who));
    } else {
        snprintf(line, sizeof line, "spread: one process recorded it");
    }
    draw_text(w, y + 4, 1, width - 2, TH_NORMAL, line);
    if (p->io_measured)
        snprintf(
            line, sizeof line, "I/O read %s (disk %s)  written %s (disk %s)  disk %s/s",
            fmt_bytes(b[0], 48, (double)p->char_read), fmt_bytes(b[1], 48, (double)p->disk_read),
            fmt_bytes(b[2], 48, (double)p->char_write), fmt_bytes(b[3], 48, (double)p->disk_write),
            fmt_bytes(b[4], 48, p->disk_bytes_per_s));
    else if (p->smp_io)
        snprintf(line, sizeof line,
                 "I/O sampled while innermost: read %s (disk %s)  written %s (disk %s)",
                 fmt_bytes(b[0], 48, (double)p->smp_char_read),
                 fmt_bytes(b[1], 48, (double)p->smp_disk_read),
                 fmt_bytes(b[2], 48, (double)p->smp_char_write),
                 fmt_bytes(b[3], 48, (double)p->smp_disk_write));
    else
        line[0] = '\0';
    if (line[0])
        draw_text(w, y + 5, 1, width - 2, TH_NORMAL, line);
}

static void detail_role(view *v, WINDOW *w, int y, int width, const run_role *r) {
    char title[256], line[1200], b[6][48], who[600];
    fmt_title(title, sizeof title, r->name);
    snprintf(line, sizeof line, "%s: %zu process%s, phase time %s, imbalance %s", title, r->nprocs,
             r->nprocs == 1 ? "" : "es", fmt_duration(b[0], 48, (double)r->phase_ns),
             fmt_ratio(b[1], 48, r->imbalance));
    draw_text(w, y, 1, width - 2, TH_ROLE, line);
    if (r->slowest_worker != SIZE_MAX) {
        snprintf(line, sizeof line, "busiest: %s",
                 app_worker_label(v->app, r->slowest_worker, who, sizeof who));
        draw_text(w, y + 1, 1, width - 2, TH_NORMAL, line);
    }
    if (r->has_iterations) {
        const run_dist *d = &r->iterations;
        snprintf(line, sizeof line, "iterations (%s): %s %s   mean %s   p50 %s   p95 %s   p99 %s",
                 v->app->model->iteration_name, fmt_ucount(b[0], 48, d->count),
                 d->count == 1 ? "entry" : "entries", fmt_duration(b[1], 48, d->mean_ns),
                 fmt_duration(b[2], 48, d->p50_ns), fmt_duration(b[3], 48, d->p95_ns),
                 fmt_duration(b[4], 48, d->p99_ns));
        draw_text(w, y + 2, 1, width - 2, TH_NORMAL, line);
    }
    draw_text(w, y + 3, 1, width - 2, TH_DIM, "dominant phases (self time):");
    for (size_t i = 0; i < r->ndominant && i < 3; i++) {
        char path[900];
        run_phase_path(r->dominant[i], path, sizeof path);
        /* Cut from the left, as the report does: paths that share their
         * first names differ at the end. */
        enum { PATH_X = 11 }; /* two spaces, the self time in 8 columns, a space */
        if (width - 2 - PATH_X > 0)
            fmt_fit_left(path, sizeof path, (size_t)(width - 2 - PATH_X), style_utf8);
        snprintf(line, sizeof line, "  %-8s %s",
                 fmt_duration(b[0], 48, (double)r->dominant[i]->self_ns), path);
        draw_text(w, y + 4 + (int)i, 1, width - 2, TH_NORMAL, line);
    }
}

static void detail_counter(WINDOW *w, int y, int width, const run_counter *k) {
    char name[512], line[900], calls[48];
    counter_cells c;
    counter_cells_of(k, &c);
    style_escape(k->name, name, sizeof name);
    draw_text(w, y, 1, width - 2, TH_COUNTER, name);
    int n = snprintf(line, sizeof line, "total %s in %s call%s", c.total,
                     fmt_ucount(calls, sizeof calls, k->calls), fmt_plural(k->calls));
    if (c.rate[0])
        n += snprintf(line + n, sizeof line - (size_t)n, "   %s per second of the phase", c.rate);
    if (c.unit[0])
        snprintf(line + n, sizeof line - (size_t)n, "   %s",
                 c.unit); /* "2.9 MB/call", or the phase's time per unit "4.0ns/ea" */
    draw_text(w, y + 1, 1, width - 2, TH_NORMAL, line);
}

static void draw_detail(view *v, WINDOW *w, int y, int width) {
    draw_rule(w, y, width);
    size_t sel = list_selected(&v->list);
    if (sel == LIST_NONE)
        return;
    const list_row *r = &v->list.rows[sel];
    const run_role *role = role_of_row(v, sel);
    if (r->kind == ROW_PHASE)
        detail_phase(v, w, y + 1, width, r->item, role);
    else if (r->kind == ROW_ROLE)
        detail_role(v, w, y + 1, width, r->item);
    else
        detail_counter(w, y + 1, width, r->item);
}

/* ---- the view ------------------------------------------------------------------------- */

static void phases_draw(view *v, WINDOW *w, int top, int height, int width) {
    const phases_state *st = v->priv;
    layout L = lay_out(v, width);
    int detail = height >= 18 ? DETAIL_ROWS : 0;
    int headings = 1 + st->has_counters;
    int list_h = height - headings - detail;
    draw_headings(v, w, top, &L, width);
    if (st->has_counters)
        draw_counter_headings(w, top + 1, &L, width);
    list *l = &v->list;
    list_scroll_to_cursor(l, list_h);
    if (!l->nrows) {
        draw_text(w, top + headings, 1, width - 2, TH_DIM,
                  "no phases: no process of the attempt shown recorded any");
    }
    for (int i = 0; i < list_h && l->top + (size_t)i < l->nvisible; i++) {
        size_t row = l->visible[l->top + (size_t)i];
        const list_row *r = &l->rows[row];
        int y = top + headings + i;
        if (r->kind == ROW_ROLE)
            draw_role_row(v, w, y, &L, r);
        else if (r->kind == ROW_PHASE)
            draw_phase_row(v, w, y, &L, r);
        else
            draw_counter_row(v, w, y, &L, r);
        if (l->top + (size_t)i == l->cursor)
            style_selected_row(w, y, width);
    }
    /* A run without phases (scope-tui record): its roles come by their
     * line samples, and its figures are on Lines. */
    if (v->app->model->roles_by_samples && l->nvisible && (int)l->nvisible + 1 < list_h)
        draw_text(w, top + headings + (int)l->nvisible + 1, 1, width - 2, TH_DIM,
                  "no phases recorded: roles by line samples, most first; 2 shows their lines");
    if (detail)
        draw_detail(v, w, top + height - detail, width);
}

/* The phase (or, on a role's row, NULL) and role the selected row is of:
 * what H and L show the hot lines of.  A counter stands for its phase. */
static const run_role *selected_scope(view *v, const run_phase **phase) {
    size_t sel = list_selected(&v->list);
    *phase = NULL;
    if (sel == LIST_NONE)
        return NULL;
    size_t row = sel;
    if (v->list.rows[row].kind == ROW_COUNTER && v->list.rows[row].parent != LIST_NONE)
        row = v->list.rows[row].parent;
    if (v->list.rows[row].kind == ROW_PHASE)
        *phase = v->list.rows[row].item;
    return role_of_row(v, sel);
}

const run_role *phases_view_selection(app *a, const run_phase **phase) {
    *phase = NULL;
    size_t phases = view_of_ops(&phases_view_ops);
    return phases == SIZE_MAX ? NULL : selected_scope(&a->views[phases], phase);
}

static int phases_action(view *v, enum action act) {
    app *a = v->app;
    size_t sel = list_selected(&v->list);
    if (act == ACT_HOTTEST || act == ACT_PHASE_LINES) {
        const run_phase *phase;
        const run_role *role = selected_scope(v, &phase);
        if (act == ACT_HOTTEST)
            lines_view_show_hottest(a, role, phase);
        else
            lines_view_show_phase(a, role, phase);
        return 1;
    }
    if (act != ACT_OPEN_SOURCE)
        return 0;
    if (sel == LIST_NONE || v->list.rows[sel].kind != ROW_PHASE)
        app_message(a, 1, "o opens a phase's source: select a phase");
    else
        editor_open_phase(a, v->list.rows[sel].item, role_of_row(v, sel));
    return 1;
}

static void phases_hint(view *v, char *buf, size_t cap) {
    snprintf(buf, cap, "Enter/<- open/close  * all  s sort:%s%s  o source", sort_names[v->sort],
             v->reverse ? " (reversed)" : "");
}

static int phases_row_text(view *v, const list_row *r, char *buf, size_t cap) {
    (void)v;
    if (r->kind == ROW_ROLE) /* in capitals, as drawn: search matches what the screen shows */
        fmt_title(buf, cap, ((const run_role *)r->item)->name);
    else if (r->kind == ROW_PHASE)
        style_escape(((const run_phase *)r->item)->name, buf, cap);
    else
        style_escape(((const run_counter *)r->item)->name, buf, cap);
    return 1;
}

static int phases_row_key(view *v, const list_row *r, char *buf, size_t cap) {
    size_t row = (size_t)(r - v->list.rows);
    const run_role *role = role_of_row(v, row);
    char name[256], path[900];
    style_escape(role->name, name, sizeof name);
    if (r->kind == ROW_ROLE)
        snprintf(buf, cap, "%s", name);
    else if (r->kind == ROW_PHASE)
        snprintf(buf, cap, "%s\x1f%s", name, run_phase_path(r->item, path, sizeof path));
    else {
        char cname[256];
        style_escape(((const run_counter *)r->item)->name, cname, sizeof cname);
        const char *parent = "";
        if (r->parent != LIST_NONE && v->list.rows[r->parent].kind == ROW_PHASE)
            parent = run_phase_path(v->list.rows[r->parent].item, path, sizeof path);
        snprintf(buf, cap, "%s\x1f%s\x1f+%s", name, parent, cname);
    }
    return 1;
}

const view_ops phases_view_ops = {
    .narrowed = 1,
    .init = phases_init,
    .build = phases_build,
    .draw = phases_draw,
    .action = phases_action,
    .hint = phases_hint,
    .row_text = phases_row_text,
    .row_key = phases_row_key,
    .sorts = sort_names,
    .nsorts = SORT_COUNT_,
    .reversible = 1,
};
