/*
 * The Callers view (perf report's caller/callee, pprof's peek): for one
 * function, opened by c on a line of Lines or a frame of Flame, the
 * functions that called it and those it called, each with its share of
 * the function's samples and that share's standard deviation.  A sample
 * counts once, at the outermost call of the function on its stack, so
 * the callers' shares add up to 100% and so do the callees' with "(self)",
 * the samples in which the function itself was running.  Enter on a caller
 * or callee shows its own; Backspace goes back, to the view it came from
 * at the last.
 */
#include "fmt.h"
#include "run_stacks.h"
#include "style.h"
#include "view_callers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum row_kind { ROW_HEAD, ROW_SECTION, ROW_PEER };
enum { SECTION_CALLERS = 0, SECTION_CALLEES = 1 };

#define HISTORY_MAX  32
#define NAME_MAX_LEN 1024

typedef struct fn_id {
    char function[NAME_MAX_LEN], file[NAME_MAX_LEN], module[NAME_MAX_LEN];
    size_t function_len, file_len, module_len;
} fn_id;

typedef struct callers_state {
    hot_scope scope;
    int open;
    fn_id fn;       /* the function shown */
    fn_id *history; /* the functions Enter came from, oldest first */
    size_t nhistory;
    size_t from; /* the view Backspace returns to at the last */
    run_callers res;
    char msg[512];
} callers_state;

static int callers_init(view *v) {
    callers_state *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->scope.worker = SIZE_MAX;
    v->priv = st;
    return 0;
}

static void callers_release(view *v) {
    callers_state *st = v->priv;
    run_callers_free(&st->res);
    free(st->history);
}

static void set_id(fn_id *id, run_str function, run_str file, run_str module) {
    id->function_len = function.len < NAME_MAX_LEN ? function.len : NAME_MAX_LEN - 1;
    id->file_len = file.len < NAME_MAX_LEN ? file.len : NAME_MAX_LEN - 1;
    id->module_len = module.len < NAME_MAX_LEN ? module.len : NAME_MAX_LEN - 1;
    memcpy(id->function, function.s, id->function_len);
    memcpy(id->file, file.s, id->file_len);
    memcpy(id->module, module.s, id->module_len);
    id->function[id->function_len] = id->file[id->file_len] = id->module[id->module_len] = '\0';
}

static int callers_build(view *v) {
    callers_state *st = v->priv;
    app *a = v->app;
    list_clear(&v->list);
    run_callers_free(&st->res);
    st->msg[0] = '\0';
    if (!st->open)
        return list_done(&v->list);
    if (hot_scope_resolve(a, &st->scope))
        app_message(a, 0, "the phase the callers were narrowed to is gone: every sample shown");
    const run_lines_info *info = hot_lines_info_in_build(a, v, st->msg, sizeof st->msg);
    if (!info)
        return list_done(&v->list);
    run_lines_query q = {
        .role = st->scope.role ? st->scope.role->name.s : NULL,
        .worker = a->focus_worker,
        .phase = st->scope.phase,
        .cpu = st->scope.cpu,
    };
    if (run_callers_select(a->model, &q, (run_str){st->fn.function, st->fn.function_len},
                           (run_str){st->fn.file, st->fn.file_len},
                           (run_str){st->fn.module, st->fn.module_len}, &st->res, st->msg,
                           sizeof st->msg) < 0)
        return list_done(&v->list);
    if (list_add(&v->list, 0, ROW_HEAD, NULL, 0) == LIST_NONE ||
        list_add(&v->list, 0, ROW_SECTION, NULL, SECTION_CALLERS) == LIST_NONE)
        return -1;
    for (size_t i = 0; i < st->res.ncallers; i++)
        if (list_add(&v->list, 1, ROW_PEER, &st->res.callers[i], SECTION_CALLERS) == LIST_NONE)
            return -1;
    if (list_add(&v->list, 0, ROW_SECTION, NULL, SECTION_CALLEES) == LIST_NONE)
        return -1;
    for (size_t i = 0; i < st->res.ncallees; i++)
        if (list_add(&v->list, 1, ROW_PEER, &st->res.callees[i], SECTION_CALLEES) == LIST_NONE)
            return -1;
    if (list_done(&v->list) < 0 || list_expand_all(&v->list, 1) < 0)
        return -1;
    return 0;
}

