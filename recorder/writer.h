/*
 * The writer thread: it alone writes the log.  Every frame interval, and
 * whenever asked (scope_flush, exit, a signal), it walks the table of data
 * sources and closes a frame.
 */
#ifndef SCOPE_REC_WRITER_H
#define SCOPE_REC_WRITER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Opens the log of the process (rec_cfg, rec_id) and starts the thread.
 * Called by the lifecycle, under its lock. */
int rec_writer_start(char *err, size_t errlen);
/* A last frame (SCOPE_FRAME_EXIT, with a SHUTDOWN mark giving
 * shutdown_reason, an enum scope_shutdown_reason), then the thread ends and
 * the log is closed. */
void rec_writer_stop(int shutdown_reason);

/* The log's last frame as rec_writer_stop writes it (the shutdown mark with
 * shutdown_reason, the phases left open), the caller waiting wait_ms at
 * most; the writer runs on.  For a process about to _exit or exec (an exec
 * that fails records on): nothing is joined and no lock is taken, so a
 * signal handler may call it.  0, or -1 when not written in time. */
int rec_writer_last_frame(int shutdown_reason, int wait_ms);

/* Asks the writer thread for a frame and waits up to wait_ms for it.
 * Returns 0 when it was written, -1 when it failed, timed out or no writer
 * runs.  Async-signal-safe. */
int rec_request_flush(int reason, int wait_ms);
/* The same for a frame closed for signal sig, which carries its SIGNAL
 * mark.  Does nothing on the writer thread itself, which must not wait for
 * itself.  Async-signal-safe. */
void rec_request_signal_flush(int sig, int wait_ms);

/* The writer works holding this lock: who holds it sees no frame half
 * written (a fork, a change of role). */
void rec_writer_lock(void);
void rec_writer_unlock(void);
/* For the fork handler (lock.h): the lock within the deadline (1) or not
 * (0). */
int rec_writer_lock_for_fork(uint64_t deadline_ns);

/* In a forked child: the parent's writer thread does not exist here and its
 * file is the parent's; both are dropped without writing.  `locked`: the
 * fork handler held the writer's lock, so its state is whole and is freed;
 * otherwise the writer may have been halfway through a frame, and only the
 * descriptors are closed (what it had allocated stays, untouched). */
void rec_writer_fork_child(int locked);

/* The signals a frame is flushed on (signals.c installs their handlers).
 * The writer thread takes no signal at all. */
#define REC_NFLUSH_SIGNALS 4u
extern const int rec_flush_signal_list[REC_NFLUSH_SIGNALS];

#endif
