/*
 * The reduction of reduce_run.h.  What each rank sends rank 0 is one
 * message: a tag byte, then
 *   'H'  its part's model as scope's HDF5 /summary (the bytes of the file);
 *   'N'  nothing: its part of the run holds no log;
 *   'E'  one line saying why its part could not be read.
 * Every rank always sends, so a rank that fails never leaves the others
 * waiting; rank 0 then says why and writes nothing.  A rank that dies
 * (killed, out of memory) is the launcher's to see: mpiexec and srun end
 * the job with a non-zero status, and SUMMARY, written by rank 0 only after
 * every part arrived, is left as it was.
 */
#include "reduce_run.h"

#include "cmd_export.h"
#include "cmd_util.h"
#include "commands.h"
#include "export_formats.h"
#include "reduce_scratch.h"
#include "run_builder.h"
#include "run_dir_loader.h"
#include "run_h5_loader.h"
#include "text_escape.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { PART_MODEL = 'H', PART_NONE = 'N', PART_ERROR = 'E' };

static void usage(FILE *f) {
    fputs("usage: scope-tui reduce RUN -o SUMMARY [--all-frames] [--no-samples] [--times]\n"
          "       mpiexec -n N scope-reduce RUN -o SUMMARY [OPTIONS]\n\n"
          "Reads a run directory in parts, one a rank, and writes SUMMARY: the run's\n"
          "model in scope's HDF5 layout (docs/hdf5.md), which report, compare, check\n"
          "and the browser open as they open RUN.  Each rank reads about an\n"
          "equal share of the logs' bytes, whole host folders where there are enough\n"
          "of them.  scope-tui reduce is one rank; scope-reduce is the same under MPI.\n"
          "SUMMARY is replaced only when the reduction succeeds.\n\n"
          "Options:\n"
          "  -o, --output SUMMARY  the file to write\n"
          "  --all-frames          read every frame of every log, as export does, not\n"
          "                        from each log's newest snapshot as report does\n"
          "  --no-samples          leave the resource samples out\n"
          "  --times               each rank's steps and their seconds, on stderr\n"
          "  -h, --help            this help\n",
          f);
}

/* A message of tag and text, malloc'd: *len set. */
static void *error_part(size_t *len, const char *text) {
    size_t n = strlen(text);
    char *p = malloc(n + 1);
    if (!p) {
        *len = 0;
        return NULL;
    }
    p[0] = PART_ERROR;
    memcpy(p + 1, text, n);
    *len = n + 1;
    return p;
}

/* The bytes of file descriptor fd after a tag byte, malloc'd. */
static void *file_part(int fd, size_t *len, char *msg, size_t msglen) {
    struct stat st;
    if (fstat(fd, &st) < 0) {
        snprintf(msg, msglen, "cannot read its HDF5 part back");
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    uint8_t *p = malloc(n + 1);
    if (!p) {
        snprintf(msg, msglen, "out of memory");
        return NULL;
    }
    p[0] = PART_MODEL;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, p + 1 + got, n - got, (off_t)got);
        if (r <= 0) {
            free(p);
            snprintf(msg, msglen, "cannot read its HDF5 part back");
            return NULL;
        }
        got += (size_t)r;
    }
    *len = n + 1;
    return p;
}

/* A debugging knob for the tests of a rank that dies (docs/reduce.md):
 * SCOPE_REDUCE_ABORT_RANK=R makes rank R abort once its part is read. */
static void abort_if_asked(unsigned rank) {
    const char *s = getenv("SCOPE_REDUCE_ABORT_RANK");
    if (s && *s) {
        char *end;
        unsigned long r = strtoul(s, &end, 10);
        if (!*end && r == rank) {
            fprintf(stderr, "scope-reduce: rank %u aborts (SCOPE_REDUCE_ABORT_RANK)\n", rank);
            abort();
        }
    }
}

/* This rank's part of run as a model (*m): of the cut (run_dir_cut's
 * bytes) when there is one, else the whole run.  0, 1 when the part holds
 * no log, -1 with msg set. */
static int load_part(const reduce_comm *c, const char *run, const run_options *ro, const char *cut,
                     size_t cutlen, run_model **m, char *msg, size_t msglen) {
    run_model_builder *b = run_builder_new(run, ro);
    if (!b) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    size_t nread = 0;
    enum run_load_error e =
        cut ? run_dir_load_cut(b, run, ro, cut, cutlen, c->rank, &nread, msg, msglen)
            : run_dir_load_part(b, run, ro, 0, 1, &nread, msg, msglen);
    if (e != RUN_OK || nread == 0) {
        run_builder_abandon(b);
        return e != RUN_OK ? -1 : 1;
    }
    if (run_builder_finish(b, m, msg, msglen) != RUN_OK)
        return -1;
    abort_if_asked(c->rank);
    return 0;
}

