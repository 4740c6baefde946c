/*
 * `scope-tui record [-o RUN] [--hz N] -- CMD ARGS...`: runs a program that
 * was never instrumented under the recorder with line sampling on, then
 * says where the run is and prints its hottest lines.
 *
 * The recorder comes in through LD_PRELOAD (libscope starts itself when
 * preloaded with SCOPE_PROFILE=1); the environment carries SCOPE_* and the
 * preload to every child the program starts, so they are recorded into the
 * same run.  The exit status is the program's: its exit code, or 128 + N
 * when signal N ended it, as a shell reports it.
 */
#define _GNU_SOURCE
#include "cmd_util.h"
#include "commands.h"
#include "lines_text.h"
#include "run_lines.h"
#include "text_escape.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SCOPE_LIBDIR_FROM_BINDIR
#define SCOPE_LIBDIR_FROM_BINDIR "../lib"
#endif

#define LIBSCOPE  "libscope.so.0"
#define TOP_LINES 10

static void usage(FILE *f) {
    fputs("usage: scope-tui record [-o RUN] [--hz N] -- CMD [ARGS...]\n\n"
          "Runs CMD under the recorder with line sampling on (LD_PRELOAD of libscope, which\n"
          "follows every child CMD starts), then prints where the run is and its hottest\n"
          "lines.  CMD needs no change and no rebuild; build it with -g for lines.\n\n"
          "  -o, --output RUN  the run directory (default: a new scope-run-<run id> here); a\n"
          "                    directory that holds a run keeps it as an older attempt\n"
          "  --hz N            line samples per second of CPU time, 1 to 10000 (default\n"
          "                    997; SCOPE_LINES_HZ)\n"
          "  -h, --help        this help\n\n"
          "Environment: SCOPE_LIBSCOPE, the libscope.so to preload (default: the one\n"
          "installed beside scope-tui, or built beside it).\n\n"
          "Exit status: CMD's own, 128 + N when signal N ended it; 2 bad arguments or no\n"
          "libscope; 126 CMD could not be run, 127 CMD not found.\n",
          f);
}

/* The libscope to preload: $SCOPE_LIBSCOPE, else the installed one beside
 * this scope-tui (BINDIR/../LIBDIR), else the build tree's (the executable
 * in build/src or build/ui, the library in build/recorder).  0, or -1. */
static int find_libscope(char *out, size_t cap) {
    const char *env = getenv("SCOPE_LIBSCOPE");
    if (env && *env) {
        if (access(env, R_OK) != 0) {
            fprintf(stderr, "scope-tui record: SCOPE_LIBSCOPE=%s: %s\n", env, strerror(errno));
            return -1;
        }
        return snprintf(out, cap, "%s", env) < (int)cap ? 0 : -1;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    const char *tries[] = {SCOPE_LIBDIR_FROM_BINDIR, "../recorder"};
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s/%s", self, tries[i], LIBSCOPE);
        char real[PATH_MAX];
        if (realpath(path, real) && access(real, R_OK) == 0 &&
            snprintf(out, cap, "%s", real) < (int)cap)
            return 0;
    }
    fprintf(stderr, "scope-tui record: no %s beside %s (set SCOPE_LIBSCOPE to its path)\n",
            LIBSCOPE, self);
    return -1;
}

/* A run id as the recorder makes one (YYYYmmddTHHMM-xxxxxx). */
static void new_run_id(char *out, size_t cap) {
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32] = "00000000T0000";
    if (localtime_r(&now, &tm))
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M", &tm);
    uint32_t r = 0;
    if (getrandom(&r, sizeof r, 0) != sizeof r)
        r = (uint32_t)getpid() ^ (uint32_t)now;
    snprintf(out, cap, "%s-%06x", stamp, r & 0xffffffu);
}

static int set_env(const char *k, const char *v) {
    if (setenv(k, v, 1) == 0)
        return 0;
    fprintf(stderr, "scope-tui record: cannot set %s: %s\n", k, strerror(errno));
    return -1;
}

/* The environment of the program: libscope added to LD_PRELOAD after what
 * the user preloads already (a sanitizer's runtime must stay first), the
 * recorder on with lines, the run directory and id. */
static int prepare_env(const char *lib, const char *run, const char *run_id, const char *hz) {
    const char *old = getenv("LD_PRELOAD");
    char pre[PATH_MAX * 2];
    if (old && *old)
        snprintf(pre, sizeof pre, "%s:%s", old, lib);
    else
        snprintf(pre, sizeof pre, "%s", lib);
    if (set_env("LD_PRELOAD", pre) < 0 || set_env("SCOPE_PROFILE", "1") < 0 ||
        set_env("SCOPE_LINES", "1") < 0 || set_env("SCOPE_RUN_DIR", run) < 0 ||
        (run_id && set_env("SCOPE_RUN_ID", run_id) < 0) ||
        (hz && set_env("SCOPE_LINES_HZ", hz) < 0))
        return -1;
    return 0;
}

/* Runs argv and waits for it; the wait status, or -1.  While it runs, ^C
 * and ^\ are the program's to act on, as with system().  *never_ran is
 * set when argv could not be executed at all (a close-on-exec pipe carries
 * exec's errno back), so no run was even begun. */
