/*
 * The browser's state and what a view may ask of it: the app (the run's
 * model, the views, the process filter, the search), view_ops, and the
 * calls views make back (a message, a rebuild, the process filter, the
 * search's match, a worker's label).  Every view is one file behind
 * view_ops (tig's way), listed with its name, key and title in views.c's
 * table, built on the one list widget (list.h); figures come from the model
 * (run_model.h) and are printed with src/'s formatting, so they read as in
 * `scope-tui report`.
 *
 * The views sit above this and app.h (the layout and the dispatcher) above
 * them: a view never calls the dispatcher, so the files of ui/ depend on
 * each other one way (tests/check_src_deps.sh, ui_deps).
 */
#ifndef SCOPE_UI_BROWSER_H
#define SCOPE_UI_BROWSER_H

#include "keymap.h"
#include "list.h"
#include "run_lines.h"
#include "run_model.h"
#include "theme.h"
#include "views.h"

#include <curses.h>
#include <stddef.h>

struct app;
struct view;

typedef struct view_ops {
    /* Sets up the view's own state in priv, once, before the first build;
     * NULL when it has none.  Returns 0, or -1 when out of memory. */
    int (*init)(struct view *v);
    /* (Re)builds the rows from the model, after loading, reloading, a new
     * sort or filter; keeps the cursor on the same item where it can.
     * Returns 0, or -1 when out of memory. */
    int (*build)(struct view *v);
    /* Draws the view in rows [top, top + height) of the screen. */
    void (*draw)(struct view *v, WINDOW *w, int top, int height, int width);
    /* Handles an action the view gives a meaning of its own (drilling in,
     * opening the source); returns 1 when it did. */
    int (*action)(struct view *v, enum action a);
    /* The view's own keys for the status line ("Enter expand  s sort:total"). */
    void (*hint)(struct view *v, char *buf, size_t cap);
    /* The text search looks at in a row; 0 when the row has none. */
    int (*row_text)(struct view *v, const list_row *r, char *buf, size_t cap);
    /* What identifies the row's item across a rebuild or reload (a role and
     * phase path, a log's path); 0 when nothing does. */
    int (*row_key)(struct view *v, const list_row *r, char *buf, size_t cap);
    /* Frees what the state in priv holds, when init set one up; the app
     * frees priv itself.  NULL when there is nothing more to free. */
    void (*release)(struct view *v);
    /* The view's sort orders, which s cycles through (view.sort indexes
     * them) and rebuilds the view for; none when nsorts is 0. */
    const char *const *sorts;
    int nsorts;
    /* Whether the view's build honours view.reverse, so I may turn the
     * order round; else I says the order is fixed. */
    int reversible;
    /* Whether the process filter (app.focus_worker) changes what it
     * shows: then it is built again when the filter changes, and the
     * filter line shows above it while the filter is on. */
    int narrowed;
} view_ops;

typedef struct view {
    const view_def *def; /* its row in views.c's table */
    const view_ops *ops; /* def->ops */
    struct app *app;
    list list;
    char filter[128];    /* the name filter (\): matching rows, their ancestors and below */
    long filter_matches; /* how many rows it matches */
    int sort;            /* the view's own sort order */
    int reverse;         /* the order turned round (smallest first, names Z to A) */
    int stale;           /* built for another process filter: built again before it is used */
    void *priv;          /* the view's own state, set up by ops->init */
} view;

/* What belongs to one run of the browser's: the fields of the run shown
 * (app's own, below) and, in a diff, of the other run (app.other); b swaps
 * the two (app_swap_run).  Each field means what app's of that name does. */
typedef struct app_run {
    const char *run_dir;
    run_options opt;
    run_model *model;
    const run_model *lines_model;
    run_lines_info lines_info;
    size_t caveats_before_lines;
    lines_symbolizer *symbolizer;
    struct run_follow *follow;
} app_run;

