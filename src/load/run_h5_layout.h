/*
 * scope's own HDF5 layout of a run ("scope-run", docs/hdf5.md, "Exporting
 * runs"): the rows of its tables and their fields, shared by the writer
 * (export_hdf5.c) and the loader (run_h5_loader.c) so that the two cannot
 * drift apart.
 *
 * The file holds two parts:
 *
 *   the processes as loaded (/processes, /phase_nodes, /counters, ...):
 *     every figure the model is computed from, per process, so that loading
 *     the file runs the same merge as loading the run directory and gives
 *     the same figures;
 *   the model (/roles, /phases, /caveats, ...): the merged figures as the
 *     report shows them, for readers of the file (h5py) who want them
 *     without merging anything.  The loader does not read this part.
 *
 * Rows of per-process tables come in process order and name their process
 * by its row in /processes.  Strings are variable-length strings.
 */
#ifndef SCOPE_RUN_H5_LAYOUT_H
#define SCOPE_RUN_H5_LAYOUT_H

#include "phase_figures.h"
#include "read_caps.h"
#include "res_proc.h"

#include <h5_table.h>
#include <stdint.h>

#define RUN_H5_LAYOUT         "scope-run"
#define RUN_H5_LAYOUT_VERSION 1
/* Root attributes naming the layout and its version. */
#define RUN_H5_ATTR_LAYOUT  "scope_layout"
#define RUN_H5_ATTR_VERSION "scope_layout_version"

/* ---- the processes as loaded ------------------------------------------------ */

typedef struct h5_process_row {
    const char *path; /* the log it was read from, relative to the run */
    uint8_t readable, has_process, truncated, flush_failed;
    const char *run_id, *uuid, *host, *role, *job_id, *step_id, *exe, *cwd, *recorder_version;
    int64_t pid, ppid;
    int32_t rank, local_rank, node_rank, world_size;
    uint64_t start_wall_ns, last_wall_ns, runtime_ns;
    uint64_t frames, frames_lost, bytes_skipped;
    const char *end; /* "exit", "signal", "killed", "unknown" */
    int32_t end_signal;
    uint64_t unbalanced, dropped;
    uint32_t nthreads;
    uint64_t phase_ns;
    /* What the log's reader found beside the figures. */
    int32_t open_rc;
    const char *open_msg;
    uint64_t max_gap_ns, open_phase_marks, inconsistent;
    const char *inconsistent_what;
    /* Where the model put it (not read back: the merge decides again). */
    int64_t attempt, role_index; /* rows of /attempts and /roles; -1: none */
    /* What the launcher said beyond the ranks (added later: a file without
     * them has launcher_known 0, and they read as not said). */
    uint8_t launcher_known;
    const char *launcher, *array_job_id;
    int32_t array_task, restarts; /* -1: no launcher said */
} h5_process_row;

typedef struct h5_damage_row {
    uint32_t process;
    uint8_t truncated;
    uint64_t offset, length, frames_lost;
    const char *what;
} h5_damage_row;

typedef struct h5_note_row {
    uint32_t process;
    const char *text;
} h5_note_row;

/* What the reader's caps (read_caps.h) left out of a log: one row per kind
 * a cap refused. */
typedef struct h5_cap_row {
    uint32_t process;
    const char *kind; /* "nodes", "counters", "names", "histograms" */
    uint64_t left_out, cap;
    uint8_t by_run; /* the run's cap, not the log's */
} h5_cap_row;

typedef struct h5_node_row {
    uint32_t process, id, parent, thread, flags, line, io_flags;
    const char *name, *file; /* file "" when not recorded */
    uint8_t named;           /* 0: its name was lost with the log's damage */
    uint8_t has_agg, left_open;
    uint64_t count, wall_ns, min_ns, max_ns, cpu_count, cpu_wall_ns, cpu_ns;
    uint64_t io_count, io_failed, disk_read, disk_write, char_read, char_write;
    uint64_t delay_count, delay_wall_ns, delay_ns; /* optional: 0 in older files */
} h5_node_row;

