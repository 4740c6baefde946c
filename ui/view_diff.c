/*
 * The Diff view (scope-tui A B): run B against run A, as `compare` and
 * `check` see them.  Per role, the phase tree with each phase's mean time
 * per entry in A and in B (what check judges by default), its change, the
 * interval of that change and a mark, '*', where the interval leaves 0
 * behind: beyond the noise at the comparison's confidence.  Below the
 * phases, the role's hot lines with their share of its line samples in A
 * and B and the change in points, '*' where that change is beyond the
 * samples' noise.  s sorts by the size of the change, |Δ|, instead.
 *
 * Every figure, interval and mark comes from the comparison model
 * (run_compare.h, run_compare_lines.h, run_noise.h): nothing is computed
 * here, so the view, compare's table and JSON, and check agree.  Colour
 * only repeats what the sign and the mark say: red (theme "slower") for a
 * change beyond the noise that made B slower or a line hotter, blue
 * ("faster") for one the other way.
 */
#include "browser.h"
#include "fmt.h"
#include "hot_lines.h"
#include "run_check.h"
#include "run_compare.h"
#include "run_compare_lines.h"
#include "style.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROW_ROLE, ROW_PHASE, ROW_LINES, ROW_LINE };

enum { SORT_TREE, SORT_DELTA, SORT_COUNT_ };
static const char *const sort_names[] = {"tree", "|change|"};

typedef struct diff_state {
    run_cmp *cmp;
    run_check *check;       /* check's verdicts on cmp, every phase watched */
    const run_model *a, *b; /* the models cmp was made of */
    unsigned loads;         /* app.loads when it was made */
    char error[300];        /* why the lines were not compared */
} diff_state;

/* ---- the comparison --------------------------------------------------------------- */

/* Compares the two runs again when either model changed (r read the one
 * shown again); b, which only swaps which one the other views show, does
 * not change them. */
static int compare_runs(view *v) {
    diff_state *st = v->priv;
    app *a = v->app;
    run_model *ma = app_model_a(a), *mb = app_model_b(a);
    if (st->cmp && st->a == ma && st->b == mb && st->loads == a->loads)
        return 0;
    run_check_free(st->check);
    st->check = NULL;
    run_cmp_free(st->cmp);
    st->cmp = NULL;
    st->error[0] = '\0';
    if (!ma || !mb)
        return 0;
    st->cmp = run_compare_with(ma, mb, &(run_cmp_opts){.confidence = a->confidence});
    if (!st->cmp)
        return -1;
    /* check's verdict on each phase, by its defaults (the mean, 10%), so
     * the line under the table says what `check A B` would. */
    run_check_opts o = {.max_regression = RUN_CHECK_DEFAULT_THRESHOLD,
                        .metric = run_check_metric_default(),
                        .min_share = -1};
    char why[200];
    if (run_check_judge(st->cmp, &o, &st->check, why, sizeof why) == RUN_CHECK_NOMEM)
        return -1;
    st->a = ma;
    st->b = mb;
    st->loads = a->loads;
    char msg[256];
    if (hot_lines_load_both(a, msg, sizeof msg) < 0 ||
        run_compare_lines(ma, mb, st->cmp, msg, sizeof msg) != 0)
        snprintf(st->error, sizeof st->error, "hot lines not compared: %s", msg);
    return 0;
}

/* ---- rows ------------------------------------------------------------------------- */

/* The phase's own node on the side it is on, for its parent. */
static const run_phase *node_of(const run_cmp_phase *p) {
    return p->b ? p->b : p->a;
}

/* A phase node and its comparison row, sorted by node. */
typedef struct node_row {
    const run_phase *node;
    size_t row;
} node_row;

static int by_node(const void *x, const void *y) {
    uintptr_t p = (uintptr_t)((const node_row *)x)->node,
              q = (uintptr_t)((const node_row *)y)->node;
    return p < q ? -1 : p > q;
}

