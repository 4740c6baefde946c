/*
 * bench_recorder: what libscope costs the program it lives in.
 *
 *   bench_recorder              the overhead table: ns per call, median of
 *                               several runs, next to clock_gettime measured
 *                               in the same process
 *   bench_recorder --memory     resident memory of 8 threads entering 1,000
 *                               distinct phases, 10 million entries in all
 *   bench_recorder --churn      peak resident memory of what must not grow
 *                               with time: 10,000 short threads, and
 *                               names that never repeat (70,000, a million),
 *                               recorded and not
 *   bench_recorder --log-size [SECONDS]  log bytes per process-hour of a
 *                               pipeline-like workload at default settings:
 *                               its phases, then its 1 Hz resource samples
 *   bench_recorder --sample-size INTERVAL SECONDS  the samples' part alone,
 *                               sampling every INTERVAL s for SECONDS (the
 *                               1 Hz truth: --sample-size 1 150)
 *   bench_recorder --snapshot   the time scope_flush() takes to write a
 *                               snapshot frame of 1,000 and of 10,000 phase
 *                               nodes, and its size
 *   bench_recorder --sampler    CPU time the resource sampler costs per
 *                               sample, in a process of 16 threads that all
 *                               move bytes
 *   bench_recorder --loop MODE N  N calls of one mode, nothing printed: what
 *                               bench/callgrind.sh runs under valgrind to count
 *                               instructions per call
 *
 * Every mode runs in a child process of its own, so "disabled" really is a
 * process in which the recorder was never started.  Runs go to a temporary
 * run directory, removed at the end.
 */
#define _GNU_SOURCE
#include "series_cost.h"

#include <scope/log_format.h>
#include <scope/scope.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 7

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the modes -------------------------------------------------------------- */

enum mode {
    M_CLOCK,     /* clock_gettime(CLOCK_MONOTONIC): the yardstick */
    M_DISABLED,  /* SCOPE_PHASE with the recorder never started */
    M_ENABLED,   /* SCOPE_PHASE recording, CPU time off */
    M_ADAPTIVE,  /* SCOPE_PHASE recording, default adaptive CPU time */
    M_CPU,       /* SCOPE_PHASE recording, CPU time on every entry */
    M_NESTED,    /* three nested SCOPE_PHASEs, cost per phase */
    M_EXPLICIT,  /* scope_phase_begin(name)/scope_phase_end() */
    M_COUNT,     /* SCOPE_COUNT recording */
    M_COUNT_OFF, /* SCOPE_COUNT with the recorder never started */
    M_IO,        /* SCOPE_PHASE_IO: the thread's I/O counters read at both ends */
    M_EMPTY,     /* the loop alone, for --loop: what callgrind.sh subtracts */
    M_MODES
};

static const struct {
    const char *name;
    const char *label;
    const char *cpu_time; /* SCOPE_CPU_TIME for the child, NULL: unset */
    int start;            /* scope_init in the child */
    long iterations;
} modes[M_MODES] = {
    [M_CLOCK] = {"clock", "clock_gettime(CLOCK_MONOTONIC)", NULL, 0, 10000000},
    [M_DISABLED] = {"disabled", "phase enter+exit, recorder disabled", NULL, 0, 50000000},
    [M_ENABLED] = {"enabled", "phase enter+exit, recording (CPU time off)", "off", 1, 10000000},
    [M_ADAPTIVE] = {"adaptive", "phase enter+exit, recording (adaptive CPU time)", NULL, 1,
                    10000000},
    [M_CPU] = {"cpu", "phase enter+exit, recording with CPU time", "always", 1, 1000000},
    [M_NESTED] = {"nested", "phase enter+exit, 3 nested, per phase", "off", 1, 3000000},
    [M_EXPLICIT] = {"explicit", "scope_phase_begin(name)/end, per phase", "off", 1, 5000000},
    [M_COUNT] = {"count", "SCOPE_COUNT, recording", "off", 1, 50000000},
    [M_COUNT_OFF] = {"count-off", "SCOPE_COUNT, recorder disabled", NULL, 0, 50000000},
    [M_IO] = {"io", "I/O phase enter+exit (SCOPE_PHASE_IO)", "off", 1, 200000},
    /* 0 iterations: not a row of the overhead table */
    [M_EMPTY] = {"empty", "empty loop", NULL, 0, 0},
};

/* Calls per iteration: the nested mode makes three phases per iteration. */
static int calls_per_iteration(int m) {
    return m == M_NESTED ? 3 : 1;
}

