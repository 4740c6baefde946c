/*
 * Copies of the marks written, for the snapshots (mark_copies.h).
 */
#include "mark_copies.h"

#include <stdlib.h>
#include <string.h>

/* The marks source's copies (source_marks.c), the writer's: one place to
 * read, and to clear. */
static struct mark_copies_state {
    scope_rec_mark copies[REC_MARK_COPIES]; /* texts are the recorder's own, malloc'd */
    uint32_t ncopies;
    uint64_t left_out;
} state;

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
        for (uint32_t i = 0; i < state.ncopies; i++) {
            scope_rec_mark *c = &state.copies[i];
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
    if (state.ncopies == REC_MARK_COPIES || copy_text(&state.copies[state.ncopies], m) < 0) {
        state.left_out++;
        return;
    }
    state.ncopies++;
}

uint32_t rec_mark_copies_count(void) {
    return state.ncopies;
}

const scope_rec_mark *rec_mark_copies_at(uint32_t i) {
    return i < state.ncopies ? &state.copies[i] : NULL;
}

uint64_t rec_mark_copies_left_out(void) {
    return state.left_out;
}

void rec_mark_copies_clear(void) {
    for (uint32_t i = 0; i < state.ncopies; i++)
        free((void *)state.copies[i].text.ptr);
    state.ncopies = 0;
    state.left_out = 0;
}
