/*
 * noise_workload: the workload bench/bench_noise.sh records to measure how
 * often `check` calls a change: several processes, each running phases of
 * CPU work whose size has per-entry noise from a seeded generator, one of
 * them made slower by a known multiple of its work.
 *
 *   noise_workload RUN SEED SLOW [PROCS [ENTRIES]]
 *
 * Records into RUN (its own run id) PROCS processes (default 8) of role
 * "worker", each running ENTRIES (default 400) iterations of
 *
 *   step  { spin 400,000 x SLOW x noise }
 *   other { spin 200,000 x noise }
 *
 * where noise is lognormal with a spread of 25%, drawn from SEED and the
 * process's index: the same SEED gives the same work.  Spins, not sleeps:
 * the slowdown is a multiple of the work, and the machine's load is what
 * the bench measures beside it.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define STEP_SPINS  400000.0
#define OTHER_SPINS 200000.0
#define ENTRY_SIGMA 0.25

static uint64_t next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double lognormal(uint64_t *s) {
    double u = ((double)(next(s) >> 11) + 0.5) * 0x1.0p-53;
    double v = ((double)(next(s) >> 11) + 0.5) * 0x1.0p-53;
    return exp(ENTRY_SIGMA * sqrt(-2 * log(u)) * cos(2 * 3.14159265358979323846 * v));
}

static volatile uint64_t sink;

static void spin(double n) {
    uint64_t x = sink;
    for (uint64_t i = 0; i < (uint64_t)n; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

static int worker(const char *run, uint64_t seed, double slow, int entries) {
    if (scope_init(run, "worker") != 0)
        fputs("noise_workload: scope_init failed\n", stderr);
    for (int i = 0; i < entries; i++) {
        SCOPE_PHASE("step") {
            spin(STEP_SPINS * slow * lognormal(&seed));
        }
        SCOPE_PHASE("other") {
            spin(OTHER_SPINS * lognormal(&seed));
        }
    }
    scope_shutdown();
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 6) {
        fputs("usage: noise_workload RUN SEED SLOW [PROCS [ENTRIES]]\n", stderr);
        return 2;
    }
    uint64_t seed = strtoull(argv[2], NULL, 10);
    double slow = atof(argv[3]);
    int procs = argc > 4 ? atoi(argv[4]) : 8, entries = argc > 5 ? atoi(argv[5]) : 400;
    if (!(slow > 0) || procs < 1 || procs > 64 || entries < 1) {
        fputs("noise_workload: SLOW > 0, PROCS 1..64, ENTRIES >= 1\n", stderr);
        return 2;
    }
    /* One run id for every process, so that they are one run. */
    char id[64];
    snprintf(id, sizeof id, "noise-%llu-%d", (unsigned long long)seed, (int)getpid());
    setenv("SCOPE_RUN_ID", id, 1);
    for (int p = 0; p < procs; p++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("noise_workload: fork");
            return 1;
        }
        if (pid == 0)
            _exit(worker(argv[1], seed * 1000003u + (uint64_t)p, slow, entries));
    }
    int rc = 0, status;
    while (wait(&status) > 0)
        rc |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    return rc;
}
