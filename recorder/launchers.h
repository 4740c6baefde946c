/*
 * Which launcher started this process and what it says about the launch:
 * one row per launcher family (launchers.c), so a new launcher is a new row.
 * identity.c turns what a row finds into the run id the ranks agree on.
 */
#ifndef SCOPE_REC_LAUNCHERS_H
#define SCOPE_REC_LAUNCHERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct rec_launch {
    const char *name; /* the family: "openmpi", "pmix", "hydra", "torchrun", "slurm"; "" none */
    /* The same in every rank of one launch and different for the next
     * launch, or "" when the launcher names no launch.  Under Hydra, which
     * names none, it is the rank's proxy, shared by the ranks of one host. */
    char key[512];
    int hydra;             /* key is Hydra's proxy: identity.c's rendezvous finds the launch */
    int hydra_one_host;    /* every rank of the launch runs under this proxy */
    int32_t hydra_size;    /* PMI_SIZE */
    char hydra_host[256];  /* the host as Hydra's host list names it, else "" */
    char array_job_id[64]; /* SLURM_ARRAY_JOB_ID, "" when not a job array's task */
    int32_t array_task;    /* SLURM_ARRAY_TASK_ID; -1 when none */
    int32_t restarts;      /* the launcher's restart count; -1 when it keeps none */
} rec_launch;

/* Reads the environment (and, for Hydra, which proxy is this process's
 * ancestor, from /proc). */
void rec_launch_detect(rec_launch *l);

/* A task of a Slurm job array records into a run directory of its own, dir
 * with "-task<N>" appended, unless SCOPE_RUN_ID names the run (the tasks
 * then share dir, as one run): the tasks of an array run side by side, and
 * are not attempts superseding each other.  Appends in place; 0, or -1 when
 * the result does not fit cap. */
int rec_launch_array_dir(char *dir, size_t cap);

#endif
