/*
 * One process's resource samples (RESOURCE records, docs/format.md 5.9)
 * folded as they are read into a form whose size does not grow with the
 * length of the run:
 *
 *   - exact totals of every figure (bytes in both I/O layers, CPU, dropped
 *     intervals), with the presence bits that say which were measured;
 *   - the bytes each thread moved under each phase node (thread records),
 *     for attributing sampled I/O to the phase tree;
 *   - a time series of RES_BUCKETS buckets.  Buckets start one second wide
 *     and double (neighbours merged pairwise) whenever a sample falls past
 *     the last, so a 12-hour process keeps buckets of about three minutes,
 *     a short one of one second, and memory stays a few kilobytes either way;
 *   - the same, per GPU device, for the GPU figures.
 *
 * Bucket times are wall clock (the interval's monotonic start placed on the
 * wall clock by its frame), so processes of one run line up.
 *
 * A log read from a snapshot (docs/format.md 9.8) has no RESOURCE records
 * before it, only the snapshot's RESOURCE_SERIES (5.19): those fold in
 * through res_proc_add_series, which keeps the totals exact (sums of bytes
 * and CPU time, the largest RSS) but places each series bucket whole, so
 * the sparkline and the peak rates before the snapshot are approximate
 * (a bucket's mean, its largest interval over the mean length).  The
 * bytes before it reach their phases through the snapshot's NODE_IO
 * records (5.22, res_proc_add_node_io), exactly; a snapshot without them
 * (its writer ran out of memory) leaves those bytes in no phase.  `series`
 * says how much came that way.
 */
#ifndef SCOPE_RES_PROC_H
#define SCOPE_RES_PROC_H

#include "idmap.h"

#include <scope/log_format.h>

#include <stddef.h>
#include <stdint.h>

#define RES_BUCKETS  256
#define RES_MAX_GPUS 64
#define RES_UNMEASURED_KEPT                                                                        \
    16 /* process intervals without I/O a thread record is matched to */ /* devices per process;   \
                                                                            entries past this are  \
                                                                            left out */

/* One bucket of a process's I/O, memory and CPU series. */
typedef struct res_bucket {
    uint64_t sampled_ns; /* interval time that fell here */
    uint64_t disk_read, cache_read, disk_write, char_write;
    uint64_t cpu_ns;
    /* The largest RSS of the intervals here (0: none): each interval's
     * kernel high-water mark where it rose in it, its sampled RSS where not
     * (res_proc.c, interval_rss_peak), so a block allocated and freed
     * between two samples shows; merged buckets keep the larger. */
    uint64_t rss_max;
    /* The busiest single interval here, bytes per second: peaks survive the
     * merging of buckets. */
    float peak_read, peak_cache, peak_write;
} res_bucket;

/* One bucket of a device's series, as this process saw it. */
typedef struct res_gpu_bucket {
    uint64_t busy_ns, run_ns; /* interval time with busy / run share measured */
    double busy_sum, run_sum; /* permyriad x ns */
    uint64_t mem_run_max;     /* largest mem_run; 0: none */
    uint8_t run_seen;         /* NVML attributed a sample to the process here */
    uint8_t mem_run_present;
} res_gpu_bucket;

/* The header a series of buckets shares with its kind. */
typedef struct res_series {
    uint64_t t0_ns;    /* wall time where bucket 0 starts; 0: nothing yet */
    uint64_t width_ns; /* each bucket's span */
    uint32_t nused;    /* buckets 0 .. nused-1 may hold data */
} res_series;

typedef struct res_gpu_proc {
    uint32_t index;   /* NVML's device index */
    uint32_t present; /* SCOPE_GPU_* of any interval */
    int run_seen;     /* some interval had SCOPE_GPU_RUN_SEEN */
    uint64_t busy_ns, run_ns;
    double busy_sum, run_sum; /* permyriad x ns */
    uint32_t busy_max, run_max;
    uint64_t mem_run_max, mem_run_last, mem_total, mem_used_max;
    res_series s;
    res_gpu_bucket b[RES_BUCKETS];
} res_gpu_proc;