/* The measured loops.  noinline so each mode is one comparable function. */
static __attribute__((noinline)) void loop(int m, long n) {
    struct timespec ts;
    switch (m) {
    case M_CLOCK:
        for (long i = 0; i < n; i++)
            clock_gettime(CLOCK_MONOTONIC, &ts);
        break;
    case M_DISABLED:
    case M_ENABLED:
    case M_ADAPTIVE:
    case M_CPU:
        for (long i = 0; i < n; i++)
            SCOPE_PHASE("bench") {
                __asm__ volatile("" ::: "memory");
            }
        break;
    case M_NESTED:
        for (long i = 0; i < n; i++)
            SCOPE_PHASE("outer") {
                SCOPE_PHASE("middle") {
                    SCOPE_PHASE("inner") {
                        __asm__ volatile("" ::: "memory");
                    }
                }
            }
        break;
    case M_EXPLICIT:
        for (long i = 0; i < n; i++) {
            scope_phase_begin("explicit");
            __asm__ volatile("" ::: "memory");
            scope_phase_end();
        }
        break;
    case M_COUNT:
    case M_COUNT_OFF:
        for (long i = 0; i < n; i++)
            SCOPE_COUNT("items", 1);
        break;
    case M_IO:
        for (long i = 0; i < n; i++)
            SCOPE_PHASE_IO("bench_io") {
                __asm__ volatile("" ::: "memory");
            }
        break;
    case M_EMPTY:
        for (long i = 0; i < n; i++)
            __asm__ volatile("" ::: "memory");
        break;
    }
}

static int find_mode(const char *name) {
    for (int m = 0; m < M_MODES; m++)
        if (!strcmp(modes[m].name, name))
            return m;
    return -1;
}

static void child_env(int m, const char *run_dir) {
    unsetenv("SCOPE_PROFILE");
    unsetenv("SCOPE_RUN_ID");
    setenv("SCOPE_QUIET", "1", 1);
    setenv("SCOPE_RUN_DIR", run_dir, 1);
    if (modes[m].cpu_time)
        setenv("SCOPE_CPU_TIME", modes[m].cpu_time, 1);
    else
        unsetenv("SCOPE_CPU_TIME");
}

/* In a child: RUNS timed repetitions of one mode, ns per call written to fd. */
static void measure(int m, const char *run_dir, int fd) {
    child_env(m, run_dir);
    if (modes[m].start && scope_init(run_dir, "bench") != 0)
        _exit(3);
    long n = modes[m].iterations;
    loop(m, n / 10); /* warm-up: caches, first-use allocations, CPU frequency */
    double ns[RUNS];
    for (int r = 0; r < RUNS; r++) {
        uint64_t a = now_ns();
        loop(m, n);
        ns[r] = (double)(now_ns() - a) / ((double)n * calls_per_iteration(m));
    }
    double med = median(ns, RUNS);
    if (write(fd, &med, sizeof med) != sizeof med)
        _exit(4);
    _exit(0);
}

static double run_mode(int m, const char *run_dir) {
    int p[2];
    if (pipe(p) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        measure(m, run_dir, p[1]);
    }
    close(p[1]);
    double v = -1;
    if (read(p[0], &v, sizeof v) != sizeof v)
        v = -1;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? v : -1;
}

/* ---- memory -------------------------------------------------------------- */

#define MEM_THREADS 8
#define MEM_PHASES  1000
#define MEM_ENTRIES 10000000L

static char phase_names[MEM_PHASES][16];
static long entries_done[MEM_THREADS];

