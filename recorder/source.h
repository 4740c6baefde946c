/*
 * A data source: one kind of thing the recorder collects (names, phases
 * and counters, the process record), and everything the writer thread and
 * the lifecycle do with it.  The sources are the rows of one table
 * (sources.c); adding a source is a row there, a row of enum
 * rec_source_row (thread.h) and a file of its own (docs/architecture.md,
 * "The data-source table").
 */
#ifndef SCOPE_REC_SOURCE_H
#define SCOPE_REC_SOURCE_H

#include "frame.h"
#include "thread.h"

typedef struct rec_source {
    const char *name;
    /* Bytes of per-thread state the source keeps: each thread's
     * t->source_state[its row] (thread.h), allocated zeroed before the
     * thread's first thread_attach, kept with the thread's slot.  0: none. */
    size_t thread_size;
    /* A thread's first call, and a new holder's of a slot handed back (its
     * state is the last holder's): set up what it records into.  Any NULL
     * member means the source has nothing to do there. */
    int (*thread_attach)(rec_thread *t);
    /* t's holder exits (its thread-exit destructor, the program's signals
     * held), or t is a thread of the parent set aside in a forked child:
     * give back what names that thread (a descriptor of its own). */
    void (*thread_exit)(rec_thread *t);
    /* In a forked child, from the fork handler: the only thread left is the
     * caller; forget what belonged to the others. */
    void (*fork_child)(void);
    /* A new log file, or a frame dropped after failed writes: everything
     * must be written again. */
    void (*reset_sent)(void);
    /* Fixes which records frame f will hold, before any source encodes:
     * called for every source in reverse table order, so what uses a
     * definition is counted before the definitions are (a source's
     * definitions come before their users in the table).  Writer thread
     * only, like every member below. */
    void (*select)(const rec_frame_ctx *f);
    /* Snapshots what changed since the last frame (what select fixed) and
     * adds it to f. */
    void (*encode)(const rec_frame_ctx *f);
    /* The frame f was written: its records are on disk. */
    void (*frame_written)(const rec_frame_ctx *f);
    /* The writer thread is about to start (a first start, or a forked
     * child's): called by the thread starting it, before it exists. */
    void (*writer_start)(void);
    /* A source that samples on a schedule of its own: called at the writer
     * thread's wake-ups once now_ns reaches the time it last returned (at
     * once the first time), and returns when it wants the next call.  It
     * sets *want_frame when what it holds should be written now rather
     * than at the next periodic frame. */
    uint64_t (*tick)(uint64_t now_ns, int *want_frame);
} rec_source;

#endif
