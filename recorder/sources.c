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

#include <assert.h>

/* Each row at its place in enum rec_source_row (thread.h). */
const rec_source *const rec_sources[] = {
    /* PROCESS: names nothing */
    [REC_SOURCE_PROCESS] = &rec_source_process,
    /* STRING: used by what follows */
    [REC_SOURCE_NAMES] = &rec_source_names,
    /* THREAD, PHASE_NODE, PHASE_AGG, COUNTER, per-thread MARKs */
    [REC_SOURCE_PHASES] = &rec_source_phases,
    /* MODULE, STACK, STACK_SAMPLES (name threads and nodes), LINES */
    [REC_SOURCE_LINES] = &rec_source_lines,
    /* RESOURCE: names phase nodes and threads */
    [REC_SOURCE_RESOURCES] = &rec_source_resources,
    /* TRACE_WINDOW, TRACE, TRACE_COUNTS: name strings, threads, nodes */
    [REC_SOURCE_TRACE] = &rec_source_trace,
    /* MARK_STATE, in snapshots: copies of the marks above */
    [REC_SOURCE_MARKS] = &rec_source_marks,
};
const unsigned rec_nsources = sizeof rec_sources / sizeof rec_sources[0];
static_assert(sizeof rec_sources / sizeof rec_sources[0] == REC_NSOURCES,
              "every row of enum rec_source_row has its source");

/* Each source's per-thread state (its first holder's: allocated once),
 * then what it sets up. */
int rec_sources_thread_attach(rec_thread *t) {
    for (unsigned i = 0; i < rec_nsources; i++) {
        const rec_source *s = rec_sources[i];
        if (s->thread_size && !t->source_state[i] &&
            !(t->source_state[i] = rec_calloc(1, s->thread_size)))
            return -1;
        if (s->thread_attach && s->thread_attach(t) < 0)
            return -1;
    }
    return 0;
}

static void thread_exit(rec_thread *t) {
    for (unsigned i = 0; i < rec_nsources; i++)
        if (rec_sources[i]->thread_exit)
            rec_sources[i]->thread_exit(t);
}

/* A slot another thread handed back, or a new one.  With the program's
 * signals held: attaching allocates (alloc.h), also inside
 * pthread_setspecific, and takes the free slots' lock. */
rec_thread *rec_sources_attach_self(void) {
    sigset_t sigs;
    rec_signals_hold(&sigs);
    rec_threads_on_exit(thread_exit);
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
