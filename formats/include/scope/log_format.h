/*
 * scope event log: record kinds, writer and reader.
 *
 * One log file per process.  The file is a plain sequence of zstd frames:
 *
 *   [file header]  a zstd *skippable* frame holding the magic "SCOPELOG" and the
 *                  format version, so `zstd -dc FILE` decodes a log as it is;
 *   [data frame]*  independent zstd frames (content size and checksum on), each
 *                  decompressing to a batch of records whose first is a FRAME
 *                  record (sequence number, clocks, why it was closed).
 *
 * A record is   varint type | varint body length | body.   Bodies are encoded
 * field by field with LEB128 varints (zigzag for signed values) and
 * length-prefixed byte strings; a reader skips record types it does not know and
 * ignores trailing bytes of known ones, so newer writers stay readable.
 * The full specification is docs/format.md; this header is its C face.
 *
 * Nothing here allocates once warmed up on the writer side, and nothing here
 * knows about the recorder, the analysis or any user interface.
 */
#ifndef SCOPE_LOG_FORMAT_H
#define SCOPE_LOG_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include <scope/record_kinds.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions and constants ------------------------------------------- */

#define SCOPE_LOG_VERSION_MAJOR 1  /* readers refuse a newer major version */
#define SCOPE_LOG_VERSION_MINOR 10 /* a newer minor only adds record kinds or trailing fields */
#define SCOPE_LOG_FILE_EXT      "scope"

/* The file header: a zstd skippable frame (magic 0x184D2A5x, little-endian
 * u32 payload size) whose payload is SCOPE_LOG_HEADER_PAYLOAD bytes. */
#define SCOPE_LOG_SKIPPABLE_MAGIC 0x184D2A53u
#define SCOPE_LOG_HEADER_MAGIC    "SCOPELOG"
#define SCOPE_LOG_HEADER_PAYLOAD  24u
#define SCOPE_LOG_HEADER_SIZE     (8u + SCOPE_LOG_HEADER_PAYLOAD)

/* The reference writer's snapshot schedule (docs/format.md 5.2.1): after a
 * periodic frame once the bytes written since the newest snapshot reach this
 * many times that snapshot's size, so that snapshots stay under a fifth of a
 * long log and a reader starting at the newest reads at most about five
 * times its size. */
#define SCOPE_LOG_SNAPSHOT_SPACING 4

/* How far back from the end of a file a reader searches for its last intact
 * frame, to find the newest snapshot (format 1.7, docs/format.md 9.8). */
#define SCOPE_LOG_TAIL_SCAN (4u << 20)

/* A reader refuses to inflate a frame that claims more than this. */
#define SCOPE_LOG_MAX_FRAME_CONTENT (64u << 20)

/* What reading one log may cost (docs/format.md, "The reader's limits"):
 * the bytes a reader inflates and walks, and the records it hands out, stay
 * under these many per byte of the file up to the frame's end, plus an
 * allowance.  Real logs inflate less than 2-fold and hold a record per 15
 * bytes or more; a frame past a limit is damage. */
#define SCOPE_LOG_MAX_INFLATION        64u
#define SCOPE_LOG_MAX_RECORDS_PER_BYTE 16u
/* The fuzz build makes the allowances small, so that inputs of fuzzing size
 * reach the limits in a few thousand records (tests/fuzz/CMakeLists.txt). */
#ifndef SCOPE_LOG_INFLATION_ALLOWANCE
#define SCOPE_LOG_INFLATION_ALLOWANCE SCOPE_LOG_MAX_FRAME_CONTENT
#endif
#ifndef SCOPE_LOG_RECORDS_ALLOWANCE
#define SCOPE_LOG_RECORDS_ALLOWANCE (256u << 10)
#endif

/* ---- record kinds ------------------------------------------------------ */

enum scope_rec_type {
#define SCOPE_REC_ENUM_ROW(name, number, member) SCOPE_REC_##name = number,
    SCOPE_REC_KINDS(SCOPE_REC_ENUM_ROW)
#undef SCOPE_REC_ENUM_ROW
        SCOPE_REC_TYPE_LIMIT /* one past the last kind this reader knows */
};

/* Why a frame was closed. */
enum scope_frame_reason {
    SCOPE_FRAME_PERIODIC = 0, /* the writer thread's timer */
    SCOPE_FRAME_FLUSH = 1,    /* an explicit scope_flush() */
    SCOPE_FRAME_EXIT = 2,     /* atexit or scope_shutdown() */
    SCOPE_FRAME_SIGNAL = 3,   /* a fatal or flush-requesting signal */
    SCOPE_FRAME_FORK = 4,     /* just before fork(), in the parent */
    SCOPE_FRAME_EXEC = 5,     /* just before exec() */
    SCOPE_FRAME_REASON_LIMIT
};

