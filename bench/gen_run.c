/*
 * scope_gen_run: writes a synthetic run of N processes x H hours in the real
 * log format, for benchmarking what reads runs (bench/bench_report.sh).
 *
 *   scope_gen_run --out RUN --procs N --hours H [--roles actor:63,learner:1]
 *                 [--hosts K] [--threads T] [--seed S] [--resources] [--trace] [--lines]
 *                 [--verify]
 *
 * Each process gets the file the recorder writes at its default settings,
 * through the real writer (formats/log_writer.c, at the recorder's options)
 * and by the writer thread's rules (recorder/writer.c and its data sources): frame 0 as the
 * recorder starts, holding the PROCESS record; a frame every 5 s for 5
 * minutes, then every 30 s; definitions in the first frame after their first
 * use; full values of what changed; histograms at most every 120 s and in the
 * exit frame; adaptive CPU time (an earlier rule than the recorder's, see
 * bench/README.md); an exit frame with a shutdown mark; snapshot frames
 * (docs/format.md 5.2.1) on the recorder's schedule, with resource series
 * kept by the recorder's own series code (bench/gen_series.c).  Only the
 * clock is synthetic, and the workload is a model: a learner or actor tree on
 * a main thread and a helper thread per process, lognormal phase times with
 * per-process speed factors.
 *
 * Simulating every entry of 12 hours would be billions of entries.  Instead,
 * each frame interval draws how many entries every phase completed and stands
 * them for by a few dozen sampled durations, each worth an integer share of
 * the entries.  What the aggregates say is exact for that sample: the bins
 * sum to the count, the wall time is the weighted sum of durations that all
 * lie between min and max and fall in their own buckets, CPU time covers the
 * entries whose CPU time was read, and a parent's entries contain their
 * children's time.
 */
#define _GNU_SOURCE
#include "gen_lines.h"
#include "gen_run.h"
#include "gen_series.h"
#include "res_node_io.h"

#include <scope/log_format.h>
#include <scope/vec.h>
#include <scope/log_hist.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SCOPE_VERSION
#define SCOPE_VERSION "unknown"
#endif

#define MAX_NODES    48
#define MAX_COUNTERS 8
#define MAX_CHILDREN 8
#define MAX_THREADS  64
#define MAX_NAMES    128
#define MAX_ROLES    8

/* Sampled durations per phase and frame interval: enough for histograms with
 * a realistic spread, few enough that 64 processes x 12 hours take seconds. */
#define BODY_SAMPLES 24
#define TAIL_SAMPLES 8
#define RARE_SAMPLES 4
#define MAX_SAMPLES  (4 + MAX_CHILDREN * RARE_SAMPLES + BODY_SAMPLES + TAIL_SAMPLES)

/* Outliers (preemption, page faults, a slow disk): one entry in 500 takes 1
 * to 20 times its usual time, off CPU.  TAIL_MEAN is that factor's mean. */
#define TAIL_P    0.002
#define TAIL_MAX  20.0
#define TAIL_MEAN ((TAIL_MAX - 1.0) / 5.2983173665480363) /* (M - 1) / ln M */

/* 2026-11-30T12:00:00Z: a fixed start, so a seed gives the same bytes. */
#define RUN_WALL0 (1796040000ull * GEN_SEC)

#define B(s) ((scope_bytes){(const uint8_t *)(s), strlen(s)})

/* ---- random numbers ------------------------------------------------------ */

/* xoshiro256**, seeded through splitmix64: every process draws from a stream
 * of its own, so its file does not depend on the others. */
typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed, uint64_t stream) {
    uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_u64(rng *r) {
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

/* Uniform in (0, 1): never 0, so its log is finite. */
static double rng_unit(rng *r) {
    return ((double)(rng_u64(r) >> 11) + 0.5) * 0x1.0p-53;
}

static uint64_t rng_range(rng *r, uint64_t lo, uint64_t hi) {
    return lo + rng_u64(r) % (hi - lo + 1);
}

/* Standard normal (Marsaglia's polar method; one of each pair is dropped,
 * which keeps the stream stateless beyond the xoshiro words). */
static double rng_normal(rng *r) {
    for (;;) {
        double u = 2 * rng_unit(r) - 1, v = 2 * rng_unit(r) - 1, s = u * u + v * v;
        if (s < 1 && s > 0)
            return u * sqrt(-2 * log(s) / s);
    }
}

static double rng_lognormal(rng *r, double sigma) {
    return sigma > 0 ? exp(sigma * rng_normal(r)) : 1.0;
}

/* Poisson(lambda), exact for small means and normal beyond. */
static uint64_t rng_poisson(rng *r, double lambda) {
    if (lambda <= 0)
        return 0;
    if (lambda > 30) {
        double v = lambda + sqrt(lambda) * rng_normal(r);
        return v > 0 ? (uint64_t)(v + 0.5) : 0;
    }
    double limit = exp(-lambda), prod = rng_unit(r);
    uint64_t k = 0;
    while (prod > limit) {
        prod *= rng_unit(r);
        k++;
    }
    return k;
}

/* ---- the workload model ---------------------------------------------------- */

typedef struct phase_spec {
    const char *path; /* name path in its thread's tree: the parent is the prefix */
    double rate;      /* entries per entry of the parent; the top phase's is unused */
    double self_us;   /* median self time (outside its child phases) */
    double sigma;     /* lognormal spread of the self time */
    double cpu;       /* share of the self time on CPU; the rest waits */
    double drift;     /* growth of the self time from start to end of the run */
    uint32_t flags;   /* SCOPE_PHASE_F_* of its site */
    uint32_t line;
} phase_spec;

/* A counter is called once per entry of its phase. */
typedef struct counter_spec {
    const char *name;
    const char *phase; /* path of the phase open when it counts */
    double value;      /* mean n per call */
    double spread;     /* lognormal spread of an interval's mean n; 0: always value */
    uint32_t line;
} counter_spec;

typedef struct tree_spec {
    const char *file;   /* source file of the sites */
    const char *thread; /* thread name (a main thread takes its role's) */
    double busy;        /* share of the thread's time inside its top phase */
    const phase_spec *phases;
    int nphases;
    const counter_spec *counters;
    int ncounters;
} tree_spec;

typedef struct role_spec {
    const char *name, *exe;
    const tree_spec *main, *helper;
    double rss_gib;                                      /* resident memory at start */
    double disk_read, disk_write, char_read, char_write; /* bytes a second */
} role_spec;

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define SYNC    SCOPE_PHASE_F_SYNC
#define IO      SCOPE_PHASE_F_IO

/* An actor: self-play games with tree search, batches sent to the learner,
 * new weights now and then.  An iteration takes about 85 ms. */
static const phase_spec actor_phases[] = {
    {"iteration", 1, 40, 0.3, 0.9, 0, 0, 41},
    {"iteration/self_play", 8, 15, 0.3, 0.95, 0, 0, 44},
    {"iteration/self_play/mcts", 64, 1.5, 0.2, 1.0, 0, 0, 47},
    {"iteration/self_play/mcts/select", 1, 12, 0.25, 0.99, 0.05, 0, 48},
    {"iteration/self_play/mcts/expand", 1, 28, 0.35, 0.98, 0, 0, 51},
    {"iteration/self_play/mcts/rollout", 1, 75, 0.45, 0.99, 0.1, 0, 54},
    {"iteration/self_play/mcts/backup", 1, 5, 0.2, 0.99, 0, 0, 57},
    {"iteration/self_play/policy_eval", 1, 10, 0.3, 0.9, 0, 0, 62},
    {"iteration/self_play/policy_eval/to_device", 1, 55, 0.3, 0.35, 0, 0, 63},
    {"iteration/self_play/policy_eval/forward", 1, 1100, 0.15, 0.2, 0, SYNC, 66},
    {"iteration/self_play/env_step", 1, 8, 0.3, 0.9, 0, 0, 71},
    {"iteration/self_play/env_step/simulate", 1, 380, 0.4, 0.97, 0, 0, 72},
    {"iteration/self_play/env_step/observe", 1, 70, 0.25, 0.9, 0, 0, 75},
    {"iteration/send_batch", 1, 20, 0.3, 0.9, 0, 0, 82},
    {"iteration/send_batch/serialize", 1, 320, 0.2, 0.97, 0, 0, 83},
    {"iteration/send_batch/compress", 1, 850, 0.25, 0.99, 0, 0, 86},
    {"iteration/send_batch/enqueue", 1, 25, 1.0, 0.1, 0, 0, 89},
    {"iteration/sync_weights", 0.05, 50, 0.3, 0.8, 0, 0, 95},
    {"iteration/sync_weights/fetch", 1, 45000, 0.5, 0.05, 0, IO, 96},
    {"iteration/sync_weights/load_state", 1, 18000, 0.2, 0.9, 0, 0, 99},
    {"iteration/log_metrics", 0.1, 240, 0.3, 0.8, 0, 0, 104},
};
static const counter_spec actor_counters[] = {
    {"mcts_simulations", "iteration/self_play", 64, 0, 60},
    {"env_steps", "iteration/self_play/env_step", 1, 0, 78},
    {"positions", "iteration/send_batch", 240, 0.1, 91},
    {"weight_syncs", "iteration/sync_weights", 1, 0, 101},
};

/* The actor's sender: waits for a batch, sends it. */
static const phase_spec sender_phases[] = {
    {"send_loop", 1, 5, 0.3, 0.9, 0, 0, 30},
    {"send_loop/wait_batch", 1, 60000, 0.6, 0.01, 0, 0, 31},
    {"send_loop/transmit", 1, 10, 0.3, 0.9, 0, 0, 35},
    {"send_loop/transmit/frame", 1, 150, 0.3, 0.95, 0, 0, 36},
    {"send_loop/transmit/write", 1, 900, 0.8, 0.15, 0, IO, 39},
    {"send_loop/heartbeat", 0.02, 300, 0.5, 0.3, 0, 0, 45},
};
static const counter_spec sender_counters[] = {
    {"bytes_sent", "send_loop/transmit", 2.1e6, 0.15, 41},
};

/* A learner: a GPU training step of about 330 ms; weights published every 20
 * steps, a checkpoint every 500 (the first some minutes into the run). */
static const phase_spec learner_phases[] = {
    {"iteration", 1, 1500, 0.3, 0.9, 0, 0, 120},
    {"iteration/load_batch", 1, 30, 0.3, 0.9, 0, 0, 122},
    {"iteration/load_batch/wait_queue", 1, 2500, 1.1, 0.02, 0.4, 0, 123},
    {"iteration/load_batch/collate", 1, 14000, 0.2, 0.97, 0, 0, 126},
    {"iteration/load_batch/to_device", 1, 7500, 0.15, 0.3, 0, 0, 129},
    {"iteration/train", 1, 60, 0.3, 0.9, 0, 0, 134},
    {"iteration/train/forward", 1, 40, 0.3, 0.9, 0, 0, 135},
    {"iteration/train/forward/embed", 1, 4200, 0.1, 0.2, 0, 0, 136},
    {"iteration/train/forward/layers", 1, 88000, 0.06, 0.15, 0, 0, 139},
    {"iteration/train/forward/loss", 1, 2600, 0.1, 0.3, 0, 0, 142},
    {"iteration/train/backward", 1, 176000, 0.06, 0.12, 0, SYNC, 146},
    {"iteration/train/optimizer", 1, 20, 0.3, 0.9, 0, 0, 149},
    {"iteration/train/optimizer/clip_grad", 1, 3100, 0.1, 0.4, 0, 0, 150},
    {"iteration/train/optimizer/step", 1, 9800, 0.08, 0.3, 0, 0, 153},
    {"iteration/publish_weights", 0.05, 100, 0.3, 0.9, 0, 0, 160},
    {"iteration/publish_weights/serialize", 1, 140000, 0.1, 0.98, 0, 0, 161},
    {"iteration/publish_weights/broadcast", 1, 60000, 0.4, 0.1, 0, 0, 164},
    {"iteration/checkpoint", 0.002, 200, 0.3, 0.9, 0, 0, 170},
    {"iteration/checkpoint/serialize", 1, 2.1e6, 0.1, 0.98, 0, 0, 171},
    {"iteration/checkpoint/write", 1, 3.4e6, 0.3, 0.25, 0, IO, 174},
    {"iteration/checkpoint/fsync", 1, 1.2e6, 0.6, 0.01, 0, IO, 177},
    {"iteration/log_metrics", 0.1, 900, 0.3, 0.8, 0, 0, 182},
};
static const counter_spec learner_counters[] = {
    {"samples", "iteration/load_batch", 512, 0, 131},
    {"gradient_steps", "iteration/train", 1, 0, 156},
    {"bytes_published", "iteration/publish_weights", 3.1e8, 0, 166},
    {"bytes_checkpointed", "iteration/checkpoint", 1.24e9, 0.01, 179},
};

/* The learner's loader: reads shards ahead of the training step. */
static const phase_spec loader_phases[] = {
    {"prefetch", 1, 10, 0.3, 0.9, 0, 0, 60},
    {"prefetch/read_shard", 1, 9000, 0.7, 0.2, 0, IO, 61},
    {"prefetch/decode", 1, 21000, 0.2, 0.98, 0, 0, 64},
    {"prefetch/augment", 1, 12000, 0.25, 0.98, 0, 0, 67},
    {"prefetch/enqueue", 1, 250000, 0.5, 0.01, 0, 0, 70},
};
static const counter_spec loader_counters[] = {
    {"shards_read", "prefetch/read_shard", 1, 0, 62},
    {"bytes_read", "prefetch/read_shard", 6.4e7, 0.1, 63},
};

#define TREE(file_, thread_, busy_, phases_, counters_)                                            \
    {                                                                                              \
        .file = file_, .thread = thread_, .busy = busy_, .phases = phases_,                        \
        .nphases = N_OF(phases_), .counters = counters_, .ncounters = N_OF(counters_),             \
    }
static const tree_spec actor_tree = TREE("src/actor.c", NULL, 0.985, actor_phases, actor_counters);
static const tree_spec sender_tree =
    TREE("src/actor_io.c", "sender", 0.99, sender_phases, sender_counters);
static const tree_spec learner_tree =
    TREE("src/learner.c", NULL, 0.99, learner_phases, learner_counters);
static const tree_spec loader_tree =
    TREE("src/loader.c", "loader", 0.98, loader_phases, loader_counters);

static const role_spec roles[] = {
    {"actor", "/opt/selfplay/bin/actor", &actor_tree, &sender_tree, 1.4, 0, 5e4, 2e5, 6e6},
    {"learner", "/opt/selfplay/bin/learner", &learner_tree, &loader_tree, 9.5, 1.2e7, 3e6, 4e7,
     1e6},
};

/* ---- the recorder's state, simulated --------------------------------------- */

typedef struct node {
    const phase_spec *spec;
    const char *name_str; /* last component of the path */
    int parent;           /* index in the thread's nodes, -1 for the top phase */
    int children[MAX_CHILDREN], nchildren;
    uint32_t id, name, file; /* 0 until first entered */
    double self_ns;          /* median self time in this process */
    double expect_ns;        /* expected duration of one entry, children included */
    double acc;              /* fractional entries carried to the next interval */
    /* the aggregate, as the recorder keeps it */
    uint64_t count, wall, min, max, cpu_count, cpu_wall, cpu;
    uint64_t *hist; /* SCOPE_HIST_BUCKETS counts */
    int cpu_on;     /* the adaptive rule: read CPU time on the next entries */
    /* this interval: entries completed, their wall and CPU time, and their
     * children's share of both */
    uint64_t n, iv_wall, iv_cpu, iv_child_wall, iv_child_cpu;
    /* what the last frame carried (the w_ fields of recorder/thread.h) */
    uint64_t w_count, w_wall, w_hist_count;
} node;

typedef struct counter {
    const counter_spec *spec;
    int node; /* index of its phase */
    uint32_t id, name;
    uint64_t calls, w_calls;
    int64_t total;
} counter;

typedef struct thread {
    const tree_spec *tree;
    uint32_t index; /* attach order, 1.. */
    int64_t tid;
    uint64_t start_mono; /* its first phase entry */
    char name[16];
    int attached, w_defined;
    node nodes[MAX_NODES];
    int nnodes;
    int order[MAX_NODES]; /* node indices in the order they were created */
    int ncreated, w_nodes;
    counter counters[MAX_COUNTERS];
    int ncounters;
    int corder[MAX_COUNTERS];
    int ccreated;
} thread;

typedef struct gen_config {
    const char *out;
    int procs, hosts, threads, resources, verify, trace, lines;
    int jobs;       /* --jobs: processes written at once, each by a child of its own */
    uint64_t wall0; /* CLOCK_REALTIME at the first rank's start */
    int live;       /* --live: still running, its last frames written just now */
    double hours;
    uint64_t seed;
    const role_spec *role_of[MAX_ROLES];
    int role_count[MAX_ROLES], nroles;
    char run_id[32];
} gen_config;

typedef struct proc {
    const gen_config *cfg;
    rng r;
    const role_spec *role;
    int rank, local_rank, node_rank;
    char host[32], uuid[9], path[4096];
    int64_t pid, ppid;
    uint64_t start_mono, start_wall, end_mono;
    double speed, net; /* CPU-bound phases take speed x, waiting ones net x */
    thread threads[MAX_THREADS];
    int nthreads;
    const char *names[MAX_NAMES]; /* interned names: index + 1 is the STRING id */
    uint32_t nnames, w_names;
    uint32_t next_node_id, next_counter_id;
    scope_log_writer *w;
    uint64_t last_hist_ns;
    uint64_t records;
    /* --resources: the sampler's next interval, and this frame interval's
     * CPU use (CPU ns per ns) to describe it */
    uint64_t res_next;
    double cpu_rate;
    uint64_t rss_peak, res_dropped;
    /* The frame's intervals, written as one RESOURCE_BATCH; GPU entries in
     * order in batch_gpus (2 per learner interval). */
    scope_rec_resource *batch;
    scope_gpu_figures *batch_gpus;
    size_t nbatch, cap_batch, nbatch_gpus, cap_batch_gpus;
    /* What a snapshot restates besides the aggregates (docs/format.md
     * 5.2.1): the resource series of the RESOURCE records written, the
     * marks written (the shutdown mark is the generator's only one) and the
     * trace window, once written; the bytes of those records under each
     * phase node (NODE_IO, 5.22), by the recorder's own table. */
    gen_series_set series;
    rec_node_io node_io;
    int shutdown_marked, trace_written;
    scope_rec_mark shutdown;
    scope_rec_trace_window trace;
    /* The newest snapshot's compressed size and where it ended: the next
     * periodic frame is followed by a snapshot once the log has grown by
     * that size since. */
    uint64_t snap_size, snap_end;
    int snapshots;
    /* A --live run's schedule, decided once (live_schedule): after which of
     * its frames (counted without snapshots) a snapshot follows.  `planning`
     * records the byte rule's choices; otherwise a plan, where there is one,
     * is followed. */
    uint8_t *plan;
    size_t nplan, plan_cap, frames_closed;
    int planning; /* 1 while planning, -1 when the plan could not be kept */
} proc;

static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("scope_gen_run: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return -1;
}

/* ---- building a process ------------------------------------------------------ */

static int find_node(const thread *t, const char *path, size_t len) {
    for (int i = 0; i < t->nnodes; i++)
        if (strlen(t->nodes[i].spec->path) == len && !strncmp(t->nodes[i].spec->path, path, len))
            return i;
    return -1;
}

/* Expected duration of an entry of each node, children included: the
 * estimate the top phase's entry count starts from. */
static void expect_durations(thread *t) {
    for (int i = 0; i < t->nnodes; i++) {
        node *nd = &t->nodes[i];
        double s = nd->spec->sigma;
        nd->expect_ns = nd->self_ns * exp(s * s / 2) * (1 + TAIL_P * (TAIL_MEAN - 1));
    }
    /* Children follow their parent in the table: walking back adds each
     * node, complete, to its parent. */
    for (int i = t->nnodes - 1; i > 0; i--) {
        node *nd = &t->nodes[i];
        t->nodes[nd->parent].expect_ns += nd->spec->rate * nd->expect_ns;
    }
}

/* A node for phase spec `ps`: the first phase of a tree is its top phase,
 * every other one names its parent's path before its own name. */
static int init_node(proc *p, thread *t, const phase_spec *ps) {
    node *nd = &t->nodes[t->nnodes];
    const char *slash = strrchr(ps->path, '/');
    memset(nd, 0, sizeof *nd);
    nd->spec = ps;
    nd->name_str = slash ? slash + 1 : ps->path;
    nd->parent = slash ? find_node(t, ps->path, (size_t)(slash - ps->path)) : -1;
    if ((t->nnodes == 0) != (nd->parent < 0) || t->nnodes == MAX_NODES)
        return fail("phase %s: one top phase first, its descendants after their parent, "
                    "at most %d phases",
                    ps->path, MAX_NODES);
    if (nd->parent >= 0) {
        node *par = &t->nodes[nd->parent];
        if (par->nchildren == MAX_CHILDREN)
            return fail("phase %s: more than %d children", par->spec->path, MAX_CHILDREN);
        par->children[par->nchildren++] = t->nnodes;
    }
    /* CPU-bound phases run at the process's speed, waiting ones at its
     * host's network; each also differs a little from process to process. */
    double factor = ps->cpu >= 0.5 ? p->speed : p->net;
    nd->self_ns = ps->self_us * 1e3 * factor * rng_lognormal(&p->r, 0.04);
    nd->min = UINT64_MAX;
    nd->cpu_on = 1; /* adaptive: the first 4 entries read CPU time */
    t->nnodes++;
    return 0;
}

static int init_thread(proc *p, thread *t, const tree_spec *tree, uint32_t index, int nhelpers) {
    memset(t, 0, sizeof *t);
    t->tree = tree;
    t->index = index;
    t->tid = index == 1 ? p->pid : p->pid + 2 + (int64_t)index;
    if (!tree->thread)
        snprintf(t->name, sizeof t->name, "%s", p->role->name);
    else if (nhelpers > 1)
        snprintf(t->name, sizeof t->name, "%s-%u", tree->thread, index - 1);
    else
        snprintf(t->name, sizeof t->name, "%s", tree->thread);
    /* The main thread enters its first phase once the program has set up,
     * the helpers a little after. */
    t->start_mono = p->start_mono + rng_range(&p->r, 2, 40) * 1000000u * index;
    for (int i = 0; i < tree->nphases; i++)
        if (init_node(p, t, &tree->phases[i]) < 0)
            return -1;
    for (int i = 0; i < tree->ncounters; i++) {
        const counter_spec *cs = &tree->counters[i];
        int at = find_node(t, cs->phase, strlen(cs->phase));
        if (at < 0 || t->ncounters == MAX_COUNTERS)
            return fail("counter %s: no phase %s, or more than %d counters", cs->name, cs->phase,
                        MAX_COUNTERS);
        t->counters[t->ncounters++] = (counter){.spec = cs, .node = at};
    }
    expect_durations(t);
    return 0;
}

/* Host-wide figures, the same for every process on a host: its monotonic
 * clock (time since its boot), pid range and network. */
typedef struct host_info {
    uint64_t mono_at_wall0;
    int64_t pid_base;
    double net, speed;
} host_info;

static host_info host_of(const gen_config *cfg, int node_rank) {
    rng r;
    rng_seed(&r, cfg->seed, 1000000u + (uint64_t)node_rank);
    host_info h;
    h.mono_at_wall0 = rng_range(&r, 2 * 3600, 40 * 86400) * GEN_SEC + rng_range(&r, 0, GEN_SEC);
    h.pid_base = (int64_t)rng_range(&r, 3000, 250000);
    h.net = rng_lognormal(&r, 0.3);
    h.speed = rng_lognormal(&r, 0.05);
    return h;
}

static const role_spec *role_at(const gen_config *cfg, int index) {
    for (int i = 0; i < cfg->nroles; i++) {
        if (index < cfg->role_count[i])
            return cfg->role_of[i];
        index -= cfg->role_count[i];
    }
    return cfg->role_of[cfg->nroles - 1];
}

static void init_identity(proc *p, const gen_config *cfg, int index) {
    int per_host = (cfg->procs + cfg->hosts - 1) / cfg->hosts;
    p->rank = index;
    p->node_rank = index / per_host;
    p->local_rank = index % per_host;
    host_info h = host_of(cfg, p->node_rank);
    snprintf(p->host, sizeof p->host, "node%02d", p->node_rank + 1);
    p->ppid = h.pid_base - 1; /* the launcher */
    /* Each rank's pid leaves room for its threads' ids (pid + 3 ..). */
    int64_t stride = cfg->threads + 6;
    p->pid = h.pid_base + stride * p->local_rank + (int64_t)rng_range(&p->r, 0, 2);
    snprintf(p->uuid, sizeof p->uuid, "%08" PRIx64, rng_u64(&p->r) & 0xffffffffu);
    /* Ranks start within 2 s of each other and end within 1.5 s. */
    uint64_t skew = rng_range(&p->r, 0, 2 * GEN_SEC);
    uint64_t len = (uint64_t)(cfg->hours * 3600 * 1e9) + rng_range(&p->r, 0, 1500000000u);
    p->start_wall = cfg->wall0 + skew;
    p->start_mono = h.mono_at_wall0 + skew;
    p->end_mono = h.mono_at_wall0 + (len > skew ? len : skew + GEN_SEC);
    /* Speed: a spread between ranks, hosts a little apart, and one
     * straggler, so imbalance has something to find. */
    p->speed = h.speed * rng_lognormal(&p->r, 0.06);
    if (cfg->procs >= 4 && (uint64_t)index == (cfg->seed * 7 + 5) % (uint64_t)cfg->procs)
        p->speed *= 1.5;
    p->net = h.net * rng_lognormal(&p->r, 0.1);
}

static int proc_init(proc *p, const gen_config *cfg, int index) {
    memset(p, 0, sizeof *p);
    p->cfg = cfg;
    rng_seed(&p->r, cfg->seed, (uint64_t)index + 1);
    p->role = role_at(cfg, index);
    init_identity(p, cfg, index);
    p->nthreads = cfg->threads;
    for (int i = 0; i < p->nthreads; i++) {
        const tree_spec *tree = i == 0 ? p->role->main : p->role->helper;
        if (init_thread(p, &p->threads[i], tree, (uint32_t)i + 1, p->nthreads - 1) < 0)
            return -1;
        for (int k = 0; k < p->threads[i].nnodes; k++) {
            node *nd = &p->threads[i].nodes[k];
            if (!(nd->hist = calloc(SCOPE_HIST_BUCKETS, sizeof *nd->hist)))
                return fail("out of memory");
        }
    }
    p->res_next = (p->start_mono + (1u << 20)) & ~((1ull << 20) - 1); /* the sampler's grain */
    gen_series_set_init(&p->series);
    return 0;
}

static void proc_free(proc *p) {
    free(p->plan);
    p->plan = NULL;
    free(p->batch);
    free(p->batch_gpus);
    rec_node_io_free(&p->node_io);
    p->batch = NULL;
    p->batch_gpus = NULL;
    p->cap_batch = p->cap_batch_gpus = 0;
    for (int i = 0; i < p->nthreads; i++)
        for (int k = 0; k < p->threads[i].nnodes; k++)
            free(p->threads[i].nodes[k].hist);
    scope_log_writer_free(p->w);
    p->w = NULL;
}

/* ---- first uses: names, ids, threads ------------------------------------------- */

/* The recorder interns every name once per process; its id is the STRING
 * id, in the order of first use. */
static uint32_t intern(proc *p, const char *s) {
    for (uint32_t i = 0; i < p->nnames; i++)
        if (!strcmp(p->names[i], s))
            return i + 1;
    if (p->nnames == MAX_NAMES)
        return 0;
    p->names[p->nnames++] = s;
    return p->nnames;
}

/* A phase's first entry: its site registers file then name, and the node
 * takes the next id of the process. */
static void create_node(proc *p, thread *t, int i) {
    node *nd = &t->nodes[i];
    t->attached = 1;
    nd->file = intern(p, t->tree->file);
    nd->name = intern(p, nd->name_str);
    nd->id = ++p->next_node_id;
    t->order[t->ncreated++] = i;
}

static void create_counter(proc *p, thread *t, int i) {
    counter *c = &t->counters[i];
    c->name = intern(p, c->spec->name);
    c->id = ++p->next_counter_id;
    t->corder[t->ccreated++] = i;
}

/* ---- one frame interval of work --------------------------------------------------- */

/* Entries of the top phase that complete in this interval: as many as keep
 * the thread `busy` of its time since it started, from the mean so far (the
 * model's expectation before the first). */
static uint64_t top_entries(proc *p, thread *t, uint64_t to) {
    node *top = &t->nodes[0];
    double mean = top->count ? (double)top->wall / (double)top->count : top->expect_ns;
    double want = t->tree->busy * (double)(to - t->start_mono) - (double)top->wall;
    double n = want / mean;
    return n > 0 ? (uint64_t)(n + rng_unit(&p->r)) : 0;
}

/* Counts for every node, top down; a phase that runs less than once per
 * parent entry carries the fraction over. */
static void plan_counts(proc *p, thread *t, uint64_t to) {
    for (int i = 0; i < t->nnodes; i++) {
        node *nd = &t->nodes[i];
        nd->iv_wall = nd->iv_cpu = nd->iv_child_wall = nd->iv_child_cpu = 0;
        if (i == 0) {
            nd->n = top_entries(p, t, to);
        } else {
            nd->acc += (double)t->nodes[nd->parent].n * nd->spec->rate;
            nd->n = (uint64_t)nd->acc;
            nd->acc -= (double)nd->n;
        }
        if (nd->n && !nd->id)
            create_node(p, t, i);
    }
}

/* One sampled duration, standing for `w` entries. */
typedef struct sample {
    uint64_t w;
    uint64_t self, self_cpu; /* self time and the part of it on CPU */
    uint64_t child, child_cpu;
    double share; /* relative share of its parent-to-be's child time */
} sample;

static sample samples[MAX_SAMPLES];

/* Adds `total` entries as up to `max` samples of equal weight (the first
 * ones one entry heavier), outliers when `tail`. */
static int add_samples(proc *p, const node *nd, double median, int ns, uint64_t total, int max,
                       int tail) {
    if (!total)
        return ns;
    uint64_t k = total < (uint64_t)max ? total : (uint64_t)max;
    for (uint64_t j = 0; j < k; j++) {
        sample *s = &samples[ns++];
        double base = median * rng_lognormal(&p->r, nd->spec->sigma);
        double slow = tail ? exp(rng_unit(&p->r) * log(TAIL_MAX)) : 1.0;
        double on_cpu = nd->spec->cpu * rng_lognormal(&p->r, 0.02);
        s->w = total / k + (j < total % k);
        s->self = (uint64_t)(base * slow) + 20; /* two clock reads at least */
        s->self_cpu = (uint64_t)(base * (on_cpu < 1 ? on_cpu : 1));
        s->child = s->child_cpu = 0;
        s->share = rng_lognormal(&p->r, 0.15);
    }
    return ns;
}

/* Places a child's wall time of this interval in samples [from, to): in
 * proportion to weight x share, rounded so the samples hold at least all
 * of it; the child's CPU time goes with it at the child's ratio.  What the
 * rounding left out (under 1 ns per entry) goes to the heaviest sample,
 * where it adds the least to any one entry. */
static void place_child(int from, int to, const node *c) {
    double sum = 0, cpu_ratio = c->iv_wall ? (double)c->iv_cpu / (double)c->iv_wall : 0;
    int heaviest = from;
    for (int j = from; j < to; j++) {
        sum += (double)samples[j].w * samples[j].share;
        heaviest = samples[j].w > samples[heaviest].w ? j : heaviest;
    }
    uint64_t placed = 0;
    for (int j = from; j < to; j++) {
        uint64_t x = (uint64_t)((double)c->iv_wall * samples[j].share / sum);
        samples[j].child += x;
        samples[j].child_cpu += (uint64_t)((double)x * cpu_ratio);
        placed += x * samples[j].w;
    }
    if (placed < c->iv_wall) {
        sample *s = &samples[heaviest];
        uint64_t x = (c->iv_wall - placed + s->w - 1) / s->w;
        s->child += x;
        s->child_cpu += (uint64_t)((double)x * cpu_ratio);
    }
}

/* The samples of a node's entries this interval.  Entries that contain a
 * rare child (a checkpoint every 500 iterations) get samples of their own,
 * so that those iterations are the long ones.  Returns the sample count. */
static int draw_samples(proc *p, thread *t, node *nd, double median) {
    uint64_t left = nd->n;
    /* The first 4 entries decide adaptive CPU time: one sample each. */
    uint64_t first = nd->cpu_on && nd->count < 4 ? 4 - nd->count : 0;
    first = first < left ? first : left;
    int ns = add_samples(p, nd, median, 0, first, (int)first, 0);
    left -= first;
    int group[MAX_CHILDREN][2];
    for (int k = 0; k < nd->nchildren; k++) {
        const node *c = &t->nodes[nd->children[k]];
        group[k][0] = group[k][1] = -1;
        if (c->spec->rate < 1 && c->n && c->n <= left) {
            group[k][0] = ns;
            ns = add_samples(p, nd, median, ns, c->n, RARE_SAMPLES, 0);
            group[k][1] = ns;
            left -= c->n;
        }
    }
    uint64_t tail = rng_poisson(&p->r, (double)left * TAIL_P);
    tail = tail < left ? tail : left;
    ns = add_samples(p, nd, median, ns, left - tail, BODY_SAMPLES, 0);
    ns = add_samples(p, nd, median, ns, tail, TAIL_SAMPLES, 1);
    for (int k = 0; k < nd->nchildren; k++) {
        const node *c = &t->nodes[nd->children[k]];
        if (group[k][0] >= 0)
            place_child(group[k][0], group[k][1], c);
        else if (c->n)
            place_child(0, ns, c);
    }
    return ns;
}

/* Adds the samples to the node's aggregate exactly as that many entries
 * would, under an earlier, two-half adaptive CPU rule than the recorder's
 * (bench/README.md says how they differ): its first half here. */
static void record_samples(node *nd, int ns) {
    for (int j = 0; j < ns; j++) {
        const sample *s = &samples[j];
        uint64_t d = s->self + s->child, cpu = s->self_cpu + s->child_cpu;
        cpu = cpu < d ? cpu : d;
        nd->count += s->w;
        nd->wall += s->w * d;
        nd->min = d < nd->min ? d : nd->min;
        nd->max = d > nd->max ? d : nd->max;
        nd->hist[scope_hist_bucket(d)] += s->w;
        nd->iv_wall += s->w * d;
        nd->iv_cpu += s->w * cpu;
        if (nd->cpu_on) {
            nd->cpu_count += s->w;
            nd->cpu_wall += s->w * d;
            nd->cpu += s->w * cpu;
            if (nd->count == 4 && nd->wall < 4 * (uint64_t)GEN_CPU_MIN_NS)
                nd->cpu_on = 0;
        }
    }
}

/* Children first, so each parent's entries are drawn around the time its
 * children took. */
static void draw_thread(proc *p, thread *t, double run_frac) {
    for (int i = t->nnodes - 1; i >= 0; i--) {
        node *nd = &t->nodes[i];
        if (!nd->n)
            continue;
        double median = nd->self_ns * (1 + nd->spec->drift * run_frac);
        record_samples(nd, draw_samples(p, t, nd, median));
        if (nd->parent >= 0) {
            t->nodes[nd->parent].iv_child_wall += nd->iv_wall;
            t->nodes[nd->parent].iv_child_cpu += nd->iv_cpu;
        }
    }
}

static void count_thread(proc *p, thread *t) {
    for (int i = 0; i < t->ncounters; i++) {
        counter *c = &t->counters[i];
        uint64_t calls = t->nodes[c->node].n;
        if (!calls)
            continue;
        if (!c->id)
            create_counter(p, t, i);
        double mean = c->spec->value * rng_lognormal(&p->r, c->spec->spread);
        c->calls += calls;
        c->total += (int64_t)llround(mean * (double)calls);
    }
}

/* The work of (from, to]: what completed in it goes into the frame at `to`. */
static void simulate(proc *p, uint64_t from, uint64_t to) {
    double run_frac =
        (double)((from + to) / 2 - p->start_mono) / (double)(p->end_mono - p->start_mono);
    double cpu = 0;
    for (int i = 0; i < p->nthreads; i++) {
        thread *t = &p->threads[i];
        if (to <= t->start_mono)
            continue;
        plan_counts(p, t, to);
        draw_thread(p, t, run_frac);
        count_thread(p, t);
        cpu += (double)t->nodes[0].iv_cpu;
    }
    p->cpu_rate = cpu / (double)(to - from);
}

/* ---- writing frames ------------------------------------------------------------------ */

static int add(proc *p, const scope_record *r) {
    int rc = scope_log_writer_add(p->w, r);
    if (rc < 0)
        return fail("%s: cannot add a record: %s", p->path, strerror(-rc));
    p->records++;
    return 0;
}

static int add_process(proc *p) {
    char rank[16], world[16];
    snprintf(rank, sizeof rank, "%d", p->rank);
    snprintf(world, sizeof world, "%d", p->cfg->procs);
    scope_bytes argv[] = {B(p->role->exe), B("--rank"), B(rank), B("--world-size"), B(world)};
    scope_kv settings[] = {
        {B("frame_interval_s"), B("auto")},
        {B("cpu_time"), B("adaptive")},
        {B("cpu_min_us"), B("50.0")},
        {B("clock"), B("tsc")},
    };
    scope_record r = {.type = SCOPE_REC_PROCESS};
    r.u.process = (scope_rec_process){
        .run_id = B(p->cfg->run_id),
        .uuid = B(p->uuid),
        .host = B(p->host),
        .role = B(p->role->name),
        .job_id = B(""),
        .step_id = B(""),
        .exe = B(p->role->exe),
        .cwd = B("/home/scope/runs/selfplay"),
        .recorder_version = B(SCOPE_VERSION),
        .pid = p->pid,
        .ppid = p->ppid,
        .rank = p->rank,
        .local_rank = p->local_rank,
        .node_rank = p->node_rank,
        .world_size = p->cfg->procs,
        .start_wall_ns = p->start_wall,
        .start_mono_ns = p->start_mono,
        .argc = N_OF(argv),
        .argv = argv,
        .nsettings = N_OF(settings),
        .settings = settings,
    };
    return add(p, &r);
}

static int add_names(proc *p) {
    for (; p->w_names < p->nnames; p->w_names++) {
        scope_record r = {.type = SCOPE_REC_STRING};
        r.u.string = (scope_rec_string){p->w_names + 1, B(p->names[p->w_names])};
        if (add(p, &r) < 0)
            return -1;
    }
    return 0;
}

static int add_thread_def(proc *p, const thread *t) {
    scope_record r = {.type = SCOPE_REC_THREAD};
    r.u.thread = (scope_rec_thread){t->index, t->tid, t->start_mono, B(t->name)};
    return add(p, &r);
}

/* The PHASE_NODE of the k-th node thread t created. */
static int add_node_def(proc *p, const thread *t, int k) {
    const node *nd = &t->nodes[t->order[k]];
    uint32_t parent = nd->parent >= 0 ? t->nodes[nd->parent].id : 0;
    scope_record r = {.type = SCOPE_REC_PHASE_NODE};
    r.u.phase_node = (scope_rec_phase_node){nd->id,          parent,   nd->name,      t->index,
                                            nd->spec->flags, nd->file, nd->spec->line};
    return add(p, &r);
}

/* The COUNTER of the k-th counter thread t created. */
static int add_counter_value(proc *p, const thread *t, int k) {
    const counter *c = &t->counters[t->corder[k]];
    scope_record r = {.type = SCOPE_REC_COUNTER};
    r.u.counter =
        (scope_rec_counter){c->id, c->name, t->nodes[c->node].id, t->index, c->calls, c->total};
    return add(p, &r);
}

static int add_definitions(proc *p, thread *t) {
    if (!t->w_defined) {
        if (add_thread_def(p, t) < 0)
            return -1;
        t->w_defined = 1;
    }
    for (; t->w_nodes < t->ncreated; t->w_nodes++)
        if (add_node_def(p, t, t->w_nodes) < 0)
            return -1;
    return 0;
}

/* The node's non-empty buckets, which all lie between those of min and max. */
static uint32_t fill_bins(const node *nd, scope_hist_bin *bins) {
    uint32_t n = 0;
    for (uint32_t b = scope_hist_bucket(nd->min); b <= scope_hist_bucket(nd->max); b++)
        if (nd->hist[b])
            bins[n++] = (scope_hist_bin){b, nd->hist[b]};
    return n;
}

/* recorder/source_phases.c's add_aggregate: a changed node gets its scalars, and
 * its histogram when the frame carries histograms or it never had one. */
/* The exact I/O an SCOPE_PHASE_IO phase's entries read at their ends, as a
 * recorder reading /proc/thread-self/io writes it: a phase named like a
 * read moves 2 bytes a ns of its time through read(), 40% of them from the
 * disk, the rest from page cache; any other (a write, an fsync) writes 0.5
 * bytes a ns, all of which reach the disk. */
static void set_exact_io(const node *nd, scope_rec_phase_agg *a) {
    a->io_flags = SCOPE_IO_MEASURED;
    a->io_count = nd->count;
    if (strstr(nd->spec->path, "read") || strstr(nd->spec->path, "fetch")) {
        a->char_read = nd->wall * 2;
        a->disk_read = a->char_read / 10 * 4;
    } else {
        a->char_write = nd->wall / 2;
        a->disk_write = a->char_write;
    }
}

/* The node's aggregate as a PHASE_AGG record, its histogram in `bins` when
 * with_bins. */
static scope_record agg_record(const node *nd, scope_hist_bin *bins, int with_bins) {
    scope_record r = {.type = SCOPE_REC_PHASE_AGG};
    r.u.phase_agg = (scope_rec_phase_agg){
        .node = nd->id,
        .count = nd->count,
        .wall_ns = nd->wall,
        .min_ns = nd->min,
        .max_ns = nd->max,
        .cpu_count = nd->cpu_count,
        .cpu_wall_ns = nd->cpu_wall,
        .cpu_ns = nd->cpu,
        .bins = bins,
    };
    if (nd->spec->flags & IO)
        set_exact_io(nd, &r.u.phase_agg);
    if (with_bins)
        r.u.phase_agg.nbins = fill_bins(nd, bins);
    return r;
}

static int add_agg(proc *p, node *nd, int with_hist) {
    static scope_hist_bin bins[SCOPE_HIST_BUCKETS];
    int stale_hist = with_hist && nd->w_hist_count != nd->count;
    if (!nd->count || (nd->count == nd->w_count && !stale_hist))
        return 0;
    int with_bins = with_hist || !nd->w_hist_count;
    scope_record r = agg_record(nd, bins, with_bins);
    if (with_bins)
        nd->w_hist_count = nd->count;
    if (add(p, &r) < 0)
        return -1;
    /* The adaptive rule's second half: reads go on or off with the mean of
     * the entries since the last frame. */
    if (nd->w_count >= 4 && nd->count > nd->w_count)
        nd->cpu_on = nd->wall - nd->w_wall >= (nd->count - nd->w_count) * GEN_CPU_MIN_NS;
    nd->w_count = nd->count;
    nd->w_wall = nd->wall;
    return 0;
}

static int add_counters(proc *p, thread *t) {
    for (int k = 0; k < t->ccreated; k++) {
        counter *c = &t->counters[t->corder[k]];
        if (c->calls == c->w_calls)
            continue;
        if (add_counter_value(p, t, k) < 0)
            return -1;
        c->w_calls = c->calls;
    }
    return 0;
}

static int add_thread(proc *p, thread *t, int with_hist) {
    if (!t->attached)
        return 0;
    if (add_definitions(p, t) < 0)
        return -1;
    for (int k = 0; k < t->ncreated; k++)
        if (add_agg(p, &t->nodes[t->order[k]], with_hist) < 0)
            return -1;
    return add_counters(p, t);
}

/* The main thread's node open at a moment: drawn by self time in this frame
 * interval, which is where its time went. */
/* The innermost phase open on thread t at a random instant of this frame
 * interval: a node drawn by its self time (0 when the thread ran none). */
static uint32_t open_node_on(proc *p, const thread *t) {
    double total = 0, pick;
    for (int i = 0; i < t->nnodes; i++)
        total += (double)(t->nodes[i].iv_wall - t->nodes[i].iv_child_wall);
    if (total <= 0)
        return 0;
    pick = rng_unit(&p->r) * total;
    for (int i = 0; i < t->nnodes; i++) {
        pick -= (double)(t->nodes[i].iv_wall - t->nodes[i].iv_child_wall);
        if (pick <= 0)
            return t->nodes[i].id;
    }
    return 0;
}

static uint64_t jittered(proc *p, double per_s, double interval_s) {
    return (uint64_t)(per_s * interval_s * rng_lognormal(&p->r, 0.3));
}

/* The GPUs of a learner's host, as NVML reports them to the sampler: device
 * 0 shared with another tenant and busy, this process's own share of it
 * attributed by NVML; device 1 nearly idle, with no sample ever attributed
 * to this process (its share a measured 0, RUN_SEEN clear). */
static void gpu_figures(proc *p, scope_gpu_figures g[2]) {
    uint32_t busy = 8800 + (uint32_t)rng_range(&p->r, 0, 900);
    uint32_t run = 6000 + (uint32_t)rng_range(&p->r, 0, 800);
    uint64_t gib = 1073741824ull;
    g[0] = (scope_gpu_figures){0,
                               SCOPE_GPU_BUSY | SCOPE_GPU_RUN | SCOPE_GPU_RUN_SEEN |
                                   SCOPE_GPU_MEM_USED | SCOPE_GPU_MEM_RUN | SCOPE_GPU_MEM_TOTAL,
                               busy,
                               run,
                               9 * gib,
                               6 * gib + rng_range(&p->r, 0, gib / 4),
                               80 * gib};
    g[1] = (scope_gpu_figures){1,
                               SCOPE_GPU_BUSY | SCOPE_GPU_RUN | SCOPE_GPU_MEM_USED |
                                   SCOPE_GPU_MEM_RUN | SCOPE_GPU_MEM_TOTAL,
                               600 + (uint32_t)rng_range(&p->r, 0, 400),
                               0,
                               gib / 2,
                               0,
                               80 * gib};
}

/* --resources: the intervals of a 1 Hz sampler that ended by `now`, as the
 * recorder's sampler writes them (format 1.3): per interval one record for
 * the process (RSS and its peak, CPU, I/O in both layers, GPU entries on a
 * learner) and one per thread that moved bytes, under the phase open on that
 * thread.  The main thread moves a quarter of the bytes, the helper thread
 * (loader, sender) the rest.  About one interval an hour cannot be read and
 * is dropped, as a failed /proc read is: the next record counts it. */
/* One interval into the frame's batch, its GPU entries copied. */
static int batch_add(proc *p, const scope_rec_resource *r) {
    if (SCOPE_VEC_RESERVE(p->batch, p->cap_batch, p->nbatch + 1) < 0 ||
        (r->ngpus &&
         SCOPE_VEC_RESERVE(p->batch_gpus, p->cap_batch_gpus, p->nbatch_gpus + r->ngpus) < 0))
        return fail("out of memory");
    if (r->ngpus)
        memcpy(p->batch_gpus + p->nbatch_gpus, r->gpus, r->ngpus * sizeof *r->gpus);
    p->batch[p->nbatch] = *r;
    p->batch[p->nbatch++].gpus = NULL; /* set in write_batch: batch_gpus may move */
    p->nbatch_gpus += r->ngpus;
    return 0;
}

static int by_thread_then_time(const void *a, const void *b) {
    const scope_rec_resource *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->mono_ns < y->mono_ns ? -1 : x->mono_ns > y->mono_ns;
}

/* The frame's intervals as the recorder writes them (recorder/
 * source_resources.c, encode_batch): one RESOURCE_BATCH, each thread's
 * intervals together in time order. */
static int write_batch(proc *p) {
    if (!p->nbatch)
        return 0;
    size_t g = 0;
    for (size_t i = 0; i < p->nbatch; i++) {
        p->batch[i].gpus = p->batch[i].ngpus ? p->batch_gpus + g : NULL;
        g += p->batch[i].ngpus;
    }
    qsort(p->batch, p->nbatch, sizeof *p->batch, by_thread_then_time);
    scope_record r = {.type = SCOPE_REC_RESOURCE_BATCH};
    r.u.resource_batch = (scope_rec_resource_batch){(uint32_t)p->nbatch, p->batch};
    int rc = add(p, &r);
    p->nbatch = p->nbatch_gpus = 0;
    return rc;
}

/* The sampler keeps times to 2^20 ns (recorder/source_resources.c, GRAIN_NS). */
static uint64_t res_grain(uint64_t ns) {
    return ns & ~((1ull << 20) - 1);
}

static int add_resources(proc *p, uint64_t now) {
    const role_spec *ro = p->role;
    for (;;) {
        uint64_t len = res_grain(GEN_SEC + rng_range(&p->r, 20000, 1500000));
        if (p->res_next + len > now)
            return write_batch(p);
        if (rng_range(&p->r, 0, 3600) == 0) {
            p->res_dropped++;
            p->res_next += len;
            continue;
        }
        double s = (double)len / 1e9, hours = (double)(p->res_next - p->start_mono) / 3.6e12;
        double cpu = p->cpu_rate * (double)len * rng_lognormal(&p->r, 0.05);
        uint64_t rss = (uint64_t)(ro->rss_gib * (1 + 0.03 * hours) * 1073741824.0 *
                                  rng_lognormal(&p->r, 0.004)) &
                       ~(uint64_t)4095;
        if (rss > p->rss_peak)
            p->rss_peak = rss;
        uint64_t io[4] = {jittered(p, ro->disk_read, s), jittered(p, ro->disk_write, s),
                          jittered(p, ro->char_read, s), jittered(p, ro->char_write, s)};
        scope_gpu_figures g[2];
        int gpus = !strcmp(ro->name, "learner");
        if (gpus)
            gpu_figures(p, g);
        scope_record r = {.type = SCOPE_REC_RESOURCE};
        r.u.resource = (scope_rec_resource){
            .mono_ns = p->res_next,
            .interval_ns = len,
            .node = open_node_on(p, &p->threads[0]),
            .present = SCOPE_RES_RSS | SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS |
                       SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ |
                       SCOPE_RES_CHAR_WRITE | SCOPE_RES_RSS_PEAK,
            .rss = rss,
            .cpu_user_ns = res_grain((uint64_t)(cpu * 0.93)),
            .cpu_sys_ns = res_grain((uint64_t)(cpu * 0.07)),
            .disk_read = io[0],
            .disk_write = io[1],
            .char_read = io[2],
            .char_write = io[3],
            .ngpus = gpus ? 2 : 0,
            .gpus = gpus ? g : NULL,
            .rss_peak = p->rss_peak,
            .dropped = p->res_dropped,
        };
        if (batch_add(p, &r.u.resource) < 0 || rec_node_io_add(&p->node_io, &r.u.resource) < 0)
            return -1;
        gen_series_set_add(&p->series, &r.u.resource);
        for (int t = 0; t < p->nthreads && t < 2; t++) {
            uint64_t part[4];
            for (int k = 0; k < 4; k++)
                part[k] = t == 0 ? io[k] / 4 : io[k] - io[k] / 4;
            if (!(part[0] | part[1] | part[2] | part[3]))
                continue;
            r.u.resource = (scope_rec_resource){
                .mono_ns = p->res_next,
                .interval_ns = len,
                .node = open_node_on(p, &p->threads[t]),
                .present = SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ |
                           SCOPE_RES_CHAR_WRITE,
                .disk_read = part[0],
                .disk_write = part[1],
                .char_read = part[2],
                .char_write = part[3],
                .thread = p->threads[t].index,
            };
            if (batch_add(p, &r.u.resource) < 0 || rec_node_io_add(&p->node_io, &r.u.resource) < 0)
                return -1;
        }
        p->res_dropped = 0;
        p->res_next += len;
    }
}

static uint64_t wall_at(const proc *p, uint64_t mono) {
    return p->start_wall + (mono - p->start_mono);
}

/* ---- snapshot frames (docs/format.md 5.2.1) -------------------------------------------- */

/* How long after the frame it follows a snapshot is closed: encoding and
 * compressing every aggregate again.  Fixed, so that a seed's bytes do not
 * depend on whether snapshots are written. */
#define SNAPSHOT_CLOSE_NS 100000u

/* The recorder's schedule: a snapshot right after a frame closed by a flush,
 * an exit or a signal, and after a periodic frame once the bytes written
 * since the newest snapshot reach SCOPE_LOG_SNAPSHOT_SPACING times that
 * snapshot's size (so snapshots stay under a fifth of the log).  Before the first snapshot that
 * size counts as 0: the first periodic frame is followed by one. */
static int by_bytes(const proc *p, uint32_t reason) {
    if (reason != SCOPE_FRAME_PERIODIC)
        return 1;
    return !p->snapshots ||
           scope_log_writer_bytes(p->w) - p->snap_end >= SCOPE_LOG_SNAPSHOT_SPACING * p->snap_size;
}

/* The byte rule, or the plan made for this process (live_schedule).
 * Called once per frame, after it closed. */
static int snapshot_due(proc *p, uint32_t reason) {
    size_t frame = p->frames_closed++;
    if (p->plan && p->planning == 0)
        return frame < p->nplan && p->plan[frame];
    int due = by_bytes(p, reason);
    if (p->planning > 0) {
        uint8_t *grown = p->plan;
        if (frame >= p->plan_cap) {
            size_t cap = p->plan_cap ? 2 * p->plan_cap : 256;
            if (!(grown = realloc(p->plan, cap))) {
                p->planning = -1; /* plan_snapshots fails the process */
                return due;
            }
            p->plan = grown;
            p->plan_cap = cap;
        }
        if (frame == p->nplan)
            p->plan[p->nplan++] = (uint8_t)due;
    }
    return due;
}

/* Every definition and the full value of every aggregate of one thread. */
static int snapshot_thread(proc *p, const thread *t) {
    static scope_hist_bin bins[SCOPE_HIST_BUCKETS];
    if (!t->attached)
        return 0;
    if (add_thread_def(p, t) < 0)
        return -1;
    for (int k = 0; k < t->ncreated; k++)
        if (add_node_def(p, t, k) < 0)
            return -1;
    for (int k = 0; k < t->ncreated; k++) {
        const node *nd = &t->nodes[t->order[k]];
        scope_record r = agg_record(nd, bins, 1);
        if (nd->count && add(p, &r) < 0)
            return -1;
    }
    for (int k = 0; k < t->ccreated; k++)
        if (t->counters[t->corder[k]].calls && add_counter_value(p, t, k) < 0)
            return -1;
    return 0;
}

/* A snapshot frame at `now`, closed with the reason of the frame it
 * follows: the process, every string, thread, node, aggregate and counter,
 * the trace window, a MARK_STATE copy of each mark, each resource series
 * and the bytes under each phase node; no event.  What the regular frames send next does not
 * change. */
static int write_snapshot(proc *p, uint32_t reason, uint64_t now) {
    if (add_process(p) < 0)
        return -1;
    for (uint32_t i = 0; i < p->w_names; i++) {
        scope_record r = {.type = SCOPE_REC_STRING};
        r.u.string = (scope_rec_string){i + 1, B(p->names[i])};
        if (add(p, &r) < 0)
            return -1;
    }
    for (int i = p->nthreads - 1; i >= 0; i--)
        if (snapshot_thread(p, &p->threads[i]) < 0)
            return -1;
    scope_record r;
    if (p->trace_written) {
        r = (scope_record){.type = SCOPE_REC_TRACE_WINDOW, .u.trace_window = p->trace};
        if (add(p, &r) < 0)
            return -1;
    }
    if (p->shutdown_marked) {
        r = (scope_record){.type = SCOPE_REC_MARK_STATE, .u.mark_state = p->shutdown};
        if (add(p, &r) < 0)
            return -1;
    }
    for (int i = 0; i < p->series.n; i++) {
        r = (scope_record){.type = SCOPE_REC_RESOURCE_SERIES};
        r.u.resource_series = gen_series_record(&p->series.s[i]);
        if (add(p, &r) < 0)
            return -1;
    }
    for (uint32_t i = 0; i < p->node_io.n; i++) {
        r = (scope_record){.type = SCOPE_REC_NODE_IO, .u.node_io = p->node_io.rows[i]};
        if (add(p, &r) < 0)
            return -1;
    }
    long rc = scope_log_writer_close_frame_flags(p->w, reason, SCOPE_FRAME_F_SNAPSHOT, now,
                                                 wall_at(p, now));
    if (rc < 0)
        return fail("%s: cannot write a snapshot: %s", p->path, strerror((int)-rc));
    p->snap_size = (uint64_t)rc;
    p->snap_end = scope_log_writer_bytes(p->w);
    p->snapshots++;
    return 0;
}

/* rec_write_frame at `now`: histograms when the frame is not periodic, is
 * the first, or comes 120 s after the last that carried them; threads newest
 * first, as the recorder's registry lists them. */
static int write_frame(proc *p, uint32_t reason, uint64_t now) {
    int first = scope_log_writer_frames(p->w) == 0;
    int with_hist =
        reason != SCOPE_FRAME_PERIODIC || first || now - p->last_hist_ns >= GEN_HIST_INTERVAL_NS;
    if (with_hist)
        p->last_hist_ns = now;
    if ((first && add_process(p) < 0) || add_names(p) < 0)
        return -1;
    for (int i = p->nthreads - 1; i >= 0; i--)
        if (add_thread(p, &p->threads[i], with_hist) < 0)
            return -1;
    if (p->cfg->resources && add_resources(p, now) < 0)
        return -1;
    uint64_t closed = now + rng_range(&p->r, 20000, 300000); /* encoding, compressing */
    if (reason == SCOPE_FRAME_EXIT && p->cfg->trace && p->threads[0].nodes[0].name) {
        /* --trace: a window over entries 100-110 of the main thread's top
         * phase, a tenth of the run long, that the cap ended early on the
         * process of rank 1. */
        uint64_t span = p->end_mono - p->start_mono;
        int capped = p->rank == 1;
        scope_record r = {.type = SCOPE_REC_TRACE_WINDOW};
        r.u.trace_window = (scope_rec_trace_window){
            .phase = p->threads[0].nodes[0].name,
            .first = 100,
            .last = 110,
            .state = capped ? SCOPE_TRACE_CAPPED : SCOPE_TRACE_CLOSED,
            .start_mono_ns = p->start_mono + span / 3,
            .end_mono_ns = p->start_mono + span / 3 + span / (capped ? 20 : 10),
            .events = capped ? 1048576 : 200000 + rng_range(&p->r, 0, 100000),
            .cap = 1048576,
            .lost = capped ? 81920 : 0,
        };
        if (add(p, &r) < 0)
            return -1;
        p->trace = r.u.trace_window;
        p->trace_written = 1;
    }
    if (reason == SCOPE_FRAME_EXIT && p->cfg->lines) {
        /* --lines: each thread's samples under each of its phase nodes. */
        uint32_t ids[MAX_THREADS][MAX_NODES], tids[MAX_THREADS];
        const uint32_t *rows[MAX_THREADS];
        int nids[MAX_THREADS];
        for (int t = 0; t < p->nthreads; t++) {
            nids[t] = 0;
            rows[t] = ids[t];
            tids[t] = p->threads[t].index;
            for (int k = 0; k < p->threads[t].nnodes; k++)
                if (p->threads[t].nodes[k].id)
                    ids[t][nids[t]++] = p->threads[t].nodes[k].id;
        }
        int rc = gen_lines_add(p->w, (uint32_t)p->nthreads, tids, rows, nids, 200,
                               p->cfg->seed * 1000003u + (uint64_t)p->rank);
        if (rc < 0)
            return fail("%s: cannot add the line samples: %s", p->path, strerror(-rc));
    }
    if (reason == SCOPE_FRAME_EXIT) {
        scope_record r = {.type = SCOPE_REC_MARK};
        r.u.mark = (scope_rec_mark){
            .kind = SCOPE_MARK_SHUTDOWN, .mono_ns = now + 5000, .value = SCOPE_SHUTDOWN_EXIT};
        if (add(p, &r) < 0)
            return -1;
        p->shutdown = r.u.mark;
        p->shutdown_marked = 1;
    }
    long rc = scope_log_writer_close_frame(p->w, reason, closed, wall_at(p, closed));
    if (rc < 0)
        return fail("%s: cannot write a frame: %s", p->path, strerror((int)-rc));
    return snapshot_due(p, reason) ? write_snapshot(p, reason, closed + SNAPSHOT_CLOSE_NS) : 0;
}

/* ---- one process's file ---------------------------------------------------------------- */

static int mkdir_p(char *path) {
    for (char *s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        int rc = mkdir(path, 0777);
        *s = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The process's log path into p->path, and its directory into dir. */
static int log_path(proc *p, char *dir, size_t dirlen) {
    snprintf(dir, dirlen, "%s/workers/%s", p->cfg->out, p->host);
    if (snprintf(p->path, sizeof p->path, "%s/w_%s_%" PRId64 "_%s.%s", dir, p->cfg->run_id, p->pid,
                 p->uuid, SCOPE_LOG_FILE_EXT) >= (int)sizeof p->path)
        return fail("%s: path too long", dir);
    return 0;
}

static int open_writer(proc *p, int fd);

static int open_log(proc *p, int *fd) {
    char dir[4096];
    if (log_path(p, dir, sizeof dir) < 0)
        return -1;
    if (mkdir_p(dir) < 0)
        return fail("cannot create %s: %s", dir, strerror(errno));
    *fd = open(p->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (*fd < 0)
        return fail("cannot create %s: %s%s", p->path, strerror(errno),
                    errno == EEXIST ? " (generate into a fresh --out)" : "");
    return open_writer(p, *fd);
}

static int open_writer(proc *p, int fd) {
    /* The recorder's own options (recorder/identity.c, rec_open_log). */
    scope_log_writer_options opt = {0, 256 * 1024};
    int rc = scope_log_writer_open(&p->w, fd, &opt);
    if (rc < 0)
        return fail("%s: %s", p->path, strerror(-rc));
    return 0;
}

/* The writer thread's schedule (writer_main): a frame at once, then one per
 * interval counted from when the last one started, each waking a little
 * late; the exit frame when the program ends. */
static int write_frames(proc *p) {
    uint64_t now = p->start_mono + rng_range(&p->r, 50000, 150000);
    if (write_frame(p, SCOPE_FRAME_PERIODIC, now) < 0)
        return -1;
    for (;;) {
        uint64_t next =
            now + gen_frame_interval(now - p->start_mono) + rng_range(&p->r, 40000, 200000);
        if (next >= p->end_mono)
            break;
        simulate(p, now, next);
        if (write_frame(p, SCOPE_FRAME_PERIODIC, next) < 0)
            return -1;
        now = next;
    }
    simulate(p, now, p->end_mono);
    /* A run still going: its newest frame a periodic one, no shutdown. */
    return write_frame(p, p->cfg->live ? SCOPE_FRAME_PERIODIC : SCOPE_FRAME_EXIT, p->end_mono);
}

typedef struct totals {
    uint64_t files, bytes, frames, records;
} totals;

static int write_process(proc *p, totals *tot) {
    int fd = -1;
    int rc = open_log(p, &fd);
    if (rc == 0)
        rc = write_frames(p);
    if (rc == 0) {
        tot->files++;
        tot->bytes += scope_log_writer_bytes(p->w);
        tot->frames += scope_log_writer_frames(p->w);
        tot->records += p->records;
    }
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        rc = fail("%s: %s", p->path, strerror(errno));
    return rc;
}

/* ---- command line ---------------------------------------------------------------------- */

static void usage(FILE *f) {
    fputs(
        "usage: scope_gen_run --out RUN --procs N --hours H [--roles ROLE:COUNT,...]\n"
        "                     [--hosts K] [--threads T] [--seed S] [--resources] [--trace]\n"
        "                     [--jobs J] [--verify] [--live] [--lines]\n"
        "\n"
        "Writes RUN/workers/<host>/w_<run>_<pid>_<uuid>.scope for N processes recording\n"
        "for H hours (a decimal number), as the recorder writes them at default settings.\n"
        "  --roles      roles in rank order, counts summing to N (default actor:N-1,learner:1);\n"
        "               roles: actor, learner\n"
        "  --hosts      hosts the ranks are spread over (default N/8, rounded up)\n"
        "  --threads    recording threads per process: a main thread and T-1 helpers (default 2)\n"
        "  --seed       the same seed writes the same bytes (default 1)\n"
        "  --resources  also 1 Hz RESOURCE records, as a resource sampler would add\n"
        "  --trace      also a trace window's record (entries 100-110 of each process's\n"
        "               main phase; capped on rank 1), without its events\n"
        "  --lines      also line samples of this program's own code (gen_lines.h), for\n"
        "               the hot lines and the stacks\n"
        "  --jobs J     write J logs at a time, in J child processes (default 1); the\n"
        "               bytes are the same\n"
        "  --verify     read every file back and check it (bench/gen_verify.c and\n"
        "               gen_verify_snapshot.c)\n"
        "  --live       a run still going: it began H hours (and 4 s) before now, and no\n"
        "               process has shut down (its hosts are not this one, so a reader\n"
        "               judges it by how recent its frames are); its snapshots follow\n"
        "               the frames they follow in the run of the fixed start time, so a\n"
        "               seed gives the same figures whenever it runs (twice the work)\n"
        "\n"
        "scope_gen_run --check FILE...  checks existing logs as --verify does\n"
        "scope_gen_run --check-snapshots FILE...  only their snapshot frames (a --live run's)\n",
        f);
}

static const role_spec *find_role(const char *name, size_t len) {
    for (int i = 0; i < N_OF(roles); i++)
        if (strlen(roles[i].name) == len && !strncmp(roles[i].name, name, len))
            return &roles[i];
    return NULL;
}

static int parse_roles(gen_config *cfg, const char *s) {
    int sum = 0;
    cfg->nroles = 0;
    while (*s) {
        const char *colon = strchr(s, ':');
        char *end;
        if (!colon || cfg->nroles == MAX_ROLES)
            return fail("--roles: expected ROLE:COUNT[,ROLE:COUNT...], at most %d", MAX_ROLES);
        const role_spec *ro = find_role(s, (size_t)(colon - s));
        long n = strtol(colon + 1, &end, 10);
        if (!ro)
            return fail("--roles: unknown role '%.*s' (actor, learner)", (int)(colon - s), s);
        if (end == colon + 1 || n < 0 || n > 1000000 || (*end && *end != ','))
            return fail("--roles: bad count after '%.*s'", (int)(colon - s), s);
        cfg->role_of[cfg->nroles] = ro;
        cfg->role_count[cfg->nroles++] = (int)n;
        sum += (int)n;
        s = *end ? end + 1 : end;
    }
    if (sum != cfg->procs)
        return fail("--roles: counts sum to %d, --procs is %d", sum, cfg->procs);
    return 0;
}

static int parse_int(const char *opt, const char *s, long lo, long hi, int *v) {
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (errno || end == s || *end || n < lo || n > hi)
        return fail("%s: expected a whole number in %ld..%ld, got '%s'", opt, lo, hi, s);
    *v = (int)n;
    return 0;
}

static int parse_hours(const char *s, double *hours) {
    char *end;
    *hours = strtod(s, &end);
    if (end == s || *end || !(*hours > 0 && *hours <= 24 * 365))
        return fail("--hours: expected a positive number of hours, got '%s'", s);
    return 0;
}

static int parse_seed(const char *s, uint64_t *seed) {
    char *end;
    errno = 0;
    *seed = strtoull(s, &end, 10);
    if (errno || end == s || *end)
        return fail("--seed: expected a whole number, got '%s'", s);
    return 0;
}

/* One option's value into cfg; --roles waits for --procs, in *roles. */
static int set_option(gen_config *cfg, int opt, const char *arg, const char **roles) {
    switch (opt) {
    case 'o':
        cfg->out = arg;
        return 0;
    case 'r':
        *roles = arg;
        return 0;
    case 'R':
        cfg->resources = 1;
        return 0;
    case 'T':
        cfg->trace = 1;
        return 0;
    case 'l':
        cfg->lines = 1;
        return gen_lines_init();
    case 'v':
        cfg->verify = 1;
        return 0;
    case 'L':
        cfg->live = 1;
        return 0;
    case 'H':
        return parse_hours(arg, &cfg->hours);
    case 's':
        return parse_seed(arg, &cfg->seed);
    case 'p':
        return parse_int("--procs", arg, 1, 100000, &cfg->procs);
    case 'k':
        return parse_int("--hosts", arg, 1, 100000, &cfg->hosts);
    case 't':
        return parse_int("--threads", arg, 1, MAX_THREADS, &cfg->threads);
    case 'j':
        return parse_int("--jobs", arg, 1, 64, &cfg->jobs);
    default:
        usage(stderr);
        return -1;
    }
}

static int parse_args(int argc, char **argv, gen_config *cfg) {
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'},
        {"procs", required_argument, 0, 'p'},
        {"hours", required_argument, 0, 'H'},
        {"roles", required_argument, 0, 'r'},
        {"hosts", required_argument, 0, 'k'},
        {"threads", required_argument, 0, 't'},
        {"jobs", required_argument, 0, 'j'},
        {"seed", required_argument, 0, 's'},
        {"resources", no_argument, 0, 'R'},
        {"trace", no_argument, 0, 'T'},
        {"verify", no_argument, 0, 'v'},
        {"live", no_argument, 0, 'L'},
        {"lines", no_argument, 0, 'l'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *roles = NULL;
    memset(cfg, 0, sizeof *cfg);
    cfg->threads = 2;
    cfg->seed = 1;
    cfg->jobs = 1;
    for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
        if (c == 'h') {
            usage(stdout);
            exit(0);
        }
        if (set_option(cfg, c, optarg, &roles) < 0)
            return -1;
    }
    if (optind < argc || !cfg->out || !cfg->procs || cfg->hours <= 0) {
        usage(stderr);
        return -1;
    }
    if (!cfg->hosts)
        cfg->hosts = (cfg->procs + 7) / 8;
    /* Ranks start within 2 s and run H hours and up to 1.5 s more: a live
     * run's newest frames are then at most 4 s old. */
    cfg->wall0 = RUN_WALL0;
    if (cfg->live) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t now = (uint64_t)ts.tv_sec * GEN_SEC + (uint64_t)ts.tv_nsec;
        cfg->wall0 = now - (uint64_t)(cfg->hours * 3600 * 1e9) - 4 * GEN_SEC;
    }
    if (cfg->hosts > cfg->procs)
        return fail("--hosts %d: more hosts than processes", cfg->hosts);
    char def[64];
    snprintf(def, sizeof def, cfg->procs > 1 ? "actor:%d,learner:1" : "learner:1", cfg->procs - 1);
    return parse_roles(cfg, roles ? roles : def);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int verify_files(char **paths, int n, int snapshots_only) {
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += (snapshots_only ? gen_verify_snapshots(paths[i], stderr)
                               : gen_verify_file(paths[i], stderr)) != 0;
    if (bad)
        fprintf(stderr, "scope_gen_run: %d of %d files failed verification\n", bad, n);
    else
        printf("verified %d files: ok\n", n);
    return bad ? -1 : 0;
}

/* A --live run's frames carry wall-clock times counted back from now, and
 * their compressed sizes move by a few bytes with them.  The byte rule would
 * then put a snapshot after another frame from one run to the next, and two
 * runs of one seed would show other histograms (the browser's live screens
 * are compared with saved ones).  So the process is first written to
 * /dev/null as if it had started at the fixed time, and the frames its
 * snapshots followed there are the plan the real file follows. */
static int plan_snapshots(const gen_config *cfg, proc *p, int index) {
    gen_config fixed = *cfg;
    fixed.wall0 = RUN_WALL0;
    proc *dry = malloc(sizeof *dry);
    if (!dry)
        return fail("out of memory");
    int fd = -1, rc = proc_init(dry, &fixed, index);
    snprintf(dry->path, sizeof dry->path, "/dev/null (rank %d's snapshot plan)", index);
    if (rc == 0 && (fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
        rc = fail("/dev/null: %s", strerror(errno));
    if (rc == 0)
        rc = open_writer(dry, fd);
    if (rc == 0) {
        dry->planning = 1;
        rc = write_frames(dry);
    }
    if (rc == 0 && dry->planning < 0)
        rc = fail("rank %d: out of memory for its snapshot plan", index);
    if (rc == 0) {
        p->plan = dry->plan;
        p->nplan = dry->nplan;
        dry->plan = NULL;
    }
    if (fd >= 0)
        close(fd);
    proc_free(dry);
    free(dry);
    return rc;
}

/* Writes the logs of ranks first, first + step, ... */
static int write_share(const gen_config *cfg, proc *p, int first, int step, totals *tot) {
    int rc = 0;
    for (int i = first; i < cfg->procs && rc == 0; i += step) {
        rc = proc_init(p, cfg, i);
        if (rc == 0 && cfg->live)
            rc = plan_snapshots(cfg, p, i);
        if (rc == 0)
            rc = write_process(p, tot);
        proc_free(p);
    }
    return rc;
}

/* --jobs: child k writes ranks k, k + jobs, ... and sends its totals back
 * through a pipe; each process's bytes depend on its rank alone. */
static int write_in_children(const gen_config *cfg, proc *p, totals *tot) {
    int fds[64][2], rc = 0, started = 0;
    pid_t pids[64];
    fflush(NULL);
    for (; started < cfg->jobs; started++) {
        if (pipe(fds[started]) < 0) {
            rc = fail("pipe: %s", strerror(errno));
            break;
        }
        pids[started] = fork();
        if (pids[started] < 0) {
            rc = fail("fork: %s", strerror(errno));
            close(fds[started][0]);
            close(fds[started][1]);
            break;
        }
        if (pids[started] == 0) {
            totals mine = {0};
            close(fds[started][0]);
            int bad = write_share(cfg, p, started, cfg->jobs, &mine) < 0;
            bad |= write(fds[started][1], &mine, sizeof mine) != (ssize_t)sizeof mine;
            _exit(bad);
        }
        close(fds[started][1]);
    }
    for (int k = 0; k < started; k++) {
        totals part;
        int status;
        if (read(fds[k][0], &part, sizeof part) == (ssize_t)sizeof part) {
            tot->files += part.files;
            tot->bytes += part.bytes;
            tot->frames += part.frames;
            tot->records += part.records;
        }
        close(fds[k][0]);
        if (waitpid(pids[k], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
            rc = -1;
    }
    return rc;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "--check"))
        return verify_files(argv + 2, argc - 2, 0) == 0 ? 0 : 1;
    if (argc >= 2 && !strcmp(argv[1], "--check-snapshots"))
        return verify_files(argv + 2, argc - 2, 1) == 0 ? 0 : 1;
    gen_config cfg;
    if (parse_args(argc, argv, &cfg) < 0)
        return 2;
    uint64_t x = cfg.seed;
    snprintf(cfg.run_id, sizeof cfg.run_id, "20261130T1200-%06" PRIx64, splitmix64(&x) & 0xffffff);
    char **paths = calloc((size_t)cfg.procs, sizeof *paths);
    proc *p = malloc(sizeof *p);
    if (!paths || !p) {
        fail("out of memory");
        return 1;
    }
    totals tot = {0};
    double t0 = now_s();
    int rc = cfg.jobs > 1 ? write_in_children(&cfg, p, &tot) : write_share(&cfg, p, 0, 1, &tot);
    for (int i = 0; i < cfg.procs && rc == 0; i++) {
        char dir[4096];
        rc = proc_init(p, &cfg, i);
        if (rc == 0)
            rc = log_path(p, dir, sizeof dir);
        paths[i] = strdup(p->path);
        proc_free(p);
    }
    if (rc == 0) {
        double per_ph = (double)tot.bytes / 1024.0 / ((double)cfg.procs * cfg.hours);
        printf("%" PRIu64 " files, %" PRIu64 " bytes, %" PRIu64 " frames, %" PRIu64
               " records in %s (%.1f KiB per process-hour, %.1f s)\n",
               tot.files, tot.bytes, tot.frames, tot.records, cfg.out, per_ph, now_s() - t0);
        fflush(stdout);
    }
    if (rc == 0 && cfg.verify)
        rc = verify_files(paths, cfg.procs, 0);
    for (int i = 0; i < cfg.procs; i++)
        free(paths[i]);
    free(paths);
    free(p);
    return rc == 0 ? 0 : 1;
}
