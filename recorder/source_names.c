/*
 * Data source: every name interned since the last frame becomes a STRING
 * record, before any record that uses it; a snapshot restates them all.
 * Once names pass the process's limit, a FOLDED mark says, as it grows,
 * how many went into "(other)" (names.c).
 */
#include "source_names.h"

#include "frame.h"
#include "names.h"

#include <stdio.h>

/* The source's state, the writer's: one place to read. */
static struct source_names_state {
    uint32_t names_written;     /* ids 1..names_written are in the file */
    uint32_t fold_bits_written; /* the FOLDED mark last written */
} state;

/* A running total, like a DROPPED mark's: a snapshot's MARK_STATE copies
 * the newest. */
static void add_folded(const rec_frame_ctx *f) {
    uint32_t bits = rec_names_fold_bits();
    if (bits == state.fold_bits_written || f->snapshot)
        return;
    char text[160];
    snprintf(text, sizeof text,
             "distinct phase and counter names past the recorder's limit of %u per process "
             "were recorded as \"(other)\"",
             rec_names_limit());
    rec_frame_mark(f, SCOPE_MARK_FOLDED, 0, bits, text);
    state.fold_bits_written = bits;
}

static void encode(const rec_frame_ctx *f) {
    uint32_t n = rec_name_count();
    for (uint32_t id = f->snapshot ? 1 : state.names_written + 1; id <= n; id++) {
        size_t len;
        const char *s = rec_name_get(id, &len);
        scope_record r = {.type = SCOPE_REC_STRING};
        r.u.string = (scope_rec_string){id, REC_BYTES(s, len)};
        rec_frame_add(f, &r);
    }
    state.names_written = n;
    add_folded(f);
}

static void reset_sent(void) {
    state.names_written = 0;
    state.fold_bits_written = 0;
}

const rec_source rec_source_names = {
    .name = "names",
    .reset_sent = reset_sent,
    .encode = encode,
};
