/*
 * Hot lines: the line samples of a run, symbolized and attributed.
 *
 * The recorder writes interned stacks of module-relative addresses and, per
 * thread and phase node, how often each stack was sampled (docs/format.md,
 * MODULE, STACK, STACK_SAMPLES, LINES).  This part of the model symbolizes
 * those addresses offline (lines_symbolize.h, elfutils) and sums samples by
 * source line under two attributions:
 *
 *   project  the innermost frame whose source file is under the process's
 *            project folder, so time spent in libm lands on the project
 *            line that called it (the default everywhere);
 *   self     the line that ran, wherever it is (--raw).
 *
 * A query selects samples by role, process and phase (a phase selects the
 * samples taken while it or any phase under it was innermost) and returns
 * rows per line, per function, or for one function's source.  Every figure
 * follows the model's rule: what could not be measured is missing, never 0.
 *
 * Lines measured exactly (an imported line_profiler record, log_lines.h)
 * are rows of their own kind: their hits and time are counts, not samples,
 * so they carry no standard deviation, and their share is of the measured
 * time the query selected.  A query returns both kinds; a row or function
 * is one kind, never a mix.
 */
#ifndef SCOPE_RUN_LINES_H
#define SCOPE_RUN_LINES_H

#include "lines_symbolize.h"
#include "run_model.h"

#include <stddef.h>
#include <stdint.h>

enum run_lines_attr {
    RUN_LINES_PROJECT = 0, /* innermost frame under the project folder */
    RUN_LINES_SELF = 1,    /* the frame that ran */
};

enum run_lines_sort {
    RUN_LINES_BY_TIME = 0,    /* samples, most first (time is samples x period) */
    RUN_LINES_BY_SAMPLES = 1, /* the same order for one period; kept for "hits" */
    RUN_LINES_BY_LINE = 2,    /* file, then line number */
};

/* Which samples a query counts by what their thread was doing (format
 * 1.10, docs/lines.md "Off-CPU stacks").  A CPU-time sample is always on
 * a CPU; a wall-clock one is on it, blocked (asleep: a blocking system
 * call, a page being read) or queued (runnable, waiting for a CPU). */
enum run_lines_cpu {
    RUN_LINES_CPU_ALL = 0,     /* every sample */
    RUN_LINES_CPU_ON = 1,      /* on a CPU */
    RUN_LINES_CPU_OFF = 2,     /* off it: blocked, queued and of a kind unknown */
    RUN_LINES_CPU_BLOCKED = 3, /* off it, asleep */
    RUN_LINES_CPU_QUEUED = 4,  /* off it, runnable but waiting for a CPU */
};
/* "all", "on-CPU", "off-CPU", "blocked", "queued". */
const char *run_lines_cpu_name(enum run_lines_cpu cpu);

/* What a sample found its thread doing: the log's scope_cpu_state, and
 * one bucket more for the states a newer recorder may write, which
 * docs/format.md (OFFCPU_SAMPLES) says are off a CPU, of a kind unknown. */
enum run_lines_state {
    RUN_STATE_ON = 0,          /* running on a CPU */
    RUN_STATE_BLOCKED = 1,     /* asleep */
    RUN_STATE_QUEUED = 2,      /* runnable, waiting for a CPU */
    RUN_STATE_OFF_UNKNOWN = 3, /* off a CPU, in a state this reader does not know */
};
#define RUN_LINES_STATES 4

/* Which samples a query counts. */
typedef struct run_lines_query {
    const char *role;       /* NULL: every role of the newest attempt */
    size_t worker;          /* SIZE_MAX: every process; else run_model.workers index */
    const run_phase *phase; /* NULL: all samples; else a phase of the model (any role's tree,
                               or run_worker_role's): samples while it or a descendant was
                               innermost, in the processes that phase merges */
    const char *function;   /* NULL: all; else rows of functions of exactly this name, as
                               shown (demangled) or as linked (mangled) */
    enum run_lines_attr attr;
    enum run_lines_sort sort;
    enum run_lines_cpu cpu; /* RUN_LINES_CPU_ALL: on- and off-CPU samples alike */
} run_lines_query;