enum scope_mark_kind {
#define SCOPE_MARK_ENUM_ROW(name, number, text) SCOPE_MARK_##name = number,
    SCOPE_MARK_KINDS(SCOPE_MARK_ENUM_ROW)
#undef SCOPE_MARK_ENUM_ROW
        SCOPE_MARK_KIND_LIMIT
};

/* A FOLDED mark's value counts the bits set in a map of this many, one bit
 * per name folded into "(other)" at the bit its hash picks: the names were
 * about -SCOPE_FOLD_MAP_BITS * ln(1 - value / SCOPE_FOLD_MAP_BITS)
 * (docs/format.md 5.13). */
#define SCOPE_FOLD_MAP_BITS (1u << 20)

enum scope_unbalanced_subkind {
#define SCOPE_UNBALANCED_ENUM_ROW(name, number, text) SCOPE_UNBALANCED_##name = number,
    SCOPE_UNBALANCED_SUBKINDS(SCOPE_UNBALANCED_ENUM_ROW)
#undef SCOPE_UNBALANCED_ENUM_ROW
        SCOPE_UNBALANCED_SUBKIND_LIMIT
};

enum scope_shutdown_reason {
    SCOPE_SHUTDOWN_EXIT = 0,   /* atexit */
    SCOPE_SHUTDOWN_CALL = 1,   /* scope_shutdown() */
    SCOPE_SHUTDOWN_SIGNAL = 2, /* a terminating signal */
    SCOPE_SHUTDOWN_EXEC = 3,   /* the process ran another program (exec) */
};

/* Phase node flags. */
#define SCOPE_PHASE_F_IO   0x1u /* opened with SCOPE_PHASE_IO: exact I/O bytes */
#define SCOPE_PHASE_F_SYNC 0x2u /* opened with SCOPE_PHASE_SYNC */

/* Resource sample presence bits: a figure whose bit is clear was NOT
 * measured, which is different from a measured zero. */
#define SCOPE_RES_RSS        0x01u
#define SCOPE_RES_CPU_USER   0x02u
#define SCOPE_RES_CPU_SYS    0x04u
#define SCOPE_RES_DISK_READ  0x08u /* bytes that reached the block device */
#define SCOPE_RES_DISK_WRITE 0x10u
#define SCOPE_RES_CHAR_READ  0x20u /* bytes read by syscalls, page cache hits included */
#define SCOPE_RES_CHAR_WRITE 0x40u
#define SCOPE_RES_RSS_PEAK   0x80u /* since 1.3: peak resident set size (VmHWM) */

#define SCOPE_GPU_BUSY      0x01u /* whole-device utilization */
#define SCOPE_GPU_RUN       0x02u /* this run's own share (summed over its pids) */
#define SCOPE_GPU_MEM_USED  0x04u /* device memory in use, all processes */
#define SCOPE_GPU_MEM_RUN   0x08u /* device memory of this run's pids */
#define SCOPE_GPU_MEM_TOTAL 0x10u
#define SCOPE_GPU_RUN_SEEN                                                                         \
    0x20u /* since 1.3: NVML attributed a sample to this pid in the                                \
             interval (run_permyriad then rests on one) */

/* I/O presence on a phase aggregate. */
#define SCOPE_IO_MEASURED 0x1u

/* ---- decoded records --------------------------------------------------- */

/* Bytes as stored: not NUL-terminated, not necessarily UTF-8.  Display is the
 * reader's job (see the analysis's escaping), storage keeps them as given. */
typedef struct scope_bytes {
    const uint8_t *ptr;
    size_t len;
} scope_bytes;

typedef struct scope_rec_frame {
    uint64_t seq;     /* 0, 1, 2 ... per file; a gap means frames were lost */
    uint64_t mono_ns; /* CLOCK_MONOTONIC when the frame was closed */
    uint64_t wall_ns; /* CLOCK_REALTIME when the frame was closed, ns since 1970 */
    uint32_t reason;  /* enum scope_frame_reason */
    /* Since 1.7; a body that ends before them reads as 0. */
    uint32_t flags;         /* SCOPE_FRAME_F_* */
    uint64_t last_snapshot; /* byte offset of the newest snapshot frame written before this
                               frame; 0: none (no frame starts at 0, the header does) */
} scope_rec_frame;

