/*
 * A thread's run delay: the time it spent runnable but waiting for a CPU
 * (the kernel's sched_info run_delay, the second field of
 * /proc/thread-self/schedstat).  Read beside thread CPU time on the entries
 * that read it (phase.c), so that a phase's off-CPU time splits into
 * queued (waiting for a CPU) and blocked (the rest: sleep, I/O, locks).
 *
 * A thread that is running has its run delay up to date: the kernel adds
 * each wait as the thread gets a CPU back, so two reads by the thread itself
 * bound exactly the delay between them.
 */
#ifndef SCOPE_REC_RUN_DELAY_H
#define SCOPE_REC_RUN_DELAY_H

#include "thread.h"

#include <stdint.h>

/* What a read returns when the delay cannot be read. */
#define REC_DELAY_NONE UINT64_MAX

/* The calling thread's (t's owner's) run delay in ns, or REC_DELAY_NONE.
 * Its descriptor is the recorder's own (own_fd.h), opened at the first
 * read, checked before each, and opened again when the program took it. */
uint64_t rec_run_delay_ns(rec_thread *t);

/* t's holder exited, or t is a parent's thread set aside in a forked
 * child: its descriptor names that thread, so it goes (the phases source's
 * thread_exit). */
void rec_run_delay_end(rec_thread *t);

/* One of the MAX_HELD schedstat descriptors (run_delay.c) for another part
 * of the recorder (the line sampler's wall clock keeps one per sampled
 * thread): 1 when granted, 0 when that many are held already, so that a
 * program of thousands of threads does not lose that many descriptors to
 * the recorder.  Each grant is given back with rec_run_delay_release. */
int rec_run_delay_hold(void);
void rec_run_delay_release(void);

/* The run delay a schedstat descriptor reads ("sum_exec_runtime run_delay
 * pcount"), or REC_DELAY_NONE.  Async-signal-safe (a pread, digits read by
 * hand): the line sampler's handler calls it. */
uint64_t rec_run_delay_read_fd(int fd);

/* What one read costs here (ns), measured at start with a descriptor of its
 * own; 0 when the delay cannot be read at all. */
uint64_t rec_run_delay_cost_ns(void);

#endif
