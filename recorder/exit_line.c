/*
 * The exit line (exit_line.h).  A terminal only: a program whose stderr goes
 * to a file or a pipe is run by a script or a scheduler, whose logs the
 * line would only clutter.
 */
#include "exit_line.h"

#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* dir as a shell reads it back: as it is when every byte is plain, else in
 * single quotes (a ' inside them written '\''). */
static void shell_word(const char *dir, char *out, size_t cap) {
    if (dir[0] && strspn(dir, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                              "0123456789_-+=.,:/@%") == strlen(dir)) {
        snprintf(out, cap, "%s", dir);
        return;
    }
    size_t n = 0;
    if (cap < 3)
        return;
    out[n++] = '\'';
    for (const char *p = dir; *p && n + 6 < cap; p++) {
        if (*p == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *p;
        }
    }
    out[n++] = '\'';
    out[n] = '\0';
}

void rec_exit_line(const char *run_dir) {
    if (rec_cfg.quiet || !isatty(STDERR_FILENO))
        return;
    /* The run directory is absolute (config.h): shown from the working
     * directory when it lies inside it, as the user most likely named it. */
    char cwd[PATH_MAX];
    const char *shown = run_dir;
    if (getcwd(cwd, sizeof cwd)) {
        size_t n = strlen(cwd);
        if (n > 1 && !strncmp(run_dir, cwd, n) && run_dir[n] == '/' && run_dir[n + 1])
            shown = run_dir + n + 1;
    }
    char word[3 * PATH_MAX];
    shell_word(shown, word, sizeof word);
    fprintf(stderr, "scope: run recorded in %s; open it with: scope-tui %s\n", word, word);
}