/* Each row's parent row, SIZE_MAX for a top-level phase: one sort of the
 * rows' nodes and a search per row, as the phase count is the logs' (a
 * pass over the role's phases per row was quadratic in it, on each
 * rebuild).  0, or -1 without memory. */
static int find_parents(const run_cmp_role *r, size_t *parent) {
    node_row *idx = malloc(2 * r->nphases * sizeof *idx);
    if (!idx)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < r->nphases; i++) {
        if (r->phases[i].a)
            idx[n++] = (node_row){r->phases[i].a, i};
        if (r->phases[i].b)
            idx[n++] = (node_row){r->phases[i].b, i};
    }
    qsort(idx, n, sizeof *idx, by_node);
    for (size_t i = 0; i < r->nphases; i++) {
        const run_phase *up = node_of(&r->phases[i])->parent;
        const node_row key = {up, 0};
        const node_row *hit =
            up && up->depth > 0 ? bsearch(&key, idx, n, sizeof *idx, by_node) : NULL;
        parent[i] = hit ? hit->row : SIZE_MAX;
    }
    free(idx);
    return 0;
}

/* The size of a change for the |change| order: one-sided rows first (all
 * of the time appeared or vanished), rows without a figure last. */
static double change_size(double change, int one_sided) {
    if (one_sided)
        return INFINITY;
    return isnan(change) ? -1 : fabs(change);
}

typedef struct ranked {
    size_t i;
    double size;
} ranked;

static int by_size(const void *x, const void *y) {
    const ranked *p = x, *q = y;
    if (p->size != q->size)
        return p->size < q->size ? 1 : -1;
    return p->i < q->i ? -1 : p->i > q->i; /* the comparison's order: stable */
}

/* at's row, then its children's subtrees in the comparison's order
 * (impact): first[at] and next[] list them. */
static int add_subtree(view *v, const run_cmp_role *r, const size_t *first, const size_t *next,
                       size_t at, unsigned depth) {
    if (list_add(&v->list, depth, ROW_PHASE, &r->phases[at], at) == LIST_NONE)
        return -1;
    v->list.rows[v->list.nrows - 1].expanded = 1;
    for (size_t c = first[at]; c != SIZE_MAX; c = next[c])
        if (add_subtree(v, r, first, next, c, depth + 1) < 0)
            return -1;
    return 0;
}

static int add_phases(view *v, const run_cmp_role *r) {
    if (!r->nphases)
        return 0;
    size_t n = r->nphases;
    size_t *parent = malloc(n * sizeof *parent), *first = malloc(n * sizeof *first),
           *next = malloc(n * sizeof *next);
    ranked *order = malloc(n * sizeof *order);
    int rc = parent && first && next && order ? find_parents(r, parent) : -1;
    if (rc == 0 && v->sort == SORT_TREE) {
        for (size_t i = 0; i < n; i++)
            first[i] = next[i] = SIZE_MAX;
        for (size_t i = n; i-- > 0;) /* pushed last first: each list in row order */
            if (parent[i] != SIZE_MAX) {
                next[i] = first[parent[i]];
                first[parent[i]] = i;
            }
        for (size_t i = 0; rc == 0 && i < n; i++)
            if (parent[i] == SIZE_MAX)
                rc = add_subtree(v, r, first, next, i, 1);
    } else if (rc == 0) {
        /* Flat, biggest change of the mean first, each row named by its path. */
        for (size_t i = 0; i < r->nphases; i++)
            order[i] = (ranked){i, change_size(r->phases[i].fig[PF_MEAN].change,
                                               r->phases[i].side != RUN_CMP_BOTH)};
        qsort(order, r->nphases, sizeof *order, by_size);
        for (size_t k = 0; rc == 0 && k < r->nphases; k++)
            if (list_add(&v->list, 1, ROW_PHASE, &r->phases[order[k].i], order[k].i) == LIST_NONE)
                rc = -1;
    }
    free(parent);
    free(first);
    free(next);
    free(order);
    return rc;
}

