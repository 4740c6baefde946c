#define _GNU_SOURCE /* memrchr */
/*
 * The Flame view: the sampled call paths as an icicle (the root on top,
 * each frame as wide as its samples, its callees below it), of the role
 * and phase selected in the Phases view, as L narrows Lines: select a
 * phase there and press F.  Esc widens it to every role; the process filter
 * narrows it as it does Lines.
 *
 * Frames are functions (f: file:line), coloured by module or by project
 * against the rest (m).  Up and Down move to the caller and the widest
 * callee, [ and ] along the row, Enter zooms into the frame (it becomes the
 * full width) and Backspace goes back out; / searches frame names,
 * highlights every match and says what share of the samples they hold
 * (each sample once, however many matching frames its stack has).  c shows
 * the selected function's callers and callees.  w shows every sample, the
 * off-CPU ones (where the threads waited: a wall-clock run, docs/lines.md)
 * or the on-CPU ones; c's callers keep that choice.  The figures are the
 * model's (run_stacks.h); a live run's refresh rebuilds them, keeping the
 * zoom and the selected frame by their call paths.
 *
 * Every frame is a row of the view's list (depth first, as the model gives
 * them), so search, n and N and the saved place across a rebuild work as in
 * every other view; the list is never drawn as a list.
 */
#include "fmt.h"
#include "hot_lines.h"
#include "run_stacks.h"
#include "style.h"
#include "view_callers.h"
#include "view_phases.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KEY_MAX_LEN  4096 /* a frame's call path as a key */
#define ZOOM_MAX     64   /* zoom levels Backspace can go back through */
#define DETAIL_LINES 3    /* the rule, the selected frame, the search or the keys */

typedef struct flame_state {
    hot_scope scope;
    int active; /* drawn once: the line data is loaded */
    /* The Phases selection last followed, by names (a reload keeps them). */
    int followed;
    char followed_role[256], followed_phase[1024];
    run_flame fl;
    size_t *end; /* per frame: one past the last frame under it */
    enum run_flame_names names;
    int by_module;                  /* colours by module; else project against the rest */
    size_t zoom;                    /* the frame shown full width */
    char (*zoom_keys)[KEY_MAX_LEN]; /* the zooms Backspace goes back to, oldest first */
    size_t nzooms;
    char zoom_key[KEY_MAX_LEN]; /* the zoom's, to find it again after a rebuild */
    size_t first_row;           /* depth below the zoom drawn on the first row */
    char msg[512];              /* why there is no flame */
} flame_state;

static flame_state *state(view *v) {
    return v->priv;
}

/* ---- frames' names and keys ---------------------------------------------------- */

static const char *base_name(run_str path, char *buf, size_t cap) {
    const char *slash = path.len ? memrchr(path.s, '/', path.len) : NULL;
    run_str b = slash ? (run_str){slash + 1, path.len - (size_t)(slash + 1 - path.s)} : path;
    return style_escape(b, buf, cap);
}

/* The frame's label: its function, or file:line when frames are lines. */
static const char *label(const flame_state *st, const run_flame_frame *f, char *buf, size_t cap) {
    if (st->names == RUN_FLAME_LINES && f->kind == RUN_FRAME_CODE && f->file.len && f->line) {
        char file[512];
        snprintf(buf, cap, "%s:%u", base_name(f->file, file, sizeof file), f->line);
        return buf;
    }
    return run_flame_name(f, buf, cap);
}

/* One frame's part of a key: its name, file and line. */
static size_t key_part(const run_flame_frame *f, char *buf, size_t cap) {
    char name[1024], file[1024];
    run_flame_name(f, name, sizeof name);
    style_escape(f->file, file, sizeof file);
    int n = snprintf(buf, cap, "%d\x1f%s\x1f%s\x1f%u\x1e", (int)f->kind, name, file, f->line);
    return n < 0 ? 0 : (size_t)n;
}

