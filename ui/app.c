/* The browser's layout and dispatcher; see app.h. */
#include "app.h"

#include "fmt.h"
#include "hot_lines.h"
#include "view_lines.h"
#include "run_follow.h"
#include "screen_text.h"
#include "style.h"

#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int app_init(app *a) {
    assert(a->current < view_count);
    a->focus_worker = SIZE_MAX;
    a->focus_view = view_of_ops(&phases_view_ops);
    a->help_view = view_of_ops(&help_view_ops);
    assert(a->focus_view != SIZE_MAX && a->help_view != SIZE_MAX);
    for (size_t i = 0; i < view_count; i++) {
        /* Each view's key shows that view: no other binding shadows it. */
        key_binding b = keymap_lookup(view_table[i].key);
        assert(!view_table[i].key || (b.action == ACT_VIEW && b.view == i));
        (void)b;
        view *v = &a->views[i];
        *v = (view){.def = &view_table[i], .ops = view_table[i].ops, .app = a};
        if ((v->ops->init && v->ops->init(v) < 0) || v->ops->build(v) < 0)
            return -1;
    }
    return 0;
}

void app_release(app *a) {
    for (size_t i = 0; i < view_count; i++) {
        view *v = &a->views[i];
        if (v->priv && v->ops->release)
            v->ops->release(v);
        free(v->priv);
        v->priv = NULL;
        list_free(&v->list);
    }
}

int app_view_filtered(const app *a, size_t view) {
    return a->views[view].ops->narrowed;
}

/* ---- search ------------------------------------------------------------------- */

typedef struct search_ctx {
    app *a;
    view *v;
} search_ctx;

/* A row the search finds: one the filter shows, whose text matches. */
static int row_matches(const list_row *r, void *ctx) {
    search_ctx *c = ctx;
    char text[1024];
    const list *l = &c->v->list;
    if (l->keep && !l->keep[r - l->rows])
        return 0;
    return c->v->ops->row_text && c->v->ops->row_text(c->v, r, text, sizeof text) &&
           app_query_matches(c->a, text);
}

/* ---- the name filter ------------------------------------------------------------ */

static void filter_clear(app *a, view *v) {
    v->filter[0] = '\0';
    app_filter_apply(v);
    app_message(a, 0, "filter cleared: every row of %s", v->def->title);
}

/* Writes a character as UTF-8 into out; returns its length. */
static int utf8_encode(unsigned key, char out[4]) {
    int n = 0;
    if (key < 0x80)
        out[n++] = (char)key;
    else if (key < 0x800) {
        out[n++] = (char)(0xC0 | key >> 6);
        out[n++] = (char)(0x80 | (key & 0x3F));
    } else if (key < 0x10000) {
        out[n++] = (char)(0xE0 | key >> 12);
        out[n++] = (char)(0x80 | (key >> 6 & 0x3F));
        out[n++] = (char)(0x80 | (key & 0x3F));
    } else {
        out[n++] = (char)(0xF0 | key >> 18);
        out[n++] = (char)(0x80 | (key >> 12 & 0x3F));
        out[n++] = (char)(0x80 | (key >> 6 & 0x3F));
        out[n++] = (char)(0x80 | (key & 0x3F));
    }
    return n;
}

/* Appends a character to the filter being typed, and applies it. */
static void filter_append(app *a, unsigned key) {
    view *v = &a->views[a->current];
    char utf8[4];
    int n = utf8_encode(key, utf8);
    size_t len = strlen(v->filter);
    if (len + (size_t)n < sizeof v->filter) {
        memcpy(v->filter + len, utf8, (size_t)n);
        v->filter[len + (size_t)n] = '\0';
    }
    if (app_filter_apply(v) < 0)
        app_message(a, 1, "out of memory");
}

/* A key while the filter is typed: it applies as it is typed, Enter keeps
 * it (an empty one clears it), Esc clears it. */
