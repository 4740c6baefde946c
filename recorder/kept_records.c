/*
 * Records kept for the snapshots (kept_records.h): one buffer of
 * (type, body length, body) entries.
 */
#include "kept_records.h"

#include "frame.h"

#include <stdlib.h>
#include <string.h>

typedef struct kept_head {
    uint32_t type;
    uint32_t len;
} kept_head;

static uint8_t *buf;
static size_t len, cap, count;

int rec_kept_add(const scope_record *r) {
    size_t body = scope_record_encode(r, NULL, 0);
    if (body == 0)
        return -1; /* not encodable: the writer refused it too */
    size_t need = len + sizeof(kept_head) + body;
    if (need > cap) {
        size_t c = cap ? cap : 4096;
        while (c < need)
            c *= 2;
        uint8_t *b = realloc(buf, c);
        if (!b)
            return -1;
        buf = b;
        cap = c;
    }
    kept_head h = {r->type, (uint32_t)body};
    memcpy(buf + len, &h, sizeof h);
    scope_record_encode(r, buf + len + sizeof h, body);
    len = need;
    count++;
    return 0;
}

void rec_kept_replay(const rec_frame_ctx *f) {
    for (size_t at = 0; at < len;) {
        kept_head h;
        memcpy(&h, buf + at, sizeof h);
        rec_frame_add_raw(f, h.type, buf + at + sizeof h, h.len);
        at += sizeof h + h.len;
    }
}

size_t rec_kept_count(void) {
    return count;
}

size_t rec_kept_bytes(void) {
    return len;
}

void rec_kept_clear(void) {
    free(buf);
    buf = NULL;
    len = cap = count = 0;
}