typedef struct app {
    const char *run_dir;
    const char *source_dir; /* --source-dir: where else source files are looked for */
    run_options opt;
    run_model *model;
    theme theme;

    view views[VIEW_MAX]; /* one per row of views.c's table, in its order */
    size_t current;       /* the view shown: an index into views */
    size_t focus_view;    /* the view the process filter narrows (the phase tree) */
    size_t help_view;     /* the view ? shows */
    size_t help_return;   /* the view the help was opened from: q, Esc and ? go back there */

    /* The run's line data (hot_lines.h), loaded on first use for the model
     * it names. */
    const run_model *lines_model;
    run_lines_info lines_info;
    /* The model's caveats before loading the lines added theirs (missing
     * debug info...): the header counts these, so its count does not
     * change when Lines is first opened; app_run_caveats() gives it. */
    size_t caveats_before_lines;
    /* Kept across the models of a run read again as it goes on: a refresh
     * symbolizes only the modules and addresses that are new. */
    lines_symbolizer *symbolizer;

    int rows, cols;      /* the screen's size */
    size_t focus_worker; /* the process filter: a worker index, SIZE_MAX for none */

    /* Search: typed after '/', kept for n and N. */
    int searching; /* the query is being typed */
    char query[128];
    size_t query_len;
    size_t search_from; /* the row the search started from */
    int filtering;      /* the current view's filter is being typed (after \) */

    char message[512]; /* shown in the status line until the next key */
    int message_is_error;

    /* A run in progress (model->nrunning) is read again by itself every
     * refresh_ms, as r reads it, each view keeping its place; 0: only r
     * does.  loads counts the reads since the first, so a timer can start
     * over after each. */
    int refresh_ms;
    unsigned loads;
    /* Reads only what changed at each refresh (run_follow.h); NULL for a
     * source that is not a run directory, read whole each time.  It owns
     * the processes' tables of model. */
    struct run_follow *follow;
    int reopen; /* the next read starts a new follower: run_options changed (an attempt) */

    /* Two runs (scope-tui A B): the Diff view compares them, the other
     * views show one of them, B first, and b swaps which: the fields above
     * are the shown run's, other holds the other run's. */
    int diff;
    int showing_a;     /* the run shown is A, the base */
    app_run other;     /* the run not shown */
    double confidence; /* of the Diff view's intervals; 0: 0.95 */

    int headless; /* keys come from --keys; no terminal is touched */
    int quit;     /* also when a reload failed and left no model: message says why */
} app;

/* Rebuilds a view from the model, keeping the selected row and what was
 * expanded (matched by row_key).  Returns 0 or -1 (memory). */
int app_rebuild(view *v);

/* The keys of the rows that have children, with their state, and the key of
 * the selected row: what a rebuild (new sort, filter or a reload) should
 * keep. */
typedef struct view_place_entry {
    char *key;
    int expanded;
} view_place_entry;

typedef struct view_place {
    view_place_entry *v; /* sorted by key, for bsearch: a tree may have thousands of rows */
    size_t n;
    char *selected;
    size_t selected_pos; /* the cursor's screen position, kept too */
} view_place;

void view_place_take(view *v, view_place *p);
/* Selects and expands the rows of a rebuilt view as p has them. */
void view_place_restore(view *v, const view_place *p);
void view_place_free(view_place *p);

/* Applies the view's name filter to its rows, or shows them all when it
 * has none.  Returns how many rows match, 0 with no filter, -1 when out of
 * memory. */
long app_filter_apply(view *v);

/* A message for the status line (printf-style). */
void app_message(app *a, int is_error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The process filter: SIZE_MAX clears it.  Switches to the phase tree. */
void app_set_focus(app *a, size_t worker);
/* Builds the view shown again if it was built for another process filter
 * (view.stale); every key and every draw calls it first. */
void app_fresh(app *a);

/* Whether text matches the search query: smart case (case-sensitive only
 * when the query has a capital letter), as less and vim do.  The name
 * filter matches the same way. */
int app_query_matches(const app *a, const char *text);

/* In a diff, the base run A and the candidate B, whichever is shown;
 * NULL when one run is open. */
static inline run_model *app_model_a(const app *a) {
    return !a->diff ? NULL : a->showing_a ? a->model : a->other.model;
}
static inline run_model *app_model_b(const app *a) {
    return !a->diff ? NULL : a->showing_a ? a->other.model : a->model;
}

/* Shared by the views: a worker's label for this terminal ("actor rank 3
 * (pid 41 on node07)"), escaped.  Returns buf. */
const char *app_worker_label(const app *a, size_t worker, char *buf, size_t cap);

#endif