static void filter_key(app *a, int key) {
    view *v = &a->views[a->current];
    size_t len = strlen(v->filter);
    if (key == KEY_ESCAPE) {
        a->filtering = 0;
        filter_clear(a, v);
        return;
    }
    if (key == '\n' || key == '\r' || key == KEY_ENTER) {
        a->filtering = 0;
        if (!len) {
            filter_clear(a, v);
            return;
        }
        long n = app_filter_apply(v);
        if (n < 0)
            app_message(a, 1, "out of memory");
        else if (n == 0)
            app_message(a, 1, "no row matches the filter '%s': Esc clears it", v->filter);
        else
            app_message(a, 0, "%ld row%s '%s', shown with their parents: Esc clears", n,
                        n == 1 ? " matches" : "s match", v->filter);
        return;
    }
    if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        if (len) {
            do /* a whole UTF-8 character */
                len--;
            while (len && (v->filter[len] & 0xC0) == 0x80);
            v->filter[len] = '\0';
        }
    } else if (key >= ' ' && key < 127) {
        filter_append(a, (unsigned)key);
        return;
    } else {
        return; /* arrows and the like do nothing while typing */
    }
    if (app_filter_apply(v) < 0)
        app_message(a, 1, "out of memory");
}

/* Moves to the next match from `from` in direction dir; says when there is
 * none.  Hidden rows match too: the tree opens to show them. */
static int search_step(app *a, size_t from, int dir) {
    view *v = &a->views[a->current];
    search_ctx c = {a, v};
    size_t row = list_find(&v->list, from, dir, row_matches, &c);
    if (row == LIST_NONE) {
        app_message(a, 1, "no match for '%s' in %s", a->query, v->def->title);
        return -1;
    }
    list_reveal(&v->list, row);
    return 0;
}

static void search_append(app *a, unsigned key);
static void search_update(app *a);

static void search_key(app *a, int key) {
    view *v = &a->views[a->current];
    if (key == KEY_ESCAPE) {
        a->searching = 0;
        a->query_len = 0;
        a->query[0] = '\0';
        if (a->search_from != LIST_NONE)
            list_reveal(&v->list, a->search_from);
        return;
    }
    if (key == '\n' || key == '\r' || key == KEY_ENTER) {
        a->searching = 0;
        if (a->query_len) {
            search_ctx c = {a, v};
            size_t matches = 0;
            for (size_t i = 0; i < v->list.nrows; i++)
                matches += (size_t)row_matches(&v->list.rows[i], &c);
            if (matches)
                app_message(a, 0, "%zu row%s match '%s': n next, N previous", matches,
                            matches == 1 ? "" : "s", a->query);
        }
        return;
    }
    if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        if (a->query_len) {
            /* Drop a whole UTF-8 character. */
            do
                a->query_len--;
            while (a->query_len && (a->query[a->query_len] & 0xC0) == 0x80);
            a->query[a->query_len] = '\0';
        }
    } else if (key >= ' ' && key < 127) {
        search_append(a, (unsigned)key);
        return;
    } else {
        return; /* arrows and the like do nothing while typing */
    }
    search_update(a);
}

/* Appends a character, as UTF-8, to the query being typed. */
static void search_append(app *a, unsigned key) {
    char utf8[4];
    int n = utf8_encode(key, utf8);
    if (a->query_len + (size_t)n < sizeof a->query) {
        memcpy(a->query + a->query_len, utf8, (size_t)n);
        a->query_len += (size_t)n;
        a->query[a->query_len] = '\0';
    }
    search_update(a);
}

/* Incremental: the first match at or after where the search began. */
static void search_update(app *a) {
    view *v = &a->views[a->current];
    a->message[0] = '\0';
    if (a->query_len) {
        size_t from = a->search_from;
        size_t start = from == LIST_NONE ? LIST_NONE : (from == 0 ? v->list.nrows - 1 : from - 1);
        if (search_step(a, start, 1) < 0 && from != LIST_NONE)
            list_reveal(&v->list, from); /* as less and vim do: back where it began */
    } else if (a->search_from != LIST_NONE) {
        list_reveal(&v->list, a->search_from);
    }
}

/* ---- actions every view shares ---------------------------------------------------- */

static void save_screen(app *a) {
    char path[256], err[512];
    /* The screen as it is, before the status line says anything about it. */
    if (screen_text_save(stdscr, a->views[a->current].def->name, path, sizeof path, err,
                         sizeof err) < 0)
        app_message(a, 1, "%s", err);
    else
        app_message(a, 0, "saved the screen to %s", path);
}

/* What the follower's refresh read, for the reload's message:
 * " (1 log read on, 4 unchanged)", " (no log changed)". */
