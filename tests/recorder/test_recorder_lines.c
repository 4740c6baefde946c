/* The line sampler end to end: real programs (progs/rt_lines*.c) run with
 * SCOPE_LINES=1, their logs read back.  Samples land in the phase that was
 * open, in the shares of CPU time each phase used; a leaf in libm reaches
 * its caller; threads started later, forked and exec'd children are
 * sampled; a SIGKILL keeps what the last frame held; a program that blocks
 * SIGPROF or installs its own handler runs unharmed and the log says so;
 * dlopen and dlclose in a loop under 1 kHz sampling end; an uninstrumented
 * program under LD_PRELOAD is sampled.
 *
 * Usage: test_recorder_lines PROGS_DIR LIBSCOPE_SO */
#define _GNU_SOURCE
#include "rt_util.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *libscope_path;

/* ---- helpers ------------------------------------------------------------ */

/* The value of "key N" in a program's stdout; fails the test when absent. */
static unsigned long long out_value(const char *out, const char *key) {
    size_t klen = strlen(key);
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, key, klen) && p[klen] == ' ')
            return strtoull(p + klen + 1, NULL, 10);
    ck_abort_msg("no \"%s\" in the program's output:\n%s", key, rt_tail(out));
    return 0;
}

/* Runs rt_lines MODE DIR SECONDS [ARG] with SCOPE_LINES=1 and the extra
 * environment; fails unless it exits 0.  Returns its stdout (free it). */
static char *run_lines(const char *prog, const char *mode, const char *dir, const char *secs,
                       const char *arg, const char *extra_env) {
    const char *env[] = {"SCOPE_LINES=1", extra_env, NULL};
    char *argv[] = {(char *)rt_prog(prog), (char *)mode, (char *)dir,
                    (char *)secs,          (char *)arg,  NULL};
    if (!mode) { /* rt_lines_libm DIR SECONDS */
        argv[1] = (char *)dir;
        argv[2] = (char *)secs;
        argv[3] = NULL;
    }
    rt_proc p;
    rt_opts o = {.env = env};
    rt_run(&p, argv, &o, rt_sanitized() ? 240 : 90);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s %s %s; stderr:\n%s", prog,
                  mode ? mode : "", rt_status(p.status), rt_tail(err));
    free(err);
    return rt_slurp(p.out_path, NULL);
}

/* Samples of every thread with phase `path` open. */
static uint64_t samples_in(const rr_log *log, const char *path) {
    uint64_t sum = 0;
    for (size_t i = 0; i < log->nthreads; i++) {
        const rr_node *n = rr_find(log, log->threads[i].index, path);
        if (n)
            sum += rr_samples_of(log, log->threads[i].index, n->id);
    }
    return sum;
}

static int path_has(const rr_module *m, const char *part) {
    return m && strstr(m->path.ptr, part) != NULL;
}

/* Samples each log holds must at least reach half of what its CPU time
 * asks for at 99 a second, a floor the default rate (997) passes with
 * room: overruns make its samples add up to the CPU time. */
static void expect_samples(const rr_log *log, uint64_t got, double cpu_s) {
    uint64_t want = (uint64_t)(cpu_s * 99 * 0.5);
    if (got < want)
        rr_print(stderr, log);
    ck_assert_msg(got >= want, "%llu samples, want %llu or more for %.2f s of CPU",
                  (unsigned long long)got, (unsigned long long)want, cpu_s);
}

/* ---- the tests ----------------------------------------------------------- */

/* Two phases of known CPU shares, on two threads: the samples of each
 * phase within 3 sigma of its share, and the samples in all stand for the
 * process's CPU time within 10 %.  Sigma is of the signals: above the
 * kernel's tick each carries several samples (1 + its overruns), which
 * widens the spread of the counts by the square root of that. */
