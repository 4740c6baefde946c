/*
 * The analysis model: a run directory turned into every figure the views
 * show.  The text report, JSON, compare, check and the terminal browser all
 * read their numbers from here and compute none of their own, so they cannot
 * disagree.
 *
 * Loading reads every log under RUN/workers/<host>/ (in parallel, streaming:
 * memory grows with phases and processes, not with the length of the run),
 * keeps each process's newest aggregates, groups processes into attempts
 * (run ids) and, for the newest attempt, merges them by role into one phase
 * tree per role.
 *
 * "Measured zero" and "could not measure" are kept apart everywhere: a
 * figure that was not measured is NAN (doubles) or has its `has_` flag clear,
 * and renderers print it as missing, never as 0.
 *
 * Names are bytes as the program gave them (run_str): possibly invalid
 * UTF-8, possibly holding control characters.  Renderers escape them
 * (text_escape.h); caveat texts here are already escaped.
 */
#ifndef SCOPE_RUN_MODEL_H
#define SCOPE_RUN_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* Bytes from a log, NUL-terminated for convenience (they may hold NUL too:
 * use len).  Owned by the model. */
typedef struct run_str {
    const char *s;
    size_t len;
} run_str;

/* ---- workers (one log file = one process) ------------------------------ */

enum run_end {
    RUN_END_EXIT,    /* shut down cleanly (exit or scope_shutdown) */
    RUN_END_SIGNAL,  /* a signal ended it after flushing its last figures */
    RUN_END_KILLED,  /* never shut down, and not running now: SIGKILL, a crash, a lost node
                        (or, on another host, a process whose last frame is not recent) */
    RUN_END_UNKNOWN, /* its log could not be read at all */
    RUN_END_RUNNING, /* no ending yet: still running (run_live.h says how that is judged) */
};

typedef struct run_worker {
    run_str path;    /* relative to the run directory: workers/<host>/w_....scope */
    int readable;    /* 0: the log could not be opened at all (see the caveats) */
    int has_process; /* its PROCESS record was read: identity below is known */
    run_str run_id, uuid, host, role, job_id, step_id, exe, cwd, recorder_version;
    int64_t pid, ppid;
    int32_t rank, local_rank, node_rank, world_size; /* -1 when no launcher said */
    uint64_t start_wall_ns;                          /* recorder start */
    uint64_t start_mono_ns;                          /* the same, CLOCK_MONOTONIC of its host */
    uint64_t last_wall_ns;                           /* its newest intact frame */
    uint64_t last_mono_ns;       /* the same frame's CLOCK_MONOTONIC: with last_wall_ns, one pair */
    uint64_t last_in_attempt_ns; /* the same, as time since its attempt began (0: attempt
                                    unknown) */
    uint64_t runtime_ns;         /* last_wall - start_wall */
    uint64_t frames;             /* intact frames read */
    uint64_t frames_lost;        /* from gaps in sequence numbers */
    uint64_t bytes_skipped;      /* damaged or truncated bytes */
    int truncated;               /* the file ends inside a frame */

    run_str launcher, array_job_id; /* empty when no launcher said (logs before 1.5) */
    int32_t array_task, restarts;   /* -1 when no launcher said */

    enum run_end end;
    int end_signal;        /* RUN_END_SIGNAL: the signal number */
    int stale;             /* stopped writing well before the run ended */
    uint64_t stale_ns;     /* how long before the run's end it last wrote */
    uint64_t unbalanced;   /* unbalanced phase ends and phases left open */
    uint64_t dropped;      /* entries or counts the recorder could not keep */
    int flush_failed;      /* some frames could not be written when due */
    uint32_t nthreads;     /* threads that recorded something */
    uint64_t phase_ns;     /* sum of its top-level phase totals over its threads */
    uint64_t line_samples; /* its line samples as its log counts them (overruns included) */
    size_t attempt;        /* index into run_model.attempts; SIZE_MAX when unknown */
    size_t role_index;     /* index into run_model.roles; SIZE_MAX outside the attempt shown */
    size_t ncaveats;       /* caveats naming this worker */
    /* Its trace window (SCOPE_TRACE), as its newest TRACE_WINDOW record
     * said; trace_state is -1 when it asked for none.  The events stay in
     * the log: `export --format chrome` reads them (log_trace.h). */
    int trace_state; /* enum scope_trace_state, or -1 */
    run_str trace_phase;
    uint64_t trace_first, trace_last;
    uint64_t trace_start_mono_ns, trace_end_mono_ns; /* 0: not yet */
    uint64_t trace_events, trace_cap, trace_lost;
    /* Its resource samples as read (res_proc.h; run_resources.h reads them);
     * NULL when it has none or they were not loaded (run_options.no_samples). */
    const struct res_proc *res;
} run_worker;

