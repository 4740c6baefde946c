/*
 * A thread's own I/O counters (thread_io.h).  Each thread keeps its
 * /proc/thread-self/io open from its first read to its exit
 * (rec_thread_io_end closes it) and re-reads it: a pread of a few hundred bytes.  The
 * descriptor is the recorder's own (own_fd.h): held high, and checked
 * before each read, so a program that closed it or put a file of its own
 * in its place has its file neither read nor closed; the thread opens a
 * new one and goes on, as any descriptor of the file reads the same
 * counters.
 *
 * Reading the file is itself a read: the kernel adds the bytes it returned
 * to the thread's rchar once the read ends, after it wrote the figures.  So
 * every value is given less the bytes all earlier reads returned, which
 * makes the difference of two values exactly the program's own bytes.
 */
#include "thread_io.h"

#include "alloc.h"
#include "io_counters.h"
#include "own_fd.h"
#include "thread.h"

#include <errno.h>
#include <unistd.h>
#include <stdlib.h>

static _Atomic uint64_t own_total, own_written;

/* What a read of the thread's counters returned goes to its own. */
static void count_own(rec_thread *t, rec_io_counters *c, long n) {
    rec_thread_io *s = rec_thread_io_of(t);
    uint64_t own = atomic_load_explicit(&s->own, memory_order_relaxed);
    c->rchar -= own;
    atomic_store_explicit(&s->own, own + (uint64_t)n, memory_order_relaxed);
    atomic_fetch_add_explicit(&own_total, (uint64_t)n, memory_order_relaxed);
}

int rec_thread_io_read(rec_thread *t, rec_io_counters *c) {
    rec_thread_io *s = rec_thread_io_of(t);
    rec_io_stack *io = s->io;
    if (!io) {
        if (!(io = rec_calloc(1, sizeof *io)))
            return -1;
        io->fd = REC_FD_NONE;
        s->io = io;
    }
    if (!rec_fd_check(&io->fd) && rec_fd_open(&io->fd, "/proc/thread-self/io") < 0)
        return -1;
    long n = rec_io_read(io->fd.fd, c);
    if (n < 0)
        return -1;
    count_own(t, c, n);
    return 0;
}

int rec_thread_io_read_once(rec_thread *t, rec_io_counters *c) {
    long n = rec_io_read_path("/proc/thread-self/io", c);
    if (n < 0)
        return -1;
    count_own(t, c, n);
    return 0;
}

uint64_t rec_thread_io_own_total(void) {
    return atomic_load_explicit(&own_total, memory_order_relaxed);
}

void rec_thread_io_own_write(uint64_t n) {
    atomic_fetch_add_explicit(&own_written, n, memory_order_relaxed);
    rec_thread *t = rec_self;
    if (rec_attached(t))
        atomic_fetch_add_explicit(&rec_thread_io_of(t)->own_written, n, memory_order_relaxed);
}

void rec_thread_io_own_read(uint64_t n) {
    rec_thread *t = rec_self;
    if (rec_attached(t)) {
        rec_thread_io *s = rec_thread_io_of(t);
        atomic_store_explicit(&s->own, atomic_load_explicit(&s->own, memory_order_relaxed) + n,
                              memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&own_total, n, memory_order_relaxed);
}

uint64_t rec_thread_io_own_written(void) {
    return atomic_load_explicit(&own_written, memory_order_relaxed);
}

void rec_thread_io_begin(rec_thread *t) {
    rec_thread_io *s = rec_thread_io_of(t);
    atomic_store_explicit(&s->own, 0, memory_order_relaxed);
    atomic_store_explicit(&s->own_written, 0, memory_order_relaxed);
    rec_attach_io_set(t, &(rec_io_counters){0}, 0);
}

void rec_thread_io_end(rec_thread *t) {
    rec_thread_io *s = rec_thread_io_of(t);
    if (!s || !s->io)
        return;
    rec_fd_close(&s->io->fd);
    rec_free(s->io);
    s->io = NULL;
}

void rec_thread_io_fork_child(void) {
    atomic_store(&own_total, 0);
    atomic_store(&own_written, 0);
}
