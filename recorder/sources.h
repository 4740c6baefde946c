/*
 * The table of data sources, and what the writer thread and the lifecycle
 * do to every source at once.
 */
#ifndef SCOPE_REC_SOURCES_H
#define SCOPE_REC_SOURCES_H

#include "source.h"

/* The rows, in the order their records go into a frame: a record's
 * definitions come before it. */
extern const rec_source *const rec_sources[];
extern const unsigned rec_nsources;

/* A thread's first call; -1 when a source cannot record it. */
int rec_sources_thread_attach(rec_thread *t);
/* A new structure for the calling thread, set up by every source and
 * published as rec_self; NULL when a source cannot record it. */
rec_thread *rec_sources_attach_self(void);
void rec_sources_fork_child(void);
void rec_sources_reset_sent(void);

#endif
