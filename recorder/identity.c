/*
 * Who this process is and where its log goes: host, pid, launcher ranks,
 * run id and attempt.
 *
 * Run ids.  A recorder started by another (a child that inherited
 * SCOPE_RUN_ID) joins that run.  Ranks started by one launcher (one mpirun,
 * one Slurm job, one mpiexec) are nobody's children, so they meet in the run
 * directory instead: the first rank to arrive publishes a fresh run id under
 * RUN/.scope/launches/<key>, with <key> derived from the launcher's own job
 * identity (launchers.c), and the others read it.  A new launch has a new
 * key, hence a new run id: a new attempt.  Hydra names no launch: its ranks
 * find each other by the walk of hydra_agree.  Anything else starts a run of
 * its own.
 */
#define _GNU_SOURCE
#include "identity.h"

#include "clock.h"
#include "config.h"
#include "files.h"
#include "launchers.h"
#include "recorder.h"
#include "warn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

rec_identity rec_id;

static uint64_t random64(void) {
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v)
        v = rec_mono_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&v;
    return v;
}

static const char *env_first(const char *const *names, const char **which) {
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (v && *v) {
            if (which)
                *which = *names;
            return v;
        }
    }
    return NULL;
}

static int32_t env_int(const char *const *names) {
    const char *v = env_first(names, NULL);
    if (!v)
        return -1;
    char *end;
    long n = strtol(v, &end, 10);
    return (end != v && *end == '\0' && n >= 0 && n <= INT32_MAX) ? (int32_t)n : -1;
}

/* MPI launchers first: under mpirun inside a Slurm allocation SLURM_PROCID
 * describes the mpirun step, not the rank. */
static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                        "SLURM_PROCID",         "RANK",      NULL};
static const char *const local_rank_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                              "SLURM_LOCALID", "LOCAL_RANK", NULL};
static const char *const node_vars[] = {"SLURM_NODEID", "GROUP_RANK", "NODE_RANK", NULL};
static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
                                        "WORLD_SIZE", NULL};
static const char *const job_vars[] = {"SLURM_JOB_ID",
                                       "PMIX_NAMESPACE",
                                       "OMPI_MCA_ess_base_jobid",
                                       "PBS_JOBID",
                                       "LSB_JOBID",
                                       "TORCHELASTIC_RUN_ID",
                                       NULL};

static void copy_env(char *dst, size_t cap, const char *const *names) {
    const char *v = env_first(names, NULL);
    snprintf(dst, cap, "%s", v ? v : "");
}

static void new_run_id(char *out, size_t cap) {
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32] = "00000000T0000";
    if (localtime_r(&now, &tm))
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M", &tm);
    snprintf(out, cap, "%s-%06llx", stamp, (unsigned long long)(random64() & 0xffffff));
}

/* The id a launch falls back to when the run directory cannot give it one
 * (a planted or damaged launch file, a .scope that is not a directory): the
 * same in every rank of the launch, since it comes from the key alone, so
 * the ranks still meet in one run; a new launch has a new key, hence a new
 * id, as ever. */
static void key_run_id(const char *key, char *out, size_t cap) {
    snprintf(out, cap, "launch-%016llx", (unsigned long long)rec_fnv1a(key, strlen(key)));
}

/* Reads a published run id from the launch file name in the directory dir.
 * Publication is a link() of a complete file, so a file that exists is
 * complete, and its first line is the id; the few short retries cover only
 * a shared filesystem slow to show a new file's content.  Nothing found
 * there is trusted: a file that is not regular is not opened for reading
 * (a FIFO would block), a symbolic link is not followed, at most one line's
 * worth is read, and the id must pass rec_run_id_valid.  0, or -1 with why
 * in err. */
static int read_published(int dir, const char *name, char *out, size_t cap, char *err,
                          size_t errlen) {
    char buf[80]; /* a valid id and its newline fit with room to spare */
    ssize_t n = 0;
    for (int tries = 0; tries < 10 && n == 0; tries++) {
        if (tries) {
            struct timespec ms = {0, 2000000};
            nanosleep(&ms, NULL);
        }
        int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            rec_file_error(err, errlen, "read", name, errno);
            return -1;
        }
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            snprintf(err, errlen, "%s is not a regular file", name);
            return -1;
        }
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n < 0) {
            rec_file_error(err, errlen, "read", name, errno);
            return -1;
        }
    }
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    size_t len = strlen(buf);
    if (!rec_run_id_valid(buf) || len >= cap) {
        snprintf(err, errlen, "%s does not hold a valid run id", name);
        return -1;
    }
    memcpy(out, buf, len + 1);
    return 0;
}

