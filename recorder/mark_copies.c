/*
 * Copies of the marks written, for the snapshots (mark_copies.h).
 */
#include "mark_copies.h"

#include <stdlib.h>
#include <string.h>

static scope_rec_mark copies[REC_MARK_COPIES]; /* texts are the recorder's own, malloc'd */
static uint32_t ncopies;
static uint64_t left_out;

/* A mark whose value is a running total: a newer one says all the older
 * one did. */
static int running_total(const scope_rec_mark *m) {
    return m->kind == SCOPE_MARK_DROPPED || m->kind == SCOPE_MARK_FOLDED ||
           (m->kind == SCOPE_MARK_UNBALANCED && (m->subkind == SCOPE_UNBALANCED_END_EMPTY ||
                                                 m->subkind == SCOPE_UNBALANCED_LEFT_IN_BLOCK));
}

static int copy_text(scope_rec_mark *to, const scope_rec_mark *from) {
    uint8_t *text = malloc(from->text.len ? from->text.len : 1);
    if (!text)
        return -1;
    if (from->text.len)
        memcpy(text, from->text.ptr, from->text.len);
    *to = *from;
    to->text = (scope_bytes){text, from->text.len};
    return 0;
}

void rec_mark_copies_keep(const scope_rec_mark *m) {
    if (running_total(m)) {
        for (uint32_t i = 0; i < ncopies; i++) {
            scope_rec_mark *c = &copies[i];
            if (c->kind == m->kind && c->thread == m->thread && c->subkind == m->subkind) {
                scope_rec_mark fresh;
                if (copy_text(&fresh, m) < 0)
                    return; /* the older total stays: short, not wrong */
                free((void *)c->text.ptr);
                *c = fresh;
                return;
            }
        }
    }
    if (ncopies == REC_MARK_COPIES || copy_text(&copies[ncopies], m) < 0) {
        left_out++;
        return;
    }
    ncopies++;
}

uint32_t rec_mark_copies_count(void) {
    return ncopies;
}

const scope_rec_mark *rec_mark_copies_at(uint32_t i) {
    return i < ncopies ? &copies[i] : NULL;
}

uint64_t rec_mark_copies_left_out(void) {
    return left_out;
}

void rec_mark_copies_clear(void) {
    for (uint32_t i = 0; i < ncopies; i++)
        free((void *)copies[i].text.ptr);
    ncopies = 0;
    left_out = 0;
}
