/* The recorder and the program's descriptors (progs/rt_fds.c).  A program
 * that closes every descriptor from 3 up (close_range, a closefrom loop) or
 * dup2()s its own file over them, then opens files and writes them while
 * frames are written, must find in its files exactly what it wrote, and
 * each of its descriptors still open on its own file after the recorder's
 * exit flush; the recorder says so in one line on stderr, and its log,
 * reopened, holds every phase entry from before and after, read back by
 * the test reader and by `scope-tui report --strict` and `dump`.  Both with
 * libscope linked (scope_init) and preloaded into a program that never
 * heard of it.  Under ulimit -n 16 the program opens as many files under
 * the recorder as without it, or one fewer: the recorder keeps one
 * descriptor, its log (three while it samples lines: libunwind's pipe,
 * once a stack has needed it).  The close_range and dup2 cases run again
 * while the program samples its lines in libm, whose stacks libunwind
 * checks through that pipe. */
#define _GNU_SOURCE
#include "progs/rt_common.h"
#include "rt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *scope_tui, *libscope;

/* ---- running it ------------------------------------------------------------ */

typedef struct how {
    int preload; /* rt_fds_plain under LD_PRELOAD, else rt_fds with scope_init */
    int recorded;
    int limit;        /* ulimit -n, 0: unchanged */
    int lines;        /* SCOPE_LINES=1: the line sampler and its unwinder too */
    const char *then; /* RT_FDS_THEN's value (progs/rt_fds.c), or NULL */
} how;

/* Runs rt_fds MODE OUT [RUN] as `h` says; its status must be 0. */
static void run_fds(rt_proc *p, const char *mode, const char *out, const char *run, how h) {
    static char run_env[4300], preload[8300], then[64];
    snprintf(run_env, sizeof run_env, "SCOPE_RUN_DIR=%s", run);
    rt_preload_env(preload, sizeof preload, libscope);
    const char *env[12] = {"SCOPE_FRAME_INTERVAL=0.05", "SCOPE_SAMPLE_INTERVAL=0.05",
                           "ASAN_OPTIONS=detect_leaks=0"};
    int ne = 3;
    if (h.then) {
        snprintf(then, sizeof then, "RT_FDS_THEN=%s", h.then);
        env[ne++] = then;
        /* Frames only when the program asks (scope_flush) and at exit, so
         * the recorder finds its descriptor lost after the program has
         * removed its log or used up its descriptors, not in between,
         * where a periodic frame on a loaded machine opened it again. */
        env[0] = "SCOPE_FRAME_INTERVAL=3600";
    }
    if (h.lines) {
        env[ne++] = "SCOPE_LINES=1";
        env[ne++] = "RT_FDS_LIBM=0.3";
    }
    if (h.preload && h.recorded) {
        env[ne++] = "SCOPE_PROFILE=1";
        env[ne++] = run_env;
        if (!h.limit)
            env[ne++] = preload;
    }
    env[ne] = NULL;
    char *prog = (char *)rt_prog(h.preload ? "rt_fds_plain" : "rt_fds");
    char *recorded_run = h.preload || !h.recorded ? NULL : (char *)run;
    char *argv[] = {prog, (char *)mode, (char *)out, recorded_run, NULL};
    /* Under a limit set by the shell, which must not load libscope itself:
     * the preload reaches the program alone. */
    char limit[80];
    snprintf(limit, sizeof limit, "ulimit -n %d && exec env \"$@\"", h.limit);
    char *limited[] = {
        "/bin/sh", "-c",         limit,       "sh",         h.preload && h.recorded ? preload : "-",
        prog,      (char *)mode, (char *)out, recorded_run, NULL};
    if (!(h.preload && h.recorded))
        memmove(&limited[4], &limited[5], 5 * sizeof limited[0]);
    rt_opts o = {.env = env};
    rt_run(p, h.limit ? limited : argv, &o, rt_sanitized() ? 300 : 60);
    char *err = rt_stderr(p);
    ck_assert_msg(WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0, "rt_fds %s: %s; stderr:\n%s",
                  mode, rt_status(p->status), rt_tail(err));
    free(err);
}