/* The bytes put under one phase node: by thread records (the node open on
 * the thread that moved them), and by process records (the node open on
 * the process's first thread), which attribute only when a log has no
 * thread records (a recorder before format 1.3). */
typedef struct res_node_io {
    uint32_t node; /* 0: no phase open */
    uint64_t disk_read, disk_write, char_read, char_write;
    uint64_t p_disk_read, p_disk_write, p_char_read, p_char_write;
} res_node_io;

/* What a snapshot's series (res_proc_add_series) added to a process. */
typedef struct res_from_series {
    uint64_t intervals;     /* intervals they summarize; 0: none read */
    uint64_t sampled_ns;    /* their summed length */
    uint64_t until_wall_ns; /* the snapshot's wall time: the series end before it */
    uint64_t bucket_ns;     /* their coarsest bucket width */
    /* Their bytes: under their phases when the snapshot's NODE_IO records
     * were folded (node_io), in no phase's figures when not. */
    uint64_t disk_read, disk_write, char_read, char_write;
    uint64_t node_io; /* NODE_IO records folded */
} res_from_series;

typedef struct res_proc {
    uint32_t present;                     /* SCOPE_RES_* of any process record */
    uint64_t intervals;                   /* process records (thread 0) */
    uint64_t sampled_ns;                  /* their total length */
    uint64_t dropped;                     /* intervals dropped, as the records say */
    uint64_t first_wall_ns, last_wall_ns; /* span sampled */
    /* Bytes: the process records', and the thread records' of intervals
     * whose process record has no I/O (unmeasured_records, below). */
    uint64_t disk_read, disk_write, char_read, char_write, cpu_user_ns, cpu_sys_ns;
    uint64_t rss_max, rss_peak, rss_last;
    /* Thread records: their sum, and per node. */
    uint64_t thread_records;
    uint64_t t_disk_read, t_disk_write, t_char_read, t_char_write;
    /* Thread records of intervals whose process record has no I/O (a child
     * was reaped in it, whose bytes the kernel adds to the parent's): their
     * bytes are in the process's totals above, the only ones known of the
     * interval.  The starts of the last RES_UNMEASURED_KEPT such process
     * records, of nunmeasured in all, are what thread records are matched
     * with. */
    uint64_t unmeasured_records;
    uint64_t unmeasured_mono_ns[RES_UNMEASURED_KEPT];
    uint64_t nunmeasured;
    res_node_io *nodes;
    size_t nnodes, cap_nodes;
    idmap node_ix;
    res_series s;
    res_bucket b[RES_BUCKETS];
    res_gpu_proc *gpus;
    size_t ngpus, cap_gpus;
    res_from_series series;
} res_proc;

/* Adds one RESOURCE record whose interval started at wall time start_wall_ns.
 * *p is allocated on first use.  Returns 0, or -1 when out of memory. */
int res_proc_add(res_proc **p, const scope_rec_resource *r, uint64_t start_wall_ns);

/* The RESOURCE_SERIES records of the snapshot frame a read began at (n of
 * them), that frame closed at frame_mono_ns / frame_wall_ns: the intervals
 * before it, as approximate as the header says.  Series of threads and of
 * figures this build does not know are skipped.  Returns 0, or -1 when out
 * of memory. */
int res_proc_add_series(res_proc **p, const scope_rec_resource_series *s, size_t n,
                        uint64_t frame_mono_ns, uint64_t frame_wall_ns);

/* The NODE_IO records of the snapshot frame a read began at (n of them),
 * after its series (res_proc_add_series): the bytes the intervals before
 * it put under each phase node, and the thread records' totals, exactly as
 * reading those intervals would have given them.  Returns 0, or -1 when
 * out of memory. */
int res_proc_add_node_io(res_proc **p, const scope_rec_node_io *r, size_t n);

void res_proc_free(res_proc *p);

/* The bucket index covering wall time t: 0 .. s->nused - 1, or SIZE_MAX
 * when t is outside the series. */
size_t res_series_at(const res_series *s, uint64_t t);

#endif
