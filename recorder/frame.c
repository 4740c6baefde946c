/*
 * Adding records to the frame being written (frame.h).
 */
#include "frame.h"

#include "clock.h"

#include <errno.h>
#include <string.h>

int rec_frame_add(const rec_frame_ctx *f, const scope_record *r) {
    int rc = scope_log_writer_add(f->w, r);
    if (rc == -E2BIG &&
        scope_log_writer_close_frame(f->w, SCOPE_FRAME_PERIODIC, rec_mono_ns(), rec_wall_ns()) >= 0)
        rc = scope_log_writer_add(f->w, r);
    return rc;
}

void rec_frame_mark_sub(const rec_frame_ctx *f, uint32_t kind, uint32_t subkind, uint32_t thread,
                        int64_t value, int64_t value2, const char *text) {
    scope_record r = {.type = SCOPE_REC_MARK};
    r.u.mark = (scope_rec_mark){.kind = kind,
                                .thread = thread,
                                .mono_ns = rec_mono_ns(),
                                .value = value,
                                .text = REC_STR(text ? text : ""),
                                .subkind = subkind,
                                .value2 = value2};
    rec_frame_add(f, &r);
}

void rec_frame_mark(const rec_frame_ctx *f, uint32_t kind, uint32_t thread, int64_t value,
                    const char *text) {
    rec_frame_mark_sub(f, kind, 0, thread, value, 0, text);
}
