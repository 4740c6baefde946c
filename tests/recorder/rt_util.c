/* Running the recorder's test programs for real (see rt_util.h). */
#define _GNU_SOURCE
#include "rt_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/magic.h>
#include <link.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *progs_dir;
static const char *mpirun_path;
char rt_base[4096];

void rt_args(int argc, char **argv) {
    if (argc < 2 || !*argv[1]) {
        fprintf(stderr, "usage: %s PROGS_DIR [MPIRUN]\n", argv[0]);
        exit(2);
    }
    progs_dir = argv[1];
    mpirun_path = argc > 2 && *argv[2] ? argv[2] : NULL;
}

const char *rt_prog(const char *name) {
    static char ring[8][4200];
    static unsigned next;
    char *buf = ring[next++ % 8];
    snprintf(buf, sizeof ring[0], "%s/%s", progs_dir, name);
    return buf;
}

int rt_prog_exists(const char *name) {
    return access(rt_prog(name), X_OK) == 0;
}

const char *rt_mpirun(void) {
    return mpirun_path;
}

static int find_asan(struct dl_phdr_info *info, size_t size, void *out) {
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "libasan")) {
        snprintf(out, 4096, "%s:", info->dlpi_name);
        return 1;
    }
    return 0;
}

void rt_preload_env(char *out, size_t cap, const char *lib) {
    char asan[4096] = "";
    dl_iterate_phdr(find_asan, asan);
    snprintf(out, cap, "LD_PRELOAD=%s%s", asan, lib);
}

int rt_sanitized(void) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    return 1;
#else
    return 0;
#endif
#else
    return 0;
#endif
}

/* ---- scratch directories ------------------------------------------------- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    /* Tests chmod directories; make sure we can still empty them. */
    if (flag == FTW_DP)
        return rmdir(path) != 0 && errno != ENOENT;
    return unlink(path) != 0 && errno != ENOENT;
}

