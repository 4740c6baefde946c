/*
 * The recorder's one line on stderr, unless SCOPE_QUIET.
 */
#ifndef SCOPE_REC_WARN_H
#define SCOPE_REC_WARN_H

void rec_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
