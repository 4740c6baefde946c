/*
 * The Processes view: every worker of the run (one log each), with its host,
 * rank, pid, role, attempt, runtime, last frame, how it ended and its
 * caveats.  Enter narrows the phase tree to the selected process.
 */
#define _GNU_SOURCE /* qsort_r */
#include "browser.h"
#include "fmt.h"
#include "run_builder.h"
#include "run_resources.h"
#include "style.h"

#include <scope/log_format.h>

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum proc_sort { PSORT_RANK, PSORT_PHASE_TIME, PSORT_RUNTIME, PSORT_CAVEATS, PSORT_COUNT };
static const char *const psort_names[] = {"role and rank", "phase time", "runtime", "caveats"};
static_assert(sizeof psort_names / sizeof *psort_names == PSORT_COUNT, "a name per sort order");

#define DETAIL_ROWS 6

/* What the workers are sorted by: qsort_r's context. */
typedef struct sort_ctx {
    const run_model *m;
    int by;      /* enum proc_sort */
    int reverse; /* the key's order turned round */
} sort_ctx;

static int by_key(const sort_ctx *sc, const run_worker *a, const run_worker *b);

/* The newest attempt first (the one analysed), then by the chosen key, in
 * its order or reversed. */
static int by_order(const void *x, const void *y, void *ctx) {
    const sort_ctx *sc = ctx;
    const run_worker *a = &sc->m->workers[*(const size_t *)x];
    const run_worker *b = &sc->m->workers[*(const size_t *)y];
    size_t newest = sc->m->nattempts ? sc->m->shown_attempt : 0;
    int an = a->attempt == newest, bn = b->attempt == newest;
    if (an != bn)
        return an ? -1 : 1;
    if (a->attempt != b->attempt)
        return a->attempt > b->attempt ? -1 : 1;
    int c = by_key(sc, a, b);
    return sc->reverse ? -c : c;
}

/* The chosen key, then role, rank, pid and path. */
static int by_key(const sort_ctx *sc, const run_worker *a, const run_worker *b) {
    switch (sc->by) {
    case PSORT_PHASE_TIME:
        if (a->phase_ns != b->phase_ns)
            return a->phase_ns < b->phase_ns ? 1 : -1;
        break;
    case PSORT_RUNTIME:
        if (a->runtime_ns != b->runtime_ns)
            return a->runtime_ns < b->runtime_ns ? 1 : -1;
        break;
    case PSORT_CAVEATS:
        if (a->ncaveats != b->ncaveats)
            return a->ncaveats < b->ncaveats ? 1 : -1;
        break;
    default:
        break;
    }
    int c = run_str_cmp(a->role, b->role);
    if (c)
        return c;
    if ((a->rank < 0) != (b->rank < 0))
        return a->rank < 0 ? 1 : -1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return run_str_cmp(a->path, b->path);
}

static int processes_build(view *v) {
    const run_model *m = v->app->model;
    list_clear(&v->list);
    size_t *order = malloc((m->nworkers + 1) * sizeof *order);
    if (!order)
        return -1;
    for (size_t i = 0; i < m->nworkers; i++)
        order[i] = i;
    qsort_r(order, m->nworkers, sizeof *order, by_order, &(sort_ctx){m, v->sort, v->reverse});
    for (size_t i = 0; i < m->nworkers; i++)
        if (list_add(&v->list, 0, 0, &m->workers[order[i]], order[i]) == LIST_NONE) {
            free(order);
            return -1;
        }
    free(order);
    return list_done(&v->list);
}

static const char *ended(const run_worker *w, char *buf, size_t cap) {
    char ago[48];
    switch (w->end) {
    case RUN_END_EXIT:
        snprintf(buf, cap, "exited");
        break;
    case RUN_END_SIGNAL:
        snprintf(buf, cap, "signal %d", w->end_signal);
        break;
    case RUN_END_KILLED:
    case RUN_END_RUNNING:
        if (w->stale)
            snprintf(buf, cap, "stale %s", fmt_duration(ago, sizeof ago, (double)w->stale_ns));
        else
            snprintf(buf, cap, w->end == RUN_END_RUNNING ? "running" : "killed");
        break;
    default:
        snprintf(buf, cap, "unreadable");
    }
    return buf;
}