START_TEST(test_phase_shares) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "phases");
    char *out = run_lines("rt_lines", "phases", dir, "1.5", NULL, NULL);
    double light = (double)out_value(out, "light_ns"), heavy = (double)out_value(out, "heavy_ns");
    double cpu_ns = (double)out_value(out, "process_cpu_ns");
    free(out);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    rt_assert_clean(log);
    ck_assert_msg(log->has_lines, "no LINES record");
    ck_assert_uint_eq(log->lines.hz, 997);
    ck_assert_uint_eq(log->lines.period_ns, 1000000000ull / 997);
    ck_assert_uint_eq(log->lines.dropped, 0);
    ck_assert_uint_gt(log->lines.signals, 0);
    ck_assert_uint_le(log->lines.signals, log->lines.samples);
    uint64_t nl = samples_in(log, "light"), nh = samples_in(log, "heavy");
    double n = (double)(nl + nh), p = light / (light + heavy);
    double per_signal = (double)log->lines.samples / (double)log->lines.signals;
    double sigma = sqrt(n * p * (1 - p) * per_signal);
    ck_assert_msg(fabs((double)nl - n * p) <= 3 * sigma + 1,
                  "light: %llu of %.0f samples, want %.1f +- %.1f (its CPU share %.3f)",
                  (unsigned long long)nl, n, n * p, 3 * sigma, p);
    double sampled_ns = (double)rr_samples_of(log, 0, UINT32_MAX) * (double)log->lines.period_ns;
    ck_assert_msg(fabs(sampled_ns - cpu_ns) <= 0.10 * cpu_ns,
                  "samples stand for %.3f s, the process used %.3f s of CPU", sampled_ns / 1e9,
                  cpu_ns / 1e9);
    ck_assert_uint_eq(log->lines.samples, rr_samples_of(log, 0, UINT32_MAX));
    ck_assert_uint_ge(log->lines.threads, 2);
    rr_free(&run);
}
END_TEST

/* -O2 without frame pointers, the time in libm: the stacks of samples in
 * libm go on to the program's own function that called it. */
START_TEST(test_libm_leaf_reaches_caller) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "libm");
    free(run_lines("rt_lines_libm", NULL, dir, "1.0", NULL, NULL));
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    uint64_t in_libm = 0, reached = 0;
    for (size_t i = 0; i < log->nsamples; i++) {
        const rr_stack *s = rr_stack_by_id(log, log->samples[i].stack);
        ck_assert_ptr_nonnull(s);
        if (!path_has(rr_module_by_id(log, s->frames[0].module), "libm"))
            continue;
        in_libm += log->samples[i].count;
        for (uint32_t f = 1; f < s->nframes; f++)
            if (path_has(rr_module_by_id(log, s->frames[f].module), "rt_lines_libm")) {
                reached += log->samples[i].count;
                break;
            }
    }
    if (in_libm < 10 || reached < in_libm * 9 / 10)
        rr_print(stderr, log);
    ck_assert_msg(in_libm >= 10, "%llu samples in libm", (unsigned long long)in_libm);
    ck_assert_msg(reached >= in_libm * 9 / 10, "%llu of %llu samples in libm reach the program",
                  (unsigned long long)reached, (unsigned long long)in_libm);
    rr_free(&run);
}
END_TEST

/* A thread started after sampling began, never entering a phase. */
START_TEST(test_late_thread) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "late");
    char *out = run_lines("rt_lines", "late", dir, "1.0", NULL, NULL);
    long long tid = (long long)out_value(out, "late_tid");
    free(out);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    const rr_thread *t = NULL;
    for (size_t i = 0; i < log->nthreads; i++)
        if (log->threads[i].tid == tid)
            t = &log->threads[i];
    if (!t)
        rr_print(stderr, log);
    ck_assert_msg(t != NULL, "no THREAD record for tid %lld", tid);
    expect_samples(log, rr_samples_of(log, t->index, 0), 1.0);
    rr_free(&run);
}
END_TEST

/* The log of the process whose phase `path` exists. */
static const rr_log *log_with(const rr_run *run, const char *path) {
    for (size_t i = 0; i < run->nlogs; i++)
        for (size_t k = 0; k < run->logs[i].nthreads; k++)
            if (rr_find(&run->logs[i], run->logs[i].threads[k].index, path))
                return &run->logs[i];
    return NULL;
}

