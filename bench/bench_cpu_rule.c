/*
 * The CPU-time rule (docs/recorder.md section 11) against phases whose wait%
 * the program measures itself, on a quiet machine and beside two busy
 * processes, for each SCOPE_CPU_TIME mode: what an empty phase costs, on how
 * many entries CPU time was read, and how far the recorded wait% lies from
 * the truth.
 *
 *   bench_cpu_rule [--runs N]    (default 5 runs of each mode and load)
 *
 * Each run is a fresh process recording into a run directory of its own
 * under /tmp/scope-bench-cpu-XXXXXX (removed at exit), with:
 *   empty   200,000 empty phases, timed from outside: ns per phase
 *   busy    200 entries spinning 20 us            (truth: about 0% wait)
 *   half    200 entries spinning 50 us, then asleep 50 us
 *   sleepy  100 entries asleep 1 ms               (truth: about 100%)
 *   mixed   10 entries spinning 2 us, then 20 asleep 10 ms
 * The truth of a phase is the program's own clock_gettime of wall and
 * thread CPU time around the body of each of its entries.  "Contended" runs the same
 * beside two processes that spin for as long as it runs, on this machine's
 * CPUs, so the phases' entries are preempted.  Figures are medians over
 * the runs.
 */
#define _GNU_SOURCE
#include <scope/log_format.h>
#include <scope/scope.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EMPTY_N  200000
#define NPHASES  4
#define MAX_RUNS 31

static const char *const phase_names[NPHASES] = {"busy", "half", "sleepy", "mixed"};
static const char *const modes[] = {"off", "adaptive", "always"};
#define NMODES 3

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin_ns(uint64_t ns) {
    uint64_t end = clock_ns(CLOCK_MONOTONIC) + ns;
    while (clock_ns(CLOCK_MONOTONIC) < end)
        ;
}

static void sleep_ns(long ns) {
    struct timespec ts = {0, ns};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

typedef struct truth {
    uint64_t wall[NPHASES], cpu[NPHASES];
    double empty_ns;
} truth;

/* One entry of phase k, its body measured from inside: the recorder's own
 * work at the phase's ends (its reads of CPU time, outside the phase's
 * times by design) is then in neither figure. */
#define MEASURED(t, k, body)                                                                       \
    do {                                                                                           \
        SCOPE_PHASE(phase_names[k]) {                                                              \
            uint64_t w0_ = clock_ns(CLOCK_MONOTONIC), c0_ = clock_ns(CLOCK_THREAD_CPUTIME_ID);     \
            body;                                                                                  \
            (t)->cpu[k] += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0_;                                \
            (t)->wall[k] += clock_ns(CLOCK_MONOTONIC) - w0_;                                       \
        }                                                                                          \
    } while (0)

static void workload(truth *t) {
    uint64_t a = clock_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < EMPTY_N; i++)
        SCOPE_PHASE("empty") {}
    t->empty_ns = (double)(clock_ns(CLOCK_MONOTONIC) - a) / EMPTY_N;
    for (int i = 0; i < 200; i++)
        MEASURED(t, 0, spin_ns(20000));
    for (int i = 0; i < 200; i++)
        MEASURED(t, 1, {
            spin_ns(50000);
            sleep_ns(50000);
        });
    for (int i = 0; i < 100; i++)
        MEASURED(t, 2, sleep_ns(1000000));
    for (int i = 0; i < 30; i++)
        MEASURED(t, 3, {
            if (i < 10)
                spin_ns(2000);
            else
                sleep_ns(10000000);
        });
}

typedef struct result {
    double empty_ns;
    double err[NPHASES];   /* recorded wait% - true wait%, points; NAN: not measured */
    double reads[NPHASES]; /* share of entries whose CPU time was read, % */
    double empty_reads;
} result;

/* The newest PHASE_AGG of each named top-level phase of the one log under dir. */
static int read_log(const char *dir, const truth *t, result *r) {
    char cmd[4400], path[4096];
    snprintf(cmd, sizeof cmd, "find '%s/workers' -type f -name '*.scope'", dir);
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(path, sizeof path, p)) {
        if (p)
            pclose(p);
        return -1;
    }
    pclose(p);
    path[strcspn(path, "\n")] = '\0';
    char msg[256];
    scope_log_reader *rd;
    if (scope_log_reader_open(&rd, path, msg, sizeof msg) < 0) {
        fprintf(stderr, "bench_cpu_rule: %s: %s\n", path, msg);
        return -1;
    }
    /* Names by id, then nodes by id, then their newest aggregates. */
    static char names[64][32];
    uint32_t node_name[64] = {0};
    scope_rec_phase_agg agg[64];
    int have[64] = {0};
    scope_rec_frame fr;
    uint64_t off;
    while (scope_log_reader_next_frame(rd, &fr, &off)) {
        scope_record rec;
        while (scope_log_reader_next_record(rd, &rec)) {
            if (rec.type == SCOPE_REC_STRING && rec.u.string.id < 64)
                snprintf(names[rec.u.string.id], sizeof names[0], "%.*s",
                         (int)rec.u.string.value.len, (const char *)rec.u.string.value.ptr);
            else if (rec.type == SCOPE_REC_PHASE_NODE && rec.u.phase_node.id < 64)
                node_name[rec.u.phase_node.id] = rec.u.phase_node.name;
            else if (rec.type == SCOPE_REC_PHASE_AGG && rec.u.phase_agg.node < 64) {
                agg[rec.u.phase_agg.node] = rec.u.phase_agg;
                agg[rec.u.phase_agg.node].bins = NULL;
                have[rec.u.phase_agg.node] = 1;
            }
        }
    }
    scope_log_reader_close(rd);
    r->empty_reads = -1;
    for (int k = 0; k < NPHASES; k++)
        r->err[k] = r->reads[k] = -1;
    for (uint32_t id = 0; id < 64; id++) {
        if (!have[id] || node_name[id] >= 64)
            continue;
        const scope_rec_phase_agg *a = &agg[id];
        const char *name = names[node_name[id]];
        if (!strcmp(name, "empty"))
            r->empty_reads = 100.0 * (double)a->cpu_count / (double)a->count;
        for (int k = 0; k < NPHASES; k++) {
            if (strcmp(name, phase_names[k]))
                continue;
            r->reads[k] = 100.0 * (double)a->cpu_count / (double)a->count;
            if (a->cpu_count && a->cpu_wall_ns) {
                double got = 100.0 * (1.0 - (double)a->cpu_ns / (double)a->cpu_wall_ns);
                double want = 100.0 * (1.0 - (double)t->cpu[k] / (double)t->wall[k]);
                r->err[k] = got - want;
            }
        }
    }
    r->empty_ns = t->empty_ns;
    return 0;
}