typedef struct h5_bin_row {
    uint32_t process, node, bucket;
    uint64_t count;
} h5_bin_row;

typedef struct h5_counter_row {
    uint32_t process, id, node, thread;
    const char *name;
    uint64_t calls;
    int64_t total;
} h5_counter_row;

typedef struct h5_res_row {
    uint32_t process;
    uint32_t present;
    uint64_t intervals, sampled_ns, dropped, first_wall_ns, last_wall_ns;
    uint64_t disk_read, disk_write, char_read, char_write, cpu_user_ns, cpu_sys_ns;
    uint64_t rss_max, rss_peak, rss_last;
    uint64_t thread_records, t_disk_read, t_disk_write, t_char_read, t_char_write;
    uint64_t t0_ns, width_ns;
    uint32_t nused;
} h5_res_row;

typedef struct h5_res_bucket_row {
    uint32_t process, bucket;
    uint64_t start_ns; /* wall clock */
    res_bucket b;
} h5_res_bucket_row;

typedef struct h5_res_node_row {
    uint32_t process;
    res_node_io io;
} h5_res_node_row;

typedef struct h5_gpu_row {
    uint32_t process, slot; /* slot: the device's place among the process's */
    uint32_t index, present, busy_max, run_max;
    uint8_t run_seen;
    uint64_t busy_ns, run_ns;
    double busy_sum, run_sum;
    uint64_t mem_run_max, mem_run_last, mem_total, mem_used_max;
    uint64_t t0_ns, width_ns;
    uint32_t nused;
} h5_gpu_row;

typedef struct h5_gpu_bucket_row {
    uint32_t process, slot, bucket;
    uint64_t start_ns;
    res_gpu_bucket b;
} h5_gpu_bucket_row;

typedef struct h5_module_row {
    uint32_t process, id;
    const char *path, *build_id; /* build_id in hex, "" when none */
    uint64_t base, size;
} h5_module_row;

typedef struct h5_frame_row {
    uint32_t process, stack, module; /* innermost frame first */
    uint64_t offset;
} h5_frame_row;

typedef struct h5_sample_row {
    uint32_t process, thread, node, stack;
    uint64_t count, period_ns;
    uint32_t state; /* enum scope_cpu_state; 0 (on-CPU) in files exported before it */
} h5_sample_row;

typedef struct h5_sampler_row {
    uint32_t process;
    const char *project;
    uint32_t hz, clock, threads, threads_failed, flags;
    uint64_t period_ns, samples, dropped, truncated;
    uint32_t format_minor; /* of the log it came from; 0 in files exported before it: their
                              wall-clock samples do not say on- or off-CPU */
} h5_sampler_row;

/* A line measured exactly (an imported line_profiler record, log_lines.h):
 * its hits and time, in the function and region that measured it. */
typedef struct h5_measured_row {
    uint32_t process;
    const char *region, *file, *function; /* region "": none named */
    uint32_t line, def_line;              /* def_line: the function's first line, 0 not said */
    uint64_t hits;
    double seconds;
} h5_measured_row;

/* ---- the model -------------------------------------------------------------- */

typedef struct h5_attempt_row {
    const char *run_id;
    uint64_t nprocs, start_wall_ns, end_wall_ns;
} h5_attempt_row;

typedef struct h5_role_row {
    const char *name;
    uint64_t nprocs, nphases, phase_ns;
    double imbalance;
    int64_t slowest_process; /* row of /processes, -1 when none */
    uint64_t first_phase;    /* its phases: rows first_phase .. + nphases of /phases */
    /* Entries of its outermost phases named like the iteration phase. */
    uint8_t has_iterations;
    uint64_t iterations_count, iterations_total_ns, iterations_min_ns, iterations_max_ns;
    double iterations_mean_ns, iterations_p50_ns, iterations_p95_ns, iterations_p99_ns;
} h5_role_row;

/* A role's phases with the most self time, most first. */
typedef struct h5_dominant_row {
    uint32_t role, rank;
    uint64_t phase; /* row of /phases */
} h5_dominant_row;