static void *memory_worker(void *arg) {
    long id = (long)(intptr_t)arg;
    long per = MEM_ENTRIES / MEM_THREADS;
    for (long i = 0; i < per; i++) {
        /* Every thread walks all 1,000 names; every other entry opens a
         * fixed child inside, so each thread's tree has 2,000 nodes, all
         * seen within the first few thousand entries: from then on memory
         * must not move, however many entries follow. */
        long k = (i * 7 + id) % MEM_PHASES;
        scope_phase_begin(phase_names[k]);
        if (i & 1) {
            scope_phase_begin(phase_names[(k + MEM_PHASES / 2) % MEM_PHASES]);
            scope_phase_end();
        }
        scope_phase_end();
        __atomic_store_n(&entries_done[id], i + 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* A figure of /proc/self/status in KiB ("VmRSS", "VmHWM"); -1 if absent. */
static long status_kib(const char *field) {
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    size_t n = strlen(field);
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':' && sscanf(line + n + 1, "%ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static long rss_kib(void) {
    return status_kib("VmRSS");
}

static long total_entries(void) {
    long sum = 0;
    for (int i = 0; i < MEM_THREADS; i++)
        sum += __atomic_load_n(&entries_done[i], __ATOMIC_RELAXED);
    return sum;
}

static int memory_bench(const char *run_dir) {
    setenv("SCOPE_QUIET", "1", 1);
    for (int i = 0; i < MEM_PHASES; i++)
        snprintf(phase_names[i], sizeof phase_names[i], "phase_%03d", i);
    long before = rss_kib();
    if (scope_init(run_dir, "memory") != 0)
        return 1;
    pthread_t th[MEM_THREADS];
    for (long i = 0; i < MEM_THREADS; i++)
        pthread_create(&th[i], NULL, memory_worker, (void *)(intptr_t)i);
    printf("resident memory: %d threads, %d distinct phase names, %d tree nodes per thread\n",
           MEM_THREADS, MEM_PHASES, 2 * MEM_PHASES);
    printf("  %-22s %10ld KiB\n", "before scope_init", before);
    static const long marks[] = {100000, 1000000, 2500000, 5000000, 7500000, MEM_ENTRIES};
    for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++) {
        while (total_entries() < marks[k])
            usleep(2000);
        char label[32];
        snprintf(label, sizeof label, "after %ld entries", marks[k]);
        printf("  %-22s %10ld KiB\n", label, rss_kib());
        fflush(stdout);
    }
    for (int i = 0; i < MEM_THREADS; i++)
        pthread_join(th[i], NULL);
    scope_shutdown();
    printf("  %-22s %10ld KiB\n", "after scope_shutdown", rss_kib());
    return 0;
}

/* ---- churn: threads that come and go, names that never repeat ---------------- */

#define CHURN_THREADS 10000
#define CHURN_AT_ONCE 16

static volatile uint64_t churn_sink;

/* A request on a thread of its own, named apart as a server might name it. */
static void *churn_request(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "req-%ld", (long)(intptr_t)arg);
    pthread_setname_np(pthread_self(), name);
    SCOPE_PHASE("request") {
        SCOPE_PHASE("handle") {
            churn_sink++;
        }
    }
    return NULL;
}

static void churn_threads(long n) {
    pthread_t t[CHURN_AT_ONCE];
    for (long done = 0; done < n;) {
        int k = 0;
        for (; k < CHURN_AT_ONCE && done + k < n; k++)
            pthread_create(&t[k], NULL, churn_request, (void *)(intptr_t)(done + k));
        for (int i = 0; i < k; i++)
            pthread_join(t[i], NULL);
        done += k;
    }
}

static void churn_names(long n) {
    char name[32];
    for (long i = 0; i < n; i++) {
        snprintf(name, sizeof name, "name-%ld", i);
        scope_phase_begin(name);
        scope_phase_end();
    }
}

/* The peak resident memory of a fresh process that runs fn(n), recording
 * into run_dir or not; -1 when it failed. */
static long churn_peak(void (*fn)(long), long n, const char *run_dir, int record) {
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        setenv("SCOPE_QUIET", "1", 1);
        if (record && scope_init(run_dir, "churn") != 0)
            _exit(1);
        fn(n);
        if (record)
            scope_shutdown(); /* its last frame counted in the peak */
        long kib = status_kib("VmHWM");
        _exit(write(fds[1], &kib, sizeof kib) == sizeof kib ? 0 : 1);
    }
    close(fds[1]);
    long kib = -1;
    if (pid < 0 || read(fds[0], &kib, sizeof kib) != sizeof kib)
        kib = -1;
    close(fds[0]);
    int st;
    if (pid > 0)
        waitpid(pid, &st, 0);
    return kib;
}

static int churn_bench(const char *run_dir) {
    static const struct {
        const char *what;
        void (*fn)(long);
        long n;
    } rows[] = {
        {"10,000 short threads, 16 at a time, 2 phases each", churn_threads, CHURN_THREADS},
        {"70,000 distinct phase names", churn_names, 70000},
        {"1,000,000 distinct phase names", churn_names, 1000000},
    };
    printf("peak resident memory (VmHWM) of what must not grow with time\n\n");
    printf("  %-52s %12s %12s\n", "what", "recorded", "not");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        long on = churn_peak(rows[i].fn, rows[i].n, run_dir, 1);
        long off = churn_peak(rows[i].fn, rows[i].n, run_dir, 0);
        printf("  %-52s %8ld KiB %8ld KiB\n", rows[i].what, on, off);
        fflush(stdout);
    }
    return 0;
}

/* ---- log size -------------------------------------------------------------- */

/* Busy for about `us` microseconds: phases of realistic, varied length. */
static void spin_us(unsigned us) {
    uint64_t end = now_ns() + us * 1000ull;
    while (now_ns() < end)
        __asm__ volatile("" ::: "memory");
}

static volatile int log_size_stop;
/* The threads move a few bytes an iteration, as a pipeline's do, so that
 * each interval holds a RESOURCE record per thread as well. */
static int log_size_io;

static void some_io(int write_it) {
    static const char zeros[4096];
    char buf[4096];
    int fd = open(write_it ? "/dev/null" : "/dev/zero", write_it ? O_WRONLY : O_RDONLY);
    if (fd < 0)
        return;
    if (write_it ? write(fd, zeros, sizeof zeros) < 0 : read(fd, buf, sizeof buf) < 0)
        (void)0; /* the bytes are what counts, not their fate */
    close(fd);
}

/* A learner-like thread: 12 phases, 3 counters. */
static void *learner_thread(void *arg) {
    (void)arg;
    for (unsigned it = 0; !log_size_stop; it++) {
        SCOPE_PHASE("iteration") {
            SCOPE_PHASE("load_batch") {
                SCOPE_PHASE("read_shard") {
                    spin_us(300 + it % 200);
                    if (log_size_io)
                        some_io(0);
                }
                SCOPE_PHASE("decode") {
                    spin_us(200);
                }
                SCOPE_COUNT("samples_loaded", 256);
            }
            SCOPE_PHASE("train") {
                SCOPE_PHASE("forward") {
                    spin_us(900 + it % 300);
                }
                SCOPE_PHASE("backward") {
                    spin_us(1500);
                }
                SCOPE_PHASE("optimizer") {
                    spin_us(200);
                }
                SCOPE_COUNT("gradient_steps", 1);
            }
            if (it % 50 == 0)
                SCOPE_PHASE("checkpoint") {
                    SCOPE_PHASE("serialize") {
                        spin_us(3000);
                    }
                    SCOPE_PHASE("fsync") {
                        usleep(2000);
                    }
                    SCOPE_COUNT("bytes_checkpointed", 40 << 20);
                }
            SCOPE_PHASE("wait_for_actors") {
                usleep(1000 + it % 1000);
            }
        }
    }
    return NULL;
}

