/*
 * Writing an export's file whole or not at all (cmd_export.c says how), for
 * every command that writes one: `export` and `reduce`.
 */
#ifndef SCOPE_CMD_EXPORT_H
#define SCOPE_CMD_EXPORT_H

#include "export_formats.h"
#include "run_model.h"

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

#endif