/* ---- attempts ----------------------------------------------------------- */

typedef struct run_attempt {
    run_str run_id;
    size_t nworkers;
    uint64_t start_wall_ns, end_wall_ns;
} run_attempt;

/* ---- caveats ------------------------------------------------------------ */

enum run_caveat_kind {
    RUN_CAVEAT_UNREADABLE,   /* the log could not be read at all: the worker is lost */
    RUN_CAVEAT_NO_IDENTITY,  /* its first frame was lost: run and role unknown, left out */
    RUN_CAVEAT_DAMAGED,      /* corrupt stretches skipped */
    RUN_CAVEAT_TRUNCATED,    /* ends inside a frame */
    RUN_CAVEAT_KILLED,       /* never shut down cleanly */
    RUN_CAVEAT_SIGNALED,     /* ended by a signal (its figures were flushed) */
    RUN_CAVEAT_STALE,        /* stopped writing well before the run ended */
    RUN_CAVEAT_UNBALANCED,   /* unbalanced phases */
    RUN_CAVEAT_DROPPED,      /* the recorder dropped data */
    RUN_CAVEAT_FLUSH_FAILED, /* frames could not be written when due */
    RUN_CAVEAT_RECORDER,     /* a caveat the recorder wrote itself */
    RUN_CAVEAT_INCONSISTENT, /* records that cannot be placed: definitions lost or contradicted */
    RUN_CAVEAT_SUPERSEDED,   /* run-level: older attempts exist and are not merged */
    RUN_CAVEAT_LINES,        /* line samples lost, unsampled, or not symbolized to lines */
    RUN_CAVEAT_RESOURCES,    /* resource figures partly from a snapshot's series: approximate */
    RUN_CAVEAT_CAPPED,       /* definitions past the reader's caps left out (read_caps.h) */
    RUN_CAVEAT_KIND_LIMIT
};

typedef struct run_caveat {
    enum run_caveat_kind kind;
    size_t worker; /* index into run_model.workers; SIZE_MAX for the run as a whole */
    char *text;    /* one plainly worded sentence, names already escaped */
} run_caveat;

const char *run_caveat_kind_name(enum run_caveat_kind kind); /* "truncated", ... */

/* How a worker ended, as report --json and the reader API spell it: "exit",
 * "signal", "killed", "running" or "unknown". */
const char *run_end_name(enum run_end end);

/* ---- figures ------------------------------------------------------------ */

/* A distribution of entry durations, from the merged histograms, or exact
 * where every merged entry's duration is known (exact_pct). */
typedef struct run_dist {
    uint64_t count; /* entries */
    uint64_t total_ns;
    double mean_ns;                /* NAN when count == 0 */
    double p50_ns, p95_ns, p99_ns; /* NAN when no histogram was recorded */
    uint64_t min_ns, max_ns;       /* exact, from the aggregates; 0 when count == 0 */
    int exact_pct; /* 1: p50/p95/p99 are order statistics of every entry's duration (a source
                      that keeps each interval), not estimates from the histogram */
} run_dist;

/* A counter under the phase it was counted in, summed over the processes
 * and threads merged into that phase. */
typedef struct run_counter {
    run_str name;
    uint64_t calls;
    int64_t total;
    double rate_per_s;  /* total per second of the phase's own total time; NAN when the
                           phase has no time (counted with no phase open) */
    double ns_per_unit; /* the phase's total time per unit counted; NAN when total <= 0 */
} run_counter;

/* How deep phases nest in the model: depth 1 .. RUN_MAX_DEPTH.  The
 * recorder nests at most 255 deep (its REC_MAX_DEPTH counts a root
 * sentinel); a damaged log may chain any number of nodes, and those below
 * this depth are left out as inconsistent, so that every walk of the tree,
 * recursive in the merge and in the renderers, stays shallow. */
#define RUN_MAX_DEPTH 256
_Static_assert(RUN_MAX_DEPTH >= 255, "the model holds every depth the recorder records");

/* A bucket of a phase's histogram that holds entries (scope/log_hist.h
 * numbers the buckets). */
typedef struct run_hist_bin {
    uint32_t bucket;
    uint64_t count;
} run_hist_bin;

