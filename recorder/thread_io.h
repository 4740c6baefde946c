/*
 * A thread's own I/O counters, read by the thread itself from its
 * /proc/thread-self/io: for I/O phases, and for the sampler's first
 * baseline of a thread when it attaches.
 */
#ifndef SCOPE_REC_THREAD_IO_H
#define SCOPE_REC_THREAD_IO_H

#include "io_counters.h"
#include "thread.h"

/* The calling thread's (t's owner's) counters now, less what all its reads
 * of them returned (t->io_own): the recorder's reads are not the
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
