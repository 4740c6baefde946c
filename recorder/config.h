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
    char run_id[64];            /* empty: derive */
    uint64_t frame_interval_ns; /* 0: automatic */
    uint64_t hist_interval_ns;  /* periodic frames carry histograms this often */
    int cpu_mode;               /* enum rec_cpu_mode */
    uint64_t cpu_min_ns;        /* adaptive: read CPU time for phases at least this long */
    int quiet;                  /* SCOPE_QUIET: no stderr lines */
} rec_config;

/* The process's settings.  Written by lifecycle.c only, under its lock:
 * whole at start (before the writer thread runs), and the role while the
 * writer is held (rec_writer_lock).  Read by the writer thread and warn. */
extern rec_config rec_cfg;

/* Settings the hot path reads.  Written by lifecycle.c while the recorder
 * starts, before any thread attaches; fixed while recording. */
struct rec_hot_settings {
    int cpu_mode;        /* enum rec_cpu_mode */
    uint64_t cpu_min_ns; /* adaptive threshold on a phase's mean duration */
};
extern struct rec_hot_settings rec_hot;

int rec_config_from_env(rec_config *c, const char *run_dir, const char *role, char *err,
                        size_t errlen);

#endif
