/*
 * The frame being written: what the writer thread hands each data source,
 * and how a source adds a record to it.
 */
#ifndef SCOPE_REC_FRAME_H
#define SCOPE_REC_FRAME_H

#include "recorder.h"

#include <scope/log_format.h>

#include <string.h>

typedef struct rec_frame_ctx {
    scope_log_writer *w;
    int reason;     /* enum scope_frame_reason */
    int with_hist;  /* phase aggregates carry their histograms */
    int stuck_ok;   /* closed for a signal: take what an owner stopped mid-update left */
    int resend_all; /* every aggregate again: the frames before it were lost */
    int snapshot;   /* this frame is a snapshot (format 1.7, docs/format.md 5.2.1): definitions and
                       aggregates only, no events */
} rec_frame_ctx;

#define REC_BYTES(s, n) ((scope_bytes){(const uint8_t *)(s), (n)})
#define REC_STR(s)      REC_BYTES(s, strlen(s))

/* Adds a record to the open frame.  A frame that would pass the format's
 * size limit (a process with hundreds of thousands of phase nodes) is closed
 * as a periodic frame first, and the record goes into the next one. */
int rec_frame_add(const rec_frame_ctx *f, const scope_record *r);
/* A mark (docs/format.md, MARK); the _sub form also carries a subkind and a
 * second figure, which only unbalanced marks have. */
void rec_frame_mark(const rec_frame_ctx *f, uint32_t kind, uint32_t thread, int64_t value,
                    const char *text);
void rec_frame_mark_sub(const rec_frame_ctx *f, uint32_t kind, uint32_t subkind, uint32_t thread,
                        int64_t value, int64_t value2, const char *text);

#endif