static void follow_said(const run_follow_stats *st, char *out, size_t cap) {
    const struct {
        size_t n;
        const char *what;
    } parts[] = {{st->read_on, "read on"},
                 {st->read_again, "read again"},
                 {st->added, "new"},
                 {st->vanished, "gone"},
                 {st->unchanged, "unchanged"}};
    if (st->unchanged == st->logs) {
        snprintf(out, cap, " (no log changed)");
        return;
    }
    size_t len = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0] && len < cap; i++)
        if (parts[i].n)
            len +=
                (size_t)snprintf(out + len, cap - len, "%s%zu%s %s", len ? ", " : " (", parts[i].n,
                                 len               ? ""
                                 : parts[i].n == 1 ? " log"
                                                   : " logs",
                                 parts[i].what);
    if (len && len < cap)
        snprintf(out + len, cap - len, ")");
}

/* The run read again into *m: by the follower (what changed since; the
 * model before is freed and a->model NULL), or whole.  Returns 0, or -1
 * with msg, a->model as it was when nothing could be read; after a
 * follower that failed past reading the run is read whole, and only when
 * that fails too is there no model left (a->model NULL). */
static int read_again(app *a, run_model **m, char *msg, size_t len) {
    if (a->follow && a->reopen) { /* a follower keeps the options it was opened with */
        run_free(a->model);
        a->model = NULL;
        run_follow_close(a->follow);
        a->follow = NULL;
        a->reopen = 0;
        return run_follow_open(&a->follow, a->run_dir, &a->opt, m, msg, len) == RUN_OK ? 0 : -1;
    }
    a->reopen = 0;
    if (!a->follow)
        return run_load(a->run_dir, &a->opt, m, msg, len) == RUN_OK ? 0 : -1;
    *m = a->model;
    enum run_load_error e = run_follow_refresh(a->follow, m, msg, len);
    if (e != RUN_OK && *m) { /* nothing was read: the model stands */
        *m = NULL;
        return -1;
    }
    a->model = NULL; /* the follower freed it */
    if (e == RUN_OK)
        return 0;
    run_follow_close(a->follow);
    a->follow = NULL;
    return run_follow_open(&a->follow, a->run_dir, &a->opt, m, msg, len) == RUN_OK ? 0 : -1;
}

static void reload(app *a, int quietly);

/* Builds every view again for a new model, each keeping its place as taken
 * before the old one went (freeing the places).  Returns 1 when memory ran
 * out, else 0. */
static int rebuild_all(app *a, view_place places[VIEW_MAX]) {
    int failed = 0;
    for (size_t i = 0; i < view_count; i++) {
        view *v = &a->views[i];
        v->list.nrows = 0; /* its rows pointed into the old model */
        v->list.nvisible = 0;
        if (v->ops->build(v) < 0)
            failed = 1;
        else
            view_place_restore(v, &places[i]);
        if (!failed && app_filter_apply(v) < 0)
            failed = 1;
        view_place_free(&places[i]);
    }
    return failed;
}

/* The fields of the run shown and of app.other, exchanged. */
static void swap_fields(app *a) {
    app_run shown = {a->run_dir,     a->opt,        a->model,
                     a->lines_model, a->lines_info, a->caveats_before_lines,
                     a->symbolizer,  a->follow};
    a->run_dir = a->other.run_dir;
    a->opt = a->other.opt;
    a->model = a->other.model;
    a->lines_model = a->other.lines_model;
    a->lines_info = a->other.lines_info;
    a->caveats_before_lines = a->other.caveats_before_lines;
    a->symbolizer = a->other.symbolizer;
    a->follow = a->other.follow;
    a->other = shown;
    a->showing_a = !a->showing_a;
}

/* b in a diff: every view but Diff shows the other run from now on, each
 * keeping its place where the other run has the same row (by key). */
static void swap_run(app *a) {
    if (!a->diff) {
        app_message(a, 1, "b switches between two runs: open them with scope-tui A B");
        return;
    }
    view_place places[VIEW_MAX];
    for (size_t i = 0; i < view_count; i++)
        view_place_take(&a->views[i], &places[i]);
    a->reopen = 0;
    swap_fields(a);
    a->focus_worker = SIZE_MAX; /* a worker index of the other run's */
    if (rebuild_all(a, places))
        app_message(a, 1, "out of memory");
    else {
        char dir[256];
        style_escape((run_str){a->run_dir, strlen(a->run_dir)}, dir, sizeof dir);
        app_message(a, 0, "the views show run %s now (%s); b shows run %s",
                    a->showing_a ? "A, the base" : "B", dir, a->showing_a ? "B" : "A");
    }
}

