/* The screen as plain text; see screen_text.h. */
#include "screen_text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

int screen_text_write(WINDOW *w, FILE *f) {
    int rows = getmaxy(w), cols = getmaxx(w);
    cchar_t *cells = calloc((size_t)cols + 1, sizeof *cells);
    char *line = malloc(((size_t)cols + 1) * MB_LEN_MAX * CCHARW_MAX + 1);
    if (!cells || !line) {
        free(cells);
        free(line);
        return -1;
    }
    for (int y = 0; y < rows; y++) {
        int n = mvwin_wchnstr(w, y, 0, cells, cols);
        if (n == ERR)
            n = 0;
        size_t len = 0, kept = 0;
        mbstate_t st = {0};
        for (int x = 0; x < cols; x++) {
            wchar_t wc[CCHARW_MAX + 1] = {0};
            attr_t attrs;
            short pair;
            if (getcchar(&cells[x], wc, &attrs, &pair, NULL) == ERR || !wc[0])
                continue;
            for (int k = 0; wc[k]; k++) {
                size_t m = wcrtomb(line + len, wc[k], &st);
                if (m == (size_t)-1) {
                    line[len] = '?';
                    m = 1;
                }
                len += m;
            }
            /* A wide character fills two cells, but ncurses hands it back
             * once: the cells read are characters, not columns. */
            if (!(wc[0] == L' ' && !wc[1]))
                kept = len;
        }
        line[kept] = '\n';
        if (fwrite(line, 1, kept + 1, f) != kept + 1) {
            free(cells);
            free(line);
            return -1;
        }
    }
    free(cells);
    free(line);
    return fflush(f) == 0 ? 0 : -1;
}

int screen_text_save(WINDOW *w, const char *view, char *path, size_t cap, char *err,
                     size_t errlen) {
    for (unsigned n = 1; n < 100000; n++) {
        snprintf(path, cap, "scope-%s-%u.txt", view, n);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0) {
            snprintf(err, errlen, "cannot save the screen to %s: %s", path, strerror(errno));
            return -1;
        }
        FILE *f = fdopen(fd, "w");
        if (!f) {
            close(fd);
            snprintf(err, errlen, "cannot save the screen to %s: %s", path, strerror(errno));
            return -1;
        }
        int rc = screen_text_write(w, f);
        int saved_errno = errno;
        if (fclose(f) != 0 || rc != 0) {
            snprintf(err, errlen, "cannot save the screen to %s: %s", path,
                     strerror(rc ? saved_errno : errno));
            unlink(path); /* a half-written screen is worse than none */
            return -1;
        }
        return 0;
    }
    snprintf(err, errlen, "cannot save the screen: scope-%s-1.txt to -99999.txt all exist", view);
    return -1;
}
