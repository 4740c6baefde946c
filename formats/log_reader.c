/*
 * The log reader.  It walks the file frame by frame and never gives up on a
 * file because part of it is bad: a frame that is cut short, fails its
 * checksum or is not a frame at all is recorded as damage (offset, length,
 * frames lost, why) and the reader resynchronizes on the next intact frame.
 *
 * Resynchronization scans for the zstd frame magic and accepts a candidate
 * only when it decompresses completely, passes zstd's content checksum and
 * begins with a well-formed FRAME record; the magic alone appears by chance in
 * compressed data about once every 4 GiB, and such a false start fails
 * those tests.
 *
 * The file is read with pread(2) into a window rather than mapped: a live
 * writer may cut its file back after a failed write, and a mapping would
 * turn that into SIGBUS in the reader.  The window holds at least the frame
 * being read (1 MiB to start with, more only for a frame that needs it), so
 * a reader's memory follows the largest frame, never the length of the log:
 * a month-long log reads in the memory of a minute-long one.  A refill keeps
 * the bytes of the window it still needs and reads at least a window's worth
 * of new ones, so scanning reads each byte of the file once.
 *
 * What a log may cost is bounded by its length, whatever its bytes are
 * (docs/format.md, "The reader's limits"): frames are inflated, and their
 * block headers walked, only while that work stays within
 * SCOPE_LOG_MAX_INFLATION bytes per byte of the file up to the frame's end,
 * and handed out only while their records stay within
 * SCOPE_LOG_MAX_RECORDS_PER_BYTE per byte; a frame past either is damage.
 * Real logs inflate less than 2-fold and hold a record per 15 bytes or more.
 *
 * The asserts state what the reader's own code guarantees: the window lies
 * within the file and its buffer, positions stay within the frame or the
 * file they index, each step moves forward.  None rests on what a file
 * says: a damaged or hostile log is an expected input, reported as damage.
 */
#include "file_header.h"
#include "record_codec.h"
#include "varint.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <scope/vec.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_getFrameHeader */
#include <zstd.h>
#include <zstd_errors.h>

static const uint8_t zstd_magic_bytes[4] = {0x28, 0xB5, 0x2F, 0xFD};

enum frame_status {
    FRAME_OK = 0,
    FRAME_TRUNCATED,   /* the file ends inside the frame */
    FRAME_NOT_A_FRAME, /* no zstd frame starts here */
    FRAME_BAD_HEADER,  /* zstd frame header unusable (size unknown or absurd) */
    FRAME_BAD_SIZE,    /* block sizes run past intact frames that follow */
    FRAME_NOMEM,       /* no memory to inflate it: the frame may well be intact */
    FRAME_CORRUPT,     /* does not decompress */
    FRAME_CHECKSUM,    /* decompresses, but the content checksum fails */
    FRAME_NO_PROLOGUE, /* intact zstd, but not a scope frame */
    FRAME_OVER_LIMIT,  /* inflating it would take the log past the reader's limit */
    FRAME_TOO_MANY,    /* its records would take the log past the reader's limit */
};

static const char *frame_status_text(int st) {
    switch (st) {
    case FRAME_TRUNCATED:
        return "the file ends inside a frame (the writer was killed, or is still writing)";
    case FRAME_NOT_A_FRAME:
        return "bytes that are not a log frame";
    case FRAME_BAD_HEADER:
        return "frame header damaged";
    case FRAME_NOMEM:
        return "out of memory inflating a frame";
    case FRAME_BAD_SIZE:
        return "frame damaged: its block sizes are wrong";
    case FRAME_CORRUPT:
        return "frame damaged: it does not decompress";
    case FRAME_CHECKSUM:
        return "frame damaged: checksum mismatch";
    case FRAME_NO_PROLOGUE:
        return "zstd frame that is not a scope log frame";
    case FRAME_OVER_LIMIT:
        return "frames inflate past the reader's limit (a compression bomb, not a log)";
    case FRAME_TOO_MANY:
        return "frames hold more records than the reader's limit (a compression bomb, not a log)";
    default:
        return "unreadable bytes";
    }
}

/* How much of a file one refill of the window reads at least (the fuzz
 * build makes it small, so that small inputs cross many windows). */
#ifndef SCOPE_LOG_READ_WINDOW
#define SCOPE_LOG_READ_WINDOW (1u << 20)
#endif
#define READ_WINDOW ((size_t)SCOPE_LOG_READ_WINDOW)

/* Malformed records one log reports one by one; those past it are counted
 * in one last report.  Each report costs its memory, and records as small
 * as two bytes would otherwise make a report of every two bytes. */
#define MAX_RECORD_REPORTS 4096

struct scope_log_reader {
    /* The file's bytes [base, base + avail): all of them for a reader over
     * memory, a window for a reader over a file. */
    const uint8_t *data;
    size_t base, avail;
    size_t size;  /* of the file; lowered when it shrinks under us or a read fails */
    int fd;       /* -1: reading memory */
    uint8_t *buf; /* the window's storage */
    size_t buf_cap;
    int read_errno; /* of the first read that failed, 0 if none */
    size_t pos;     /* next byte to examine */
    ZSTD_DCtx *dctx;

