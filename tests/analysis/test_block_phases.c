/*
 * A block phase closes exactly its own phase: a scope_phase_begin left open
 * inside it is closed with it (and named in a caveat), and a stray
 * scope_phase_end inside it closes nothing of the block's.  Real processes
 * (progs/an_blocks.c) whose tree is known by construction, recorded by the
 * real recorder and loaded by run_load.
 */
#define _GNU_SOURCE
#include "an_util.h"
#include "rt_util.h"
#include "run_model.h"

#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#define MS 1e6

static run_model *record(char *run, size_t cap, const char *mode) {
    rt_mkdir(run, cap, mode);
    char *argv[] = {(char *)rt_prog("an_blocks"), run, (char *)mode, NULL};
    rt_opts o = {0};
    rt_proc p;
    rt_run(&p, argv, &o, 60);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "an_blocks %s: %s", mode,
                  rt_status(p.status));
    run_model *m = NULL;
    char msg[512];
    enum run_load_error e = run_load(run, NULL, &m, msg, sizeof msg);
    ck_assert_msg(e == RUN_OK, "run_load: %s", msg);
    for (size_t i = 0; i < m->ncaveats; i++)
        fprintf(stderr, "caveat %s: %s\n", run_caveat_kind_name(m->caveats[i].kind),
                m->caveats[i].text);
    return m;
}

/* 10 x parent { blk { begin "leak" the 5th time } work { 1 ms } }: every
 * phase keeps its place and its 10 entries; only leak is new. */
START_TEST(begin_left_open_in_block) {
    char run[4200];
    run_model *m = record(run, sizeof run, "leak");
    const run_role *r = run_find_role(m, "leak");
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->root->nchildren, 1); /* parent alone at top level */
    const run_phase *parent = an_phase(m, "leak", "parent");
    const run_phase *blk = an_phase(m, "leak", "parent/blk");
    const run_phase *work = an_phase(m, "leak", "parent/work");
    const run_phase *leak = an_phase(m, "leak", "parent/blk/leak");
    ck_assert_uint_eq(parent->dist.count, 10);
    ck_assert_uint_eq(blk->dist.count, 10);
    ck_assert_uint_eq(work->dist.count, 10);
    ck_assert_uint_eq(leak->dist.count, 1);
    ck_assert_uint_eq(parent->nchildren, 2);
    ck_assert_uint_eq(blk->nchildren, 1);
    ck_assert_uint_eq(work->nchildren, 0);
    /* Ten sleeps of at least 1 ms, and the parent covers its children. */
    ck_assert_uint_ge(work->dist.total_ns, (uint64_t)(10 * MS));
    ck_assert_uint_ge(parent->dist.total_ns, work->dist.total_ns + blk->dist.total_ns);
    ck_assert_double_le(parent->share, 1.0);
    ck_assert_uint_eq(m->workers[0].unbalanced, 1);
    ck_assert_uint_eq(an_caveats_with(m, "scope_phase_begin(\"leak\") left open inside the block "
                                         "of phase \"blk\""),
                      1);
    run_free(m);
}
END_TEST

/* outer { blk { 2 ms; scope_phase_end(); 3 ms } }: blk holds all 5 ms. */
START_TEST(stray_end_in_block) {
    char run[4200];
    run_model *m = record(run, sizeof run, "stray");
    const run_phase *outer = an_phase(m, "stray", "outer");
    const run_phase *blk = an_phase(m, "stray", "outer/blk");
    ck_assert_uint_eq(outer->dist.count, 1);
    ck_assert_uint_eq(blk->dist.count, 1);
    ck_assert_msg(blk->dist.total_ns >= 5 * MS, "blk %.3f ms, not the 5 ms it ran",
                  blk->dist.total_ns / MS);
    ck_assert_uint_ge(outer->dist.total_ns, blk->dist.total_ns);
    ck_assert_uint_eq(m->workers[0].unbalanced, 1);
    ck_assert_uint_eq(an_caveats_with(m, "scope_phase_end() with no phase open of its own"), 1);
    run_free(m);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("block_phases");
    TCase *tc = tcase_create("block_phases");
    rt_fixture(tc);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, begin_left_open_in_block);
    tcase_add_test(tc, stray_end_in_block);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