/* A phase's total in one process of its role that entered it (the spread's
 * figures come from these). */
typedef struct h5_phase_process_row {
    uint64_t phase;
    uint32_t process;
    double total_ns;
} h5_phase_process_row;

typedef struct h5_role_process_row {
    uint32_t role, process;
} h5_role_process_row;

/* A phase figure's cell: u for an integer figure, d for one kept as a
 * double (phase_figures.h says which). */
typedef union h5_figure {
    uint64_t u;
    double d;
} h5_figure;

typedef struct h5_phase_row {
    uint32_t role;
    int64_t parent; /* row of /phases, -1 for a top-level phase */
    uint32_t depth, flags, line;
    const char *name, *path, *file;
    /* The phase figures with an HDF5 column, in their HDF5 order
     * (phase_figures.h, PF_OUT_H5): fig[k] is the k-th.  Their order in
     * the row is their order in the file. */
    h5_figure fig[PF_N];
    uint64_t nprocs;
    double spread_min_ns, spread_median_ns, spread_max_ns;
    int64_t spread_max_process;
    uint8_t has_histogram, io_measured, smp_io;
    uint64_t io_count, io_failed, disk_read, disk_write, char_read, char_write, cache_read;
    double disk_bytes_per_s;
    uint64_t smp_disk_read, smp_disk_write, smp_char_read, smp_char_write;
} h5_phase_row;

typedef struct h5_phase_counter_row {
    uint32_t role;
    int64_t phase; /* row of /phases; -1: counted with no phase open */
    const char *name;
    uint64_t calls;
    int64_t total;
    double rate_per_s, ns_per_unit;
} h5_phase_counter_row;

typedef struct h5_caveat_row {
    const char *kind;
    int64_t process; /* -1: the run as a whole */
    const char *text;
} h5_caveat_row;

/* Hot lines of the whole newest attempt, project attribution, most time
 * first: `scope-tui lines RUN` symbolized once, at export.  kind is
 * "sampled" (samples, an estimate) or "measured" (hits, exact). */
typedef struct h5_line_row {
    const char *file, *function, *module, *kind;
    const char *linkage_name; /* the function's as the binary spells it; "": unknown */
    uint32_t line;            /* 0: function-level only */
    uint8_t approximate;
    uint64_t samples, hits;
    double seconds, share, share_sd;
} h5_line_row;

/* The tables, each with its path in the file. */
typedef struct run_h5_table {
    const char *path;
    scope_h5_table t;
} run_h5_table;

extern const run_h5_table h5t_processes, h5t_damage, h5t_notes, h5t_caps, h5t_nodes, h5t_bins,
    h5t_counters, h5t_res, h5t_res_buckets, h5t_res_nodes, h5t_gpus, h5t_gpu_buckets, h5t_modules,
    h5t_frames, h5t_samples, h5t_sampler, h5t_measured, h5t_attempts, h5t_roles, h5t_role_processes,
    h5t_phase_counters, h5t_caveats, h5t_lines, h5t_dominant, h5t_phase_processes;

/* /process_caps's kind, by enum read_cap_kind. */
extern const char *const run_h5_cap_kinds[READ_KINDS];

/* /phases, whose figure columns come from phase_figures[]. */
const run_h5_table *run_h5_phases(void);

/* The phases' histograms: a matrix of /phases rows x SCOPE_HIST_BUCKETS. */
#define RUN_H5_PHASE_HIST "/phase_histograms"

/* ---- the summary: the model as a partial model ----------------------------------- */

/* Under RUN_H5_SUMMARY: everything run_merge_parts merges a model from, so
 * that a file holding it loads as one partial model (run_h5_summary.h),
 * without the processes' tables: per process its identity row and its
 * figures in the phases it entered, per phase the sums, extremes and
 * histogram the merge adds (docs/hdf5.md, "The summary").  Rows name a
 * process by its row in /summary/processes, a phase by its row in
 * /summary/phases (each role's tree in pre-order, a parent before its
 * children). */
