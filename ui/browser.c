/* The browser's state and what a view may ask of it; see browser.h. */
#define _GNU_SOURCE /* strcasestr */
#include "browser.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void app_message(app *a, int is_error, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
    a->message_is_error = is_error;
}

const char *app_worker_label(const app *a, size_t worker, char *buf, size_t cap) {
    return run_worker_label(a->model, worker, buf, cap);
}

/* ---- search ------------------------------------------------------------------- */

/* Smart case: case-sensitive only when the query has a capital letter. */
static int text_matches(const char *query, const char *text) {
    if (!query[0])
        return 0;
    int exact = 0;
    for (const char *q = query; *q; q++)
        exact |= isupper((unsigned char)*q);
    return (exact ? strstr(text, query) : strcasestr(text, query)) != NULL;
}

int app_query_matches(const app *a, const char *text) {
    return a->query_len && text_matches(a->query, text);
}

/* ---- the name filter ------------------------------------------------------------ */

static int row_passes_filter(const list_row *r, void *ctx) {
    view *v = ctx;
    char text[1024];
    return v->ops->row_text(v, r, text, sizeof text) && text_matches(v->filter, text);
}

/* Applies the view's name filter to its rows, or shows them all when it
 * has none.  Returns how many rows match, 0 with no filter, -1 when out of
 * memory. */
long app_filter_apply(view *v) {
    v->filter_matches = 0;
    if (!v->filter[0] || !v->ops->row_text) {
        if (v->list.keep)
            list_unfilter(&v->list);
        return 0;
    }
    long n = list_filter(&v->list, row_passes_filter, v);
    v->filter_matches = n > 0 ? n : 0;
    return n;
}

/* ---- keeping the place across rebuilds ------------------------------------- */

void view_place_free(view_place *p) {
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i].key);
    free(p->v);
    free(p->selected);
    *p = (view_place){0};
}

static int by_key(const void *a, const void *b) {
    return strcmp(((const view_place_entry *)a)->key, ((const view_place_entry *)b)->key);
}

void view_place_take(view *v, view_place *p) {
    *p = (view_place){0};
    list *l = &v->list;
    if (!v->ops->row_key || !l->nrows)
        return;
    p->v = malloc(l->nrows * sizeof *p->v);
    if (!p->v)
        return;
    char key[1024];
    for (size_t i = 0; i < l->nrows; i++) {
        if (!list_has_children(l, i) || !v->ops->row_key(v, &l->rows[i], key, sizeof key))
            continue;
        if (!(p->v[p->n].key = strdup(key)))
            break;
        p->v[p->n++].expanded = l->rows[i].expanded;
    }
    qsort(p->v, p->n, sizeof *p->v, by_key);
    size_t sel = list_selected(l);
    if (sel != LIST_NONE && v->ops->row_key(v, &l->rows[sel], key, sizeof key))
        p->selected = strdup(key);
    p->selected_pos = l->cursor >= l->top ? l->cursor - l->top : 0;
}

void view_place_restore(view *v, const view_place *p) {
    list *l = &v->list;
    if (!v->ops->row_key)
        return;
    char key[1024];
    size_t select = LIST_NONE;
    for (size_t i = 0; i < l->nrows; i++) {
        if (!v->ops->row_key(v, &l->rows[i], key, sizeof key))
            continue;
        view_place_entry want = {.key = key};
        const view_place_entry *had = list_has_children(l, i) && p->n
                                          ? bsearch(&want, p->v, p->n, sizeof *p->v, by_key)
                                          : NULL;
        if (had)
            l->rows[i].expanded = had->expanded;
        if (select == LIST_NONE && p->selected && !strcmp(p->selected, key))
            select = i;
    }
    list_refresh(l);
    if (select != LIST_NONE) {
        list_reveal(l, select);
        l->top = l->cursor >= p->selected_pos ? l->cursor - p->selected_pos : 0;
    }
}

int app_rebuild(view *v) {
    view_place p;
    view_place_take(v, &p);
    v->stale = 0;
    int rc = v->ops->build(v);
    if (rc == 0)
        view_place_restore(v, &p);
    if (rc == 0 && app_filter_apply(v) < 0)
        rc = -1;
    view_place_free(&p);
    return rc;
}

void app_set_focus(app *a, size_t worker) {
    a->focus_worker = worker;
    a->current = a->focus_view;
    /* The filter narrows the I/O and GPU views too: every view it
     * narrows is built again for it, the one shown now and each other
     * when it is next shown (app_fresh).  Building them all at once cost a
     * 1,024-process run 20 ms a key (bench/bench_scale.sh). */
    for (size_t i = 0; i < view_count; i++)
        a->views[i].stale = a->views[i].ops->narrowed;
    app_fresh(a);
}

void app_fresh(app *a) {
    view *v = &a->views[a->current];
    if (v->stale && app_rebuild(v) < 0)
        app_message(a, 1, "out of memory");
}
