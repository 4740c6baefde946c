/*
 * The launcher table: one row per launcher family, tried in order; the first
 * row whose variable is set names the launcher, and the first such row that
 * can name the launch gives the key (torchrun's default run id names none,
 * so under Slurm the job does).  MPI and torchrun rows come before Slurm's:
 * inside an allocation, mpirun, mpiexec or torchrun is the launcher of the
 * ranks, and Slurm's variables describe the step that started it.
 */
#define _GNU_SOURCE
#include "launchers.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* A non-negative decimal integer, else -1. */
static int32_t env_count(const char *name) {
    const char *v = env(name);
    if (!v)
        return -1;
    char *end;
    long n = strtol(v, &end, 10);
    return end != v && *end == '\0' && n >= 0 && n <= INT32_MAX ? (int32_t)n : -1;
}

typedef struct launcher_row {
    const char *name;
    const char *present; /* set in every process the launcher starts */
    /* Writes the launch's key (or leaves it "") and whatever else the row
     * knows into l. */
    void (*read)(rec_launch *l);
} launcher_row;

static void read_openmpi(rec_launch *l) {
    static const char *const ns[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
                                     "OMPI_MCA_orte_ess_jobid", NULL};
    for (const char *const *n = ns; *n; n++)
        if (env(*n)) {
            snprintf(l->key, sizeof l->key, "%s=%s", *n, env(*n));
            return;
        }
}

static void read_pmix(rec_launch *l) {
    snprintf(l->key, sizeof l->key, "PMIX_NAMESPACE=%s", env("PMIX_NAMESPACE"));
}

/* A process's name and start time (in clock ticks since boot) from
 * /proc/PID/stat, and its parent; 0, or -1 when it cannot be read. */
