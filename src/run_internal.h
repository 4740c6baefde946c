/*
 * Shared between the parts of the analysis (loading one log, merging logs
 * into the model, wording caveats); not for renderers, which see only
 * run_model.h.
 */
#ifndef SCOPE_RUN_INTERNAL_H
#define SCOPE_RUN_INTERNAL_H

#include "idmap.h"
#include "run_model.h"

#include <scope/log_format.h>

/* ---- arena: the model's strings, freed all at once ---------------------- */

typedef struct arena_chunk arena_chunk;
typedef struct arena {
    arena_chunk *head;
} arena;

/* A copy of n bytes with a NUL after them; NULL when out of memory. */
char *arena_dup(arena *a, const void *p, size_t n);
void *arena_alloc(arena *a, size_t n); /* zeroed, aligned for any type */
void arena_free(arena *a);

/* ---- one log as read ---------------------------------------------------- */

typedef struct log_node {
    uint32_t id, parent, name, thread, flags, file, line;
    int has_agg;
    uint64_t count, wall_ns, min_ns, max_ns, cpu_count, cpu_wall_ns, cpu_ns;
    uint32_t io_flags;
    uint64_t io_count, io_failed, disk_read, disk_write, char_read, char_write;
    uint32_t nbins, bins_cap; /* the newest histogram sent */
    scope_hist_bin *bins;
    run_phase *merged; /* where merging placed it (merge scratch) */
    int placing;       /* merge scratch: guards against parent cycles */
    int unplaced;      /* merge scratch: could not be placed, already counted */
} log_node;

typedef struct log_counter {
    uint32_t id, name, node, thread;
    uint64_t calls;
    int64_t total;
} log_counter;

typedef struct log_string {
    uint32_t id;
    run_str value;
} log_string;

/* Per recorder thread: the newest cumulative caveat counts it wrote. */
typedef struct log_thread_marks {
    uint32_t thread;
    uint64_t unbalanced_ends, dropped;
} log_thread_marks;

#define LOG_MAX_NOTES 4

typedef struct worker_log {
    run_worker w; /* identity and end state as read; copied into the model */
    arena mem;
    int open_rc;
    char open_msg[256];

    log_string *strings;
    size_t nstrings, cap_strings;
    idmap string_ix;
    log_node *nodes;
    size_t nnodes, cap_nodes;
    idmap node_ix;
    log_counter *counters;
    size_t ncounters, cap_counters;
    idmap counter_ix;
    idmap thread_ix; /* thread index -> slot in marks */
    log_thread_marks *tmarks;
    size_t ntmarks, cap_tmarks;

    scope_log_damage *damage;
    size_t ndamage;
    scope_rec_phase_agg *pending; /* this frame's aggregates of nodes not defined yet */
    size_t npending, cap_pending;

    uint64_t frames, last_seq, last_mono_ns, last_wall_ns;
    uint64_t max_gap_ns;   /* longest wait between consecutive frames */
    uint64_t signal_frame; /* seq + 1 of the frame holding the newest signal mark, 0 none */
    int last_signal;
    int shutdown;              /* a SHUTDOWN mark was read */
    int flush_failed;          /* a FLUSH_FAILED mark was read */
    uint64_t open_phase_marks; /* phases left open at exit or thread exit */
    uint64_t inconsistent;     /* records contradicting the format, ignored */
    char inconsistent_what[160];
    char *notes[LOG_MAX_NOTES]; /* recorder caveat texts (arena), first few distinct */
    size_t nnotes;
    int nomem;
} worker_log;

/* Reads the log at path into *log (zeroed by the caller).  Never fails as a
 * whole: an unreadable file leaves open_rc < 0 with its message. */
void log_read(const char *path, worker_log *log);
void log_release(worker_log *log);

const run_str *log_string_of(const worker_log *log, uint32_t id);
log_node *log_node_of(worker_log *log, uint32_t id);

/* ---- stages of run_load -------------------------------------------------- */

/* Attempts, roles, phase trees and every figure, from workers already read.
 * Returns 0, or -1 when out of memory. */
int run_merge(run_model *m, worker_log *logs, const run_options *opt);

/* Appends the caveats of the newest attempt and of workers that could not
 * be placed.  Returns 0, or -1 when out of memory. */
int run_add_caveats(run_model *m, const worker_log *logs);

/* What run_merge allocated outside the arena. */
void run_merge_free(run_model *m);

/* The phase tree and figures of *role, a role of one process whose name,
 * nprocs (1) and workers are set, merged from that process's log as
 * run_merge merges a role (run_worker_role).  The log's merge scratch is
 * reset first, and the inconsistencies the merge counts in it are put back
 * afterwards, so the caveats said at load are not counted twice.  Returns
 * 0, or -1 when out of memory; either way run_role_free frees what it
 * allocated. */
int run_merge_alone(run_model *m, worker_log *logs, run_role *role, const run_options *opt);

/* What merging allocated outside the arena for one role. */
void run_role_free(run_role *role);

/* The model's arena (owned by run_load's wrapper). */
arena *run_arena(run_model *m);

/* Copies of run_str into an arena. */
run_str run_str_dup(arena *a, const void *p, size_t n);

#endif
