/*
 * The comparison of two runs, A (the base) and B (the candidate): every
 * figure `compare` and `check` show, in text or JSON, is computed here.
 *
 * Roles are matched by name, phases by their path of names within the role
 * (byte for byte), counters by name within a matched phase.  Something found
 * in one run only is kept, marked with the side it is on, and its figures on
 * the other side are NAN: it was not there to be measured, which is not the
 * same as measuring zero.
 *
 * Rows are sorted by impact: the absolute change in total time, |total B -
 * total A| in ns, a phase missing from one run counting 0 there (all its time
 * appeared or vanished).  A parent's total includes its children's, so a
 * slowed phase's parents rank at least as high as it does, and a run that is
 * simply longer (more iterations) ranks its biggest phases first: `check`
 * compares the mean time per entry by default for that reason.  Ties go to
 * the larger total, then to the path, so the order is the same every time.
 */
#ifndef SCOPE_RUN_COMPARE_H
#define SCOPE_RUN_COMPARE_H

#include "phase_figures.h"
#include "run_model.h"

#include <stddef.h>

enum run_cmp_side {
    RUN_CMP_BOTH,
    RUN_CMP_ONLY_A, /* in the base only: gone from the candidate */
    RUN_CMP_ONLY_B, /* in the candidate only: new */
};

/* One figure on both sides. */
typedef struct run_cmp_fig {
    double a, b;   /* NAN where it is missing */
    double delta;  /* b - a; NAN when either side is missing */
    double change; /* delta / |a|: 0.25 is 25% more.  +-INFINITY when a is 0 and b
                      is not; 0 when both are 0; NAN when either side is missing */
    /* The interval of change at the comparison's confidence (run_noise.h),
     * for the figures that have one (mean, total, p50, p99); NAN when there
     * is no estimate of the noise. */
    double lo, hi;
    /* A one-sided lower bound of the change (it is at least this) at
     * at_least_confidence, run_noise_bound_confidence's: the comparison's
     * confidence where several base runs measured the run-to-run noise,
     * else stricter.  What check's verdict tests against its threshold
     * (run_check.h).  NAN where lo is. */
    double at_least, at_least_confidence;
} run_cmp_fig;

typedef struct run_cmp_counter {
    run_str name;
    enum run_cmp_side side;
    run_cmp_fig rate_per_s; /* per second of the phase's own total time */
    run_cmp_fig total;
    run_cmp_fig calls;
} run_cmp_counter;

typedef struct run_cmp_phase {
    char *path;             /* escaped, '/'-joined from the top-level phase */
    const run_phase *a, *b; /* NULL on the side it is missing from */
    enum run_cmp_side side;
    unsigned depth; /* 1: a top-level phase */
    double impact_ns;
    /* Every phase figure (phase_figures.h) compared, by figure: fig[PF_TOTAL],
     * fig[PF_SHARE] (fractions of the role's phase time; delta in fraction
     * points), ... */
    run_cmp_fig fig[PF_N];
    /* Where each side's noise estimate came from (run_noise.h), by figure:
     * RUN_NOISE_NONE for figures without one. */
    unsigned char noise_a[PF_N], noise_b[PF_N];
    run_cmp_counter *counters; /* by name */
    size_t ncounters;
    /* Exact I/O (SCOPE_PHASE_IO), when either side measured it (io): bytes
     * that reached the disk, bytes the page cache served, and disk bytes per
     * second of the phase's time; NAN on a side that did not measure it. */
    int io;
    run_cmp_fig io_disk_read, io_disk_write, io_cache_read, io_disk_bytes_per_s;
} run_cmp_phase;

/* Lines kept per role: the hottest, by the larger of their two shares. */
#define RUN_CMP_LINES_TOP 12