static int add_lines(view *v, const run_cmp_role *r, size_t role) {
    const run_cmp_role_lines *ls = r->lines;
    if (!ls || (!ls->sampled_a && !ls->sampled_b) || r->side != RUN_CMP_BOTH)
        return 0;
    if (list_add(&v->list, 1, ROW_LINES, r, role) == LIST_NONE)
        return -1;
    v->list.rows[v->list.nrows - 1].expanded = 1;
    if (!ls->sampled_a || !ls->sampled_b)
        return 0; /* the row says there is nothing to compare them with */
    ranked order[RUN_CMP_LINES_TOP];
    size_t n = ls->n < RUN_CMP_LINES_TOP ? ls->n : RUN_CMP_LINES_TOP;
    for (size_t i = 0; i < n; i++)
        order[i] = (ranked){i, v->sort == SORT_TREE ? 0
                                                    : change_size(ls->v[i].share.delta,
                                                                  ls->v[i].side != RUN_CMP_BOTH)};
    qsort(order, n, sizeof *order, by_size);
    for (size_t k = 0; k < n; k++)
        if (list_add(&v->list, 2, ROW_LINE, &ls->v[order[k].i], order[k].i) == LIST_NONE)
            return -1;
    return 0;
}

static int diff_init(view *v) {
    v->priv = calloc(1, sizeof(diff_state));
    return v->priv ? 0 : -1;
}

static void diff_release(view *v) {
    diff_state *st = v->priv;
    run_check_free(st->check);
    st->check = NULL;
    run_cmp_free(st->cmp);
    st->cmp = NULL;
}

static int diff_build(view *v) {
    diff_state *st = v->priv;
    list_clear(&v->list);
    if (compare_runs(v) < 0)
        return -1;
    for (size_t r = 0; st->cmp && r < st->cmp->nroles; r++) {
        const run_cmp_role *role = &st->cmp->roles[r];
        if (list_add(&v->list, 0, ROW_ROLE, role, r) == LIST_NONE)
            return -1;
        v->list.rows[v->list.nrows - 1].expanded = 1;
        if (add_phases(v, role) < 0 || add_lines(v, role, r) < 0)
            return -1;
    }
    return list_done(&v->list);
}

/* ---- columns ---------------------------------------------------------------------- */

/* Right of the names: A, B, the change, the mark, and the interval while
 * the screen has room for it. */
enum { W_SIDE = 10, W_CHANGE = 10, W_MARK = 1, W_INTERVAL = 17, GAP = 1 };

typedef struct cols {
    int name; /* the names' columns, from 1 */
    int x_a, x_b, x_change, x_mark, x_interval;
} cols;

static cols lay_out(int width) {
    cols c;
    int right = width - 1;
    if (width >= 76) {
        c.x_interval = right - W_INTERVAL;
        right = c.x_interval - GAP;
    } else {
        c.x_interval = -1;
    }
    c.x_mark = right - W_MARK;
    c.x_change = c.x_mark - GAP - W_CHANGE;
    c.x_b = c.x_change - GAP - W_SIDE;
    c.x_a = c.x_b - GAP - W_SIDE;
    c.name = c.x_a - GAP - 1;
    return c;
}

/* The style of a change: colour only where it is beyond the noise. */
static enum theme_element change_style(int beyond) {
    return beyond > 0 ? TH_SLOWER : beyond < 0 ? TH_FASTER : TH_NORMAL;
}

static const char *side_word(enum run_cmp_side side) {
    return side == RUN_CMP_ONLY_A ? "only in A" : "only in B";
}

static void put(WINDOW *w, int y, int x, int cols, enum theme_element el, const char *s) {
    if (x >= 0)
        draw_text_right(w, y, x, cols, el, s);
}