/* An actor-like thread: 8 phases, 2 counters, fast inner phases. */
static void *actor_thread(void *arg) {
    (void)arg;
    while (!log_size_stop) {
        SCOPE_PHASE("self_play") {
            for (int m = 0; m < 20; m++)
                SCOPE_PHASE("mcts") {
                    SCOPE_PHASE("select") {
                        spin_us(5);
                    }
                    SCOPE_PHASE("expand") {
                        spin_us(10);
                    }
                    SCOPE_PHASE("evaluate") {
                        spin_us(20);
                    }
                    SCOPE_PHASE("backup") {
                        spin_us(3);
                    }
                    SCOPE_COUNT("mcts_simulations", 64);
                }
            SCOPE_PHASE("env_step") {
                spin_us(100);
            }
            SCOPE_PHASE("send_trajectory") {
                usleep(500);
                if (log_size_io)
                    some_io(1);
            }
            SCOPE_COUNT("env_steps", 1);
        }
    }
    return NULL;
}

/* Sizes of the log's frames, split by whether they carry histograms; the
 * snapshot frames apart. */
typedef struct frame_sizes {
    long total, frames;
    long hist_frames, hist_bytes, plain_frames, plain_bytes;
    long snap_frames, snap_bytes;
} frame_sizes;

/* Adds the frame that ends at `end` to its kind. */
static void count_frame(frame_sizes *fs, int kind, long bytes) {
    long *n[] = {&fs->plain_frames, &fs->hist_frames, &fs->snap_frames};
    long *b[] = {&fs->plain_bytes, &fs->hist_bytes, &fs->snap_bytes};
    *n[kind] += 1;
    *b[kind] += bytes;
}

static int measure_log(const char *path, frame_sizes *fs) {
    char msg[256];
    scope_log_reader *r;
    if (scope_log_reader_open(&r, path, msg, sizeof msg) < 0) {
        fprintf(stderr, "bench_recorder: %s: %s\n", path, msg);
        return -1;
    }
    fs->total = (long)scope_log_reader_info(r)->file_size;
    scope_rec_frame fr;
    uint64_t off, prev_off = 0;
    int prev_kind = -1; /* 0 plain, 1 with histograms, 2 a snapshot */
    while (scope_log_reader_next_frame(r, &fr, &off)) {
        /* Frames 0 and 1 (its snapshot) are closed as the writer starts,
         * before the workload has done anything: they represent no kind. */
        if (prev_kind >= 0 && fr.seq > 2)
            count_frame(fs, prev_kind, (long)(off - prev_off));
        scope_record rec;
        prev_kind = fr.flags & SCOPE_FRAME_F_SNAPSHOT ? 2 : 0;
        while (scope_log_reader_next_record(r, &rec))
            if (rec.type == SCOPE_REC_PHASE_AGG && rec.u.phase_agg.nbins && !prev_kind)
                prev_kind = 1;
        prev_off = off;
        fs->frames++;
    }
    if (prev_kind >= 0)
        count_frame(fs, prev_kind, fs->total - (long)prev_off);
    scope_log_reader_close(r);
    return 0;
}

/* In a child process: the workload for `seconds`, recorded into dir with
 * the environment as the caller set it.  Returns 0 when it ran. */
static int record_workload(const char *dir, double seconds, int io) {
    pid_t pid = fork();
    if (pid == 0) {
        setenv("SCOPE_QUIET", "1", 1);
        if (scope_init(dir, "pipeline") != 0)
            _exit(3);
        log_size_io = io;
        pthread_t learner, actor;
        pthread_create(&learner, NULL, learner_thread, NULL);
        pthread_create(&actor, NULL, actor_thread, NULL);
        usleep((useconds_t)(seconds * 1e6));
        log_size_stop = 1;
        pthread_join(learner, NULL);
        pthread_join(actor, NULL);
        scope_shutdown();
        _exit(0);
    }
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The one log under dir into path. */
static int find_log(const char *dir, char *path, size_t cap) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "find '%s/workers' -type f -name '*.scope'", dir);
    FILE *p = popen(cmd, "r");
    path[0] = '\0';
    if (!p || !fgets(path, (int)cap, p)) {
        fprintf(stderr, "bench_recorder: no log written under %s\n", dir);
        if (p)
            pclose(p);
        return -1;
    }
    pclose(p);
    path[strcspn(path, "\n")] = '\0';
    return 0;
}