/* ---- what the program finds ------------------------------------------------------ */

/* Shows bytes the way a failure message can carry them. */
static const char *shown(const char *s, size_t n) {
    static char buf[400];
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < sizeof buf; i++) {
        unsigned char c = (unsigned char)s[i];
        o += (size_t)snprintf(buf + o, sizeof buf - o, c >= 32 && c < 127 ? "%c" : "\\x%02x", c);
    }
    buf[o] = '\0';
    return buf;
}

/* Each file holds exactly the lines the program wrote into it. */
static void expect_files(const char *out) {
    for (int i = 0; i < RT_FDS_FILES; i++) {
        char want[4096] = "", path[4400];
        size_t wlen = 0;
        for (int step = 0; step < RT_FDS_STEPS; step++)
            wlen += (size_t)snprintf(want + wlen, sizeof want - wlen, RT_FDS_LINE, i, step);
        snprintf(path, sizeof path, "%s/f%d", out, i);
        size_t len;
        char *got = rt_slurp(path, &len);
        size_t at = 0;
        while (at < len && at < wlen && got[at] == want[at])
            at++;
        ck_assert_msg(len == wlen && at == wlen,
                      "%s: %zu bytes, the program wrote %zu; from byte %zu it holds \"%s\"", path,
                      len, wlen, at, shown(got + at, len - at));
        free(got);
    }
}

/* The recorder's lines on stderr about a descriptor the program took,
 * which end in `outcome`. */
#define TOOK "took the recorder's descriptor"
static int descriptor_lines(const rt_proc *p, char **err, const char *outcome) {
    *err = rt_stderr(p);
    int n = 0;
    for (const char *line = *err; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        n += !strncmp(line, "scope: ", 7) && memmem(line, len, TOOK, sizeof TOOK - 1) &&
             memmem(line, len, outcome, strlen(outcome));
        line += len + (nl != NULL);
    }
    return n;
}

/* ---- what the log holds -------------------------------------------------------------- */

/* Runs scope-tui with argv; returns its stdout, which it must end 0. */
static char *tui(char *const argv[]) {
    rt_proc p;
    rt_run(&p, argv, NULL, rt_sanitized() ? 300 : 60);
    char *out = rt_slurp(p.out_path, NULL), *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s %s: %s; stderr:\n%s",
                  argv[0], argv[1], rt_status(p.status), rt_tail(err));
    free(err);
    return out;
}

/* The one log is whole: the test reader finds every entry (when the
 * program was linked) and the exit's mark, `report --strict` sees no
 * damage (`report` reads it), and `dump` reads the shutdown mark.  `squeezed`: the program
 * left no descriptor to spare for the first half of its steps (RT_FDS_THEN
 * squeeze), whose I/O phases could not be measured, and whose frames
 * waited: one flush-failed mark says so. */
