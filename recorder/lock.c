/*
 * Mutexes that know their holder, for the fork handlers (lock.h).
 */
#define _GNU_SOURCE /* gettid */
#include "lock.h"

#include "clock.h"

#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The raw system call: async-signal-safe, and right in a forked child,
 * where a cached id would be the parent's thread's. */
static pid_t self_tid(void) {
    return (pid_t)syscall(SYS_gettid);
}

void rec_lock_take(rec_lock *l) {
    pthread_mutex_lock(&l->mu);
    atomic_store_explicit(&l->holder, self_tid(), memory_order_relaxed);
}

void rec_lock_give(rec_lock *l) {
    atomic_store_explicit(&l->holder, 0, memory_order_relaxed);
    pthread_mutex_unlock(&l->mu);
}

int rec_lock_for_fork(rec_lock *l, uint64_t deadline_ns) {
    /* Held by this very thread (a handler that forks interrupted it inside
     * the lock): waiting could never end. */
    if (atomic_load_explicit(&l->holder, memory_order_relaxed) == self_tid())
        return 0;
    for (;;) {
        if (pthread_mutex_trylock(&l->mu) == 0) {
            atomic_store_explicit(&l->holder, self_tid(), memory_order_relaxed);
            return 1;
        }
        if (rec_mono_ns() >= deadline_ns)
            return 0;
        struct timespec ts = {0, 100000}; /* 0.1 ms: holders keep it briefly */
        nanosleep(&ts, NULL);
    }
}

void rec_lock_reset(rec_lock *l) {
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    memcpy(&l->mu, &fresh, sizeof fresh);
    atomic_store_explicit(&l->holder, 0, memory_order_relaxed);
}