    uint8_t *frame; /* the current frame, decompressed */
    size_t frame_len, frame_cap;
    size_t rec_pos;
    uint64_t frame_offset;
    scope_rec_frame frame_rec;
    int in_frame;

    /* a frame found (and decoded) while opening, not yet handed out */
    int pending;
    size_t pending_at, pending_csize;

    uint64_t frames_read;
    uint64_t work;          /* bytes inflated and walked so far, against the reader's limit */
    uint64_t records;       /* in the frames handed out, against the reader's limit */
    uint64_t record_damage; /* malformed records skipped */
    uint64_t skip_kinds;    /* bit 1 << type: passed over undecoded */
    /* The RESOURCE_BATCH being handed out interval by interval (in scratch,
     * which nothing else decodes into meanwhile), unless whole_batches. */
    scope_rec_resource_batch batch;
    scope_bytes batch_raw;
    uint32_t batch_next;
    int whole_batches;
    size_t unlisted_at; /* 1 + the report counting those past MAX_RECORD_REPORTS */
    int have_seq;
    uint64_t next_seq;

    scope_log_damage *damage;
    size_t ndamage, damage_cap;

    scope_decode_scratch scratch;
    scope_log_info info;
};

static void set_msg(char *msg, size_t len, const char *fmt, ...) {
    if (!msg || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

static scope_log_damage *add_damage(scope_log_reader *r, uint64_t off, uint64_t len, uint64_t lost,
                                    int truncated, const char *fmt, ...) {
    if (SCOPE_VEC_RESERVE(r->damage, r->damage_cap, r->ndamage + 1) < 0)
        return NULL; /* the report is lost, the data it describes was anyway */
    scope_log_damage *d = &r->damage[r->ndamage++];
    d->offset = off;
    d->length = len;
    d->frames_lost = lost;
    d->truncated = truncated;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->what, sizeof d->what, fmt, ap);
    va_end(ap);
    return d;
}

/* Decodes the FRAME record a frame must begin with; returns its length. */
static size_t parse_prologue(scope_log_reader *r, scope_rec_frame *fr) {
    dec_buf b = {r->frame, r->frame_len, 0, 0};
    uint64_t type = dec_u64(&b);
    uint64_t len = dec_u64(&b);
    if (b.bad || type != SCOPE_REC_FRAME || len > dec_remaining(&b))
        return 0;
    scope_record rec;
    if (scope_record_decode(SCOPE_REC_FRAME, r->frame + b.pos, (size_t)len, &rec, &r->scratch) !=
        SCOPE_DECODE_OK)
        return 0;
    *fr = rec.u.frame;
    assert(b.pos + (size_t)len <= r->frame_len);
    return b.pos + (size_t)len;
}

/* The window [base, base + avail) lies within the file, and for a reader
 * over a file within its buffer. */
static int window_ok(const scope_log_reader *r) {
    return r->base <= r->size && r->avail <= r->size - r->base &&
           (r->fd < 0 || r->avail <= r->buf_cap);
}

/* The file's bytes from `at`: *got of them, at least min(need, size - at)
 * unless the file shrank or a read failed (then size is lowered to what
 * could be read, and the rest counts as the end of the file). */
static const uint8_t *view(scope_log_reader *r, size_t at, size_t need, size_t *got) {
    if (at > r->size)
        at = r->size;
    size_t want = need < r->size - at ? need : r->size - at;
    if (at >= r->base && at - r->base <= r->avail && r->avail - (at - r->base) >= want) {
        *got = r->avail - (at - r->base);
        assert(window_ok(r) && *got <= r->size - at);
        return r->data + (at - r->base);
    }
    assert(r->fd >= 0); /* a reader over memory holds the whole file: always served above */
    /* Only a reader over a file gets here: one over memory sees it all.  The
     * bytes from `at` the window holds stay; at least READ_WINDOW new ones
     * are read after them, so that moving forward a few bytes at a time
     * costs one read per window, not one per step.  They are fewer than
     * `want` (or the view would have been served), so the window stays
     * under want + READ_WINDOW. */
    size_t keep = 0;
    if (at >= r->base && at - r->base < r->avail)
        keep = r->avail - (at - r->base);
    size_t fill = want > READ_WINDOW ? want : READ_WINDOW;
    if (fill < keep + READ_WINDOW)
        fill = keep + READ_WINDOW;
    if (fill > r->size - at)
        fill = r->size - at;
    if (fill > r->buf_cap) {
        /* Exactly fill: the window stays under want + READ_WINDOW. */
        if (SCOPE_VEC_RESIZE(r->buf, fill) == 0) {
            r->buf_cap = fill;
        } else if (r->buf_cap >= want) {
            fill = r->buf_cap;
        } else {
            fill = keep = 0; /* no memory for this frame: what follows reads as unreadable */
        }
    }
    /* What is kept lies in the window, and what is filled in the buffer. */
    assert(keep <= fill && fill <= r->buf_cap && fill <= r->size - at);
    if (keep)
        memmove(r->buf, r->buf + (at - r->base), keep);
    size_t n = keep;
    while (n < fill) {
        ssize_t k = pread(r->fd, r->buf + n, fill - n, (off_t)(at + n));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && !r->read_errno)
            r->read_errno = errno;
        if (k <= 0)
            break;
        assert((size_t)k <= fill - n); /* pread(2) read no more than asked */
        n += (size_t)k;
    }
    if (n < fill || (fill == 0 && want > 0))
        r->size = at + n;
    r->data = r->buf;
    r->base = at;
    r->avail = n;
    *got = n;
    /* At least min(need, what the file now holds from at), as promised. */
    assert(window_ok(r) && n >= (need < r->size - at ? need : r->size - at));
    return r->buf;
}

