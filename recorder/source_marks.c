/*
 * Data source: MARK_STATE (source_marks.h).  Only snapshot frames hold
 * these records; every other frame holds the marks themselves, which the
 * other sources and the writer add (frame.h keeps their copies).
 */
#include "source_marks.h"

#include "clock.h"
#include "frame.h"
#include "mark_copies.h"

#include <inttypes.h>
#include <stdio.h>

static void encode(const rec_frame_ctx *f) {
    if (!f->snapshot)
        return;
    uint32_t n = rec_mark_copies_count();
    for (uint32_t i = 0; i < n; i++) {
        scope_record r = {.type = SCOPE_REC_MARK_STATE};
        r.u.mark_state = *rec_mark_copies_at(i);
        rec_frame_add(f, &r);
    }
    uint64_t left = rec_mark_copies_left_out();
    if (!left)
        return;
    /* The copy of a caveat that was never a mark of its own: no reader that
     * read every frame needs it, since it has every mark. */
    char text[200];
    snprintf(text, sizeof text,
             "%" PRIu64 " mark(s) left out of this snapshot's copies, which keep the first %u "
             "(running totals only their newest); the whole log has every mark",
             left, REC_MARK_COPIES);
    scope_record r = {.type = SCOPE_REC_MARK_STATE};
    r.u.mark_state = (scope_rec_mark){.kind = SCOPE_MARK_CAVEAT,
                                      .mono_ns = rec_mono_ns(),
                                      .value = (int64_t)left,
                                      .text = REC_STR(text)};
    rec_frame_add(f, &r);
}

/* A new file, the first or a forked child's: it holds no mark yet. */
static void writer_start(void) {
    rec_mark_copies_clear();
}

const rec_source rec_source_marks = {
    .name = "marks",
    .encode = encode,
    .writer_start = writer_start,
};
