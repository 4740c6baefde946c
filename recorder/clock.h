/*
 * Time: a monotonic tick counter (the TSC where it is invariant, else
 * CLOCK_MONOTONIC in ns) and its conversion to ns, fixed at calibration.
 */
#ifndef SCOPE_REC_CLOCK_H
#define SCOPE_REC_CLOCK_H

#include "recorder.h"

/* Written by rec_clock_calibrate while the recorder starts, before any
 * thread attaches (attaching copies it); read-only while recording. */
typedef struct rec_clock {
    int use_tsc;
    uint64_t mult; /* ns = ticks * mult >> 32 */
} rec_clock;

extern rec_clock rec_clk;
void rec_clock_calibrate(void);
uint64_t rec_mono_ns(void);
uint64_t rec_wall_ns(void);
uint64_t rec_thread_cpu_ns(void);

/* The clock, read with the settings the calling thread keeps a copy of. */
static inline uint64_t rec_ticks_with(int tsc) {
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(tsc, 1))
        return __builtin_ia32_rdtsc();
#else
    (void)tsc;
#endif
    return rec_mono_ns();
}

static inline uint64_t rec_ticks_to_ns_with(uint64_t d, uint64_t mult) {
    return (uint64_t)(((unsigned __int128)d * mult) >> 32);
}

#endif
