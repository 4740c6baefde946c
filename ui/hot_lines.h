/*
 * What the Lines and Source views share: which samples they show (a
 * hot_scope: a role or all, a phase or all, an attribution, with the
 * process filter), the run's line data loaded once, the file names as
 * shown.  The moves between views that H, L and Enter make are the
 * views' own (view_source.h, view_lines.h).  The figures are the model's
 * (run_lines.h); nothing here computes one.
 */
#ifndef SCOPE_UI_HOT_LINES_H
#define SCOPE_UI_HOT_LINES_H

#include "browser.h"
#include "run_lines.h"

/* Which samples: kept by names as well as pointers, so a reload (a new
 * model) finds the same role and phase again. */
typedef struct hot_scope {
    const run_role *role;   /* NULL: every role (one group each in Lines) */
    const run_phase *phase; /* NULL: every sample of the role; else the phase and those
                               under it */
    enum run_lines_attr attr;
    enum run_lines_cpu cpu; /* Flame and its callers: which samples, on- or off-CPU */
    const run_model *model; /* the model the pointers belong to */
    size_t worker;          /* the process filter they were found under */
    char role_name[256];    /* as recorded, to find the role again */
    char phase_path[1024];  /* run_phase_path, to find the phase again */
} hot_scope;

/* Sets the scope to a role and phase of the current model (either NULL). */
void hot_scope_set(app *a, hot_scope *sc, const run_role *role, const run_phase *phase);

/* Finds the scope's role and phase again after a reload or a new process
 * filter; drops what is gone.  Returns 1 when the phase filter was dropped. */
int hot_scope_resolve(app *a, hot_scope *sc);

/* The run's line data, symbolized on first use (run_lines_load) and kept
 * with the model.  Returns the info, or NULL with a plain line in msg.
 * Loading adds the lines' caveats, so the views that list caveats are
 * built again then. */
const run_lines_info *hot_lines_info(app *a, char *msg, size_t cap);
/* The same from a view's build: that view is not built again inside its
 * own build (it goes on with the data loaded). */
const run_lines_info *hot_lines_info_in_build(app *a, const view *building, char *msg, size_t cap);

/* Both runs' line data in a diff (the shown run's only, with one run),
 * symbolized with the app's symbolizers and --source-dir as the views
 * would, so the Diff view's comparison and the Lines and Source views read
 * the same lines.  Rebuilds no view: the Diff view, first in the table,
 * loads them before the others are built.  Returns 0, or -1 with a plain
 * line in msg. */
int hot_lines_load_both(app *a, char *msg, size_t cap);

/* Runs the model's query for the scope, the process filter and, when not
 * NULL, one function.  Returns 0, or -1 with a plain line in msg. */
int hot_lines_select(app *a, const hot_scope *sc, const char *function, enum run_lines_sort sort,
                     run_lines_result *out, char *msg, size_t cap);

/* A source file as the views show it, escaped: relative to the project
 * folder when it lies under it ("src/learner.c"), else as recorded. */
const char *hot_file_shown(app *a, run_str file, char *buf, size_t cap);

/* The run's own caveats, as loaded: those the lines' loading added
 * (symbols, debug info) come after them in the model's list, and are the
 * Lines view's to count. */
size_t app_run_caveats(const app *a);

/* What a run without line data says, and how to record some (for a
 * scope-profiler file: its Python program's line_profiler). */
const char *hot_lines_none(const app *a, char *buf, size_t cap);

#endif
