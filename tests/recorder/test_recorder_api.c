/* The recorder's API from a program's side: every way out of a phase block
 * (C and C++), the static archive, starting from the environment or not at
 * all, odd names, unbalanced ends.  Each test runs a real program and reads
 * its log back through the real reader. */
#include "progs/rt_common.h"
#include "rt_util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* rt_basic's workload (progs/rt_basic.c): 10 entries of "step" with
 * items += 2, 10 of "explicit"; it prints sum = 0^2 + ... + 9^2 + 10. */
#define BASIC_STEPS 10
#define BASIC_OUT   "sum=295\nflush=0\n"

/* Runs a program to its end and checks it exited 0 with exactly this
 * stdout (NULL: not checked) and nothing on stderr. */
static void run_ok(char *const argv[], const rt_opts *o, const char *want_out) {
    rt_proc p;
    rt_run(&p, argv, o, 60);
    char *out = rt_slurp(p.out_path, NULL), *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "%s %s %s; stderr:\n%s",
                  argv[0], argv[1] ? argv[1] : "", rt_status(p.status), rt_tail(err));
    ck_assert_msg(err[0] == '\0', "%s wrote to stderr:\n%s", argv[0], rt_tail(err));
    if (want_out)
        ck_assert_str_eq(out, want_out);
    free(out);
    free(err);
}

/* Loads a run that must hold exactly one clean log. */
static const rr_log *load_one(const char *dir, rr_run *run) {
    const rr_log *log = rt_load_one(dir, run);
    rt_assert_clean(log);
    return log;
}

/* The thread a single-threaded program recorded on. */
static uint32_t only_thread(const rr_log *log) {
    ck_assert_msg(log->nthreads == 1, "%zu THREAD records, expected 1", log->nthreads);
    return log->threads[0].index;
}

static void check_basic(const rr_log *log) {
    uint32_t t = only_thread(log);
    rt_expect_count(log, t, "step", BASIC_STEPS);
    rt_expect_count(log, t, "explicit", BASIC_STEPS);
    rt_expect_counter(log, t, "step", "items", BASIC_STEPS, 2 * BASIC_STEPS);
    ck_assert_uint_eq(log->nnodes, 2);
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_UNBALANCED, NULL, NULL), 0);
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_SHUTDOWN, NULL, NULL), 1);
}

/* ---- ways out of a block --------------------------------------------------- */

/* Counts shared by rt_exits and rt_cxx (see their headers). */
static void check_exits(const rr_log *log, int cxx) {
    uint32_t t = only_thread(log);
    const int L = RT_EXIT_LOOPS;
    rt_expect_count(log, t, "brk", L);
    rt_expect_counter(log, t, "brk", "brk_tail", L / 2, L / 2);
    rt_expect_count(log, t, "cont", L);
    rt_expect_counter(log, t, "cont", "cont_tail", L - (L + 2) / 3, L - (L + 2) / 3);
    rt_expect_count(log, t, "ret", L);
    rt_expect_count(log, t, "outer", 1);
    rt_expect_count(log, t, "outer/inner", 1);
    if (cxx) {
        rt_expect_count(log, t, "throw", L);
        rt_expect_counter(log, t, "throw", "throw_tail", L / 2, L / 2);
        rt_expect_counter(log, t, "after", "after_items", 1, 5);
    } else {
        rt_expect_count(log, t, "jump", L);
        rt_expect_counter(log, t, "jump", "jump_tail", L / 2, L / 2);
        rt_expect_count(log, t, "spin", 5);
        rt_expect_counter(log, t, "after", "after_items", 1, 1);
    }
    /* "after" at the top level: a phase left open by any of the above
     * would have become its parent. */
    rt_expect_count(log, t, "after", 1);
    size_t want_nodes = cxx ? 7 : 8;
    if (log->nnodes != want_nodes)
        rr_print(stderr, log);
    ck_assert_msg(log->nnodes == want_nodes, "%zu phase nodes, expected %zu", log->nnodes,
                  want_nodes);
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_UNBALANCED, NULL, NULL), 0);
}

