/*
 * scope-tui: the command line.  Subcommands come from one table, which also
 * writes the help, so the two cannot disagree.  Anything that is not a
 * command is a run to browse.
 */
#include "commands.h"
#include "text_escape.h"

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
    {"report", scope_cmd_report, "[OPTIONS] RUN",
     "print where the time went in a run, role by role"},
    {"dump", scope_cmd_dump, "[--frames|--summary] FILE...",
     "print an event log's frames and records, and what was skipped"},
    {"compare", scope_cmd_compare, "[OPTIONS] A B",
     "what changed from run A to run B, per role, phase and hot line"},
    {"check", scope_cmd_check, "[OPTIONS] BASE... CANDIDATE",
     "exit 1 when a phase of CANDIDATE regressed beyond the noise (for CI)"},
    {"lines", scope_cmd_lines, "[OPTIONS] RUN",
     "the run's hot source lines, per function and overall"},
    {"export", scope_cmd_export, "RUN --format FORMAT -o OUT",
     "write the run as JSON, HDF5 or a Chrome trace"},
    {"record", scope_cmd_record, "[-o RUN] [--hz N] -- CMD...",
     "run a program under the recorder with line sampling on"},
};

static const struct command *find_command(const char *name) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

static void usage(FILE *f, const char *browse_usage) {
    fprintf(f,
            "usage: scope-tui %s\n"
            "       scope-tui COMMAND [ARGS...]\n"
            "       scope-tui help [COMMAND] | --help | --version\n\n"
            "scope records where the time goes in long multi-process programs.\n"
            "'scope-tui RUN' opens a run directory in the terminal browser.\n\n"
            "Commands:\n",
            browse_usage);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-7s %-30s %s\n", commands[i].name, commands[i].args, commands[i].summary);
    fputs("\nRun 'scope-tui help COMMAND' (or 'scope-tui COMMAND --help') for a command's "
          "options.\n",
          f);
}

/* What the environment changes, for the full help.  The recorder's own
 * SCOPE_* variables are read by the profiled program, not by scope-tui, so
 * they are named by reference to their page. */
static void environment(FILE *f) {
    fputs("\nEnvironment:\n"
          "  SCOPE_THEME        the browser's colour theme when --theme is not given\n"
          "  NO_COLOR           set (to anything): no colour in the browser or the reports\n"
          "  LC_ALL, LC_CTYPE   a UTF-8 locale draws boxes and shows names as UTF-8; in\n"
          "                     others output is ASCII, names escaped (\\u4f11)\n"
          "  VISUAL, EDITOR     the editor the browser opens a phase's source line in\n"
          "  COLUMNS            the report's width when stdout is not a terminal\n"
          "  SCOPE_*            the recorder's settings, read by the profiled program\n"
          "                     (SCOPE_RUN_DIR, SCOPE_CPU_TIME, ...): see docs/recorder.md\n",
          f);
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
    if (!strcmp(cmd, "help") && argc > 2) {
        /* `help COMMAND` is that command's --help, so each help is written once. */
        const struct command *c = find_command(argv[2]);
        if (!c) {
            fputs("scope-tui help: no command '", stderr);
            scope_fput_escaped(stderr, (const uint8_t *)argv[2], strlen(argv[2]), 0);
            fputs("' (see 'scope-tui --help')\n", stderr);
            return 2;
        }
        char *help_argv[] = {argv[2], "--help", NULL};
        return c->run(2, help_argv);
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout, browse_usage);
        /* The browser's options, from the browser itself. */
        fputs("\n", stdout);
        fflush(stdout);
        char *browse_argv[] = {argv[0], "--help", NULL};
        int rc = browse(2, browse_argv);
        environment(stdout);
        return rc;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("scope-tui %s\n", SCOPE_VERSION);
        return 0;
    }
    const struct command *c = find_command(cmd);
    if (c)
        return c->run(argc - 1, argv + 1);
    return browse(argc, argv);
}
