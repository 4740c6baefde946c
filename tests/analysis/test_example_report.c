/*
 * The report's figures for the bundled example pipeline, held to what the
 * pipeline itself says it did: the learner prints every process's totals
 * at the end, and the model loaded from its logs must agree exactly on
 * counts and counters, and on the shape a reader relies on (roles, the
 * phase tree, imbalance from actors of unequal speed).
 *
 * Argument: the directory holding scope-example-pipeline.
 */
#define _GNU_SOURCE
#include "an_util.h"
#include "rt_util.h"
#include "run_model.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <scope/log_format.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct said {
    long iterations, samples, checkpoints, ckpt_bytes;
    long actors, games, positions, sims;
} said;

START_TEST(example_report_matches_the_program) {
    char run[4200];
    rt_mkdir(run, sizeof run, "example");
    strcat(run, "/run");
    char *argv[] = {(char *)rt_prog("scope-example-pipeline"), "--quick", "--run-dir", run, NULL};
    rt_proc p;
    rt_opts o = {0};
    rt_run(&p, argv, &o, rt_sanitized() ? 300 : 120);
    char *out = rt_slurp(p.out_path, NULL);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "pipeline %s: %s",
                  rt_status(p.status), rt_tail(out));

    said s = {0};
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        long a, b, c, d;
        if (sscanf(line, "learner: %ld iterations, %ld samples_trained, %ld checkpoints, %ld", &a,
                   &b, &c, &d) == 4)
            s.iterations = a, s.samples = b, s.checkpoints = c, s.ckpt_bytes = d;
        else if (sscanf(line, "actors: %ld, %ld games, %ld positions, %ld", &a, &b, &c, &d) == 4)
            s.actors = a, s.games = b, s.positions = c, s.sims = d;
    }
    free(out);
    ck_assert_msg(s.iterations > 0 && s.actors > 0, "the pipeline's summary was not found");

    run_model *m = NULL;
    char msg[512];
    ck_assert_msg(run_load(run, NULL, &m, msg, sizeof msg) == RUN_OK, "%s", msg);
    for (size_t i = 0; i < m->ncaveats; i++)
        fprintf(stderr, "caveat: %s\n", m->caveats[i].text);
    ck_assert_uint_eq(m->ncaveats, 0);
    ck_assert_uint_eq(m->nattempts, 1);
    ck_assert_uint_eq(m->nprocs, (size_t)s.actors + 1);
    ck_assert_uint_eq(m->nhosts, 1);
    const run_role *actor = run_find_role(m, "actor");
    const run_role *learner = run_find_role(m, "learner");
    ck_assert_uint_eq(actor->nprocs, (size_t)s.actors);
    ck_assert_uint_eq(learner->nprocs, 1);

    /* The learner: one iteration per loop, a checkpoint every tenth. */
    ck_assert_uint_eq(an_phase(m, "learner", "iteration")->dist.count, (uint64_t)s.iterations);
    ck_assert_uint_eq(an_phase(m, "learner", "iteration/train")->dist.count,
                      (uint64_t)s.iterations);
    ck_assert_uint_eq(an_phase(m, "learner", "iteration/load_batch")->dist.count,
                      (uint64_t)s.iterations);
    const run_phase *ck = an_phase(m, "learner", "iteration/checkpoint");
    ck_assert_uint_eq(ck->dist.count, (uint64_t)s.checkpoints);
    ck_assert_int_eq(an_counter(ck, "bytes_checkpointed")->total, s.ckpt_bytes);
    /* Opened with SCOPE_PHASE_IO: every checkpoint's bytes, measured on
     * the learner's own thread, and the progress line it prints, when
     * stdio's buffer (4 KiB at most here) went out then. */
    ck_assert(ck->flags & SCOPE_PHASE_F_IO);
    ck_assert(ck->io_measured);
    ck_assert_uint_eq(ck->io_count, (uint64_t)s.checkpoints);
    ck_assert_uint_eq(ck->io_failed, 0);
    ck_assert_msg(ck->char_write >= (uint64_t)s.ckpt_bytes &&
                      ck->char_write <= (uint64_t)s.ckpt_bytes + 4096u * (uint64_t)s.checkpoints,
                  "checkpoint wrote %llu bytes, the learner says %ld",
                  (unsigned long long)ck->char_write, s.ckpt_bytes);
    ck_assert_int_eq(
        an_counter(an_phase(m, "learner", "iteration/train"), "samples_trained")->total, s.samples);
    ck_assert(learner->has_iterations);
    ck_assert_uint_eq(learner->iterations.count, (uint64_t)s.iterations);

    /* The actors: a game per iteration each, every move a search. */
    const run_phase *sp = an_phase(m, "actor", "iteration/self_play");
    const run_phase *mcts = an_phase(m, "actor", "iteration/self_play/mcts");
    ck_assert_int_eq(an_counter(sp, "games")->total, s.games);
    ck_assert_int_eq(an_counter(sp, "positions")->total, s.positions);
    ck_assert_int_eq(an_counter(mcts, "mcts_simulations")->total, s.sims);
    ck_assert_uint_eq(mcts->dist.count, (uint64_t)s.positions);
    ck_assert_uint_eq(an_phase(m, "actor", "iteration/self_play/env_step")->dist.count,
                      (uint64_t)s.positions);
    ck_assert_uint_eq(mcts->nprocs, (size_t)s.actors);
    /* Rates are per second of the phase's own time. */
    ck_assert_double_eq_tol(an_counter(mcts, "mcts_simulations")->rate_per_s,
                            (double)s.sims / ((double)mcts->dist.total_ns / 1e9), 1e-6);

    /* Actor i searches 1 + 0.3 i times as much, but the actors run side by
     * side: on a loaded machine which of them took longest is the
     * scheduler's, so only what holds whatever it did is asked here (the
     * figures against each process's own times are test_analysis's). */
    ck_assert_msg(actor->imbalance >= 1.0 && isfinite(actor->imbalance), "imbalance %.3f",
                  actor->imbalance);
    ck_assert_msg(mcts->spread_max_ns >= mcts->spread_median_ns &&
                      mcts->spread_median_ns >= mcts->spread_min_ns && mcts->spread_min_ns > 0,
                  "spread %.0f/%.0f/%.0f", mcts->spread_min_ns, mcts->spread_median_ns,
                  mcts->spread_max_ns);
    /* mcts dominates the actors; shares add up under their parent. */
    ck_assert_ptr_eq(actor->dominant[0], mcts);
    ck_assert(mcts->share <= sp->share + 1e-12);
    run_free(m);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("example");
    TCase *tc = tcase_create("report");
    rt_fixture(tc);
    tcase_set_timeout(tc, 400);
    tcase_add_test(tc, example_report_matches_the_program);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