START_TEST(test_exits_c) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "exits");
    char *argv[] = {(char *)rt_prog("rt_exits"), dir, NULL};
    run_ok(argv, NULL, "ret=90\n");
    rr_run run;
    check_exits(load_one(dir, &run), 0);
    rr_free(&run);
}
END_TEST

#ifndef RT_NO_CXX
START_TEST(test_exits_cxx) {
    static const char *const progs[] = {"rt_cxx11", "rt_cxx14", "rt_cxx17", "rt_cxx20"};
    /* C++11 is the promise; later standards are checked where the compiler
     * has them. */
    ck_assert_msg(rt_prog_exists("rt_cxx11"), "%s was not built", rt_prog("rt_cxx11"));
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        if (!rt_prog_exists(progs[i]))
            continue;
        char dir[4200];
        rt_mkdir(dir, sizeof dir, progs[i]);
        char *argv[] = {(char *)rt_prog(progs[i]), dir, NULL};
        run_ok(argv, NULL, "ret=90 caught=5\n");
        rr_run run;
        const rr_log *log = load_one(dir, &run);
        ck_assert_str_eq(log->process.role.ptr, "cxx");
        check_exits(log, 1);
        rr_free(&run);
    }
}
END_TEST
#endif

/* ---- starting ---------------------------------------------------------------- */

START_TEST(test_static_archive) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "static");
    char *argv[] = {(char *)rt_prog("rt_basic_static"), "init", dir, "static", NULL};
    run_ok(argv, NULL, "init=0\n" BASIC_OUT);
    rr_run run;
    const rr_log *log = load_one(dir, &run);
    ck_assert_str_eq(log->process.role.ptr, "static");
    check_basic(log);
    rr_free(&run);
}
END_TEST

/* A rerun into the same directory is a new attempt: a new run id. */
START_TEST(test_two_runs_two_ids) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "tworuns");
    char *argv[] = {(char *)rt_prog("rt_basic"), "init", dir, NULL};
    run_ok(argv, NULL, "init=0\n" BASIC_OUT);
    run_ok(argv, NULL, "init=0\n" BASIC_OUT);
    rr_run run;
    int n = rr_load(dir, &run);
    ck_assert_int_eq(n, 2);
    for (size_t i = 0; i < run.nlogs; i++) {
        rt_assert_clean(&run.logs[i]);
        check_basic(&run.logs[i]);
        /* No role given: the program's name. */
        ck_assert_str_eq(run.logs[i].process.role.ptr, "rt_basic");
    }
    ck_assert_uint_eq(rr_run_ids(&run), 2);
    rr_free(&run);
}
END_TEST

static int dir_is_empty(const char *path) {
    DIR *d = opendir(path);
    ck_assert_msg(d != NULL, "opendir %s: %s", path, strerror(errno));
    int empty = 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = 0;
    closedir(d);
    return empty;
}

/* Never initialized, SCOPE_PROFILE unset (or 0): every call is a no-op, the
 * program works, and not one file appears, not even the run directory. */
START_TEST(test_disabled_no_files) {
    static const char *const profile[] = {"SCOPE_PROFILE", "SCOPE_PROFILE=0", "SCOPE_PROFILE="};
    for (size_t i = 0; i < sizeof profile / sizeof profile[0]; i++) {
        char cwd[4200], where[4200], run[4400];
        rt_mkdir(cwd, sizeof cwd, "disabled-cwd");
        rt_mkdir(where, sizeof where, "disabled-run");
        snprintf(run, sizeof run, "%s/run", where);
        char run_env[4500];
        snprintf(run_env, sizeof run_env, "SCOPE_RUN_DIR=%s", run);
        const char *env[] = {profile[i], run_env, "SCOPE_ROLE=nobody", NULL};
        rt_opts o = {.env = env, .cwd = cwd};
        char *argv[] = {(char *)rt_prog("rt_basic"), "noinit", NULL};
        run_ok(argv, &o, BASIC_OUT);
        struct stat st;
        ck_assert_msg(stat(run, &st) != 0 && errno == ENOENT, "%s: %s was created", profile[i],
                      run);
        ck_assert_msg(dir_is_empty(cwd), "%s: files appeared in the working directory %s",
                      profile[i], cwd);
        ck_assert_msg(dir_is_empty(where), "%s: files appeared in %s", profile[i], where);
    }
}
END_TEST