/* The next older attempt of the run (Overview lists them), from the oldest
 * back to the newest. */
static void show_next_attempt(app *a) {
    const run_model *m = a->model;
    if (m->nattempts < 2) {
        app_message(a, 0, "the run has one attempt: nothing else to show");
        return;
    }
    size_t next = m->shown_attempt ? m->shown_attempt - 1 : m->nattempts - 1;
    a->opt.attempt = next + 1;
    a->reopen = 1;
    reload(a, 1);
    if (a->model)
        app_message(a, 0, "attempt %zu of %zu shown%s (A: the next)", a->model->shown_attempt + 1,
                    a->model->nattempts,
                    a->model->shown_attempt + 1 == a->model->nattempts ? ", the newest" : "");
}

/* Reads the run again, every view keeping its place.  quietly: the
 * refresh timer's, which neither flashes a message while it reads nor
 * replaces the one shown, unless it fails or finds the run ended. */
static void reload(app *a, int quietly) {
    char msg[600];
    run_model *m = NULL;
    if (!a->headless && !quietly) {
        /* A long run takes a moment to read again: say so meanwhile. */
        app_message(a, 0, "reloading %s ...", a->run_dir);
        app_draw(a);
        refresh();
    }
    /* Views keep their place by keys, taken before the old model goes. */
    view_place places[VIEW_MAX];
    for (size_t i = 0; i < view_count; i++)
        view_place_take(&a->views[i], &places[i]);
    char focus[4096] = "";
    if (a->focus_worker != SIZE_MAX)
        snprintf(focus, sizeof focus, "%s", a->model->workers[a->focus_worker].path.s);
    if (read_again(a, &m, msg, sizeof msg) < 0) {
        for (size_t i = 0; i < view_count; i++)
            view_place_free(&places[i]);
        if (!a->model) {
            app_message(a, 1, "reload failed, nothing left to show: %s", msg);
            a->quit = 1;
            return;
        }
        app_message(a, 1, "reload failed, still showing what was loaded: %s", msg);
        return;
    }
    run_free(a->model);
    a->model = m;
    a->loads++;
    a->focus_worker = SIZE_MAX;
    for (size_t i = 0; focus[0] && i < m->nworkers; i++)
        if (!strcmp(m->workers[i].path.s, focus))
            a->focus_worker = i;
    int failed = rebuild_all(a, places);
    char when[32];
    fmt_duration(when, sizeof when, (double)m->runtime_ns);
    if (failed)
        app_message(a, 1, "out of memory while reloading");
    else if (quietly && !m->nrunning)
        app_message(a, 0, "the run has ended: %zu process%s, runtime %s; refreshing stopped",
                    m->nprocs, m->nprocs == 1 ? "" : "es", when);
    else if (!quietly) {
        char read[160] = "";
        if (a->follow)
            follow_said(run_follow_last(a->follow), read, sizeof read);
        app_message(a, 0, "reloaded: %zu process%s, %zu caveat%s, runtime %s%s", m->nprocs,
                    m->nprocs == 1 ? "" : "es", m->ncaveats, m->ncaveats == 1 ? "" : "s", when,
                    read);
    }
}

int app_refreshing(const app *a) {
    return a->refresh_ms > 0 && a->model && a->model->nrunning > 0;
}

void app_refresh_tick(app *a) {
    if (app_refreshing(a) && !a->searching)
        reload(a, 1);
}

/* Whether view i has a tab and Tab stops at it: a view with a key, and the
 * Diff view while two runs are open. */
static int view_tabbed(const app *a, size_t i) {
    return view_table[i].key || (a->diff && view_table[i].ops == &diff_view_ops);
}

/* The view Tab (dir 1) or S-Tab (-1) goes to: the next one with a tab. */
static size_t next_tab(const app *a, int dir) {
    size_t i = a->current;
    do
        i = (i + (dir > 0 ? 1 : view_count - 1)) % view_count;
    while (!view_tabbed(a, i) && i != a->current);
    return i;
}

