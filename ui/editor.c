/* Opening a phase's or a line's source in the user's editor; see editor.h. */
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

/* A recorded path that is absolute is used as it is.  A relative one (a
 * path compiled in relative to the build) is looked for under the working
 * directory of each of the role's processes first, since that is where it
 * was recorded, and only then under the browser's. */
static int find_recorded(const app *a, run_str file, const run_role *role, char *out, size_t cap) {
    if (file.s[0] != '/' && role) {
        for (size_t i = 0; i < role->nprocs; i++) {
            const run_worker *w = &a->model->workers[role->workers[i]];
            if (w->cwd.len && !memchr(w->cwd.s, '\0', w->cwd.len) &&
                source_path(w->cwd.s, w->cwd.len, file, out, cap) && is_file(out))
                return 1;
        }
    }
    return source_path(NULL, 0, file, out, cap) && is_file(out);
}

/* A source line's file: as recorded (find_recorded), else each trailing
 * part of its path (a/b/c.c, b/c.c, c.c) under the project folder, then
 * under --source-dir, as the model finds the text it shows
 * (run_lines_source). */
static int find_line_source(const app *a, run_str file, const run_role *role, char *out,
                            size_t cap) {
    if (find_recorded(a, file, role, out, cap))
        return 1;
    run_str roots[2];
    size_t nroots = 0;
    if (a->lines_model == a->model && a->lines_info.project.len &&
        !memchr(a->lines_info.project.s, '\0', a->lines_info.project.len))
        roots[nroots++] = a->lines_info.project;
    if (a->source_dir)
        roots[nroots++] = (run_str){a->source_dir, strlen(a->source_dir)};
    for (size_t r = 0; r < nroots; r++)
        for (size_t i = 0; i < file.len; i++) {
            if ((i && file.s[i - 1] != '/') || file.s[i] == '/')
                continue;
            run_str part = {file.s + i, file.len - i};
            if (source_path(roots[r].s, roots[r].len, part, out, cap) && is_file(out))
                return 1;
        }
    return 0;
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

/* Runs the editor on path at line, with the terminal given back to it. */
static void edit(app *a, const char *path, unsigned line) {
    char shown[600];
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
    int rc = run_editor(editor, path, line, err, sizeof err);
    if (!a->headless) {
        reset_prog_mode();
        clearok(curscr, TRUE);
    }
    if (rc < 0)
        app_message(a, 1, "%s", err);
    else
        app_message(a, 0, "edited %s:%u",
                    style_escape((run_str){path, strlen(path)}, shown, sizeof shown), line);
}

void editor_open_phase(app *a, const run_phase *p, const run_role *role) {
    char shown[600];
    if (!p->file.len) {
        app_message(a, 1, "no source recorded for this phase");
        return;
    }
    char path[PATH_MAX];
    if (memchr(p->file.s, '\0', p->file.len) ||
        !find_recorded(a, p->file, role, path, sizeof path)) {
        style_escape(p->file, shown, sizeof shown);
        app_message(a, 1, "source %s:%u not found here", shown, p->line);
        return;
    }
    edit(a, path, p->line);
}

void editor_open_line(app *a, const run_line *l, const run_role *role) {
    char shown[600];
    if (!l->file.len || !l->line) {
        app_message(a, 1, "no source line for %s: its module has no debug info here",
                    style_escape(l->function, shown, sizeof shown));
        return;
    }
    char path[PATH_MAX];
    if (memchr(l->file.s, '\0', l->file.len) ||
        !find_line_source(a, l->file, role, path, sizeof path)) {
        style_escape(l->file, shown, sizeof shown);
        app_message(a, 1, "source %s:%u not found here (--source-dir DIR says where)", shown,
                    l->line);
        return;
    }
    edit(a, path, l->line);
}