/* This rank's part of run as a message (*len bytes). */
static void *read_part(const reduce_comm *c, const char *run, const run_options *ro,
                       const char *cut, size_t cutlen, size_t *len) {
    char msg[1024] = "";
    run_model *m = NULL;
    int got = load_part(c, run, ro, cut, cutlen, &m, msg, sizeof msg);
    if (got < 0)
        return error_part(len, msg);
    if (got > 0) {
        uint8_t *none = malloc(1);
        if (none)
            *none = PART_NONE;
        *len = none ? 1 : 0;
        return none;
    }
    void *part = NULL;
    char dir[4096], file[4200];
    int fd = scratch_open(dir, sizeof dir, file, sizeof file);
    if (fd < 0)
        snprintf(msg, sizeof msg, "cannot make a scratch file for its part in $TMPDIR or /tmp");
    else if (export_format_hdf5_part.write(m, run, fd, msg, sizeof msg) == 0)
        part = file_part(fd, len, msg, sizeof msg);
    scratch_close(fd, dir, file);
    run_free(m);
    return part ? part : error_part(len, msg[0] ? msg : "its part could not be written");
}

/* Rank 0: the parts read back, in rank order, each as one partial model,
 * and merged into one model of run (run_builder_finish_parts). */
static run_model *merge_parts(const reduce_comm *c, const char *run, const run_options *ro,
                              void **parts, const size_t *lens) {
    char msg[1024] = "";
    for (unsigned r = 0; r < c->size; r++)
        if (!lens[r] || ((uint8_t *)parts[r])[0] == PART_ERROR) {
            fprintf(stderr, "scope-tui reduce: rank %u: %.*s\n", r,
                    lens[r] ? (int)(lens[r] - 1) : 13,
                    lens[r] ? (char *)parts[r] + 1 : "out of memory");
            return NULL;
        }
    run_model_builder *b = run_builder_new(run, ro);
    if (!b) {
        fputs("scope-tui reduce: out of memory\n", stderr);
        return NULL;
    }
    for (unsigned r = 0; r < c->size; r++) {
        if (((uint8_t *)parts[r])[0] != PART_MODEL)
            continue;
        char dir[4096], path[4200];
        int fd = scratch_open(dir, sizeof dir, path, sizeof path);
        size_t n = lens[r] - 1, put = 0;
        while (fd >= 0 && put < n) {
            ssize_t w = write(fd, (char *)parts[r] + 1 + put, n - put);
            if (w <= 0)
                break;
            put += (size_t)w;
        }
        enum run_load_error e =
            fd >= 0 && put == n ? run_h5_loader.load(b, path, ro, msg, sizeof msg) : RUN_ERR_IO;
        scratch_close(fd, dir, path);
        free(parts[r]);
        parts[r] = NULL;
        if (e != RUN_OK) {
            fprintf(stderr, "scope-tui reduce: rank %u's part: %s\n", r,
                    msg[0] ? msg : "cannot make a scratch file in $TMPDIR or /tmp");
            run_builder_abandon(b);
            return NULL;
        }
    }
    run_model *m = NULL;
    if (run_builder_finish(b, &m, msg, sizeof msg) != RUN_OK) {
        fprintf(stderr, "scope-tui reduce: %s\n", msg);
        return NULL;
    }
    return m;
}

/* --times: each step's seconds on stderr, for the scaling model of
 * docs/reduce.md. */
typedef struct step_clock {
    unsigned rank;
    int on;
    double t, cpu; /* when the step began: wall, and this process's CPU (all threads) */
} step_clock;

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void) {
    return clock_s(CLOCK_MONOTONIC);
}