static void switch_view(app *a, size_t index) {
    assert(index < view_count);
    if (index == a->help_view && a->current != a->help_view)
        a->help_return = a->current;
    a->current = index;
}

/* On the help, q, Esc and ? close it and go back to the view (and row, which
 * each view keeps) it was opened from, as less, htop, tig and perf do; F10
 * still quits. */
static int help_closes(const app *a, enum action act) {
    return a->current == a->help_view && (act == ACT_QUIT || act == ACT_CLEAR || act == ACT_HELP);
}

void app_char(app *a, unsigned codepoint) {
    if (a->filtering) {
        filter_append(a, codepoint);
        return;
    }
    if (a->searching) {
        search_append(a, codepoint);
        return;
    }
    app_message(a, 1, "U+%04X does nothing here (? lists the keys)", codepoint);
}

void app_key(app *a, int key) {
    if (a->filtering) {
        filter_key(a, key);
        return;
    }
    if (a->searching) {
        search_key(a, key);
        return;
    }
    a->message[0] = '\0';
    if (key == KEY_RESIZE)
        return; /* the caller has the new size; the next draw lays it out */
    app_fresh(a);
    key_binding bound = keymap_lookup(key);
    enum action act = bound.action;
    view *v = &a->views[a->current];
    list *l = &v->list;
    if (act == ACT_NONE) {
        /* A key without a name is passed over quietly, as htop does. */
        char name[24];
        if (keymap_key_name(key, name, sizeof name))
            app_message(a, 1, "%s does nothing here (? lists the keys)", name);
        return;
    }
    if (help_closes(a, act)) {
        switch_view(a, a->help_return);
        return;
    }
    /* Esc clears the name filter before any filter a view has of its own. */
    if (act == ACT_CLEAR && v->filter[0]) {
        filter_clear(a, v);
        return;
    }
    if (v->ops->action && v->ops->action(v, act))
        return;
    size_t sel = list_selected(l);
    switch (act) {
    case ACT_UP:
    case ACT_DOWN:
        list_move(l, act == ACT_DOWN ? 1 : -1);
        break;
    case ACT_PAGE_UP:
    case ACT_PAGE_DOWN:
        list_page(l, act == ACT_PAGE_DOWN);
        break;
    case ACT_HOME:
        list_home(l);
        break;
    case ACT_END:
        list_end(l);
        break;
    case ACT_ENTER:
        if (sel != LIST_NONE && list_has_children(l, sel) && !l->rows[sel].expanded) {
            l->rows[sel].expanded = 1;
            list_refresh(l);
        } else if (sel != LIST_NONE && list_has_children(l, sel)) {
            list_move(l, 1); /* already open: step into it */
        }
        break;
    case ACT_BACK:
        if (sel != LIST_NONE && list_has_children(l, sel) && l->rows[sel].expanded) {
            l->rows[sel].expanded = 0;
            list_refresh(l);
        } else if (sel != LIST_NONE && l->rows[sel].parent != LIST_NONE) {
            list_reveal(l, l->rows[sel].parent);
        }
        break;
    case ACT_TOGGLE:
        if (sel != LIST_NONE && list_has_children(l, sel)) {
            l->rows[sel].expanded = !l->rows[sel].expanded;
            list_refresh(l);
        }
        break;
    case ACT_EXPAND_ALL:
    case ACT_COLLAPSE_ALL:
        list_expand_all(l, act == ACT_EXPAND_ALL);
        break;
    case ACT_VIEW_NEXT:
    case ACT_VIEW_PREV:
        switch_view(a, next_tab(a, act == ACT_VIEW_NEXT ? 1 : -1));
        break;
    case ACT_VIEW:
        switch_view(a, bound.view);
        break;
    case ACT_HELP:
        switch_view(a, a->help_view);
        break;
    case ACT_DIFF:
        if (a->diff)
            switch_view(a, view_of_ops(&diff_view_ops));
        else
            app_message(a, 1, "D shows two runs compared: open them with scope-tui A B");
        break;
    case ACT_SWAP_RUN:
        swap_run(a);
        break;
    case ACT_SEARCH:
        a->searching = 1;
        a->query_len = 0;
        a->query[0] = '\0';
        a->search_from = sel;
        break;
    case ACT_FILTER:
        if (!v->ops->row_text) {
            app_message(a, 1, "the %s view has no names to filter", v->def->title);
            break;
        }
        a->filtering = 1;
        v->filter[0] = '\0';
        app_filter_apply(v);
        break;
    case ACT_SEARCH_NEXT:
    case ACT_SEARCH_PREV:
        if (!a->query_len)
            app_message(a, 1, "no search yet: / starts one");
        else
            search_step(a, sel, act == ACT_SEARCH_NEXT ? 1 : -1);
        break;
    case ACT_SORT:
        if (!v->ops->nsorts) {
            app_message(a, 1, "the %s view has one order only", v->def->title);
            break;
        }
        v->sort = (v->sort + 1) % v->ops->nsorts;
        if (app_rebuild(v) < 0)
            app_message(a, 1, "out of memory");
        else
            app_message(a, 0, "sorted by %s", v->ops->sorts[v->sort]);
        break;
    case ACT_REVERSE:
        if (!v->ops->nsorts || !v->ops->reversible) {
            app_message(a, 1, "the %s view's order cannot be reversed", v->def->title);
            break;
        }
        v->reverse = !v->reverse;
        if (app_rebuild(v) < 0)
            app_message(a, 1, "out of memory");
        else
            app_message(a, 0, "sorted by %s, %s", v->ops->sorts[v->sort],
                        v->reverse ? "reversed" : "in its usual order");
        break;
    case ACT_CLEAR:
        if (a->focus_worker != SIZE_MAX) {
            app_set_focus(a, SIZE_MAX);
            app_message(a, 0, "process filter cleared: every process of each role");
        } else if (a->query_len) {
            a->query_len = 0;
            a->query[0] = '\0';
        }
        break;
    case ACT_SAVE:
        save_screen(a);
        break;
    case ACT_OPEN_SOURCE:
        app_message(a, 1, "o opens a phase's source: select a phase in the Phases view");
        break;
    case ACT_HOTTEST:
        lines_view_show_hottest(a, NULL, NULL);
        break;
    case ACT_PHASE_LINES:
        app_message(a, 1, "L shows a phase's hot lines: select a phase in the Phases view");
        break;
    case ACT_ATTRIBUTION:
        app_message(a, 1, "a switches the attribution of the Lines and Source views");
        break;
    case ACT_CALLERS:
        app_message(a, 1, "c shows a function's callers and callees: on Lines or Flame");
        break;
    case ACT_FRAME_NAMES:
    case ACT_FRAME_COLOR:
    case ACT_FRAME_PREV:
    case ACT_FRAME_NEXT:
    case ACT_CPU_STATE:
        app_message(a, 1, "that key works on the Flame view (F)");
        break;
    case ACT_RELOAD:
        reload(a, 0);
        break;
    case ACT_ATTEMPT:
        show_next_attempt(a);
        break;
    case ACT_REDRAW:
        if (!a->headless)
            clearok(curscr, TRUE);
        break;
    case ACT_QUIT:
    case ACT_QUIT_NOW:
        a->quit = 1;
        break;
    default:
        break;
    }
}