enum run_line_kind {
    RUN_LINE_SAMPLED = 0,  /* samples of the line sampler: estimates with a share_sd */
    RUN_LINE_MEASURED = 1, /* exact hits and time (line_profiler) */
};

/* One source line (or one function when the line is unknown). */
typedef struct run_line {
    enum run_line_kind kind;
    run_str file;      /* source file as the debug info names it; len 0: unknown */
    uint32_t line;     /* 0: no line information (a function-level row) */
    run_str function;  /* innermost function at that line, inlined ones included,
                          demangled ("ns::Grid<int>::at(int) const"); "??" when unknown */
    run_str linkage;   /* its linkage name as the binary spells it ("_ZNK2ns4GridIiE2atEi";
                          a C function's is its name); len 0: unknown or measured */
    run_str module;    /* path of the module the address lies in */
    uint64_t samples;  /* samples attributed to this line (0 for a measured row) */
    uint64_t hits;     /* measured: times the line ran (0 for a sampled row) */
    double seconds;    /* sampled: estimated CPU time, sum of samples x their period;
                          measured: the time measured on the line */
    double share;      /* sampled: samples / the query's samples; measured: seconds /
                          the query's measured seconds; 0..1 */
    double share_sd;   /* sampled: one standard deviation of share, sqrt(share (1 - share)
                          / n); measured: NAN (exact, no interval) */
    int approximate;   /* 1: function-level only (no debug info or build-id mismatch) */
    uint32_t def_line; /* measured: the line its function starts at, as the profiler said
                          (line_profiler's first_lineno); 0: not said, or sampled */
} run_line;

/* One function: the seed's print_stats groups lines under these. */
typedef struct run_lines_function {
    enum run_line_kind kind; /* of all its rows */
    run_str function, file, module;
    run_str linkage;                /* as run_line's */
    uint32_t first_line, last_line; /* of its rows with a line; 0, 0 when none */
    uint32_t def_line;              /* measured: where it starts, as its rows say (the lowest
                                       they name); 0: none says */
    uint64_t samples, hits;
    double seconds, share, share_sd; /* as run_line's, of its kind */
    size_t first_row, nrows;         /* its rows: rows[function_rows[first_row + k]] for k < nrows,
                                        by line */
} run_lines_function;

typedef struct run_lines_result {
    run_line *rows; /* sorted as the query asked */
    size_t nrows;
    run_lines_function *functions; /* by samples, most first */
    size_t nfunctions;
    size_t *function_rows;    /* nrows indexes into rows, grouped by function, each function's
                                 by line (run_lines_function.first_row, nrows) */
    uint64_t samples;         /* every sample the query selected (a --function filter
                                 selects rows, not samples: shares stay of the whole) */
    double seconds;           /* their estimated time */
    uint64_t hits;            /* measured rows' hits, all selected */
    double measured_seconds;  /* measured rows' time, all selected */
    uint64_t outside_project; /* project attribution: samples with no frame under the
                                 project folder (counted in rows by the frame that ran,
                                 marked in no row; 0 for self attribution) */
    double period_ns;         /* sampling period when all selected processes share one;
                                 NAN when they differ or none was sampled */
    double per_signal;        /* run_lines_info.per_signal: share_sd rests on samples / it */
    uint64_t by_state[4];     /* the selected samples by enum run_lines_state (a CPU-time
                                 sample is on a CPU; a wall sample of a log before 1.10 is
                                 in none) */
    int wall;                 /* some selected sample was of the wall clock */
} run_lines_result;