/* FRAME.flags (format 1.7). */
#define SCOPE_FRAME_F_SNAPSHOT                                                                     \
    0x1u /* a snapshot: every definition and the full value of every                               \
            aggregate key, as of this frame (docs/format.md 5.2) */

typedef struct scope_kv {
    scope_bytes key;
    scope_bytes value;
} scope_kv;

typedef struct scope_rec_process {
    scope_bytes run_id; /* e.g. 20260813T2241-471c94; one per attempt */
    scope_bytes uuid;   /* the file's own 8 hex digits */
    scope_bytes host;
    scope_bytes role;
    scope_bytes job_id; /* batch job / launcher namespace, empty if none */
    scope_bytes step_id;
    scope_bytes exe;
    scope_bytes cwd;
    scope_bytes recorder_version;
    int64_t pid, ppid;
    int32_t rank, local_rank, node_rank, world_size; /* -1 when no launcher says */
    uint64_t start_wall_ns;                          /* CLOCK_REALTIME at recorder start */
    uint64_t start_mono_ns;                          /* CLOCK_MONOTONIC at recorder start */
    uint32_t argc;
    const scope_bytes *argv; /* argc entries */
    uint32_t nsettings;
    const scope_kv *settings; /* recorder settings in force, as key=value */
    /* Since 1.5; a reader of an older log sees "" and -1. */
    scope_bytes launcher;     /* the launcher family that started it: "hydra", "slurm", ... */
    scope_bytes array_job_id; /* the job array this job is a task of, empty if none */
    int32_t array_task;       /* its task in that array; -1 when none */
    int32_t restarts;         /* how often the launcher restarted the job; -1 unknown */
} scope_rec_process;

typedef struct scope_rec_string {
    uint32_t id; /* 1..; 0 means "none" wherever a string id is used */
    scope_bytes value;
} scope_rec_string;

typedef struct scope_rec_thread {
    uint32_t index; /* recorder-local thread index, 1.. */
    int64_t tid;    /* OS thread id */
    uint64_t start_mono_ns;
    scope_bytes name;
} scope_rec_thread;

typedef struct scope_rec_phase_node {
    uint32_t id;     /* 1..; unique within the file */
    uint32_t parent; /* 0 for a top-level phase of its thread */
    uint32_t name;   /* string id */
    uint32_t thread; /* thread index */
    uint32_t flags;  /* SCOPE_PHASE_F_* */
    uint32_t file;   /* string id of the source file, 0 when not recorded */
    uint32_t line;   /* 0 when not recorded */
} scope_rec_phase_node;

typedef struct scope_hist_bin {
    uint32_t bucket; /* see scope/log_hist.h */
    uint64_t count;
} scope_hist_bin;

typedef struct scope_rec_phase_agg {
    uint32_t node;
    uint64_t count;   /* completed entries */
    uint64_t wall_ns; /* sum of wall time */
    uint64_t min_ns, max_ns;
    uint64_t cpu_count;   /* entries whose thread CPU time was read */
    uint64_t cpu_wall_ns; /* wall time of exactly those entries */
    uint64_t cpu_ns;      /* their thread CPU time; wait% = 1 - cpu_ns / cpu_wall_ns */
    uint32_t io_flags;    /* SCOPE_IO_MEASURED when any entry measured I/O */
    uint64_t io_count;    /* entries whose I/O counters were read at both ends */
    uint64_t io_failed;   /* entries whose I/O read failed: recorded as nothing */
    uint64_t disk_read, disk_write, char_read, char_write;
    uint32_t nbins; /* sparse histogram, buckets strictly increasing; none with count > 0:
                       the histogram is that of the newest record of this node with bins */
    const scope_hist_bin *bins;
    /* Since 1.9: of the cpu_count entries, those whose run delay (time
     * runnable, waiting for a CPU) was read, their wall time and that
     * delay; queued share = delay_ns / delay_wall_ns.  0 in older logs
     * and where it cannot be read: not measured. */
    uint64_t delay_count, delay_wall_ns, delay_ns;
} scope_rec_phase_agg;

typedef struct scope_rec_counter {
    uint32_t id;     /* 1..; one per (name, phase node, thread), never reused */
    uint32_t name;   /* string id */
    uint32_t node;   /* phase node open when counted, 0 for none */
    uint32_t thread; /* thread index */
    uint64_t calls;
    int64_t total;
} scope_rec_counter;

typedef struct scope_gpu_figures {
    uint32_t index;          /* NVML's device index: the machine's physical device */
    uint32_t present;        /* SCOPE_GPU_* */
    uint32_t busy_permyriad; /* 0..10000 = 0..100.00% */
    uint32_t run_permyriad;
    uint64_t mem_used, mem_run, mem_total; /* bytes */
} scope_gpu_figures;

