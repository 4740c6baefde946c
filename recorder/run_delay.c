/*
 * A thread's run delay (run_delay.h).  Each thread that reads it keeps its
 * /proc/thread-self/schedstat open from its first read to its exit, as
 * thread_io.c keeps its I/O counters: held high and checked before each
 * read (own_fd.h), so the program's descriptors are never read or closed.
 * At most MAX_HELD descriptors are held at a time, these and the line
 * sampler's (rec_run_delay_hold), so that a program of thousands of
 * threads does not lose that many descriptors to us; the others read "not
 * measured".
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
uint64_t rec_run_delay_read_fd(int fd) {
    char buf[96];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return REC_DELAY_NONE;
    /* The kernel counts the read in the thread's rchar, inside an I/O
     * phase's window: the recorder's, not the program's (thread_io.h). */
    rec_thread_io_own_read((uint64_t)n);
    buf[n] = '\0';
    /* By hand, not strtoull: POSIX does not list it as async-signal-safe. */
    const char *p = buf;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == buf || *p++ != ' ' || *p < '0' || *p > '9')
        return REC_DELAY_NONE;
    uint64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        v = v * 10 + (uint64_t)(*p - '0');
    return v;
}

int rec_run_delay_hold(void) {
    if (atomic_fetch_add_explicit(&held, 1, memory_order_relaxed) < MAX_HELD)
        return 1;
    atomic_fetch_sub_explicit(&held, 1, memory_order_relaxed);
    return 0;
}

void rec_run_delay_release(void) {
    atomic_fetch_sub_explicit(&held, 1, memory_order_relaxed);
}

uint64_t rec_run_delay_ns(rec_thread *t) {
    if (t->delay_off)
        return REC_DELAY_NONE;
    if (!t->delay_held) { /* the holder's first read: one of MAX_HELD */
        if (!rec_run_delay_hold()) {
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
    return rec_run_delay_read_fd(t->delay_fd.fd);
}

void rec_run_delay_end(rec_thread *t) {
    if (t->delay_held) {
        rec_fd_close(&t->delay_fd);
        rec_run_delay_release();
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
        uint64_t v = rec_fd_check(&fd) ? rec_run_delay_read_fd(fd.fd) : REC_DELAY_NONE;
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