/* What line data the run has, from its LINES records and caveats. */
typedef struct run_lines_info {
    int has_lines;           /* some process of the newest attempt has line samples or
                                measured lines */
    size_t measured_workers; /* processes with measured lines */
    uint64_t measured_lines; /* their rows as loaded, all processes */
    uint64_t samples;        /* samples recorded, all processes */
    uint64_t dropped;        /* lost to full storage */
    uint64_t truncated;      /* stacks cut at the depth limit */
    size_t sampled_workers;  /* processes that recorded line samples */
    uint32_t hz;             /* requested rate when all processes agree; 0 otherwise */
    run_str project;         /* project folder when all processes agree; len 0 otherwise */
    size_t unsymbolized;     /* modules without debug info or whose build-id changed */
    double per_signal;       /* samples per sampling signal, >= 1: above the kernel's tick
                                each signal carries 1 + its timer overruns, and a share's
                                uncertainty rests on the signals (1 when a log does not say) */
    size_t wall_workers;     /* processes that sampled the wall clock */
    uint64_t off_samples;    /* samples taken off-CPU (blocked, queued or of a kind unknown),
                                all processes */
    uint64_t off_unknown;    /* of them, those in a state this reader does not know */
    uint64_t unsaid_samples; /* wall-clock samples of logs before format 1.10, which do not
                                say on- or off-CPU: a query other than RUN_LINES_CPU_ALL
                                refuses a run that has any */
} run_lines_info;

/* Symbolizes the run's line samples once (cached in the model; later calls
 * return at once) and fills *info.  Missing debug info, a changed binary,
 * dropped samples and unsampled threads become caveats of the model
 * (RUN_CAVEAT_LINES).  source_dir: an extra folder to look for source files
 * in (NULL: none).  Returns 0, or -1 with one plain line in msg when memory
 * runs out. */
int run_lines_load(run_model *m, const char *source_dir, run_lines_info *info, char *msg,
                   size_t msglen);

/* As run_lines_load, symbolizing with sym, which the caller keeps and
 * frees after the model: each module it has opened and each address it
 * has looked up for an earlier model (the same run read again as it goes
 * on) is not done again.  sym NULL: a symbolizer of the model's own. */
int run_lines_load_with(run_model *m, const char *source_dir, lines_symbolizer *sym,
                        run_lines_info *info, char *msg, size_t msglen);

/* What symbolizing this model took (lines_symbolize.h): modules and files
 * opened, addresses looked up, whole symbol tables searched.  -1 before
 * run_lines_load. */
int run_lines_counts(run_model *m, lines_sym_count *out);

/* Runs a query.  Returns 0 with *out filled (free with run_lines_free), or
 * -1 with one plain line in msg (no line data, unknown role or function). */
int run_lines_select(run_model *m, const run_lines_query *q, run_lines_result *out, char *msg,
                     size_t msglen);
void run_lines_free(run_lines_result *r);

/* One standard deviation of a share of n samples that came per_signal to a
 * sampling signal (run_lines_info.per_signal; below 1 counts as 1): the
 * independent looks are the signals.  NAN for no samples.  Every share's
 * +- goes through it: Lines, functions, the Flame view, callers. */
double run_lines_share_sd(double share, uint64_t n, double per_signal);

/* How to record what a run without line data lacks, as advice that follows
 * "no line samples: ".  A scope-profiler file is a Python program's, whose
 * lines its own line_profiler measures; anything else is recorded again
 * with the sampler on. */
const char *run_lines_how_to_record(const run_model *m);
/* The same in a few words, for a status line: what turns the lines on. */
const char *run_lines_switch(const run_model *m);

/* The text of a source file as the browser and `lines` show it: found as
 * recorded, else under the project folder, else under source_dir.  Returns
 * the number of lines with *lines pointing at them (owned by the model,
 * escaped for display), or 0 with a plain reason in why when the file is
 * missing or unreadable.  Reads at most a bounded size (a log may name any
 * file): a larger file is refused with a reason. */
size_t run_lines_source(run_model *m, run_str file, const run_str **lines, char *why,
                        size_t whylen);

#endif
