/*
 * `scope-tui export RUN --format FORMAT -o OUT`: the run in an exchange
 * format, one row of export_formats[] each (export_formats.h).
 *
 * OUT is written whole or not at all: the writer fills a temporary file
 * beside OUT, which replaces OUT only once the writer succeeded.
 *
 * Exit status: 0 written; 2 bad arguments, a run that cannot be read, or
 * an OUT that cannot be written (one line on stderr saying which).
 */
#define _GNU_SOURCE /* asprintf */
#include "cmd_util.h"
#include "commands.h"
#include "export_formats.h"
#include "text_escape.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const export_format *const export_formats[] = {
    &export_format_json,
    &export_format_hdf5,
    &export_format_chrome,
    NULL,
};

static void usage(FILE *f) {
    fputs("usage: scope-tui export RUN --format FORMAT -o OUT [--no-samples]\n\n"
          "Writes the run in an exchange format.  RUN is a run directory (or any path\n"
          "report reads).  OUT is replaced only when the export succeeds.\n\n"
          "Formats:\n",
          f);
    for (size_t i = 0; export_formats[i]; i++)
        fprintf(f, "  %-8s %s\n", export_formats[i]->name, export_formats[i]->summary);
    fputs("\nOptions:\n"
          "  -f, --format FORMAT  the format to write (above)\n"
          "  -o, --output OUT     the file to write\n"
          "  --no-samples         leave the resource samples out (loads faster)\n"
          "  -h, --help           this help\n",
          f);
}

static const export_format *find_format(const char *name) {
    for (size_t i = 0; export_formats[i]; i++)
        if (!strcmp(export_formats[i]->name, name))
            return export_formats[i];
    return NULL;
}

static void say(const char *what, const char *path, const char *why) {
    fputs("scope-tui export: ", stderr);
    fputs(what, stderr);
    scope_fput_escaped(stderr, (const uint8_t *)path, strlen(path), 0);
    fprintf(stderr, ": %s\n", why);
}

/* The temporary file beside out_path: "OUT.tmpXXXXXX", created empty with
 * the mode a new file gets.  Returns its descriptor, or -1 with errno. */
static int make_temp_beside(const char *out_path, char **tmp) {
    if (asprintf(tmp, "%s.tmpXXXXXX", out_path) < 0) {
        *tmp = NULL;
        errno = ENOMEM;
        return -1;
    }
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        free(*tmp);
        *tmp = NULL;
        return -1;
    }
    /* mkstemp makes it 0600; an export is an ordinary file of the user's. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    return fd;
}

int scope_cmd_export(int argc, char **argv) {
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"no-samples", no_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *format_name = NULL, *out_path = NULL;
    /* Every format exports events (trace events, each resource interval)
     * that a read from the newest snapshot leaves out. */
    run_options ro = {.read_all = 1};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            format_name = optarg;
            break;
        case 'o':
            out_path = optarg;
            break;
        case 'n':
            ro.no_samples = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            cmd_bad_option("export", c, argv);
            return 2;
        }
    }
    if (!cmd_one_run("export", argc - optind, "scope-tui export RUN --format FORMAT -o OUT"))
        return 2;
    if (!format_name) {
        fputs("scope-tui export: which format? (--format", stderr);
        for (size_t i = 0; export_formats[i]; i++)
            fprintf(stderr, "%s%s", i ? "|" : " ", export_formats[i]->name);
        fputs(")\n", stderr);
        return 2;
    }
    const export_format *fmt = find_format(format_name);
    if (!fmt) {
        fputs("scope-tui export: unknown format '", stderr);
        scope_fput_escaped(stderr, (const uint8_t *)format_name, strlen(format_name), 0);
        fputs("' (formats:", stderr);
        for (size_t i = 0; export_formats[i]; i++)
            fprintf(stderr, " %s", export_formats[i]->name);
        fputs(")\n", stderr);
        return 2;
    }
    if (!out_path || !*out_path) {
        fputs("scope-tui export: where to? (-o OUT)\n", stderr);
        return 2;
    }
    struct stat st;
    if (stat(out_path, &st) == 0 && S_ISDIR(st.st_mode)) {
        say("", out_path, "is a directory; -o wants a file");
        return 2;
    }

    run_model *m = cmd_load_run("export", argv[optind], &ro);
    if (!m)
        return 2;
    char *tmp = NULL;
    int fd = make_temp_beside(out_path, &tmp);
    if (fd < 0) {
        say("cannot write ", out_path, strerror(errno));
        run_free(m);
        return 2;
    }
    close(fd);
    char msg[1024] = "";
    int rc = fmt->write(m, argv[optind], tmp, msg, sizeof msg);
    run_free(m);
    if (rc == 0 && rename(tmp, out_path) != 0) {
        snprintf(msg, sizeof msg, "cannot write: %s", strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        unlink(tmp);
        say("", out_path, msg[0] ? msg : "the export failed");
    }
    free(tmp);
    return rc == 0 ? 0 : 2;
}
