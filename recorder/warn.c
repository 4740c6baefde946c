/*
 * Errors never reach the host program as a failure: they become a caveat in
 * the log and this one line on stderr, which SCOPE_QUIET silences.
 */
#include "warn.h"

#include "config.h"
#include "recorder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Declares `line` and prints the caller's arguments after fmt into it;
 * returns from the caller when they cannot be formatted. */
#define FORMAT_LINE(line, fmt)                                                                     \
    char line[1024];                                                                               \
    do {                                                                                           \
        va_list ap_;                                                                               \
        va_start(ap_, fmt);                                                                        \
        int n_ = vsnprintf(line, sizeof line, fmt, ap_);                                           \
        va_end(ap_);                                                                               \
        if (n_ < 0)                                                                                \
            return;                                                                                \
    } while (0)

void rec_warn(const char *fmt, ...) {
    if (rec_cfg.quiet)
        return;
    FORMAT_LINE(line, fmt);
    fprintf(stderr, "scope: %s\n", line);
}

/* The lines said so far, as the 16 hex digits of their hash, ',' between:
 * at most this many.  Past them a warning is said again in children. */
#define WARNED_MAX 8

void rec_warn_setting(const char *fmt, ...) {
    if (rec_cfg.quiet)
        return;
    FORMAT_LINE(line, fmt);
    char hash[17];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)rec_fnv1a(line, strlen(line)));
    const char *said = getenv(REC_WARNED_ENV);
    size_t len = said ? strlen(said) : 0;
    for (size_t i = 0; i + 16 <= len; i += 17)
        if (!memcmp(said + i, hash, 16))
            return; /* said by this process or one it descends from, in this run */
    fprintf(stderr, "scope: %s\n", line);
    if (len > WARNED_MAX * 17 - 2)
        return;
    char next[WARNED_MAX * 17];
    snprintf(next, sizeof next, "%s%s%s", len ? said : "", len ? "," : "", hash);
    setenv(REC_WARNED_ENV, next, 1);
}
