/*
 * Settings from the arguments of scope_init and the environment.
 */
#ifndef SCOPE_REC_CONFIG_H
#define SCOPE_REC_CONFIG_H

#include "recorder.h"

enum rec_cpu_mode { REC_CPU_OFF, REC_CPU_ADAPTIVE, REC_CPU_ALWAYS };

typedef struct rec_config {
    char run_dir[4096]; /* absolute */
    char role[256];
    char run_id[64];             /* empty: derive */
    uint64_t frame_interval_ns;  /* 0: automatic */
    uint64_t hist_interval_ns;   /* periodic frames carry histograms this often */
    uint64_t sample_interval_ns; /* the resource sampler's interval; 0: no sampler */
    int cpu_mode;                /* enum rec_cpu_mode */
    uint64_t cpu_min_ns;         /* adaptive: a phase's time per entry that reads CPU time */
    int quiet;                   /* SCOPE_QUIET: no stderr lines */
    unsigned dir_mode;           /* the directories it creates: SCOPE_DIR_MODE, else 0755 */
    int dir_mode_exact;          /* SCOPE_DIR_MODE given: applied as is, not less the umask */
    char nvml_library[4096];     /* SCOPE_NVML_LIBRARY: the one NVML to load (absolute); "" none */
    uint32_t names_max;          /* SCOPE_NAMES_MAX, else REC_NAME_LIMIT (names.c) */
} rec_config;

/* The process's settings.  Written by lifecycle.c only, under its lock:
 * whole at start (before the writer thread runs), and the role while the
 * writer is held (rec_writer_lock).  Read by the writer thread and warn. */
extern rec_config rec_cfg;

/* Settings the hot path reads.  Written by lifecycle.c while the recorder
 * starts, before any thread attaches; fixed while recording. */
struct rec_hot_settings {
    int cpu_mode;          /* enum rec_cpu_mode */
    uint64_t cpu_min_ns;   /* adaptive: a phase's time per entry that reads CPU time */
    uint64_t cpu_read_ns;  /* what one read of CPU time costs here, measured at start */
    uint64_t cpu_share_ns; /* its share of a CPU window at start (cpu_share.h) */
};
extern struct rec_hot_settings rec_hot;

/* Whether s may be a run id: 1 to 63 printable ASCII bytes, none of them a
 * space, '/' or '_' (the run id is part of a log's file name, where '_'
 * separates fields).  The one test for SCOPE_RUN_ID and every run id read
 * from the run directory. */
int rec_run_id_valid(const char *s);

/* Reads the settings, and resolves the run directory: it is created if
 * missing (through any symbolic link in the path given, which is the user's
 * choice) and c->run_dir becomes its real path, which is all the recorder
 * uses afterwards, in forked children too, and exports to exec'd ones. */
int rec_config_from_env(rec_config *c, const char *run_dir, const char *role, char *err,
                        size_t errlen);

#endif
