/*
 * scope-tui: the command line.  Subcommands come from one table, which also
 * writes the help, so the two cannot disagree.  Anything that is not a
 * command is a run to browse.
 */
#include "commands.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#ifndef SCOPE_VERSION
#define SCOPE_VERSION "unknown"
#endif

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *args;
    const char *summary;
};

static const struct command commands[] = {
    {"report", scope_cmd_report, "[--json] [--width N] RUN",
     "print where the time went in a run, role by role"},
    {"dump", scope_cmd_dump, "[--frames|--summary] FILE...",
     "print an event log's frames and records, and what was skipped"},
    {"compare", scope_cmd_compare, "[--json] [--width N] A B",
     "what changed from run A to run B, per role and phase"},
    {"check", scope_cmd_check, "[OPTIONS] BASE CANDIDATE",
     "exit 1 when a phase of CANDIDATE regressed against BASE (for CI)"},
};

static void usage(FILE *f, const char *browse_usage) {
    fprintf(f,
            "usage: scope-tui %s\n"
            "       scope-tui COMMAND [ARGS...]\n"
            "       scope-tui --help | --version\n\n"
            "scope records where the time goes in long multi-process programs.\n"
            "'scope-tui RUN' opens a run directory in the terminal browser.\n\n"
            "Commands:\n",
            browse_usage);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-7s %-30s %s\n", commands[i].name, commands[i].args, commands[i].summary);
    fputs("\nRun 'scope-tui COMMAND --help' for a command's options.\n", f);
}

int scope_cli_main(int argc, char **argv, int (*browse)(int argc, char **argv),
                   const char *browse_usage) {
    /* The character set only: it decides UTF-8 rules and ellipses.  Numbers
     * keep the C locale's decimal point, so output parses the same anywhere. */
    setlocale(LC_CTYPE, "");
    if (argc < 2) {
        usage(stderr, browse_usage);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout, browse_usage);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("scope-tui %s\n", SCOPE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    return browse(argc, argv);
}
