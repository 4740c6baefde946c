/* The commands' progress line; see cmd_progress.h. */
#include "cmd_progress.h"

#include "progress.h"
#include "text_escape.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static char command[32];

/* "\r" + the line, cut to the terminal's width (a line that wrapped could
 * not be rewritten in place), then clear to the end of the line. */
static void show_on_stderr(void *ctx, const char *line) {
    (void)ctx;
    struct winsize ws;
    size_t width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
    char text[256];
    if (line[0])
        snprintf(text, sizeof text, "scope-tui%s%s: %s", command[0] ? " " : "", command, line);
    else
        text[0] = '\0';
    size_t n = strlen(text);
    if (n >= width)
        n = width - 1;
    fprintf(stderr, "\r%.*s\033[K", (int)n, text);
    fflush(stderr);
}

void cmd_progress_on_stderr(const char *cmd) {
    progress_delay_from_env(); /* the browser's status line follows it too */
    if (!isatty(STDERR_FILENO))
        return;
    if (cmd)
        scope_escape((const uint8_t *)cmd, strlen(cmd), command, sizeof command, 0);
    progress_set_sink(show_on_stderr, NULL);
}