/* File size and RESOURCE records (of the process, of threads) of a log. */
static int count_samples(const char *path, long *bytes, long *procs, long *threads) {
    char msg[256];
    scope_log_reader *r;
    if (scope_log_reader_open(&r, path, msg, sizeof msg) < 0)
        return -1;
    uint64_t size = scope_log_reader_info(r)->file_size;
    *bytes = (long)size;
    *procs = *threads = 0;
    /* Snapshot frames are left out: with samples they carry the series,
     * whose size the hour's model adds apart (series_cost_measure). */
    scope_rec_frame fr;
    uint64_t off, snap_at = 0;
    int in_snap = 0;
    while (scope_log_reader_next_frame(r, &fr, &off)) {
        if (in_snap)
            *bytes -= (long)(off - snap_at);
        in_snap = (fr.flags & SCOPE_FRAME_F_SNAPSHOT) != 0;
        snap_at = off;
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec))
            if (rec.type == SCOPE_REC_RESOURCE)
                ++*(rec.u.resource.thread ? threads : procs);
    }
    if (in_snap)
        *bytes -= (long)(size - snap_at);
    scope_log_reader_close(r);
    return 0;
}

/* What the 1 Hz samples add to an hour: the workload (with I/O on both
 * threads, so an interval holds up to three records) recorded twice, with
 * and without the sampler, sampling every `interval` seconds for `seconds`
 * with a frame every 30 intervals, as the automatic schedule's 30 s frames
 * hold at 1 Hz.  The difference per interval, times 3600. */
static double sample_bytes_per_hour(const char *dir, double interval, double seconds) {
    char d0[4200], d1[4200], p0[4096], p1[4096];
    snprintf(d0, sizeof d0, "%s/no-samples", dir);
    snprintf(d1, sizeof d1, "%s/samples", dir);
    char frame_s[32], sample_s[32];
    snprintf(frame_s, sizeof frame_s, "%g", 30 * interval);
    snprintf(sample_s, sizeof sample_s, "%g", interval);
    setenv("SCOPE_FRAME_INTERVAL", frame_s, 1);
    setenv("SCOPE_SAMPLE_INTERVAL", "0", 1);
    long b0, b1, procs, threads, x0, x1;
    if (record_workload(d0, seconds, 1) < 0 || find_log(d0, p0, sizeof p0) < 0 ||
        count_samples(p0, &b0, &x0, &x1) < 0)
        return -1;
    setenv("SCOPE_SAMPLE_INTERVAL", sample_s, 1);
    if (record_workload(d1, seconds, 1) < 0 || find_log(d1, p1, sizeof p1) < 0 ||
        count_samples(p1, &b1, &procs, &threads) < 0 || procs == 0)
        return -1;
    unsetenv("SCOPE_FRAME_INTERVAL");
    unsetenv("SCOPE_SAMPLE_INTERVAL");
    double per = (double)(b1 - b0) / (double)procs;
    printf("resource samples: the same workload, both threads moving bytes every interval\n");
    char what[80];
    snprintf(what, sizeof what, "process + thread records (%g s, every %g s)", seconds, interval);
    printf("  %-40s %10ld + %ld\n", what, procs, threads);
    printf("  %-40s %10ld - %ld bytes\n", "samples - without, snapshots apart", b1, b0);
    printf("  %-40s %10.1f bytes\n", "per sampled interval", per);
    printf("  %-40s %10.1f KiB\n", "per process-hour at 1 Hz", per * 3600 / 1024);
    return per * 3600;
}

/* The frames of hour `hour` (0: the first) that carry histograms under the
 * automatic schedule (a frame every 5 s for 5 minutes, then every 30 s):
 * those 120 s or more after the last that did, and, since a node sends its
 * histogram again once its count grew by an eighth since the last one sent
 * (recorder/source_phases.c), those whose count (steady, so in proportion
 * to the time) passed 9/8 of the count at the last one (unless !growth,
 * the 120 s rule alone, for comparison).  *frames gets the hour's frames. */
static int hist_frames_in_hour(int hour, int growth, int *frames) {
    double last_interval = -1e9, last_sent = 0;
    int n = 0, all = 0;
    for (double t = 5; t <= 3600.0 * (hour + 1); t += t < 300 ? 5 : 30) {
        int hist = last_sent == 0 || t - last_interval >= 120;
        if (hist)
            last_interval = t;
        /* hist_grown: count - sent >= sent / 8 + 1 */
        hist = hist || (growth && t >= last_sent * 9 / 8);
        if (hist)
            last_sent = t;
        if (t > 3600.0 * hour) {
            all++;
            n += hist;
        }
    }
    *frames = all;
    return n;
}

/* Bytes of hour `hour` under the automatic schedule (hist_frames_in_hour)
 * with `plain` and `hist` bytes a frame plus `per_s` bytes of resource
 * samples a second, and, when snap > 0, a snapshot of `snap` bytes after
 * the first frame and after every periodic frame that takes the log
 * SCOPE_LOG_SNAPSHOT_SPACING times `snap` bytes past the newest snapshot
 * (recorder/writer.c, snapshot_due), whose histograms count as sent for the
 * growth rule.  *snaps gets the hour's snapshots. */
