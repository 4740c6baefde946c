/* Option errors of the run-reading commands, on one line in the same words:
 * "scope-tui CMD: unknown option '--x' (see 'scope-tui CMD --help')". */
#ifndef SCOPE_CMD_UTIL_H
#define SCOPE_CMD_UTIL_H

/* For a getopt_long run with opterr = 0 and an optstring starting with ':':
 * c is what getopt_long returned ('?' or ':'). */
void cmd_bad_option(const char *cmd, int c, char **argv);

#endif