/* The frame's call path from the root: what finds it again in a new tree. */
static void frame_key(const run_flame *fl, size_t k, char *buf, size_t cap) {
    size_t path[1100], n = 0;
    for (size_t a = k; a != RUN_FLAME_NONE && n < sizeof path / sizeof *path;
         a = fl->frames[a].parent)
        path[n++] = a;
    size_t used = 0;
    buf[0] = '\0';
    while (n-- && used < cap)
        used += key_part(&fl->frames[path[n]], buf + used, cap - used);
}

/* The frame of that key, or RUN_FLAME_NONE. */
static size_t find_key(const run_flame *fl, const char *key) {
    if (!fl->nframes || !key[0])
        return RUN_FLAME_NONE;
    char part[2200];
    size_t len = key_part(&fl->frames[0], part, sizeof part), k = 0;
    if (strncmp(key, part, len))
        return RUN_FLAME_NONE;
    key += len;
    while (*key) {
        size_t c = fl->frames[k].first_child;
        for (; c != RUN_FLAME_NONE; c = fl->frames[c].next_sibling) {
            len = key_part(&fl->frames[c], part, sizeof part);
            if (!strncmp(key, part, len))
                break;
        }
        if (c == RUN_FLAME_NONE)
            return RUN_FLAME_NONE;
        key += len;
        k = c;
    }
    return k;
}

/* ---- building -------------------------------------------------------------------- */

static int flame_init(view *v) {
    flame_state *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->scope.worker = SIZE_MAX;
    st->fl.period_ns = NAN;
    v->priv = st;
    return 0;
}

static void flame_release(view *v) {
    flame_state *st = state(v);
    run_flame_free(&st->fl);
    free(st->end);
    free(st->zoom_keys);
}

/* Follows the Phases view's selection when it changed since last seen. */
static int follow_phases(app *a, flame_state *st) {
    const run_phase *phase;
    const run_role *role = phases_view_selection(a, &phase);
    char rname[256] = "", ppath[1024] = "";
    if (role)
        snprintf(rname, sizeof rname, "%.*s", (int)role->name.len, role->name.s);
    if (phase)
        run_phase_path(phase, ppath, sizeof ppath);
    if (st->followed && !strcmp(rname, st->followed_role) && !strcmp(ppath, st->followed_phase))
        return 0;
    st->followed = 1;
    snprintf(st->followed_role, sizeof st->followed_role, "%s", rname);
    snprintf(st->followed_phase, sizeof st->followed_phase, "%s", ppath);
    hot_scope_set(a, &st->scope, role, phase);
    st->nzooms = 0;
    st->zoom_key[0] = '\0';
    return 1;
}

static int flame_build(view *v) {
    flame_state *st = state(v);
    app *a = v->app;
    /* The selected frame is found again by its call path, here rather than
     * through row keys: building every row's path would cost a large
     * flame more than a key may take. */
    char sel_key[KEY_MAX_LEN] = "";
    if (st->fl.nframes) {
        size_t sel = list_selected(&v->list);
        if (sel != LIST_NONE && sel < st->fl.nframes)
            frame_key(&st->fl, sel, sel_key, sizeof sel_key);
    }
    list_clear(&v->list);
    run_flame_free(&st->fl);
    free(st->end);
    st->end = NULL;
    st->msg[0] = '\0';
    st->zoom = 0;
    if (!st->active)
        return list_done(&v->list);
    if (hot_scope_resolve(a, &st->scope))
        app_message(a, 0, "the phase the flame was narrowed to is gone: every sample shown");
    /* Loading the lines here builds the other views again, not this one. */
    const run_lines_info *info = hot_lines_info_in_build(a, v, st->msg, sizeof st->msg);
    if (!info)
        return list_done(&v->list);
    if (!info->has_lines) {
        hot_lines_none(a, st->msg, sizeof st->msg);
        return list_done(&v->list);
    }
    run_lines_query q = {
        .role = st->scope.role ? st->scope.role->name.s : NULL,
        .worker = a->focus_worker,
        .phase = st->scope.phase,
        .cpu = st->scope.cpu,
    };
    if (run_flame_build(a->model, &q, st->names, &st->fl, st->msg, sizeof st->msg) < 0)
        return list_done(&v->list);
    if (!st->fl.samples) {
        /* Nothing to draw: no frames, so the view says why (and never
         * walks frames it has no ends for). */
        run_flame_free(&st->fl);
        snprintf(st->msg, sizeof st->msg, "no stack was sampled in this selection");
        return list_done(&v->list);
    }
    const run_flame *fl = &st->fl;
    st->end = malloc(fl->nframes * sizeof *st->end);
    if (!st->end)
        return -1;
    /* Depth first: a frame's subtree runs to the next frame no deeper. */
    size_t stack[1100], top = 0;
    for (size_t k = 0; k < fl->nframes; k++) {
        while (top && fl->frames[stack[top - 1]].depth >= fl->frames[k].depth)
            st->end[stack[--top]] = k;
        if (top < sizeof stack / sizeof *stack)
            stack[top++] = k;
        else
            st->end[k] = k + 1; /* deeper than any path the model keeps */
    }
    while (top)
        st->end[stack[--top]] = fl->nframes;
    /* A flat list: the frames' depths are the flame's business. */
    for (size_t k = 0; k < fl->nframes; k++)
        if (list_add(&v->list, 0, 0, &fl->frames[k], k) == LIST_NONE)
            return -1;
    if (list_done(&v->list) < 0)
        return -1;
    size_t z = find_key(fl, st->zoom_key);
    st->zoom = z == RUN_FLAME_NONE ? 0 : z;
    size_t sel = find_key(fl, sel_key);
    list_reveal(&v->list, sel == RUN_FLAME_NONE ? st->zoom : sel);
    return 0;
}

