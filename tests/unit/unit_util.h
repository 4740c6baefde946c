/* Small helpers shared by the unit tests: a scratch directory per test, and a
 * deterministic random source whose seed every failure message prints. */
#ifndef SCOPE_TESTS_UNIT_UTIL_H
#define SCOPE_TESTS_UNIT_UTIL_H

#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* splitmix64: the same sequence on every machine, so a seed in a failure
 * message reproduces the failure. */
static inline uint64_t unit_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A fresh directory under $TMPDIR (or /tmp), made with mkdtemp so parallel
 * test runs never share files. */
static inline void unit_tmpdir(char *dir, size_t len) {
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    snprintf(dir, len, "%s/scope-unit-XXXXXX", base);
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp(%s) failed", dir);
}

/* Removes the files of a directory made by unit_tmpdir, then the directory.
 * It holds only plain files, so one level is enough. */
static inline void unit_rmdir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static inline void unit_path(char *out, size_t len, const char *dir, const char *name) {
    snprintf(out, len, "%s/%s", dir, name);
}

/* Case-insensitive substring test for error messages, whose capitalization
 * is not part of any contract. */
static inline int unit_mentions(const char *msg, const char *word) {
    size_t n = strlen(word);
    for (const char *p = msg; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)word[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* Runs a suite and returns an exit status for CTest. */
static inline int unit_run(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists every test */
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