/* Whether `more` bytes of work on a frame ending at `end` stay within the
 * reader's limit; counts them if so. */
static int afford(scope_log_reader *r, size_t end, uint64_t more) {
    uint64_t limit = (uint64_t)end * SCOPE_LOG_MAX_INFLATION + SCOPE_LOG_INFLATION_ALLOWANCE;
    if (r->work > limit || more > limit - r->work)
        return 0;
    r->work += more;
    return 1;
}

/* Counts the records of the frame in r->frame from `at` and adds them to
 * r->records, unless that takes them past the limit for a frame ending at
 * `end` (then returns 0, having counted no further than the limit).  A
 * record that overruns the frame ends the count: reading reports it. */
static int count_records(scope_log_reader *r, size_t at, size_t end) {
    uint64_t limit = (uint64_t)end * SCOPE_LOG_MAX_RECORDS_PER_BYTE + SCOPE_LOG_RECORDS_ALLOWANCE;
    uint64_t n = r->records;
    assert(at <= r->frame_len);
    dec_buf b = {r->frame, r->frame_len, at, 0};
    while (b.pos < b.len) {
        if (++n > limit)
            return 0;
        dec_u64(&b);
        uint64_t len = dec_u64(&b);
        if (b.bad || len > dec_remaining(&b))
            break;
        b.pos += (size_t)len;
    }
    r->records = n;
    return 1;
}

/* Tries to read one whole frame at `at` into r->frame. */
static int try_frame(scope_log_reader *r, size_t at, size_t *csize, scope_rec_frame *fr,
                     size_t *body_at) {
    size_t rem;
    const uint8_t *p = view(r, at, ZSTD_FRAMEHEADERSIZE_MAX, &rem);
    size_t left = r->size - at;
    if (left == 0) /* a read failed or the file shrank right here */
        return FRAME_TRUNCATED;
    if (left < 4)
        return memcmp(p, zstd_magic_bytes, left) == 0 ? FRAME_TRUNCATED : FRAME_NOT_A_FRAME;
    if (memcmp(p, zstd_magic_bytes, 4) != 0)
        return FRAME_NOT_A_FRAME;

    /* Our writer always records the content size and a checksum; a frame
     * without them is not one of ours, or its header is damaged.  Checked
     * first, so that a stretch of chance magics costs a few bytes each. */
    ZSTD_frameHeader fh;
    size_t hs = ZSTD_getFrameHeader(&fh, p, rem);
    if (hs != 0 && !ZSTD_isError(hs) && rem >= left)
        return FRAME_TRUNCATED;
    if (hs != 0 || fh.frameType != ZSTD_frame || fh.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN ||
        !fh.checksumFlag || fh.frameContentSize > SCOPE_LOG_MAX_FRAME_CONTENT)
        return FRAME_BAD_HEADER;
    unsigned long long content = fh.frameContentSize;

    /* The frame's length comes from walking its block headers: widen the
     * window until they all fit, the file ends, or they run past the most
     * that zstd compresses this content into, which is damage. */
    size_t bound = ZSTD_compressBound((size_t)content), cs, walked;
    if (!afford(r, at + (bound < left ? bound : left), 0))
        return FRAME_OVER_LIMIT; /* the walk alone would take the log past the limit */
    for (;;) {
        walked = rem < bound ? rem : bound;
        cs = ZSTD_findFrameCompressedSize(p, walked);
        if (!ZSTD_isError(cs) || ZSTD_getErrorCode(cs) != ZSTD_error_srcSize_wrong)
            break;
        left = r->size - at;
        if (walked >= bound || rem >= left)
            break;
        p = view(r, at, rem * 2 < bound ? rem * 2 : bound, &rem);
    }
    if (ZSTD_isError(cs)) {
        /* Charged as if the walk had covered all it could: how far it got
         * before the error depends on how much the window held, and what a
         * log may cost must not, or a reader over a file and one over
         * memory would stop at different frames. */
        size_t most = bound < left ? bound : left;
        afford(r, at + most, most);
        if (ZSTD_getErrorCode(cs) != ZSTD_error_srcSize_wrong)
            return FRAME_BAD_HEADER;
        return walked >= bound ? FRAME_BAD_SIZE : FRAME_TRUNCATED;
    }
    /* The frame's compressed bytes lie within the window, and the file. */
    assert(cs <= walked && walked <= rem && rem <= r->size - at);
    if (!afford(r, at + cs, cs + content))
        return FRAME_OVER_LIMIT;
    if (SCOPE_VEC_RESERVE(r->frame, r->frame_cap, (size_t)content) < 0)
        return FRAME_NOMEM;
    size_t got = ZSTD_decompressDCtx(r->dctx, r->frame, (size_t)content, p, cs);
    if (ZSTD_isError(got))
        return ZSTD_getErrorCode(got) == ZSTD_error_checksum_wrong ? FRAME_CHECKSUM : FRAME_CORRUPT;
    if (got != content)
        return FRAME_CORRUPT;
    assert(got <= r->frame_cap);
    r->frame_len = got;
    size_t body = parse_prologue(r, fr);
    if (!body)
        return FRAME_NO_PROLOGUE;
    if (!count_records(r, body, at + cs))
        return FRAME_TOO_MANY;
    assert(cs > 0 && body <= r->frame_len);
    *csize = cs;
    *body_at = body;
    return FRAME_OK;
}