/* Columns: name, width, right-aligned, and wide: shown only on a screen of
 * PROCESSES_WIDE columns or more (what the 1 Hz sampler saw of the process,
 * as htop's CPU and RES: on a narrower one its detail pane and the I/O
 * view have room for it).  The last ones go first when the screen is
 * narrow. */
enum pcol {
    P_ROLE,
    P_RANK,
    P_HOST,
    P_PID,
    P_ATTEMPT,
    P_RUNTIME,
    P_CPU,
    P_RSS,
    P_LAST,
    P_END,
    P_CAVEATS,
    NPCOL
};
#define PROCESSES_WIDE 150
static const struct {
    const char *heading;
    int width, right, wide;
} pcols[NPCOL] = {
    [P_ROLE] = {"role", 12, 0, 0},       [P_RANK] = {"rank", 5, 1, 0},
    [P_HOST] = {"host", 12, 0, 0},       [P_PID] = {"pid", 8, 1, 0},
    [P_ATTEMPT] = {"attempt", 8, 1, 0},  [P_RUNTIME] = {"runtime", 8, 1, 0},
    [P_CPU] = {"cpu time", 9, 1, 1},     [P_RSS] = {"peak rss", 10, 1, 1},
    [P_LAST] = {"last frame", 10, 1, 0}, [P_END] = {"ended", 12, 0, 0},
    [P_CAVEATS] = {"caveats", 8, 1, 0},
};

typedef struct playout {
    int x[NPCOL];
    int w[NPCOL];
} playout;

static playout lay_out(int width) {
    playout L;
    int fixed = 1, wide = width >= PROCESSES_WIDE;
    for (int c = 0; c < NPCOL; c++)
        if (wide || !pcols[c].wide)
            fixed += pcols[c].width + 1;
    /* Role and host share what is left over; on a narrow screen the
     * rightmost columns go. */
    int spare = width - fixed;
    int x = 1;
    for (int c = 0; c < NPCOL; c++) {
        int w = pcols[c].width;
        if (pcols[c].wide && !wide) {
            L.x[c] = -1;
            L.w[c] = 0;
            continue;
        }
        if (spare > 0 && (c == P_ROLE || c == P_HOST))
            w += spare / 2;
        if (x + w > width - 1) {
            L.x[c] = -1;
            L.w[c] = 0;
            continue;
        }
        L.x[c] = x;
        L.w[c] = w;
        x += w + 1;
    }
    return L;
}

static void put(WINDOW *w, int y, const playout *L, enum pcol c, enum theme_element el,
                const char *s) {
    if (L->x[c] < 0)
        return;
    if (pcols[c].right)
        draw_text_right(w, y, L->x[c], L->w[c], el, s);
    else
        draw_text(w, y, L->x[c], L->w[c], el, s);
}

