/* The scope-tui subcommands.  Each takes the argv that starts at its own name
 * and returns the process exit status. */
#ifndef SCOPE_COMMANDS_H
#define SCOPE_COMMANDS_H

int scope_cmd_dump(int argc, char **argv);
int scope_cmd_compare(int argc, char **argv);
int scope_cmd_check(int argc, char **argv);
int scope_cmd_report(int argc, char **argv);

#endif
