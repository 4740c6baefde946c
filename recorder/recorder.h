/*
 * libscope internals shared by the recorder's files.
 *
 * Threads of the host program record into structures of their own (struct
 * rec_thread) with no lock: a phase entry and exit touch only the thread's own
 * phase stack and one node.  One writer thread per process reads every
 * thread's nodes through per-node sequence counters (a seqlock: the owner
 * makes the counter odd while it updates, the reader retries a copy that saw
 * it change), turns them into records and closes a frame every few seconds.
 * Only the writer thread ever writes to the log, so its signal mask (it
 * blocks SIGXFSZ and the flush signals) governs every write we make.
 */
#ifndef SCOPE_RECORDER_H
#define SCOPE_RECORDER_H

#include <scope/log_format.h>
#include <scope/scope.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#define REC_MAX_DEPTH    256u /* frames incl. the root sentinel; deeper is counted only */
#define REC_HIST_OCTAVES 61u  /* SCOPE_HIST_BUCKETS / 16, rounded up */
#define REC_CHUNK_SHIFT  8u   /* nodes and counters live in chunks of 256 */
#define REC_CHUNK        (1u << REC_CHUNK_SHIFT)
#define REC_MAX_CHUNKS   1024u /* 256K nodes per thread; more are dropped, counted */
#define REC_MAX_NAMES    (1u << 20)

/* ---- settings ----------------------------------------------------------- */

enum rec_cpu_mode { REC_CPU_OFF, REC_CPU_ADAPTIVE, REC_CPU_ALWAYS };

typedef struct rec_config {
    char run_dir[4096]; /* absolute */
    char role[256];
    char run_id[64];            /* empty: derive */
    uint64_t frame_interval_ns; /* 0: automatic */
    uint64_t hist_interval_ns;  /* periodic frames carry histograms this often */
    int cpu_mode;               /* enum rec_cpu_mode */
    uint64_t cpu_min_ns;        /* adaptive: read CPU time for phases at least this long */
    int quiet;                  /* SCOPE_QUIET: no stderr lines */
} rec_config;

int rec_config_from_env(rec_config *c, const char *run_dir, const char *role, char *err,
                        size_t errlen);

/* ---- time ---------------------------------------------------------------- */

/* A monotonic tick counter (the TSC where it is invariant, else
 * CLOCK_MONOTONIC in ns) and its conversion to ns, fixed at calibration. */
typedef struct rec_clock {
    int use_tsc;
    uint64_t mult; /* ns = ticks * mult >> 32 */
} rec_clock;

extern rec_clock rec_clk;
void rec_clock_calibrate(void);
uint64_t rec_mono_ns(void);
uint64_t rec_wall_ns(void);
uint64_t rec_thread_cpu_ns(void);

/* The clock, read with the settings the calling thread keeps a copy of. */
static inline uint64_t rec_ticks_with(int tsc) {
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(tsc, 1))
        return __builtin_ia32_rdtsc();
#else
    (void)tsc;
#endif
    return rec_mono_ns();
}

static inline uint64_t rec_ticks_to_ns_with(uint64_t d, uint64_t mult) {
    return (uint64_t)(((unsigned __int128)d * mult) >> 32);
}

/* FNV-1a over n bytes: for names in the intern table and launch keys, short
 * strings where speed matters more than a strong hash. */
