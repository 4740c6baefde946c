/*
 * The counters of I/O phases (phase_io.h): the thread's own, read at each
 * entry and exit (thread_io.h), less the recorder's reads of them, so a
 * phase's bytes are exactly its own however many I/O phases nest inside
 * it.
 */
#include "phase_io.h"

#include "thread.h"
#include "thread_io.h"

void rec_phase_io_enter(rec_thread *t, uint32_t depth) {
    rec_io_counters c = {0};
    int ok = rec_thread_io_read(t, &c) == 0;
    rec_io_stack *io = rec_thread_io_of(t)->io;
    if (io) {
        io->ok[depth] = (uint8_t)ok;
        io->at[depth] = c;
    }
    /* For the sampler, which shares an interval's bytes out by phase: an
     * entry still open at its sample has moved these bytes so far. */
    rec_node *n = t->stack[depth].node;
    rec_relaxed_store(&n->io_open_at[0], c.rchar);
    rec_relaxed_store(&n->io_open_at[1], c.wchar);
    rec_relaxed_store(&n->io_open_at[2], c.read_bytes);
    rec_relaxed_store(&n->io_open_at[3], c.write_bytes);
    rec_relaxed_store(&n->io_open_ok, (uint8_t)(ok && io));
}

int rec_phase_io_exit(rec_thread *t, uint32_t depth, rec_io_counters *d) {
    rec_relaxed_store(&t->stack[depth].node->io_open_ok, 0);
    rec_io_stack *io = rec_thread_io_of(t)->io;
    if (!io || !io->ok[depth])
        return -1;
    io->ok[depth] = 0;
    rec_io_counters c;
    if (rec_thread_io_read(t, &c) < 0)
        return -1;
    const rec_io_counters *a = &io->at[depth];
    /* The kernel's counters only grow. */
    if (c.rchar < a->rchar || c.wchar < a->wchar || c.read_bytes < a->read_bytes ||
        c.write_bytes < a->write_bytes)
        return -1;
    *d = (rec_io_counters){c.rchar - a->rchar, c.wchar - a->wchar, c.read_bytes - a->read_bytes,
                           c.write_bytes - a->write_bytes};
    return 0;
}
