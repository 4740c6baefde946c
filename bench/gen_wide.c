/*
 * scope_gen_wide: writes a run whose processes each define many phase nodes,
 * in the real log format through the real writer (formats/log_writer.c), for
 * what the reader holds per node (bench/bench_wide.sh, tests/analysis).
 *
 *   scope_gen_wide --out RUN [--nodes N] [--procs P] [--forged] [--bins B]
 *
 * Honest (the default): the log of a program that names every request
 * ("request-0000002", ...) under one "serve" phase, as the recorder writes
 * it: frame 0 holds the PROCESS record, then 16 periodic frames, 5 s apart,
 * define the nodes in order with their names and aggregates; the exit frame
 * sends every histogram and a shutdown mark; a snapshot frame restates it
 * all (docs/format.md 5.2.1).  Node k (2 .. N) is entered 1 + k % 3 times
 * for d(k) = 1000 + 97 ((k * 7919) % 1000) ns each, and every fourth node twice
 * more for 3 d(k): one or two histogram buckets, and wait 50%.  "serve"
 * (node 1) is entered once and holds every request plus 1 ms of its own.
 * The same arguments give the same bytes: a test knows every figure.
 *
 * Forged (--forged): what a hostile writer can make cheap.  Two names, "a"
 * and "b", and node k's parent is k / 2, so the N nodes form a binary tree
 * whose every node has a path of its own (a distinct phase after merging);
 * each has one entry and B histogram buckets (default 1).  A few bytes of
 * the file per node, under the reader's inflation limits (docs/format.md,
 * "The reader's limits"), so that the log is read, not refused as damage.
 * No snapshot.
 *
 * Every process is one log of the same shape under RUN/workers/node01/,
 * pids 1000, 1001, ...: P processes hold P times the nodes.
 */
#include <scope/log_format.h>
#include <scope/log_hist.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEC       1000000000ull
#define WALL0     (1796040000ull * SEC) /* 2026-11-30T12:00:00Z: fixed, so the bytes are */
#define MONO0     (1000 * SEC)
#define NFRAMES   16      /* periodic frames defining the nodes */
#define PER_FRAME 200000u /* forged nodes per frame: well under the frame size limit */
#define MAX_BINS  SCOPE_HIST_BUCKETS

#define B(s) ((scope_bytes){(const uint8_t *)(s), strlen(s)})

typedef struct gen {
    const char *out;
    uint32_t nodes, procs, bins;
    int forged;
    int pid;
    scope_log_writer *w;
    const char *path;
} gen;

static int fail(const gen *g, const char *what, int err) {
    fprintf(stderr, "scope_gen_wide: %s: %s: %s\n", g->path ? g->path : g->out, what,
            strerror(err));
    return -1;
}

static int add(gen *g, const scope_record *r) {
    int rc = scope_log_writer_add(g->w, r);
    return rc < 0 ? fail(g, "adding a record", -rc) : 0;
}

static int close_frame(gen *g, uint32_t reason, uint32_t flags, uint64_t at_ns) {
    long rc = scope_log_writer_close_frame_flags(g->w, reason, flags, MONO0 + at_ns, WALL0 + at_ns);
    return rc < 0 ? fail(g, "writing a frame", (int)-rc) : 0;
}

/* ---- the honest program's figures ---------------------------------------- */

static uint64_t dur_of(uint32_t k) {
    return 1000 + (uint64_t)k * 7919 % 1000 * 97;
}

/* Node k's aggregate (k >= 2): 1 + k % 3 entries of d, and every fourth
 * node two of 3 d; bins only when `with_bins`. */
static scope_rec_phase_agg request_agg(uint32_t k, int with_bins, scope_hist_bin *bins) {
    uint64_t d = dur_of(k), n = 1 + k % 3, slow = k % 4 == 0 ? 2 : 0;
    uint64_t count = n + slow, wall = n * d + slow * 3 * d;
    scope_rec_phase_agg a = {.node = k,
                             .count = count,
                             .wall_ns = wall,
                             .min_ns = d,
                             .max_ns = slow ? 3 * d : d,
                             .cpu_count = count,
                             .cpu_wall_ns = wall,
                             .cpu_ns = wall / 2};
    if (with_bins) {
        bins[0] = (scope_hist_bin){scope_hist_bucket(d), n};
        a.nbins = 1;
        if (slow) {
            uint32_t b = scope_hist_bucket(3 * d);
            if (b == bins[0].bucket)
                bins[0].count += slow;
            else
                bins[a.nbins++] = (scope_hist_bin){b, slow};
        }
        a.bins = bins;
    }
    return a;
}