void callers_view_open(app *a, const hot_scope *sc, run_str function, run_str file, run_str module,
                       size_t from) {
    size_t here = view_of_ops(&callers_view_ops);
    view *v = &a->views[here];
    callers_state *st = v->priv;
    set_id(&st->fn, function, file, module);
    st->open = 1;
    st->nhistory = 0;
    hot_scope_set(a, &st->scope, sc->role, sc->phase);
    st->scope.cpu = sc->cpu; /* Flame's w: on- or off-CPU samples, or all */
    if (from != here)
        st->from = from;
    a->current = here;
    if (app_rebuild(v) < 0)
        app_message(a, 1, "out of memory");
    list_home(&v->list);
}

/* ---- drawing ------------------------------------------------------------------- */

static const char *peer_name(const run_peer *p, char *buf, size_t cap) {
    if (p->kind == RUN_PEER_SELF)
        return snprintf(buf, cap, "(self: the function itself was running)"), buf;
    if (p->kind == RUN_PEER_OUTERMOST)
        return snprintf(buf, cap, "(none: the stack's outermost frame)"), buf;
    run_flame_frame f = {.kind = RUN_FRAME_CODE, .function = p->function, .module = p->module};
    return run_flame_name(&f, buf, cap);
}

static void draw_row(view *v, WINDOW *w, int y, int width, const list_row *r) {
    callers_state *st = v->priv;
    app *a = v->app;
    const run_callers *c = &st->res;
    char line[2048], name[1024], file[700], b[4][48];
    if (r->kind == ROW_HEAD) {
        run_flame_frame f = {.kind = RUN_FRAME_CODE, .function = c->function, .module = c->module};
        /* From Flame's w: the shares are of those samples only. */
        char of[64] = "the selection";
        if (st->scope.cpu != RUN_LINES_CPU_ALL)
            snprintf(of, sizeof of, "the %s samples", run_lines_cpu_name(st->scope.cpu));
        snprintf(line, sizeof line, "%s  %s  %s samples, %s +- %s of %s, self %s",
                 run_flame_name(&f, name, sizeof name),
                 hot_file_shown(a, c->file, file, sizeof file), fmt_ucount(b[0], 48, c->samples),
                 fmt_percent(b[1], 48, c->share, 1), fmt_percent(b[2], 48, c->share_sd, 1), of,
                 fmt_percent(b[3], 48, c->total ? (double)c->self / (double)c->total : 0, 1));
        draw_text(w, y, 1, width - 2, TH_ROLE, line);
        return;
    }
    if (r->kind == ROW_SECTION) {
        draw_text(w, y, 1, width - 2, TH_COLUMNS,
                  r->index == SECTION_CALLERS
                      ? "Callers  (share of its samples +- sd, samples, function, file)"
                      : "Callees  (share of its samples +- sd, samples, function, file)");
        return;
    }
    const run_peer *p = r->item;
    int x = 3;
    int bar = width >= 100 ? 12 : width >= 70 ? 8 : 0;
    if (bar) {
        draw_bar(w, y, x, bar, p->share);
        x += bar + 1;
    }
    snprintf(line, sizeof line, "%6s %5s %8s  ", fmt_percent(b[0], 48, p->share, 1),
             fmt_percent(b[1], 48, p->share_sd, 1), fmt_ucount(b[2], 48, p->samples));
    x += draw_text(w, y, x, width - x - 1, TH_NORMAL, line);
    peer_name(p, name, sizeof name);
    if (p->kind == RUN_PEER_FUNCTION && p->file.len) {
        size_t n = strlen(name);
        snprintf(name + n, sizeof name - n, "  %s", hot_file_shown(a, p->file, file, sizeof file));
    }
    if (x < width - 1)
        draw_escaped(w, y, x, width - x - 1, p->kind == RUN_PEER_FUNCTION ? TH_NORMAL : TH_DIM,
                     name);
}

