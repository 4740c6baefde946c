/*
 * Starting a thread of libscope's own (the writer, the line sampler's
 * drainer) through the platform's pthread_create.
 *
 * lines.c interposes pthread_create to follow every thread the program
 * starts.  The recorder's own threads must not pass there: the sampler
 * would follow them, and the writer would depend on the line sampler,
 * which depends on the lifecycle, which starts the writer.  So they are
 * started here, below all three, through the definition that comes after
 * libscope's own; lines.c's interposer calls that same one.
 */
#ifndef SCOPE_REC_OWN_THREAD_H
#define SCOPE_REC_OWN_THREAD_H

#include <pthread.h>

typedef int (*rec_pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                                     void *);

/* The pthread_create libscope's own stands in front of; NULL when none is
 * found. */
rec_pthread_create_fn rec_pthread_create_real(void);

/* fn(arg) on a new thread, detached or joinable, born with every signal
 * blocked: a signal pending for the process could otherwise land on it
 * before its first instruction.  Faults it causes itself (SIGSEGV, SIGBUS)
 * still kill the process as they would unblocked.  0, or an error number. */
int rec_own_thread_start(pthread_t *th, int detached, void *(*fn)(void *), void *arg);

#endif