START_TEST(test_fork_child_samples) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "fork");
    free(run_lines("rt_lines", "fork", dir, "1.0", NULL, NULL));
    rr_run run;
    ck_assert_int_eq(rr_load(dir, &run), 2);
    const rr_log *child = log_with(&run, "child");
    ck_assert_msg(child != NULL, "no log with phase child");
    rt_assert_clean(child);
    expect_samples(child, samples_in(child, "child"), 1.0);
    rr_free(&run);
}
END_TEST

START_TEST(test_exec_child_samples) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "exec");
    free(run_lines("rt_lines", "exec", dir, "0.5", NULL, NULL));
    rr_run run;
    ck_assert_int_ge(rr_load(dir, &run), 1);
    const rr_log *img = log_with(&run, "light");
    ck_assert_msg(img != NULL, "no log of the exec'd image");
    expect_samples(img, samples_in(img, "light") + samples_in(img, "heavy"), 1.0);
    rr_free(&run);
}
END_TEST

/* Samples of phase `path` (any thread) taken in this state. */
static uint64_t samples_in_state(const rr_log *log, const char *path, uint32_t state) {
    uint64_t sum = 0;
    for (size_t i = 0; i < log->nthreads; i++) {
        const rr_node *n = rr_find(log, log->threads[i].index, path);
        for (size_t k = 0; n && k < log->nsamples; k++)
            if (log->samples[k].thread == log->threads[i].index && log->samples[k].node == n->id &&
                log->samples[k].state == state)
                sum += log->samples[k].count;
    }
    return sum;
}

/* SCOPE_LINES_CLOCK=wall samples a sleeping thread, and says it was
 * blocked (format 1.10); the CPU clock does not sample it. */
START_TEST(test_wall_clock_samples_sleep) {
    char dir[4200], cpu_dir[4200];
    rt_mkdir(dir, sizeof dir, "wall");
    rt_mkdir(cpu_dir, sizeof cpu_dir, "cpu");
    free(run_lines("rt_lines", "sleep", dir, "1.0", NULL, "SCOPE_LINES_CLOCK=wall"));
    free(run_lines("rt_lines", "sleep", cpu_dir, "1.0", NULL, NULL));
    rr_run run, cpu_run;
    const rr_log *log = rt_load_one(dir, &run), *cpu = rt_load_one(cpu_dir, &cpu_run);
    ck_assert_uint_eq(log->lines.clock, SCOPE_LINES_CLOCK_WALL);
    expect_samples(log, samples_in(log, "sleep"), 1.0);
    /* Each sample wakes the thread out of nanosleep: all blocked, but for
     * a few whose interrupted call had just returned. */
    uint64_t all = samples_in(log, "sleep"),
             blocked = samples_in_state(log, "sleep", SCOPE_CPU_BLOCKED);
    ck_assert_msg(blocked >= all * 95 / 100, "%llu of %llu sleep samples blocked, want 95%%",
                  (unsigned long long)blocked, (unsigned long long)all);
    ck_assert_uint_eq(cpu->lines.clock, SCOPE_LINES_CLOCK_CPU);
    ck_assert_uint_le(samples_in(cpu, "sleep"), 5);
    rr_free(&run);
    rr_free(&cpu_run);
}
END_TEST

/* The CPU time of phase "spin" (thread 1) as the frames of dir's one log
 * give it so far: what its entries whose CPU time was read say, over all
 * its entries. */
static double spin_cpu_s(const rr_log *log) {
    const rr_node *spin = rr_find(log, 1, "spin");
    if (!spin || !spin->has_agg || !spin->agg.cpu_count)
        return 0;
    return (double)spin->agg.cpu_ns * (double)spin->agg.count / (double)spin->agg.cpu_count / 1e9;
}

static double spin_cpu_on_disk(const char *dir) {
    char path[4400];
    if (rr_list(dir, path, sizeof path) < 1)
        return 0;
    rr_log log;
    rr_load_file(path, &log);
    double s = spin_cpu_s(&log);
    rr_log_free(&log);
    return s;
}

