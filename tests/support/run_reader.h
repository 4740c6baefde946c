/* A test-only reader of a whole run directory: every log under
 * RUN/workers/<host>/ read through scope_log_reader and kept as plain
 * arrays, so the recorder's tests can say "thread 3 entered iteration/mcts
 * 9,111 times" in one line.  It follows docs/format.md to the letter (ids
 * are per file, the newest aggregate wins, definitions never change) and
 * reports every departure from it instead of papering over it: the real
 * analysis comes later and must not inherit a lenient reading.
 *
 * Nothing here is fast or clever; logs in tests are small. */
#ifndef SCOPE_TESTS_RUN_READER_H
#define SCOPE_TESTS_RUN_READER_H

#include <scope/log_format.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes copied out of the log, with a NUL after them for convenience (the
 * bytes themselves may hold NUL: use len). */
typedef struct rr_bytes {
    char *ptr;
    size_t len;
} rr_bytes;

typedef struct rr_process {
    rr_bytes run_id, uuid, host, role, job_id, step_id, exe, cwd, recorder_version;
    int64_t pid, ppid;
    int32_t rank, local_rank, node_rank, world_size;
    uint64_t start_wall_ns, start_mono_ns;
    uint32_t argc;
    rr_bytes *argv;
} rr_process;

typedef struct rr_string {
    uint32_t id;
    rr_bytes value;
} rr_string;

typedef struct rr_thread {
    uint32_t index;
    int64_t tid;
    uint64_t start_mono_ns;
    rr_bytes name;
} rr_thread;

/* The newest PHASE_AGG of a node, histogram reduced to its totals.  A
 * record without bins replaces the scalars and keeps the histogram of the
 * newest one that had bins (docs/format.md, 5.7). */
typedef struct rr_agg {
    uint64_t count, wall_ns, min_ns, max_ns;
    uint64_t cpu_count, cpu_wall_ns, cpu_ns;
    uint64_t delay_count, delay_wall_ns, delay_ns; /* run delay, format 1.9 */
    uint32_t io_flags;
    uint64_t io_count, io_failed, disk_read, disk_write, char_read, char_write;
    uint64_t frame_seq; /* frame that carried these scalars */
    int has_hist;       /* some PHASE_AGG of the node had bins */
    uint32_t nbins;
    uint64_t bins_total;     /* sum of the bins' counts */
    uint64_t median_ns;      /* the largest duration of the bucket that holds the middle entry */
    int bins_increasing;     /* buckets strictly increasing, as the format requires */
    uint64_t hist_frame_seq; /* frame that carried the histogram */
} rr_agg;

typedef struct rr_node {
    uint32_t id, parent, name, thread, flags, file, line;
    int has_agg;
    rr_agg agg;
} rr_node;

/* The newest COUNTER record of an id. */
typedef struct rr_counter {
    uint32_t id, name, node, thread;
    uint64_t calls;
    int64_t total;
    uint64_t frame_seq;
} rr_counter;

typedef struct rr_mark {
    uint32_t kind, thread;
    uint64_t mono_ns;
    int64_t value;
    rr_bytes text;
    uint64_t frame_seq;    /* the frame that carried it */
    uint32_t frame_reason; /* and why that frame was closed */
} rr_mark;

/* A RESOURCE record, its GPU entries copied (up to RR_MAX_GPUS). */
#define RR_MAX_GPUS 8
typedef struct rr_resource {
    scope_rec_resource r; /* r.gpus is NULL: the entries are in gpus */
    uint32_t ngpus;
    scope_gpu_figures gpus[RR_MAX_GPUS];
    uint64_t frame_seq;    /* the frame that carried it */
    uint32_t frame_reason; /* and why that frame was closed */
} rr_resource;

/* Line sampling (format 1.3): definitions as first met, counts newest per
 * (thread, node, stack), the newest LINES record. */
typedef struct rr_module {
    uint32_t id;
    rr_bytes path;
    uint8_t build_id[64];
    size_t build_id_len;
    uint64_t base, size;
} rr_module;

typedef struct rr_stack {
    uint32_t id, nframes;
    scope_frame_addr *frames; /* innermost first */
} rr_stack;

typedef struct rr_sample_count {
    uint32_t thread, node, stack;
    uint64_t count, period_ns;
    uint32_t state; /* enum scope_cpu_state: ON from STACK_SAMPLES, else OFFCPU_SAMPLES' */
} rr_sample_count;

typedef struct rr_frame {
    uint64_t offset, seq, mono_ns, wall_ns;
    uint32_t reason;
    uint32_t nrec[SCOPE_REC_TYPE_LIMIT]; /* records of each known kind in the frame */
} rr_frame;