/* The first whole frame magic in p[0..n), or NULL.  memchr and a compare
 * rather than memmem: AddressSanitizer checks all of memmem's haystack on
 * every call, which made a scan of many candidates quadratic under it. */
static const uint8_t *find_magic(const uint8_t *p, size_t n) {
    const uint8_t *end = p + n;
    while (end - p >= 4) {
        const uint8_t *q = memchr(p, zstd_magic_bytes[0], (size_t)(end - p) - 3);
        if (!q)
            return NULL;
        if (memcmp(q, zstd_magic_bytes, 4) == 0)
            return q;
        p = q + 1;
    }
    return NULL;
}

/* The offset of the next intact frame at or after `from` (decoded into
 * r->frame), or r->size when there is none. */
static size_t resync(scope_log_reader *r, size_t from, size_t *csize, scope_rec_frame *fr,
                     size_t *body_at) {
    while (from + 4 <= r->size) {
        /* Whatever the window holds from here is scanned before it is
         * refilled: a stretch of magics costs one read per window. */
        size_t got;
        const uint8_t *p = view(r, from, 4, &got);
        if (got < 4)
            break;
        assert(got <= r->size - from);
        const uint8_t *hit = find_magic(p, got);
        if (!hit) {
            from += got - 3; /* a magic may straddle the window's end */
            continue;
        }
        size_t at = from + (size_t)(hit - p);
        if (try_frame(r, at, csize, fr, body_at) == FRAME_OK) {
            assert(at + *csize <= r->size);
            return at;
        }
        from = at + 1;
    }
    return r->size;
}

static void accept_frame(scope_log_reader *r, size_t at, size_t csize, const scope_rec_frame *fr,
                         size_t body_at) {
    /* try_frame found it whole (r->frame holds it); its records start in it */
    assert(csize > 0 && body_at <= r->frame_len);
    /* Sequence numbers start at 0 in every file, so the jump to this frame
     * counts exactly the frames the damage just before it swallowed: a
     * foreign or garbage stretch swallowed none. */
    uint64_t expect = r->have_seq ? r->next_seq : 0;
    uint64_t lost = fr->seq > expect ? fr->seq - expect : 0;
    scope_log_damage *d = r->ndamage ? &r->damage[r->ndamage - 1] : NULL;
    if (d && d->length && d->offset + d->length == at)
        d->frames_lost = lost;
    else if (lost)
        add_damage(r, at, 0, lost, 0, "sequence numbers jump here");
    if (fr->seq >= expect)
        r->next_seq = fr->seq + 1;
    r->have_seq = 1;
    r->pos = at + csize;
    r->frame_offset = at;
    r->frame_rec = *fr;
    r->rec_pos = body_at;
    r->in_frame = 1;
    r->batch_next = r->batch.n = 0;
    r->frames_read++;
}

int scope_log_reader_next_frame(scope_log_reader *r, scope_rec_frame *frame, uint64_t *offset) {
    size_t csize = 0, body_at = 0;
    scope_rec_frame fr;
    r->in_frame = 0;
    if (r->pending) {
        r->pending = 0;
        accept_frame(r, r->pending_at, r->pending_csize, &r->frame_rec, r->rec_pos);
        goto found;
    }
    while (r->pos < r->size) {
        size_t rem = r->size - r->pos;
        /* After the header a log holds data frames only, so anything else
         * (a skippable frame included) is damage to resynchronize past,
         * never a length to trust. */
        int st = try_frame(r, r->pos, &csize, &fr, &body_at);
        if (st == FRAME_OK) {
            accept_frame(r, r->pos, csize, &fr, body_at);
            goto found;
        }
        size_t next = resync(r, r->pos + 1, &csize, &fr, &body_at);
        /* every pass moves forward, or finds the file ends (it may have
         * shrunk under us): the loop ends */
        assert(next > r->pos || next >= r->size);
        if (next < r->size) {
            /* A frame that claims to run past the end of the file while
             * intact frames follow it was damaged, not cut short. */
            if (st == FRAME_TRUNCATED)
                st = FRAME_BAD_SIZE;
            add_damage(r, r->pos, next - r->pos, 0, 0, "%s", frame_status_text(st));
            accept_frame(r, next, csize, &fr, body_at);
            goto found;
        }
        /* Nothing intact follows.  A stretch that starts like a frame cost at
         * least that frame; how many more is unknowable. */
        add_damage(r, r->pos, rem, st != FRAME_NOT_A_FRAME, st == FRAME_TRUNCATED, "%s",
                   frame_status_text(st));
        r->pos = r->size;
    }
    return 0;
found:
    if (frame)
        *frame = r->frame_rec;
    if (offset)
        *offset = r->frame_offset;
    return 1;
}