/* ---- moving and zooming ------------------------------------------------------ */

static size_t selected(view *v) {
    size_t sel = list_selected(&v->list);
    return sel == LIST_NONE || sel >= state(v)->fl.nframes ? 0 : sel;
}

static void select_frame(view *v, size_t k) {
    list_reveal(&v->list, k);
}

/* Whether frame k lies under the zoom (or is it). */
static int in_zoom(const flame_state *st, size_t k) {
    if (!st->end || st->zoom >= st->fl.nframes)
        return 0; /* nothing built (no samples, or out of memory) */
    return k >= st->zoom && k < st->end[st->zoom];
}

/* Columns of frame k in a row `width` wide: [*x0, *x1). */
static void columns(const flame_state *st, size_t k, int width, int *x0, int *x1) {
    if (st->zoom >= st->fl.nframes || k >= st->fl.nframes) { /* nothing built */
        *x0 = *x1 = 0;
        return;
    }
    const run_flame_frame *z = &st->fl.frames[st->zoom], *f = &st->fl.frames[k];
    double scale = z->samples ? (double)width / (double)z->samples : 0;
    *x0 = (int)((double)(f->left - z->left) * scale + 0.5);
    *x1 = (int)((double)(f->left - z->left + f->samples) * scale + 0.5);
}

static void zoom_to(view *v, size_t k) {
    flame_state *st = state(v);
    if (k == st->zoom)
        return;
    if (!st->zoom_keys && !(st->zoom_keys = calloc(ZOOM_MAX, sizeof *st->zoom_keys))) {
        app_message(v->app, 1, "out of memory");
        return;
    }
    if (st->nzooms == ZOOM_MAX) {
        memmove(st->zoom_keys, st->zoom_keys + 1, (ZOOM_MAX - 1) * sizeof *st->zoom_keys);
        st->nzooms--;
    }
    snprintf(st->zoom_keys[st->nzooms++], KEY_MAX_LEN, "%s", st->zoom_key);
    st->zoom = k;
    frame_key(&st->fl, k, st->zoom_key, sizeof st->zoom_key);
    st->first_row = 0;
}

/* The frame on k's row next to it (dir -1 left, 1 right) wide enough to
 * be drawn, under the zoom; k when none. */
static size_t row_neighbour(view *v, size_t k, int dir, int width) {
    flame_state *st = state(v);
    uint32_t depth = st->fl.frames[k].depth;
    size_t lo = st->zoom, hi = st->end[st->zoom];
    for (size_t i = dir > 0 ? k + 1 : k; dir > 0 ? i < hi : i > lo;) {
        size_t c = dir > 0 ? i++ : --i;
        if (st->fl.frames[c].depth != depth)
            continue;
        int x0, x1;
        columns(st, c, width, &x0, &x1);
        if (x1 > x0)
            return c;
    }
    return k;
}

