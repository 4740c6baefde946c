/*
 * The counters of I/O phases (phase_io.h).  Each thread keeps its own
 * /proc/thread-self/io open, from its first I/O phase to its exit, and
 * re-reads it at every entry and exit: a pread of a few hundred bytes.
 *
 * Reading the file is itself a read: the kernel adds the bytes it returned
 * to the thread's rchar once the read ends, after it wrote the figures.  So
 * every value is kept less the bytes all earlier reads of the file
 * returned, and a phase's char_read is its own exactly, however many I/O
 * phases nest inside it.
 */
#include "phase_io.h"

#include "io_counters.h"

#include <errno.h>
#include <stdlib.h>

/* The thread's counters now, its own reads of them left out; -1 when they
 * cannot be read (no memory for the stack, no descriptor to spare, a
 * descriptor the program closed). */
static int read_own(rec_thread *t, rec_io_counters *c) {
    rec_io_stack *io = t->io;
    if (!io) {
        if (!(io = calloc(1, sizeof *io)))
            return -1;
        io->fd = -1;
        t->io = io;
    }
    if (io->fd < 0 && (io->fd = rec_io_open("/proc/thread-self/io")) < 0)
        return -1;
    long n = rec_io_read(io->fd, c);
    if (n < 0) {
        /* Closed under us (close_range, say): a new one next time.  The
         * number may be the program's by now, so it is not closed. */
        if (errno == EBADF)
            io->fd = -1;
        return -1;
    }
    c->rchar -= io->own;
    io->own += (uint64_t)n;
    return 0;
}

void rec_phase_io_enter(rec_thread *t, uint32_t depth) {
    rec_io_counters c = {0};
    int ok = read_own(t, &c) == 0;
    if (t->io) {
        t->io->ok[depth] = (uint8_t)ok;
        t->io->at[depth] = c;
    }
}

int rec_phase_io_exit(rec_thread *t, uint32_t depth, rec_io_counters *d) {
    if (!t->io || !t->io->ok[depth])
        return -1;
    t->io->ok[depth] = 0;
    rec_io_counters c;
    if (read_own(t, &c) < 0)
        return -1;
    const rec_io_counters *a = &t->io->at[depth];
    /* The kernel's counters only grow. */
    if (c.rchar < a->rchar || c.wchar < a->wchar || c.read_bytes < a->read_bytes ||
        c.write_bytes < a->write_bytes)
        return -1;
    *d = (rec_io_counters){c.rchar - a->rchar, c.wchar - a->wchar, c.read_bytes - a->read_bytes,
                           c.write_bytes - a->write_bytes};
    return 0;
}