void rt_rmrf(const char *path) {
    nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

static void base_setup(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(rt_base, sizeof rt_base, "%s/scope-rt-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(rt_base)) {
        perror("mkdtemp");
        abort();
    }
}

static void base_teardown(void) {
    const char *keep = getenv("SCOPE_RT_KEEP");
    if (keep && *keep && strcmp(keep, "0") != 0)
        fprintf(stderr, "keeping %s\n", rt_base);
    else
        rt_rmrf(rt_base);
}

void rt_prefer_memory_tmpdir(void) {
    const char *tmp = getenv("TMPDIR");
    struct statfs fs;
    if ((tmp && *tmp) || statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC ||
        access("/dev/shm", W_OK | X_OK) != 0)
        return;
    setenv("TMPDIR", "/dev/shm", 1);
}

void rt_fixture(TCase *tc) {
    /* Unchecked: runs in the runner, once around the test case's forked
     * tests, so a failed test's files are removed too. */
    tcase_add_unchecked_fixture(tc, base_setup, base_teardown);
}

void rt_mkdir(char *out, size_t cap, const char *tag) {
    snprintf(out, cap, "%s/%s-XXXXXX", rt_base, tag);
    ck_assert_msg(mkdtemp(out) != NULL, "mkdtemp(%s): %s", out, strerror(errno));
}

/* ---- processes ------------------------------------------------------------ */

double rt_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void rt_sleep(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Variables a test must not inherit: a run of whoever runs the tests, or
 * rank variables of a launcher the tests themselves run under. */
static int inherited_out(const char *kv) {
    static const char *const prefixes[] = {"SCOPE_", "OMPI_",         "PMIX_", "PMI_",
                                           "SLURM_", "TORCHELASTIC_", NULL};
    static const char *const names[] = {"RANK",       "LOCAL_RANK",      "WORLD_SIZE",
                                        "GROUP_RANK", "NODE_RANK",       "PBS_JOBID",
                                        "LSB_JOBID",  "MPI_LOCALRANKID", NULL};
    for (const char *const *p = prefixes; *p; p++)
        if (!strncmp(kv, *p, strlen(*p)))
            return 1;
    for (const char *const *n = names; *n; n++) {
        size_t len = strlen(*n);
        if (!strncmp(kv, *n, len) && kv[len] == '=')
            return 1;
    }
    return !strncmp(kv, "LD_PRELOAD=", 11) && strstr(kv, "libscope");
}

static int same_key(const char *a, const char *b) {
    size_t la = strcspn(a, "="), lb = strcspn(b, "=");
    return la == lb && !strncmp(a, b, la);
}

/* The child's environment, built before fork.  A driver run with
 * RT_SAMPLE_LINES=1 (the line-sampling variants CTest registers) gives
 * every program SCOPE_LINES=1 too, unless the test sets it itself. */
static char **child_env(const char *const *changes) {
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    while (changes && changes[k])
        k++;
    char **env = calloc(n + k + 2, sizeof *env);
    ck_assert_ptr_nonnull(env);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (inherited_out(environ[i]))
            continue;
        int changed = 0;
        for (size_t j = 0; j < k && !changed; j++)
            changed = same_key(environ[i], changes[j]);
        if (!changed)
            env[m++] = environ[i];
    }
    int lines_set = 0;
    for (size_t j = 0; j < k; j++) {
        lines_set |= same_key(changes[j], "SCOPE_LINES=");
        if (strchr(changes[j], '='))
            env[m++] = (char *)changes[j];
    }
    const char *sample = getenv("RT_SAMPLE_LINES");
    if (!lines_set && sample && !strcmp(sample, "1"))
        env[m++] = "SCOPE_LINES=1";
    env[m] = NULL;
    return env;
}

static unsigned spawned;

void rt_spawn(rt_proc *p, char *const argv[], const rt_opts *o) {
    static const rt_opts none;
    if (!o)
        o = &none;
    memset(p, 0, sizeof *p);
    p->out_fd = -1;
    unsigned id = spawned++;
    snprintf(p->out_path, sizeof p->out_path, "%s/out.%d.%u", rt_base, (int)getpid(), id);
    snprintf(p->err_path, sizeof p->err_path, "%s/err.%d.%u", rt_base, (int)getpid(), id);
    char **env = child_env(o->env);
    int pipefd[2] = {-1, -1};
    if (o->stdout_pipe)
        ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
    pid_t parent = getpid();
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        /* Dies with the driver: a test that fails half-way leaves nothing. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(126);
        sigset_t none_blocked;
        sigemptyset(&none_blocked);
        sigprocmask(SIG_SETMASK, &none_blocked, NULL);
        static const int dfl[] = {SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGPIPE, SIGXFSZ, SIGCHLD};
        for (size_t i = 0; i < sizeof dfl / sizeof dfl[0]; i++)
            signal(dfl[i], SIG_DFL);
        int in = open("/dev/null", O_RDONLY);
        int out =
            o->stdout_pipe ? pipefd[1] : open(p->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(p->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0)
            _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        if (o->cwd && chdir(o->cwd) != 0)
            _exit(126);
        if (o->one_cpu) {
            /* The first CPU we may use: threads of the program then take
             * turns on it, as they do on an oversubscribed machine. */
            cpu_set_t set;
            if (sched_getaffinity(0, sizeof set, &set) != 0)
                _exit(126);
            for (int c = 0; c < CPU_SETSIZE; c++) {
                if (CPU_ISSET(c, &set)) {
                    CPU_ZERO(&set);
                    CPU_SET(c, &set);
                    break;
                }
            }
            if (sched_setaffinity(0, sizeof set, &set) != 0)
                _exit(126);
        }
        if (o->fsize_limit > 0) {
            struct rlimit rl = {(rlim_t)o->fsize_limit, (rlim_t)o->fsize_limit};
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                _exit(126);
        }
        execve(argv[0], argv, env);
        dprintf(2, "rt_spawn: execve %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here, so a signal sent at once finds the group */
    free(env);
    if (o->stdout_pipe) {
        close(pipefd[1]);
        p->out_fd = pipefd[0];
    }
    p->pid = pid;
}

int rt_wait(rt_proc *p, double timeout_s) {
    double deadline = rt_now() + timeout_s;
    for (;;) {
        int st;
        pid_t r = waitpid(p->pid, &st, WNOHANG);
        if (r == p->pid) {
            p->status = st;
            if (p->out_fd >= 0)
                close(p->out_fd);
            p->out_fd = -1;
            return 0;
        }
        if (r < 0 && errno != EINTR) {
            p->status = -1;
            return -1;
        }
        if (rt_now() >= deadline)
            break;
        rt_sleep(0.002);
    }
    kill(-p->pid, SIGKILL);
    kill(p->pid, SIGKILL);
    waitpid(p->pid, &p->status, 0);
    if (p->out_fd >= 0)
        close(p->out_fd);
    p->out_fd = -1;
    return -1;
}

void rt_run(rt_proc *p, char *const argv[], const rt_opts *o, double timeout_s) {
    rt_spawn(p, argv, o);
    if (rt_wait(p, timeout_s) != 0) {
        char *err = rt_stderr(p);
        ck_abort_msg("%s did not end within %.0f s (killed); stderr:\n%s", argv[0], timeout_s,
                     rt_tail(err));
    }
}

int rt_wait_line(int fd, const char *line, double timeout_s) {
    char buf[4096];
    size_t used = 0;
    double deadline = rt_now() + timeout_s;
    for (;;) {
        char *nl;
        while ((nl = memchr(buf, '\n', used)) != NULL) {
            *nl = '\0';
            if (!strcmp(buf, line))
                return 0;
            size_t skip = (size_t)(nl - buf) + 1;
            memmove(buf, nl + 1, used - skip);
            used -= skip;
        }
        double left = deadline - rt_now();
        if (left <= 0 || used == sizeof buf)
            return -1;
        struct pollfd pfd = {fd, POLLIN, 0};
        int r = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t n = read(fd, buf + used, sizeof buf - used);
        if (n <= 0)
            return -1;
        used += (size_t)n;
    }
}

char *rt_slurp(const char *path, size_t *len) {
    char *buf = NULL;
    size_t n = 0, cap = 0;
    FILE *f = fopen(path, "re");
    if (f) {
        char chunk[4096];
        size_t got;
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
            if (n + got + 1 > cap) {
                cap = (n + got + 1) * 2;
                buf = realloc(buf, cap);
                ck_assert_ptr_nonnull(buf);
            }
            memcpy(buf + n, chunk, got);
            n += got;
        }
        fclose(f);
    }
    if (!buf) {
        buf = malloc(1);
        ck_assert_ptr_nonnull(buf);
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *rt_stderr(const rt_proc *p) {
    static const char noise[] = "was not suspended. False leaks are possible.";
    char *text = rt_slurp(p->err_path, NULL);
    char *out = text;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
        int drop = line[0] == '=' && line[1] == '=' && memmem(line, len, noise, sizeof noise - 1);
        if (!drop) {
            memmove(out, line, len);
            out += len;
        }
        line += len;
    }
    *out = '\0';
    return text;
}

const char *rt_tail(const char *s) {
    size_t n = strlen(s);
    return n > 1500 ? s + n - 1500 : s;
}

const char *rt_status(int status) {
    static char buf[96];
    if (status == -1)
        snprintf(buf, sizeof buf, "not waited for");
    else if (WIFEXITED(status))
        snprintf(buf, sizeof buf, "exited %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, sizeof buf, "killed by SIG%s%s", sigabbrev_np(WTERMSIG(status)),
                 WCOREDUMP(status) ? " (core dumped)" : "");
    else
        snprintf(buf, sizeof buf, "status 0x%x", status);
    return buf;
}

void rt_assert_clean(const rr_log *log) {
    char why[2600];
    if (rr_check_clean(log, why, sizeof why)) {
        rr_print(stderr, log);
        ck_abort_msg("log does not read back clean: %s", why);
    }
}

void rt_print_run(const rr_run *run) {
    fprintf(stderr, "run %s: %zu log(s)\n", run->dir, run->nlogs);
    for (size_t i = 0; i < run->nlogs; i++)
        rr_print(stderr, &run->logs[i]);
}

void rt_expect_count(const rr_log *log, uint32_t thread, const char *path, uint64_t want) {
    const rr_node *n = rr_find(log, thread, path);
    if (n && n->has_agg && n->agg.count == want) {
        /* Exit, flush and signal frames carry histograms (docs/format.md,
         * 5.7), and nothing runs after the last of them: it holds every
         * entry. */
        if (n->agg.bins_total == want)
            return;
        rr_print(stderr, log);
        ck_abort_msg("%s: phase '%s' on thread %u: %llu entries, but its newest histogram (frame "
                     "%llu) holds %llu",
                     log->path, path, thread, (unsigned long long)want,
                     (unsigned long long)n->agg.hist_frame_seq,
                     (unsigned long long)n->agg.bins_total);
    }
    rr_print(stderr, log);
    if (!n)
        ck_abort_msg("%s: no phase '%s' on thread %u (expected %llu entries)", log->path, path,
                     thread, (unsigned long long)want);
    ck_abort_msg("%s: phase '%s' on thread %u has %llu entries, expected %llu", log->path, path,
                 thread, n->has_agg ? (unsigned long long)n->agg.count : 0ull,
                 (unsigned long long)want);
}

void rt_expect_counter(const rr_log *log, uint32_t thread, const char *path, const char *name,
                       uint64_t calls, int64_t total) {
    uint64_t got_calls;
    int64_t got = rr_counter_total(log, thread, path, name, &got_calls);
    if (got == total && got_calls == calls)
        return;
    rr_print(stderr, log);
    ck_abort_msg("%s: counter '%s' in '%s' on thread %u: %llu calls, total %lld; expected %llu "
                 "calls, total %lld",
                 log->path, name, path, thread, (unsigned long long)got_calls, (long long)got,
                 (unsigned long long)calls, (long long)total);
}

int rt_run_suite(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

size_t rt_frames_on_disk(const char *dir) {
    char path[4400];
    if (rr_list(dir, path, sizeof path) < 1)
        return 0;
    rr_log log;
    rr_load_file(path, &log);
    size_t n = log.nframes;
    rr_log_free(&log);
    return n;
}

const rr_log *rt_load_one(const char *dir, rr_run *run) {
    int n = rr_load(dir, run);
    if (n != 1)
        rt_print_run(run);
    ck_assert_msg(n == 1, "%d logs in %s, expected 1", n, dir);
    return &run->logs[0];
}

uint64_t rt_cpu_read_cost_ns(void) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        struct timespec a, c, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
        clock_gettime(CLOCK_MONOTONIC, &b);
        uint64_t d = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)b.tv_nsec -
                     (uint64_t)a.tv_nsec;
        if (d < best)
            best = d;
    }
    return best;
}
