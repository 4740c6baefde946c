/* The scrollable list/tree under every view; see list.h. */
#include "list.h"

#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

void list_free(list *l) {
    free(l->rows);
    free(l->visible);
    free(l->keep);
    *l = (list){0};
}

void list_clear(list *l) {
    free(l->keep); /* it was of the rows being replaced */
    l->keep = NULL;
    l->nrows = 0;
    l->nvisible = 0;
    l->cursor = 0;
    l->top = 0;
}

size_t list_add(list *l, unsigned depth, int kind, const void *item, size_t index) {
    if (SCOPE_VEC_RESERVE(l->rows, l->cap, l->nrows + 1) < 0)
        return LIST_NONE;
    l->rows[l->nrows] = (list_row){.depth = depth, .kind = kind, .item = item, .index = index};
    return l->nrows++;
}

int list_done(list *l) {
    /* Parents from a stack of the open ancestors: a row's parent is the
     * nearest row above it that is shallower. */
    size_t *stack = malloc((l->nrows + 1) * sizeof *stack);
    if (!stack || SCOPE_VEC_RESERVE(l->visible, l->cap_visible, l->nrows + 1) < 0) {
        free(stack);
        return -1;
    }
    size_t depth = 0;
    for (size_t i = 0; i < l->nrows; i++) {
        list_row *r = &l->rows[i];
        while (depth > 0 && l->rows[stack[depth - 1]].depth >= r->depth) {
            l->rows[stack[depth - 1]].end = i;
            depth--;
        }
        r->parent = depth ? stack[depth - 1] : LIST_NONE;
        stack[depth++] = i;
    }
    while (depth > 0)
        l->rows[stack[--depth]].end = l->nrows;
    free(stack);
    return list_refresh(l);
}

size_t list_selected(const list *l) {
    return l->cursor < l->nvisible ? l->visible[l->cursor] : LIST_NONE;
}

int list_refresh(list *l) {
    size_t keep = list_selected(l);
    l->nvisible = 0;
    for (size_t i = 0; i < l->nrows;) {
        if (l->keep && !l->keep[i]) { /* filtered out, and so is all below it */
            i = l->rows[i].end;
            continue;
        }
        l->visible[l->nvisible++] = i;
        i = l->rows[i].expanded ? i + 1 : l->rows[i].end;
    }
    /* The cursor stays on its row, or moves to the nearest ancestor still
     * shown when a collapse hid it. */
    l->cursor = 0;
    while (keep != LIST_NONE) {
        size_t lo = 0, hi = l->nvisible;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (l->visible[mid] < keep)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < l->nvisible && l->visible[lo] == keep) {
            l->cursor = lo;
            break;
        }
        keep = l->rows[keep].parent;
    }
    if (l->top >= l->nvisible)
        l->top = 0;
    return 0;
}

void list_move(list *l, long delta) {
    if (!l->nvisible)
        return;
    long c = (long)l->cursor + delta;
    if (c < 0)
        c = 0;
    if (c >= (long)l->nvisible)
        c = (long)l->nvisible - 1;
    l->cursor = (size_t)c;
}

void list_home(list *l) {
    l->cursor = 0;
}

void list_end(list *l) {
    l->cursor = l->nvisible ? l->nvisible - 1 : 0;
}

void list_page(list *l, int down) {
    long page = l->height > 1 ? l->height - 1 : 1;
    list_move(l, down ? page : -page);
    /* Scroll by the page too, as less does, so the cursor keeps its place. */
    long top = (long)l->top + (down ? page : -page);
    long max = (long)l->nvisible - (l->height > 0 ? l->height : 1);
    if (top > max)
        top = max;
    l->top = top < 0 ? 0 : (size_t)top;
}

int list_reveal(list *l, size_t row) {
    if (row >= l->nrows)
        return -1;
    for (size_t p = l->rows[row].parent; p != LIST_NONE; p = l->rows[p].parent)
        l->rows[p].expanded = 1;
    list_refresh(l);
    for (size_t i = 0; i < l->nvisible; i++)
        if (l->visible[i] == row)
            l->cursor = i;
    return 0;
}

int list_expand_all(list *l, int expanded) {
    for (size_t i = 0; i < l->nrows; i++)
        if (list_has_children(l, i))
            l->rows[i].expanded = expanded;
    return list_refresh(l);
}

void list_scroll_to_cursor(list *l, int height) {
    l->height = height;
    if (height <= 0)
        return;
    if (l->cursor < l->top)
        l->top = l->cursor;
    else if (l->cursor >= l->top + (size_t)height)
        l->top = l->cursor - (size_t)height + 1;
    /* No empty space below the last row while rows above are hidden. */
    if (l->nvisible > (size_t)height && l->top + (size_t)height > l->nvisible)
        l->top = l->nvisible - (size_t)height;
    if (l->nvisible <= (size_t)height)
        l->top = 0;
}

long list_filter(list *l, int (*match)(const list_row *, void *), void *ctx) {
    unsigned char *keep = calloc(l->nrows ? l->nrows : 1, 1);
    if (!keep)
        return -1;
    long matches = 0;
    for (size_t i = 0; i < l->nrows; i++) {
        if (!match(&l->rows[i], ctx))
            continue;
        matches++;
        /* The match and what is below it (opened or not, as it was), so the
         * user can still drill into what was found. */
        memset(keep + i, 1, l->rows[i].end - i);
        for (size_t p = l->rows[i].parent; p != LIST_NONE; p = l->rows[p].parent) {
            keep[p] = 1;
            l->rows[p].expanded = 1;
        }
    }
    free(l->keep);
    l->keep = keep;
    list_refresh(l);
    return matches;
}

void list_unfilter(list *l) {
    free(l->keep);
    l->keep = NULL;
    list_refresh(l);
}

size_t list_find(const list *l, size_t from, int dir, int (*match)(const list_row *, void *),
                 void *ctx) {
    if (!l->nrows)
        return LIST_NONE;
    size_t i = from;
    for (size_t n = 0; n < l->nrows; n++) {
        if (i == LIST_NONE)
            i = dir > 0 ? 0 : l->nrows - 1;
        else if (dir > 0)
            i = i + 1 < l->nrows ? i + 1 : 0;
        else
            i = i > 0 ? i - 1 : l->nrows - 1;
        if (match(&l->rows[i], ctx))
            return i;
    }
    return LIST_NONE;
}