/* The next interval of the batch being handed out, as a RESOURCE record. */
static int next_of_batch(scope_log_reader *r, scope_record *rec) {
    if (r->batch_next >= r->batch.n)
        return 0;
    assert(r->batch.records); /* a decoded batch of n > 0 has its records */
    memset(&rec->u, 0, sizeof rec->u);
    rec->type = SCOPE_REC_RESOURCE;
    rec->raw = r->batch_raw;
    rec->u.resource = r->batch.records[r->batch_next++];
    return 1;
}

int scope_log_reader_next_record(scope_log_reader *r, scope_record *rec) {
    if (r->in_frame && next_of_batch(r, rec))
        return 1;
    assert(!r->in_frame || r->rec_pos <= r->frame_len);
    while (r->in_frame && r->rec_pos < r->frame_len) {
        dec_buf b = {r->frame, r->frame_len, r->rec_pos, 0};
        uint64_t type = dec_u64(&b);
        uint64_t len = dec_u64(&b);
        if (b.bad || len > dec_remaining(&b) || type > UINT32_MAX) {
            /* The checksum passed, so a writer wrote this: stop at it. */
            add_damage(r, r->frame_offset, 0, 0, 0,
                       "frame %llu: record at +%zu overruns its frame; rest of frame skipped",
                       (unsigned long long)r->frame_rec.seq, r->rec_pos);
            r->rec_pos = r->frame_len;
            break;
        }
        size_t at = r->rec_pos;
        const uint8_t *body = r->frame + b.pos;
        r->rec_pos = b.pos + (size_t)len;
        assert(r->rec_pos > at && r->rec_pos <= r->frame_len); /* the body is in the frame */
        if (type < 64 && (r->skip_kinds >> type & 1))
            continue;
        if (type == SCOPE_REC_RESOURCE_BATCH && (r->skip_kinds >> SCOPE_REC_RESOURCE & 1))
            continue;
        int st = scope_record_decode((uint32_t)type, body, (size_t)len, rec, &r->scratch);
        if (st == SCOPE_DECODE_OK && type == SCOPE_REC_RESOURCE_BATCH && !r->whole_batches) {
            r->batch = rec->u.resource_batch;
            r->batch_raw = rec->raw;
            r->batch_next = 0;
            if (next_of_batch(r, rec))
                return 1;
            continue; /* an empty batch */
        }
        if (st == SCOPE_DECODE_OK)
            return 1;
        if (++r->record_damage > MAX_RECORD_REPORTS) {
            if (r->record_damage == MAX_RECORD_REPORTS + 1)
                r->unlisted_at = add_damage(r, r->frame_offset, 0, 0, 0, "-") ? r->ndamage : 0;
            assert(r->unlisted_at <= r->ndamage);
            if (r->unlisted_at)
                snprintf(r->damage[r->unlisted_at - 1].what, sizeof r->damage->what,
                         "%llu more malformed records skipped, from frame %llu on",
                         (unsigned long long)(r->record_damage - MAX_RECORD_REPORTS),
                         (unsigned long long)r->frame_rec.seq);
            continue;
        }
        add_damage(r, r->frame_offset, 0, 0, 0, "frame %llu: %s %s record at +%zu skipped",
                   (unsigned long long)r->frame_rec.seq,
                   st == SCOPE_DECODE_NOMEM ? "no memory for" : "malformed",
                   scope_rec_type_name((uint32_t)type), at);
    }
    return 0;
}

int scope_log_reader_seek(scope_log_reader *r, uint64_t offset, uint64_t next_seq) {
    if (offset < SCOPE_LOG_HEADER_SIZE || offset > r->size)
        return -EINVAL;
    r->pending = 0;
    r->in_frame = 0;
    r->batch_next = r->batch.n = 0;
    r->pos = (size_t)offset;
    r->next_seq = next_seq;
    r->have_seq = 1;
    return 0;
}

/* ---- the newest snapshot (docs/format.md 9.8) ------------------------------ */

