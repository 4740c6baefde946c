/* The commands' progress line (src/base/progress.h): on stderr, rewritten
 * in place, only when stderr is a terminal; nothing at all otherwise, so a
 * pipe or a log file never holds one. */
#ifndef SCOPE_CMD_PROGRESS_H
#define SCOPE_CMD_PROGRESS_H

/* Installs the sink for command `cmd` ("lines", whose name begins the
 * line; NULL: the browser) when stderr is a terminal; reads
 * SCOPE_PROGRESS_AFTER_MS. */
void cmd_progress_on_stderr(const char *cmd);

#endif
