/* Off-CPU time split into blocked and queued (docs/format.md 7.2), held to
 * the truth of a run: rt_queued spins 30 ms and sleeps 20 ms at a time,
 * alone and then beside two busy loops on its one CPU, and measures each
 * block itself from its thread's CPU clock and schedstat run delay.
 *
 *   - the spinner never blocks: blocked (wait - queued) at most 5 points
 *     above what the host took from it unseen by its clocks (steal time on
 *     a VM, which it measures itself), and its queued share within 5 points
 *     of the run delay it measured;
 *   - the sleeper's blocked share within 5 points of what it measured, and
 *     at least 90% wherever it measured 95% or more (a loaded CPU adds its
 *     wait after each wake-up: queued, not blocked).
 *
 * Both from the log's PHASE_AGG records and from `scope-tui report --json`
 * (the model's figures), the browser's column and detail pane; the text
 * report's header line (and compare's run line) on a loaded host where the
 * run's own run delay was 15% of its time or more.  Registered RUN_SERIAL:
 * its busy loops share a CPU. */
#include "rt_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define REPEATS 10

static const char *scope_tui;

typedef struct truth {
    double wall, cpu, delay;
} truth;

/* wait and queued of a phase from its aggregate, as shares of 1. */
static void log_shares(const rr_log *log, const char *path, double *wait, double *queued) {
    const rr_node *n = rr_find(log, log->threads[0].index, path);
    ck_assert_msg(n && n->has_agg, "no aggregate for %s", path);
    ck_assert_uint_eq(n->agg.count, REPEATS);
    /* 20 ms and more: the adaptive rule reads CPU time, and the run delay
     * with it, on every entry. */
    ck_assert_msg(n->agg.cpu_count == REPEATS && n->agg.delay_count == REPEATS,
                  "%s: CPU time read on %llu, run delay on %llu of %d entries", path,
                  (unsigned long long)n->agg.cpu_count, (unsigned long long)n->agg.delay_count,
                  REPEATS);
    *wait = 1.0 - (double)n->agg.cpu_ns / (double)n->agg.cpu_wall_ns;
    *queued = (double)n->agg.delay_ns / (double)n->agg.delay_wall_ns;
}

/* The number after "key": in the phase object named `name` of the report's
 * JSON (its figures follow its name); NAN when absent or null. */
static double json_figure(const char *json, const char *name, const char *key) {
    char want[64], k[64];
    snprintf(want, sizeof want, "\"name\":\t\"%s\"", name);
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *at = strstr(json, want);
    ck_assert_msg(at != NULL, "no phase %s in the report's JSON", name);
    const char *next = strstr(at + strlen(want), "\"name\":");
    const char *v = strstr(at, k);
    if (!v || (next && v > next))
        return NAN;
    char *end;
    double d = strtod(v + strlen(k), &end);
    return end == v + strlen(k) ? NAN : d;
}