/* Candidates a backward search examines past their frame header, at most.
 * The last frame of a real log is found at the first candidate, or the
 * second when the file ends inside a frame; a tail of forged frames costs
 * no more than these few walks (each within the work budget) and then
 * counts as no snapshot, which reads the file from the start. */
#define TAIL_WALKS 16
/* Snapshot frames a reader tries before it reads from the start: the
 * newest and the few before it, when damage hit them one after another. */
#define SNAPSHOT_TRIES 4

/* The start of the last whole magic in p[0..n), or NULL.  A plain loop:
 * sanitizers check the whole range of memrchr on every call. */
static const uint8_t *find_magic_last(const uint8_t *p, size_t n) {
    for (size_t i = n >= 4 ? n - 4 + 1 : 0; i-- > 0;)
        if (p[i] == zstd_magic_bytes[0] && memcmp(p + i, zstd_magic_bytes, 4) == 0)
            return p + i;
    return NULL;
}

/* Lets the work of a search that starts at `lo` use the budget the
 * reader's limits give the bytes from lo on (9.7), as if it had read
 * everything before: what a backward search costs follows what it
 * searches, not the length of the file. */
static void budget_from(scope_log_reader *r, size_t lo) {
    r->work = (uint64_t)lo * SCOPE_LOG_MAX_INFLATION;
    r->records = (uint64_t)lo * SCOPE_LOG_MAX_RECORDS_PER_BYTE;
}

/* The first stretch a backward search reads from its end; each stretch
 * that holds no intact frame doubles the next, so that the common case
 * (the last frame within its frame's length of the end) reads little. */
#define TAIL_CHUNK ((size_t)64 << 10)

/* The newest intact frame starting in [lo, hi): 1 with its offset and
 * FRAME record (r->frame holds it), 0 when there is none. */
static int last_frame_in(scope_log_reader *r, size_t lo, size_t hi, size_t *at,
                         scope_rec_frame *fr) {
    unsigned walks = 0;
    size_t chunk = TAIL_CHUNK;
    budget_from(r, lo);
    while (hi > lo && walks < TAIL_WALKS) {
        /* The candidates starting in [from, hi), the nearest to hi first.
         * The stretch is read once, and again only after a candidate's walk
         * moved the window: a tail of chance magics whose headers are
         * unusable costs a header each. */
        size_t from = hi - lo > chunk ? hi - chunk : lo;
        while (hi > from && walks < TAIL_WALKS) {
            size_t want = hi - from + 3, got;
            const uint8_t *p = view(r, from, want, &got);
            if (from + got < hi + 3)
                hi = from + got > 3 ? from + got - 3 : from; /* the file ends sooner */
            /* the candidates' bytes lie in what the view gave */
            assert(hi <= from || hi - from + 3 <= got);
            const uint8_t *q = hi > from ? find_magic_last(p, hi - from + 3) : NULL;
            if (!q)
                break;
            size_t c = from + (size_t)(q - p), csize, body_at, base = r->base;
            assert(c >= from && c < hi); /* hi falls each pass: the search ends */
            int st = try_frame(r, c, &csize, fr, &body_at);
            if (st == FRAME_OK) {
                *at = c;
                return 1;
            }
            if (st != FRAME_BAD_HEADER || r->base != base)
                walks++;
            hi = c;
        }
        hi = from;
        chunk = chunk < SCOPE_LOG_TAIL_SCAN / 2 ? chunk * 2 : SCOPE_LOG_TAIL_SCAN;
    }
    return 0;
}

static size_t search_start(size_t end) {
    return end > SCOPE_LOG_HEADER_SIZE + SCOPE_LOG_TAIL_SCAN ? end - SCOPE_LOG_TAIL_SCAN
                                                             : SCOPE_LOG_HEADER_SIZE;
}

/* Whether the frame at x is intact and a snapshot (decoded into *sf). */
static int snapshot_at(scope_log_reader *r, size_t x, scope_rec_frame *sf) {
    size_t csize, body_at;
    budget_from(r, x);
    return try_frame(r, x, &csize, sf, &body_at) == FRAME_OK &&
           (sf->flags & SCOPE_FRAME_F_SNAPSHOT);
}

static void find_snapshot(scope_log_reader *r, scope_log_snapshot *s) {
    size_t at;
    scope_rec_frame fr, sf;
    if (r->size <= SCOPE_LOG_HEADER_SIZE ||
        !last_frame_in(r, search_start(r->size), r->size, &at, &fr))
        return;
    for (unsigned tries = 0; tries < SNAPSHOT_TRIES; tries++) {
        size_t x = at;
        if (fr.flags & SCOPE_FRAME_F_SNAPSHOT) {
            sf = fr;
        } else {
            /* A snapshot written before this frame, never at or after it:
             * anything else names no snapshot, and ends the chain. */
            if (fr.last_snapshot < SCOPE_LOG_HEADER_SIZE || fr.last_snapshot >= at)
                return;
            x = (size_t)fr.last_snapshot;
            if (!snapshot_at(r, x, &sf)) {
                /* Damaged, or not a snapshot: the snapshot before it is
                 * named by the intact frame nearest before it. */
                if (!s->passed_over++)
                    s->damaged_offset = x;
                if (!last_frame_in(r, search_start(x), x, &at, &fr))
                    return;
                continue;
            }
        }
        s->status = s->passed_over ? SCOPE_SNAPSHOT_OLDER : SCOPE_SNAPSHOT_NEWEST;
        s->offset = x;
        s->seq = sf.seq;
        s->mono_ns = sf.mono_ns;
        s->wall_ns = sf.wall_ns;
        return;
    }
}

