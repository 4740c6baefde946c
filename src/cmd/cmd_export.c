/*
 * `scope-tui export RUN --format FORMAT -o OUT`: the run in an exchange
 * format, one row of export_formats[] each (export_formats.h).
 *
 * OUT is written whole or not at all: the writer fills a temporary file
 * beside OUT, which replaces OUT only once the writer succeeded.  That file
 * is created with O_EXCL (mkstemp) and written only through the descriptor
 * that created it: OUT's directory may be writable by others, who could
 * swap the name for a link to a file of the user's between a close and a
 * reopen.  It takes the mode of the OUT it replaces (a new OUT: 0666 less
 * the umask); an OUT that is not a regular file (a device, a pipe) is
 * refused, not replaced.  SIGTERM, SIGINT or SIGHUP while it exists removes
 * it before the signal ends the command as it would have.
 *
 * Exit status: 0 written; 2 bad arguments, a run that cannot be read, or
 * an OUT that cannot be written (one line on stderr saying which).
 */
#define _GNU_SOURCE /* asprintf */
#include "cmd_export.h"
#include "cmd_util.h"
#include "commands.h"
#include "export_formats.h"
#include "open_regular.h"
#include "text_escape.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

const export_format *const export_formats[] = {
    &export_format_json,
    &export_format_hdf5,
    &export_format_chrome,
    &export_format_speedscope,
    NULL,
};

static void usage(FILE *f) {
    fputs("usage: scope-tui export RUN --format FORMAT -o OUT [--no-samples] [--attempt N]\n\n"
          "Writes the run in an exchange format.  RUN is a run directory (or any path\n"
          "report reads).  OUT is replaced only when the export succeeds.\n\n"
          "Formats:\n",
          f);
    for (size_t i = 0; export_formats[i]; i++)
        fprintf(f, "  %-10s %s\n", export_formats[i]->name, export_formats[i]->summary);
    fputs("\nOptions:\n"
          "  -f, --format FORMAT  the format to write (above)\n"
          "  -o, --output OUT     the file to write\n"
          "  --no-samples         leave the resource samples out (loads faster)\n"
          "  --attempt N          the run's Nth attempt, 1 the oldest (default: the newest)\n"
          "  -h, --help           this help\n",
          f);
}

static const export_format *find_format(const char *name) {
    for (size_t i = 0; export_formats[i]; i++)
        if (!strcmp(export_formats[i]->name, name))
            return export_formats[i];
    return NULL;
}

static void say(const char *cmd, const char *what, const char *path, const char *why) {
    fprintf(stderr, "scope-tui %s: ", cmd);
    fputs(what, stderr);
    scope_fput_escaped(stderr, (const uint8_t *)path, strlen(path), 0);
    fprintf(stderr, ": %s\n", why);
}

/* ---- the temporary file, removed when a signal stops the export ------------- */

static const int stop_signals[] = {SIGTERM, SIGINT, SIGHUP};
#define NSTOP (sizeof stop_signals / sizeof *stop_signals)

/* The temporary file's path while it exists under its own name: set and
 * cleared with stop_signals blocked, so the handler sees a whole pointer to
 * a file that is there. */
static char *volatile temp_path;

static void remove_temp_and_stop(int sig) {
    char *p = temp_path;
    if (p)
        unlink(p);
    /* Ended by the signal itself, as without the handler: a shell sees
     * 128 + sig.  Blocked while this handler runs, it arrives on return. */
    signal(sig, SIG_DFL);
    raise(sig);
}

typedef cmd_stop_guard stop_guard;
_Static_assert(NSTOP == sizeof((stop_guard *)0)->old / sizeof *((stop_guard *)0)->old,
               "cmd_stop_guard holds each stop signal's old action");

/* Handles the stop signals that are not ignored (nohup's SIGHUP stays
 * ignored). */
static void guard_begin(stop_guard *g) {
    sigemptyset(&g->set);
    struct sigaction sa = {.sa_handler = remove_temp_and_stop};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSTOP; i++) {
        sigaddset(&g->set, stop_signals[i]);
        sigaddset(&sa.sa_mask, stop_signals[i]);
    }
    for (size_t i = 0; i < NSTOP; i++) {
        sigaction(stop_signals[i], NULL, &g->old[i]);
        if (g->old[i].sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
    }
}

static void guard_end(stop_guard *g) {
    for (size_t i = 0; i < NSTOP; i++)
        sigaction(stop_signals[i], &g->old[i], NULL);
}

/* Removes the temporary file, with the stop signals blocked so that the
 * handler removes nothing of the same name after it. */
