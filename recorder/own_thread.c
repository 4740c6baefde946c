/*
 * The recorder's own threads, started below the pthread_create that
 * lines.c interposes (own_thread.h).
 */
#define _GNU_SOURCE
#include "own_thread.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>

/* In a ThreadSanitizer build libscope defines no pthread_create (lines.c
 * says why) and the runtime's must set every thread up: the plain call is
 * the platform's there. */
rec_pthread_create_fn rec_pthread_create_real(void) {
#if defined(__SANITIZE_THREAD__)
    return pthread_create;
#else
    static _Atomic(rec_pthread_create_fn) real;
    rec_pthread_create_fn f = atomic_load_explicit(&real, memory_order_relaxed);
    if (!f) {
        f = (rec_pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
        atomic_store_explicit(&real, f, memory_order_relaxed);
    }
    return f;
#endif
}

int rec_own_thread_start(pthread_t *th, int detached, void *(*fn)(void *), void *arg) {
    rec_pthread_create_fn create = rec_pthread_create_real();
    if (!create)
        return EAGAIN;
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc != 0)
        return rc;
    if (detached)
        (void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = create(th, &attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return rc;
}