/* ---- drawing -------------------------------------------------------------------- */

static void draw_header(app *a, int width) {
    const run_model *m = a->model;
    char line[1024], num[64], part[256];
    size_t len = 0;
    len += (size_t)snprintf(line + len, sizeof line - len, " scope");
    /* Two runs: which one the header (and every view but Diff) shows. */
    if (a->diff)
        len += (size_t)snprintf(line + len, sizeof line - len, "  %s", a->showing_a ? "A:" : "B:");
    if (m->nattempts) {
        style_escape(m->attempts[m->shown_attempt].run_id, part, sizeof part);
        len += (size_t)snprintf(line + len, sizeof line - len, "  run %s", part);
    }
    len += (size_t)snprintf(line + len, sizeof line - len, "  %s  %zu process%s",
                            fmt_duration(num, sizeof num, (double)m->runtime_ns), m->nprocs,
                            m->nprocs == 1 ? "" : "es");
    /* A run in progress says so first, and how it is kept up to date. */
    if (m->nrunning && a->refresh_ms > 0)
        len += (size_t)snprintf(line + len, sizeof line - len, "  IN PROGRESS, refresh %d%s",
                                a->refresh_ms % 1000 ? a->refresh_ms : a->refresh_ms / 1000,
                                a->refresh_ms % 1000 ? "ms" : "s");
    else if (m->nrunning)
        len += (size_t)snprintf(line + len, sizeof line - len, "  IN PROGRESS, r refreshes");
    for (size_t r = 0; r < m->nroles && len < sizeof line - 300; r++) {
        style_escape(m->roles[r].name, part, sizeof part);
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%s x%zu", r ? ", " : "  ", part,
                                m->roles[r].nprocs);
    }
    if (m->nhosts == 1) {
        style_escape(m->hosts[0], part, sizeof part);
        snprintf(line + len, sizeof line - len, "  host %s", part);
    } else {
        snprintf(line + len, sizeof line - len, "  %zu hosts", m->nhosts);
    }
    /* The caveat count keeps the right end; the rest is cut before it, with
     * an ellipsis, never overwritten mid-word. */
    size_t ncaveats = app_run_caveats(a);
    char cav[48] = "";
    int cav_w = 0;
    if (ncaveats) {
        snprintf(cav, sizeof cav, " %zu caveat%s ", ncaveats, ncaveats == 1 ? "" : "s");
        cav_w = (int)strlen(cav);
        if (width <= cav_w + 40)
            cav_w = 0;
    }
    draw_blank(stdscr, 0, 0, width, TH_HEADER);
    draw_text(stdscr, 0, 0, cav_w ? width - cav_w - 1 : width, TH_HEADER, line);
    if (cav_w)
        draw_text(stdscr, 0, width - cav_w, cav_w, TH_WARN, cav);
}

