/*
 * One process as a loader read it: its identity, its newest figures keyed
 * by the ids of its source, and what may make them less than the whole
 * truth.  A loader (run_loader.h) fills one per process through the
 * functions here; the merge (run_merge.h) and the caveats (run_caveats.h)
 * read them.  Figures are full values, newest wins: memory follows the
 * number of phases, not the length of the run.
 */
#ifndef SCOPE_WORKER_LOG_H
#define SCOPE_WORKER_LOG_H

#include "arena.h"
#include "idmap.h"
#include "log_lines.h"
#include "read_caps.h"
#include "res_proc.h"
#include "run_model.h"

#include <scope/log_format.h>

typedef struct log_node {
    uint32_t id, parent, name, thread, flags, file, line;
    /* String id of the phase's tags, one per line, from a source that keeps
     * them (an imported scope-profiler file); 0 when none. */
    uint32_t tags;
    int has_agg;
    int left_open;    /* still open when the log ended (an UNBALANCED left-open mark) */
    int open_now;     /* open at the log's newest frame (its OPEN records) */
    uint64_t open_ns; /* then: how long that entry had been open at that frame */
    uint64_t count, wall_ns, min_ns, max_ns, cpu_count, cpu_wall_ns, cpu_ns;
    uint64_t delay_count, delay_wall_ns, delay_ns; /* run delay (format 1.9); 0: not measured */
    uint32_t io_flags;
    uint64_t io_count, io_failed, disk_read, disk_write, char_read, char_write;
    uint32_t nbins;      /* the newest histogram sent (bins holds exactly nbins) */
    uint64_t hist_count; /* the entries it holds: count, or fewer when it is older */
    int hist_left_out;   /* a histogram of it passed the reader's cap (read_caps.h) */
    scope_hist_bin *bins;
    /* Every entry's duration, sorted (count of them), from a source that
     * keeps each interval (an imported trace); the merge then gives exact
     * percentiles.  NULL for the scope log's aggregates.  Freed with the log. */
    uint64_t *exact_ns;
    run_phase *merged; /* where merging placed it (merge scratch) */
    int placing;       /* merge scratch: guards against parent cycles */
    int unplaced;      /* merge scratch: could not be placed, already counted */
} log_node;

typedef struct log_counter {
    uint32_t id, name, node, thread;
    uint64_t calls;
    int64_t total;
} log_counter;

/* A phase open at the newest frame read so far (an OPEN record's entry). */
typedef struct log_open {
    uint32_t node;
    uint64_t start_ns; /* CLOCK_MONOTONIC */
} log_open;

typedef struct log_string {
    uint32_t id;
    run_str value;
} log_string;

/* Per recorder thread: the newest cumulative caveat counts it wrote. */
typedef struct log_thread_marks {
    uint32_t thread;
    uint64_t unbalanced_ends, left_in_block, dropped;
} log_thread_marks;

#define LOG_MAX_NOTES 4

typedef struct worker_log {
    run_worker w; /* identity and end state as read; copied into the model */
    arena mem;    /* its names and notes; lives as long as the model */
    int open_rc;  /* < 0: the source could not be opened at all, open_msg says why */
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
    idmap thread_ix; /* thread index -> slot in tmarks */
    log_thread_marks *tmarks;
    size_t ntmarks, cap_tmarks;

    scope_log_damage *damage;
    size_t ndamage, cap_damage;
    scope_rec_phase_agg *pending; /* this batch's aggregates of nodes not defined yet */
    size_t npending, cap_pending;

    /* Filled by the scope log reader (run_log.c) as it goes. */
    uint64_t frames, last_seq, last_mono_ns, last_wall_ns;
    uint64_t max_gap_ns; /* longest wait between consecutive frames */
    /* The frame interval its PROCESS record states (frame_interval_s):
     * stated_interval_ns when fixed, interval_auto for the writer's
     * automatic schedule, neither when it does not say. */
    uint64_t stated_interval_ns;
    int interval_auto;
    uint64_t signal_frame; /* seq + 1 of the frame holding the newest signal mark, 0 none */
    int last_signal;
    int shutdown;     /* a SHUTDOWN mark was read */
    int flush_failed; /* a FLUSH_FAILED mark was read */

    uint64_t open_phase_marks; /* phases left open at exit or thread exit */
    log_open *open;            /* the phases the newest frame says are open */
    size_t nopen, cap_open;
    uint64_t open_mono_ns; /* that frame's CLOCK_MONOTONIC time */
    uint64_t inconsistent; /* records contradicting the format, ignored */
    char inconsistent_what[160];
    char *notes[LOG_MAX_NOTES]; /* recorder caveat texts (arena), first few distinct */
    size_t nnotes;
    /* The newest FOLDED mark: fold-map bits set by names recorded as
     * "(other)" (docs/format.md 5.13), and its text (arena); 0: none. */
    uint64_t names_folded_bits;
    char *names_folded_text;
    uint64_t lines_counted;       /* of lines.inconsistent, those already counted above */
    log_lines lines;              /* line samples (run_lines.h reads them) */
    scope_rec_trace_window trace; /* the newest TRACE_WINDOW; phase 0: none */
    int nomem;

    /* The reader's caps (read_caps.h): the run's budget, shared with the
     * run's other logs (NULL: one log's caps, no run), and what this log
     * holds of it and had left out.  restating is set while a frame that
     * only restates definitions is read (a snapshot after the first frame
     * read), whose refused definitions were counted already. */
    read_caps *caps;
    read_tally tally;
    int restating;

    /* Where a follower goes on reading (run_log.h, log_read_more): the
     * newest intact frame's offset (0: none read), its sequence number
     * (last_seq stands a snapshot for the frame before it), and the file's
     * size when it was last opened. */
    uint64_t last_off, last_frame_seq, read_size;
    /* The inconsistencies counted by reading and settling, before a merge
     * added its own: a model built again from this log starts from them. */
    uint64_t read_inconsistent;
    char read_inconsistent_what[160];
    int vanished; /* its file left the run directory after it was read (run_follow.h) */

    int no_samples; /* set before reading: RESOURCE records are skipped */
    int read_all;   /* set before reading: every frame from the start, never from a snapshot */
    uint64_t snapshot_min_size; /* set before reading: a smaller log is read whole; 0: always
                                   from the newest snapshot */

    /* Where the read began (docs/format.md 9.8): the newest intact snapshot,
     * or the start of the file. */
    uint64_t snapshot_mono_ns; /* the snapshot frame the read began at (its FRAME mono_ns); 0: read
                                  from the start */
    uint64_t snapshot_offset;  /* its byte offset; 0: read from the start */
    uint64_t snapshot_damaged; /* the newest snapshot's offset when it was damaged and an older
                                  one was read from; 0 otherwise */
    res_proc *res;             /* its resource samples; NULL when none (w.res points here) */
} worker_log;