/* One process's total in a phase: proc indexes run_role.workers.  count
 * and open_ns are its completed entries and the time of its entries still
 * open (in ns, not in count), so that its own mean time per entry is known:
 * compare and check read the spread of those means as noise (run_noise.h). */
typedef struct run_proc_ns {
    size_t proc;
    double ns;
    uint64_t count;
    uint64_t open_ns;
    uint64_t cpu_ns; /* the thread CPU time of its entries whose CPU time was read */
} run_proc_ns;

typedef struct run_phase run_phase;
struct run_phase {
    run_str name;
    run_phase *parent;    /* NULL for the role's root */
    run_phase **children; /* sorted by total, largest first */
    size_t nchildren;
    unsigned depth; /* 0: the role's root; 1: top-level phases; at most RUN_MAX_DEPTH */
    uint32_t flags; /* SCOPE_PHASE_F_* of any merged node */

    size_t open_threads;          /* threads that had it open at their log's newest frame, or
                                     left it open when their thread or log ended */
    uint64_t open_ns;             /* the time of its entries open at their process's newest frame,
                                     up to that frame: in dist.total_ns, not in its count, mean
                                     or percentiles (0 for logs before format 1.4, whose open
                                     entries add nothing) */
    run_dist dist;                /* count, total, percentiles */
    uint64_t self_ns;             /* total minus its children's totals (never below 0) */
    double share;                 /* total / the role's phase time, 0..1 */
    double wait;                  /* share of wall time off CPU, 0..1; NAN when not measured */
    double queued;                /* the part of it runnable, waiting for a CPU (run delay),
                                     0..wait; NAN when not measured (logs before format 1.9,
                                     a kernel without schedstat) */
    uint64_t cpu_count;           /* entries whose CPU time was read */
    uint64_t hist_count;          /* entries in the histogram, what the percentiles rest on: fewer
                                     than dist.count when a log ended after a frame that sent
                                     its counts without a fresh histogram (run_phase_hist_partial) */
    uint64_t cpu_wall_ns, cpu_ns; /* their wall and thread CPU time */
    uint64_t delay_count;         /* of those, entries whose run delay was read */
    uint64_t delay_wall_ns, delay_ns; /* their wall time and run delay */

    /* Spread across the role's processes that recorded this phase (their
     * totals, ns); nprocs of the role's processes did. */
    size_t nprocs;
    double spread_min_ns, spread_median_ns, spread_max_ns;
    size_t spread_max_worker; /* index into run_model.workers */
    /* Their totals, one per process that entered it (nprocs), in the
     * order of run_role.workers; run_phase_proc_ns looks one up.  Only
     * those that entered it: a phase of a role of 1,000 processes that
     * one of them entered costs one. */
    run_proc_ns *per_proc;

    /* The histogram of every merged entry: its buckets with entries, in
     * bucket order (nhist of them), so that a phase of a few entries costs
     * a few; NULL when none was recorded (run_phase_hist_at reads one). */
    run_hist_bin *hist;
    size_t nhist;

    run_str file;     /* source file of the first call site recorded; len 0 when none */
    uint32_t line;    /* 0 when not recorded */
    size_t file_proc; /* the process (index into run_role.workers) that gave file: the first,
                         by the role's order, even when partial models are merged */
    run_str tags;     /* its tags, one per line (imported files); len 0 when none */

    run_counter *counters; /* sorted by name */
    size_t ncounters;

    /* Exact per-phase I/O (SCOPE_PHASE_IO); io_measured 0: none measured. */
    int io_measured;
    uint64_t io_count, io_failed, disk_read, disk_write, char_read, char_write;
    uint64_t cache_read;     /* read by the phase but served from page cache:
                                char_read - disk_read, never below 0 */
    double disk_bytes_per_s; /* disk reads and writes per second of the phase's
                                time; NAN when not measured or no time */

    /* Sampled I/O (the 1 Hz sampler): the bytes of the intervals that began
     * while this phase was the innermost open on the thread that moved them.
     * Attribution has the resolution of one interval.  smp_io 0: none. */
    int smp_io;
    uint64_t smp_disk_read, smp_disk_write, smp_char_read, smp_char_write;
};