static void expect_log(const char *run_dir, int linked, int squeezed) {
    rr_run run;
    const rr_log *log = rt_load_one(run_dir, &run);
    rt_assert_clean(log);
    if (linked) {
        ck_assert_uint_eq(log->nthreads, 1);
        uint32_t t = log->threads[0].index;
        rt_expect_count(log, t, "before", RT_FDS_BEFORE);
        rt_expect_count(log, t, "after", RT_FDS_STEPS);
        rt_expect_count(log, t, "io", RT_FDS_STEPS + 1);
        /* Its counters are read through a descriptor of the thread's own,
         * which went with the others: read again through a new one. */
        const rr_node *io = rr_find(log, t, "io");
        uint64_t failed = squeezed ? RT_FDS_STEPS / 2 : 0;
        ck_assert_msg(
            io && io->agg.io_count == RT_FDS_STEPS + 1 - failed && io->agg.io_failed == failed,
            "I/O phase: %llu entries measured, %llu failed (expected %llu)",
            io ? (unsigned long long)io->agg.io_count : 0ull,
            io ? (unsigned long long)io->agg.io_failed : 0ull, (unsigned long long)failed);
    }
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_FLUSH_FAILED, NULL, NULL), squeezed ? 1 : 0);
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_SHUTDOWN, NULL, NULL), 1);
    char path[4400];
    snprintf(path, sizeof path, "%s", log->path);
    rr_free(&run);

    /* --strict takes the flush-failed mark for damage. */
    char *report[] = {(char *)scope_tui, "report", (char *)run_dir, squeezed ? NULL : "--strict",
                      NULL};
    free(tui(report));
    char *dump[] = {(char *)scope_tui, "dump", path, NULL};
    char *out = tui(dump);
    ck_assert_msg(strstr(out, "MARK shutdown"), "dump of %s has no shutdown mark:\n%s", path,
                  rt_tail(out));
    free(out);
}

/* MODE under the recorder started as `h` says: the program's files are
 * whole, and one line on stderr ends in `outcome`. */
static void check_run(const char *mode, how h, const char *outcome, char *run, size_t cap) {
    char out[4200];
    rt_mkdir(out, sizeof out, "out");
    rt_mkdir(run, cap, "run");
    rt_proc p;
    run_fds(&p, mode, out, run, h);
    expect_files(out);
    char *err;
    int lines = descriptor_lines(&p, &err, outcome);
    ck_assert_msg(lines == 1,
                  "%d lines about a descriptor on stderr ending \"%s\", expected 1:\n%s", lines,
                  outcome, rt_tail(err));
    free(err);
}

#define REOPENED "it was opened again, and recording goes on"

/* ... and the log, opened again, holds everything. */
static void check_mode(const char *mode, how h) {
    char run[4200];
    check_run(mode, h, REOPENED, run, sizeof run);
    expect_log(run, !h.preload, 0);
}

START_TEST(test_close_range) {
    check_mode("close_range", (how){.recorded = 1});
}
END_TEST

START_TEST(test_closefrom) {
    check_mode("closefrom", (how){.recorded = 1});
}
END_TEST

START_TEST(test_dup2_over) {
    check_mode("dup2", (how){.recorded = 1});
}
END_TEST

/* Sampling lines in libm, whose stacks libunwind checks through a pipe:
 * the pipe is the recorder's, and what the program put in its place is
 * neither written, read nor closed. */
START_TEST(test_close_range_lines) {
    check_mode("close_range", (how){.recorded = 1, .lines = 1});
}
END_TEST

START_TEST(test_dup2_over_lines) {
    check_mode("dup2", (how){.recorded = 1, .lines = 1});
}
END_TEST

/* The log removed once the program took its descriptor: it cannot be
 * found again, and nothing is written anywhere else. */
START_TEST(test_log_removed) {
    char run[4200];
    check_run(
        "close_range", (how){.recorded = 1, .then = "unlink"},
        "it cannot be opened again (No such file or directory): nothing more is written to it", run,
        sizeof run);
    rr_run r;
    int n = rr_load(run, &r);
    rr_free(&r);
    ck_assert_msg(n == 0, "%d logs in %s after the log was removed", n, run);
}
END_TEST

/* No descriptor to spare for a while once the program took the log's:
 * frames wait, and go into the log once it is opened again. */
START_TEST(test_no_descriptor_for_a_while) {
    char run[4200];
    check_run("close_range", (how){.recorded = 1, .then = "squeeze"},
              "it cannot be opened again now (Too many open files): its frames wait in memory "
              "until it can",
              run, sizeof run);
    expect_log(run, 1, 1);
}
END_TEST

START_TEST(test_close_range_preload) {
    check_mode("close_range", (how){.preload = 1, .recorded = 1});
}
END_TEST