static int flame_action(view *v, enum action act) {
    flame_state *st = state(v);
    app *a = v->app;
    if (act == ACT_CLEAR) {
        if (!st->scope.role && !st->scope.phase)
            return 0;
        hot_scope_set(a, &st->scope, NULL, NULL);
        st->nzooms = 0;
        st->zoom_key[0] = '\0';
        if (app_rebuild(v) < 0)
            app_message(a, 1, "out of memory");
        else
            app_message(a, 0, "every role's samples: select a phase in Phases and F narrows again");
        return 1;
    }
    if (!st->fl.nframes)
        return act == ACT_ENTER || act == ACT_BACK || act == ACT_UP || act == ACT_DOWN ||
               act == ACT_FRAME_PREV || act == ACT_FRAME_NEXT || act == ACT_CALLERS;
    size_t k = selected(v);
    const run_flame_frame *f = &st->fl.frames[k];
    switch (act) {
    case ACT_UP:
        if (k != st->zoom && f->parent != RUN_FLAME_NONE)
            select_frame(v, f->parent);
        return 1;
    case ACT_DOWN:
        if (f->first_child != RUN_FLAME_NONE)
            select_frame(v, f->first_child); /* the widest */
        return 1;
    case ACT_FRAME_PREV:
    case ACT_FRAME_NEXT:
        select_frame(v, row_neighbour(v, k, act == ACT_FRAME_NEXT ? 1 : -1, a->cols));
        return 1;
    case ACT_HOME:
        st->nzooms = 0;
        st->zoom = 0;
        st->zoom_key[0] = '\0';
        st->first_row = 0;
        select_frame(v, 0);
        return 1;
    case ACT_END:
    case ACT_PAGE_UP:
    case ACT_PAGE_DOWN:
    case ACT_TOGGLE:
    case ACT_EXPAND_ALL:
    case ACT_COLLAPSE_ALL:
        return 1; /* a list's moves: nothing here */
    case ACT_ENTER:
        if (k == st->zoom && f->first_child != RUN_FLAME_NONE)
            select_frame(v, f->first_child);
        else
            zoom_to(v, k);
        return 1;
    case ACT_BACK:
        if (!st->nzooms) {
            app_message(a, 0, "not zoomed: Enter zooms into the selected frame");
            return 1;
        }
        snprintf(st->zoom_key, sizeof st->zoom_key, "%s", st->zoom_keys[--st->nzooms]);
        {
            size_t z = find_key(&st->fl, st->zoom_key);
            st->zoom = z == RUN_FLAME_NONE ? 0 : z;
        }
        st->first_row = 0;
        return 1;
    case ACT_CPU_STATE:
        /* every sample -> off-CPU -> on-CPU -> every sample */
        st->scope.cpu = st->scope.cpu == RUN_LINES_CPU_ALL   ? RUN_LINES_CPU_OFF
                        : st->scope.cpu == RUN_LINES_CPU_OFF ? RUN_LINES_CPU_ON
                                                             : RUN_LINES_CPU_ALL;
        if (app_rebuild(v) < 0)
            app_message(a, 1, "out of memory");
        else {
            /* A newer recorder's states are off a CPU too, of a kind unknown. */
            const run_lines_info *info = hot_lines_info(a, NULL, 0);
            int unknown = info && info->off_unknown;
            app_message(a, 0, "%s",
                        st->scope.cpu == RUN_LINES_CPU_OFF
                            ? (unknown ? "off-CPU samples: where the threads waited, blocked, "
                                         "queued or of a kind this reader does not know"
                                       : "off-CPU samples: where the threads waited, blocked or "
                                         "queued")
                        : st->scope.cpu == RUN_LINES_CPU_ON
                            ? "on-CPU samples: where the threads ran"
                            : "every sample, on a CPU or off it");
        }
        return 1;
    case ACT_FRAME_NAMES:
    case ACT_FRAME_COLOR:
        if (act == ACT_FRAME_NAMES)
            st->names = st->names == RUN_FLAME_FUNCTIONS ? RUN_FLAME_LINES : RUN_FLAME_FUNCTIONS;
        else
            st->by_module = !st->by_module;
        if (act == ACT_FRAME_NAMES) {
            /* Frames change: the zoom and the selection start again at the root. */
            st->nzooms = 0;
            st->zoom_key[0] = '\0';
            if (app_rebuild(v) < 0)
                app_message(a, 1, "out of memory");
            select_frame(v, 0);
        }
        app_message(a, 0, "%s",
                    act == ACT_FRAME_NAMES
                        ? (st->names == RUN_FLAME_LINES ? "a frame per source line (file:line)"
                                                        : "a frame per function")
                        : (st->by_module ? "coloured by module"
                                         : "coloured: the project's code against the rest"));
        return 1;
    case ACT_CALLERS:
        if (f->kind != RUN_FRAME_CODE) {
            app_message(a, 1, "c shows a function's callers: select a frame below the %s",
                        f->kind == RUN_FRAME_ROLE ? "role" : "root");
            return 1;
        }
        {
            hot_scope sc = st->scope;
            /* With every role shown, the frame's role narrows it. */
            for (size_t r = k; !sc.role && r != RUN_FLAME_NONE; r = st->fl.frames[r].parent)
                if (st->fl.frames[r].kind == RUN_FRAME_ROLE)
                    sc.role = run_find_role(a->model, st->fl.frames[r].function.s);
            callers_view_open(a, &sc, f->function, f->file, f->module, a->current);
        }
        return 1;
    default:
        return 0;
    }
}