static double hour_bytes(int hour, double plain, double hist, double per_s, double snap,
                         int *snaps) {
    double last_interval = -1e9, last_sent = 0, bytes = 0, since = 0;
    int n = 0;
    for (double t = 5, prev = 0; t <= 3600.0 * (hour + 1); prev = t, t += t < 300 ? 5 : 30) {
        double step = t - prev; /* the frame closed at t holds the samples since prev */
        int h = last_sent == 0 || t - last_interval >= 120;
        if (h)
            last_interval = t;
        h = h || t >= last_sent * 9 / 8;
        if (h)
            last_sent = t;
        double frame = (h ? hist : plain) + per_s * step, s = 0;
        since += frame;
        if (snap > 0 && (t == 5 || since >= SCOPE_LOG_SNAPSHOT_SPACING * snap)) {
            s = snap;
            since = 0;
            /* a snapshot carries every histogram, which the growth rule
             * counts as sent (recorder/source_phases.c, add_aggregate) */
            last_sent = t;
        }
        if (t > 3600.0 * hour) {
            bytes += frame + s;
            n += s > 0;
        }
    }
    *snaps = n;
    return bytes;
}

static int log_size_bench(const char *dir, int seconds) {
    unsetenv("SCOPE_FRAME_INTERVAL");
    unsetenv("SCOPE_HIST_INTERVAL");
    unsetenv("SCOPE_CPU_TIME");
    /* The phases alone first: the automatic schedule's first minutes hold
     * fewer samples a frame than the rest of an hour, so the samples are
     * measured apart (sample_bytes_per_hour). */
    setenv("SCOPE_SAMPLE_INTERVAL", "0", 1);
    char phases[4200], path[4096];
    snprintf(phases, sizeof phases, "%s/phases", dir);
    if (record_workload(phases, seconds, 0) < 0 || find_log(phases, path, sizeof path) < 0)
        return 1;
    unsetenv("SCOPE_SAMPLE_INTERVAL");
    frame_sizes fs = {0};
    if (measure_log(path, &fs) < 0 || !fs.plain_frames || !fs.hist_frames || !fs.snap_frames)
        return 1;
    double plain = (double)fs.plain_bytes / fs.plain_frames;
    double hist = (double)fs.hist_bytes / fs.hist_frames;
    /* The automatic schedule: a frame every 5 s for 5 minutes, then every
     * 30 s (60 + 110 frames an hour); which of them carry histograms:
     * hist_frames_in_hour. */
    int frames1, frames2;
    int hist1 = hist_frames_in_hour(0, 1, &frames1), hist2 = hist_frames_in_hour(1, 1, &frames2);
    int hist0 = hist_frames_in_hour(0, 0, &frames1);
    double hour = (frames1 - hist1) * plain + hist1 * hist;
    double interval_only = (frames1 - hist0) * plain + hist0 * hist;
    double later = (frames2 - hist2) * plain + hist2 * hist;
    printf("log size at default settings: one process, 2 threads, 20 phases, 5 counters\n");
    printf("  %-40s %10d s\n", "recorded for", seconds);
    printf("  %-40s %10ld bytes in %ld frames\n", "log file", fs.total, fs.frames);
    printf("  %-40s %10.0f bytes (%ld frames)\n", "frame without histograms, mean", plain,
           fs.plain_frames);
    printf("  %-40s %10.0f bytes (%ld frames)\n", "frame with histograms, mean", hist,
           fs.hist_frames);
    double snap = (double)fs.snap_bytes / fs.snap_frames;
    printf("  %-40s %10.0f bytes (%ld frames)\n", "snapshot frame, mean", snap, fs.snap_frames);
    char what[80];
    snprintf(what, sizeof what, "first process-hour (%d + %d frames)", frames1 - hist1, hist1);
    printf("  %-40s %10.1f KiB\n", what, hour / 1024);
    snprintf(what, sizeof what, "  by the 120 s rule alone (%d + %d)", frames1 - hist0, hist0);
    printf("  %-40s %10.1f KiB\n", what, interval_only / 1024);
    snprintf(what, sizeof what, "second process-hour (%d + %d frames)", frames2 - hist2, hist2);
    printf("  %-40s %10.1f KiB\n", what, later / 1024);
    int snaps1, snaps2;
    double with1 = hour_bytes(0, plain, hist, 0, snap, &snaps1);
    double with2 = hour_bytes(1, plain, hist, 0, snap, &snaps2);
    snprintf(what, sizeof what, "first hour with snapshots (%d of them)", snaps1);
    printf("  %-40s %10.1f KiB\n", what, with1 / 1024);
    snprintf(what, sizeof what, "second hour with snapshots (%d)", snaps2);
    printf("  %-40s %10.1f KiB\n", what, with2 / 1024);
    double samples = sample_bytes_per_hour(dir, 0.05, 10);
    if (samples < 0)
        return 1;
    printf("\n  %-40s %10.1f KiB\n", "phases + samples, first process-hour",
           (hour + samples) / 1024);
    /* With samples a snapshot also carries the resource series, whose size
     * grows with the run up to its fixed number of buckets: the 8 process
     * figures' series after an hour at 1 Hz, measured as bench_series does. */
    series_cost sc;
    if (series_cost_measure(1, 0, &sc) < 0) {
        fprintf(stderr, "bench_recorder: cannot measure the resource series\n");
        return 1;
    }
    printf("  %-40s %10.1f KiB\n", "a snapshot's series after an hour", sc.compressed / 1024.0);
    int snaps3;
    double with3 =
        hour_bytes(0, plain, hist, samples / 3600, snap + (double)sc.compressed, &snaps3);
    snprintf(what, sizeof what, "  the same with snapshots (%d of them)", snaps3);
    printf("  %-40s %10.1f KiB\n", what, with3 / 1024);
    /* A process of 12 hours: each later hour's snapshots carry the series
     * of a run that long (fewer buckets in use as they widen). */
    double run = with3;
    for (int h = 1; h < 12; h++) {
        if (series_cost_measure(h + 1, 0, &sc) < 0) {
            fprintf(stderr, "bench_recorder: cannot measure the resource series\n");
            return 1;
        }
        double b =
            hour_bytes(h, plain, hist, samples / 3600, snap + (double)sc.compressed, &snaps3);
        if (h == 1) {
            snprintf(what, sizeof what, "second hour, with snapshots (%d)", snaps3);
            printf("  %-40s %10.1f KiB\n", what, b / 1024);
        }
        run += b;
    }
    printf("  %-40s %10.1f KiB\n", "a 12-hour process, per hour", run / 12 / 1024);
    return 0;
}

