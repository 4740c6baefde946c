/*
 * Adding records to the frame being written (frame.h).
 */
#include "frame.h"

#include "clock.h"
#include "mark_copies.h"

#include <errno.h>
#include <string.h>

/* Writer thread only, like every frame. */
static int snapshot_overflowed;

/* What a frame does when a record would take it past the format's size
 * limit: an ordinary frame is closed and the record goes into the next;
 * a snapshot refuses it. */
static int room_for_more(const rec_frame_ctx *f) {
    if (f->snapshot) {
        snapshot_overflowed = 1;
        return 0;
    }
    return scope_log_writer_close_frame(f->w, SCOPE_FRAME_PERIODIC, rec_mono_ns(), rec_wall_ns()) >=
           0;
}

int rec_frame_add(const rec_frame_ctx *f, const scope_record *r) {
    int rc = scope_log_writer_add(f->w, r);
    if (rc == -E2BIG && room_for_more(f))
        rc = scope_log_writer_add(f->w, r);
    return rc;
}

int rec_frame_add_raw(const rec_frame_ctx *f, uint32_t type, const void *body, size_t len) {
    int rc = scope_log_writer_add_raw(f->w, type, body, len);
    if (rc == -E2BIG && room_for_more(f))
        rc = scope_log_writer_add_raw(f->w, type, body, len);
    return rc;
}

int rec_frame_snapshot_overflowed(void) {
    int was = snapshot_overflowed;
    snapshot_overflowed = 0;
    return was;
}

void rec_frame_mark_sub(const rec_frame_ctx *f, uint32_t kind, uint32_t subkind, uint32_t thread,
                        int64_t value, int64_t value2, const char *text) {
    assert(!f->snapshot);
    scope_record r = {.type = SCOPE_REC_MARK};
    r.u.mark = (scope_rec_mark){.kind = kind,
                                .thread = thread,
                                .mono_ns = rec_mono_ns(),
                                .value = value,
                                .text = REC_STR(text ? text : ""),
                                .subkind = subkind,
                                .value2 = value2};
    if (rec_frame_add(f, &r) == 0)
        rec_mark_copies_keep(&r.u.mark);
}

void rec_frame_mark(const rec_frame_ctx *f, uint32_t kind, uint32_t thread, int64_t value,
                    const char *text) {
    rec_frame_mark_sub(f, kind, 0, thread, value, 0, text);
}