static int run_program(char **argv, int *never_ran) {
    int report[2];
    *never_ran = 0;
    if (pipe2(report, O_CLOEXEC) < 0)
        report[0] = report[1] = -1;
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        execvp(argv[0], argv);
        int e = errno;
        /* Lost, the parent summarizes a run that is not there: no harm. */
        ssize_t sent = report[1] >= 0 ? write(report[1], &e, sizeof e) : 0;
        (void)sent;
        fputs("scope-tui record: cannot run '", stderr);
        scope_fput_escaped(stderr, (const uint8_t *)argv[0], strlen(argv[0]), 0);
        fprintf(stderr, "': %s\n", strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }
    int status = -1;
    if (report[1] >= 0)
        close(report[1]);
    if (pid > 0 && report[0] >= 0) {
        int e;
        ssize_t got;
        while ((got = read(report[0], &e, sizeof e)) < 0 && errno == EINTR)
            ;
        *never_ran = got == (ssize_t)sizeof e;
    }
    if (report[0] >= 0)
        close(report[0]);
    if (pid > 0) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    } else
        fprintf(stderr, "scope-tui record: fork: %s\n", strerror(errno));
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return pid > 0 ? status : -1;
}

/* Where the run is and its hottest lines, on stderr (stdout is the
 * program's). */
static void summarize(const char *run) {
    char msg[1024];
    run_model *m = NULL;
    struct stat st;
    /* No directory, no path: one that is not there is no run to look in. */
    if (stat(run, &st) != 0) {
        fputs("\nscope-tui record: nothing was recorded (the program never started the "
              "recorder)\n",
              stderr);
        return;
    }
    fputs("\nscope-tui record: the run is in ", stderr);
    scope_fput_escaped(stderr, (const uint8_t *)run, strlen(run), 0);
    fputs("\n", stderr);
    if (run_load(run, NULL, &m, msg, sizeof msg) != RUN_OK) {
        fprintf(stderr, "scope-tui record: nothing was recorded: %s\n", msg);
        return;
    }
    if (m->nattempts > 1) {
        /* Recording into a directory that holds a run keeps that run: the
         * directory holds one attempt per recording (docs/lines.md). */
        fprintf(stderr,
                "scope-tui record: the directory already held %zu earlier attempt%s, kept; this "
                "run is attempt %zu, the one every command shows (--attempt N, or A in the "
                "browser's Overview, shows another)\n",
                m->nattempts - 1, m->nattempts == 2 ? "" : "s", m->nattempts);
    }
    run_lines_info info;
    run_lines_result r = {0};
    run_lines_query q = {.worker = SIZE_MAX};
    if (run_lines_load(m, NULL, &info, msg, sizeof msg) < 0)
        fprintf(stderr, "scope-tui record: %s\n", msg);
    else if (!info.has_lines)
        fputs("scope-tui record: the run has no line samples (a static or setuid program "
              "ignores LD_PRELOAD)\n",
              stderr);
    else if (run_lines_select(m, &q, &r, msg, sizeof msg) < 0)
        fprintf(stderr, "scope-tui record: %s\n", msg);
    else {
        lines_text_opts o = {.top = TOP_LINES};
        fputs("\n", stderr);
        lines_text_heading(stderr, &info, &r, q.attr, &o);
        lines_text_top(stderr, m, &r, &o);
        lines_text_caveats(stderr, m);
        fputs("\nMore: scope-tui lines ", stderr);
        scope_fput_escaped(stderr, (const uint8_t *)run, strlen(run), 0);
        fputs("   (the browser: scope-tui ", stderr);
        scope_fput_escaped(stderr, (const uint8_t *)run, strlen(run), 0);
        fputs(", then H)\n", stderr);
    }
    run_lines_free(&r);
    run_free(m);
}

int scope_cmd_record(int argc, char **argv) {
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"hz", required_argument, NULL, 'z'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *hz = NULL;
    int c;
    optind = 1;
    opterr = 0;
    /* '+': options end at the first argument, so CMD's own options are its own. */
    while ((c = getopt_long(argc, argv, "+:ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!*optarg) {
                fprintf(stderr, "scope-tui record: -o wants a directory\n");
                return 2;
            }
            out = optarg;
            break;
        case 'z': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 10000) {
                fprintf(stderr, "scope-tui record: --hz wants a number from 1 to 10000\n");
                return 2;
            }
            hz = optarg;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        default:
            cmd_bad_option("record", c, argv);
            return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "scope-tui record: which program? (scope-tui record -- CMD ARGS...)\n");
        return 2;
    }
    char lib[PATH_MAX];
    if (find_libscope(lib, sizeof lib) < 0)
        return 2;
    char run_id[64] = "", dir[PATH_MAX];
    if (out) {
        char cwd[PATH_MAX];
        if (out[0] != '/' && !getcwd(cwd, sizeof cwd)) {
            fprintf(stderr, "scope-tui record: getcwd: %s\n", strerror(errno));
            return 2;
        }
        if ((size_t)snprintf(dir, sizeof dir, "%s%s%s", out[0] == '/' ? "" : cwd,
                             out[0] == '/' ? "" : "/", out) >= sizeof dir) {
            fprintf(stderr, "scope-tui record: -o: the path is too long\n");
            return 2;
        }
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            fprintf(stderr, "scope-tui record: getcwd: %s\n", strerror(errno));
            return 2;
        }
        new_run_id(run_id, sizeof run_id);
        if (strlen(cwd) + strlen(run_id) + 12 >= sizeof dir) {
            fprintf(stderr, "scope-tui record: the working directory's path is too long\n");
            return 2;
        }
        snprintf(dir, sizeof dir, "%.*s/scope-run-%s", (int)(sizeof dir - 80), cwd, run_id);
    }
    if (prepare_env(lib, dir, run_id[0] ? run_id : NULL, hz) < 0)
        return 2;
    int never_ran;
    int status = run_program(argv + optind, &never_ran);
    if (status < 0)
        return 2;
    if (!never_ran) /* else its error says it all: nothing ran, nothing was recorded */
        summarize(dir);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
