/* lines_package: the Debian package that installed a file; see
 * lines_package.h. */
#define _GNU_SOURCE /* realpath, getline */
#include "lines_package.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names one path may have in dpkg's lists: itself, its real path, and
 * each of those with the leading /usr added or taken away. */
#define MAX_NAMES 4
#define MAX_PATH  4096

typedef struct wanted {
    char names[MAX_NAMES][MAX_PATH];
    size_t nnames;
} wanted;

static void add_name(wanted *w, const char *p) {
    if (!p || p[0] != '/' || strlen(p) >= MAX_PATH || w->nnames >= MAX_NAMES)
        return;
    for (size_t i = 0; i < w->nnames; i++)
        if (!strcmp(w->names[i], p))
            return;
    strcpy(w->names[w->nnames++], p);
}

/* p, and p with its /usr toggled (merged /usr). */
static void add_merged(wanted *w, const char *p) {
    char other[MAX_PATH];
    add_name(w, p);
    if (!strncmp(p, "/usr/", 5))
        add_name(w, p + 4);
    else if (snprintf(other, sizeof other, "/usr%s", p) < (int)sizeof other)
        add_name(w, other);
}

/* Packages install under these folders only; a program built in a home or
 * project folder is not looked for (and costs no pass over the lists). */
static int system_path(const char *p) {
    static const char *const roots[] = {"/usr/", "/lib", "/bin/", "/sbin/", "/opt/"};
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++)
        if (!strncmp(p, roots[i], strlen(roots[i])))
            return 1;
    return 0;
}

static int is_list(const char *name) {
    size_t n = strlen(name);
    return n > 5 && !strcmp(name + n - 5, ".list");
}

void lines_package_owners(const char *const *paths, size_t n, char (*owners)[PACKAGE_NAME_MAX]) {
    wanted *want = calloc(n ? n : 1, sizeof *want);
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        owners[i][0] = '\0';
        if (!want || !paths[i] || !system_path(paths[i]))
            continue;
        add_merged(&want[i], paths[i]);
        char *real = realpath(paths[i], NULL);
        if (real)
            add_merged(&want[i], real);
        free(real);
        left += want[i].nnames > 0;
    }
    DIR *d = left ? opendir(DPKG_INFO_DIR) : NULL;
    char *line = NULL;
    size_t cap = 0, lists = 0, bytes = 0;
    struct dirent *e;
    while (d && left && lists < DPKG_MAX_LISTS && bytes < DPKG_MAX_BYTES && (e = readdir(d))) {
        if (!is_list(e->d_name))
            continue;
        char path[MAX_PATH];
        snprintf(path, sizeof path, "%s/%s", DPKG_INFO_DIR, e->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        lists++;
        ssize_t k;
        while (left && (k = getline(&line, &cap, f)) > 0 && bytes < DPKG_MAX_BYTES) {
            bytes += (size_t)k;
            if (line[k - 1] == '\n')
                line[--k] = '\0';
            for (size_t i = 0; i < n; i++) {
                if (owners[i][0])
                    continue;
                for (size_t j = 0; j < want[i].nnames; j++) {
                    if (strcmp(line, want[i].names[j]))
                        continue;
                    /* "liblzma5:amd64.list" -> "liblzma5" */
                    size_t len = strcspn(e->d_name, ":");
                    if (len > strlen(e->d_name) - 5)
                        len = strlen(e->d_name) - 5;
                    if (len >= PACKAGE_NAME_MAX)
                        len = PACKAGE_NAME_MAX - 1;
                    memcpy(owners[i], e->d_name, len);
                    owners[i][len] = '\0';
                    left--;
                    break;
                }
            }
        }
        fclose(f);
    }
    if (d)
        closedir(d);
    free(line);
    free(want);
}