int scope_log_reader_find_snapshot(scope_log_reader *r, scope_log_snapshot *s) {
    memset(s, 0, sizeof *s);
    if (r->frames_read || r->in_frame)
        return -EINVAL;
    uint64_t work = r->work, records = r->records;
    find_snapshot(r, s);
    if (s->status == SCOPE_SNAPSHOT_NONE) {
        s->damaged_offset = 0;
        s->passed_over = 0;
    }
    /* The search used the frame buffer: a frame found while opening (past a
     * damaged header) is decoded again, so that reading from the start
     * finds it as it was. */
    if (r->pending) {
        size_t csize, body_at;
        scope_rec_frame fr;
        if (try_frame(r, r->pending_at, &csize, &fr, &body_at) == FRAME_OK) {
            r->frame_rec = fr;
            r->rec_pos = body_at;
        } else {
            r->pending = 0; /* the file changed under us: read from that frame on */
            r->pos = r->pending_at;
        }
    }
    r->work = work;
    r->records = records;
    return 0;
}

void scope_log_reader_skip_kinds(scope_log_reader *r, uint64_t mask) {
    r->skip_kinds = mask;
}

void scope_log_reader_whole_batches(scope_log_reader *r, int whole) {
    r->whole_batches = whole;
}

static int reader_init(scope_log_reader *r, char *msg, size_t msglen) {
    r->info.file_size = r->size;
    r->info.version_major = SCOPE_LOG_VERSION_MAJOR;
    r->info.version_minor = SCOPE_LOG_VERSION_MINOR;
    r->dctx = ZSTD_createDCtx();
    if (!r->dctx) {
        set_msg(msg, msglen, "out of memory");
        return -ENOMEM;
    }
    if (r->size == 0) {
        set_msg(msg, msglen, "empty file: nothing was ever recorded in it");
        return -ENODATA;
    }
    uint16_t major = 0, minor = 0;
    size_t got;
    const uint8_t *head = view(r, 0, SCOPE_LOG_HEADER_SIZE, &got);
    if (r->read_errno) {
        set_msg(msg, msglen, "cannot read: %s", strerror(r->read_errno));
        return -r->read_errno;
    }
    int hs = file_header_parse(head, got, &major, &minor);
    if (hs == FILE_HEADER_OK) {
        if (major == 0) {
            set_msg(msg, msglen, "log format %u.%u: no scope release wrote major version 0", major,
                    minor);
            return -EPROTONOSUPPORT;
        }
        if (major > SCOPE_LOG_VERSION_MAJOR) {
            set_msg(msg, msglen,
                    "written by a newer scope (log format %u.%u); this build reads format %u.x",
                    major, minor, SCOPE_LOG_VERSION_MAJOR);
            return -EPROTONOSUPPORT;
        }
        r->info.version_major = major;
        r->info.version_minor = minor;
        r->info.header_ok = 1;
        r->pos = SCOPE_LOG_HEADER_SIZE;
        return 0;
    }
    if (hs == FILE_HEADER_SHORT) {
        set_msg(msg, msglen, "the file ends inside its header (%zu bytes): nothing was recorded",
                r->size);
        return -ENODATA;
    }
    /* No usable header: a damaged log still has its frames; anything else is
     * not ours. */
    size_t csize, body_at;
    scope_rec_frame fr;
    size_t at = resync(r, 0, &csize, &fr, &body_at);
    if (at == r->size) {
        if (hs == FILE_HEADER_DAMAGED)
            set_msg(msg, msglen, "a scope log whose header is damaged and no frame is readable");
        else
            set_msg(msg, msglen, "not a scope event log (no log header and no log frame found)");
        return -EBADMSG;
    }
    add_damage(r, 0, at, 0, 0, "file header damaged; log format %u.x assumed",
               SCOPE_LOG_VERSION_MAJOR);
    r->pending = 1;
    r->pending_at = at;
    r->pending_csize = csize;
    r->frame_rec = fr;
    r->rec_pos = body_at;
    return 0;
}