/* Disabled, every call of the API (misuse and shutdown included) is a
 * no-op, and the program runs as if the recorder were not linked. */
START_TEST(test_disabled_api_noop) {
    char cwd[4200];
    rt_mkdir(cwd, sizeof cwd, "disabled-api");
    rt_opts o = {.cwd = cwd};
    char *argv[] = {(char *)rt_prog("rt_basic"), "api", NULL};
    run_ok(argv, &o, "flush=0 after=0\n");
    ck_assert_msg(dir_is_empty(cwd), "files appeared in the working directory %s", cwd);
}
END_TEST

/* The same calls recording: IO and SYNC phases keep their flags, a NULL
 * name is "(null)", the stray end is a caveat, and nothing recorded after
 * scope_shutdown starts a second log. */
START_TEST(test_api_then_shutdown) {
    char dir[4200], run_env[4300];
    rt_mkdir(dir, sizeof dir, "api");
    snprintf(run_env, sizeof run_env, "SCOPE_RUN_DIR=%s", dir);
    const char *env[] = {"SCOPE_PROFILE=1", run_env, NULL};
    rt_opts o = {.env = env};
    char *argv[] = {(char *)rt_prog("rt_basic"), "api", NULL};
    run_ok(argv, &o, "flush=0 after=0\n");
    rr_run run;
    const rr_log *log = load_one(dir, &run);
    uint32_t t = only_thread(log);
    rt_expect_count(log, t, "io", 1);
    rt_expect_count(log, t, "sync", 1);
    rt_expect_count(log, t, "(null)", 1);
    ck_assert_uint_eq(rr_find(log, t, "io")->flags, SCOPE_PHASE_F_IO);
    ck_assert_uint_eq(rr_find(log, t, "sync")->flags, SCOPE_PHASE_F_SYNC);
    rt_expect_counter(log, t, "io", "io_items", 1, 1);
    rt_expect_counter(log, t, "sync", "negative", 1, -5);
    rt_expect_counter(log, t, "(null)", "(null)", 1, 1);
    ck_assert_msg(log->nnodes == 3, "%zu phase nodes, expected 3 (nothing after shutdown)",
                  log->nnodes);
    /* (The stray end, being the first call, is test_stray_end_first_call's.) */
    const rr_mark *m;
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_SHUTDOWN, NULL, &m), 1);
    ck_assert_int_eq(m->value, SCOPE_SHUTDOWN_CALL);
    rr_free(&run);
}
END_TEST

/* SCOPE_PROFILE=1 and no scope_init: the first call starts the recorder,
 * as the program's name, or as $SCOPE_ROLE. */
START_TEST(test_first_use_starts) {
    static const char *const roles[] = {NULL, "learner"};
    for (size_t i = 0; i < 2; i++) {
        char dir[4200], run_env[4300], role_env[64];
        rt_mkdir(dir, sizeof dir, "firstuse");
        snprintf(run_env, sizeof run_env, "SCOPE_RUN_DIR=%s", dir);
        snprintf(role_env, sizeof role_env, "SCOPE_ROLE=%s", roles[i] ? roles[i] : "");
        const char *env[] = {"SCOPE_PROFILE=1", run_env, roles[i] ? role_env : "SCOPE_ROLE", NULL};
        rt_opts o = {.env = env};
        char *argv[] = {(char *)rt_prog("rt_basic"), "noinit", NULL};
        run_ok(argv, &o, BASIC_OUT);
        rr_run run;
        const rr_log *log = load_one(dir, &run);
        ck_assert_str_eq(log->process.role.ptr, roles[i] ? roles[i] : "rt_basic");
        check_basic(log);
        rr_free(&run);
    }
}
END_TEST

/* Started from the environment by an earlier call, then scope_init with a
 * role: the program's role wins (a second PROCESS record supersedes the
 * first), and the run directory stays the one recording started in. */