/* ---- drawing --------------------------------------------------------------------- */

static const enum theme_element module_colors[] = {TH_BAR, TH_ROLE, TH_COUNTER, TH_WARN, TH_FILTER};

static enum theme_element frame_color(const flame_state *st, const run_flame_frame *f) {
    if (f->kind != RUN_FRAME_CODE)
        return TH_ROLE;
    if (!st->by_module)
        return f->in_project ? TH_BAR : TH_COUNTER;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < f->module.len; i++)
        h = (h ^ (uint8_t)f->module.s[i]) * 0x100000001b3ull;
    return module_colors[h % (sizeof module_colors / sizeof *module_colors)];
}

/* The samples of the frames whose names match the search, each sample once
 * (a match under a match is not counted again), and how many frames match. */
static uint64_t search_share(view *v, size_t *nframes) {
    flame_state *st = state(v);
    app *a = v->app;
    uint64_t samples = 0;
    size_t skip_to = 0;
    *nframes = 0;
    for (size_t k = 1; k < st->fl.nframes; k++) {
        char name[1024];
        if (!app_query_matches(a, label(st, &st->fl.frames[k], name, sizeof name)))
            continue;
        ++*nframes;
        if (k >= skip_to) {
            samples += st->fl.frames[k].samples;
            skip_to = st->end[k];
        }
    }
    return samples;
}

static void draw_frame(view *v, WINDOW *w, int y, int x0, int x1, size_t k, size_t sel) {
    flame_state *st = state(v);
    app *a = v->app;
    const run_flame_frame *f = &st->fl.frames[k];
    char name[1024];
    label(st, f, name, sizeof name);
    int match = a->query_len && k && app_query_matches(a, name);
    enum theme_element el = k == sel ? TH_SELECTED : match ? TH_MATCH : frame_color(st, f);
    /* The frame's first column marks it, so a frame shows without colour
     * too: '>' selected, '*' a search match, '|' any other. */
    const char *mark = k == sel ? ">" : match ? "*" : "|";
    draw_text(w, y, x0, 1, el, mark);
    if (x1 - x0 > 1) {
        draw_blank(w, y, x0 + 1, x1 - x0 - 1, el);
        draw_escaped(w, y, x0 + 1, x1 - x0 - 1, el, name);
    }
}