typedef struct scope_rec_resource {
    uint64_t mono_ns;                 /* start of the interval */
    uint64_t interval_ns;             /* its length */
    uint32_t node;                    /* phase node open at the interval's start, 0 for none */
    uint32_t present;                 /* SCOPE_RES_* */
    uint64_t rss;                     /* bytes, at the end of the interval */
    uint64_t cpu_user_ns, cpu_sys_ns; /* during the interval */
    uint64_t disk_read, disk_write, char_read, char_write; /* during the interval,
                                                             the recorder's own excluded */
    uint32_t ngpus;
    const scope_gpu_figures *gpus;
    /* Since 1.3 (trailing fields; a 1.2 body reads as 0, 0, 0). */
    uint32_t thread;   /* 0: the process as a whole; else a thread index: that thread's
                          own I/O during the interval, and node is its innermost phase */
    uint64_t rss_peak; /* bytes, peak RSS of the process so far (SCOPE_RES_RSS_PEAK) */
    uint64_t dropped;  /* intervals dropped since the previous record because a
                          counter could not be read: never differenced across */
} scope_rec_resource;

typedef struct scope_rec_module {
    uint32_t id;
    scope_bytes path;
    scope_bytes build_id; /* raw bytes of the GNU build-id note, may be empty */
    uint64_t base;        /* load address of the module's first byte */
    uint64_t size;        /* extent of its mapping */
} scope_rec_module;

typedef struct scope_frame_addr {
    uint32_t module; /* 0: unknown, then offset is an absolute address */
    uint64_t offset; /* address relative to the module's base */
} scope_frame_addr;

typedef struct scope_rec_stack {
    uint32_t id;
    uint32_t nframes; /* innermost first */
    const scope_frame_addr *frames;
} scope_rec_stack;

typedef struct scope_stack_count {
    uint32_t stack;
    uint64_t count;
} scope_stack_count;

typedef struct scope_rec_stack_samples {
    uint32_t thread;
    uint32_t node; /* phase node open while sampled, 0 for none */
    uint64_t period_ns;
    uint32_t n;
    const scope_stack_count *counts; /* full totals for (thread, node, state, stack) */
    /* enum scope_cpu_state: SCOPE_CPU_ON in a STACK_SAMPLES record, BLOCKED
     * or QUEUED in an OFFCPU_SAMPLES record (format 1.10), which is the
     * same body with the state after the node. */
    uint32_t state;
} scope_rec_stack_samples;

/* Format 1.10: what a wall-clock sample found its thread doing.  CPU-time
 * samples are all ON: their timer only runs while the thread does. */
enum scope_cpu_state {
    SCOPE_CPU_ON = 0,      /* running on a CPU */
    SCOPE_CPU_BLOCKED = 1, /* asleep: in a blocking system call, or waiting on a page */
    SCOPE_CPU_QUEUED = 2,  /* runnable, waiting for a CPU (the kernel's run delay) */
};
#define SCOPE_CPU_STATES 3u

/* An OFFCPU_SAMPLES record: a STACK_SAMPLES body of an off-CPU state. */
typedef scope_rec_stack_samples scope_rec_offcpu_samples;

/* What line sampling did in this process (format 1.3): newest wins. */
typedef struct scope_rec_lines {
    scope_bytes project;     /* project folder samples are attributed to */
    uint32_t hz;             /* requested sampling rate */
    uint32_t clock;          /* enum scope_lines_clock */
    uint64_t period_ns;      /* what one sample stands for (1e9 / hz) */
    uint64_t samples;        /* samples taken so far, overruns included */
    uint64_t dropped;        /* samples lost to full per-thread storage */
    uint64_t truncated;      /* stacks cut at the unwind depth limit */
    uint32_t threads;        /* threads sampled so far */
    uint32_t threads_failed; /* threads whose timer could not be set up */
    uint32_t flags;          /* SCOPE_LINES_F_* */
    uint64_t signals;        /* the signals that brought the samples stored (each carries 1 + its
                                timer overruns, so samples / signals says how bundled they came);
                                0: not said (before 1.9) */
} scope_rec_lines;

enum scope_lines_clock { SCOPE_LINES_CLOCK_CPU = 0, SCOPE_LINES_CLOCK_WALL = 1 };

