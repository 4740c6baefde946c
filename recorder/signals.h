/*
 * A frame on SIGTERM, SIGINT, SIGHUP and SIGUSR1, then the program's own
 * disposition.
 */
#ifndef SCOPE_REC_SIGNALS_H
#define SCOPE_REC_SIGNALS_H

/* Installs our handlers in front of the program's; once per process. */
void rec_signals_install(void);

#endif