static inline uint64_t rec_fnv1a(const void *p, size_t n) {
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ---- names --------------------------------------------------------------- */

/* Names (phase and counter names) are interned once per process: the name
 * id is also the STRING id in the log.  Lookup by id is lock-free. */
uint32_t rec_name_intern(const char *name, size_t len);
uint32_t rec_site_register(scope_site *site);
const char *rec_name_get(uint32_t id, size_t *len);
uint32_t rec_name_count(void);
void rec_names_lock(void);
void rec_names_unlock(void);

/* ---- per-thread recording ------------------------------------------------ */

typedef struct rec_node {
    _Atomic uint32_t seq; /* odd while the owner updates */
    uint32_t idx;         /* 1.. within its thread: where it is stored */
    uint32_t parent;      /* parent node idx, 0 at top level */
    uint32_t id;          /* unique in the process's log: PHASE_NODE id */
    uint32_t parent_id;   /* the parent's id, 0 at top level */
    uint32_t name;        /* name id */
    uint32_t flags;       /* SCOPE_PHASE_F_* */
    uint32_t file, line;  /* name id of the source file, line; 0 when unknown */
    uint8_t cpu_on;       /* read CPU time on the next entry */
    uint64_t count, wall_ns, min_ns, max_ns;
    uint64_t cpu_count, cpu_wall_ns, cpu_ns;
    uint64_t *hist[REC_HIST_OCTAVES]; /* 16 counters each, allocated on first use */
    /* writer-side bookkeeping (only the writer thread touches these) */
    uint64_t w_count, w_wall_ns;
    uint64_t w_hist_count; /* entries in the histogram last written */
} rec_node;

#define REC_IDX_DROPPED UINT32_MAX       /* the dropped sentinel's idx */
#define REC_CACHE_EMPTY (UINT32_MAX - 1) /* a cache slot's parent before first use */

typedef struct rec_counter {
    _Atomic uint32_t seq;
    uint32_t idx;     /* 1.. within its thread: where it is stored */
    uint32_t name;    /* name id */
    uint32_t node;    /* node idx open when counted */
    uint32_t id;      /* unique in the process's log: COUNTER id */
    uint32_t node_id; /* the open node's id, 0 for none */
    uint64_t calls;
    int64_t total;
    uint64_t w_calls;
} rec_counter;

typedef struct rec_frame {
    rec_node *node;
    uint64_t t0;   /* ticks */
    uint64_t cpu0; /* thread CPU ns at entry, 0 when not read */
} rec_frame;

typedef struct rec_cache {
    uint32_t parent;
    void *item; /* rec_node* or rec_counter* */
} rec_cache;

typedef struct rec_thread {
    /* a copy of the clock's settings, next to the rest of what the hot path
     * touches, so reading the clock costs no extra load of a global */
    uint64_t clock_mult;
    uint8_t clock_tsc;

    struct rec_thread *next; /* registry: pushed at the head, never unlinked */
    uint32_t index;          /* thread index in the log, 1.. */
    pid_t tid;
    uint64_t start_mono_ns;
    char name[16];
    _Atomic int exited;
    _Atomic int retired; /* writer wrote its last state and freed its nodes */
    int w_defined;       /* writer has written the THREAD record */
    int w_final;         /* writer: had exited before this frame copied it */

    uint32_t depth;     /* open phases; the k-th is stack[k] while k < REC_MAX_DEPTH */
    uint32_t inherited; /* phases a forked child's parent had open: their ends are expected */
    rec_frame stack[REC_MAX_DEPTH]; /* stack[0] is the root sentinel */

    /* nodes and counters: chunks written by the owner, published by count */
    rec_node *nodes[REC_MAX_CHUNKS];
    _Atomic uint32_t nnodes;
    rec_counter *counters[REC_MAX_CHUNKS];
    _Atomic uint32_t ncounters;
    uint32_t w_nodes, w_counters; /* writer: definitions written so far */

    /* owner-only lookup structures */
    rec_cache *phase_cache, *count_cache; /* indexed by name id */
    uint32_t cache_len;
    uint64_t *table; /* open addressing: key (parent << 32 | name) -> kind:idx */
    uint32_t table_mask, table_used;

    /* histogram octave pool: chunks chained through their first word */
    uint64_t *pool;
    uint32_t pool_left;
    uint64_t *pool_chain;

    /* sentinel nodes: stack[0] holds the root (idx 0); an entry that could
     * not be recorded holds `dropped` (idx REC_IDX_DROPPED) */
    rec_node root, dropped;

    /* caveats counted on the hot path, reported by the writer */
    _Atomic uint64_t unbalanced_end_empty; /* end with nothing open */
    _Atomic uint64_t dropped_count;        /* entries or counts not recorded */
    uint64_t w_unbalanced, w_dropped;
} rec_thread;

static inline rec_node *rec_node_at(rec_thread *t, uint32_t idx) {
    return &t->nodes[(idx - 1) >> REC_CHUNK_SHIFT][(idx - 1) & (REC_CHUNK - 1)];
}

static inline rec_counter *rec_counter_at(rec_thread *t, uint32_t idx) {
    return &t->counters[(idx - 1) >> REC_CHUNK_SHIFT][(idx - 1) & (REC_CHUNK - 1)];
}

/* Settings the hot path reads, fixed while recording. */
struct rec_hot_settings {
    int cpu_mode;        /* enum rec_cpu_mode */
    uint64_t cpu_min_ns; /* adaptive threshold on a phase's mean duration */
};
extern struct rec_hot_settings rec_hot;

/* The calling thread's state.  A thread that has not recorded yet points at
 * rec_unattached, whose depth sends every call down a slow path, so the fast
 * paths need no NULL test. */
extern __thread rec_thread *rec_self __attribute__((tls_model("initial-exec")));
extern rec_thread rec_unattached;

static inline int rec_attached(const rec_thread *t) {
    return t != &rec_unattached;
}

rec_thread *rec_thread_attach(void);
rec_node *rec_node_lookup(rec_thread *t, const rec_node *parent, uint32_t name,
                          const scope_site *site);
rec_counter *rec_counter_lookup(rec_thread *t, const rec_node *node, uint32_t name);
void rec_ids_reset(void);
void rec_thread_unlink_retired(void);
uint64_t *rec_hist_octave(rec_thread *t, rec_node *n, uint32_t octave);
rec_thread *rec_threads_head(void);
void rec_threads_forget_all_but(rec_thread *keep);
void rec_thread_free_nodes(rec_thread *t);

/* The owner's side of a sequence counter: odd while it updates.  Only the
 * owner writes it, so begin's value is what end completes: the counter is
 * loaded once. */
static inline uint32_t rec_seq_begin(_Atomic uint32_t *seq) {
    uint32_t s = atomic_load_explicit(seq, memory_order_relaxed);
    atomic_store_explicit(seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    return s;
}

static inline void rec_seq_end(_Atomic uint32_t *seq, uint32_t s) {
    atomic_store_explicit(seq, s + 2, memory_order_release);
}

/* ---- process state -------------------------------------------------------- */

enum rec_state {
    REC_UNKNOWN = 0, /* the environment has not been read yet */
    REC_OFF,         /* not recording */
    REC_ON,
    REC_CHILD,   /* a forked child: restart on first use */
    REC_FAILED,  /* could not start: stay off */
    REC_STOPPED, /* scope_shutdown ran: a process writes one log, so it stays off */
};

typedef struct rec_process {
    _Atomic int state;
    rec_config cfg;
    /* identity */
    char host[256];
    char run_id[64];
    char uuid[9];
    char path[4600];
    pid_t pid, ppid;
    int32_t rank, local_rank, node_rank, world_size;
    char job_id[128], step_id[64];
    uint64_t start_wall_ns, start_mono_ns;
    /* the log, used by the writer thread only */
    int fd;
    scope_log_writer *w;
    int process_written;
    /* the writer thread */
    pthread_t writer;
    int writer_running;
    int wake_fd; /* eventfd: flush requests, also from signal handlers */
    _Atomic uint64_t flush_requested, flush_done;
    _Atomic int flush_reason; /* enum scope_frame_reason of the pending request */
    _Atomic int stop;
    _Atomic int last_flush_failed;
    pthread_mutex_t work; /* held by the writer while it works; fork waits on it */
    /* caveats raised before the writer could write them */
    _Atomic int signal_seen;
    int shutdown_reason; /* enum scope_shutdown_reason, for the SHUTDOWN mark */
} rec_process;

extern rec_process rec_proc;

/* lifecycle */
int rec_start(const char *run_dir, const char *role, int from_env);
void rec_first_use(void); /* resolve REC_UNKNOWN / REC_CHILD */
int rec_request_flush(int reason, int wait_ms);
void rec_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* identity (identity.c) */
int rec_identity_init(rec_process *p, char *err, size_t errlen);
void rec_identity_self(rec_process *p);
int rec_open_log(rec_process *p, char *err, size_t errlen);
void rec_export_env(const rec_process *p);

/* the writer thread (writer.c) */
int rec_writer_start(void);
void rec_writer_stop(int reason);
int rec_write_frame(int reason);
uint64_t rec_frame_interval(uint64_t since_start_ns);

/* signals (signals.c) */
void rec_signals_install(void);
void rec_flush_signals(sigset_t *set); /* the signals we flush on */

/* The fork survivor: the forking thread's state, kept for the child. */
extern rec_thread *rec_fork_survivor;

#endif
