/*
 * Time.  A phase costs two clock reads, so the clock decides most of its
 * cost: clock_gettime() through the vDSO is about twice the price of reading
 * the TSC directly.  Where the CPU says its TSC is invariant (constant rate,
 * not stopped in idle states) and the kernel itself keeps time with it, we
 * read the TSC and convert ticks to ns with a multiplier calibrated once at
 * start against CLOCK_MONOTONIC_RAW; elsewhere ticks are CLOCK_MONOTONIC ns.
 */
#include "clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

rec_clock rec_clk = {.use_tsc = 0, .mult = 1ull << 32};

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rec_mono_ns(void) {
    return clock_ns(CLOCK_MONOTONIC);
}

uint64_t rec_wall_ns(void) {
    return clock_ns(CLOCK_REALTIME);
}

uint64_t rec_thread_cpu_ns(void) {
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* The TSC is usable when it is invariant (constant rate, running in every
 * idle state: CPUID 0x80000007 EDX bit 8), or when the kernel keeps time
 * with it, which it does only after checking the same and more. */
static int tsc_trusted(void) {
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8)))
        return 1;
    char buf[64] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (!f)
        return 0;
    int ok = fgets(buf, sizeof buf, f) && strncmp(buf, "tsc", 3) == 0;
    fclose(f);
    return ok;
}

/* One (tsc, raw ns) pair with the TSC read as close as possible to the
 * clock: the tightest of a few tries bounds the error to a few ns. */
static void pair(uint64_t *tsc, uint64_t *ns) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = __builtin_ia32_rdtsc();
        uint64_t t = clock_ns(CLOCK_MONOTONIC_RAW);
        uint64_t b = __builtin_ia32_rdtsc();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = t;
        }
    }
}
#endif

void rec_clock_calibrate(void) {
#if defined(__x86_64__) || defined(__i386__)
    if (tsc_trusted()) {
        uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;
        pair(&t0, &n0);
        /* 2 ms against a clock read to a few ns: a rate error near 1e-5. */
        do
            pair(&t1, &n1);
        while (n1 - n0 < 2000000u);
        if (t1 > t0) {
            rec_clk.mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (t1 - t0));
            rec_clk.use_tsc = 1;
            return;
        }
    }
#endif
    rec_clk.use_tsc = 0;
    rec_clk.mult = 1ull << 32;
}
