/* The bytes of resource intervals under each phase node (res_node_io.h). */
#include "res_node_io.h"

#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

/* The row of node, inserted (zeroed) where it belongs if new; NULL when
 * the table cannot grow. */
static scope_rec_node_io *row_of(rec_node_io *t, uint32_t node) {
    uint32_t lo = 0, hi = t->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->rows[mid].node < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->n && t->rows[lo].node == node)
        return &t->rows[lo];
    if (SCOPE_VEC_RESERVE(t->rows, t->cap, (size_t)t->n + 1) < 0)
        return NULL;
    memmove(&t->rows[lo + 1], &t->rows[lo], (size_t)(t->n - lo) * sizeof *t->rows);
    t->n++;
    t->rows[lo] = (scope_rec_node_io){.node = node};
    return &t->rows[lo];
}

static uint64_t measured(const scope_rec_resource *r, uint32_t bit, uint64_t v) {
    return r->present & bit ? v : 0;
}

int rec_node_io_add(rec_node_io *t, const scope_rec_resource *r) {
    scope_rec_node_io *row = row_of(t, r->node);
    if (!row) {
        t->nomem = 1;
        return -1;
    }
    scope_io_sums *s = r->thread ? &row->thread : &row->process;
    s->intervals++;
    s->disk_read += measured(r, SCOPE_RES_DISK_READ, r->disk_read);
    s->disk_write += measured(r, SCOPE_RES_DISK_WRITE, r->disk_write);
    s->char_read += measured(r, SCOPE_RES_CHAR_READ, r->char_read);
    s->char_write += measured(r, SCOPE_RES_CHAR_WRITE, r->char_write);
    return 0;
}

void rec_node_io_clear(rec_node_io *t) {
    t->n = 0;
    t->nomem = 0;
}

void rec_node_io_free(rec_node_io *t) {
    free(t->rows);
    *t = (rec_node_io){0};
}