/* Publishes fresh as the run id of the launch file name in dir, unless
 * another rank did first: 1 published, 0 another was there, -1 error. */
static int publish(int dir, const char *name, const char *fresh, const char *key, char *err,
                   size_t errlen) {
    /* A complete file under a private name, then link() to the shared name:
     * exactly one rank's link succeeds, and whoever sees the shared name
     * sees a whole run id. */
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%s.%d.%llx", name, (int)getpid(), (unsigned long long)random64());
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        rec_file_error(err, errlen, "write", tmp, errno);
        return -1;
    }
    char line[600];
    int len = snprintf(line, sizeof line, "%s\n%.500s\n", fresh, key);
    rec_xfsz_guard g;
    rec_xfsz_block(&g);
    int ok = write(fd, line, (size_t)len) == len;
    int werr = errno;
    rec_xfsz_release(&g);
    close(fd);
    int rc = -1;
    if (!ok)
        rec_file_error(err, errlen, "write", tmp, werr);
    else if (linkat(dir, tmp, dir, name, 0) == 0)
        rc = 1;
    else if (errno == EEXIST)
        rc = 0;
    else
        rec_file_error(err, errlen, "publish", name, errno);
    unlinkat(dir, tmp, 0);
    return rc;
}

static void name_of(const char *key, char *name, size_t cap) {
    snprintf(name, cap, "%016llx", (unsigned long long)rec_fnv1a(key, strlen(key)));
}

/* The run id published under the launch file of key in dir, publishing a
 * fresh one when no rank did yet.  0, or -1 with why in err. */
static int agree(int dir, const char *key, char *out, size_t cap, int *started, char *err,
                 size_t errlen) {
    char name[32], fresh[64];
    name_of(key, name, sizeof name);
    new_run_id(fresh, sizeof fresh);
    int published = publish(dir, name, fresh, key, err, errlen);
    if (published == 1) {
        snprintf(out, cap, "%s", fresh);
        *started = 1; /* this rank started the run: it says so at exit */
        return 0;
    }
    /* another rank published first: take its id */
    return published == 0 ? read_published(dir, name, out, cap, err, errlen) : -1;
}

/* Hydra names no launch, and its proxies on different hosts share nothing
 * the recorder may use (PMI_FD belongs to the MPI library).  Launch k of
 * world size N in this run directory is a set of files: one per Hydra host,
 * owned by the first proxy of that host to claim it, one per rank that
 * joined, and the run id.  A proxy's ranks walk k = 0, 1, ... in the same
 * order and stop at the first launch whose host file their proxy owns, or
 * that they can claim: one no other proxy of their host holds, whose run id
 * is younger than the start window, and that no rank of their number has
 * joined yet.  Ranks of one proxy therefore always agree (the claim decides,
 * once); see docs/recorder.md for what this cannot tell apart. */
#define HYDRA_START_WINDOW_S 60
#define HYDRA_MAX_LAUNCHES   1024

