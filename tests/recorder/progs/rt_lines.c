/* The line sampler's test program: rt_lines MODE DIR SECONDS [ARG], run
 * with SCOPE_LINES=1 (the driver, test_recorder_lines.c, says what each
 * mode must leave in the log).  Every mode records into DIR and prints
 * what the driver needs to check it (its own CPU times, thread ids, how
 * often its handler ran) as "key value" lines on stdout.
 *
 *   phases   main and a second thread alternate phases "light" and "heavy"
 *            (three times the work), each timing both with its CPU clock
 *   late     a thread started after sampling began, that never enters a
 *            phase, does all the work
 *   fork     a forked child works in phase "child"
 *   exec     replaces itself with `rt_lines phases DIR SECONDS`
 *   block    the main thread blocks SIGPROF, then works
 *   foreign  installs its own SIGPROF handler and ITIMER_PROF, then works
 *   dlstorm  two threads dlopen and dlclose ARG (a plugin) and call it
 *   spin     works in phase "spin", prints "ready" after SECONDS of CPU, and goes
 *            on until killed
 *   churn    (without SCOPE_LINES) starts and joins 5,000 threads, then
 *            samples a new thread's SECONDS of work between scope_lines_begin
 *            and scope_lines_end
 *   sleep    sleeps SECONDS in phase "sleep" (nanosleep, retried on EINTR)
 *   print    no scope_init (run without SCOPE_LINES): prints the top table
 *            before any sampling, samples SECONDS of work between
 *            scope_lines_begin and scope_lines_end, ends once more than it
 *            began, and prints both tables
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;
static double seconds;
static const char *arg;

static uint64_t ns_of(clockid_t clk) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* n units of arithmetic the compiler cannot drop */
__attribute__((noinline)) static void work(long n) {
    double s = sink;
    for (long i = 0; i < n * 1000; i++)
        s += (double)(i & 7) * 0.25;
    sink = s;
}

static void work_for(double secs) {
    uint64_t end = ns_of(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)(secs * 1e9);
    while (ns_of(CLOCK_THREAD_CPUTIME_ID) < end)
        work(100);
}

