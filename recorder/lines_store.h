/*
 * The line sampler's memory: the samples drained from the threads' rings,
 * as the log holds them.  Modules the process has mapped (path, GNU
 * build-id, first byte, extent), stacks interned as module-relative
 * addresses, and per (thread, phase node, on- or off-CPU) the number of samples of each
 * stack since sampling began.  The writer (source_lines.c) and the
 * in-process tables (lines.c) both read it.
 *
 * Everything here is under the sampler's lock (rec_sampler_lock), except
 * that a module or stack, once defined, never changes and never moves: the
 * writer may read definitions below a count it read under the lock without
 * holding it.  Memory is bounded: past REC_LINES_MAX_STACKS stacks (or the
 * frame or count limits), samples of new stacks are dropped and counted.
 */
#ifndef SCOPE_REC_LINES_STORE_H
#define SCOPE_REC_LINES_STORE_H

#include "sampler.h"

#include <scope/log_format.h>

#define REC_LINES_MAX_MODULES      4096u
#define REC_LINES_MAX_STACKS       (1u << 16)
#define REC_LINES_MAX_FRAMES_TOTAL (1u << 21) /* 32 MiB of frames at most */
#define REC_LINES_MAX_COUNTS       (1u << 18) /* (thread, node, stack) triples */

typedef struct rec_lines_group {
    uint32_t thread, node;
    uint32_t state; /* enum scope_cpu_state of its samples */
    uint32_t n, cap;
    scope_stack_count *counts; /* totals since sampling began, per stack */
    uint64_t *cleared;         /* counts[i] at the last scope_lines_clear */
    uint64_t *written;         /* the writer: counts[i] as the log last got it */
    uint64_t version;          /* bumped when a count changes */
    uint64_t w_version;        /* the writer: version last written */
} rec_lines_group;

/* Lists the modules again when the loader's counters changed since the
 * last walk, here and for the handler (rec_sampler_modules_changed).
 * Without the sampler's lock held: it takes it.  wait 0: returns at once
 * when another walk is under way. */
void rec_lines_store_scan_modules(int wait);

/* Drains every slot's ring into the store (frames become module-relative
 * against the modules of the last walk), recycles dead threads' slots and
 * checks threads for a blocked SIGPROF.  Lock held. */
void rec_lines_store_drain(void);

/* Definitions: ids 1 .. count.  Pointers stay valid for the process. */
uint32_t rec_lines_store_nmodules(void);
const scope_rec_module *rec_lines_store_module(uint32_t id);
uint32_t rec_lines_store_nstacks(void);
const scope_rec_stack *rec_lines_store_stack(uint32_t id);

/* The counts (lock held). */
uint32_t rec_lines_store_ngroups(void);
rec_lines_group *rec_lines_store_group(uint32_t i);

typedef struct rec_lines_totals {
    uint64_t samples, dropped, truncated, signals;
} rec_lines_totals;
/* Since sampling began: taken by the handlers (overruns included), lost
 * to full rings or a full store, cut at the depth limit; and the signals
 * whose samples were stored (each one 1 + its overruns).  Lock held. */
rec_lines_totals rec_lines_store_totals(void);

/* Around fork: no module walk is under way across it (bounded by
 * deadline_ns; returns whether it waited successfully, for the parent's
 * half).  The child starts afresh in rec_lines_store_fork_child. */
int rec_lines_store_fork_prepare(uint64_t deadline_ns);
void rec_lines_store_fork_parent(int held);

/* scope_lines_clear: the in-process tables start again from zero (the
 * log's totals go on).  Lock held. */
void rec_lines_store_clear_tables(void);
/* A forked child: nothing of the parent's counts is its own.  The
 * definitions stay (their ids are per file, and the child's file starts
 * without them: the writer resends them). */
void rec_lines_store_fork_child(void);

#endif