#define RUN_H5_SUMMARY "/summary"

typedef struct h5_sum_process_row {
    const char *path, *run_id, *uuid, *host, *role, *job_id, *step_id, *exe, *cwd;
    const char *recorder_version, *launcher, *array_job_id, *trace_phase, *end;
    uint8_t readable, has_process, truncated, flush_failed, stale;
    int64_t pid, ppid;
    int32_t rank, local_rank, node_rank, world_size, array_task, restarts, end_signal;
    int32_t trace_state;
    uint64_t start_wall_ns, start_mono_ns, last_wall_ns, last_mono_ns, runtime_ns;
    uint64_t frames, frames_lost, bytes_skipped, stale_ns, unbalanced, dropped;
    uint32_t nthreads;
    uint64_t phase_ns, line_samples, ncaveats;
    uint64_t trace_first, trace_last, trace_start_mono_ns, trace_end_mono_ns;
    uint64_t trace_events, trace_cap, trace_lost;
} h5_sum_process_row;

typedef struct h5_sum_role_row {
    const char *name;
} h5_sum_role_row;

typedef struct h5_sum_role_process_row {
    uint32_t role;
    uint64_t process; /* row of /summary/processes */
} h5_sum_role_process_row;

/* A phase: fig[k] is the k-th figure that merges by adding, least or most
 * (phase_figures.h, run_h5_sum_figures), in that order. */
typedef struct h5_sum_phase_row {
    uint32_t role;
    int64_t parent; /* row; -1 a top-level phase */
    const char *name, *file, *tags;
    uint32_t line, flags;
    uint64_t file_proc; /* the role's process (its place in the role) that gave file */
    uint8_t has_histogram, io_measured, smp_io;
    uint64_t fig[PF_N];
    uint64_t delay_count, delay_wall_ns, delay_ns;
    uint64_t io_count, io_failed, disk_read, disk_write, char_read, char_write;
    uint64_t smp_disk_read, smp_disk_write, smp_char_read, smp_char_write;
} h5_sum_phase_row;

/* A process's figures in a phase it entered (run_proc_ns). */
typedef struct h5_sum_phase_process_row {
    uint32_t phase; /* 32 bits: the largest table, read whole on every open */
    uint32_t proc;  /* its place in the phase's role */
    double ns;
    uint64_t count, open_ns, cpu_ns;
} h5_sum_phase_process_row;

/* A histogram bucket with entries, of a phase; rows in phase then bucket order. */
typedef struct h5_sum_bin_row {
    uint64_t phase;
    uint32_t bucket;
    uint64_t count;
} h5_sum_bin_row;

typedef struct h5_sum_counter_row {
    uint32_t role;
    int64_t phase; /* -1: counted with no phase open */
    const char *name;
    uint64_t calls;
    int64_t total;
} h5_sum_counter_row;

extern const run_h5_table h5t_sum_processes, h5t_sum_attempts, h5t_sum_roles,
    h5t_sum_role_processes, h5t_sum_phase_processes, h5t_sum_bins, h5t_sum_counters,
    h5t_sum_caveats, h5t_sum_res, h5t_sum_res_buckets, h5t_sum_res_nodes, h5t_sum_gpus,
    h5t_sum_gpu_buckets;

/* /summary/phases, and the figures its fig[] holds (into ids; returns how many). */
const run_h5_table *run_h5_sum_phases(void);
size_t run_h5_sum_figures(enum phase_fig ids[PF_N]);

/* /summary's attribute: the part's attempt shown (row of /summary/attempts). */
#define RUN_H5_SUM_SHOWN "shown_attempt"
/* And 1 when it was read without the resource samples (--no-samples): its
 * processes' resources are not known, not none. */
#define RUN_H5_SUM_NO_SAMPLES "no_samples"

/* run_end as the layout names it, and back (-1: not a name). */
const char *run_h5_end_name(int end);
int run_h5_end_of(const char *name);

#endif