#define SCOPE_LINES_F_ACTIVE    0x1u /* sampling was on when the record was written */
#define SCOPE_LINES_F_FOREIGN   0x2u /* the program installed its own SIGPROF handler */
#define SCOPE_LINES_F_BLOCKED   0x4u /* some thread blocked the sampling signal */
#define SCOPE_LINES_F_NO_UNWIND 0x8u /* libunwind unavailable: frame pointers only */

typedef struct scope_rec_mark {
    uint32_t kind; /* enum scope_mark_kind */
    uint32_t thread;
    uint64_t mono_ns;
    int64_t value;
    scope_bytes text; /* for people: no reader takes figures from it */
    /* Since 1.1, and only in kinds with subkinds (scope_mark_has_subkind);
     * 0 in every other mark, and in a 1.0 mark before it is classified (see
     * SCOPE_UNBALANCED_SUBKINDS). */
    uint32_t subkind; /* UNBALANCED: enum scope_unbalanced_subkind */
    int64_t value2;   /* a second figure, per subkind */
} scope_rec_mark;

/* A snapshot's copy of a mark the writer wrote earlier (format 1.7): the
 * same body as MARK.  A reader that read the mark itself skips it. */
typedef scope_rec_mark scope_rec_mark_state;

typedef struct scope_trace_event {
    uint32_t node;
    uint64_t start_ns; /* CLOCK_MONOTONIC */
    uint64_t dur_ns;
} scope_trace_event;

typedef struct scope_rec_trace {
    uint32_t thread;
    uint32_t n; /* events in start order */
    const scope_trace_event *events;
} scope_rec_trace;

/* The phases one thread has open when its frame is closed (format 1.4),
 * outermost first: what counts an open phase's time up to the frame. */
typedef struct scope_open_phase {
    uint32_t node;     /* PHASE_NODE id */
    uint64_t start_ns; /* CLOCK_MONOTONIC when this entry began */
} scope_open_phase;

typedef struct scope_rec_open {
    uint32_t thread;
    uint32_t n; /* open phases, outermost first: each the parent of the next */
    const scope_open_phase *phases;
} scope_rec_open;

/* The state of a trace window (format 1.6): newest wins. */
enum scope_trace_state {
    SCOPE_TRACE_WAITING = 0, /* asked for; its FIRST-th entry has not come yet */
    SCOPE_TRACE_OPEN = 1,    /* recording every event */
    SCOPE_TRACE_CLOSED = 2,  /* the LAST-th entry ended */
    SCOPE_TRACE_CAPPED = 3,  /* ended early: the event cap was reached */
};

typedef struct scope_rec_trace_window {
    uint32_t phase;         /* string id of the phase whose entries bound it */
    uint64_t first, last;   /* the entries into it that open and close the window, 1.. */
    uint32_t state;         /* enum scope_trace_state */
    uint64_t start_mono_ns; /* the FIRST-th entry; 0 while waiting */
    uint64_t end_mono_ns;   /* the LAST-th entry's end, or the cap; 0 while open */
    uint64_t events;        /* events recorded (phase and counter events) */
    uint64_t cap;           /* events the window may hold */
    uint64_t lost;          /* events not recorded because the cap was reached */
} scope_rec_trace_window;

typedef struct scope_trace_count {
    uint32_t name;    /* string id of the counter */
    uint64_t mono_ns; /* CLOCK_MONOTONIC */
    int64_t value;    /* what was added */
} scope_trace_count;

typedef struct scope_rec_trace_counts {
    uint32_t thread;
    uint32_t n; /* events in time order */
    const scope_trace_count *events;
} scope_rec_trace_counts;

/* Which figure a RESOURCE_SERIES record carries (format 1.7): the RESOURCE
 * fields, and the GPU entry's fields of one device. */
enum scope_series_figure {
    SCOPE_SERIES_RSS = 1,
    SCOPE_SERIES_CPU_USER = 2,
    SCOPE_SERIES_CPU_SYS = 3,
    SCOPE_SERIES_DISK_READ = 4,
    SCOPE_SERIES_DISK_WRITE = 5,
    SCOPE_SERIES_CHAR_READ = 6,
    SCOPE_SERIES_CHAR_WRITE = 7,
    SCOPE_SERIES_RSS_PEAK = 8,
    SCOPE_SERIES_GPU_BUSY = 16,
    SCOPE_SERIES_GPU_RUN = 17,
    SCOPE_SERIES_GPU_MEM_USED = 18,
    SCOPE_SERIES_GPU_MEM_RUN = 19,
    SCOPE_SERIES_GPU_MEM_TOTAL = 20,
};

/* One bucket of a series: the intervals whose start falls in it and whose
 * figure was measured. */
