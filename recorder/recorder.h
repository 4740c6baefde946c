/*
 * libscope internals: how the recorder's files depend on each other, and the
 * limits they all share.
 *
 * Dependencies point one way.  Each file exports what others may call in a
 * header of its own name, and includes only headers of files below it in
 * this order, so a call always goes down a layer (or across, inside one)
 * and never up.  tests/check_recorder_deps.sh reads the #include graph of
 * recorder/ and fails on a cycle.
 *
 *   base        recorder.h (these limits), alloc (allocating with the
 *               program's signals held), clock, config, warn (one line on
 *               stderr; a bad setting's once per run), lock (mutexes a
 *               fork handler can take safely), names (interned names),
 *               state (recording or not), files (directories, writes that cannot raise SIGXFSZ),
 *               own_fd (the descriptors it keeps: held high, checked
 *               before use), own_thread (its own threads, started past
 *               lines.c's pthread_create),
 *               io_counters (a task's /proc I/O counters), cuda_sync (a
 *               GPU drain through a CUDA the program loaded), exit_line
 *               (where the run went, said at exit on a terminal), launchers
 *               (which launcher started the process: the table),
 *               res_series (a resource figure's fixed-size series),
 *               res_node_io (the bytes of resource intervals per phase node)
 *   threads     thread: per-thread recording state, sequence counters;
 *               thread_io: a thread's reads of its own I/O counters;
 *               run_delay: a thread's run delay (time waiting for a CPU);
 *               cpu_share: what a CPU-time read adds to an entry's window;
 *               trace: the trace window's settings, state and events
 *   sampler     sampler (the line sampler's SIGPROF handler, per-thread
 *               timers and rings), lines_store (modules, interned stacks,
 *               sample counts)
 *   process     identity (who this process is), logfile (its log)
 *   frames      mark_copies (the marks written, for snapshots), frame:
 *               adding records to the frame being written
 *   sources     source (the row type), source_process, source_names,
 *               source_phases, source_lines, source_resources,
 *               source_trace, source_marks (the rows), sources (the table)
 *   writer      writer: frames, the writer thread, flush requests
 *   signals     flush on SIGTERM, SIGINT, SIGHUP and SIGUSR1
 *   lifecycle   scope_init, scope_shutdown, scope_flush, exit and fork
 *   leaving     exits: _exit, _Exit and exec*, which end the log as exit does
 *   hot path    phase: scope_phase_*, scope_count and attaching a thread;
 *               phase_io: what an I/O phase reads at its ends;
 *               lines: scope_lines_*, SCOPE_LINES, the threads it follows
 *
 * A lower layer that needs something done above it does not call up: what
 * both need lives below (warn for messages, state for the recording state),
 * and requests go down (a signal handler asks the writer for a frame).
 */
#ifndef SCOPE_RECORDER_H
#define SCOPE_RECORDER_H

#include <scope/log_hist.h>

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define REC_MAX_DEPTH    256u /* frames incl. the root sentinel; deeper is counted only */
#define REC_HIST_OCTAVES 61u  /* SCOPE_HIST_BUCKETS / 16, rounded up */
#define REC_CHUNK_SHIFT  8u   /* nodes and counters live in chunks of 256 */
#define REC_CHUNK        (1u << REC_CHUNK_SHIFT)
#define REC_MAX_CHUNKS   1024u /* 256K nodes per thread; more are dropped, counted */
/* Thread slots (thread.h) a process makes before a thread takes over a slot
 * another thread of a different name handed back: below it, threads of one
 * name share slots only with each other. */
#define REC_THREAD_SLOTS 256u
/* Distinct names (phases, counters, source files) a process keeps; past it
 * a phase or counter name is recorded as "(other)" (names.c). */
#define REC_NAME_LIMIT 65536u

/* A histogram is stored as octaves of 16 buckets: exactly enough of them. */
static_assert(REC_HIST_OCTAVES * 16u >= SCOPE_HIST_BUCKETS &&
                  (REC_HIST_OCTAVES - 1u) * 16u < SCOPE_HIST_BUCKETS,
              "REC_HIST_OCTAVES must be SCOPE_HIST_BUCKETS / 16, rounded up");
/* Node and counter indexes (1.. within a thread) fit in 31 bits, so the
 * lookup table's key can mark counters with bit 31 of the name. */
static_assert((uint64_t)REC_MAX_CHUNKS * REC_CHUNK < (1ull << 31), "indexes must fit 31 bits");
static_assert(REC_NAME_LIMIT < (1u << 31), "name ids must leave bit 31 free");

/* FNV-1a over n bytes: for names in the intern table and launch keys, short
 * strings where speed matters more than a strong hash. */
static inline uint64_t rec_fnv1a(const void *p, size_t n) {
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#endif