START_TEST(test_late_init_role) {
    char dir[4200], run_env[4300];
    rt_mkdir(dir, sizeof dir, "lateinit");
    snprintf(run_env, sizeof run_env, "SCOPE_RUN_DIR=%s", dir);
    const char *env[] = {"SCOPE_PROFILE=1", run_env, NULL};
    rt_opts o = {.env = env};
    char *argv[] = {(char *)rt_prog("rt_basic"), "lateinit", "learner", NULL};
    run_ok(argv, &o, BASIC_OUT "init=0\n");
    rr_run run;
    const rr_log *log = load_one(dir, &run);
    ck_assert_str_eq(log->process.role.ptr, "learner");
    ck_assert_uint_ge(log->nprocess, 2);
    rt_expect_count(log, log->threads[0].index, "step", BASIC_STEPS);
    rt_expect_count(log, log->threads[0].index, "late", 1);
    rr_free(&run);
}
END_TEST

/* ---- names and caveats ----------------------------------------------------------- */

/* Control characters and invalid UTF-8 are data: stored byte for byte. */
START_TEST(test_odd_names_exact) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "names");
    char *argv[] = {(char *)rt_prog("rt_basic"), "names", dir, NULL};
    run_ok(argv, NULL, "");
    rr_run run;
    const rr_log *log = load_one(dir, &run);
    uint32_t t = only_thread(log);
    for (size_t i = 0; i < RT_ODD_NAMES; i++) {
        const char *name = rt_odd_names[i];
        size_t len = strlen(name);
        int found = 0;
        for (size_t s = 0; s < log->nstrings && !found; s++)
            found = rr_str_is(log, log->strings[s].id, name, len);
        ck_assert_msg(found, "no STRING record holds name %zu byte for byte", i);
        const rr_node *n = rr_child(log, t, 0, name, len);
        if (!n || !n->has_agg)
            rr_print(stderr, log);
        ck_assert_msg(n && n->has_agg && n->agg.count == 1, "name %zu: no phase with count 1", i);
        int counted = 0;
        for (size_t c = 0; c < log->ncounters; c++) {
            const rr_counter *k = &log->counters[c];
            if (k->node == n->id && rr_str_is(log, k->name, name, len))
                counted = k->calls == 1 && k->total == (int64_t)i + 1;
        }
        ck_assert_msg(counted, "name %zu: counter missing or wrong", i);
    }
    ck_assert_uint_eq(log->nnodes, RT_ODD_NAMES);
    rr_free(&run);
}
END_TEST

START_TEST(test_end_with_nothing_open) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "unbalanced");
    char *argv[] = {(char *)rt_prog("rt_basic"), "unbalanced", dir, NULL};
    run_ok(argv, NULL, "");
    rr_run run;
    const rr_log *log = load_one(dir, &run);
    rt_expect_count(log, only_thread(log), "ok", 1);
    const rr_mark *m;
    size_t n = rr_marks(log, SCOPE_MARK_UNBALANCED, NULL, &m);
    if (n != 1)
        rr_print(stderr, log);
    ck_assert_msg(n == 1, "%zu unbalanced marks, expected 1", n);
    ck_assert_msg(rr_marks(log, SCOPE_MARK_UNBALANCED, "no phase open", NULL) == 1,
                  "the unbalanced mark says '%s'", m->text.ptr);
    ck_assert_uint_eq(m->thread, only_thread(log));
    rr_free(&run);
}
END_TEST

/* An end with nothing open is a caveat even when it is the first thing a
 * thread does: in a new thread of a recording process, and as the call
 * that starts the recorder from the environment. */
