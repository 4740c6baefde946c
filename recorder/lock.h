/*
 * The recorder's few mutexes (starting and stopping, interning a name, the
 * writer's work), made safe to take around fork().
 *
 * A fork handler must not wait on a lock the forking thread may already
 * hold: fork() is async-signal-safe, so a program may fork from a signal
 * handler that interrupted the recorder on the same thread, or another
 * thread may hold the lock and never get to release it before the fork.
 * Each lock therefore records the thread that holds it, and the fork
 * handler takes it only with a bounded wait (rec_lock_for_fork).  A lock it
 * could not take guarded data that may be half changed: the child then
 * resets the lock and does not record (lifecycle.c).
 */
#ifndef SCOPE_REC_LOCK_H
#define SCOPE_REC_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct rec_lock {
    pthread_mutex_t mu;
    _Atomic pid_t holder; /* the holding thread's tid, 0 when free */
} rec_lock;

#define REC_LOCK_INIT                                                                              \
    { PTHREAD_MUTEX_INITIALIZER, 0 }

void rec_lock_take(rec_lock *l);
void rec_lock_give(rec_lock *l);

/* For a fork handler: takes the lock unless the calling thread already
 * holds it, waiting until deadline_ns (rec_mono_ns) at most.  Returns 1 when
 * taken, 0 when not.  Only a trylock, a clock read, gettid and nanosleep:
 * nothing that can block for good, also inside a signal handler. */
int rec_lock_for_fork(rec_lock *l, uint64_t deadline_ns);

/* In a forked child, for a lock the fork handler could not take: its holder
 * does not exist here, so the lock starts over free. */
void rec_lock_reset(rec_lock *l);

#endif
