/*
 * Who this process is: host, pid, launcher ranks, job, and the run it
 * belongs to.
 */
#ifndef SCOPE_REC_IDENTITY_H
#define SCOPE_REC_IDENTITY_H

#include "config.h"

#include <sys/types.h>

typedef struct rec_identity {
    char host[256]; /* as gethostname says; its folder is scope_host_dir_encode's */
    char run_id[64];
    char uuid[9];
    pid_t pid, ppid;
    int32_t rank, local_rank, node_rank, world_size; /* -1: no launcher says */
    char job_id[128], step_id[64];
    char launcher[16];     /* the launcher family (launchers.c), "" when none */
    char array_job_id[64]; /* the job array of a Slurm array task, else "" */
    int32_t array_task;    /* -1: not an array task */
    int32_t restarts;      /* the launcher's restart count; -1: it keeps none */
    uint64_t start_wall_ns, start_mono_ns;
    int run_started; /* this process chose the run id: no parent's, no other rank's */
} rec_identity;

/* The process's identity.  Written by lifecycle.c only, under its lock,
 * while no writer thread runs (at start, and in a forked child before it
 * starts its own); read by the writer thread and the signal handlers. */
extern rec_identity rec_id;

/* Everything, at start: the run id may be agreed with other ranks in the
 * run directory.  Returns 0: a run directory that cannot help agree costs
 * the ranks only the published id (see identity.c), never the recording. */
int rec_identity_init(rec_identity *id, const rec_config *cfg, char *err, size_t errlen);
/* What is this process's own: again in a forked child, which keeps the run,
 * host and ranks of its parent. */
void rec_identity_self(rec_identity *id);
/* Children started by exec or posix_spawn join this run. */
void rec_export_env(const rec_identity *id, const rec_config *cfg);

#endif