/* SIGKILL: what the frames written before it held stays. */
START_TEST(test_sigkill_keeps_samples) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "kill");
    const char *env[] = {"SCOPE_LINES=1", "SCOPE_FRAME_INTERVAL=0.2", "SCOPE_CPU_TIME=always",
                         NULL};
    char *argv[] = {(char *)rt_prog("rt_lines"), "spin", dir, "1.0", NULL};
    rt_proc p;
    rt_opts o = {.env = env, .stdout_pipe = 1};
    rt_spawn(&p, argv, &o);
    ck_assert_int_eq(rt_wait_line(p.out_fd, "ready", rt_sanitized() ? 120 : 30), 0);
    /* Killed once a frame on disk gives the phase 0.2 s of CPU (an event:
     * about three frames after "ready" on a quiet machine). */
    double deadline = rt_now() + (rt_sanitized() ? 240 : 120);
    while (spin_cpu_on_disk(dir) < 0.2 && rt_now() < deadline)
        rt_sleep(0.05);
    kill(p.pid, SIGKILL);
    ck_assert_int_eq(rt_wait(&p, 30), 0);
    ck_assert(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGKILL);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    ck_assert_msg(log->has_lines, "no LINES record");
    /* The last frame's samples against the CPU time the same frame gives
     * the phase (on a loaded machine the process may have had far less
     * than it asked for). */
    const rr_node *spin = rr_find(log, 1, "spin");
    ck_assert_ptr_nonnull(spin);
    ck_assert_uint_gt(spin->agg.cpu_count, 0);
    double cpu_s = spin_cpu_s(log);
    ck_assert_msg(cpu_s >= 0.2, "the phase had %.3f s of CPU by the last frame", cpu_s);
    expect_samples(log, samples_in(log, "spin"), cpu_s);
    rr_free(&run);
}
END_TEST

START_TEST(test_blocked_signal_is_a_caveat) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "block");
    char *out = run_lines("rt_lines", "block", dir, "0.6", NULL, NULL);
    ck_assert_uint_eq(out_value(out, "survived"), 1);
    free(out);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    rt_assert_clean(log);
    ck_assert_msg(log->has_lines && (log->lines.flags & SCOPE_LINES_F_BLOCKED),
                  "LINES flags 0x%x: want BLOCKED", log->has_lines ? log->lines.flags : 0);
    rr_free(&run);
}
END_TEST

START_TEST(test_foreign_handler_is_a_caveat) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "foreign");
    char *out = run_lines("rt_lines", "foreign", dir, "0.6", NULL, NULL);
    unsigned long long calls = out_value(out, "handler_calls");
    free(out);
    /* 0.6 s of CPU on a 10 ms ITIMER_PROF: its own handler ran.  How often
     * is the machine's: 60 times on a quiet one, 12 beside three busy loops
     * on its CPU (a process's CPU timer is checked at ticks it runs in). */
    ck_assert_uint_ge(calls, 1);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    rt_assert_clean(log);
    ck_assert_msg(log->has_lines && (log->lines.flags & SCOPE_LINES_F_FOREIGN),
                  "LINES flags 0x%x: want FOREIGN", log->has_lines ? log->lines.flags : 0);
    ck_assert_msg(!(log->lines.flags & SCOPE_LINES_F_ACTIVE), "still sampling after the foreign "
                                                              "handler");
    rr_free(&run);
}
END_TEST

/* dlopen and dlclose in a loop on two threads under 1 kHz sampling: the
 * program ends (rt_run's deadline catches a deadlock), and the plugin is
 * among the modules. */
START_TEST(test_dlopen_storm) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "dlstorm");
    char *out = run_lines("rt_lines", "dlstorm", dir, "3", rt_prog("rt_lines_plugin.so"),
                          "SCOPE_LINES_HZ=1000");
    ck_assert_uint_gt(out_value(out, "loads"), 100);
    free(out);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    rt_assert_clean(log);
    int found = 0;
    for (size_t i = 0; i < log->nmodules; i++)
        found |= path_has(&log->modules[i], "rt_lines_plugin");
    ck_assert_msg(found, "the plugin is not among the %zu modules", log->nmodules);
    ck_assert_uint_gt(log->lines.samples, 0);
    rr_free(&run);
}
END_TEST