/* ---- a snapshot's cost ------------------------------------------------------- */

#define SNAP_FLUSHES 7

/* In a child process: `nodes` phases (100 top-level, the rest nested one
 * level under them), each entered 50 times with durations over a few
 * histogram octaves and a counter each, all on one thread; then
 * scope_flush() SNAP_FLUSHES times with nothing changed between, each
 * writing a frame with nothing in it and the snapshot after it (every
 * definition and aggregate, histograms included).  Prints the median
 * flush and the last snapshot's size. */
static int snapshot_child(const char *dir, int nodes) {
    setenv("SCOPE_QUIET", "1", 1);
    setenv("SCOPE_FRAME_INTERVAL", "3600", 1); /* no periodic frame meanwhile */
    setenv("SCOPE_SAMPLE_INTERVAL", "0", 1);
    if (scope_init(dir, "snapshot") != 0)
        return 3;
    char name[32];
    for (int i = 0; i < nodes; i++) {
        int top = i % 100;
        snprintf(name, sizeof name, "top%d", top);
        scope_phase_begin(name);
        if (i >= 100) {
            snprintf(name, sizeof name, "n%d", i);
            for (int k = 0; k < 50; k++) {
                scope_phase_begin(name);
                spin_us((unsigned)(k % 5));
                scope_count("items", k);
                scope_phase_end();
            }
        }
        scope_phase_end();
    }
    scope_flush(); /* everything, once */
    double ms[SNAP_FLUSHES];
    for (int i = 0; i < SNAP_FLUSHES; i++) {
        uint64_t t0 = now_ns();
        scope_flush();
        ms[i] = (double)(now_ns() - t0) / 1e6;
    }
    scope_shutdown();
    char path[4096];
    frame_sizes fs = {0};
    if (find_log(dir, path, sizeof path) < 0 || measure_log(path, &fs) < 0 || !fs.snap_frames)
        return 1;
    char what[80];
    snprintf(what, sizeof what, "%d phase nodes: flush + snapshot", nodes);
    printf("  %-40s %10.2f ms (median of %d)\n", what, median(ms, SNAP_FLUSHES), SNAP_FLUSHES);
    printf("  %-40s %10.0f bytes\n", "  snapshot frame, mean",
           (double)fs.snap_bytes / fs.snap_frames);
    fflush(stdout); /* the caller leaves by _exit */
    return 0;
}

static int snapshot_bench(const char *dir) {
    printf("snapshot frames: the writer thread's time to close one (scope_flush() waits for "
           "it)\n");
    static const int sizes[] = {1000, 10000};
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char d[4200];
        snprintf(d, sizeof d, "%s/snapshot-%d", dir, sizes[i]);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0)
            _exit(snapshot_child(d, sizes[i]));
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
    }
    return 0;
}

/* ---- the sampler's cost ----------------------------------------------------- */

#define SAMPLER_THREADS 16

static volatile int sampler_stop;
static pid_t sampler_tids[SAMPLER_THREADS];

static void *sampler_worker(void *arg) {
    long i = (long)arg;
    sampler_tids[i] = (pid_t)syscall(SYS_gettid);
    while (!sampler_stop)
        SCOPE_PHASE("work") {
            some_io((int)(i & 1));
            usleep(1000);
        }
    return NULL;
}

/* The CPU time of the process's threads other than the main one and ours:
 * the recorder's writer, which samples. */
static double recorder_cpu_s(void) {
    double total = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));) {
        pid_t tid = (pid_t)atoi(e->d_name);
        int ours = tid <= 0 || tid == getpid();
        for (int i = 0; i < SAMPLER_THREADS; i++)
            ours |= tid == sampler_tids[i];
        if (ours)
            continue;
        /* A thread's CPU-time clock (the kernel's CPUCLOCK encoding). */
        clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 6);
        struct timespec ts;
        if (clock_gettime(clk, &ts) == 0)
            total += (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    }
    closedir(d);
    return total;
}