/* "serve": once, around every request defined so far, and 1 ms of its own. */
static scope_rec_phase_agg serve_agg(uint32_t defined, int with_bins, scope_hist_bin *bin) {
    uint64_t wall = 1000000;
    for (uint32_t k = 2; k <= defined; k++) {
        scope_hist_bin tmp[2];
        wall += request_agg(k, 0, tmp).wall_ns;
    }
    scope_rec_phase_agg a = {.node = 1,
                             .count = 1,
                             .wall_ns = wall,
                             .min_ns = wall,
                             .max_ns = wall,
                             .cpu_count = 1,
                             .cpu_wall_ns = wall,
                             .cpu_ns = wall / 2};
    if (with_bins) {
        *bin = (scope_hist_bin){scope_hist_bucket(wall), 1};
        a.nbins = 1;
        a.bins = bin;
    }
    return a;
}

static int add_process(gen *g) {
    char uuid[16], exe[] = "/usr/local/bin/wide-server";
    snprintf(uuid, sizeof uuid, "%08x", 0x51de0000u + (unsigned)g->pid);
    scope_kv settings[] = {{B("frame_interval_s"), B("auto")}};
    scope_bytes argv[] = {B(exe)};
    scope_record r = {.type = SCOPE_REC_PROCESS};
    r.u.process = (scope_rec_process){
        .run_id = B("20261130T1200-w1de00"),
        .uuid = B(uuid),
        .host = B("node01"),
        .role = B(g->forged ? "forged" : "wide"),
        .job_id = B(""),
        .step_id = B(""),
        .exe = B(exe),
        .cwd = B("/srv"),
        .recorder_version = B("gen_wide"),
        .pid = g->pid,
        .ppid = 1,
        .rank = -1,
        .local_rank = -1,
        .node_rank = -1,
        .world_size = -1,
        .start_wall_ns = WALL0,
        .start_mono_ns = MONO0,
        .argc = 1,
        .argv = argv,
        .nsettings = 1,
        .settings = settings,
        .launcher = B(""),
        .array_job_id = B(""),
        .array_task = -1,
        .restarts = -1,
    };
    if (add(g, &r) < 0)
        return -1;
    r = (scope_record){.type = SCOPE_REC_THREAD};
    r.u.thread = (scope_rec_thread){1, g->pid, MONO0, B("main")};
    return add(g, &r);
}

static int add_string(gen *g, uint32_t id, const char *s) {
    scope_record r = {.type = SCOPE_REC_STRING};
    r.u.string = (scope_rec_string){id, B(s)};
    return add(g, &r);
}

static int add_node(gen *g, uint32_t id, uint32_t parent, uint32_t name, uint32_t file,
                    uint32_t line) {
    scope_record r = {.type = SCOPE_REC_PHASE_NODE};
    r.u.phase_node = (scope_rec_phase_node){id, parent, name, 1, 0, file, line};
    return add(g, &r);
}

static int add_agg(gen *g, const scope_rec_phase_agg *a) {
    scope_record r = {.type = SCOPE_REC_PHASE_AGG};
    r.u.phase_agg = *a;
    return add(g, &r);
}

/* String ids: 1 "serve", 2 "server.c", k + 1 the name of node k >= 2. */
static int define_request(gen *g, uint32_t k) {
    char name[32];
    snprintf(name, sizeof name, "request-%07" PRIu32, k);
    return add_string(g, k + 1, name) < 0 || add_node(g, k, 1, k + 1, 2, 100 + k % 900) < 0 ? -1
                                                                                            : 0;
}

static int add_shutdown(gen *g, uint32_t type, uint64_t at_ns) {
    scope_record r = {.type = type};
    r.u.mark = (scope_rec_mark){.kind = SCOPE_MARK_SHUTDOWN, .mono_ns = MONO0 + at_ns};
    return add(g, &r);
}

static int write_honest(gen *g) {
    scope_hist_bin bins[2];
    if (add_process(g) < 0 || add_string(g, 1, "serve") < 0 || add_string(g, 2, "server.c") < 0 ||
        add_node(g, 1, 0, 1, 2, 42) < 0 || close_frame(g, SCOPE_FRAME_PERIODIC, 0, SEC / 10) < 0)
        return -1;
    uint32_t defined = 1;
    for (uint32_t f = 1; f <= NFRAMES; f++) {
        uint32_t upto = (uint32_t)((uint64_t)g->nodes * f / NFRAMES);
        for (uint32_t k = defined + 1; k <= upto; k++) {
            scope_rec_phase_agg a = request_agg(k, 0, bins);
            if (define_request(g, k) < 0 || add_agg(g, &a) < 0)
                return -1;
        }
        defined = upto > defined ? upto : defined;
        scope_rec_phase_agg s = serve_agg(defined, 0, bins);
        if (add_agg(g, &s) < 0 || close_frame(g, SCOPE_FRAME_PERIODIC, 0, f * 5 * SEC) < 0)
            return -1;
    }
    uint64_t end = (NFRAMES + 1) * 5 * SEC;
    /* The exit frame: every histogram, then the snapshot restating it all. */
    for (int snap = 0; snap < 2; snap++) {
        if (snap && (add_process(g) < 0 || add_string(g, 1, "serve") < 0 ||
                     add_string(g, 2, "server.c") < 0 || add_node(g, 1, 0, 1, 2, 42) < 0))
            return -1;
        scope_rec_phase_agg s = serve_agg(defined, 1, bins);
        if (add_agg(g, &s) < 0)
            return -1;
        for (uint32_t k = 2; k <= defined; k++) {
            scope_rec_phase_agg a = request_agg(k, 1, bins);
            if ((snap && define_request(g, k) < 0) || add_agg(g, &a) < 0)
                return -1;
        }
        if (add_shutdown(g, snap ? SCOPE_REC_MARK_STATE : SCOPE_REC_MARK, end) < 0 ||
            close_frame(g, SCOPE_FRAME_EXIT, snap ? SCOPE_FRAME_F_SNAPSHOT : 0, end) < 0)
            return -1;
    }
    return 0;
}