static void draw_worker(view *v, WINDOW *w, int y, const playout *L, size_t index) {
    const run_model *m = v->app->model;
    const run_worker *wk = &m->workers[index];
    char b[512];
    int newest = m->nattempts && wk->attempt == m->shown_attempt;
    enum theme_element base = newest ? TH_NORMAL : TH_DIM;
    if (!wk->has_process) {
        style_escape(wk->path, b, sizeof b);
        put(w, y, L, P_ROLE, TH_ERROR, "(unknown)");
        if (L->x[P_RANK] >= 0) {
            int x = L->x[P_RANK];
            draw_text(w, y, x, getmaxx(w) - x - 1, TH_ERROR, b);
        }
        return;
    }
    style_escape(wk->role, b, sizeof b);
    put(w, y, L, P_ROLE, app_query_matches(v->app, b) ? TH_MATCH : base, b);
    if (wk->rank >= 0)
        snprintf(b, sizeof b, "%d", wk->rank);
    else
        snprintf(b, sizeof b, "-");
    put(w, y, L, P_RANK, base, b);
    style_escape(wk->host, b, sizeof b);
    put(w, y, L, P_HOST, app_query_matches(v->app, b) ? TH_MATCH : base, b);
    /* An imported file keeps no pid: unknown, never a pid 0 no process has. */
    if (wk->pid > 0)
        snprintf(b, sizeof b, "%" PRId64, wk->pid);
    else
        snprintf(b, sizeof b, "unknown");
    put(w, y, L, P_PID, wk->pid > 0 ? base : TH_DIM, b);
    if (wk->attempt != SIZE_MAX)
        snprintf(b, sizeof b, "%zu/%zu", wk->attempt + 1, m->nattempts);
    else
        snprintf(b, sizeof b, "-");
    put(w, y, L, P_ATTEMPT, base, b);
    put(w, y, L, P_RUNTIME, base, fmt_duration(b, sizeof b, (double)wk->runtime_ns));
    if (L->x[P_CPU] >= 0 || L->x[P_RSS] >= 0) {
        /* What the sampler measured, n/a where it measured nothing. */
        const run_res *res = run_worker_res(v->app->model, index);
        uint32_t pr = res ? res->present : 0;
        int cpu = (pr & (SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS)) != 0;
        put(w, y, L, P_CPU, cpu ? base : TH_DIM,
            cpu ? fmt_duration(b, sizeof b, (double)res->cpu_ns) : FMT_NA);
        int rss = res && res->rss_peak > 0;
        put(w, y, L, P_RSS, rss ? base : TH_DIM,
            rss ? fmt_bytes(b, sizeof b, (double)res->rss_peak) : FMT_NA);
    }
    /* The last frame as time into its attempt, so workers compare at a glance. */
    if (wk->attempt != SIZE_MAX)
        snprintf(b, sizeof b, "+%s", fmt_duration(b + 256, 256, (double)wk->last_in_attempt_ns));
    else
        fmt_wall(b, sizeof b, wk->last_wall_ns);
    put(w, y, L, P_LAST, base, b);
    put(w, y, L, P_END,
        wk->end == RUN_END_EXIT || (wk->end == RUN_END_RUNNING && !wk->stale) ? base : TH_WARN,
        ended(wk, b, sizeof b));
    snprintf(b, sizeof b, "%zu", wk->ncaveats);
    put(w, y, L, P_CAVEATS, wk->ncaveats ? TH_WARN : TH_DIM, wk->ncaveats ? b : "-");
}

static void draw_detail(view *v, WINDOW *w, int y, int width) {
    const run_model *m = v->app->model;
    draw_rule(w, y, width);
    size_t sel = list_selected(&v->list);
    if (sel == LIST_NONE)
        return;
    size_t index = v->list.rows[sel].index;
    const run_worker *wk = &m->workers[index];
    char label[600], line[1400], exe[512], path[600], b[4][48];
    app_worker_label(v->app, index, label, sizeof label);
    draw_text(w, y + 1, 1, width - 2, TH_ROLE, label);
    style_escape(wk->path, path, sizeof path);
    style_escape(wk->exe, exe, sizeof exe);
    snprintf(line, sizeof line, "log %s   %s frames%s   %u thread%s   program %s", path,
             fmt_ucount(b[0], 48, wk->frames), wk->frames_lost ? " (some lost)" : "", wk->nthreads,
             wk->nthreads == 1 ? "" : "s", exe[0] ? exe : "-");
    draw_text(w, y + 2, 1, width - 2, TH_NORMAL, line);
    snprintf(line, sizeof line, "started %s UTC   phase time %s",
             fmt_wall(b[1], 48, wk->start_wall_ns), fmt_duration(b[2], 48, (double)wk->phase_ns));
    draw_text(w, y + 3, 1, width - 2, TH_NORMAL, line);
    int shown = 0;
    for (size_t c = 0; c < m->ncaveats && shown < DETAIL_ROWS - 4; c++) {
        if (m->caveats[c].worker != index)
            continue;
        snprintf(line, sizeof line, "%s: %s", run_caveat_kind_name(m->caveats[c].kind),
                 m->caveats[c].text);
        draw_text(w, y + 4 + shown++, 1, width - 2, TH_WARN, line);
    }
    if (!shown)
        draw_text(w, y + 4, 1, width - 2, TH_DIM, "no caveats");
}