START_TEST(test_dup2_over_preload) {
    check_mode("dup2", (how){.preload = 1, .recorded = 1});
}
END_TEST

/* ---- ulimit -n 16 ---------------------------------------------------------------- */

/* Runs count under ulimit -n RT_FDS_LIMIT: the files opened and the
 * descriptors held beside the program's own. */
static void count(how h, int *opened, int *held) {
    char out[4200], run[4200];
    rt_mkdir(out, sizeof out, "count");
    rt_mkdir(run, sizeof run, "run");
    h.limit = RT_FDS_LIMIT;
    rt_proc p;
    run_fds(&p, "count", out, run, h);
    char *text = rt_slurp(p.out_path, NULL);
    const char *o = strstr(text, "opened "), *k = strstr(text, "held ");
    ck_assert_msg(o && k && sscanf(o, "opened %d", opened) == 1 && sscanf(k, "held %d", held) == 1,
                  "rt_fds count printed:\n%s", text);
    fprintf(stderr, "%s%s%s: %s", h.recorded ? "recorded, " : "", h.lines ? "sampling lines, " : "",
            h.preload ? "preloaded" : "linked", text);
    free(text);
    if (h.recorded)
        expect_log(run, 0, 0);
}

START_TEST(test_ulimit) {
    int base, base_held, opened, held;
    count((how){0}, &base, &base_held);
    ck_assert_int_le(base, RT_FDS_TRIES);
    ck_assert_int_gt(base, 1);
    const how recorded[] = {
        {.recorded = 1}, {.preload = 1, .recorded = 1}, {.recorded = 1, .lines = 1}};
#ifdef __SANITIZE_THREAD__
    size_t rows = 1; /* linked only: see main */
#else
    size_t rows = sizeof recorded / sizeof recorded[0];
#endif
    for (size_t i = 0; i < rows; i++) {
        const char *what = recorded[i].lines     ? "sampling lines"
                           : recorded[i].preload ? "preloaded"
                                                 : "linked";
        /* The log; while lines are sampled, libunwind's pipe too, once a
         * stack has needed it (docs/recorder.md section 3). */
        int keeps = recorded[i].lines ? 3 : 1;
        count(recorded[i], &opened, &held);
        ck_assert_msg(opened >= base - keeps,
                      "%s: the program opened %d of %d files, %d without the recorder", what,
                      opened, RT_FDS_TRIES, base);
        ck_assert_msg(held - base_held <= keeps, "%s: the recorder holds %d descriptors", what,
                      held - base_held);
    }
}

END_TEST

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s PROGS_DIR SCOPE_TUI LIBSCOPE_SO\n", argv[0]);
        return 2;
    }
    scope_tui = argv[2];
    libscope = argv[3];
    char *args[] = {argv[0], argv[1], NULL};
    rt_args(2, args);
    Suite *s = suite_create("recorder_fds");
    TCase *tc = tcase_create("fds");
    rt_fixture(tc);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_close_range);
    tcase_add_test(tc, test_closefrom);
    tcase_add_test(tc, test_dup2_over);
    tcase_add_test(tc, test_ulimit);
    tcase_add_test(tc, test_log_removed);
    tcase_add_test(tc, test_no_descriptor_for_a_while);
#ifndef __SANITIZE_THREAD__
    /* Not under ThreadSanitizer, for test_recorder_preload's and
     * test_recorder_lines's reasons (scripts/test.sh): its runtime must be
     * the first library loaded, and owns the threads the sampler follows. */
    tcase_add_test(tc, test_close_range_lines);
    tcase_add_test(tc, test_dup2_over_lines);
    tcase_add_test(tc, test_close_range_preload);
    tcase_add_test(tc, test_dup2_over_preload);
#else
    (void)test_close_range_lines;
    (void)test_dup2_over_lines;
    (void)test_close_range_preload;
    (void)test_dup2_over_preload;
#endif
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