static void draw_detail(view *v, WINDOW *w, int y, int width, size_t sel) {
    flame_state *st = state(v);
    app *a = v->app;
    const run_flame *fl = &st->fl;
    const run_flame_frame *f = &fl->frames[sel];
    char name[1024], where[700], b[6][48], line[2048];
    run_flame_name(f, name, sizeof name);
    where[0] = '\0';
    if (f->kind == RUN_FRAME_CODE) {
        char file[600], mod[300];
        if (f->file.len && f->line)
            snprintf(where, sizeof where, "  %s:%u", hot_file_shown(a, f->file, file, sizeof file),
                     f->line);
        else if (f->file.len)
            snprintf(where, sizeof where, "  %s", hot_file_shown(a, f->file, file, sizeof file));
        if (f->module.len) {
            size_t n = strlen(where);
            snprintf(where + n, sizeof where - n, "  (%s)", base_name(f->module, mod, sizeof mod));
        }
    }
    double share = fl->samples ? (double)f->samples / (double)fl->samples : 0;
    double sd = run_lines_share_sd(share, fl->samples, fl->per_signal);
    double self = fl->samples ? (double)f->self / (double)fl->samples : 0;
    snprintf(line, sizeof line, "%s  %s +- %s of all, %s samples, self %s, %s%s", name,
             fmt_percent(b[1], 48, share, 1), fmt_percent(b[2], 48, sd, 1),
             fmt_ucount(b[0], 48, f->samples), fmt_percent(b[3], 48, self, 1),
             fmt_duration(b[4], 48, f->seconds * 1e9), where);
    draw_text(w, y, 1, width - 2, TH_NORMAL, line);
    if (a->query_len) {
        size_t nmatch;
        uint64_t s = search_share(v, &nmatch);
        double p = fl->samples ? (double)s / (double)fl->samples : 0;
        double psd = run_lines_share_sd(p, fl->samples, fl->per_signal);
        snprintf(line, sizeof line, "/%s: %zu frame%s, %s +- %s of the samples (%s)", a->query,
                 nmatch, nmatch == 1 ? "" : "s", fmt_percent(b[0], 48, p, 1),
                 fmt_percent(b[1], 48, psd, 1), fmt_ucount(b[2], 48, s));
        draw_text(w, y + 1, 1, width - 2, TH_MATCH, line);
    } else {
        /* Where the frame is: its callers from the outermost. */
        size_t path[1100], n = 0, used = 0;
        for (size_t k = f->parent; k != RUN_FLAME_NONE && n < sizeof path / sizeof *path;
             k = fl->frames[k].parent)
            path[n++] = k;
        used = (size_t)snprintf(line, sizeof line, "in ");
        while (n-- && used < sizeof line) {
            char part[512];
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s",
                                     run_flame_name(&fl->frames[path[n]], part, sizeof part),
                                     n ? " > " : "");
        }
        /* Too long for the row: its end, the nearest callers, is what matters. */
        const char *shown = line;
        while (fmt_width(shown) > (size_t)(width > 6 ? width - 6 : 1) && strstr(shown + 1, " > "))
            shown = strstr(shown + 1, " > ") + 3;
        char cut[2100];
        snprintf(cut, sizeof cut, "%s%s", shown == line ? "" : "in ... > ", shown);
        draw_text(w, y + 1, 1, width - 2, TH_DIM, f->parent == RUN_FLAME_NONE ? "" : cut);
    }
}