typedef struct scope_series_bucket {
    uint64_t samples;    /* measured intervals; 0: not measured in this bucket */
    uint64_t covered_ns; /* their summed length */
    uint64_t min, max;   /* over those intervals (per-interval values) */
    uint64_t sum;        /* their sum: bytes or ns moved, or a level times nothing (see docs) */
} scope_series_bucket;

typedef struct scope_rec_resource_series {
    uint32_t thread;        /* 0: the process as a whole */
    uint32_t figure;        /* enum scope_series_figure */
    uint32_t device;        /* NVML index for GPU figures; 0 otherwise */
    uint64_t start_mono_ns; /* start of bucket 0, CLOCK_MONOTONIC */
    uint64_t bucket_ns;     /* width of every bucket */
    uint64_t samples_total; /* intervals folded into the series since the start */
    uint32_t nbuckets;
    const scope_series_bucket *buckets; /* bucket i covers start + i*bucket_ns .. +bucket_ns */
} scope_rec_resource_series;

/* What the RESOURCE intervals before a snapshot put under one phase node
 * (format 1.7, docs/format.md 5.22): their count and the bytes each
 * measured, summed over thread records and over process records apart, as
 * a reader that read every interval would have them.  Full value, newest
 * wins, in snapshot frames only. */
typedef struct scope_io_sums {
    uint64_t intervals;                                    /* intervals that named the node */
    uint64_t disk_read, disk_write, char_read, char_write; /* each where measured */
} scope_io_sums;

typedef struct scope_rec_node_io {
    uint32_t node;         /* phase node id; 0: no phase open */
    scope_io_sums thread;  /* thread records (thread != 0) */
    scope_io_sums process; /* process records (thread 0) */
} scope_rec_node_io;

/* A frame's resource intervals in one record, delta-coded column by column
 * (docs/format.md 5.21): what RESOURCE records cost a third of.  The reader
 * hands its intervals out as RESOURCE records, one per call, unless asked
 * for batches as written (scope_log_reader_whole_batches). */
typedef struct scope_rec_resource_batch {
    uint32_t n;
    const scope_rec_resource *records; /* in the order written; their gpus point into the
                                          batch's own GPU entries */
} scope_rec_resource_batch;

typedef struct scope_record {
    uint32_t type;   /* enum scope_rec_type, or an unknown kind (then only raw is set) */
    scope_bytes raw; /* the undecoded body */
    union {
#define SCOPE_REC_UNION_ROW(name, number, member) scope_rec_##member member;
        SCOPE_REC_KINDS(SCOPE_REC_UNION_ROW)
#undef SCOPE_REC_UNION_ROW
    } u;
} scope_record;

const char *scope_rec_type_name(uint32_t type);

/* Whether this reader decodes records of this kind (others come back raw). */
static inline int scope_rec_type_known(uint32_t type) {
    switch (type) {
#define SCOPE_REC_KNOWN_ROW(name, number, member) case number:
        SCOPE_REC_KINDS(SCOPE_REC_KNOWN_ROW)
#undef SCOPE_REC_KNOWN_ROW
        return 1;
    default:
        return 0;
    }
}
const char *scope_frame_reason_name(uint32_t reason);
const char *scope_mark_kind_name(uint32_t kind);
const char *scope_unbalanced_subkind_name(uint32_t subkind);

/* Whether marks of this kind carry a subkind and value2 (format 1.1). */
static inline int scope_mark_has_subkind(uint32_t kind) {
    return kind == SCOPE_MARK_UNBALANCED;
}

/* ---- writer ------------------------------------------------------------ */

typedef struct scope_log_writer scope_log_writer;

typedef struct scope_log_writer_options {
    int level;             /* zstd level; 0 means the default (3) */
    size_t max_frame_hint; /* expected largest frame, sizes the compressor; 0 = 1 MiB */
} scope_log_writer_options;

/* Creates a writer for a new, empty file (fd opened O_WRONLY, ideally
 * O_APPEND|O_CREAT|O_EXCL) and writes the file header.  A log is written by
 * one writer from start to end, so frame sequence numbers are per file; a
 * non-empty file is refused with -EEXIST.  All memory the writer needs for
 * frames up to max_frame_hint is taken here; a larger frame grows the record
 * buffer once (warm-up), never the compressor.
 * Returns 0, or a negative errno. */
int scope_log_writer_open(scope_log_writer **out, int fd, const scope_log_writer_options *opt);