static void callers_draw(view *v, WINDOW *w, int top, int height, int width) {
    callers_state *st = v->priv;
    list *l = &v->list;
    if (!st->open) {
        draw_text(w, top + 1, 1, width - 2, TH_DIM,
                  "c on a line of Lines or a frame of Flame shows its function's callers here");
        return;
    }
    if (!l->nrows) {
        draw_text(w, top + 1, 1, width - 2, TH_DIM, st->msg);
        return;
    }
    list_scroll_to_cursor(l, height);
    for (int i = 0; i < height && l->top + (size_t)i < l->nvisible; i++) {
        const list_row *r = &l->rows[l->visible[l->top + (size_t)i]];
        draw_row(v, w, top + i, width, r);
        if (l->top + (size_t)i == l->cursor)
            style_selected_row(w, top + i, width);
    }
}

/* ---- keys ------------------------------------------------------------------------ */

static int callers_action(view *v, enum action act) {
    callers_state *st = v->priv;
    app *a = v->app;
    size_t sel = list_selected(&v->list);
    const list_row *r = sel == LIST_NONE ? NULL : &v->list.rows[sel];
    switch (act) {
    case ACT_ENTER:
    case ACT_CALLERS:
        if (!r || r->kind != ROW_PEER || ((const run_peer *)r->item)->kind != RUN_PEER_FUNCTION)
            return 1;
        {
            const run_peer *p = r->item;
            if (!st->history && !(st->history = calloc(HISTORY_MAX, sizeof *st->history))) {
                app_message(a, 1, "out of memory");
                return 1;
            }
            if (st->nhistory == HISTORY_MAX) {
                memmove(st->history, st->history + 1, (HISTORY_MAX - 1) * sizeof *st->history);
                st->nhistory--;
            }
            st->history[st->nhistory++] = st->fn;
            set_id(&st->fn, p->function, p->file, p->module);
        }
        if (app_rebuild(v) < 0)
            app_message(a, 1, "out of memory");
        list_home(&v->list);
        return 1;
    case ACT_BACK:
        if (!st->nhistory) {
            a->current = st->from;
            return 1;
        }
        st->fn = st->history[--st->nhistory];
        if (app_rebuild(v) < 0)
            app_message(a, 1, "out of memory");
        list_home(&v->list);
        return 1;
    default:
        return 0;
    }
}

static void callers_hint(view *v, char *buf, size_t cap) {
    (void)v;
    snprintf(buf, cap, "Enter its callers and callees  BS back");
}

static int callers_row_text(view *v, const list_row *r, char *buf, size_t cap) {
    (void)v;
    if (r->kind != ROW_PEER)
        return 0;
    peer_name(r->item, buf, cap);
    return 1;
}

static int callers_row_key(view *v, const list_row *r, char *buf, size_t cap) {
    (void)v;
    if (r->kind != ROW_PEER) {
        snprintf(buf, cap, "%d\x1f%zu", r->kind, r->index);
        return 1;
    }
    char name[1024];
    snprintf(buf, cap, "%zu\x1f%s", r->index, peer_name(r->item, name, sizeof name));
    return 1;
}

const view_ops callers_view_ops = {
    .narrowed = 1,
    .init = callers_init,
    .build = callers_build,
    .draw = callers_draw,
    .action = callers_action,
    .hint = callers_hint,
    .row_text = callers_row_text,
    .row_key = callers_row_key,
    .release = callers_release,
};