static void flame_draw(view *v, WINDOW *w, int top, int height, int width) {
    flame_state *st = state(v);
    app *a = v->app;
    int rebuild = !st->active;
    st->active = 1;
    if (follow_phases(a, st))
        rebuild = 1;
    if (rebuild && app_rebuild(v) < 0)
        app_message(a, 1, "out of memory");
    const run_flame *fl = &st->fl;
    char line[2048], what[1400], b[4][48];
    what[0] = '\0';
    if (st->scope.role) {
        char rn[256];
        snprintf(what, sizeof what, "role %s", style_escape(st->scope.role->name, rn, sizeof rn));
    } else {
        snprintf(what, sizeof what, "every role");
    }
    if (st->scope.phase) {
        char path[1024];
        size_t n = strlen(what);
        snprintf(what + n, sizeof what - n, ", phase %s",
                 run_phase_path(st->scope.phase, path, sizeof path));
    }
    if (st->scope.cpu != RUN_LINES_CPU_ALL) {
        size_t n = strlen(what);
        snprintf(what + n, sizeof what - n, ", %s samples", run_lines_cpu_name(st->scope.cpu));
    }
    if (!fl->nframes) {
        draw_text(w, top, 1, width - 2, TH_COLUMNS, what);
        char none[300];
        draw_text(w, top + 2, 1, width - 2, TH_DIM,
                  st->msg[0] ? st->msg : hot_lines_none(v->app, none, sizeof none));
        return;
    }
    size_t sel = selected(v);
    if (!in_zoom(st, sel)) { /* a search went outside the zoom: back to the root */
        st->nzooms = 0;
        st->zoom = 0;
        st->zoom_key[0] = '\0';
    }
    const run_flame_frame *z = &fl->frames[st->zoom];
    /* Wall-clock samples stand for time on a CPU or off it. */
    const run_lines_info *info = hot_lines_info(a, NULL, 0);
    size_t wall = info ? info->wall_workers : 0;
    snprintf(line, sizeof line, "Flame of %s: %s samples, %s of %s", what,
             fmt_ucount(b[0], 48, fl->samples), fmt_duration(b[1], 48, fl->seconds * 1e9),
             !wall                           ? "CPU"
             : wall == info->sampled_workers ? "wall time"
                                             : "CPU and wall time");
    if (st->zoom) {
        char name[512];
        size_t n = strlen(line);
        snprintf(line + n, sizeof line - n, "; zoomed into %s (%s)",
                 run_flame_name(z, name, sizeof name),
                 fmt_percent(b[2], 48, (double)z->samples / (double)fl->samples, 1));
    }
    draw_text(w, top, 1, width - 2, TH_COLUMNS, line);
    int rows = height - 1 - DETAIL_LINES;
    if (rows < 1)
        rows = 1;
    /* Keep the selected frame's row on the screen. */
    size_t sel_row = fl->frames[sel].depth - z->depth;
    if (sel_row < st->first_row)
        st->first_row = sel_row;
    else if (sel_row >= st->first_row + (size_t)rows)
        st->first_row = sel_row - (size_t)rows + 1;
    for (int r = 0; r < rows; r++)
        draw_blank(w, top + 1 + r, 0, width, TH_NORMAL);
    for (size_t k = st->zoom; k < st->end[st->zoom];) {
        int x0, x1;
        columns(st, k, width, &x0, &x1);
        if (x1 <= x0) { /* narrower than a column: so is all under it */
            k = st->end[k];
            continue;
        }
        size_t row = fl->frames[k].depth - z->depth;
        if (row >= st->first_row && row < st->first_row + (size_t)rows)
            draw_frame(v, w, top + 1 + (int)(row - st->first_row), x0, x1, k, sel);
        else if (row >= st->first_row + (size_t)rows) {
            k = st->end[k];
            continue;
        }
        k++;
    }
    if (height > DETAIL_LINES) {
        int y = top + height - DETAIL_LINES;
        draw_rule(w, y, width);
        draw_detail(v, w, y + 1, width, sel);
    }
}

static void flame_hint(view *v, char *buf, size_t cap) {
    flame_state *st = state(v);
    snprintf(buf, cap, "Enter zoom  BS back  c callers  f %s  m %s  w %s",
             st->names == RUN_FLAME_LINES ? "functions" : "file:line",
             st->by_module ? "project" : "modules",
             st->scope.cpu == RUN_LINES_CPU_ALL   ? "off-CPU"
             : st->scope.cpu == RUN_LINES_CPU_OFF ? "on-CPU"
                                                  : "all");
}

static int flame_row_text(view *v, const list_row *r, char *buf, size_t cap) {
    flame_state *st = state(v);
    if (r->index >= st->fl.nframes || !r->index)
        return 0;
    label(st, &st->fl.frames[r->index], buf, cap);
    return 1;
}

const view_ops flame_view_ops = {
    .narrowed = 1,
    .init = flame_init,
    .build = flame_build,
    .draw = flame_draw,
    .action = flame_action,
    .hint = flame_hint,
    .row_text = flame_row_text,
    .release = flame_release,
};
