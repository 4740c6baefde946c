/*
 * The recorder's one line on stderr, unless SCOPE_QUIET.
 */
#ifndef SCOPE_REC_WARN_H
#define SCOPE_REC_WARN_H

void rec_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The environment variable that holds which setting warnings were said. */
#define REC_WARNED_ENV "SCOPE_WARNED"

/* A warning about a setting (a SCOPE_* value that does not parse), said
 * once per run rather than once per process: the line's hash is added to
 * SCOPE_WARNED in this process's environment, which a forked child and an
 * exec'd one inherit, and a process that finds it there says nothing.
 * setenv: call it where the recorder already changes the environment (at
 * start, under the lifecycle's lock), not on a hot path. */
void rec_warn_setting(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