/* A program built without libscope, preloaded with it. */
START_TEST(test_preload_uninstrumented) {
    char dir[4200], run_dir_env[4300], preload[4300];
    rt_mkdir(dir, sizeof dir, "preload");
    snprintf(run_dir_env, sizeof run_dir_env, "SCOPE_RUN_DIR=%s", dir);
    rt_preload_env(preload, sizeof preload, libscope_path);
    const char *env[] = {"SCOPE_LINES=1",
                         "SCOPE_PROFILE=1",
                         run_dir_env,
                         preload,
                         "ASAN_OPTIONS=detect_leaks=0",
                         NULL};
    char *argv[] = {(char *)rt_prog("rt_lines_plain"), "0.5", NULL};
    rt_proc p;
    rt_opts o = {.env = env};
    rt_run(&p, argv, &o, 60);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s", rt_status(p.status));
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    rt_assert_clean(log);
    ck_assert_uint_ge(log->nthreads, 2);
    expect_samples(log, rr_samples_of(log, 0, UINT32_MAX), 1.0);
    /* Every sample names its thread: both were known from their start. */
    ck_assert_uint_eq(rr_samples_of(log, 0, UINT32_MAX), log->lines.samples);
    for (size_t i = 0; i < log->nsamples; i++)
        ck_assert_uint_ne(log->samples[i].thread, 0);
    rr_free(&run);
}
END_TEST

/* scope_lines_begin without scope_init or a run directory: the samples are
 * kept for the in-process tables, and no log is written.  Printing before
 * any sample says so; after, the tables come from the renderer library
 * found beside libscope. */
START_TEST(test_in_process_tables) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "print");
    char *argv[] = {(char *)rt_prog("rt_lines"), "print", dir, "0.3", NULL};
    rt_proc p;
    rt_opts o = {.cwd = dir};
    rt_run(&p, argv, &o, 60);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s", rt_status(p.status));
    char *out = rt_slurp(p.out_path, NULL);
    ck_assert_msg(strstr(out, "scope: no line samples: call scope_lines_begin() or set "
                              "SCOPE_LINES=1\n") == out,
                  "output:\n%s", rt_tail(out));
    ck_assert_uint_eq(out_value(out, "end"), 0);
    ck_assert_msg(strstr(out, "extra_end -1\n"), "a second end: %s", rt_tail(out));
    /* libscope-lines.so is built beside libscope: both tables, naming the
     * hot function and its file. */
    ck_assert_msg(strstr(out, "Function: work") && strstr(out, "Top lines") &&
                      strstr(out, "rt_lines.c"),
                  "no tables:\n%s", rt_tail(out));
    free(out);
    char workers[4300];
    snprintf(workers, sizeof workers, "%s/scope-run", dir);
    ck_assert_msg(access(workers, F_OK) != 0, "a run directory was made: %s", workers);
}
END_TEST

/* Without the renderer library: libscope loaded from a folder of its own
 * (LD_LIBRARY_PATH comes before the program's RUNPATH), with nothing beside
 * it and nothing on the library path.  One line says why; the program runs
 * on. */
START_TEST(test_missing_renderer) {
    char dir[4200], cmd[13000], libpath[4300];
    rt_mkdir(dir, sizeof dir, "norender");
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/libscope.so.0'", libscope_path, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(libpath, sizeof libpath, "LD_LIBRARY_PATH=%s", dir);
    const char *env[] = {libpath, NULL};
    char *argv[] = {(char *)rt_prog("rt_lines"), "print", dir, "0.2", NULL};
    rt_proc p;
    rt_opts o = {.env = env, .cwd = dir};
    rt_run(&p, argv, &o, 60);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s", rt_status(p.status));
    char *out = rt_slurp(p.out_path, NULL);
    ck_assert_msg(strstr(out, "scope: cannot print line tables: libscope-lines.so not found beside "
                              "libscope nor on the library path ("),
                  "output:\n%s", rt_tail(out));
    ck_assert_msg(strstr(out, "extra_end -1\n"), "the program did not run on: %s", rt_tail(out));
    free(out);
}
END_TEST

/* 5,000 threads come and go before sampling begins: their slots are free
 * again, so the thread started afterwards is sampled. */
