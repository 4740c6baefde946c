/*
 * What an I/O phase (SCOPE_PHASE_IO) reads at its ends: the calling
 * thread's own I/O counters, so the traffic of the program's other threads
 * never lands on it.  Called from the cold paths of phase.c.
 */
#ifndef SCOPE_REC_PHASE_IO_H
#define SCOPE_REC_PHASE_IO_H

#include "io_counters.h"
#include "thread.h"

/* Reads the counters for the entry of stack[depth]. */
void rec_phase_io_enter(rec_thread *t, uint32_t depth);

/* Reads them for its exit: 0 with the entry's bytes in *d, or -1 when
 * either end could not be read (the entry then records no bytes). */
int rec_phase_io_exit(rec_thread *t, uint32_t depth, rec_io_counters *d);

#endif
