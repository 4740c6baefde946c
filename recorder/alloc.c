/*
 * The allocator with the program's signals held off (alloc.h).
 */
#include "alloc.h"

#include <pthread.h>
#include <stdlib.h>

void rec_signals_hold(sigset_t *old) {
    sigset_t all;
    sigfillset(&all);
    /* A fault inside the recorder must still reach the program's handler
     * (a blocked synchronous signal kills the process instead). */
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGTRAP);
    sigdelset(&all, SIGSYS);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

void rec_signals_release(const sigset_t *old) {
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void *rec_calloc(size_t n, size_t size) {
    sigset_t old;
    rec_signals_hold(&old);
    void *p = calloc(n, size);
    rec_signals_release(&old);
    return p;
}

void *rec_realloc(void *p, size_t size) {
    sigset_t old;
    rec_signals_hold(&old);
    void *q = realloc(p, size);
    rec_signals_release(&old);
    return q;
}

void rec_free(void *p) {
    if (!p)
        return;
    sigset_t old;
    rec_signals_hold(&old);
    free(p);
    rec_signals_release(&old);
}
