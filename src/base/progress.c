/* Progress of long work; see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Redrawn at most this often. */
#define REDRAW_MS 100

static progress_show_fn sink;
static void *sink_ctx;
static unsigned delay_ms = PROGRESS_DELAY_MS;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void progress_set_sink(progress_show_fn show, void *ctx) {
    sink = show;
    sink_ctx = ctx;
}

void progress_set_delay_ms(unsigned ms) {
    delay_ms = ms;
}

void progress_delay_from_env(void) {
    const char *v = getenv("SCOPE_PROGRESS_AFTER_MS");
    char *end;
    unsigned long ms = v && *v ? strtoul(v, &end, 10) : 0;
    if (v && *v && !*end && ms <= 3600u * 1000u)
        delay_ms = (unsigned)ms;
}

void progress_begin(progress *p, const char *what, const char *one, const char *many,
                    uint64_t total) {
    *p = (progress){.what = what, .unit = total == 1 ? one : many, .total = total};
    if (sink)
        p->start_ms = now_ms();
}

void progress_step(progress *p, uint64_t done) {
    if (!sink)
        return;
    double t = now_ms();
    if (t - p->start_ms < delay_ms || (p->shown && t - p->shown_ms < REDRAW_MS && done < p->total))
        return;
    char line[200];
    if (p->total)
        snprintf(line, sizeof line, "%s: %llu of %llu %s (%.0f%%)", p->what,
                 (unsigned long long)done, (unsigned long long)p->total, p->unit,
                 100.0 * (double)done / (double)p->total);
    else
        snprintf(line, sizeof line, "%s: %llu %s", p->what, (unsigned long long)done, p->unit);
    sink(sink_ctx, line);
    p->shown = 1;
    p->shown_ms = t;
}

void progress_end(progress *p) {
    if (p->shown && sink)
        sink(sink_ctx, "");
    p->shown = 0;
}