static int exists(int dir, const char *key, struct stat *st) {
    char name[32];
    name_of(key, name, sizeof name);
    return fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int hydra_joinable(int dir, const char *launch, int32_t rank) {
    struct stat st;
    if (exists(dir, launch, &st) && time(NULL) - st.st_mtime > HYDRA_START_WINDOW_S)
        return 0;
    char taken[700];
    snprintf(taken, sizeof taken, "%s|rank=%d", launch, (int)rank);
    return !exists(dir, taken, &st);
}

static int hydra_agree(int dir, const rec_config *cfg, const rec_launch *l, int32_t rank, char *out,
                       size_t cap, int *started, char *err, size_t errlen) {
    char proxy[32];
    name_of(l->key, proxy, sizeof proxy);
    for (int k = 0; k < HYDRA_MAX_LAUNCHES; k++) {
        char launch[600], host[900], slot[32], owner[64];
        snprintf(launch, sizeof launch, "%.500s|hydra=%d.%d", cfg->run_dir, (int)l->hydra_size, k);
        snprintf(host, sizeof host, "%s|host=%.255s", launch, l->hydra_host);
        name_of(host, slot, sizeof slot);
        struct stat st;
        int ours;
        if (exists(dir, host, &st)) {
            if (read_published(dir, slot, owner, sizeof owner, err, errlen) < 0)
                return -1;
            ours = strcmp(owner, proxy) == 0;
        } else if (!hydra_joinable(dir, launch, rank)) {
            ours = 0;
        } else {
            int published = publish(dir, slot, proxy, host, err, errlen);
            if (published < 0 ||
                (published == 0 && read_published(dir, slot, owner, sizeof owner, err, errlen) < 0))
                return -1;
            ours = published == 1 || strcmp(owner, proxy) == 0;
        }
        if (!ours)
            continue;
        if (agree(dir, launch, out, cap, started, err, errlen) < 0)
            return -1;
        char taken[700], name[32];
        snprintf(taken, sizeof taken, "%s|rank=%d", launch, (int)rank);
        name_of(taken, name, sizeof name);
        int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
        return 0;
    }
    snprintf(err, errlen, "%d launches of %d ranks already", HYDRA_MAX_LAUNCHES,
             (int)l->hydra_size);
    return -1;
}

/* The run id every rank of this launch agrees on: published under
 * RUN/.scope/launches/.  When the run directory cannot say (a planted or
 * damaged file, a symbolic link in the way), the ranks still agree, on
 * key_run_id, and one stderr line says why: recording goes on, inside RUN,
 * rather than anyone who can write to RUN being able to turn it off.  (Under
 * Hydra on several hosts the key is the proxy's: the ranks of each host
 * still agree among themselves.) */
static void rendezvous(rec_identity *id, const rec_config *cfg, const rec_launch *l) {
    char err[400] = "", key[4700];
    snprintf(key, sizeof key, "%s|%s", cfg->run_dir, l->key);
    rec_dir_mode mode = {cfg->dir_mode, cfg->dir_mode_exact};
    int run = -1, scope = -1, launches = -1, got = -1;
    if ((run = rec_run_dir_open(cfg->run_dir, &mode, err, sizeof err)) >= 0 &&
        (scope = rec_subdir_open(run, ".scope", "RUN/.scope", &mode, err, sizeof err)) >= 0 &&
        (launches = rec_subdir_open(scope, "launches", "RUN/.scope/launches", &mode, err,
                                    sizeof err)) >= 0) {
        if (l->hydra && !l->hydra_one_host && l->hydra_size > 0 && id->rank >= 0)
            got = hydra_agree(launches, cfg, l, id->rank, id->run_id, sizeof id->run_id,
                              &id->run_started, err, sizeof err);
        else
            got = agree(launches, key, id->run_id, sizeof id->run_id, &id->run_started, err,
                        sizeof err);
    }
    if (launches >= 0)
        close(launches);
    if (scope >= 0)
        close(scope);
    if (run >= 0)
        close(run);
    if (got < 0) {
        key_run_id(key, id->run_id, sizeof id->run_id);
        rec_warn("cannot agree on a run id in %s/.scope/launches (%s): using %s, derived from "
                 "the launch",
                 cfg->run_dir, err, id->run_id);
    }
}

void rec_identity_self(rec_identity *id) {
    id->pid = getpid();
    id->ppid = getppid();
    snprintf(id->uuid, sizeof id->uuid, "%08llx", (unsigned long long)(random64() & 0xffffffffu));
    id->start_wall_ns = rec_wall_ns();
    id->start_mono_ns = rec_mono_ns();
}

int rec_identity_init(rec_identity *id, const rec_config *cfg, char *err, size_t errlen) {
    (void)err, (void)errlen; /* nothing here stops recording: see rendezvous */
    rec_identity_self(id);
    id->run_started = 0;
    if (gethostname(id->host, sizeof id->host) != 0 || !id->host[0])
        snprintf(id->host, sizeof id->host, "localhost");
    id->host[sizeof id->host - 1] = '\0';
    id->rank = env_int(rank_vars);
    id->local_rank = env_int(local_rank_vars);
    id->node_rank = env_int(node_vars);
    id->world_size = env_int(size_vars);
    copy_env(id->job_id, sizeof id->job_id, job_vars);
    static const char *const step_vars[] = {"SLURM_STEP_ID", NULL};
    copy_env(id->step_id, sizeof id->step_id, step_vars);

    rec_launch l;
    rec_launch_detect(&l);
    snprintf(id->launcher, sizeof id->launcher, "%s", l.name);
    snprintf(id->array_job_id, sizeof id->array_job_id, "%s", l.array_job_id);
    id->array_task = l.array_task;
    id->restarts = l.restarts;
    if (cfg->run_id[0]) {
        snprintf(id->run_id, sizeof id->run_id, "%s", cfg->run_id);
        return 0;
    }
    if (l.key[0]) {
        rendezvous(id, cfg, &l);
        return 0;
    }
    new_run_id(id->run_id, sizeof id->run_id);
    id->run_started = 1;
    return 0;
}

void rec_export_env(const rec_identity *id, const rec_config *cfg) {
    setenv("SCOPE_PROFILE", "1", 1);
    setenv("SCOPE_RUN_DIR", cfg->run_dir, 1);
    setenv("SCOPE_RUN_ID", id->run_id, 1);
}