static int one_run(const char *base, const char *mode, int n, result *r) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s-%d", base, mode, n);
    int fds[2];
    if (pipe(fds) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        setenv("SCOPE_QUIET", "1", 1);
        setenv("SCOPE_CPU_TIME", mode, 1);
        unsetenv("SCOPE_CPU_MIN_US");
        unsetenv("SCOPE_PROFILE");
        unsetenv("SCOPE_RUN_ID");
        if (scope_init(dir, "bench") != 0)
            _exit(3);
        truth t = {0};
        workload(&t);
        scope_shutdown();
        _exit(write(fds[1], &t, sizeof t) == (ssize_t)sizeof t ? 0 : 4);
    }
    close(fds[1]);
    truth t;
    ssize_t got = read(fds[0], &t, sizeof t);
    close(fds[0]);
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
        got != (ssize_t)sizeof t)
        return -1;
    return read_log(dir, &t, r);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static pid_t spinner(void) {
    pid_t pid = fork();
    if (pid == 0) {
        volatile uint64_t x = 0;
        for (;;)
            x++;
    }
    return pid;
}

static int table(const char *base, const char *load, int runs) {
    printf("\n%s\n", load);
    printf("  %-9s %9s %7s", "mode", "empty ns", "reads");
    for (int k = 0; k < NPHASES; k++)
        printf("  %14s", phase_names[k]);
    printf("\n  %-9s %9s %7s", "", "/phase", "(empty)");
    for (int k = 0; k < NPHASES; k++)
        printf("  %14s", "err  reads");
    printf("\n");
    for (int m = 0; m < NMODES; m++) {
        double empty[MAX_RUNS], empty_reads[MAX_RUNS], err[NPHASES][MAX_RUNS],
            reads[NPHASES][MAX_RUNS];
        for (int n = 0; n < runs; n++) {
            result r;
            if (one_run(base, modes[m], n, &r) < 0) {
                fprintf(stderr, "bench_cpu_rule: run %d of mode %s failed\n", n, modes[m]);
                return -1;
            }
            empty[n] = r.empty_ns;
            empty_reads[n] = r.empty_reads;
            for (int k = 0; k < NPHASES; k++) {
                err[k][n] = r.err[k];
                reads[k][n] = r.reads[k];
            }
        }
        printf("  %-9s %9.1f %6.2f%%", modes[m], median(empty, runs), median(empty_reads, runs));
        for (int k = 0; k < NPHASES; k++) {
            double e = median(err[k], runs), rd = median(reads[k], runs);
            if (!strcmp(modes[m], "off"))
                printf("  %14s", "n/a");
            else
                printf("  %+6.1f %6.1f%%", e, rd);
        }
        printf("\n");
    }
    return 0;
}

int main(int argc, char **argv) {
    int runs = 5;
    if (argc == 3 && !strcmp(argv[1], "--runs"))
        runs = atoi(argv[2]);
    else if (argc != 1) {
        fprintf(stderr, "usage: bench_cpu_rule [--runs N]\n");
        return 2;
    }
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "bench_cpu_rule: --runs takes 1 to %d\n", MAX_RUNS);
        return 2;
    }
    char base[] = "/tmp/scope-bench-cpu-XXXXXX";
    if (!mkdtemp(base)) {
        perror("bench_cpu_rule: mkdtemp");
        return 1;
    }
    printf("CPU-time rule: median of %d runs, each a fresh process\n", runs);
    printf("err: recorded wait%% - true wait%%, points; reads: entries whose CPU time was read\n");
    int rc = table(base, "quiet", runs) < 0;
    pid_t busy[2] = {spinner(), spinner()};
    if (!rc)
        rc = table(base, "contended: two busy processes beside it", runs) < 0;
    for (int i = 0; i < 2; i++)
        if (busy[i] > 0) {
            kill(busy[i], SIGKILL);
            waitpid(busy[i], NULL, 0);
        }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_cpu_rule: could not remove %s\n", base);
    return rc;
}
