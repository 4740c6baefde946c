/*
 * The 32-byte file header, shared by the writer and the reader.  Internal.
 *
 *   u32 LE 0x184D2A53   zstd skippable-frame magic: `zstd -dc` skips it
 *   u32 LE 24           payload size
 *   "SCOPELOG"          8 bytes
 *   u16 LE major, u16 LE minor, u32 LE flags (0), u32 LE reserved (0)
 *   u32 LE check        FNV-1a of the 20 payload bytes before it, so a bit
 *                       flip in the version is caught rather than trusted.
 */
#ifndef SCOPE_FORMATS_FILE_HEADER_H
#define SCOPE_FORMATS_FILE_HEADER_H

#include <scope/log_format.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t le32_get(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void le32_put(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t header_check(const uint8_t *p, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

static inline void file_header_build(uint8_t out[SCOPE_LOG_HEADER_SIZE], uint16_t major,
                                     uint16_t minor) {
    memset(out, 0, SCOPE_LOG_HEADER_SIZE);
    le32_put(out, SCOPE_LOG_SKIPPABLE_MAGIC);
    le32_put(out + 4, SCOPE_LOG_HEADER_PAYLOAD);
    uint8_t *pl = out + 8;
    memcpy(pl, SCOPE_LOG_HEADER_MAGIC, 8);
    pl[8] = (uint8_t)major;
    pl[9] = (uint8_t)(major >> 8);
    pl[10] = (uint8_t)minor;
    pl[11] = (uint8_t)(minor >> 8);
    le32_put(pl + 20, header_check(pl, 20));
}

enum file_header_status {
    FILE_HEADER_OK = 0,
    FILE_HEADER_SHORT = 1,   /* fewer bytes than a header */
    FILE_HEADER_FOREIGN = 2, /* does not start like a scope log at all */
    FILE_HEADER_DAMAGED = 3, /* starts like one, but the check fails */
};

static inline int file_header_parse(const uint8_t *p, size_t n, uint16_t *major, uint16_t *minor) {
    static const uint8_t prefix[12] = {0x53, 0x2A, 0x4D, 0x18, SCOPE_LOG_HEADER_PAYLOAD, 0, 0, 0,
                                       'S',  'C',  'O',  'P'};
    size_t cmp = n < sizeof prefix ? n : sizeof prefix;
    int looks_ours = memcmp(p, prefix, cmp) == 0;
    if (n < SCOPE_LOG_HEADER_SIZE)
        return looks_ours ? FILE_HEADER_SHORT : FILE_HEADER_FOREIGN;
    const uint8_t *pl = p + 8;
    if (le32_get(p) != SCOPE_LOG_SKIPPABLE_MAGIC || le32_get(p + 4) != SCOPE_LOG_HEADER_PAYLOAD ||
        memcmp(pl, SCOPE_LOG_HEADER_MAGIC, 8) != 0 || le32_get(pl + 20) != header_check(pl, 20))
        return looks_ours ? FILE_HEADER_DAMAGED : FILE_HEADER_FOREIGN;
    *major = (uint16_t)(pl[8] | pl[9] << 8);
    *minor = (uint16_t)(pl[10] | pl[11] << 8);
    return FILE_HEADER_OK;
}

#endif