START_TEST(test_thread_churn_before_begin) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "churn");
    char *argv[] = {(char *)rt_prog("rt_lines"), "churn", dir, "0.5", NULL};
    rt_proc p;
    rt_opts o = {0};
    rt_run(&p, argv, &o, rt_sanitized() ? 240 : 60);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s", rt_status(p.status));
    char *out = rt_slurp(p.out_path, NULL);
    long long tid = (long long)out_value(out, "late_tid");
    free(out);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    ck_assert_msg(log->has_lines, "no LINES record");
    ck_assert_uint_eq(log->lines.threads_failed, 0);
    const rr_thread *t = NULL;
    for (size_t i = 0; i < log->nthreads; i++)
        if (log->threads[i].tid == tid)
            t = &log->threads[i];
    ck_assert_msg(t != NULL, "no THREAD record for tid %lld", tid);
    expect_samples(log, rr_samples_of(log, t->index, 0), 0.5);
    rr_free(&run);
}
END_TEST

/* A rate or clock that does not parse: one line each on stderr, and the
 * defaults in force. */
START_TEST(test_bad_settings_said) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "bad");
    const char *env[] = {"SCOPE_LINES=1", "SCOPE_LINES_HZ=fast", "SCOPE_LINES_CLOCK=sundial", NULL};
    char *argv[] = {(char *)rt_prog("rt_lines"), "phases", dir, "0.2", NULL};
    rt_proc p;
    rt_opts o = {.env = env};
    rt_run(&p, argv, &o, 60);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s", rt_status(p.status));
    ck_assert_msg(strstr(err, "scope: SCOPE_LINES_HZ='fast' is not a rate in 1..10000 per second; "
                              "sampling at 997\n") &&
                      strstr(err, "scope: SCOPE_LINES_CLOCK='sundial' is not cpu or wall; sampling "
                                  "CPU time\n"),
                  "stderr:\n%s", rt_tail(err));
    free(err);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    ck_assert_uint_eq(log->lines.hz, 997);
    ck_assert_uint_eq(log->lines.clock, SCOPE_LINES_CLOCK_CPU);
    ck_assert_uint_gt(log->lines.samples, 0);
    rr_free(&run);
}
END_TEST

/* Without SCOPE_LINES nothing is sampled and the log has no line records. */
START_TEST(test_off_by_default) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "off");
    char *argv[] = {(char *)rt_prog("rt_lines"), "phases", dir, "0.2", NULL};
    rt_proc p;
    rt_opts o = {0};
    rt_run(&p, argv, &o, 60);
    ck_assert(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0);
    rr_run run;
    const rr_log *log = rt_load_one(dir, &run);
    ck_assert(!log->has_lines);
    ck_assert_uint_eq(log->nsamples + log->nstacks + log->nmodules, 0);
    rr_free(&run);
}
END_TEST

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: test_recorder_lines PROGS_DIR LIBSCOPE_SO\n");
        return 2;
    }
    libscope_path = argv[2];
    char *args[] = {argv[0], argv[1], NULL};
    rt_args(2, args);
    Suite *s = suite_create("recorder_lines");
    TCase *tc = tcase_create("lines");
    rt_fixture(tc);
    tcase_set_timeout(tc, rt_sanitized() ? 600 : 120);
    tcase_add_test(tc, test_phase_shares);
    tcase_add_test(tc, test_libm_leaf_reaches_caller);
    tcase_add_test(tc, test_late_thread);
    tcase_add_test(tc, test_fork_child_samples);
    tcase_add_test(tc, test_exec_child_samples);
    tcase_add_test(tc, test_sigkill_keeps_samples);
    tcase_add_test(tc, test_blocked_signal_is_a_caveat);
    tcase_add_test(tc, test_foreign_handler_is_a_caveat);
    tcase_add_test(tc, test_dlopen_storm);
    tcase_add_test(tc, test_preload_uninstrumented);
    tcase_add_test(tc, test_off_by_default);
    tcase_add_test(tc, test_in_process_tables);
    tcase_add_test(tc, test_wall_clock_samples_sleep);
    tcase_add_test(tc, test_bad_settings_said);
    tcase_add_test(tc, test_missing_renderer);
    tcase_add_test(tc, test_thread_churn_before_begin);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