static void step_done(step_clock *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step_done(step_clock *k, const char *fmt, ...) {
    double t = now_s(), cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (k->on) {
        char what[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        fprintf(stderr, "scope-reduce: rank %u: %.3f s (CPU %.3f s): %s\n", k->rank, t - k->t,
                cpu - k->cpu, what);
    }
    k->t = t;
    k->cpu = cpu;
}

/* SUMMARY from the merged model, which it frees: the exit status. */
static int write_summary(step_clock *clock, run_model *m, const char *run, const cmd_out *out) {
    int rc = cmd_export_write("reduce", &export_format_hdf5_summary, m, run, out);
    step_done(clock, "wrote SUMMARY");
    run_free(m);
    return rc == 0 ? 0 : 2;
}

int reduce_main(int argc, char **argv, const reduce_comm *c) {
    int say_times = 0;
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"no-samples", no_argument, NULL, 'n'},
        {"all-frames", no_argument, NULL, 'a'},   {"times", no_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    /* As report reads a run (each log from its newest snapshot), so that
     * SUMMARY's figures are report's; --all-frames as export reads it. */
    run_options ro = {0};
    const char *out_path = NULL;
    int c_opt;
    optind = 1;
    opterr = 0;
    while ((c_opt = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c_opt) {
        case 'o':
            out_path = optarg;
            break;
        case 'n':
            ro.no_samples = 1;
            break;
        case 'a':
            ro.read_all = 1;
            break;
        case 't':
            say_times = 1;
            break;
        case 'h':
            if (c->rank == 0)
                usage(stdout);
            return 0;
        default:
            if (c->rank == 0)
                cmd_bad_option("reduce", c_opt, argv);
            return 2;
        }
    }
    if (argc - optind != 1) {
        if (c->rank == 0)
            cmd_one_run("reduce", argc - optind, "scope-tui reduce RUN -o SUMMARY");
        return 2;
    }
    if (!out_path || !*out_path) {
        if (c->rank == 0)
            fputs("scope-tui reduce: where to? (-o SUMMARY)\n", stderr);
        return 2;
    }
    const char *run = argv[optind];
    struct stat st;
    if (stat(run, &st) == 0 && !S_ISDIR(st.st_mode)) {
        /* The loader would say what a file is not; what reduce reads is
         * one thing. */
        if (c->rank == 0) {
            fputs("scope-tui reduce: ", stderr);
            scope_fput_escaped(stderr, (const uint8_t *)run, strlen(run), 0);
            fputs(" is a file: reduce reads a run directory (a file that report reads opens "
                  "as it is)\n",
                  stderr);
        }
        return 2;
    }
    /* Rank 0 checks SUMMARY before anyone reads, and every rank learns. */
    cmd_out out = {0};
    int go = c->rank == 0 ? cmd_export_check_out("reduce", out_path, &out) == 0 : 1;
    if (c->size > 1)
        c->broadcast(c->ctx, &go);
    if (!go)
        return 2;

    step_clock clock = {c->rank, say_times, now_s(), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
    run_model *m = NULL;
    if (c->size == 1) {
        /* One rank: its part is the whole run, already merged. */
        char why[1024] = "";
        if (load_part(c, run, &ro, NULL, 0, &m, why, sizeof why) != 0) {
            fprintf(stderr, "scope-tui reduce: %s\n", why);
            return 2;
        }
        step_done(&clock, "read and merged %zu processes", m->nworkers);
        return write_summary(&clock, m, run, &out);
    }
    guard_scratch();
    /* Rank 0 lists and cuts, once: a run still being written would give
     * ranks listing it apart different lists. */
    void *cut = NULL;
    size_t cutlen = 0;
    if (c->rank == 0) {
        char why[1024] = "";
        if (run_dir_cut(run, c->size, (char **)&cut, &cutlen, why, sizeof why) < 0) {
            size_t n = strlen(why);
            cut = malloc(n + 2);
            if (cut) {
                ((char *)cut)[0] = PART_ERROR;
                memcpy((char *)cut + 1, why, n + 1);
            }
            cutlen = cut ? n + 2 : 0;
        }
    }
    if (c->broadcast_bytes(c->ctx, &cut, &cutlen) < 0 || !cut || !cutlen ||
        ((char *)cut)[0] == PART_ERROR) {
        if (c->rank == 0)
            fprintf(stderr, "scope-tui reduce: %.*s\n", cut && cutlen ? (int)(cutlen - 1) : 13,
                    cut && cutlen ? (char *)cut + 1 : "out of memory");
        free(cut);
        return 2;
    }
    step_done(&clock, "%s the cut (%zu bytes)", c->rank ? "received" : "listed the logs and sent",
              cutlen);
    size_t len = 0;
    void *part = read_part(c, run, &ro, cut, cutlen, &len);
    free(cut);
    step_done(&clock, "read its part and wrote it as HDF5 (%zu bytes)", len);
    void **parts = NULL;
    size_t *lens = NULL;
    char msg[512] = "";
    if (c->gather(c->ctx, part, len, &parts, &lens, msg, sizeof msg) < 0) {
        fprintf(stderr, "scope-tui reduce: rank %u: %s\n", c->rank, msg);
        return 2;
    }
    step_done(&clock, "%s", c->rank ? "sent its part to rank 0" : "gathered the parts");
    if (c->rank != 0)
        return 0;
    m = merge_parts(c, run, &ro, parts, lens);
    step_done(&clock, "merged %zu processes", m ? m->nworkers : 0);
    for (unsigned r = 0; r < c->size; r++)
        free(parts[r]);
    free(parts);
    free(lens);
    return m ? write_summary(&clock, m, run, &out) : 2;
}

/* ---- `scope-tui reduce`: one rank, without MPI ------------------------------- */

int scope_cmd_reduce(int argc, char **argv) {
    reduce_comm alone = {.rank = 0, .size = 1};
    return reduce_main(argc, argv, &alone);
}