int scope_log_reader_open_mem(scope_log_reader **out, const void *data, size_t size, char *msg,
                              size_t msglen) {
    *out = NULL;
    scope_log_reader *r = calloc(1, sizeof *r);
    if (!r) {
        set_msg(msg, msglen, "out of memory");
        return -ENOMEM;
    }
    r->data = data;
    r->size = r->avail = size;
    r->fd = -1;
    int rc = reader_init(r, msg, msglen);
    if (rc < 0) {
        scope_log_reader_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

/* What a file that is not a regular file is, for the message refusing it. */
static const char *file_kind(mode_t mode) {
    if (S_ISDIR(mode))
        return "is a directory, not a log file";
    if (S_ISFIFO(mode))
        return "is a named pipe (FIFO), not a log file";
    if (S_ISCHR(mode))
        return "is a character device, not a log file";
    if (S_ISBLK(mode))
        return "is a block device, not a log file";
    if (S_ISSOCK(mode))
        return "is a socket, not a log file";
    return "not a regular file";
}

/* Refuses anything but a regular file, with errno and message. */
static int refuse_kind(mode_t mode, char *msg, size_t msglen) {
    set_msg(msg, msglen, "%s", file_kind(mode));
    return S_ISDIR(mode) ? -EISDIR : -EINVAL;
}

/* Reads the log open on fd (opened without waiting), which it owns from
 * here: refuses anything but a regular file, restores blocking mode. */
static int open_fd(scope_log_reader **out, int fd, char *msg, size_t msglen) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        set_msg(msg, msglen, "cannot stat: %s", strerror(e));
        close(fd);
        return -e;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return refuse_kind(st.st_mode, msg, msglen);
    }
    /* Reads of a regular file never wait anyway; blocking mode is restored
     * so that the descriptor behaves as any other. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    scope_log_reader *r = calloc(1, sizeof *r);
    if (!r) {
        close(fd);
        set_msg(msg, msglen, "out of memory");
        return -ENOMEM;
    }
    r->fd = fd;
    r->size = (size_t)st.st_size;
    int rc = reader_init(r, msg, msglen);
    if (rc < 0) {
        scope_log_reader_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

static int open_failed(char *msg, size_t msglen) {
    int e = errno;
    if (e == ELOOP)
        set_msg(msg, msglen, "a symbolic link, not followed");
    else
        set_msg(msg, msglen, "cannot open: %s", strerror(e));
    return -e;
}

/* Opening never waits (O_NONBLOCK): opening a FIFO for reading blocks until
 * a writer comes.  The type is checked before opening too, since opening a
 * device may do what its driver does on open; open_fd checks it again on
 * what was opened, in case the file was replaced in between. */
#define OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)

int scope_log_reader_open(scope_log_reader **out, const char *path, char *msg, size_t msglen) {
    *out = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return refuse_kind(st.st_mode, msg, msglen);
    int fd = open(path, OPEN_FLAGS);
    if (fd < 0)
        return open_failed(msg, msglen);
    return open_fd(out, fd, msg, msglen);
}

int scope_log_reader_open_beneath(scope_log_reader **out, int dirfd, const char *relpath, char *msg,
                                  size_t msglen) {
    *out = NULL;
    /* One component at a time, each opened with O_NOFOLLOW relative to the
     * one before: a link anywhere below dirfd, even one swapped in after the
     * caller listed the folders, fails with ELOOP (or ENOTDIR for a folder). */
    int at = dirfd, fd = -1;
    const char *p = relpath;
    for (;;) {
        const char *slash = strchr(p, '/');
        char part[NAME_MAX + 1];
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (n == 0 || n > NAME_MAX || (n == 2 && !memcmp(p, "..", 2))) {
            if (at != dirfd)
                close(at);
            set_msg(msg, msglen, "not a path below the run directory");
            return -EINVAL;
        }
        memcpy(part, p, n);
        part[n] = '\0';
        if (!slash) {
            struct stat st;
            if (fstatat(at, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) &&
                !S_ISLNK(st.st_mode)) {
                if (at != dirfd)
                    close(at);
                return refuse_kind(st.st_mode, msg, msglen);
            }
            fd = openat(at, part, OPEN_FLAGS | O_NOFOLLOW);
        } else {
            fd = openat(at, part, O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
            if (fd < 0 && errno == ENOTDIR) {
                struct stat st;
                if (fstatat(at, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                    errno = ELOOP;
                else
                    errno = ENOTDIR;
            }
        }
        int e = errno;
        if (at != dirfd)
            close(at);
        errno = e;
        if (fd < 0)
            return open_failed(msg, msglen);
        if (!slash)
            return open_fd(out, fd, msg, msglen);
        at = fd;
        p = slash + 1;
    }
}

const scope_log_info *scope_log_reader_info(const scope_log_reader *r) {
    return &r->info;
}

size_t scope_log_reader_damage_count(const scope_log_reader *r) {
    return r->ndamage;
}

const scope_log_damage *scope_log_reader_damage(const scope_log_reader *r, size_t i) {
    return i < r->ndamage ? &r->damage[i] : NULL;
}

uint64_t scope_log_reader_frames_read(const scope_log_reader *r) {
    return r->frames_read;
}

void scope_log_reader_close(scope_log_reader *r) {
    if (!r)
        return;
    ZSTD_freeDCtx(r->dctx);
    scope_decode_scratch_free(&r->scratch);
    free(r->frame);
    free(r->damage);
    free(r->buf);
    if (r->fd >= 0)
        close(r->fd);
    free(r);
}
