/*
 * LEB128 varints and the bounded byte buffers the record codec encodes into
 * and decodes from.  Internal to formats/.
 *
 * Encoding never fails: an enc_buf counts the bytes it would have written past
 * its capacity, so one pass both sizes and fills.  Decoding never reads past
 * the end: the first out-of-bounds read or overlong varint sets `bad`, and
 * every later read returns zero, so decoders check once at the end.
 *
 * The asserts state what the code guarantees, never what the bytes say: a
 * dec_buf's position never passes its length, whatever it decodes, and a
 * varint is never longer than VARINT_MAX_LEN.
 */
#ifndef SCOPE_FORMATS_VARINT_H
#define SCOPE_FORMATS_VARINT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define VARINT_MAX_LEN 10

typedef struct enc_buf {
    uint8_t *p;
    size_t cap;
    size_t len; /* may exceed cap: then nothing past cap was written */
} enc_buf;

static inline void enc_byte(enc_buf *b, uint8_t v) {
    if (b->len < b->cap)
        b->p[b->len] = v;
    b->len++;
}

static inline void enc_u64(enc_buf *b, uint64_t v) {
    size_t start = b->len;
    (void)start; /* read by the assert only */
    while (v >= 0x80) {
        enc_byte(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    enc_byte(b, (uint8_t)v);
    assert(b->len - start <= VARINT_MAX_LEN);
}

/* Zigzag keeps small negative numbers (a rank of -1) one byte long. */
static inline void enc_i64(enc_buf *b, int64_t v) {
    enc_u64(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline void enc_bytes(enc_buf *b, const uint8_t *p, size_t n) {
    enc_u64(b, n);
    if (b->len < b->cap && n > 0) {
        size_t fits = n <= b->cap - b->len ? n : b->cap - b->len;
        assert(b->len + fits <= b->cap);
        memcpy(b->p + b->len, p, fits);
    }
    b->len += n;
}

/* Number of bytes enc_u64 would write. */
static inline size_t varint_len(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    assert(n <= VARINT_MAX_LEN);
    return n;
}

typedef struct dec_buf {
    const uint8_t *p;
    size_t len;
    size_t pos;
    int bad; /* set on the first read past the end or malformed varint */
} dec_buf;

static inline uint64_t dec_u64(dec_buf *b) {
    assert(b->pos <= b->len);
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (b->pos >= b->len) {
            b->bad = 1;
            return 0;
        }
        uint8_t byte = b->p[b->pos++];
        /* The tenth byte may only carry the top bit of a 64-bit value. */
        if (shift == 63 && byte > 1) {
            b->bad = 1;
            return 0;
        }
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return v;
    }
    b->bad = 1;
    return 0;
}

static inline int64_t dec_i64(dec_buf *b) {
    uint64_t u = dec_u64(b);
    return (int64_t)((u >> 1) ^ (~(u & 1) + 1));
}

/* A u32 field: larger values are malformed, not truncated silently. */
static inline uint32_t dec_u32(dec_buf *b) {
    uint64_t v = dec_u64(b);
    if (v > UINT32_MAX) {
        b->bad = 1;
        return 0;
    }
    return (uint32_t)v;
}

static inline int32_t dec_i32(dec_buf *b) {
    int64_t v = dec_i64(b);
    if (v < INT32_MIN || v > INT32_MAX) {
        b->bad = 1;
        return 0;
    }
    return (int32_t)v;
}

static inline size_t dec_remaining(const dec_buf *b) {
    assert(b->pos <= b->len);
    return b->bad ? 0 : b->len - b->pos;
}

static inline void dec_bytes(dec_buf *b, const uint8_t **p, size_t *n) {
    uint64_t len = dec_u64(b);
    if (b->bad || len > b->len - b->pos) {
        b->bad = 1;
        *p = NULL;
        *n = 0;
        return;
    }
    *p = b->p + b->pos;
    *n = (size_t)len;
    b->pos += (size_t)len;
    assert(b->pos <= b->len);
}

#endif