/* In a child: 16 threads moving bytes for `seconds` with the sampler at
 * `interval`; writes the recorder's CPU seconds and the samples taken to fd. */
static void sampler_run(const char *dir, const char *interval, double seconds, int fd) {
    setenv("SCOPE_QUIET", "1", 1);
    setenv("SCOPE_SAMPLE_INTERVAL", interval, 1);
    setenv("SCOPE_FRAME_INTERVAL", "3600", 1);
    if (scope_init(dir, "sampler") != 0)
        _exit(3);
    pthread_t t[SAMPLER_THREADS];
    for (long i = 0; i < SAMPLER_THREADS; i++)
        pthread_create(&t[i], NULL, sampler_worker, (void *)i);
    usleep(200000); /* every thread attached */
    double cpu0 = recorder_cpu_s();
    usleep((useconds_t)(seconds * 1e6));
    double out[2] = {recorder_cpu_s() - cpu0, seconds / atof(interval)};
    sampler_stop = 1;
    for (int i = 0; i < SAMPLER_THREADS; i++)
        pthread_join(t[i], NULL);
    if (write(fd, out, sizeof out) != sizeof out)
        _exit(4);
    _exit(0);
}

static int sampler_bench(const char *dir) {
    static const char *const intervals[] = {"0", "0.01"};
    double got[2][2];
    for (int k = 0; k < 2; k++) {
        int p[2];
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/sampler-%d", dir, k);
        if (pipe(p) != 0)
            return 1;
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            sampler_run(sub, intervals[k], 5, p[1]);
        }
        close(p[1]);
        int st;
        if (read(p[0], got[k], sizeof got[k]) != sizeof got[k] || waitpid(pid, &st, 0) != pid)
            return 1;
        close(p[0]);
    }
    double per = (got[1][0] - got[0][0]) / got[1][1];
    printf("resource sampler: %d threads each moving bytes every millisecond, 5 s\n",
           SAMPLER_THREADS);
    printf("  %-44s %10.3f s\n", "recorder threads' CPU, no sampler", got[0][0]);
    printf("  %-44s %10.3f s (%.0f samples)\n", "recorder threads' CPU, sampling at 100 Hz",
           got[1][0], got[1][1]);
    printf("  %-44s %10.1f us\n", "CPU per sample (process + 16 threads)", per * 1e6);
    printf("  %-44s %10.4f %%\n", "of one core at 1 Hz", per * 100);
    return 0;
}

/* ---- main ---------------------------------------------------------------- */

static char run_dir[] = "/tmp/scope-bench-XXXXXX";

static void cleanup(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", run_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_recorder: could not remove %s\n", run_dir);
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--loop")) {
        int m = find_mode(argv[2]);
        if (m < 0) {
            fprintf(stderr, "bench_recorder: unknown mode %s\n", argv[2]);
            return 2;
        }
        /* The caller sets the environment (SCOPE_RUN_DIR, SCOPE_CPU_TIME). */
        if (modes[m].start && scope_init(NULL, "bench") != 0)
            return 3;
        loop(m, atol(argv[3]));
        return 0;
    }
    if (!mkdtemp(run_dir)) {
        perror("bench_recorder: mkdtemp");
        return 1;
    }
    atexit(cleanup);
    if (argc == 2 && !strcmp(argv[1], "--memory"))
        return memory_bench(run_dir);
    if (argc == 2 && !strcmp(argv[1], "--churn"))
        return churn_bench(run_dir);
    if (argc == 2 && !strcmp(argv[1], "--snapshot"))
        return snapshot_bench(run_dir);
    if (argc == 2 && !strcmp(argv[1], "--sampler"))
        return sampler_bench(run_dir);
    if (argc == 4 && !strcmp(argv[1], "--sample-size"))
        return sample_bytes_per_hour(run_dir, atof(argv[2]), atof(argv[3])) < 0;
    if (argc >= 2 && !strcmp(argv[1], "--log-size"))
        return log_size_bench(run_dir, argc > 2 ? atoi(argv[2]) : 60);
    if (argc != 1) {
        fprintf(stderr, "usage: bench_recorder [--memory | --churn | --log-size [SECONDS] | "
                        "--snapshot | "
                        "--sampler | --loop MODE "
                        "N]\n");
        return 2;
    }

    printf("libscope overhead, ns per call (median of %d runs; each mode in a fresh process)\n\n",
           RUNS);
    printf("  %-50s %9s %12s\n", "what", "ns/call", "x clock_gettime");
    double clock = run_mode(M_CLOCK, run_dir);
    for (int m = 0; m < M_MODES; m++) {
        if (!modes[m].iterations)
            continue;
        double v = m == M_CLOCK ? clock : run_mode(m, run_dir);
        if (v < 0) {
            printf("  %-50s %9s\n", modes[m].label, "failed");
            continue;
        }
        printf("  %-50s %9.2f %12.2f\n", modes[m].label, v, clock > 0 ? v / clock : 0);
    }
    printf("\nInstructions per call: bench/callgrind.sh.  Memory: bench_recorder --memory, "
           "--churn.\n");
    return 0;
}