/* ---- the forged log ---------------------------------------------------------- */

static int write_forged(gen *g) {
    static scope_hist_bin bins[MAX_BINS];
    for (uint32_t b = 0; b < g->bins; b++)
        bins[b] = (scope_hist_bin){b, 1};
    if (add_process(g) < 0 || add_string(g, 1, "a") < 0 || add_string(g, 2, "b") < 0)
        return -1;
    uint64_t x = 0x9e3779b97f4a7c15ull; /* some entropy, so the frames stay under the
                                            reader's inflation limit */
    for (uint32_t k = 1; k <= g->nodes; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t d = 1000 + (x & 0xf);
        scope_rec_phase_agg a = {.node = k,
                                 .count = g->bins,
                                 .wall_ns = d * g->bins,
                                 .min_ns = d,
                                 .max_ns = d,
                                 .nbins = g->bins,
                                 .bins = bins};
        if (add_node(g, k, k / 2, 1 + (k & 1), 0, 0) < 0 || add_agg(g, &a) < 0)
            return -1;
        if (k % PER_FRAME == 0 && close_frame(g, SCOPE_FRAME_PERIODIC, 0, k / PER_FRAME * SEC) < 0)
            return -1;
    }
    uint64_t end = ((uint64_t)g->nodes / PER_FRAME + 1) * SEC;
    return add_shutdown(g, SCOPE_REC_MARK, end) < 0 || close_frame(g, SCOPE_FRAME_EXIT, 0, end) < 0
               ? -1
               : 0;
}

/* ---- files ------------------------------------------------------------------ */

static int mkdir_p(const char *path) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(buf, 0777) < 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return mkdir(buf, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

static int write_proc(gen *g) {
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/workers/node01", g->out);
    snprintf(path, sizeof path, "%s/w_20261130T1200-w1de00_%d_%08x.%s", dir, g->pid,
             0x51de0000u + (unsigned)g->pid, SCOPE_LOG_FILE_EXT);
    g->path = path;
    if (mkdir_p(dir) < 0)
        return fail(g, "creating its folder", errno);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return fail(g, errno == EEXIST ? "exists (generate into a fresh --out)" : "creating",
                    errno);
    scope_log_writer_options opt = {0, 1u << 20};
    int rc = scope_log_writer_open(&g->w, fd, &opt);
    if (rc < 0) {
        close(fd);
        return fail(g, "opening the writer", -rc);
    }
    rc = g->forged ? write_forged(g) : write_honest(g);
    scope_log_writer_free(g->w);
    g->w = NULL;
    if (close(fd) < 0 && rc == 0)
        rc = fail(g, "closing", errno);
    g->path = NULL;
    return rc;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: scope_gen_wide --out RUN [--nodes N] [--procs P] [--forged] [--bins B]\n"
            "  --nodes N  phase nodes per process (default 262144)\n"
            "  --procs P  processes, one log each (default 1)\n"
            "  --forged   a hostile log: a binary tree of two names, a few bytes a node\n"
            "  --bins B   with --forged: histogram buckets per node, 1..%u (default 1)\n",
            MAX_BINS);
}

static int number(const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || !*s || v < lo || v > hi)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int main(int argc, char **argv) {
    gen g = {.nodes = 262144, .procs = 1, .bins = 1};
    static const struct option opts[] = {
        {"out", 1, 0, 'o'},  {"nodes", 1, 0, 'n'}, {"procs", 1, 0, 'p'}, {"forged", 0, 0, 'f'},
        {"bins", 1, 0, 'b'}, {"help", 0, 0, 'h'},  {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'o':
            g.out = optarg;
            break;
        case 'n':
            bad = number(optarg, 2, UINT32_MAX - 1, &g.nodes);
            break;
        case 'p':
            bad = number(optarg, 1, 100000, &g.procs);
            break;
        case 'f':
            g.forged = 1;
            break;
        case 'b':
            bad = number(optarg, 1, MAX_BINS, &g.bins);
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "scope_gen_wide: a value out of range: %s\n", optarg);
            usage(stderr);
            return 2;
        }
    }
    if (!g.out || optind != argc) {
        usage(stderr);
        return 2;
    }
    for (uint32_t p = 0; p < g.procs; p++) {
        g.pid = 1000 + (int)p;
        if (write_proc(&g) < 0)
            return 1;
    }
    return 0;
}