/* Appends one record to the open frame (a frame opens with its first record).
 * rec->raw is ignored; rec->type must be a kind this writer knows, except
 * SCOPE_REC_FRAME, which the writer emits itself.  Returns 0, -EINVAL (not
 * encodable), -ENOMEM, or -E2BIG when the frame would pass
 * SCOPE_LOG_MAX_FRAME_CONTENT: close the frame and add the record again. */
int scope_log_writer_add(scope_log_writer *w, const scope_record *rec);

/* Appends a record of any type from an already-encoded body (tests, tools).
 * Returns 0, -EINVAL for SCOPE_REC_FRAME, -ENOMEM or -E2BIG as above. */
int scope_log_writer_add_raw(scope_log_writer *w, uint32_t type, const void *body, size_t len);

/* Bytes of records waiting in the open frame. */
size_t scope_log_writer_pending(const scope_log_writer *w);

/* Drops the open frame's records: for a caller that keeps failing to write
 * (disk full for hours) and would rather resend full aggregates later than
 * grow the buffer without bound. */
void scope_log_writer_discard(scope_log_writer *w);

/* Compresses the open frame, prefixed with its FRAME record, and writes it with
 * one write(2) (a short write is continued).  An empty frame is still written
 * (it proves liveness).  When a write fails after part of the frame reached
 * the file, the file is cut back to where the frame began, so the log never
 * ends in a half frame this writer could have avoided; the frame's records
 * are kept and written with the next close.
 * Returns the number of bytes written, or a negative errno. */
long scope_log_writer_close_frame(scope_log_writer *w, uint32_t reason, uint64_t mono_ns,
                                  uint64_t wall_ns);

/* scope_log_writer_close_frame with FRAME flags (SCOPE_FRAME_F_*, format
 * 1.7).  Every frame's FRAME record carries the offset of the newest snapshot
 * frame written before it, so a reader finds that snapshot from the last
 * frame of the file (docs/format.md 9.8). */
long scope_log_writer_close_frame_flags(scope_log_writer *w, uint32_t reason, uint32_t flags,
                                        uint64_t mono_ns, uint64_t wall_ns);

/* Goes on with the same log through another descriptor of its file, or,
 * with fd -1, through none until one is given (every write fails with
 * -EBADF meanwhile): for a writer whose descriptor was closed or reused
 * under it and whose file was opened again.  The next frame goes where the
 * file ends when fd is given.  Returns 0 or a negative errno (the writer
 * then has no descriptor). */
int scope_log_writer_set_fd(scope_log_writer *w, int fd);

/* Byte offset of the newest snapshot frame written; 0 when none. */
uint64_t scope_log_writer_last_snapshot(const scope_log_writer *w);

/* Frames written so far (the next frame's sequence number). */
uint64_t scope_log_writer_frames(const scope_log_writer *w);

/* Bytes this writer has written to its file: the recorder subtracts them from
 * its own I/O figures. */
uint64_t scope_log_writer_bytes(const scope_log_writer *w);

/* Frees the writer; does not close the fd and does not flush. */
void scope_log_writer_free(scope_log_writer *w);

/* ---- reader ------------------------------------------------------------ */

typedef struct scope_log_reader scope_log_reader;

/* One stretch of the file that could not be read. */
typedef struct scope_log_damage {
    uint64_t offset;      /* where the unreadable bytes start */
    uint64_t length;      /* how many bytes were skipped */
    uint64_t frames_lost; /* from sequence numbers; for a stretch running to the end of the
                             file, at least this many (1 if it began like a frame) */
    int truncated;        /* 1: the file ends inside a frame (a crash or a live writer) */
    char what[120];       /* plainly worded, e.g. "frame damaged: checksum mismatch" */
} scope_log_damage;

typedef struct scope_log_info {
    uint16_t version_major, version_minor;
    uint64_t file_size;
    int header_ok; /* 0 when the header was damaged and the version assumed */
} scope_log_info;

/* Opens a log.  On failure returns a negative errno and writes a one-line
 * message to msg (if given): an empty file, a file that is not a scope log,
 * a log of a newer major version, or an OS error.  A damaged header is not a
 * failure when intact frames follow it. */
int scope_log_reader_open(scope_log_reader **out, const char *path, char *msg, size_t msglen);

/* The same for relpath below the directory open on dirfd, following no
 * symbolic link on the way ("a symbolic link, not followed", -ELOOP) and
 * refusing ".." and empty components: how a run directory's logs are read,
 * since whoever can write to a run directory can plant links in it. */
int scope_log_reader_open_beneath(scope_log_reader **out, int dirfd, const char *relpath, char *msg,
                                  size_t msglen);

/* The same, over a caller-owned buffer that must outlive the reader. */
int scope_log_reader_open_mem(scope_log_reader **out, const void *data, size_t size, char *msg,
                              size_t msglen);

