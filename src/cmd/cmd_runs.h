/* Several runs named on a command line (check's base runs): each argument a
 * run, or a directory holding runs (its subdirectories with a workers/
 * folder, in name order; symbolic links are not followed). */
#ifndef SCOPE_CMD_RUNS_H
#define SCOPE_CMD_RUNS_H

#include "run_model.h"

#include <stddef.h>

typedef struct cmd_runs {
    run_model **v;
    size_t n;
} cmd_runs;

/* Loads every run the npaths arguments name, at most `most`, for command
 * `cmd`.  0 with *out filled; or -1 after one line on stderr ("scope-tui
 * CMD: ..."), *out empty. */
int cmd_load_runs(const char *cmd, char *const *paths, size_t npaths, size_t most,
                  const run_options *opt, cmd_runs *out);
void cmd_runs_free(cmd_runs *r);

#endif