typedef struct run_role {
    run_str name;
    size_t nprocs;
    size_t *workers;       /* indexes into run_model.workers, by rank then pid */
    uint64_t phase_ns;     /* sum of its processes' phase time */
    uint64_t line_samples; /* sum of its processes' line samples */
    double imbalance;      /* max over processes of their phase time / the mean; NAN when
                              no process recorded any phase time */
    size_t slowest_worker; /* the process with the most phase time (SIZE_MAX: none) */
    run_phase *root;       /* synthetic root; its children are the top-level phases */
    size_t nphases;        /* phases in the tree, root excluded */

    run_counter *unattached; /* counted with no phase open */
    size_t nunattached;

    run_phase **dominant; /* the phases with the most self time, most first */
    size_t ndominant;

    struct run_res *res; /* its resources, computed on first use (run_resources.h) */

    int has_iterations;  /* some phase is named like the iteration phase */
    run_dist iterations; /* entries of the outermost phases of that name, merged */
} run_role;

typedef struct run_model {
    char *dir;
    /* What dir is when it is not a run directory, in a few words for the
     * header ("scope-profiler HDF5, schema 1, MPI size 3, ..."); len 0 for a
     * run directory. */
    run_str source;
    char *iteration_name;

    run_worker *workers; /* every log found, sorted by path */
    size_t nworkers;

    run_attempt *attempts; /* oldest first; the last is the newest */
    size_t nattempts;
    /* The attempt shown: the newest unless run_options.attempt chose
     * another.  Everything below is of that attempt alone. */
    size_t shown_attempt;

    /* The attempt shown.  nrunning of its processes are running still
     * (RUN_END_RUNNING): the run is in progress, and its figures are as of
     * each process's newest frame. */
    size_t nprocs;
    size_t nrunning;
    uint64_t start_wall_ns, end_wall_ns, runtime_ns;
    run_str *hosts; /* distinct, sorted */
    size_t nhosts;
    size_t nranked; /* processes with a rank */
    int32_t rank_min, rank_max;
    run_str job_id;  /* the first non-empty job id; len 0 when none */
    size_t njob_ids; /* distinct job ids (more than one is worth saying) */

    run_str launcher; /* the first non-empty launcher name, by path; len 0 when none */
    run_str *steps;   /* distinct non-empty step ids, in numeric order */
    size_t nsteps;
    run_str array_job_id; /* a Slurm array task's array and task: len 0 and -1 */
    int32_t array_task;
    int32_t restarts; /* the most restarts a process of the attempt saw; -1 none said */

    /* By phase time, most first; in a run without phases (no role
     * recorded one, roles_by_samples set) by line samples, most first.
     * Ties by name. */
    run_role *roles;
    size_t nroles;
    int roles_by_samples;

    run_caveat *caveats; /* run-level first, then by worker */
    size_t ncaveats;
    size_t cap_caveats; /* room in caveats (scope/vec.h) */

    int no_samples;            /* loaded with run_options.no_samples: no resources read */
    struct run_res *all_res;   /* run_all_res's, computed on first use */
    struct run_res **proc_res; /* run_worker_res's, per worker; NULL until asked */
} run_model;

typedef struct run_options {
    const char *iteration_name; /* NULL: "iteration" */
    size_t ndominant;           /* 0: 8 */
    int threads;                /* loader threads; 0: the number of CPUs, at most 8 */
    int no_samples;             /* skip the resource samples: phases only, loads faster */
    int read_all; /* read every log whole, not from its newest snapshot (docs/format.md 9.8):
                     for what needs every event before it, such as an export */
    /* Logs smaller than this are read whole even without read_all: reading
     * them costs little, and the events before a snapshot are what give
     * each interval's I/O to its phase and the exact resource intervals.
     * 0: RUN_SNAPSHOT_MIN_BYTES. */
    uint64_t snapshot_min_bytes;
    /* The attempt to show, 1 the oldest (the number `report` and the
     * Overview give it); 0: the newest.  One past the last fails the load
     * (RUN_ERR_NO_ATTEMPT). */
    size_t attempt;
} run_options;

/* A log of at least this many bytes is read from its newest snapshot:
 * about an hour of a process with its 1 Hz resource samples. */
#define RUN_SNAPSHOT_MIN_BYTES (256u << 10)

/* Whether the run's first screen is its hot lines: it has line samples
 * and no phases (roles_by_samples). */
int run_opens_on_lines(const run_model *m);

/* The order of m->roles in words ("roles by line samples, most first"),
 * for every list of roles to state. */
const char *run_role_order(const run_model *m);

/* Why a run could not be loaded at all (one worker failing is a caveat,
 * not an error). */