/* The tab of view i, padded: " 1 Phases ". */
static const char *tab_text(size_t i, char *tab, size_t cap) {
    char key[24];
    if (view_table[i].key)
        snprintf(tab, cap, " %s %s ", keymap_key_name(view_table[i].key, key, sizeof key),
                 view_table[i].title);
    else if (view_table[i].ops == &diff_view_ops) /* its key is the key table's */
        snprintf(tab, cap, " %s %s ", keymap_key_name(keymap_action_key(ACT_DIFF), key, sizeof key),
                 view_table[i].title);
    else
        snprintf(tab, cap, " %s ", view_table[i].title);
    return tab;
}

static void draw_tabs(app *a, int width) {
    draw_blank(stdscr, 1, 0, width, TH_TAB);
    /* A column between tabs when they all fit so; none when that is what
     * keeps the last one whole (80 columns). */
    int need = 1, gap = 1;
    char tab[64];
    for (size_t i = 0; i < view_count; i++)
        if (view_tabbed(a, i) || i == a->current)
            need += (int)fmt_width(tab_text(i, tab, sizeof tab)) + 1;
    if (need > width)
        gap = 0;
    int x = 1;
    for (size_t i = 0; i < view_count && x < width; i++) {
        if (!view_tabbed(a, i) && i != a->current)
            continue; /* reached from another view: a tab only while shown */
        x += draw_text(stdscr, 1, x, width - x, i == a->current ? TH_TAB_ACTIVE : TH_TAB,
                       tab_text(i, tab, sizeof tab));
        x += gap;
    }
}

/* Whether the filter line shows: a process filter on a view it narrows,
 * or the view's name filter, kept or being typed. */
static int filter_line_shown(const app *a) {
    const view *v = &a->views[a->current];
    return (a->focus_worker != SIZE_MAX && app_view_filtered(a, a->current)) || v->filter[0] ||
           a->filtering;
}

/* The filters on: "only actor rank 3 (pid 41 on node07)", "filter 'mcts':
 * 2 matching rows, with their parents", or both. */
static void draw_filter(app *a, int y, int width) {
    const view *v = &a->views[a->current];
    char label[600], name[300], line[1000] = "";
    size_t len = 0;
    if (a->focus_worker != SIZE_MAX && app_view_filtered(a, a->current))
        len += (size_t)snprintf(line, sizeof line, " only %s",
                                app_worker_label(a, a->focus_worker, label, sizeof label));
    if (v->filter[0] || a->filtering) {
        style_escape((run_str){v->filter, strlen(v->filter)}, name, sizeof name);
        snprintf(line + len, sizeof line - len,
                 "%s filter '%s': %ld matching row%s, with their parents", len ? ";" : "", name,
                 v->filter_matches, v->filter_matches == 1 ? "" : "s");
    }
    draw_blank(stdscr, y, 0, width, TH_FILTER);
    draw_text(stdscr, y, 0, width - 14, TH_FILTER, line);
    draw_text_right(stdscr, y, width - 14, 13, TH_FILTER, "Esc clears");
}

