/*
 * What one read of the thread's CPU clock adds to the CPU time an entry
 * reads.  An entry reads CPU time before its clock and its exit after, so
 * its CPU window holds its wall window plus the tail of the first read and
 * the head of the second: about one read, which the exit takes off.
 *
 * That read is a system call (CLOCK_THREAD_CPUTIME_ID has no vDSO path), and
 * what it costs moves with the machine's load: on a 2-core VM its share was
 * 690 ns quiet and 880 ns beside cache-hungry neighbours, where a phase of
 * 1 us entries is 3 to 4 us of CPU an entry.  A cost fixed at start was off
 * by 400 ns an entry either way under load (15 % of such a phase's CPU
 * time), so each thread keeps measuring it, in the same terms as what it
 * corrects: two reads back to back, the second less the first, is exactly
 * the end of one read and the start of the next (what an entry's window
 * holds beyond its own time), read on the thread's CPU clock, so a thread
 * preempted between them adds nothing.  One exit in REC_CPU_SHARE_EVERY
 * reads twice: an eighth of a read more per read entry, and the estimate
 * follows load within a few hundred read entries (REC_CPU_SHARE_WINDOW).
 */
#ifndef SCOPE_REC_CPU_SHARE_H
#define SCOPE_REC_CPU_SHARE_H

#include "thread.h"

#define REC_CPU_SHARE_EVERY  8
#define REC_CPU_SHARE_WINDOW 64 /* samples past which older ones count for half */

/* The process's first estimate, from a few double reads at start. */
uint64_t rec_cpu_share_at_start(void);

/* The thread's estimate of one read's share now: its own samples, else the
 * process's estimate at start (rec_hot.cpu_share_ns). */
uint64_t rec_cpu_share_ns(const rec_thread *t);

/* After an exit's read cpu: one exit in REC_CPU_SHARE_EVERY reads again and
 * keeps the difference.  Returns the thread's newest reading. */
uint64_t rec_cpu_share_sample(rec_thread *t, uint64_t cpu);

#endif
