/* The reader API's tables; see reader_table.h. */
#include "reader_table.h"

#include "arena.h"

#include <scope/vec.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rt_col {
    scope_column pub;
    char *data;     /* nrows values of elem bytes */
    uint8_t *valid; /* NULL until a value is missing */
    size_t cap, cap_valid, elem;
} rt_col;

struct scope_table {
    rt_col *cols;
    size_t ncols, cap_cols;
    size_t nrows;
    arena strings;
    int failed;
};

static size_t elem_size(enum scope_column_type type) {
    switch (type) {
    case SCOPE_COL_I64:
        return sizeof(int64_t);
    case SCOPE_COL_U64:
        return sizeof(uint64_t);
    case SCOPE_COL_F64:
        return sizeof(double);
    case SCOPE_COL_STR:
        return sizeof(const char *);
    case SCOPE_COL_BOOL:
        break;
    }
    return sizeof(uint8_t);
}

scope_table *rt_new(void) {
    return calloc(1, sizeof(scope_table));
}

size_t rt_column(scope_table *t, const char *name, const char *unit, enum scope_column_type type) {
    if (t->failed)
        return 0;
    if (t->nrows || SCOPE_VEC_RESERVE(t->cols, t->cap_cols, t->ncols + 1) < 0) {
        t->failed = 1; /* columns come before the rows */
        return 0;
    }
    rt_col *c = &t->cols[t->ncols];
    memset(c, 0, sizeof *c);
    c->pub = (scope_column){.name = name, .unit = unit, .type = (int)type};
    c->elem = elem_size(type);
    return t->ncols++;
}

void rt_row(scope_table *t) {
    if (t->failed)
        return;
    for (size_t i = 0; i < t->ncols; i++) {
        rt_col *c = &t->cols[i];
        if (t->nrows + 1 > c->cap) {
            size_t cap = c->cap;
            char *p = scope_vec_grow(c->data, &cap, t->nrows + 1, c->elem);
            if (!p) {
                t->failed = 1;
                return;
            }
            c->data = p;
            c->cap = cap;
        }
        char *at = c->data + t->nrows * c->elem;
        if (c->pub.type == SCOPE_COL_F64) /* a float never written was not measured */
            memcpy(at, &(double){NAN}, sizeof(double));
        else
            memset(at, 0, c->elem);
        if (c->valid) {
            if (SCOPE_VEC_RESERVE(c->valid, c->cap_valid, t->nrows + 1) < 0) {
                t->failed = 1;
                return;
            }
            c->valid[t->nrows] = 1;
        }
    }
    t->nrows++;
}

/* The cell of column col in the current row; NULL when there is none. */
static void *cell(scope_table *t, size_t col) {
    if (t->failed || !t->nrows || col >= t->ncols)
        return NULL;
    rt_col *c = &t->cols[col];
    return c->data + (t->nrows - 1) * c->elem;
}

void rt_u64(scope_table *t, size_t col, uint64_t v) {
    void *p = cell(t, col);
    if (p)
        memcpy(p, &v, sizeof v);
}

void rt_i64(scope_table *t, size_t col, int64_t v) {
    void *p = cell(t, col);
    if (p)
        memcpy(p, &v, sizeof v);
}

void rt_f64(scope_table *t, size_t col, double v) {
    void *p = cell(t, col);
    if (!p)
        return;
    if (isnan(v)) /* not measured: NAN, and missing as any other type's */
        rt_missing(t, col);
    else
        memcpy(p, &v, sizeof v);
}

void rt_bool(scope_table *t, size_t col, int v) {
    uint8_t *p = cell(t, col);
    if (p)
        *p = v != 0;
}

static void put_str(scope_table *t, size_t col, const char *s, size_t len) {
    void *p = cell(t, col);
    if (!p || !s)
        return;
    char *copy = arena_dup(&t->strings, s, len);
    if (!copy)
        t->failed = 1;
    else
        memcpy(p, &copy, sizeof copy);
}

void rt_str(scope_table *t, size_t col, const char *s) {
    put_str(t, col, s, s ? strlen(s) : 0);
}

void rt_name(scope_table *t, size_t col, run_str name) {
    if (name.len)
        put_str(t, col, name.s, name.len);
}

void rt_missing(scope_table *t, size_t col) {
    if (!cell(t, col))
        return;
    rt_col *c = &t->cols[col];
    if (!c->valid) { /* the first missing value: every earlier one was valid */
        if (SCOPE_VEC_RESERVE(c->valid, c->cap_valid, c->cap) < 0) {
            t->failed = 1;
            return;
        }
        memset(c->valid, 1, t->nrows);
    }
    c->valid[t->nrows - 1] = 0;
    if (c->pub.type == SCOPE_COL_F64) /* reader.h: a float not measured is NAN */
        memcpy(cell(t, col), &(double){NAN}, sizeof(double));
}

void rt_i64_or_missing(scope_table *t, size_t col, int64_t v) {
    if (v < 0)
        rt_missing(t, col);
    else
        rt_i64(t, col, v);
}

void rt_index(scope_table *t, size_t col, size_t index) {
    if (index == SIZE_MAX)
        rt_missing(t, col);
    else
        rt_i64(t, col, (int64_t)index);
}

int rt_failed(const scope_table *t) {
    return t->failed;
}

/* ---- the public accessors (scope/reader.h) ------------------------------ */

size_t scope_table_rows(const scope_table *t) {
    return t ? t->nrows : 0;
}

size_t scope_table_columns(const scope_table *t) {
    return t ? t->ncols : 0;
}

const scope_column *scope_table_column(const scope_table *t, size_t i) {
    if (!t || i >= t->ncols)
        return NULL;
    rt_col *c = &t->cols[i];
    c->pub.values = c->data;
    c->pub.valid = c->valid;
    return &c->pub;
}

void scope_table_free(scope_table *t) {
    if (!t)
        return;
    for (size_t i = 0; i < t->ncols; i++) {
        free(t->cols[i].data);
        free(t->cols[i].valid);
    }
    free(t->cols);
    arena_free(&t->strings);
    free(t);
}