static void draw_headings(view *v, WINDOW *w, int y, const cols *c, int width) {
    char head[64], interval[64];
    draw_blank(w, y, 0, width, TH_COLUMNS);
    draw_text(w, y, 1, c->name, TH_COLUMNS, "role / phase");
    put(w, y, c->x_a, W_SIDE, TH_COLUMNS, "mean A");
    put(w, y, c->x_b, W_SIDE, TH_COLUMNS, "mean B");
    snprintf(head, sizeof head, "%s%s", v->sort == SORT_DELTA ? style_sort_marker(0) : "",
             style_utf8 ? "Δ mean" : "change");
    put(w, y, c->x_change, W_CHANGE, TH_COLUMNS, head);
    snprintf(interval, sizeof interval, "%g%% interval", v->app->confidence * 100);
    put(w, y, c->x_interval, W_INTERVAL, TH_COLUMNS, interval);
}

static void draw_role_row(WINDOW *w, int y, const cols *c, const run_cmp_role *r) {
    char name[256], buf[64];
    fmt_title(name, sizeof name, r->name);
    draw_text(w, y, 1, c->name, TH_ROLE, name);
    put(w, y, c->x_a, W_SIDE, TH_ROLE, r->a ? fmt_duration(buf, sizeof buf, r->phase_ns.a) : "-");
    put(w, y, c->x_b, W_SIDE, TH_ROLE, r->b ? fmt_duration(buf, sizeof buf, r->phase_ns.b) : "-");
    if (r->side != RUN_CMP_BOTH)
        put(w, y, c->x_change, W_CHANGE, TH_ROLE, side_word(r->side));
    else
        put(w, y, c->x_change, W_CHANGE, TH_ROLE, fmt_change(buf, sizeof buf, r->phase_ns.change));
    put(w, y, c->x_interval, W_INTERVAL, TH_DIM, "phase time");
}

/* A tree mark and the row's name, indented by depth; returns the column
 * after it. */
static int draw_tree_mark(view *v, WINDOW *w, int y, const cols *c, const list_row *r) {
    int x = 1 + 2 * ((int)r->depth - 1) + 1;
    const char *mark = !list_has_children(&v->list, (size_t)(r - v->list.rows)) ? "  "
                       : r->expanded ? (style_utf8 ? "▾ " : "- ")
                                     : (style_utf8 ? "▸ " : "+ ");
    return x + draw_text(w, y, x, c->name - x, TH_DIM, mark);
}

static void draw_phase_row(view *v, WINDOW *w, int y, const cols *c, const list_row *r) {
    const run_cmp_phase *p = r->item;
    const run_cmp_fig *mean = &p->fig[PF_MEAN];
    char name[1024], buf[64], lo[32], hi[32];
    int x = draw_tree_mark(v, w, y, c, r);
    if (v->sort == SORT_TREE)
        style_escape(node_of(p)->name, name, sizeof name);
    else
        snprintf(name, sizeof name, "%s", p->path);
    draw_escaped(w, y, x, c->name + 1 - x, app_query_matches(v->app, name) ? TH_MATCH : TH_NORMAL,
                 name);
    put(w, y, c->x_a, W_SIDE, p->a ? TH_NORMAL : TH_DIM,
        p->a ? fmt_duration(buf, sizeof buf, mean->a) : "-");
    put(w, y, c->x_b, W_SIDE, p->b ? TH_NORMAL : TH_DIM,
        p->b ? fmt_duration(buf, sizeof buf, mean->b) : "-");
    if (p->side != RUN_CMP_BOTH) {
        put(w, y, c->x_change, W_CHANGE, TH_WARN, side_word(p->side));
        return;
    }
    int beyond = run_cmp_fig_beyond_noise(mean);
    put(w, y, c->x_change, W_CHANGE, change_style(beyond),
        fmt_change(buf, sizeof buf, mean->change));
    put(w, y, c->x_mark, W_MARK, change_style(beyond), beyond ? "*" : "");
    if (isnan(mean->lo) || isnan(mean->hi))
        put(w, y, c->x_interval, W_INTERVAL, TH_DIM, "no noise estimate");
    else {
        snprintf(buf, sizeof buf, "%s..%s", fmt_change(lo, sizeof lo, mean->lo),
                 fmt_change(hi, sizeof hi, mean->hi));
        put(w, y, c->x_interval, W_INTERVAL, TH_NORMAL, buf);
    }
}

