/*
 * Writing an export's file whole or not at all (cmd_export.c says how), for
 * every command that writes one: `export` and `reduce`.
 */
#ifndef SCOPE_CMD_EXPORT_H
#define SCOPE_CMD_EXPORT_H

#include "export_formats.h"
#include "run_model.h"

#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>

/* The file a command is to write, as it was before. */
typedef struct cmd_out {
    const char *path;
    int exists;
    struct stat st;
} cmd_out;

/* Checks out_path before anything is read (not a directory, a device or a
 * pipe) into *out: 0, or -1 with one line on stderr ("scope-tui CMD: ..."). */
int cmd_export_check_out(const char *cmd, const char *out_path, cmd_out *out);

/* Writes m (loaded from run) in fmt to a temporary file beside out->path,
 * renamed over it once complete: 0, or -1 with one line on stderr and
 * out->path as it was. */
int cmd_export_write(const char *cmd, const export_format *fmt, const run_model *m, const char *run,
                     const cmd_out *out);

/* The stop signals (SIGTERM, SIGINT, SIGHUP) handled while a temporary
 * file exists, so that one stopping the command removes it. */
typedef struct cmd_stop_guard {
    struct sigaction old[3];
    sigset_t set;
} cmd_stop_guard;

/* -o FILE for report and compare, written as an export is: FILE checked
 * first (cmd_export_check_out), then a new temporary file beside it
 * ("FILE.tmpXXXXXX", FILE's mode), which replaces FILE only once all was
 * written and is on disk; a stop signal or a failure removes it and leaves
 * FILE as it was.  path NULL: stdout itself.  NULL after saying why on
 * stderr. */
typedef struct cmd_output {
    FILE *f;
    const char *path; /* NULL: stdout */
    char *tmp;
    cmd_stop_guard guard;
} cmd_output;
FILE *cmd_output_open(const char *cmd, cmd_output *o, const char *path);
/* Flushes and, when ok, puts the file in place; else removes it.  Returns
 * 0, or -1 after saying why on stderr. */
int cmd_output_close(const char *cmd, cmd_output *o, int ok);

#endif
