/*
 * The log writer.  Records are encoded into one flat buffer; closing a frame
 * puts the FRAME record in front of them, compresses the lot into a second
 * buffer and hands it to the kernel with one write(2).
 *
 * Steady state allocates nothing and takes no lock: both buffers and the
 * compressor's workspace are sized at open for frames up to max_frame_hint.
 * The compressor is a *static* zstd context over memory we own, with its
 * parameters pinned, so zstd can never decide to grow or shrink it behind our
 * back (a regular context frees and re-allocates a workspace it considers
 * oversized after enough small frames).  Only a frame larger than any before
 * grows the record buffer, once.  Locking is the caller's business: the
 * recorder has exactly one thread that writes.
 *
 * The asserts hold the buffer's layout (writer_ok below) and the sizes
 * computed before each copy.  They are compiled in with the tests only
 * (SCOPE_ASSERTS): in a user's program the writer runs inside libscope.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_initStaticCCtx, ZSTD_estimateCCtxSize_usingCParams */
#include "file_header.h"
#include "varint.h"

#include <assert.h>
#include <errno.h>
#include <scope/vec.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

/* Room kept at the front of the record buffer for the FRAME record, which is
 * written last but must come first: type, length and four varints. */
#define FRAME_RESERVE (2 + 6 * VARINT_MAX_LEN)
/* Room for a record's type and length in front of its body. */
#define RECORD_HEADER_MAX (2 * VARINT_MAX_LEN)

struct scope_log_writer {
    int fd;
    uint64_t frame_start;   /* file offset where the next frame goes */
    uint64_t last_snapshot; /* offset of the newest snapshot frame written; 0: none */
    uint64_t seq;
    uint64_t bytes;
    uint8_t *raw; /* FRAME_RESERVE bytes, then the open frame's records */
    size_t raw_len, raw_cap;
    uint8_t *out; /* compressed frame */
    size_t out_cap;
    ZSTD_CCtx *cctx;
    void *cctx_mem;
};

/* The buffers' layout: raw_len is 0 (no frame open) or counts the room
 * reserved for the FRAME record and the records after it, all within raw;
 * out holds the compressed form of anything raw can hold. */
static int writer_ok(const scope_log_writer *w) {
    return (w->raw_len == 0 || (w->raw_len >= FRAME_RESERVE && w->raw_len <= w->raw_cap)) &&
           w->raw_cap >= FRAME_RESERVE && w->out_cap >= ZSTD_compressBound(w->raw_cap);
}

static int write_all(int fd, const uint8_t *p, size_t n, size_t *done) {
    *done = 0;
    while (*done < n) {
        ssize_t k = write(fd, p + *done, n - *done);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (k == 0)
            return -ENOSPC;
        assert((size_t)k <= n - *done); /* write(2) wrote no more than asked */
        *done += (size_t)k;
    }
    return 0;
}

/* Puts the file back to where the failed write began, so the log ends on a
 * frame boundary.  Best effort: a pipe or a vanished file cannot be cut. */
static void cut_back(scope_log_writer *w) {
    if (ftruncate(w->fd, (off_t)w->frame_start) == 0)
        (void)lseek(w->fd, (off_t)w->frame_start, SEEK_SET);
}

static int setup_compressor(scope_log_writer *w, int level, size_t hint) {
    ZSTD_compressionParameters cp = ZSTD_getCParams(level, hint, 0);
    size_t need = ZSTD_estimateCCtxSize_usingCParams(cp);
    w->cctx_mem = malloc(need);
    if (!w->cctx_mem)
        return -ENOMEM;
    w->cctx = ZSTD_initStaticCCtx(w->cctx_mem, need);
    if (!w->cctx)
        return -ENOMEM;
    /* Pin every parameter: they then do not depend on each frame's size. */
    const struct {
        ZSTD_cParameter p;
        int v;
    } params[] = {
        {ZSTD_c_windowLog, (int)cp.windowLog}, {ZSTD_c_chainLog, (int)cp.chainLog},
        {ZSTD_c_hashLog, (int)cp.hashLog},     {ZSTD_c_searchLog, (int)cp.searchLog},
        {ZSTD_c_minMatch, (int)cp.minMatch},   {ZSTD_c_targetLength, (int)cp.targetLength},
        {ZSTD_c_strategy, (int)cp.strategy},   {ZSTD_c_checksumFlag, 1},
        {ZSTD_c_contentSizeFlag, 1},
    };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, params[i].p, params[i].v)))
            return -EINVAL;
    return 0;
}

