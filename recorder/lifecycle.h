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

#endif
