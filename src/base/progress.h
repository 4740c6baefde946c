/*
 * Progress of long work, for the person waiting: loading a large run,
 * symbolizing its line samples, exporting it.  The work says where it is
 * (progress_begin, progress_step, progress_end); the front end decides
 * where that shows, by installing a sink: the commands write one line on
 * stderr when it is a terminal, rewritten in place; the browser shows it
 * in its status line.  With no sink, nothing is shown and a step costs a
 * comparison.
 *
 * Nothing shows for work that ends within the delay (a second by
 * default: SCOPE_PROGRESS_AFTER_MS, read by progress_delay_from_env, sets
 * it, so that the tests need not wait), and the line is redrawn at most
 * ten times a second.  The figures are counts of the work's own units
 * (processes, logs), never an estimate of time left.
 *
 * One thread reports: the work calls progress_step from the thread that
 * called progress_begin (the browser draws from it).
 */
#ifndef SCOPE_PROGRESS_H
#define SCOPE_PROGRESS_H

#include <stdint.h>

/* Shows line ("symbolizing the line samples: 45 of 97 processes (46%)"),
 * or takes it away when line is "". */
typedef void (*progress_show_fn)(void *ctx, const char *line);

void progress_set_sink(progress_show_fn show, void *ctx);

/* The delay before anything shows; SCOPE_PROGRESS_AFTER_MS when set. */
#define PROGRESS_DELAY_MS 1000
void progress_set_delay_ms(unsigned ms);
void progress_delay_from_env(void);

typedef struct progress {
    const char *what; /* "symbolizing the line samples" */
    const char *unit; /* "processes"; "process" when total is 1 */
    uint64_t total;
    double start_ms, shown_ms;
    int shown; /* the sink shows this work's line */
} progress;

void progress_begin(progress *p, const char *what, const char *one, const char *many,
                    uint64_t total);
void progress_step(progress *p, uint64_t done);
/* Takes the line away, if one showed. */
void progress_end(progress *p);

#endif