static int grow(scope_log_writer *w, size_t need) {
    assert(need > w->raw_cap && writer_ok(w));
    size_t cap = w->raw_cap; /* raw_cap follows only once out has grown too */
    uint8_t *raw = scope_vec_grow(w->raw, &cap, need, 1);
    if (!raw)
        return -ENOMEM;
    w->raw = raw;
    /* Exactly the bound: out never holds more than one compressed frame. */
    size_t out_cap = ZSTD_compressBound(cap);
    if (SCOPE_VEC_RESIZE(w->out, out_cap) < 0) {
        /* raw already grew; keep it and fail: the next try grows out again */
        return -ENOMEM;
    }
    w->raw_cap = cap;
    w->out_cap = out_cap;
    assert(w->raw_cap >= need && writer_ok(w));
    return 0;
}

int scope_log_writer_open(scope_log_writer **out, int fd, const scope_log_writer_options *opt) {
    int level = opt && opt->level ? opt->level : 3;
    size_t hint = opt && opt->max_frame_hint ? opt->max_frame_hint : (size_t)1 << 20;
    struct stat st;
    *out = NULL;
    if (fstat(fd, &st) != 0)
        return -errno;

    if (st.st_size != 0)
        return -EEXIST; /* sequence numbers are per file: one writer per log */
    scope_log_writer *w = calloc(1, sizeof *w);
    if (!w)
        return -ENOMEM;
    w->fd = fd;
    w->raw_cap = FRAME_RESERVE + hint;
    w->raw = malloc(w->raw_cap);
    w->out_cap = ZSTD_compressBound(w->raw_cap);
    w->out = malloc(w->out_cap);
    int rc = w->raw && w->out ? setup_compressor(w, level, hint) : -ENOMEM;
    if (rc == 0) {
        uint8_t header[SCOPE_LOG_HEADER_SIZE];
        size_t done;
        file_header_build(header, SCOPE_LOG_VERSION_MAJOR, SCOPE_LOG_VERSION_MINOR);
        rc = write_all(fd, header, sizeof header, &done);
        if (rc < 0 && done > 0)
            cut_back(w);
        if (rc == 0)
            w->bytes = sizeof header;
    }
    if (rc < 0) {
        scope_log_writer_free(w);
        return rc;
    }
    w->frame_start = w->bytes;
    assert(writer_ok(w));
    *out = w;
    return 0;
}

/* Makes room for `body_max` more body bytes after a record header, within
 * the frame size every reader accepts. */
static int reserve(scope_log_writer *w, size_t body_max) {
    if (w->raw_len == 0)
        w->raw_len = FRAME_RESERVE;
    size_t need = w->raw_len + RECORD_HEADER_MAX + body_max;
    if (need > SCOPE_LOG_MAX_FRAME_CONTENT) /* bounds the decompressed frame too */
        return -E2BIG;
    int rc = need <= w->raw_cap ? 0 : grow(w, need);
    assert(rc < 0 || (need <= w->raw_cap && writer_ok(w)));
    return rc;
}

/* The body was written at raw_len + RECORD_HEADER_MAX; put the type and
 * length right in front of it and close the gap. */
static void seal(scope_log_writer *w, uint32_t type, size_t body_len) {
    uint8_t head[RECORD_HEADER_MAX];
    enc_buf h = {head, sizeof head, 0};
    enc_u64(&h, type);
    enc_u64(&h, body_len);
    /* The body lies within what reserve() made room for, and the header
     * fits in front of it: moving the body closes the gap, never overruns. */
    assert(h.len <= RECORD_HEADER_MAX && writer_ok(w) && w->raw_len >= FRAME_RESERVE);
    assert(body_len <= w->raw_cap - w->raw_len - RECORD_HEADER_MAX);
    uint8_t *at = w->raw + w->raw_len;
    memmove(at + h.len, at + RECORD_HEADER_MAX, body_len);
    memcpy(at, head, h.len);
    w->raw_len += h.len + body_len;
}

int scope_log_writer_add(scope_log_writer *w, const scope_record *rec) {
    if (rec->type == SCOPE_REC_FRAME)
        return -EINVAL;
    int rc = reserve(w, 0);
    if (rc < 0)
        return rc;
    size_t room = w->raw_cap - w->raw_len - RECORD_HEADER_MAX;
    size_t len = scope_record_encode(rec, w->raw + w->raw_len + RECORD_HEADER_MAX, room);
    if (len == 0)
        return -EINVAL;
    if (len > room) {
        if ((rc = reserve(w, len)) < 0)
            return rc;
        size_t again = scope_record_encode(rec, w->raw + w->raw_len + RECORD_HEADER_MAX, len);
        (void)again;          /* read by the assert only */
        assert(again == len); /* encoding is a function of the record */
    } else if (w->raw_len + RECORD_HEADER_MAX + len > SCOPE_LOG_MAX_FRAME_CONTENT) {
        return -E2BIG; /* fits the buffer (grown earlier), not the frame limit */
    }
    seal(w, rec->type, len);
    return 0;
}

