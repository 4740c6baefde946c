/*
 * The browser's views, one row each in views.c's table: a view's name, key,
 * tab title and help line, and its view_ops.  The keys that show a view,
 * Tab's order, --view NAME, the help's lines and the tab bar are all made
 * from the table, so adding a view is a row there and the view's own file.
 */
#ifndef SCOPE_UI_VIEWS_H
#define SCOPE_UI_VIEWS_H

#include <stddef.h>

struct view_ops;

typedef struct view_def {
    const char *name;  /* "phases": for --view and the saved screen's file name */
    int key;           /* the key that shows it: a character or an ncurses KEY_ code; 0: the
                          view is reached from another one (Source, by Enter on a line of
                          Lines): no key, no --view name, passed over by Tab, and in the
                          tab bar only while it is shown */
    const char *title; /* "Phases": the tab */
    const char *about; /* the help's line after the name */
    const struct view_ops *ops;
} view_def;

/* The most views the table may hold (the app keeps them in an array). */
#define VIEW_MAX 16

/* The views in the tab bar's order; the first is shown unless --view names
 * another. */
extern const view_def view_table[];
extern const size_t view_count;

/* The index of the view with a key and that name (--view), or with those
 * ops; SIZE_MAX when none. */
size_t view_named(const char *name);
size_t view_of_ops(const struct view_ops *ops);

/* The views that have a key: how many, and the index of the k-th of them
 * in the table (SIZE_MAX past the last). */
size_t view_keyed_count(void);
size_t view_keyed(size_t k);

/* The names of the views that have a key, joined by ", ", with `last`
 * (", " or " or ") before the last one: "phases, lines, processes,
 * overview or help".  Returns buf. */
const char *view_names(char *buf, size_t cap, const char *last);

/* The views the app itself needs: the one the process filter narrows, the
 * one ? shows, and the hot lines and the source that H and L lead to. */
extern const struct view_ops phases_view_ops, help_view_ops, lines_view_ops, source_view_ops,
    callers_view_ops, diff_view_ops;

#endif
