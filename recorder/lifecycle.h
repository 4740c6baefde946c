/*
 * Starting the recorder on first use.  The rest of the lifecycle is the
 * public API (scope_init, scope_shutdown, scope_flush) and hooks (exit,
 * fork).
 */
#ifndef SCOPE_REC_LIFECYCLE_H
#define SCOPE_REC_LIFECYCLE_H

/* Resolves REC_UNKNOWN (reads the environment) and REC_CHILD (a forked
 * child starts its own log). */
void rec_first_use(void);

/* The log's end as exit writes it (its last frame and shutdown mark, with
 * reason, enum scope_shutdown_reason), for a process about to leave its
 * image another way: _exit, _Exit, exec (exits.c).  The recorder keeps
 * running (an exec that fails records on), and no lock is taken, so a
 * signal handler may call it.  Nothing when it is not recording, or in a
 * vfork child (another pid sharing this memory: touching the recorder
 * would change the parent's). */
void rec_end_before_leaving(int reason);

#endif