static void draw_lines_row(WINDOW *w, int y, const cols *c, const run_cmp_role *r) {
    const run_cmp_role_lines *ls = r->lines;
    char text[256], na[32], nb[32];
    if (!ls->sampled_a || !ls->sampled_b)
        snprintf(text, sizeof text, "hot lines: samples in %s only, nothing to compare",
                 ls->sampled_a ? "A" : "B");
    else
        snprintf(text, sizeof text, "hot lines: share of %s A, %s B samples",
                 fmt_ucount(na, sizeof na, ls->samples_a),
                 fmt_ucount(nb, sizeof nb, ls->samples_b));
    draw_text(w, y, 3, c->x_a > 4 ? c->x_a - 4 : 1, TH_COUNTER, text);
    if (ls->sampled_a && ls->sampled_b) {
        put(w, y, c->x_a, W_SIDE, TH_COUNTER, "share A");
        put(w, y, c->x_b, W_SIDE, TH_COUNTER, "share B");
        put(w, y, c->x_change, W_CHANGE, TH_COUNTER, "points");
    }
}

static void draw_line_row(view *v, WINDOW *w, int y, const cols *c, const list_row *r) {
    const run_cmp_line *x = r->item;
    char fn[256], file[512], text[1024], buf[64];
    style_escape(x->function, fn, sizeof fn);
    style_escape(x->file.len ? x->file : (run_str){"??", 2}, file, sizeof file);
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (x->moved)
        snprintf(text, sizeof text, "%s  %s:%u%s%u", fn, base, x->line_a, style_utf8 ? "→" : "->",
                 x->line_b);
    else
        snprintf(text, sizeof text, "%s  %s:%u", fn, base,
                 x->side == RUN_CMP_ONLY_B ? x->line_b : x->line_a);
    draw_text(w, y, 5, c->name - 4, app_query_matches(v->app, text) ? TH_MATCH : TH_NORMAL, text);
    put(w, y, c->x_a, W_SIDE, TH_NORMAL,
        isnan(x->share.a) ? "-" : fmt_percent(buf, sizeof buf, x->share.a, 1));
    put(w, y, c->x_b, W_SIDE, TH_NORMAL,
        isnan(x->share.b) ? "-" : fmt_percent(buf, sizeof buf, x->share.b, 1));
    if (x->side != RUN_CMP_BOTH) {
        put(w, y, c->x_change, W_CHANGE, TH_WARN, side_word(x->side));
        return;
    }
    int beyond = x->significant ? (x->share.delta > 0 ? 1 : -1) : 0;
    snprintf(buf, sizeof buf, "%+.1f", fabs(x->share.delta) < 0.0005 ? 0.0 : x->share.delta * 100);
    put(w, y, c->x_change, W_CHANGE, change_style(beyond), buf);
    put(w, y, c->x_mark, W_MARK, change_style(beyond), beyond ? "*" : "");
}

/* ---- the line under the table ------------------------------------------------------ */