static void remove_temp(stop_guard *g, const char *tmp) {
    sigset_t old;
    sigprocmask(SIG_BLOCK, &g->set, &old);
    unlink(tmp);
    temp_path = NULL;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The mode OUT is to have: the mode of the OUT it replaces (its permission
 * bits: set-id bits are not handed to new content), else what a new file
 * gets, 0666 less the umask. */
static mode_t out_mode(const struct stat *existing) {
    if (existing)
        return existing->st_mode & 0777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* The temporary file beside out_path: "OUT.tmpXXXXXX", created empty with
 * the given mode, its path set in temp_path.  Returns its descriptor, or -1
 * with errno. */
static int make_temp_beside(stop_guard *g, const char *out_path, mode_t mode, char **tmp) {
    if (asprintf(tmp, "%s.tmpXXXXXX", out_path) < 0) {
        *tmp = NULL;
        errno = ENOMEM;
        return -1;
    }
    sigset_t old;
    sigprocmask(SIG_BLOCK, &g->set, &old);
    int fd = mkostemp(*tmp, O_CLOEXEC);
    if (fd >= 0)
        temp_path = *tmp;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        free(*tmp);
        *tmp = NULL;
        return -1;
    }
    /* mkstemp makes it 0600. */
    fchmod(fd, mode);
    return fd;
}

/* Makes the written temporary file OUT: on disk first, so a crash cannot
 * leave an OUT whose content never reached it. */
static int replace_out(stop_guard *g, int fd, const char *tmp, const char *out_path, char *msg,
                       size_t msglen) {
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
        snprintf(msg, msglen, "cannot write: %s", strerror(errno));
        return -1;
    }
    sigset_t old;
    sigprocmask(SIG_BLOCK, &g->set, &old);
    int rc = rename(tmp, out_path);
    int saved = errno;
    if (rc == 0)
        temp_path = NULL;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        snprintf(msg, msglen, "cannot write: %s", strerror(saved));
    return rc;
}

int scope_cmd_export(int argc, char **argv) {
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
        {"no-samples", no_argument, NULL, 'n'},   CMD_ATTEMPT_OPTION,
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
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
        case 'A':
            if (cmd_parse_attempt("export", optarg, &ro) < 0)
                return 2;
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
    cmd_out out;
    if (cmd_export_check_out("export", out_path, &out) < 0)
        return 2;
    run_model *m = cmd_load_run("export", argv[optind], &ro);
    if (!m)
        return 2;
    int rc = cmd_export_write("export", fmt, m, argv[optind], &out);
    run_free(m);
    return rc == 0 ? 0 : 2;
}

int cmd_export_check_out(const char *cmd, const char *out_path, cmd_out *out) {
    out->path = out_path;
    out->exists = stat(out_path, &out->st) == 0;
    int exists = out->exists;
    struct stat st = out->st;
    if (exists && S_ISDIR(st.st_mode)) {
        say(cmd, "", out_path, "is a directory; -o wants a file");
        return -1;
    }
    /* Renamed over, a device or a pipe would become a regular file (as
     * root, -o /dev/null would replace /dev/null). */
    if (exists && !S_ISREG(st.st_mode)) {
        char why[120];
        snprintf(why, sizeof why, "is %s, not a regular file; -o wants a file",
                 open_regular_kind(st.st_mode));
        say(cmd, "", out_path, why);
        return -1;
    }
    return 0;
}

int cmd_export_write(const char *cmd, const export_format *fmt, const run_model *m, const char *run,
                     const cmd_out *out) {
    stop_guard guard;
    guard_begin(&guard);
    char *tmp = NULL;
    int fd = make_temp_beside(&guard, out->path, out_mode(out->exists ? &out->st : NULL), &tmp);
    if (fd < 0) {
        guard_end(&guard);
        say(cmd, "cannot write ", out->path, strerror(errno));
        return -1;
    }
    char msg[1024] = "";
    int rc = fmt->write(m, run, fd, msg, sizeof msg);
    if (rc == 0)
        rc = replace_out(&guard, fd, tmp, out->path, msg, sizeof msg);
    close(fd);
    if (rc != 0) {
        remove_temp(&guard, tmp);
        say(cmd, "", out->path, msg[0] ? msg : "the export failed");
    }
    guard_end(&guard);
    free(tmp);
    return rc == 0 ? 0 : -1;
}

FILE *cmd_output_open(const char *cmd, cmd_output *o, const char *path) {
    *o = (cmd_output){.f = stdout, .path = path};
    if (!path)
        return stdout;
    cmd_out out;
    if (cmd_export_check_out(cmd, path, &out) < 0)
        return NULL;
    guard_begin(&o->guard);
    int fd = make_temp_beside(&o->guard, path, out_mode(out.exists ? &out.st : NULL), &o->tmp);
    if (fd >= 0 && (o->f = fdopen(fd, "w")) != NULL)
        return o->f;
    int saved = fd >= 0 ? ENOMEM : errno;
    if (fd >= 0) {
        remove_temp(&o->guard, o->tmp);
        close(fd);
    }
    guard_end(&o->guard);
    free(o->tmp);
    o->tmp = NULL;
    say(cmd, "cannot write ", path, strerror(saved));
    return NULL;
}

int cmd_output_close(const char *cmd, cmd_output *o, int ok) {
    int bad = fflush(o->f) != 0 || ferror(o->f);
    if (!o->path) {
        if (bad)
            fprintf(stderr, "scope-tui %s: writing to standard output: %s\n", cmd, strerror(errno));
        return bad ? -1 : 0;
    }
    char msg[512] = "";
    if (bad)
        snprintf(msg, sizeof msg, "cannot write: %s", strerror(errno));
    int rc =
        ok && !bad ? replace_out(&o->guard, fileno(o->f), o->tmp, o->path, msg, sizeof msg) : -1;
    if (fclose(o->f) != 0 && rc == 0) /* renamed already: its content is on disk (fsync) */
        rc = 0;
    if (rc != 0)
        remove_temp(&o->guard, o->tmp);
    guard_end(&o->guard);
    free(o->tmp);
    o->tmp = NULL;
    if (rc == 0 || !ok)
        return 0; /* !ok: the command said why already */
    say(cmd, "", o->path, msg[0] ? msg : "cannot write");
    return -1;
}
