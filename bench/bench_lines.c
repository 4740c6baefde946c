/*
 * What line sampling costs the program it samples, measured inside one
 * process: rounds of two chunks of the same work, one with the profiler
 * on and one with it off, in a random order, each timed with
 * CLOCK_PROCESS_CPUTIME_ID; the figure is the median over rounds of
 * (on - off) / off.  Whole-process timings of identical work vary by tens
 * of per cent from run to run on a shared machine; two chunks a few
 * milliseconds apart do not.
 *
 *   bench_lines scope ROUNDS     libscope: scope_lines_begin/end around the
 *                                chunk, at $SCOPE_LINES_HZ
 *   bench_lines control ROUNDS   both chunks off: the method's own noise
 *   bench_lines_gperf gperf ROUNDS
 *                                gperftools: profiling from start to end
 *                                (to $BENCH_GPERF_OUT) at
 *                                $CPUPROFILE_FREQUENCY, its ITIMER_PROF
 *                                running in the "on" chunks only (starting
 *                                and stopping the profiler writes the
 *                                profile, which is not what is measured).
 *                                A binary of its own: loading libprofiler
 *                                installs its SIGPROF handler, which
 *                                libscope rightly refuses to replace
 *   bench_lines perf ROUNDS      perf record --control: "enable"/"disable"
 *                                written to $BENCH_PERF_CTL, acknowledged
 *                                on $BENCH_PERF_ACK
 *
 * bench/bench_lines.sh runs them all at 100 Hz and 1 kHz.  Prints one line:
 * mode, median overhead in per cent and its quartiles.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <fcntl.h>
#include <sys/time.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef BENCH_HAVE_GPERFTOOLS
#include <gperftools/profiler.h>
#endif

static volatile double sink;

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Two kernels of different code (identical bodies would be folded into
 * one) and a libm leaf: the workload the accuracy tests use too. */
__attribute__((noinline)) static double kernel_add(long n) {
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)(i & 15) * 0.5;
    return s;
}

__attribute__((noinline)) static double kernel_mul(long n) {
    double s = 1;
    for (long i = 0; i < n; i++)
        s = s * 1.0000001 + (double)(i & 3);
    return s;
}

__attribute__((noinline)) static double kernel_exp(long n) {
    double s = 0;
    for (long i = 0; i < n; i++)
        s += exp((double)(i & 1023) * (1.0 / 1024.0));
    return s;
}

/* About 40 ms of CPU here. */
static void chunk(void) {
    sink += kernel_add(40000000) + kernel_mul(20000000) + kernel_exp(7000000);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- the profilers' switches --------------------------------------------- */

static const char *mode;
#ifdef BENCH_HAVE_GPERFTOOLS
static struct itimerval gperf_timer; /* gperftools' ITIMER_PROF while it profiles */
#endif
static int perf_ctl = -1, perf_ack = -1;

static void perf_say(const char *what) {
    if (write(perf_ctl, what, strlen(what)) < 0)
        exit(1);
    char buf[16];
    if (read(perf_ack, buf, sizeof buf) <= 0)
        exit(1);
}

static void profiler_on(void) {
    if (!strcmp(mode, "scope"))
        scope_lines_begin(NULL);
#ifdef BENCH_HAVE_GPERFTOOLS
    else if (!strcmp(mode, "gperf"))
        setitimer(ITIMER_PROF, &gperf_timer, NULL);
#endif
    else if (!strcmp(mode, "perf"))
        perf_say("enable\n");
}

static void profiler_off(void) {
    if (!strcmp(mode, "scope"))
        scope_lines_end();
#ifdef BENCH_HAVE_GPERFTOOLS
    else if (!strcmp(mode, "gperf")) {
        static const struct itimerval stopped;
        setitimer(ITIMER_PROF, &stopped, NULL);
    }
#endif
    else if (!strcmp(mode, "perf"))
        perf_say("disable\n");
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_lines scope|control|gperf|perf ROUNDS\n");
        return 2;
    }
    mode = argv[1];
    int rounds = atoi(argv[2]);
    if (rounds < 3 || rounds > 100000) {
        fprintf(stderr, "bench_lines: ROUNDS must be 3..100000\n");
        return 2;
    }
#ifndef BENCH_HAVE_GPERFTOOLS
    if (!strcmp(mode, "gperf")) {
        fprintf(stderr, "bench_lines: built without gperftools (libgoogle-perftools-dev)\n");
        return 2;
    }
#endif
    if (!strcmp(mode, "perf")) {
        const char *ctl = getenv("BENCH_PERF_CTL"), *ack = getenv("BENCH_PERF_ACK");
        if (!ctl || !ack || (perf_ctl = open(ctl, O_WRONLY)) < 0 ||
            (perf_ack = open(ack, O_RDONLY)) < 0) {
            fprintf(stderr, "bench_lines: perf mode needs BENCH_PERF_CTL and BENCH_PERF_ACK\n");
            return 2;
        }
    }
#ifdef BENCH_HAVE_GPERFTOOLS
    if (!strcmp(mode, "gperf")) {
        const char *out = getenv("BENCH_GPERF_OUT");
        if (!ProfilerStart(out ? out : "bench_lines.prof") ||
            getitimer(ITIMER_PROF, &gperf_timer) != 0 || !gperf_timer.it_interval.tv_usec) {
            fprintf(stderr, "bench_lines: gperftools did not start an ITIMER_PROF\n");
            return 1;
        }
        static const struct itimerval stopped;
        setitimer(ITIMER_PROF, &stopped, NULL);
    }
#endif
    int control = !strcmp(mode, "control");
    double *ratio = calloc((size_t)rounds, sizeof *ratio);
    if (!ratio)
        return 1;
    unsigned seed = 12345;
    chunk(); /* warm caches and libm */
    for (int r = 0; r < rounds; r++) {
        double t[2];
        int on_first = rand_r(&seed) & 1;
        for (int k = 0; k < 2; k++) {
            /* t[1] is the chunk that has the profiler on (the control:
             * that would have it) */
            int role = (k == 0) == on_first;
            int on = role && !control;
            if (on)
                profiler_on();
            double c0 = cpu_s();
            chunk();
            t[role] = cpu_s() - c0;
            if (on)
                profiler_off();
        }
        ratio[r] = (t[1] - t[0]) / t[0];
    }
#ifdef BENCH_HAVE_GPERFTOOLS
    if (!strcmp(mode, "gperf"))
        ProfilerStop();
#endif
    qsort(ratio, (size_t)rounds, sizeof *ratio, cmp_double);
    printf("%-8s overhead median %+6.2f %%  quartiles %+6.2f %+6.2f %%  rounds %d\n", mode,
           100 * ratio[rounds / 2], 100 * ratio[rounds / 4], 100 * ratio[3 * rounds / 4], rounds);
    free(ratio);
    return 0;
}