static void processes_draw(view *v, WINDOW *w, int top, int height, int width) {
    playout L = lay_out(width);
    int detail = height >= 16 ? DETAIL_ROWS : 0;
    int list_h = height - 1 - detail;
    draw_blank(w, top, 0, width, TH_COLUMNS);
    /* The sorted column's heading is marked; phase time has no column, so
     * the role's heading names it. */
    const char *mark = style_sort_marker((v->sort == PSORT_RANK) != v->reverse);
    int sorted = v->sort == PSORT_RUNTIME   ? P_RUNTIME
                 : v->sort == PSORT_CAVEATS ? P_CAVEATS
                                            : P_ROLE;
    for (int c = 0; c < NPCOL; c++) {
        char heading[64];
        if (c != sorted)
            snprintf(heading, sizeof heading, "%s", pcols[c].heading);
        else if (v->sort == PSORT_PHASE_TIME)
            snprintf(heading, sizeof heading, "role %sphase", mark);
        else if (pcols[c].right)
            snprintf(heading, sizeof heading, "%s%s", mark, pcols[c].heading);
        else
            snprintf(heading, sizeof heading, "%s %s", pcols[c].heading, mark);
        put(w, top, &L, (enum pcol)c, TH_COLUMNS, heading);
    }
    list *l = &v->list;
    list_scroll_to_cursor(l, list_h);
    for (int i = 0; i < list_h && l->top + (size_t)i < l->nvisible; i++) {
        size_t row = l->visible[l->top + (size_t)i];
        draw_worker(v, w, top + 1 + i, &L, l->rows[row].index);
        if (l->top + (size_t)i == l->cursor)
            style_selected_row(w, top + 1 + i, width);
    }
    if (detail)
        draw_detail(v, w, top + height - detail, width);
}

static int processes_action(view *v, enum action act) {
    app *a = v->app;
    size_t sel = list_selected(&v->list);
    if (act == ACT_ENTER && sel != LIST_NONE) {
        size_t index = v->list.rows[sel].index;
        const run_worker *w = &a->model->workers[index];
        char label[600];
        if (w->role_index == SIZE_MAX) {
            app_message(a, 1,
                        "%s is not in the attempt shown: only that one is analysed (A: the next)",
                        app_worker_label(a, index, label, sizeof label));
            return 1;
        }
        if (!run_model_has_logs(a->model)) {
            /* A summary keeps the roles' trees, not one process's own. */
            app_message(a, 1,
                        "a summary (scope-tui reduce) keeps no process's own tree: open the run "
                        "directory for %s's",
                        app_worker_label(a, index, label, sizeof label));
            return 1;
        }
        app_set_focus(a, index);
        return 1;
    }
    return 0;
}

static void processes_hint(view *v, char *buf, size_t cap) {
    snprintf(buf, cap, "Enter its phases  s sort:%s%s", psort_names[v->sort],
             v->reverse ? " (reversed)" : "");
}

static int processes_row_text(view *v, const list_row *r, char *buf, size_t cap) {
    app_worker_label(v->app, r->index, buf, cap);
    return 1;
}

static int processes_row_key(view *v, const list_row *r, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", v->app->model->workers[r->index].path.s);
    return 1;
}

const view_ops processes_view_ops = {
    .build = processes_build,
    .draw = processes_draw,
    .action = processes_action,
    .hint = processes_hint,
    .row_text = processes_row_text,
    .row_key = processes_row_key,
    .sorts = psort_names,
    .nsorts = PSORT_COUNT,
    .reversible = 1,
};
