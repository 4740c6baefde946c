/*
 * A thread's own I/O counters, read by the thread itself from its
 * /proc/thread-self/io: for I/O phases, and for the sampler's first
 * baseline of a thread when it attaches.
 */
#ifndef SCOPE_REC_THREAD_IO_H
#define SCOPE_REC_THREAD_IO_H

#include "io_counters.h"
#include "own_fd.h"
#include "thread.h"

/* The I/O counters of a thread's open I/O phases.  The owner's alone:
 * allocated on its first I/O phase, freed when it exits. */
typedef struct rec_io_stack {
    rec_fd fd; /* its /proc/thread-self/io (own_fd.h); none: opened at the next read */
    rec_io_counters at[REC_MAX_DEPTH]; /* at the entry of stack[k], own reads left out */
    uint8_t ok[REC_MAX_DEPTH];         /* at[k] was read */
} rec_io_stack;

/* The resources source's per-thread state (its row's thread_size, in the
 * thread's slot: rec_thread_io_of).  A new holder starts it over
 * (rec_thread_io_begin); its holder's exit gives it back
 * (rec_thread_io_end). */
typedef struct rec_thread_io {
    rec_io_stack *io; /* owner: NULL until it first reads its I/O counters */
    /* owner (relaxed stores), read by the sampler: bytes its reads of its
     * own counters returned, which the kernel counts in its rchar */
    _Atomic uint64_t own;
    /* bytes the recorder wrote on this thread (its log's header), which
     * the kernel counts in its wchar: added by the thread itself, read by
     * the sampler */
    _Atomic uint64_t own_written;
    /* the holder, as it attaches (rec_attach_io_set, rec_attach_io_get):
     * its I/O counters then, less own, the sampler's first baseline of it
     * (attach_ok: they were read) */
    rec_io_counters attach;
    uint8_t attach_ok;
} rec_thread_io;

/* t's, set up before t is published: the sampler reads other threads'. */
static inline rec_thread_io *rec_thread_io_of(const rec_thread *t) {
    return t->source_state[REC_SOURCE_RESOURCES];
}

/* A holder's counters when it attached, for the sampler: stored and loaded
 * field by field with relaxed atomics, since a new holder of a slot writes
 * them while the sampler may still read the last one's (holder_gen tells it
 * to throw that read away). */
static inline void rec_attach_io_set(rec_thread *t, const rec_io_counters *c, int ok) {
    rec_thread_io *s = rec_thread_io_of(t);
    rec_relaxed_store(&s->attach.rchar, c->rchar);
    rec_relaxed_store(&s->attach.wchar, c->wchar);
    rec_relaxed_store(&s->attach.read_bytes, c->read_bytes);
    rec_relaxed_store(&s->attach.write_bytes, c->write_bytes);
    rec_relaxed_store(&s->attach_ok, (uint8_t)(ok != 0));
}

static inline int rec_attach_io_get(const rec_thread *t, rec_io_counters *c) {
    const rec_thread_io *s = rec_thread_io_of(t);
    c->rchar = rec_relaxed_load(&s->attach.rchar);
    c->wchar = rec_relaxed_load(&s->attach.wchar);
    c->read_bytes = rec_relaxed_load(&s->attach.read_bytes);
    c->write_bytes = rec_relaxed_load(&s->attach.write_bytes);
    return rec_relaxed_load(&s->attach_ok);
}

/* A new holder of t (holder_gen odd): nothing of its own read or written
 * yet, no baseline. */
void rec_thread_io_begin(rec_thread *t);

/* t's holder exited, or t is a parent's thread set aside in a forked child:
 * its descriptor names that thread, so it goes (closed only while it is
 * still the recorder's), and so does its I/O stack. */
void rec_thread_io_end(rec_thread *t);

/* The calling thread's (t's owner's) counters now, less what all its reads
 * of them returned (own): the recorder's reads are not the
 * program's I/O.  Returns 0, or -1 when they cannot be read (no memory, no
 * descriptor to spare).  A descriptor the program took is replaced. */
int rec_thread_io_read(rec_thread *t, rec_io_counters *c);

/* The same with a descriptor of its own, closed again: for a thread that
 * may never read them again. */
int rec_thread_io_read_once(rec_thread *t, rec_io_counters *c);

/* What every thread's reads of its own counters returned, in all: in the
 * process's rchar, and none of it the program's. */
uint64_t rec_thread_io_own_total(void);

/* The recorder wrote n bytes on the calling thread (its log's header, from
 * the thread that opened it): not the program's. */
void rec_thread_io_own_write(uint64_t n);

/* The recorder read n bytes on the calling thread, not through
 * rec_thread_io_read: not the program's. */
void rec_thread_io_own_read(uint64_t n);

/* What rec_thread_io_own_write counted, on every thread. */
uint64_t rec_thread_io_own_written(void);

/* In a forked child: its counters start at 0, and so do these totals. */
void rec_thread_io_fork_child(void);

#endif
