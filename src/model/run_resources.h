/*
 * Resources of a set of processes (a role, one process, or the whole run),
 * from the 1 Hz sampler's RESOURCE records: I/O in both layers with its
 * attribution to phases, memory, CPU and GPU per device, and their series
 * over time folded to the width a sparkline has.
 *
 * The totals are exact sums of what was sampled.  Over time, each process
 * keeps a fixed number of buckets (res_proc.h), so a figure over time has
 * the resolution of a 12-hour run divided by 256 at worst; peaks of I/O
 * rates are kept per bucket from the single busiest interval, so they stay
 * exact however coarse the buckets.
 *
 * As everywhere in the model, "measured zero" and "not measured" differ: a
 * figure no process measured is NAN (doubles) or has its bit clear in
 * `present`, and renderers print it as n/a.
 */
#ifndef SCOPE_RUN_RESOURCES_H
#define SCOPE_RUN_RESOURCES_H

#include "run_model.h"

#include <stddef.h>
#include <stdint.h>

/* One GPU as the set's processes saw it.  Devices are told apart by host
 * and NVML index: index 0 on two hosts is two devices. */
typedef struct run_res_gpu {
    run_str host;
    uint32_t index;       /* NVML's index: the machine's physical device */
    double busy_mean;     /* whole-device busy over the time sampled, 0..1; NAN: not measured */
    double busy_peak;     /* the busiest interval, 0..1; NAN: not measured */
    double run_mean;      /* this set's own share summed over its processes, 0..1;
                             NAN when NVML never attributed a sample to any of them */
    double run_peak;      /* the largest bucket of that sum; NAN likewise */
    double idle;          /* 1 - busy_mean; NAN when busy was not measured */
    double vram_run_mean; /* device memory of this set's processes, bytes, over time */
    double vram_run_peak; /* its largest value; both NAN when not measured */
    uint64_t mem_total;   /* device memory size; 0: not measured */
    size_t nworkers;      /* processes that saw the device */
    size_t *workers;      /* their run_model.workers indexes */
    size_t nrunning;      /* of them, those NVML saw running there (a sample or memory) */
} run_res_gpu;

/* I/O bytes by layer; see docs/report.md for what each means. */
typedef struct run_res_io {
    uint64_t disk_read;  /* reached the block device */
    uint64_t cache_read; /* read but served from page cache: char_read - disk_read, >= 0 */
    uint64_t disk_write; /* reached the block device (writeback-dependent) */
    uint64_t char_read, char_write; /* handed to read() and write() */
} run_res_io;

typedef struct run_res {
    size_t nsampled;    /* processes with at least one sample */
    uint32_t present;   /* SCOPE_RES_* any of them measured */
    uint64_t intervals; /* sample intervals (process records) */
    uint64_t dropped;   /* intervals dropped because counters could not be read */
    double sampled_s;   /* the longest time one process was sampled, s */
    /* Of the intervals, those known only from a snapshot's series
     * (res_proc.h): their time series and peaks are approximate.  Their
     * bytes reach their phases through the snapshot's NODE_IO records;
     * those of the series_no_node_io processes whose snapshot had none
     * reach no phase, and series_io is those bytes. */
    uint64_t series_intervals;
    size_t series_no_node_io;
    run_res_io series_io;

    run_res_io io;
    /* Per second of the run's runtime; NAN when not measured. */
    double disk_read_per_s, cache_read_per_s, disk_write_per_s;
    /* The busiest single interval of any one process, bytes/s; NAN likewise. */
    double disk_read_peak, cache_read_peak, disk_write_peak;

    /* Bytes moved while the moving thread had no phase open, or that no
     * thread record explains (threads that ended mid-interval), and their
     * share of the bytes handed to read() and write(); NAN when nothing was
     * read or written. */
    run_res_io no_phase;
    double no_phase_share;
    /* no_phase in its two parts: moved while the moving thread had no
     * phase open (outside every phase), and moved by the process beyond
     * what its threads recorded, so that no phase can be named (not
     * attributable); with their shares of `shared` likewise. */
    run_res_io outside_phases, unplaced;
    double outside_phases_share, unplaced_share;
    /* The bytes read and written that phase shares are of (those of a
     * snapshot's series left out), so that the phases' shares and
     * no_phase_share add up to 1. */
    uint64_t shared;

    uint64_t rss_peak;      /* the largest peak RSS of one process; 0: not measured */
    size_t rss_peak_worker; /* that process (run_model.workers), SIZE_MAX when none */
    uint64_t rss_peak_sum;  /* the processes' peaks added up */
    uint64_t cpu_ns;        /* user + system CPU time sampled */
    double cpu_cores;       /* cpu_ns per second of runtime; NAN when not measured */

    run_res_gpu *gpus; /* by host, then index */
    size_t ngpus;
} run_res;

/* What a figure over time shows (run_res_fold). */
enum run_res_metric {
    RUN_RES_DISK_READ,  /* bytes/s */
    RUN_RES_CACHE_READ, /* bytes/s */
    RUN_RES_DISK_WRITE, /* bytes/s */
    RUN_RES_RSS,        /* bytes: the processes' RSS added up */
    RUN_RES_CPU,        /* cores busy */
    RUN_RES_GPU_BUSY,   /* 0..1, whole device */
    RUN_RES_GPU_RUN,    /* 0..1, the processes' share added up */
    RUN_RES_GPU_VRAM,   /* bytes of the processes on the device */
};

/* The resources of the processes workers[0..n-1] (run_model.workers
 * indexes), or NULL when out of memory.  Free with run_res_free. */
run_res *run_res_of(const run_model *m, const size_t *workers, size_t n);
void run_res_free(run_res *r);

/* The resources of a role, of one process, or of the newest attempt as a
 * whole, kept by the model until run_free (computed on first use).  NULL
 * when out of memory. */
const run_res *run_role_res(run_model *m, const run_role *role);
const run_res *run_worker_res(run_model *m, size_t worker);
const run_res *run_all_res(run_model *m);

/* The metric over time for the processes workers[0..n-1], folded into
 * ncols columns spanning the newest attempt from its start to its end
 * (gpu selects the device for the GPU metrics, NULL otherwise).  cols[i]
 * is NAN where no process was sampled.  Returns the largest value (NAN
 * when none). */
double run_res_fold(const run_model *m, const size_t *workers, size_t n, enum run_res_metric what,
                    const run_res_gpu *gpu, size_t ncols, double *cols);

/* Whether any process of the newest attempt has a sample / a GPU entry. */
int run_has_samples(const run_model *m);

/* The sampled bytes a phase was billed for, or 0 with *io zeroed when none
 * were (phases that were never open at an interval's start). */
int run_phase_sampled_io(const run_phase *p, run_res_io *io);

#endif
