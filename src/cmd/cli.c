/*
 * scope-tui: the command line.  Subcommands come from one table, which also
 * writes the help, so the two cannot disagree.  Anything that is not a
 * command is a run to browse.
 */
#include "cmd_progress.h"
#include "commands.h"
#include "text_escape.h"

#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
    {"reduce", scope_cmd_reduce, "RUN -o SUMMARY",
     "a large run read in parts into one HDF5 summary (scope-reduce: under MPI)"},
    {"record", scope_cmd_record, "[-o RUN] [--hz N] -- CMD...",
     "run a program under the recorder with line sampling on"},
};

static const struct command *find_command(const char *name) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

/* Edits from a to b: insertions, deletions, substitutions and swaps of two
 * neighbours (the optimal string alignment distance), so that `reprot` is
 * one typo from `report`, as a user counts it.  Words longer than a command
 * name could be are simply far. */
static size_t typo_distance(const char *a, const char *b) {
    enum { MAX = 32 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= MAX || lb >= MAX)
        return MAX;
    size_t d[MAX + 1][MAX + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The command a mistyped word most likely meant: within two typos (one for
 * words of three letters or fewer, so short words are not all "near"), or
 * the only command it starts; NULL when none is near or two are as near. */
static const char *nearest_command(const char *word) {
    size_t len = strlen(word), best = SIZE_MAX, prefixed = 0;
    const char *name = NULL, *prefix_of = NULL;
    int tie = 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        size_t d = typo_distance(word, commands[i].name);
        if (d < best)
            best = d, name = commands[i].name, tie = 0;
        else if (d == best)
            tie = 1;
        if (len >= 2 && !strncmp(word, commands[i].name, len))
            prefixed++, prefix_of = commands[i].name;
    }
    if (best <= (len <= 3 ? 1u : 2u) && !tie)
        return name;
    return prefixed == 1 ? prefix_of : NULL;
}

/* A first word that is no command and names nothing on disk is a mistyped
 * command or a run that is not there; either way the browser's complaints
 * about the arguments after it ("one run at a time") would mislead. */
static int not_a_command_or_run(const char *word) {
    struct stat st;
    if (word[0] == '-' || strchr(word, '/') || lstat(word, &st) == 0)
        return 0;
    const char *near = nearest_command(word);
    fputs("scope-tui: '", stderr);
    scope_fput_escaped(stderr, (const uint8_t *)word, strlen(word), 0);
    fputs("' is neither a command nor a run directory", stderr);
    if (near)
        fprintf(stderr, "; did you mean '%s'?\n", near);
    else
        fputs(" (see 'scope-tui --help')\n", stderr);
    return 1;
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
          "  SCOPE_PROGRESS_AFTER_MS  how long work runs before its progress shows on a\n"
          "                     terminal's stderr and in the browser (default 1000)\n"
          "  SCOPE_*            the recorder's settings, read by the profiled program\n"
          "                     (SCOPE_RUN_DIR, SCOPE_CPU_TIME, ...): see docs/recorder.md\n",
          f);
}

int (*scope_cli_browse)(int argc, char **argv);

int scope_cli_main(int argc, char **argv, int (*browse)(int argc, char **argv),
                   const char *browse_usage) {
    scope_cli_browse = browse;
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
            const char *near = nearest_command(argv[2]);
            fputs("scope-tui help: no command '", stderr);
            scope_fput_escaped(stderr, (const uint8_t *)argv[2], strlen(argv[2]), 0);
            if (near)
                fprintf(stderr, "'; did you mean '%s'?\n", near);
            else
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
    /* Long work says where it is: the browser's first reading too, before
     * it takes the terminal (its status line shows the rest). */
    cmd_progress_on_stderr(c ? c->name : NULL);
    if (c)
        return c->run(argc - 1, argv + 1);
    if (not_a_command_or_run(cmd))
        return 2;
    return browse(argc, argv);
}