typedef struct run_cmp_line {
    run_str function, file;  /* the model's own: valid while both models are */
    uint32_t line_a, line_b; /* 0 on a side the line is missing from, or unknown */
    enum run_cmp_side side;
    int moved;         /* matched by function: line_a and line_b differ */
    run_cmp_fig share; /* of the role's line samples, 0..1; NAN on a missing side */
    double delta_sd;   /* one standard deviation of share.delta; NAN when a side is missing */
    int significant;   /* share.delta beyond z * delta_sd at the comparison's confidence */
} run_cmp_line;

/* A role's hot lines compared (run_compare_lines.h fills them). */
typedef struct run_cmp_role_lines {
    int sampled_a, sampled_b;      /* the role has line samples in A, in B */
    uint64_t samples_a, samples_b; /* the role's line samples */
    run_cmp_line *v;               /* the hottest, by max(share A, share B), most first */
    size_t n;
    size_t more; /* lines left out past RUN_CMP_LINES_TOP */
} run_cmp_role_lines;

/* A GPU both or either run sampled, by host and NVML index. */
typedef struct run_cmp_gpu {
    run_str host;
    uint32_t index;
    run_cmp_fig busy;     /* whole device, 0..1 */
    run_cmp_fig this_run; /* the role's own share; NAN where NVML attributed it nothing */
} run_cmp_gpu;

typedef struct run_cmp_role {
    run_str name;
    const run_role *a, *b; /* NULL on the side it is missing from */
    enum run_cmp_side side;
    double impact_ns; /* |phase time B - phase time A|, a missing side counting 0 */
    run_cmp_fig phase_ns, nprocs;
    run_cmp_phase *phases; /* by impact, biggest first */
    size_t nphases;
    /* Sampled resources (run_resources.h), when either side has samples
     * (res): bytes and bytes per second of runtime in each layer, and the
     * GPUs. */
    int res;
    run_cmp_fig disk_read, cache_read, disk_write;
    run_cmp_fig disk_read_per_s, cache_read_per_s, disk_write_per_s;
    run_cmp_gpu *gpus;
    size_t ngpus;
    /* Its hot lines compared (run_compare_lines.h); NULL until
     * run_compare_lines fills them. */
    run_cmp_role_lines *lines;
} run_cmp_role;

typedef struct run_cmp {
    const run_model *a, *b; /* borrowed: they must outlive the comparison */
    double confidence;      /* of every interval, 0.5 .. 0.999 */
    size_t nbase;           /* base runs: 1, or more when several taught the noise */
    run_cmp_role *roles;    /* by impact, biggest first */
    size_t nroles;
} run_cmp;

/* Compares a with b at confidence 0.95.  Returns the comparison, or NULL
 * when out of memory. */
run_cmp *run_compare(const run_model *a, const run_model *b);

/* The most base runs a comparison reads. */
#define RUN_CMP_MAX_BASE 64

typedef struct run_cmp_opts {
    double confidence; /* 0: 0.95 */
    /* More runs of the base besides a (they must outlive the comparison):
     * each phase's mean, total, p50 and p99 on side A become the mean over
     * every base run that has the phase, and their spread the run-to-run
     * noise of both sides (run_noise.h).  Every other figure is a's. */
    const run_model *const *more_a;
    size_t nmore_a;
} run_cmp_opts;

run_cmp *run_compare_with(const run_model *a, const run_model *b, const run_cmp_opts *opts);
void run_cmp_free(run_cmp *c);

/* Whether a figure's change is beyond the noise: 1 when its whole interval
 * lies above 0 (B grew), -1 below 0 (B shrank), 0 when the interval holds 0
 * or there is none (lo, hi NAN).  compare's JSON "significant" and the
 * browser's Diff view both ask this. */
int run_cmp_fig_beyond_noise(const run_cmp_fig *f);

/* Two figures compared, as every run_cmp_fig above is. */
run_cmp_fig run_cmp_figure(double a, double b);

/* "both", "only_in_a", "only_in_b" (the JSON spelling). */
const char *run_cmp_side_name(enum run_cmp_side side);

#endif
