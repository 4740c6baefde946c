/* Opening a phase's source in the user's editor; see editor.h. */
#include "editor.h"

#include "style.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Writes dir/file (file alone when dir is NULL) into out as an argument no
 * command can take for an option: a relative result gets "./" in front, so
 * a recorded "-c:!cmd" or "+cmd" stays a file name.  Returns 0 when it does
 * not fit (a cut path would name another file). */
static int source_path(const char *dir, size_t dirlen, run_str file, char *out, size_t cap) {
    int n;
    if (dir)
        n = snprintf(out, cap, "%.*s/%.*s", (int)dirlen, dir, (int)file.len, file.s);
    else
        n = snprintf(out, cap, "%.*s", (int)file.len, file.s);
    if (n < 0 || (size_t)n >= cap)
        return 0;
    if (out[0] != '/') {
        if ((size_t)n + 2 >= cap)
            return 0;
        memmove(out + 2, out, (size_t)n + 1);
        memcpy(out, "./", 2);
    }
    return 1;
}

/* The recorded path when it is absolute.  A relative one (a path compiled
 * in relative to the build) is looked for under the working directory of
 * each of the role's processes first, since that is where it was recorded,
 * and only then under the browser's. */
static int find_source(const app *a, const run_phase *p, const run_role *role, char *out,
                       size_t cap) {
    if (memchr(p->file.s, '\0', p->file.len))
        return 0;
    if (p->file.s[0] != '/' && role) {
        for (size_t i = 0; i < role->nprocs; i++) {
            const run_worker *w = &a->model->workers[role->workers[i]];
            if (w->cwd.len && !memchr(w->cwd.s, '\0', w->cwd.len) &&
                source_path(w->cwd.s, w->cwd.len, p->file, out, cap) && is_file(out))
                return 1;
        }
    }
    return source_path(NULL, 0, p->file, out, cap) && is_file(out);
}

static int run_editor(const char *editor, const char *file, unsigned line, char *err,
                      size_t errlen) {
    char where[32], command[1024];
    snprintf(where, sizeof where, "+%u", line ? line : 1);
    /* As git runs it: the variable's words through the shell, the
     * arguments passed as "$@" so no part of a file name is ever read by
     * the shell; only +LINE and the path, which never starts with '-' or
     * '+' (source_path), so the editor takes no option from a log. */
    snprintf(command, sizeof command, "%s \"$@\"", editor);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start the editor: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        execl("/bin/sh", "sh", "-c", command, "sh", where, file, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(err, errlen, "lost the editor: %s", strerror(errno));
            return -1;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        snprintf(err, errlen, "could not run the editor '%s' (set $VISUAL or $EDITOR)", editor);
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "the editor '%s' exited with status %d", editor,
                 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return -1;
    }
    return 0;
}

void editor_open_phase(app *a, const run_phase *p, const run_role *role) {
    char shown[600];
    if (!p->file.len) {
        app_message(a, 1, "no source recorded for this phase");
        return;
    }
    char path[PATH_MAX];
    if (!find_source(a, p, role, path, sizeof path)) {
        style_escape(p->file, shown, sizeof shown);
        app_message(a, 1, "source %s:%u not found here", shown, p->line);
        return;
    }
    const char *editor = getenv("VISUAL");
    if (!editor || !*editor)
        editor = getenv("EDITOR");
    if (!editor || !*editor)
        editor = "vi";
    char err[1200];
    if (!a->headless) {
        def_prog_mode();
        endwin();
    }
    int rc = run_editor(editor, path, p->line, err, sizeof err);
    if (!a->headless) {
        reset_prog_mode();
        clearok(curscr, TRUE);
    }
    if (rc < 0)
        app_message(a, 1, "%s", err);
    else
        app_message(a, 0, "edited %s:%u",
                    style_escape((run_str){path, strlen(path)}, shown, sizeof shown), p->line);
}