static void check_round(int busy) {
    char dir[4200], nbusy[8], repeats[16];
    rt_mkdir(dir, sizeof dir, busy ? "loaded" : "quiet");
    snprintf(nbusy, sizeof nbusy, "%d", busy);
    snprintf(repeats, sizeof repeats, "%d", REPEATS);
    char *argv[] = {(char *)rt_prog("rt_queued"), dir, nbusy, repeats, NULL};
    rt_proc p;
    rt_run(&p, argv, NULL, 120);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "rt_queued %s",
                  rt_status(p.status));
    char *out = rt_slurp(p.out_path, NULL);
    truth spin, sleep;
    ck_assert_msg(sscanf(out, "spin %lf %lf %lf\nsleep %lf %lf %lf", &spin.wall, &spin.cpu,
                         &spin.delay, &sleep.wall, &sleep.cpu, &sleep.delay) == 6,
                  "rt_queued printed:\n%s", out);
    free(out);
    double own_spin_q = spin.delay / spin.wall;
    double own_sleep_b = 1.0 - sleep.cpu / sleep.wall - sleep.delay / sleep.wall;

    rr_run run;
    ck_assert_int_eq(rr_load(dir, &run), 1);
    const rr_log *log = &run.logs[0];
    rt_assert_clean(log);
    double spin_w, spin_q, sleep_w, sleep_q;
    log_shares(log, "spin", &spin_w, &spin_q);
    log_shares(log, "sleep", &sleep_w, &sleep_q);
    rr_free(&run);

    char *rargv[] = {(char *)scope_tui, "report", "--json", dir, NULL};
    rt_proc r;
    rt_run(&r, rargv, NULL, 60);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "report --json %s",
                  rt_status(r.status));
    char *json = rt_slurp(r.out_path, NULL);
    double j_spin_w = json_figure(json, "spin", "wait"),
           j_spin_q = json_figure(json, "spin", "queued");
    double j_sleep_w = json_figure(json, "sleep", "wait"),
           j_sleep_q = json_figure(json, "sleep", "queued");
    free(json);

    fprintf(stderr,
            "%d busy loops: spin wait %.1f%% queued %.1f%% blocked %.1f%% (measured queued "
            "%.1f%%); sleep wait %.1f%% queued %.1f%% blocked %.1f%% (measured blocked %.1f%%); "
            "report --json spin queued %.1f%%, sleep queued %.1f%%; the spinner's time unseen "
            "by its clocks %.1f%%\n",
            busy, 100 * spin_w, 100 * spin_q, 100 * (spin_w - spin_q), 100 * own_spin_q,
            100 * sleep_w, 100 * sleep_q, 100 * (sleep_w - sleep_q), 100 * own_sleep_b,
            100 * j_spin_q, 100 * j_sleep_q, 100 * (1.0 - spin.cpu / spin.wall - own_spin_q));

    /* The model carries the log's figures (queued clamped to wait). */
    ck_assert_msg(!isnan(j_spin_q) && !isnan(j_sleep_q), "report --json has no queued share");
    ck_assert_msg(fabs(j_spin_w - spin_w) < 0.01 && fabs(j_spin_q - fmin(spin_q, spin_w)) < 0.01,
                  "report --json spin: wait %.3f queued %.3f, the log %.3f %.3f", j_spin_w,
                  j_spin_q, spin_w, spin_q);
    ck_assert_msg(fabs(j_sleep_w - sleep_w) < 0.01 &&
                      fabs(j_sleep_q - fmin(sleep_q, sleep_w)) < 0.01,
                  "report --json sleep: wait %.3f queued %.3f, the log %.3f %.3f", j_sleep_w,
                  j_sleep_q, sleep_w, sleep_q);
    /* The spinner: its off-CPU time is queued, but for what the host took
     * from it unseen by either clock (a VM's steal time, interrupts): the
     * program measures that share itself, and blocked may exceed it by at
     * most 5 points. */
    double own_spin_unseen = 1.0 - spin.cpu / spin.wall - own_spin_q;
    ck_assert_msg(j_spin_w - j_spin_q <= 0.05 + fmax(own_spin_unseen, 0),
                  "a spinning phase reads blocked %.1f%% (%.1f%% unseen by its clocks)",
                  100 * (j_spin_w - j_spin_q), 100 * own_spin_unseen);
    ck_assert_msg(fabs(spin_q - own_spin_q) <= 0.05,
                  "spin: queued %.1f%%, the program measured a run delay of %.1f%%", 100 * spin_q,
                  100 * own_spin_q);
    /* The sleeper: blocked as it measured, close to 100% where it was. */
    ck_assert_msg(fabs((sleep_w - sleep_q) - own_sleep_b) <= 0.05,
                  "sleep: blocked %.1f%%, the program measured %.1f%%", 100 * (sleep_w - sleep_q),
                  100 * own_sleep_b);
    if (own_sleep_b >= 0.95)
        ck_assert_msg(j_sleep_w - j_sleep_q >= 0.90, "a sleeping phase reads blocked %.1f%%",
                      100 * (j_sleep_w - j_sleep_q));
    /* The text report's header says the host was loaded where the run
     * delay says so (10% or more of the phases' time), and not where it
     * was far below that. */
    char *targv[] = {(char *)scope_tui, "report", dir, NULL};
    rt_run(&r, targv, NULL, 60);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "report %s",
                  rt_status(r.status));
    char *text = rt_slurp(r.out_path, NULL);
    int loaded_line = strstr(text, "Loaded host") != NULL;
    free(text);
    char *cargv[] = {(char *)scope_tui, "compare", dir, dir, NULL};
    rt_run(&r, cargv, NULL, 60);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "compare %s",
                  rt_status(r.status));
    text = rt_slurp(r.out_path, NULL);
    int compare_says = strstr(text, "loaded host:") != NULL;
    free(text);
    /* The browser: the column, and the detail pane beside wait. */
    char *bargv[] = {(char *)scope_tui, dir, "--size", "120x30", "--keys", "j", "--print", NULL};
    rt_run(&r, bargv, NULL, 60);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "scope-tui %s",
                  rt_status(r.status));
    text = rt_slurp(r.out_path, NULL);
    ck_assert_msg(strstr(text, "  queued  ") && strstr(text, "%   queued "),
                  "the browser shows no queued column or detail:\n%s", text);
    free(text);
    ck_assert_msg(compare_says == loaded_line, "report %s a loaded host, compare %s",
                  loaded_line ? "says" : "does not say", compare_says ? "does" : "does not");
    double own_q = (spin.delay + sleep.delay) / (spin.wall + sleep.wall);
    if (own_q >= 0.15)
        ck_assert_msg(loaded_line, "%.1f%% of the time queued, and no 'Loaded host' line",
                      100 * own_q);
    if (own_q <= 0.05)
        ck_assert_msg(!loaded_line, "%.1f%% of the time queued, and a 'Loaded host' line",
                      100 * own_q);
    if (busy)
        ck_assert_msg(own_spin_q > 0.2, "two busy loops on its CPU left the spinner %.1f%% queued",
                      100 * own_spin_q);
}

START_TEST(test_quiet) {
    check_round(0);
}
END_TEST

START_TEST(test_two_busy_loops) {
    check_round(2);
}
END_TEST

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s PROGS_DIR SCOPE_TUI\n", argv[0]);
        return 2;
    }
    scope_tui = argv[2];
    char *args[] = {argv[0], argv[1], NULL};
    rt_args(2, args);
    Suite *s = suite_create("recorder_queued");
    TCase *tc = tcase_create("queued");
    rt_fixture(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_quiet);
    tcase_add_test(tc, test_two_busy_loops);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