static void draw_status(app *a, int y, int width) {
    draw_blank(stdscr, y, 0, width, TH_STATUS);
    if (a->filtering) {
        char line[300];
        snprintf(line, sizeof line, "filter: %s", a->views[a->current].filter);
        int x = draw_text(stdscr, y, 0, width - 1, TH_STATUS, line);
        draw_text_right(stdscr, y, x + 1, width - x - 1, TH_STATUS,
                        "Enter keeps  Esc or empty clears ");
        return;
    }
    if (a->searching) {
        char line[300];
        snprintf(line, sizeof line, "/%s", a->query);
        int x = draw_text(stdscr, y, 0, width - 1, TH_STATUS, line);
        draw_text_right(stdscr, y, x + 1, width - x - 1, TH_STATUS, "Enter keeps  Esc cancels ");
        return;
    }
    if (a->message[0]) {
        draw_text(stdscr, y, 1, width - 1, a->message_is_error ? TH_ERROR : TH_STATUS, a->message);
        return;
    }
    char hint[300] = "";
    view *v = &a->views[a->current];
    if (v->ops->hint)
        v->ops->hint(v, hint, sizeof hint);
    char line[512];
    snprintf(line, sizeof line, "%s%s/ search  P save  %s", hint, hint[0] ? "  " : "",
             a->current == a->help_view ? "q back  F10 quit" : "? help  q quit");
    int drawn = draw_text(stdscr, y, 1, width - 1, TH_STATUS, line);
    /* "KEY what  KEY what": each key drawn again in its own style, so the
     * eye finds them and the text stays what it is (saved screens agree). */
    int x = 1;
    for (char *seg = line; *seg;) {
        char *next = strstr(seg, "  ");
        if (next)
            *next = '\0';
        char *space = strchr(seg, ' ');
        if (space)
            *space = '\0';
        int key_w = (int)fmt_width(seg);
        if (x + key_w >= 1 + drawn)
            break;                                          /* cut off, or under the ellipsis */
        draw_text(stdscr, y, x, key_w, TH_STATUS_KEY, seg); /* the same text, restyled */
        if (space)
            *space = ' ';
        if (!next)
            break;
        x += (int)fmt_width(seg) + 2;
        seg = next + 2;
    }
}

static void draw_too_small(app *a) {
    erase();
    char need[128];
    snprintf(need, sizeof need, "needs %d%s%d, has %d%s%d", APP_MIN_COLS, style_utf8 ? "×" : "x",
             APP_MIN_ROWS, a->cols, style_utf8 ? "×" : "x", a->rows);
    const char *lines[] = {"scope-tui: terminal too small", need, "enlarge it, or q quits"};
    int n = 3, top = a->rows / 2 - 1;
    for (int i = 0; i < n; i++) {
        int y = top + i;
        if (y < 0 || y >= a->rows)
            continue;
        int w = (int)fmt_width(lines[i]);
        int x = w < a->cols ? (a->cols - w) / 2 : 0;
        draw_text(stdscr, y, x, a->cols - x, i ? TH_NORMAL : TH_WARN, lines[i]);
    }
}

void app_draw(app *a) {
    style_set(stdscr, TH_NORMAL);
    if (a->rows < APP_MIN_ROWS || a->cols < APP_MIN_COLS) {
        draw_too_small(a);
        return;
    }
    bkgdset(' ');
    erase();
    draw_header(a, a->cols);
    draw_tabs(a, a->cols);
    int top = 2;
    if (filter_line_shown(a))
        draw_filter(a, top++, a->cols);
    app_fresh(a);
    view *v = &a->views[a->current];
    int height = a->rows - 1 - top;
    v->ops->draw(v, stdscr, top, height, a->cols);
    draw_status(a, a->rows - 1, a->cols);
    style_set(stdscr, TH_NORMAL);
}
