/*
 * Errors never reach the host program as a failure: they become a caveat in
 * the log and this one line on stderr, which SCOPE_QUIET silences.
 */
#include "warn.h"

#include "config.h"

#include <stdarg.h>
#include <stdio.h>

void rec_warn(const char *fmt, ...) {
    if (rec_cfg.quiet)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    fprintf(stderr, "scope: %s\n", line);
}