START_TEST(test_stray_end_first_call) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "threadend");
    char *argv[] = {(char *)rt_prog("rt_basic"), "threadend", dir, NULL};
    run_ok(argv, NULL, "");
    rr_run run;
    const rr_log *log = load_one(dir, &run);
    const rr_thread *worker = NULL;
    for (size_t i = 0; i < log->nthreads; i++)
        if (rr_find(log, log->threads[i].index, "thread_work"))
            worker = &log->threads[i];
    ck_assert_msg(worker != NULL, "no thread recorded thread_work");
    rt_expect_count(log, worker->index, "thread_work", 1);
    const rr_mark *m;
    size_t n = rr_marks(log, SCOPE_MARK_UNBALANCED, "no phase open", &m);
    if (n != 1)
        rr_print(stderr, log);
    ck_assert_msg(n == 1,
                  "a new thread's first call was scope_phase_end(): %zu caveats, expected 1", n);
    ck_assert_uint_eq(m->thread, worker->index);
    rr_free(&run);

    char dir2[4200], run_env[4300];
    rt_mkdir(dir2, sizeof dir2, "apiend");
    snprintf(run_env, sizeof run_env, "SCOPE_RUN_DIR=%s", dir2);
    const char *env[] = {"SCOPE_PROFILE=1", run_env, NULL};
    rt_opts o = {.env = env};
    char *argv2[] = {(char *)rt_prog("rt_basic"), "api", NULL};
    run_ok(argv2, &o, "flush=0 after=0\n");
    log = load_one(dir2, &run);
    n = rr_marks(log, SCOPE_MARK_UNBALANCED, "no phase open", NULL);
    if (n != 1)
        rr_print(stderr, log);
    ck_assert_msg(n == 1,
                  "scope_phase_end() as the call that starts the recorder: %zu caveats, expected 1",
                  n);
    rr_free(&run);
}
END_TEST

/* Periodic frames may leave histograms out (docs/format.md, 5.7), but the
 * exit frame carries them, so a phase that went quiet after a few periodic
 * frames still ends with every entry in its histogram. */
START_TEST(test_histogram_complete_at_exit) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "quiet");
    const char *env[] = {"SCOPE_FRAME_INTERVAL=0.1", NULL};
    rt_opts o = {.env = env};
    char *argv[] = {(char *)rt_prog("rt_basic"), "quiet", dir, NULL};
    run_ok(argv, &o, "");
    rr_run run;
    const rr_log *log = load_one(dir, &run);
    /* The first frame, one after each burst (rt_basic waits for it), the
     * exit's. */
    ck_assert_msg(log->nframes >= 5, "only %zu frames: the bursts were not apart", log->nframes);
    rt_expect_count(log, only_thread(log), "burst", 300);
    rt_expect_counter(log, only_thread(log), "burst", "items", 300, 300);
    rr_free(&run);
}
END_TEST

START_TEST(test_open_at_exit) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "openexit");
    char *argv[] = {(char *)rt_prog("rt_basic"), "openexit", dir, NULL};
    run_ok(argv, NULL, "");
    rr_run run;
    const rr_log *log = load_one(dir, &run);
    uint32_t t = only_thread(log);
    /* The block inside it ended, so it nests under the open phase. */
    rt_expect_count(log, t, "left_open/closed", 1);
    const rr_node *open = rr_find(log, t, "left_open");
    ck_assert_ptr_nonnull(open);
    const rr_mark *m;
    size_t n = rr_marks(log, SCOPE_MARK_UNBALANCED, "still open at exit", &m);
    if (n != 1)
        rr_print(stderr, log);
    ck_assert_msg(n == 1, "%zu 'still open at exit' marks, expected 1", n);
    ck_assert_int_eq(m->value, open->id);
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_UNBALANCED, NULL, NULL), 1);
    rr_free(&run);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_api");
    TCase *tc = tcase_create("api");
    rt_fixture(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_late_init_role);
    tcase_add_test(tc, test_exits_c);
#ifndef RT_NO_CXX
    tcase_add_test(tc, test_exits_cxx);
#endif
    tcase_add_test(tc, test_static_archive);
    tcase_add_test(tc, test_two_runs_two_ids);
    tcase_add_test(tc, test_disabled_no_files);
    tcase_add_test(tc, test_first_use_starts);
    tcase_add_test(tc, test_disabled_api_noop);
    tcase_add_test(tc, test_api_then_shutdown);
    tcase_add_test(tc, test_odd_names_exact);
    tcase_add_test(tc, test_end_with_nothing_open);
    tcase_add_test(tc, test_open_at_exit);
    tcase_add_test(tc, test_stray_end_first_call);
    tcase_add_test(tc, test_histogram_complete_at_exit);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
