/* The scope-tui subcommands.  Each takes the argv that starts at its own name
 * and returns the process exit status. */
#ifndef SCOPE_COMMANDS_H
#define SCOPE_COMMANDS_H

#include "run_model.h"

int scope_cmd_dump(int argc, char **argv);
int scope_cmd_compare(int argc, char **argv);
int scope_cmd_check(int argc, char **argv);
int scope_cmd_report(int argc, char **argv);

/* Loads a run for command `cmd`, or prints why it cannot be loaded (one
 * line on stderr, "scope-tui CMD: ...") and returns NULL. */
run_model *cmd_load_run(const char *cmd, const char *dir, const run_options *opt);

#endif
