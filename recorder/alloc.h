/*
 * Memory the recorder takes and gives back on the program's own threads,
 * with the program's signals held off meanwhile.
 *
 * A program may fork() from a signal handler (fork is async-signal-safe).
 * In a process with more than one thread, which the recorder's writer makes
 * every recorded process, glibc's fork takes the malloc arenas' locks (and
 * stdio's list lock) before it forks.  Had the handler interrupted malloc on
 * the same thread, fork would wait for a lock that thread holds: for ever.
 * So no signal may arrive while the recorder is inside the allocator, or
 * inside one of its own locks, on a thread of the program: these block them
 * for that moment.  Synchronous signals (a fault) are left alone, so that a
 * fault still reaches the program's handler.
 *
 * The hot path never allocates once a (parent, name) pair has been seen:
 * these cost two system calls, on slow paths only.
 */
#ifndef SCOPE_REC_ALLOC_H
#define SCOPE_REC_ALLOC_H

#include <signal.h>
#include <stddef.h>

/* Blocks every signal but the synchronous ones; *old receives the mask to
 * give back to rec_signals_release. */
void rec_signals_hold(sigset_t *old);
void rec_signals_release(const sigset_t *old);

/* calloc, realloc and free with the signals held (above). */
void *rec_calloc(size_t n, size_t size);
void *rec_realloc(void *p, size_t size);
void rec_free(void *p);

#endif