/* check's verdict on the selected phase, as `check A B` gives it. */
static enum theme_element verdict_text(const diff_state *st, const run_cmp_phase *p, char *out,
                                       size_t cap) {
    const run_check_row *row = NULL;
    for (size_t i = 0; st->check && i < st->check->nrows && !row; i++)
        if (st->check->rows[i].phase == p)
            row = &st->check->rows[i];
    if (!row) { /* only in B: check judges what the base has */
        snprintf(out, cap, "check: NEW, only in B: nothing to compare it with");
        return TH_NORMAL;
    }
    char ch[32], limit[32], least[32];
    const run_cmp_fig *f = row->fig;
    fmt_change(limit, sizeof limit, RUN_CHECK_DEFAULT_THRESHOLD);
    fmt_change(ch, sizeof ch, f->change);
    const char *metric = run_check_metric_name(run_check_metric_default());
    int n = 0;
    switch (row->verdict) {
    case RUN_CHECK_REGRESSED:
        n = snprintf(out, cap, "check: REGRESSED, %s %s: past %s, at least %s beyond the noise",
                     metric, ch, limit, fmt_change(least, sizeof least, f->at_least));
        break;
    case RUN_CHECK_NOISE:
        n = snprintf(out, cap, "check: NOISE, %s %s: past %s, but the noise leaves it at least %s",
                     metric, ch, limit, fmt_change(least, sizeof least, f->at_least));
        break;
    case RUN_CHECK_OK:
        n = snprintf(out, cap, "check: OK, %s %s: within %s", metric, ch, limit);
        break;
    case RUN_CHECK_GONE:
        n = snprintf(out, cap, "check: GONE, only in A (a failure when named with --phase)");
        break;
    case RUN_CHECK_NEW:
        n = snprintf(out, cap, "check: NEW, only in B: nothing to compare it with");
        break;
    case RUN_CHECK_UNMEASURED:
        n = snprintf(out, cap, "check: UNMEASURED, the %s is missing on a side", metric);
        break;
    }
    if (n > 0 && (size_t)n < cap && row->verdict != RUN_CHECK_NEW &&
        row->verdict != RUN_CHECK_GONE && isnan(f->lo))
        n += snprintf(out + n, cap - (size_t)n, "; no estimate of the noise: threshold alone");
    if (n > 0 && (size_t)n < cap && p->fig[PF_SHARE].a < RUN_CHECK_DEFAULT_MIN_SHARE)
        snprintf(out + n, cap - (size_t)n, "; under %g%% of the role: watched only when named",
                 RUN_CHECK_DEFAULT_MIN_SHARE * 100);
    return row->verdict == RUN_CHECK_REGRESSED ? TH_SLOWER : TH_NORMAL;
}

/* What the selected row says beyond its cells: a phase's verdict, a line's
 * noise, a role's processes. */
static void draw_selected(view *v, WINDOW *w, int y, int width) {
    const diff_state *st = v->priv;
    size_t sel = list_selected(&v->list);
    char text[600], x[32], z[32], tx[32], tz[32];
    enum theme_element el = TH_DIM;
    if (sel == LIST_NONE)
        return;
    const list_row *r = &v->list.rows[sel];
    if (r->kind == ROW_PHASE) {
        el = verdict_text(st, r->item, text, sizeof text);
    } else if (r->kind == ROW_ROLE) {
        const run_cmp_role *role = r->item;
        snprintf(text, sizeof text, "processes %s %s %s; phase time %s %s %s",
                 role->a ? fmt_ucount(x, sizeof x, (uint64_t)role->nprocs.a) : "-",
                 style_utf8 ? "→" : "->",
                 role->b ? fmt_ucount(z, sizeof z, (uint64_t)role->nprocs.b) : "-",
                 role->a ? fmt_duration(tx, sizeof tx, role->phase_ns.a) : "-",
                 style_utf8 ? "→" : "->",
                 role->b ? fmt_duration(tz, sizeof tz, role->phase_ns.b) : "-");
    } else if (r->kind == ROW_LINE) {
        const run_cmp_line *l = r->item;
        if (l->side != RUN_CMP_BOTH)
            snprintf(text, sizeof text, "a line sampled in %s only",
                     l->side == RUN_CMP_ONLY_A ? "A" : "B");
        else
            snprintf(text, sizeof text, "%s%+.1f points, sd %.1f: %s the samples' noise at %g%%",
                     l->moved ? "moved; " : "", l->share.delta * 100, l->delta_sd * 100,
                     l->significant ? "beyond" : "within", st->cmp->confidence * 100);
    } else {
        snprintf(text, sizeof text, "the role's hottest lines, by the larger of their two shares");
    }
    draw_text(w, y, 1, width - 2, el, text);
}

/* The two runs, and what the marks say, above the table. */
static void draw_title(view *v, WINDOW *w, int y, int width) {
    const app *a = v->app;
    char ra[256], rb[256], line[800];
    const char *da = a->showing_a ? a->run_dir : a->other.run_dir;
    const char *db = a->showing_a ? a->other.run_dir : a->run_dir;
    style_escape((run_str){da, strlen(da)}, ra, sizeof ra);
    style_escape((run_str){db, strlen(db)}, rb, sizeof rb);
    snprintf(line, sizeof line, "A %s %s B %s   *: beyond the noise at %g%% (+ slower, - faster)",
             ra, style_utf8 ? "→" : "->", rb, a->confidence * 100);
    draw_text(w, y, 1, width - 2, TH_DIM, line);
}