const scope_log_info *scope_log_reader_info(const scope_log_reader *r);

/* Advances to the next intact data frame and decodes its FRAME record into
 * *frame (offset gets the frame's byte offset).  Returns 1, or 0 at the end.
 * Damage found on the way is appended to the damage list, never fatal. */
int scope_log_reader_next_frame(scope_log_reader *r, scope_rec_frame *frame, uint64_t *offset);

/* Goes on reading at byte `offset`, where a frame numbered next_seq is
 * expected (a newer snapshot's, or the first one a follower has not read):
 * the frames before it are not read, and a jump in sequence numbers from
 * next_seq on is counted as lost frames.  Returns 0, or -EINVAL for an
 * offset inside the header or past the end of the file. */
int scope_log_reader_seek(scope_log_reader *r, uint64_t offset, uint64_t next_seq);

/* Where a reader that needs only the state of a process starts
 * (docs/format.md 9.8): what scope_log_reader_find_snapshot found. */
enum scope_log_snapshot_status {
    SCOPE_SNAPSHOT_NONE = 0, /* no usable snapshot: read the whole file from the start */
    SCOPE_SNAPSHOT_NEWEST,   /* the newest snapshot the file names is intact */
    SCOPE_SNAPSHOT_OLDER,    /* the newest was damaged: an older one is used */
};

typedef struct scope_log_snapshot {
    int status;       /* enum scope_log_snapshot_status */
    uint64_t offset;  /* of the snapshot frame to read on from; 0 with SCOPE_SNAPSHOT_NONE */
    uint64_t seq;     /* its sequence number: the next_seq for scope_log_reader_seek */
    uint64_t mono_ns; /* its FRAME record's clocks */
    uint64_t wall_ns;
    uint64_t damaged_offset; /* SCOPE_SNAPSHOT_OLDER: the newest snapshot's offset, which
                                is not an intact snapshot frame */
    unsigned passed_over;    /* snapshots found damaged on the way (SCOPE_SNAPSHOT_OLDER) */
} scope_log_snapshot;

/* Finds the newest intact snapshot frame from the end of the file, as
 * docs/format.md 9.8 says: the last intact frame within SCOPE_LOG_TAIL_SCAN
 * of the end, its last_snapshot, and older snapshots when that one is
 * damaged.  Reads only the tail, the snapshot frames it names and the
 * stretches searched before damaged ones, whatever the bytes.  Neither
 * moves the reader nor adds damage reports: the caller goes on with
 * scope_log_reader_seek(r, s->offset, s->seq), or reads from the start when
 * s->status is SCOPE_SNAPSHOT_NONE.  Call it before reading any frame.
 * Returns 0, or -EINVAL when frames were already read. */
int scope_log_reader_find_snapshot(scope_log_reader *r, scope_log_snapshot *s);

/* Decodes the next record of the current frame into *rec (pointers inside are
 * valid until the next call).  Returns 1, 0 at the end of the frame.  A record
 * whose body does not decode is reported as damage and skipped. */
int scope_log_reader_next_record(scope_log_reader *r, scope_record *rec);

/* Records of the kinds in mask (bit 1 << type, types below 64) are passed
 * over by next_record without being decoded, for a reader that has no use
 * for them (scope-tui report --no-samples and RESOURCE records): decoding
 * is a large part of reading.  A malformed record of those kinds is then
 * not reported either. */
void scope_log_reader_skip_kinds(scope_log_reader *r, uint64_t mask);

/* RESOURCE_BATCH records come out of next_record as the RESOURCE records
 * they hold, one per call (their raw body is the batch's), so that a reader
 * of intervals need not know how a writer grouped them; skipping RESOURCE
 * skips the batches too.  With whole set, a batch comes out as itself (for
 * scope-tui dump, and the codec's tests). */
void scope_log_reader_whole_batches(scope_log_reader *r, int whole);

size_t scope_log_reader_damage_count(const scope_log_reader *r);
const scope_log_damage *scope_log_reader_damage(const scope_log_reader *r, size_t i);

/* Intact data frames read so far. */
uint64_t scope_log_reader_frames_read(const scope_log_reader *r);

void scope_log_reader_close(scope_log_reader *r);

/* ---- record bodies (for tools and tests) ------------------------------- */

/* Encodes rec's body into buf (capacity cap).  Returns the body length, or
 * the length it would need when cap is too small (nothing useful written). */
size_t scope_record_encode(const scope_record *rec, uint8_t *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_LOG_FORMAT_H */