typedef struct rr_log {
    char *path;
    int open_rc;        /* scope_log_reader_open's result: 0, or a negative errno */
    char open_msg[256]; /* its message when it failed */
    uint64_t file_size;

    int has_process;
    int nprocess; /* PROCESS records met (a writer may repeat it, identically) */
    rr_process process;

    rr_string *strings;
    size_t nstrings;
    rr_thread *threads;
    size_t nthreads;
    rr_node *nodes;
    size_t nnodes;
    rr_counter *counters;
    size_t ncounters;
    rr_mark *marks;
    size_t nmarks;
    rr_frame *frames;
    size_t nframes;
    rr_resource *resources; /* in the order read */
    size_t nresources;
    scope_log_damage *damage;
    size_t ndamage;
    rr_module *modules;
    size_t nmodules;
    rr_stack *stacks;
    size_t nstacks;
    rr_sample_count *samples;
    size_t nsamples;
    int has_lines; /* a LINES record was read: `lines` is the newest */
    scope_rec_lines lines;
    rr_bytes lines_project; /* lines.project, copied */

    /* Departures from docs/format.md found while reading, counted, the
     * first few described in `problems` (one per line). */
    size_t nconflicts; /* an id defined twice with different fields */
    size_t ndangling;  /* an aggregate or counter whose node/name/thread is never defined */
    size_t nbad_aggs;  /* aggregates that contradict themselves (see rr_check_agg) */
    size_t nunknown;   /* records of kinds this reader does not know */
    char problems[2048];
} rr_log;

typedef struct rr_run {
    char *dir;
    rr_log *logs; /* sorted by file name */
    size_t nlogs;
} rr_run;

/* ---- loading ------------------------------------------------------------ */

/* Reads one log.  Returns 0, or the negative errno of a failed open (also
 * kept in log->open_rc with its message); the log is filled either way and
 * must be freed with rr_log_free. */
int rr_load_file(const char *path, rr_log *log);
void rr_log_free(rr_log *log);

/* Reads every *.scope file under RUN/workers/<any>/.  Returns the number of
 * logs read (0 when RUN/workers does not exist), or a negative errno when a
 * directory could not be listed.  The run must be freed with rr_free. */
int rr_load(const char *run_dir, rr_run *run);
void rr_free(rr_run *run);

/* The log files under RUN/workers/<any>/ without reading them: the number
 * found, with the first one's path in `first` when given.  For drivers
 * that wait for a live process's log. */
int rr_list(const char *run_dir, char *first, size_t cap);

/* ---- lookups ------------------------------------------------------------ */

/* NULL when the id is not defined. */
const rr_bytes *rr_str(const rr_log *log, uint32_t id);
const rr_node *rr_node_by_id(const rr_log *log, uint32_t id);
const rr_thread *rr_thread_by_index(const rr_log *log, uint32_t index);
const rr_thread *rr_thread_named(const rr_log *log, const char *name);

/* Whether string id `id` holds exactly these bytes. */
int rr_str_is(const rr_log *log, uint32_t id, const void *bytes, size_t len);

/* The node of `thread` (an index) at a name path such as "iteration/mcts";
 * NULL when there is none.  A name holding '/' needs rr_child. */
const rr_node *rr_find(const rr_log *log, uint32_t thread, const char *path);

/* The child of node `parent` (0: top level) on `thread` named exactly
 * `name` (len bytes). */
const rr_node *rr_child(const rr_log *log, uint32_t thread, uint32_t parent, const void *name,
                        size_t len);

/* The full name path of a node ("a/b/c") into buf; "(phase #N)" for parts
 * whose definitions are missing. */
const char *rr_path_of(const rr_log *log, const rr_node *n, char *buf, size_t cap);

/* Entries at `path` summed over every thread (newest aggregates); *nodes
 * gets how many nodes matched, when given. */
uint64_t rr_path_count(const rr_log *log, const char *path, size_t *nodes);

/* Total of counter `name` counted while `path` was open ("" or NULL: with no
 * phase open), on `thread` (0: summed over every thread); calls in *calls
 * when given. */
int64_t rr_counter_total(const rr_log *log, uint32_t thread, const char *path, const char *name,
                         uint64_t *calls);

/* Marks of `kind` whose text contains `substr` (NULL: any); the first in
 * *first when given. */
size_t rr_marks(const rr_log *log, uint32_t kind, const char *substr, const rr_mark **first);

/* Distinct run ids among the logs' PROCESS records. */
size_t rr_run_ids(const rr_run *run);

/* The log whose PROCESS role is `role`, the n-th (0-based) of them. */
const rr_log *rr_log_with_role(const rr_run *run, const char *role, size_t n);

/* ---- checks and printing ------------------------------------------------ */

/* Whether an aggregate is consistent with itself: a histogram whenever
 * entries completed, its bins summing to at most the count (a writer may
 * bucket a little behind a node it copies while the owner updates it),
 * buckets increasing, min <= max, count*min <= wall <= count*max, the CPU
 * subset within the whole.  0 when it is, else 1 with the reason in why. */
int rr_check_agg(const rr_agg *a, char *why, size_t cap);

/* Whether the log reads back whole: opened, no damage, no conflicting or
 * dangling definitions, consistent aggregates, frames numbered 0, 1, 2...
 * with no gap.  0 when clean, else 1 with the first problem in why. */
int rr_check_clean(const rr_log *log, char *why, size_t cap);

/* A readable dump of what was read, for failure messages. */
void rr_print(FILE *out, const rr_log *log);

/* ---- line samples --------------------------------------------------------- */

const rr_module *rr_module_by_id(const rr_log *log, uint32_t id);
const rr_stack *rr_stack_by_id(const rr_log *log, uint32_t id);
/* Samples of thread (0: every thread) with node open (UINT32_MAX: any
 * node), summed over stacks. */
uint64_t rr_samples_of(const rr_log *log, uint32_t thread, uint32_t node);

#endif
