/* Checks shared by the scope-profiler import tests (test_sp_import.c,
 * test_sp_lineprof.c): a command's output, and a bad file refused in one
 * line by run_load and by `scope-tui report`. */
#ifndef SCOPE_TESTS_SP_CHECK_H
#define SCOPE_TESTS_SP_CHECK_H

#include "run_load.h"
#include "unit_util.h"

#include <sys/wait.h>

/* The output of a shell command line (its first 64 KiB) and its exit
 * status. */
static inline char *sp_output_of(const char *cmd, int *status) {
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    while (n + 1 < cap && (n += fread(out + n, 1, cap - 1 - n, p)) && !feof(p))
        ;
    out[n] = '\0';
    *status = pclose(p);
    return out;
}

/* The file err (a command's stderr) is one line holding path and want. */
static inline void sp_one_line(const char *err, const char *path, const char *want) {
    FILE *fp = fopen(err, "r");
    ck_assert_ptr_nonnull(fp);
    char line[2048], more[16];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
    ck_assert_msg(!fgets(more, sizeof more, fp), "%s: more than one line on stderr", path);
    fclose(fp);
    ck_assert_msg(strstr(line, path) && strstr(line, want), "%s: '%s' lacks '%s'", path, line,
                  want);
}

/* path is refused with a message holding want and the path: by run_load,
 * and by `scope-tui report` (scope_tui) in exactly one line on stderr and
 * exit status 2.  scratch: a folder for that stderr. */
static inline void sp_refused(const char *scope_tui, const char *scratch, const char *path,
                              const char *want) {
    run_model *m = NULL;
    char msg[1024];
    enum run_load_error e = run_load(path, NULL, &m, msg, sizeof msg);
    ck_assert_msg(e != RUN_OK, "%s loaded", path);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(msg, want) && strstr(msg, path), "%s: '%s' lacks '%s'", path, msg, want);

    char err[700], cmd[3000];
    snprintf(err, sizeof err, "%s/stderr.txt", scratch);
    snprintf(cmd, sizeof cmd, "'%s' report '%s' >/dev/null 2>'%s'", scope_tui, path, err);
    int st = system(cmd);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: exit status %d", path, st);
    sp_one_line(err, path, want);
}

/* A fresh scratch folder under $TMPDIR (or /tmp) named after name, made
 * before the suite runs (no check may fail there).  0, or -1 with errno. */
static inline int sp_make_scratch(char *dir, size_t cap, const char *name) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, cap, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    return mkdtemp(dir) ? 0 : -1;
}

/* Removes the scratch folder and what the tests left in it. */
static inline void sp_remove_scratch(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

#endif
