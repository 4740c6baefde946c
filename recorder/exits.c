/*
 * The ways a process leaves its image without exit(): _exit and _Exit,
 * which skip atexit (dash ends every `sh -c` that way), and the exec
 * family, which replaces the image (a shell's last command, a launcher
 * that becomes its program).  Without these the log never gets its
 * shutdown mark: the process would read as killed, its figures ending at
 * whatever frame the writer last wrote.
 *
 * Each wrapper ends the log as exit would (lifecycle.h,
 * rec_end_before_leaving), then calls the C library's own.  An exec is
 * checked first (the file exists and may be executed, found on PATH for
 * the p variants): one that will surely fail must not end the log of a
 * process that carries on.
 */
#define _GNU_SOURCE
#include "lifecycle.h"

#include <scope/log_format.h>
#include <scope/scope.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The C library's function of that name; NULL when it cannot be found. */
static void *next_fn(const char *name) {
    return dlsym(RTLD_NEXT, name);
}

/* ---- _exit ------------------------------------------------------------------ */

typedef void (*exit_fn)(int);

static _Noreturn void leave(const char *name, int status) {
    rec_end_before_leaving(SCOPE_SHUTDOWN_EXIT);
    exit_fn real = (exit_fn)next_fn(name);
    if (real)
        real(status);
    syscall(SYS_exit_group, status);
    for (;;) /* exit_group does not return */
        ;
}

SCOPE_API void _exit(int status) {
    leave("_exit", status);
}

SCOPE_API void _Exit(int status) {
    leave("_Exit", status);
}

/* ---- exec ------------------------------------------------------------------- */

/* Whether path names a file this process may execute. */
static int executable(const char *path) {
    return path && *path && access(path, X_OK) == 0;
}

/* Whether execvp would find file: a path with a slash as it is, else some
 * folder of PATH (the C library's default when PATH is unset). */
static int on_path(const char *file) {
    if (!file || !*file)
        return 0;
    if (strchr(file, '/'))
        return executable(file);
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    for (const char *p = path;; p++) {
        const char *end = strchrnul(p, ':');
        char full[PATH_MAX];
        int n =
            snprintf(full, sizeof full, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "", file);
        if (n > 0 && (size_t)n < sizeof full && executable(full))
            return 1;
        if (!*end)
            return 0;
        p = end;
    }
}

static void before_exec(int will_run) {
    if (will_run)
        rec_end_before_leaving(SCOPE_SHUTDOWN_EXEC);
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

SCOPE_API int execve(const char *path, char *const argv[], char *const envp[]) {
    execve_fn real = (execve_fn)next_fn("execve");
    if (!real)
        return errno = ENOSYS, -1;
    before_exec(executable(path));
    return real(path, argv, envp);
}

SCOPE_API int execv(const char *path, char *const argv[]) {
    execv_fn real = (execv_fn)next_fn("execv");
    if (!real)
        return errno = ENOSYS, -1;
    before_exec(executable(path));
    return real(path, argv);
}

SCOPE_API int execvpe(const char *file, char *const argv[], char *const envp[]) {
    execve_fn real = (execve_fn)next_fn("execvpe");
    if (!real)
        return errno = ENOSYS, -1;
    before_exec(on_path(file));
    return real(file, argv, envp);
}

SCOPE_API int execvp(const char *file, char *const argv[]) {
    execv_fn real = (execv_fn)next_fn("execvp");
    if (!real)
        return errno = ENOSYS, -1;
    before_exec(on_path(file));
    return real(file, argv);
}

SCOPE_API int fexecve(int fd, char *const argv[], char *const envp[]) {
    fexecve_fn real = (fexecve_fn)next_fn("fexecve");
    if (!real)
        return errno = ENOSYS, -1;
    before_exec(fd >= 0);
    return real(fd, argv, envp);
}

/* The l variants gather their arguments into an argv on the stack, as the
 * C library does, and go through the v variants above. */
#define MAX_LIST_ARGS 4096

static int gather(const char *arg0, va_list ap, char **argv, char *const **envp) {
    int n = 0;
    argv[n++] = (char *)arg0;
    while (arg0 && n < MAX_LIST_ARGS) {
        argv[n] = va_arg(ap, char *);
        if (!argv[n])
            break;
        n++;
    }
    if (n == MAX_LIST_ARGS)
        return errno = E2BIG, -1;
    argv[n] = NULL;
    if (envp)
        *envp = va_arg(ap, char *const *);
    return 0;
}

SCOPE_API int execl(const char *path, const char *arg, ...) {
    char *argv[MAX_LIST_ARGS + 1];
    va_list ap;
    va_start(ap, arg);
    int rc = gather(arg, ap, argv, NULL);
    va_end(ap);
    return rc < 0 ? rc : execv(path, argv);
}

SCOPE_API int execlp(const char *file, const char *arg, ...) {
    char *argv[MAX_LIST_ARGS + 1];
    va_list ap;
    va_start(ap, arg);
    int rc = gather(arg, ap, argv, NULL);
    va_end(ap);
    return rc < 0 ? rc : execvp(file, argv);
}

SCOPE_API int execle(const char *path, const char *arg, ...) {
    char *argv[MAX_LIST_ARGS + 1];
    char *const *envp = NULL;
    va_list ap;
    va_start(ap, arg);
    int rc = gather(arg, ap, argv, &envp);
    va_end(ap);
    return rc < 0 ? rc : execve(path, argv, envp);
}