static void print_rusage(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
                  (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
    printf("process_cpu_ns %llu\n", (unsigned long long)ns);
}

/* ---- phases ---------------------------------------------------------------- */

typedef struct phase_times {
    uint64_t light, heavy;
} phase_times;

/* Units of work of an entry of "light" (about 20 ms of CPU) and of
 * "heavy" (three times as much): entries longer than the sampling period,
 * so that the samples fall in each phase as its CPU time does on a loaded
 * machine too.  With entries a hundredth as long, CPU contention (three
 * busy loops on the program's one CPU) left "light" 37 of 284 samples for
 * a quarter of the CPU time (46 to 79 in eight more runs, against 83 on a
 * quiet machine): a thread's CPU-clock timer is seen to expire only at a
 * scheduler tick in which the thread runs, and under contention those do
 * not fall evenly over entries shorter than a tick.  With these, six
 * runs gave 80 to 88 of 331 to 350 (24-25%). */
#define LIGHT_UNITS 20000

static void *alternate(void *p) {
    phase_times *t = p;
    uint64_t end = ns_of(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)(seconds * 1e9);
    while (ns_of(CLOCK_THREAD_CPUTIME_ID) < end) {
        SCOPE_PHASE("light") {
            uint64_t c0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
            work(LIGHT_UNITS);
            t->light += ns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
        }
        SCOPE_PHASE("heavy") {
            uint64_t c0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
            work(3 * LIGHT_UNITS);
            t->heavy += ns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
        }
    }
    return NULL;
}

static int run_phases(void) {
    phase_times mt = {0, 0}, wt = {0, 0};
    pthread_t th;
    pthread_create(&th, NULL, alternate, &wt);
    alternate(&mt);
    pthread_join(th, NULL);
    printf("light_ns %llu\nheavy_ns %llu\n", (unsigned long long)(mt.light + wt.light),
           (unsigned long long)(mt.heavy + wt.heavy));
    print_rusage();
    return 0;
}

/* ---- threads started later -------------------------------------------------- */

static void *late_main(void *p) {
    (void)p;
    printf("late_tid %ld\n", (long)syscall(SYS_gettid));
    fflush(stdout);
    work_for(seconds);
    return NULL;
}

static int run_late(void) {
    SCOPE_PHASE("before") {
        work(10);
    }
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
    pthread_t th;
    pthread_create(&th, NULL, late_main, NULL);
    pthread_join(th, NULL);
    return 0;
}

/* ---- fork and exec ------------------------------------------------------------ */

static int run_fork(void) {
    SCOPE_PHASE("parent") {
        work(10);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        SCOPE_PHASE("child") {
            work_for(seconds);
        }
        exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static int run_exec(char **argv) {
    SCOPE_PHASE("before-exec") {
        work(10);
    }
    char *args[] = {argv[0], "phases", argv[2], argv[3], NULL};
    execv("/proc/self/exe", args);
    perror("execv");
    return 1;
}

/* ---- a program that gets in the sampler's way ----------------------------------- */

static int run_block(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    SCOPE_PHASE("blocked") {
        work_for(seconds);
    }
    printf("survived 1\n");
    return 0;
}

static volatile sig_atomic_t handler_calls;

static void own_handler(int sig) {
    (void)sig;
    handler_calls++;
}

static int run_foreign(void) {
    SCOPE_PHASE("before") {
        work_for(0.2);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = own_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, 10000}, {0, 10000}};
    setitimer(ITIMER_PROF, &it, NULL);
    SCOPE_PHASE("own-profiler") {
        work_for(seconds);
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    printf("handler_calls %d\n", (int)handler_calls);
    return 0;
}

/* ---- loading and unloading while sampled --------------------------------------------- */

static void *storm(void *p) {
    long *loads = p;
    uint64_t end = ns_of(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
    while (ns_of(CLOCK_MONOTONIC) < end) {
        void *h = dlopen(arg, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "dlopen %s: %s\n", arg, dlerror());
            exit(1);
        }
        double (*fn)(long) = (double (*)(long))dlsym(h, "rt_plugin_burn");
        sink += fn ? fn(2000) : 0;
        dlclose(h);
        ++*loads;
    }
    return NULL;
}

static int run_dlstorm(void) {
    long a = 0, b = 0;
    pthread_t th;
    pthread_create(&th, NULL, storm, &a);
    SCOPE_PHASE("storm") {
        storm(&b);
    }
    pthread_join(th, NULL);
    printf("loads %ld\n", a + b);
    return 0;
}

static _Noreturn void run_spin(void) {
    uint64_t ready = ns_of(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)(seconds * 1e9);
    int said = 0;
    for (;;) {
        SCOPE_PHASE("spin") {
            work(100);
        }
        if (!said && ns_of(CLOCK_THREAD_CPUTIME_ID) >= ready) {
            printf("ready\n");
            fflush(stdout);
            said = 1;
        }
    }
}

static int run_sleep(void) {
    SCOPE_PHASE("sleep") {
        struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
        struct timespec rem;
        while (nanosleep(&ts, &rem) != 0)
            ts = rem;
    }
    return 0;
}

static void *nothing(void *p) {
    return p;
}

static int run_churn(void) {
    for (int i = 0; i < 5000; i++) {
        pthread_t th;
        if (pthread_create(&th, NULL, nothing, NULL) != 0)
            return 1;
        pthread_join(th, NULL);
    }
    if (scope_lines_begin(NULL) != 0)
        return 1;
    pthread_t th;
    pthread_create(&th, NULL, late_main, NULL);
    pthread_join(th, NULL);
    scope_lines_end();
    return 0;
}

static int run_print(void) {
    scope_lines_print_top(stdout, 5, 0, "time");
    if (scope_lines_begin(NULL) != 0)
        return 1;
    work_for(seconds);
    printf("end %d\n", scope_lines_end());
    printf("extra_end %d\n", scope_lines_end());
    scope_lines_print_stats(stdout, 0, 10, "time");
    scope_lines_print_top(stdout, 5, 0, "hits");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: rt_lines MODE DIR SECONDS [ARG]\n");
        return 2;
    }
    seconds = atof(argv[3]);
    arg = argc > 4 ? argv[4] : "";
    if (!strcmp(argv[1], "print"))
        return run_print();
    if (scope_init(argv[2], NULL) != 0)
        return 3;
    const char *mode = argv[1];
    int rc = 2;
    if (!strcmp(mode, "phases"))
        rc = run_phases();
    else if (!strcmp(mode, "late"))
        rc = run_late();
    else if (!strcmp(mode, "fork"))
        rc = run_fork();
    else if (!strcmp(mode, "exec"))
        rc = run_exec(argv);
    else if (!strcmp(mode, "block"))
        rc = run_block();
    else if (!strcmp(mode, "foreign"))
        rc = run_foreign();
    else if (!strcmp(mode, "dlstorm"))
        rc = run_dlstorm();
    else if (!strcmp(mode, "churn"))
        rc = run_churn();
    else if (!strcmp(mode, "sleep"))
        rc = run_sleep();
    else if (!strcmp(mode, "spin"))
        run_spin();
    fflush(stdout);
    return rc;
}
