/* export_h5_batch: the batches of export_h5_batch.h. */
#include "export_h5_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void export_oom(export_ctx *x) {
    if (!x->failed)
        snprintf(x->msg, x->msglen, "out of memory");
    x->failed = 1;
}

int batch_begin(export_ctx *x, batch *b, const run_h5_table *t) {
    *b = (batch){.t = &t->t};
    if (x->failed)
        return -1;
    b->rows = calloc(BATCH_ROWS, t->t.row_size);
    if (!b->rows) {
        export_oom(x);
        return -1;
    }
    b->w = scope_h5_table_begin(x->f, t->path, &t->t, x->msg, x->msglen);
    if (!b->w) {
        x->failed = 1;
        free(b->rows);
        b->rows = NULL;
        return -1;
    }
    return 0;
}

int batch_flush(export_ctx *x, batch *b) {
    if (b->n && !x->failed && scope_h5_table_append(b->w, b->rows, b->n, x->msg, x->msglen) < 0)
        x->failed = 1;
    memset(b->rows, 0, b->n * b->t->row_size);
    b->n = 0;
    return x->failed ? -1 : 0;
}

/* The next row, zeroed, or NULL once the export failed. */
void *batch_row(export_ctx *x, batch *b) {
    if (!b->rows || x->failed)
        return NULL;
    if (b->n == BATCH_ROWS && batch_flush(x, b) < 0)
        return NULL;
    return b->rows + b->n++ * b->t->row_size;
}

void batch_end(export_ctx *x, batch *b) {
    if (b->w) {
        batch_flush(x, b);
        if (scope_h5_table_end(b->w, x->failed ? NULL : x->msg, x->msglen) < 0)
            x->failed = 1;
    }
    free(b->rows);
    *b = (batch){0};
}

const char *hex(export_ctx *x, run_str bytes) {
    char *s = arena_alloc(&x->mem, bytes.len * 2 + 1);
    if (!s) {
        export_oom(x);
        return "";
    }
    for (size_t i = 0; i < bytes.len; i++)
        snprintf(s + 2 * i, 3, "%02x", (unsigned char)bytes.s[i]);
    return s;
}

int64_t index_or_minus1(size_t i) {
    return i == SIZE_MAX ? -1 : (int64_t)i;
}