enum run_load_error {
    RUN_OK = 0,
    RUN_ERR_NOT_FOUND,   /* no such path */
    RUN_ERR_NOT_DIR,     /* a file where a run directory is expected */
    RUN_ERR_PERMISSION,  /* cannot list or read */
    RUN_ERR_NOT_RUN,     /* a directory with no workers/ and no logs */
    RUN_ERR_EMPTY,       /* workers/ holds no logs */
    RUN_ERR_NO_READABLE, /* logs, but none could be read */
    RUN_ERR_NO_ATTEMPT,  /* run_options.attempt names no attempt of the run */
    RUN_ERR_NOMEM,
    RUN_ERR_IO,
};

/* Loads the run at dir through the first loader that reads it (run_load.h;
 * a run directory unless another loader claims the path).  Returns RUN_OK
 * with *out set, or an error with one plain line in msg (naming the path)
 * and *out NULL. */
enum run_load_error run_load(const char *dir, const run_options *opt, run_model **out, char *msg,
                             size_t msglen);

/* Frees the model and everything it handed out; NULL does nothing. */
void run_free(run_model *m);

/* ---- lookups ------------------------------------------------------------ */

/* Names compared as the bytes they are: equal, and ordered bytewise (a
 * shorter name before a longer one it begins). */
int run_str_eq(run_str a, run_str b);
int run_str_cmp(run_str a, run_str b);

/* The role named exactly `name` (NUL-terminated), NULL when none. */
const run_role *run_find_role(const run_model *m, const char *name);

/* The phase of `role` at a '/'-separated name path ("iteration/self_play"),
 * NULL when none.  A name holding '/' needs run_phase_child. */
const run_phase *run_find_phase(const run_role *role, const char *path);
const run_phase *run_phase_child(const run_phase *parent, const char *name, size_t len);

/* The phase's path from its top-level ancestor, names joined with '/' and
 * escaped (text_escape.h), into buf.  Returns buf. */
const char *run_phase_path(const run_phase *p, char *buf, size_t cap);

/* The worker's short label for tables and caveats, escaped: "role rank R
 * (pid N on host)", or "role pid N on host" without a rank, or its log's
 * path when its identity was lost.  Returns buf. */
const char *run_worker_label(const run_model *m, size_t worker, char *buf, size_t cap);

/* ---- one process alone --------------------------------------------------- */

/* The phase tree of one process alone: its threads merged by name path as a
 * role of one process is, with every figure computed the same way (shares of
 * that process's phase time, a spread of one process, imbalance 1.00, its
 * dominant phases and iterations).  For the browser's process filter.  Kept
 * by the model until run_free: later calls return the same pointer.  NULL
 * when the worker is not in the newest attempt (role_index SIZE_MAX) or when
 * memory runs out.
 *
 * Its name is the worker's role, nprocs 1 and workers {worker}; the
 * dominant phases and iterations follow the options the model was loaded
 * with.  As for any role, a process with no phase time has imbalance NAN
 * and slowest_worker SIZE_MAX.  Focusing changes nothing already in the
 * model: its roles, figures and caveats stay as loaded. */
const run_role *run_worker_role(run_model *m, size_t worker);

/* The phase's total in the role's process k (run_role.workers[k]); NAN
 * when that process never entered it. */
double run_phase_proc_ns(const run_phase *p, size_t k);

/* The share of the top-level phases' time their threads spent waiting for
 * a CPU (their run delay over the wall time of the entries that read it),
 * over every role; NAN when no phase measured it (logs before format 1.9). */
double run_queued_share(const run_model *m);

/* A run whose phases spent at least this share of their time waiting for
 * a CPU ran on a loaded host (a quiet machine's run delays stay near 1%):
 * the report's header and compare's run lines say so. */
#define RUN_LOADED_QUEUED 0.10

/* ---- histograms ------------------------------------------------------------ */

/* The phase's entries in bucket b of its histogram (0 when none, or when
 * it has no histogram). */
uint64_t run_phase_hist_at(const run_phase *p, uint32_t b);

/* The phase's duration histogram folded into ncols columns spread evenly
 * over a logarithmic axis from its shortest to its longest recorded bucket,
 * for a sparkline: cols[i] counts the entries whose bucket middle falls in
 * column i.  Sets *lo_ns and *hi_ns to the axis' ends.  Returns the entries
 * folded, 0 when the phase has no histogram (cols all zero). */
uint64_t run_hist_fold(const run_phase *p, size_t ncols, uint64_t *cols, double *lo_ns,
                       double *hi_ns);

#endif