/* Readies a zeroed log: identity unknown (ranks -1), end unknown. */
void worker_log_init(worker_log *log);

/* Before reading: the log counts what it holds against the run's budget
 * (read_caps.h), held by it until it is released. */
void worker_log_share_caps(worker_log *log, read_caps *caps);

/* Frees what the log holds; it is zeroed afterwards. */
void worker_log_release(worker_log *log);

/* A copy of n bytes in the arena; the empty name when out of memory. */
run_str run_str_dup(arena *a, const void *p, size_t n);

const run_str *log_string_of(const worker_log *log, uint32_t id);
log_node *log_node_of(worker_log *log, uint32_t id);

/* Counts a record that contradicts the rest, remembering the first reason. */
void log_inconsistent(worker_log *log, const char *what);

/* Definitions and newest figures, as the record kinds of scope/log_format.h
 * carry them.  A definition repeated identically is ignored, one that
 * contradicts the first is inconsistent. */
void log_add_string(worker_log *log, const scope_rec_string *s);
void log_add_node(worker_log *log, const scope_rec_phase_node *n);
void log_add_counter(worker_log *log, const scope_rec_counter *c);

/* The newest aggregate of a node.  One whose node is not defined yet waits
 * for log_settle_pending: definitions may come later in the same batch. */
void log_add_agg(worker_log *log, const scope_rec_phase_agg *a);

/* At the end of a batch (a frame): applies the aggregates that waited for
 * their node's definition; those still undefined are inconsistent. */
void log_settle_pending(worker_log *log);

/* A thread's running totals of unbalanced ends and of dropped entries:
 * the newest wins.  Values <= 0 say nothing. */
void log_set_unbalanced_ends(worker_log *log, uint32_t thread, int64_t total);
/* Likewise, the phases begun inside a block and closed with it. */
void log_set_left_in_block(worker_log *log, uint32_t thread, int64_t total);
void log_set_dropped(worker_log *log, uint32_t thread, int64_t total);

/* n phases left open, with the recorder's own words for them (if any).
 * innermost, when not 0, is the id of the innermost of them: it and its
 * n - 1 nearest ancestors are marked left_open. */
void log_add_open_phases(worker_log *log, uint64_t n, uint32_t innermost, scope_bytes text);

/* A new frame, closed at mono_ns, begins: what older frames said was open
 * no longer holds (format 1.4, OPEN: each frame says it whole). */
void log_frame_begins(worker_log *log, uint64_t mono_ns);

/* One thread's open phases as of the current frame. */
void log_add_open(worker_log *log, const scope_rec_open *o);

/* A caveat in the recorder's words, kept once (the first LOG_MAX_NOTES). */
void log_add_note(worker_log *log, scope_bytes text);

/* Once everything is read: each phase open at the newest frame gets the
 * time it had been open then (open_ns), and the worker's totals
 * (unbalanced, dropped, threads that recorded, phase time, open entries
 * included) come from the tables. */
void worker_log_settle(worker_log *log);

/* Undoes what a merge (run_merge.h) left in the log: its scratch, and the
 * inconsistencies it counted, back to those of reading and settling, so
 * that the log can be merged into another model as if just read. */
void worker_log_unmerge(worker_log *log);

#endif
