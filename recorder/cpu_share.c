/*
 * One CPU-clock read's share of an entry's CPU window, measured as the
 * thread goes (cpu_share.h).
 */
#include "cpu_share.h"

#include "clock.h"
#include "config.h"

static void add_sample(uint64_t *sum, uint32_t *n, uint64_t share) {
    if (*n >= REC_CPU_SHARE_WINDOW) { /* older samples count for half */
        *sum /= 2;
        *n /= 2;
    }
    *sum += share;
    (*n)++;
}

uint64_t rec_cpu_share_at_start(void) {
    uint64_t sum = 0;
    uint32_t n = 0;
    for (int i = 0; i < 16; i++) {
        uint64_t a = rec_thread_cpu_ns(), b = rec_thread_cpu_ns();
        if (a && b >= a)
            add_sample(&sum, &n, b - a);
    }
    return n ? sum / n : 0;
}

uint64_t rec_cpu_share_ns(const rec_thread *t) {
    return t->cpu_share_n ? t->cpu_share_sum / t->cpu_share_n : rec_hot.cpu_share_ns;
}

uint64_t rec_cpu_share_sample(rec_thread *t, uint64_t cpu) {
    if (t->cpu_share_due) {
        t->cpu_share_due--;
        return cpu;
    }
    t->cpu_share_due = REC_CPU_SHARE_EVERY - 1;
    uint64_t again = rec_thread_cpu_ns();
    if (!cpu || again < cpu)
        return cpu;
    add_sample(&t->cpu_share_sum, &t->cpu_share_n, again - cpu);
    return again;
}