int scope_log_writer_add_raw(scope_log_writer *w, uint32_t type, const void *body, size_t len) {
    if (type == SCOPE_REC_FRAME)
        return -EINVAL;
    int rc = reserve(w, len);
    if (rc < 0)
        return rc;
    if (len)
        memcpy(w->raw + w->raw_len + RECORD_HEADER_MAX, body, len);
    seal(w, type, len);
    return 0;
}

size_t scope_log_writer_pending(const scope_log_writer *w) {
    assert(writer_ok(w));
    return w->raw_len ? w->raw_len - FRAME_RESERVE : 0;
}

void scope_log_writer_discard(scope_log_writer *w) {
    w->raw_len = 0;
}

long scope_log_writer_close_frame(scope_log_writer *w, uint32_t reason, uint64_t mono_ns,
                                  uint64_t wall_ns) {
    return scope_log_writer_close_frame_flags(w, reason, 0, mono_ns, wall_ns);
}

long scope_log_writer_close_frame_flags(scope_log_writer *w, uint32_t reason, uint32_t flags,
                                        uint64_t mono_ns, uint64_t wall_ns) {
    if (w->raw_len == 0)
        w->raw_len = FRAME_RESERVE;

    /* The FRAME record goes right-aligned into the reserved room, so the
     * frame's bytes are contiguous without moving the records. */
    scope_record fr = {.type = SCOPE_REC_FRAME};
    fr.u.frame = (scope_rec_frame){w->seq, mono_ns, wall_ns, reason, flags, w->last_snapshot};
    uint8_t body[6 * VARINT_MAX_LEN];
    size_t blen = scope_record_encode(&fr, body, sizeof body);
    assert(blen > 0 && blen <= sizeof body); /* six varints */
    uint8_t pro[FRAME_RESERVE];
    enc_buf h = {pro, sizeof pro, 0};
    enc_u64(&h, SCOPE_REC_FRAME);
    enc_u64(&h, blen);
    assert(h.len + blen <= sizeof pro); /* the FRAME record fits its reserved room */
    memcpy(pro + h.len, body, blen);
    size_t plen = h.len + blen;
    assert(writer_ok(w) && w->raw_len >= FRAME_RESERVE);
    uint8_t *src = w->raw + FRAME_RESERVE - plen;
    memcpy(src, pro, plen);
    size_t src_len = w->raw_len - FRAME_RESERVE + plen;

    size_t csize = ZSTD_compress2(w->cctx, w->out, w->out_cap, src, src_len);
    if (ZSTD_isError(csize))
        return ZSTD_getErrorCode(csize) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
    assert(csize > 0 && csize <= w->out_cap);

    size_t done;
    int rc = write_all(w->fd, w->out, csize, &done);
    if (rc < 0) {
        if (done > 0)
            cut_back(w);
        return rc; /* the records stay pending for the next close */
    }
    if (flags & SCOPE_FRAME_F_SNAPSHOT)
        w->last_snapshot = w->frame_start;
    w->frame_start += csize;
    w->bytes += csize;
    w->seq++;
    w->raw_len = 0;
    return (long)csize;
}

int scope_log_writer_set_fd(scope_log_writer *w, int fd) {
    struct stat st;
    w->fd = -1;
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0)
        return -errno;
    w->fd = fd;
    w->frame_start = (uint64_t)st.st_size;
    /* A file cut short since: the snapshot it pointed to may be gone. */
    if (w->last_snapshot >= w->frame_start)
        w->last_snapshot = 0;
    return 0;
}

uint64_t scope_log_writer_last_snapshot(const scope_log_writer *w) {
    return w->last_snapshot;
}

uint64_t scope_log_writer_frames(const scope_log_writer *w) {
    return w->seq;
}

uint64_t scope_log_writer_bytes(const scope_log_writer *w) {
    return w->bytes;
}

void scope_log_writer_free(scope_log_writer *w) {
    if (!w)
        return;
    free(w->cctx_mem); /* a static context lives inside this memory */
    free(w->raw);
    free(w->out);
    free(w);
}
