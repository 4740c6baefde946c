/*
 * The fixed log-linear duration histogram shared by the recorder (which
 * counts into it) and every reader (which takes quantiles from it).
 *
 * Every power of two from 16 ns up is split into 16 equal sub-buckets (so
 * each value below 32 ns has a bucket of its own), so a bucket is at most 1/16 = 6.25% wide and the
 * midpoint of a bucket is within 3.2% of any value in it: "good to a few
 * percent" for p50/p95/p99 at any scale, from nanoseconds to days, with one
 * array of fixed size per phase node.  Changing these numbers is a new major
 * format version.
 */
#ifndef SCOPE_LOG_HIST_H
#define SCOPE_LOG_HIST_H

#include <stdint.h>

#define SCOPE_HIST_SUB_BITS 4
#define SCOPE_HIST_SUB      (1u << SCOPE_HIST_SUB_BITS) /* 16 */
/* 16 + 60 * 16 = 976 buckets cover every uint64_t. */
#define SCOPE_HIST_BUCKETS (SCOPE_HIST_SUB + (64u - SCOPE_HIST_SUB_BITS) * SCOPE_HIST_SUB)

/* Bucket of a duration in ns: a handful of instructions, no branch on the
 * common path besides the small-value test. */
static inline uint32_t scope_hist_bucket(uint64_t ns) {
    if (ns < SCOPE_HIST_SUB)
        return (uint32_t)ns;
    /* e = index of the top bit (a single bsr); then
     * 16 + (e - 4) * 16 + sub  ==  16 * e - 48 + sub */
    uint32_t e = 63u ^ (uint32_t)__builtin_clzll(ns);
    uint32_t sub = (uint32_t)(ns >> (e - SCOPE_HIST_SUB_BITS)) & (SCOPE_HIST_SUB - 1u);
    return (e << SCOPE_HIST_SUB_BITS) - 3u * SCOPE_HIST_SUB + sub;
}

/* Smallest value that falls in bucket b (b < SCOPE_HIST_BUCKETS). */
static inline uint64_t scope_hist_lower(uint32_t b) {
    if (b < SCOPE_HIST_SUB)
        return b;
    uint32_t e = (b - SCOPE_HIST_SUB) / SCOPE_HIST_SUB + SCOPE_HIST_SUB_BITS;
    uint64_t sub = (b - SCOPE_HIST_SUB) % SCOPE_HIST_SUB;
    return (SCOPE_HIST_SUB + sub) << (e - SCOPE_HIST_SUB_BITS);
}

/* Largest value that falls in bucket b. */
static inline uint64_t scope_hist_upper(uint32_t b) {
    if (b < SCOPE_HIST_SUB)
        return b;
    uint32_t e = (b - SCOPE_HIST_SUB) / SCOPE_HIST_SUB + SCOPE_HIST_SUB_BITS;
    return scope_hist_lower(b) + ((uint64_t)1 << (e - SCOPE_HIST_SUB_BITS)) - 1u;
}

#endif
