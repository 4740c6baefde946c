/*
 * The table of data sources (source.h).  The writer thread walks it for
 * every frame (writer.c); attaching a thread, a fork and a new file walk it
 * here.
 */
#include "sources.h"

#include "alloc.h"
#include "source_lines.h"
#include "source_marks.h"
#include "source_names.h"
#include "source_phases.h"
#include "source_process.h"
#include "source_resources.h"
#include "source_trace.h"
#include "thread.h"

const rec_source *const rec_sources[] = {
    &rec_source_process,   /* PROCESS: names nothing */
    &rec_source_names,     /* STRING: used by what follows */
    &rec_source_phases,    /* THREAD, PHASE_NODE, PHASE_AGG, COUNTER, per-thread MARKs */
    &rec_source_lines,     /* MODULE, STACK, STACK_SAMPLES (name threads and nodes), LINES */
    &rec_source_resources, /* RESOURCE: names phase nodes and threads */
    &rec_source_trace,     /* TRACE_WINDOW, TRACE, TRACE_COUNTS: name strings, threads, nodes */
    &rec_source_marks,     /* MARK_STATE, in snapshots: copies of the marks above */
};
const unsigned rec_nsources = sizeof rec_sources / sizeof rec_sources[0];

int rec_sources_thread_attach(rec_thread *t) {
    for (unsigned i = 0; i < rec_nsources; i++)
        if (rec_sources[i]->thread_attach && rec_sources[i]->thread_attach(t) < 0)
            return -1;
    return 0;
}

/* A slot another thread handed back, or a new one.  With the program's
 * signals held: attaching allocates (alloc.h), also inside
 * pthread_setspecific, and takes the free slots' lock. */
rec_thread *rec_sources_attach_self(void) {
    sigset_t sigs;
    rec_signals_hold(&sigs);
    rec_thread *t = rec_thread_take_free();
    if (t) {
        /* Set up already: what the sources do again is the new holder's. */
        (void)rec_sources_thread_attach(t);
    } else if ((t = rec_thread_new()) && rec_sources_thread_attach(t) < 0) {
        rec_thread_discard(t);
        t = NULL;
    }
    if (t)
        rec_thread_publish(t);
    rec_signals_release(&sigs);
    return t;
}

void rec_sources_fork_child(void) {
    for (unsigned i = 0; i < rec_nsources; i++)
        if (rec_sources[i]->fork_child)
            rec_sources[i]->fork_child();
}

void rec_sources_reset_sent(void) {
    for (unsigned i = 0; i < rec_nsources; i++)
        if (rec_sources[i]->reset_sent)
            rec_sources[i]->reset_sent();
}
