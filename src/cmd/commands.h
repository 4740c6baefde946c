/* The scope-tui subcommands.  Each takes the argv that starts at its own name
 * and returns the process exit status. */
#ifndef SCOPE_COMMANDS_H
#define SCOPE_COMMANDS_H

int scope_cmd_dump(int argc, char **argv);
int scope_cmd_compare(int argc, char **argv);
int scope_cmd_check(int argc, char **argv);
int scope_cmd_report(int argc, char **argv);
int scope_cmd_lines(int argc, char **argv);
int scope_cmd_record(int argc, char **argv);
int scope_cmd_export(int argc, char **argv);
int scope_cmd_reduce(int argc, char **argv);

/* The command line as a whole: `scope-tui COMMAND ...` runs a command from
 * the table; `scope-tui RUN [OPTIONS]` (or options first) opens the run in
 * `browse`, the terminal browser, which lives in ui/ and is handed in by the
 * executable's main so that src/ stays free of ncurses.  `browse_usage` is
 * the browser's line for the help text. */
int scope_cli_main(int argc, char **argv, int (*browse)(int argc, char **argv),
                   const char *browse_usage);

/* The browser scope_cli_main was handed (NULL before it runs, or in a
 * program without one): `compare A B` on a terminal opens the two runs in
 * it, as `scope-tui A B` does. */
extern int (*scope_cli_browse)(int argc, char **argv);

#endif
