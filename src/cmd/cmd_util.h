/* What the run-reading commands (report, compare, check) share: option
 * errors on one line in the same words ("scope-tui CMD: unknown option
 * '--x' (see 'scope-tui CMD --help')"), and loading a run or saying why not. */
#ifndef SCOPE_CMD_UTIL_H
#define SCOPE_CMD_UTIL_H

#include "run_model.h"

#include <stdio.h>

/* For a getopt_long run with opterr = 0 and an optstring starting with ':':
 * c is what getopt_long returned ('?' or ':'). */
void cmd_bad_option(const char *cmd, int c, char **argv);

/* 1 when exactly one run was named (nargs, the operands left after the
 * options); otherwise says "which run? (SYNOPSIS)" or "one run at a time"
 * on stderr and returns 0. */
int cmd_one_run(const char *cmd, int nargs, const char *synopsis);

/* --attempt N, the attempt of the run to show (run_options.attempt: 1 the
 * oldest; the newest when not given): the option, its getopt code 'A'. */
#define CMD_ATTEMPT_OPTION                                                                         \
    { "attempt", required_argument, NULL, 'A' }

/* Parses --attempt's value into opt->attempt; 0, or -1 after saying why on
 * stderr. */
int cmd_parse_attempt(const char *cmd, const char *arg, run_options *opt);

/* When the run holds more than one attempt, one line on f saying which is
 * shown and how to show another; nothing otherwise. */
void cmd_say_attempt(FILE *f, const run_model *m);

/* Loads a run for command `cmd`, or prints why it cannot be loaded (one
 * line on stderr, "scope-tui CMD: ...") and returns NULL. */
run_model *cmd_load_run(const char *cmd, const char *dir, const run_options *opt);

#endif
