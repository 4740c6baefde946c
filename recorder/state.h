/*
 * Whether the process records: one state, read by the hot path's slow
 * paths, the signal handlers and the lifecycle, written by the lifecycle
 * only.
 */
#ifndef SCOPE_REC_STATE_H
#define SCOPE_REC_STATE_H

enum rec_state {
    REC_UNKNOWN = 0, /* the environment has not been read yet */
    REC_OFF,         /* not recording */
    REC_ON,
    REC_CHILD,   /* a forked child: restart on first use */
    REC_FAILED,  /* could not start: stay off */
    REC_STOPPED, /* scope_shutdown ran: a process writes one log, so it stays off */
};

int rec_state_get(void);
/* Also sets scope_hot_: nonzero exactly when a call must look further than
 * one branch. */
void rec_state_set(int state);

#endif
