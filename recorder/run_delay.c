/*
 * A thread's run delay (run_delay.h).  Each thread that reads it keeps its
 * /proc/thread-self/schedstat open from its first read to its exit, as
 * thread_io.c keeps its I/O counters: held high and checked before each
 * read (own_fd.h), so the program's descriptors are never read or closed.
 * At most MAX_HELD threads hold one at a time, so that a program of
 * thousands of threads does not lose that many descriptors to us; the
 * others read "not measured".
 */
#include "run_delay.h"

#include "clock.h"
#include "own_fd.h"
#include "thread_io.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define PATH     "/proc/thread-self/schedstat"
#define MAX_HELD 256

static _Atomic int held;

/* "sum_exec_runtime run_delay pcount\n": the second number, or NONE. */
static uint64_t read_delay(int fd) {
    char buf[96];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return REC_DELAY_NONE;
    /* The kernel counts the read in the thread's rchar, inside an I/O
     * phase's window: the recorder's, not the program's (thread_io.h). */
    rec_thread_io_own_read((uint64_t)n);
    buf[n] = '\0';
    char *end;
    (void)strtoull(buf, &end, 10);
    if (end == buf || *end != ' ')
        return REC_DELAY_NONE;
    const char *second = end + 1;
    unsigned long long v = strtoull(second, &end, 10);
    return end == second ? REC_DELAY_NONE : (uint64_t)v;
}

uint64_t rec_run_delay_ns(rec_thread *t) {
    if (t->delay_off)
        return REC_DELAY_NONE;
    if (!t->delay_held) { /* the holder's first read: one of MAX_HELD */
        if (atomic_fetch_add_explicit(&held, 1, memory_order_relaxed) >= MAX_HELD) {
            atomic_fetch_sub_explicit(&held, 1, memory_order_relaxed);
            t->delay_off = 1; /* for this holder's life */
            return REC_DELAY_NONE;
        }
        t->delay_held = 1;
        t->delay_fd = REC_FD_NONE;
    }
    if (!rec_fd_check(&t->delay_fd) && rec_fd_open(&t->delay_fd, PATH) < 0) {
        t->delay_off = 1; /* no schedstat here, or no descriptor to spare */
        return REC_DELAY_NONE;
    }
    return read_delay(t->delay_fd.fd);
}

void rec_run_delay_end(rec_thread *t) {
    if (t->delay_held) {
        rec_fd_close(&t->delay_fd);
        atomic_fetch_sub_explicit(&held, 1, memory_order_relaxed);
    }
    t->delay_held = 0;
    t->delay_off = 0;
    t->delay_seen_ns = REC_DELAY_NONE;
}

uint64_t rec_run_delay_cost_ns(void) {
    rec_fd fd;
    if (rec_fd_open(&fd, PATH) < 0)
        return 0;
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t a = rec_mono_ns();
        uint64_t v = rec_fd_check(&fd) ? read_delay(fd.fd) : REC_DELAY_NONE;
        uint64_t d = rec_mono_ns() - a;
        if (v == REC_DELAY_NONE) {
            best = 0;
            break;
        }
        best = d < best ? d : best;
    }
    rec_fd_close(&fd);
    return best;
}