static int proc_stat(pid_t pid, char *comm, size_t cap, unsigned long long *start, pid_t *ppid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "pid (comm) state ppid ..." where comm may hold spaces and ')'. */
    char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
    if (!open_paren || !close_paren || close_paren < open_paren)
        return -1;
    snprintf(comm, cap, "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
    int parent = 0;
    unsigned long long st = 0;
    /* After comm: state (field 3), ppid (4), ..., starttime (22). */
    if (sscanf(close_paren + 2,
               "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
               "%*d %*d %*d %llu",
               &parent, &st) != 2)
        return -1;
    *start = st;
    *ppid = parent;
    return 0;
}

/* Hydra starts one proxy per host (hydra_pmi_proxy; Intel MPI's is
 * pmi_proxy), and the ranks of that host are its children, or their
 * descendants when a wrapper (a shell, a tool) runs between.  The nearest
 * proxy among the first few ancestors, by pid and start time so that a
 * reused pid is another proxy; else the parent. */
static void hydra_proxy(char *out, size_t cap) {
    pid_t pid = getppid(), parent = pid, first = pid;
    unsigned long long start = 0, first_start = 0;
    char comm[64];
    for (int depth = 0; depth < 8 && pid > 1; depth++, pid = parent) {
        if (proc_stat(pid, comm, sizeof comm, &start, &parent) < 0)
            break;
        if (depth == 0)
            first_start = start;
        if (strcmp(comm, "hydra_pmi_proxy") == 0 || strcmp(comm, "pmi_proxy") == 0) {
            snprintf(out, cap, "%d.%llu", (int)pid, start);
            return;
        }
    }
    snprintf(out, cap, "%d.%llu", (int)first, first_start);
}

static void read_hydra(rec_launch *l) {
    char host[256], proxy[64];
    if (gethostname(host, sizeof host) != 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    hydra_proxy(proxy, sizeof proxy);
    l->hydra = 1;
    l->hydra_size = env_count("PMI_SIZE");
    l->hydra_one_host = l->hydra_size > 0 && env_count("MPI_LOCALNRANKS") == l->hydra_size;
    const char *h = env("MPIR_CVAR_CH3_INTERFACE_HOSTNAME");
    snprintf(l->hydra_host, sizeof l->hydra_host, "%s", h ? h : host);
    snprintf(l->key, sizeof l->key, "hydra-proxy=%.255s/%s", host, proxy);
}

static void read_torchrun(rec_launch *l) {
    /* torchrun's default rendezvous id is the literal "none" in every
     * launch: it names none. */
    const char *id = env("TORCHELASTIC_RUN_ID");
    l->restarts = env_count("TORCHELASTIC_RESTART_COUNT");
    if (strcmp(id, "none") != 0)
        snprintf(l->key, sizeof l->key, "torch=%s.%d", id, l->restarts < 0 ? 0 : l->restarts);
}

static void read_slurm(rec_launch *l) {
    /* Every step of a job, and whatever its batch script runs outside a
     * step, is one attempt; a requeued job starts again with a higher
     * SLURM_RESTART_COUNT (unset before the first requeue). */
    int32_t restarts = env_count("SLURM_RESTART_COUNT");
    if (l->restarts < 0)
        l->restarts = restarts < 0 ? 0 : restarts;
    snprintf(l->key, sizeof l->key, "slurm=%s.%d", env("SLURM_JOB_ID"),
             restarts < 0 ? 0 : restarts);
}

static int slurm_pmix(void) {
    const char *ns = env("PMIX_NAMESPACE");
    return ns && env("SLURM_JOB_ID") && strncmp(ns, "slurm.pmix.", 11) == 0;
}

static const launcher_row launchers[] = {
    {"openmpi", "OMPI_COMM_WORLD_RANK", read_openmpi}, /* mpirun of Open MPI 4 and 5 */
    {"pmix", "PMIX_NAMESPACE", read_pmix},             /* prrte's prterun, other PMIx launchers */
    {"hydra", "MPI_LOCALNRANKS", read_hydra},          /* MPICH, Intel MPI, Cray MPICH mpiexec */
    {"torchrun", "TORCHELASTIC_RUN_ID", read_torchrun},
    {"slurm", "SLURM_JOB_ID", read_slurm},
};

void rec_launch_detect(rec_launch *l) {
    memset(l, 0, sizeof *l);
    l->name = "";
    l->array_task = l->restarts = -1;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0] && !l->key[0]; i++) {
        const launcher_row *row = &launchers[i];
        if (!env(row->present))
            continue;
        /* Hydra's variable alone is also what a program started by hand
         * with MPI_LOCALNRANKS set would have: a rank has PMI_RANK too. */
        if (row->read == read_hydra && !env("PMI_RANK"))
            continue;
        /* srun --mpi=pmix gives each step a PMIx namespace of its own
         * (slurm.pmix.JOB.STEP): the launcher is Slurm, whose job is the
         * attempt, not each step. */
        if ((row->read == read_openmpi || row->read == read_pmix) && slurm_pmix())
            continue;
        if (!l->name[0])
            l->name = row->name;
        row->read(l);
    }
    const char *array = env("SLURM_ARRAY_JOB_ID");
    if (array && env("SLURM_ARRAY_TASK_ID")) {
        snprintf(l->array_job_id, sizeof l->array_job_id, "%s", array);
        l->array_task = env_count("SLURM_ARRAY_TASK_ID");
    }
}

int rec_launch_array_dir(char *dir, size_t cap) {
    int32_t task = env("SLURM_ARRAY_JOB_ID") ? env_count("SLURM_ARRAY_TASK_ID") : -1;
    if (task < 0 || env("SCOPE_RUN_ID"))
        return 0;
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        dir[--len] = '\0';
    char suffix[32];
    int n = snprintf(suffix, sizeof suffix, "-task%d", (int)task);
    if (len + (size_t)n >= cap)
        return -1;
    memcpy(dir + len, suffix, (size_t)n + 1);
    return 0;
}
