/*
 * A workload for compare's hot lines and roles (test_compare_lines.sh):
 * two noinline kernels, each one loop on one line, whose shares of the CPU
 * time are known by construction, the work a multiple of a unit.
 *
 *   cmp_lines_workload RUN [--slow] [--helper] [--procs N]
 *
 * Records N processes (default 2) of role "worker", each running
 * kernel_a 2 units and kernel_b 1 unit (3 with --slow: shares 2:1 become
 * 2:3); --helper adds one process of role "helper" (kernel_a, 1 unit).
 * tests/e2e/CMakeLists.txt also builds a copy of this file with five blank
 * lines on top: the same code, moved, as after an edit above it.  Prints
 * "LINE a N" and "LINE b N", the lines of the two loops.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ITERS_PER_UNIT 120000000ull

static volatile uint64_t sink;

enum { LINE_A = __LINE__ + 4 };
__attribute__((noinline)) static void kernel_a(uint64_t units) {
    uint64_t x = sink;
    for (uint64_t i = 0; i < units * ITERS_PER_UNIT; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

enum { LINE_B = __LINE__ + 4 };
__attribute__((noinline)) static void kernel_b(uint64_t units) {
    uint64_t x = sink;
    for (uint64_t i = 0; i < units * ITERS_PER_UNIT; i++)
        x = x * 2862933555777941757ull + 3037000493ull;
    sink = x;
}

static int process(const char *run, const char *role, uint64_t a, uint64_t b) {
    if (scope_init(run, role) != 0)
        fputs("cmp_lines_workload: scope_init failed\n", stderr);
    SCOPE_PHASE("work") {
        kernel_a(a);
        if (b)
            kernel_b(b);
    }
    scope_shutdown();
    return 0;
}

int main(int argc, char **argv) {
    int slow = 0, helper = 0, procs = 2;
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--slow"))
            slow = 1;
        else if (!strcmp(argv[i], "--helper"))
            helper = 1;
        else if (!strcmp(argv[i], "--procs") && i + 1 < argc)
            procs = atoi(argv[++i]);
        else
            argc = 0;
    if (argc < 2 || procs < 1 || procs > 16) {
        fputs("usage: cmp_lines_workload RUN [--slow] [--helper] [--procs N]\n", stderr);
        return 2;
    }
    printf("LINE a %d\nLINE b %d\n", LINE_A, LINE_B);
    fflush(stdout);
    char id[64];
    snprintf(id, sizeof id, "cmp-lines-%d", (int)getpid());
    setenv("SCOPE_RUN_ID", id, 1);
    for (int p = 0; p < procs + helper; p++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("cmp_lines_workload: fork");
            return 1;
        }
        if (pid == 0)
            _exit(p < procs ? process(argv[1], "worker", 2, slow ? 3 : 1)
                            : process(argv[1], "helper", 1, 0));
    }
    int rc = 0, status;
    while (wait(&status) > 0)
        rc |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    return rc;
}
