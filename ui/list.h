/*
 * The one scrollable list every view is built on: rows in tree order
 * (preorder) with a depth each, so a flat table is a tree of depth 0.
 * The list keeps which rows are expanded, which are visible, the cursor and
 * the scroll position; what a row shows is the view's business (a draw
 * callback), in the manner of htop's Panel.
 */
#ifndef SCOPE_UI_LIST_H
#define SCOPE_UI_LIST_H

#include <stddef.h>

#define LIST_NONE ((size_t)-1)

typedef struct list_row {
    unsigned depth;
    int kind;         /* the view's own tag */
    const void *item; /* the view's own pointer (a phase, a worker, a line) */
    size_t index;     /* the view's own number */
    size_t parent;    /* row index of the parent, LIST_NONE at depth 0 */
    size_t end;       /* one past the row's last descendant */
    int expanded;
} list_row;

typedef struct list {
    list_row *rows;
    size_t nrows, cap;
    size_t *visible; /* row indexes shown, in order */
    size_t nvisible, cap_visible;
    size_t cursor; /* position in visible */
    size_t top;    /* the first visible row on screen */
    int height;    /* rows the list had on screen when last drawn */
    /* The filter (list_filter): keep[i] is 1 for a row that matches, is
     * below a match or has one below it; NULL when the list is not
     * filtered. */
    unsigned char *keep;
} list;

void list_free(list *l);

/* Rebuilding: list_clear, then list_add each row in preorder, then
 * list_done.  Expansion, cursor and filter are the caller's to restore. */
void list_clear(list *l);
/* Returns the new row's index, or LIST_NONE when out of memory. */
size_t list_add(list *l, unsigned depth, int kind, const void *item, size_t index);
/* Links parents and subtrees and shows what is expanded.  Returns 0, or -1
 * when out of memory. */
int list_done(list *l);

static inline int list_has_children(const list *l, size_t row) {
    return l->rows[row].end > row + 1;
}

/* The row under the cursor, LIST_NONE when the list is empty. */
size_t list_selected(const list *l);

/* Recomputes the visible rows after expanding or collapsing, keeping the
 * cursor on the same row (or on its nearest visible ancestor). */
int list_refresh(list *l);

/* Moves the cursor by delta visible rows (clamped). */
void list_move(list *l, long delta);
void list_home(list *l);
void list_end(list *l);
void list_page(list *l, int down);

/* Expands the row's ancestors so it shows and puts the cursor on it. */
int list_reveal(list *l, size_t row);

/* Expands or collapses every row that has children, keeping the cursor on
 * its row (or its visible ancestor). */
int list_expand_all(list *l, int expanded);

/* Keeps the cursor inside a window of `height` rows, scrolling as little
 * as possible.  Called by the drawing code with the height it has. */
void list_scroll_to_cursor(list *l, int height);

/* The next row (in tree order, hidden ones too) after `from` going forward
 * (dir 1) or backward (-1), wrapping around, for which match() is true;
 * LIST_NONE when none.  `from` LIST_NONE starts at the ends. */
/* Shows only the rows for which match() is true, with their ancestors
 * (opened, so the matches show) and what is below them (as it was opened
 * or not, so a match can be drilled into), as perf report's filter does.
 * Returns how many rows match (0: the list shows nothing), or -1 when out
 * of memory (the list is then left unfiltered). */
long list_filter(list *l, int (*match)(const list_row *, void *), void *ctx);

/* Shows every row again (expanded as the filter left them). */
void list_unfilter(list *l);

size_t list_find(const list *l, size_t from, int dir, int (*match)(const list_row *, void *),
                 void *ctx);

#endif
