/*
 * Data source: every name interned since the last frame becomes a STRING
 * record, before any record that uses it; a snapshot restates them all.
 */
#include "source_names.h"

#include "frame.h"
#include "names.h"

static uint32_t names_written; /* writer: ids 1..names_written are in the file */

static void encode(const rec_frame_ctx *f) {
    uint32_t n = rec_name_count();
    for (uint32_t id = f->snapshot ? 1 : names_written + 1; id <= n; id++) {
        size_t len;
        const char *s = rec_name_get(id, &len);
        scope_record r = {.type = SCOPE_REC_STRING};
        r.u.string = (scope_rec_string){id, REC_BYTES(s, len)};
        rec_frame_add(f, &r);
    }
    names_written = n;
}

static void reset_sent(void) {
    names_written = 0;
}

const rec_source rec_source_names = {
    .name = "names",
    .reset_sent = reset_sent,
    .encode = encode,
};