static void diff_draw(view *v, WINDOW *w, int top, int height, int width) {
    diff_state *st = v->priv;
    cols c = lay_out(width);
    if (!v->app->diff) {
        draw_text(w, top + 1, 1, width - 2, TH_DIM,
                  "one run is open: scope-tui A B opens two, compared here");
        return;
    }
    draw_title(v, w, top, width);
    draw_headings(v, w, top + 1, &c, width);
    int headings = 2, notes = 1 + (st->error[0] ? 1 : 0);
    int list_h = height - headings - notes;
    list *l = &v->list;
    list_scroll_to_cursor(l, list_h);
    if (!l->nrows)
        draw_text(w, top + headings, 1, width - 2, TH_DIM, "no phases or lines in either run");
    for (int i = 0; i < list_h && l->top + (size_t)i < l->nvisible; i++) {
        const list_row *r = &l->rows[l->visible[l->top + (size_t)i]];
        int y = top + headings + i;
        if (r->kind == ROW_ROLE)
            draw_role_row(w, y, &c, r->item);
        else if (r->kind == ROW_PHASE)
            draw_phase_row(v, w, y, &c, r);
        else if (r->kind == ROW_LINES)
            draw_lines_row(w, y, &c, r->item);
        else
            draw_line_row(v, w, y, &c, r);
        if (l->top + (size_t)i == l->cursor)
            style_selected_row(w, y, width);
    }
    draw_selected(v, w, top + height - 1, width);
    if (st->error[0])
        draw_text(w, top + height - 2, 1, width - 2, TH_WARN, st->error);
}

static void diff_hint(view *v, char *buf, size_t cap) {
    snprintf(buf, cap, "s sort:%s  b other views: run %s", sort_names[v->sort],
             v->app->showing_a ? "B" : "A");
}

static int diff_row_text(view *v, const list_row *r, char *buf, size_t cap) {
    (void)v;
    if (r->kind == ROW_ROLE)
        fmt_title(buf, cap, ((const run_cmp_role *)r->item)->name);
    else if (r->kind == ROW_PHASE)
        snprintf(buf, cap, "%s", ((const run_cmp_phase *)r->item)->path);
    else if (r->kind == ROW_LINE)
        style_escape(((const run_cmp_line *)r->item)->function, buf, cap);
    else
        return 0;
    return 1;
}

static int diff_row_key(view *v, const list_row *r, char *buf, size_t cap) {
    size_t row = (size_t)(r - v->list.rows);
    while (v->list.rows[row].parent != LIST_NONE)
        row = v->list.rows[row].parent;
    char role[256];
    fmt_title(role, sizeof role, ((const run_cmp_role *)v->list.rows[row].item)->name);
    if (r->kind == ROW_ROLE)
        snprintf(buf, cap, "%s", role);
    else if (r->kind == ROW_PHASE)
        snprintf(buf, cap, "%s\x1f%s", role, ((const run_cmp_phase *)r->item)->path);
    else if (r->kind == ROW_LINES)
        snprintf(buf, cap, "%s\x1f\x1flines", role);
    else {
        const run_cmp_line *x = r->item;
        char fn[256];
        style_escape(x->function, fn, sizeof fn);
        snprintf(buf, cap, "%s\x1f\x1f%s:%u:%u", role, fn, x->line_a, x->line_b);
    }
    return 1;
}

const view_ops diff_view_ops = {
    .init = diff_init,
    .build = diff_build,
    .draw = diff_draw,
    .hint = diff_hint,
    .row_text = diff_row_text,
    .row_key = diff_row_key,
    .release = diff_release,
    .sorts = sort_names,
    .nsorts = SORT_COUNT_,
};
