/* GPU figures and sync phases, against test doubles of NVML and of the
 * CUDA runtime (tests/support/fake_nvml.c, fake_cudart.c: no GPU here).
 * NVML is the stand-in named by SCOPE_NVML_LIBRARY, which the recorder
 * loads instead of any driver (so a machine with a real one still tests
 * the stand-in); the runtime is loaded by the program through
 * LD_LIBRARY_PATH.  Known utilizations and memory must come back exactly;
 * no NVML, one that fails to start, or one that claims more rows than it
 * was given room for must give no entry (or no such figure) and print
 * nothing; a sync phase drains at both ends through a runtime the program
 * loaded, and says so in a caveat when there was none. */
#include "progs/rt_common.h"
#include "rt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* busy,run,used,total,run_mem per device (fake_nvml.c says how to read
 * them): measured figures, no process sample at all, every call failing,
 * and samples of another process only. */
#define DEVICES "73,41,1000,8000,300;12,-,0,8000,-;x,x,x,x,x;50,o,5,10,-"

static const scope_gpu_figures want[] = {
    {0,
     SCOPE_GPU_BUSY | SCOPE_GPU_RUN | SCOPE_GPU_RUN_SEEN | SCOPE_GPU_MEM_USED |
         SCOPE_GPU_MEM_TOTAL | SCOPE_GPU_MEM_RUN,
     7300, 4100, 1000, 300, 8000},
    {1,
     SCOPE_GPU_BUSY | SCOPE_GPU_RUN | SCOPE_GPU_MEM_USED | SCOPE_GPU_MEM_TOTAL | SCOPE_GPU_MEM_RUN,
     1200, 0, 0, 0, 8000},
    {2, 0, 0, 0, 0, 0, 0},
    {3,
     SCOPE_GPU_BUSY | SCOPE_GPU_RUN | SCOPE_GPU_MEM_USED | SCOPE_GPU_MEM_TOTAL | SCOPE_GPU_MEM_RUN,
     5000, 0, 5, 0, 10},
};
#define NDEV (sizeof want / sizeof want[0])

/* Runs rt_gpu with these changes to its environment; returns its log.  It
 * samples every 20 ms for RT_GPU_MS, but a loaded machine may hold the
 * writer back: the exit's sample is the one every run has. */
static const rr_log *run_gpu(const char *tag, const char *const *env, rr_run *r) {
    char run[4200];
    rt_mkdir(run, sizeof run, tag);
    char *argv[] = {(char *)rt_prog("rt_gpu"), run, NULL};
    rt_proc p;
    rt_opts o = {.env = env};
    rt_run(&p, argv, &o, 60);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0 && !*err,
                  "rt_gpu %s, stderr:\n%s", rt_status(p.status), rt_tail(err));
    free(err);
    return rt_load_one(run, r);
}

/* SCOPE_NVML_LIBRARY=the stand-in, into buf. */
static const char *stand_in(char *buf, size_t cap) {
    snprintf(buf, cap, "SCOPE_NVML_LIBRARY=%s/libnvidia-ml.so.1", rt_prog("fake-nvml"));
    return buf;
}

static size_t process_records(const rr_log *log) {
    size_t n = 0;
    for (size_t i = 0; i < log->nresources; i++)
        n += log->resources[i].r.thread == 0;
    return n;
}

START_TEST(test_gpu_figures_come_back_exactly) {
    char lib[4200];
    const char *env[] = {stand_in(lib, sizeof lib), "FAKE_NVML_DEVICES=" DEVICES,
                         "SCOPE_SAMPLE_INTERVAL=0.02", NULL};
    rr_run r;
    const rr_log *log = run_gpu("gpu", env, &r);
    ck_assert_msg(process_records(log) >= 1, "%zu process records", process_records(log));
    for (size_t i = 0; i < log->nresources; i++) {
        const rr_resource *x = &log->resources[i];
        if (x->r.thread) {
            ck_assert_uint_eq(x->ngpus, 0); /* a thread's record holds its I/O only */
            continue;
        }
        ck_assert_uint_eq(x->ngpus, NDEV);
        for (size_t d = 0; d < NDEV; d++) {
            const scope_gpu_figures *g = &x->gpus[d], *w = &want[d];
            ck_assert_msg(g->index == w->index && g->present == w->present &&
                              g->busy_permyriad == w->busy_permyriad &&
                              g->run_permyriad == w->run_permyriad && g->mem_used == w->mem_used &&
                              g->mem_run == w->mem_run && g->mem_total == w->mem_total,
                          "record %zu device %zu: index %u present %#x busy %u run %u used %llu "
                          "run_mem %llu total %llu",
                          i, d, g->index, g->present, g->busy_permyriad, g->run_permyriad,
                          (unsigned long long)g->mem_used, (unsigned long long)g->mem_run,
                          (unsigned long long)g->mem_total);
        }
    }
    rr_free(&r);
}
END_TEST

/* No NVML where SCOPE_NVML_LIBRARY points (nothing else is tried then, a
 * driver at the usual paths included), and a stand-in that fails to start:
 * either way, no GPU entry and not a word on stderr (run_gpu checks it). */
START_TEST(test_no_nvml_no_gpu_block) {
    char lib[4200];
    const char *none[] = {"SCOPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1",
                          "SCOPE_SAMPLE_INTERVAL=0.02", NULL};
    const char *failing[] = {stand_in(lib, sizeof lib), "FAKE_NVML_INIT=fail",
                             "FAKE_NVML_DEVICES=" DEVICES, "SCOPE_SAMPLE_INTERVAL=0.02", NULL};
    const char *const *envs[] = {none, failing};
    for (int k = 0; k < 2; k++) {
        rr_run r;
        const rr_log *log = run_gpu(k ? "nvml-fails" : "no-nvml", envs[k], &r);
        ck_assert_msg(process_records(log) >= 1, "%zu process records", process_records(log));
        for (size_t i = 0; i < log->nresources; i++)
            ck_assert_uint_eq(log->resources[i].ngpus, 0);
        rr_free(&r);
    }
}
END_TEST

/* An NVML that claims more rows than the buffer it was given (by 2^24, or
 * UINT_MAX - 3 of them from the start, where adding room for a few more
 * wraps): the program runs on, and the figures those calls would give are
 * missing, not read past the buffer; the device's other figures stay. */
START_TEST(test_misbehaving_nvml_rows_are_refused) {
    char lib[4200];
    stand_in(lib, sizeof lib);
    static const char *const modes[] = {"FAKE_NVML_ROWS=overlong", "FAKE_NVML_ROWS=huge"};
    for (int k = 0; k < 2; k++) {
        const char *env[] = {lib, modes[k], "FAKE_NVML_DEVICES=73,41,1000,8000,300",
                             "SCOPE_SAMPLE_INTERVAL=0.02", NULL};
        rr_run r;
        const rr_log *log = run_gpu(k ? "nvml-huge" : "nvml-overlong", env, &r);
        ck_assert_msg(process_records(log) >= 1, "%zu process records", process_records(log));
        for (size_t i = 0; i < log->nresources; i++) {
            const rr_resource *x = &log->resources[i];
            if (x->r.thread)
                continue;
            ck_assert_uint_eq(x->ngpus, 1);
            const scope_gpu_figures *g = &x->gpus[0];
            ck_assert_msg(g->present ==
                                  (SCOPE_GPU_BUSY | SCOPE_GPU_MEM_USED | SCOPE_GPU_MEM_TOTAL) &&
                              g->busy_permyriad == 7300 && g->mem_used == 1000 &&
                              g->mem_total == 8000 && g->run_permyriad == 0 && g->mem_run == 0,
                          "%s, record %zu: present %#x busy %u run %u used %llu run_mem %llu "
                          "total %llu",
                          modes[k], i, g->present, g->busy_permyriad, g->run_permyriad,
                          (unsigned long long)g->mem_used, (unsigned long long)g->mem_run,
                          (unsigned long long)g->mem_total);
        }
        rr_free(&r);
    }
}
END_TEST

/* Runs rt_sync; returns its log and the syncs it printed. */
static const rr_log *run_sync(const char *mode, rr_run *r, int *syncs) {
    char run[4200], lib[4200], drain[64];
    rt_mkdir(run, sizeof run, mode);
    snprintf(lib, sizeof lib, "LD_LIBRARY_PATH=%s", rt_prog("fake-cuda"));
    snprintf(drain, sizeof drain, "FAKE_CUDART_SYNC_US=%d", RT_SYNC_DRAIN_US);
    const char *env[] = {lib, drain, NULL};
    char *argv[] = {(char *)rt_prog("rt_sync"), run, (char *)mode, NULL};
    rt_proc p;
    rt_opts o = {.env = env};
    rt_run(&p, argv, &o, 60);
    char *err = rt_stderr(&p), *out = rt_slurp(p.out_path, NULL);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0 && !*err,
                  "rt_sync %s, stderr:\n%s", rt_status(p.status), rt_tail(err));
    ck_assert_msg(sscanf(out, "syncs %d", syncs) == 1, "rt_sync printed: %s", out);
    free(err);
    free(out);
    return rt_load_one(run, r);
}

START_TEST(test_sync_drains_at_both_ends) {
    rr_run r;
    int syncs;
    const rr_log *log = run_sync("load", &r, &syncs);
    ck_assert_int_eq(syncs, 2 * RT_SYNC_ENTRIES);
    rt_expect_count(log, 1, "outer/synced", RT_SYNC_ENTRIES);
    const rr_node *outer = rr_find(log, 1, "outer"), *synced = rr_find(log, 1, "outer/synced");
    ck_assert(synced->flags & SCOPE_PHASE_F_SYNC);
    /* The exit's drain is inside the phase; the entry's is before it, on
     * the phase that was open then (what an earlier phase left queued is
     * not this one's). */
    uint64_t drain_ns = RT_SYNC_DRAIN_US * 1000ull;
    ck_assert_msg(synced->agg.min_ns >= drain_ns, "shortest sync phase %llu ns",
                  (unsigned long long)synced->agg.min_ns);
    ck_assert_msg(outer->agg.wall_ns - synced->agg.wall_ns >= RT_SYNC_ENTRIES * drain_ns,
                  "outer holds %llu ns besides its sync phases",
                  (unsigned long long)(outer->agg.wall_ns - synced->agg.wall_ns));
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_CAVEAT, NULL, NULL), 0);
    rr_free(&r);
}
END_TEST

START_TEST(test_sync_without_cuda_says_so) {
    rr_run r;
    int syncs;
    const rr_log *log = run_sync("none", &r, &syncs);
    rt_expect_count(log, 1, "outer/synced", RT_SYNC_ENTRIES);
    const rr_mark *m = NULL;
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_CAVEAT, "no CUDA", &m), 1);
    ck_assert_uint_eq(rr_marks(log, SCOPE_MARK_CAVEAT, NULL, NULL), 1);
    ck_assert_msg(strstr(m->text.ptr, "SCOPE_PHASE_SYNC"), "caveat: %s", m->text.ptr);
    rr_free(&r);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_gpu");
    TCase *tc = tcase_create("gpu");
    rt_fixture(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_gpu_figures_come_back_exactly);
    tcase_add_test(tc, test_no_nvml_no_gpu_block);
    tcase_add_test(tc, test_misbehaving_nvml_rows_are_refused);
    tcase_add_test(tc, test_sync_drains_at_both_ends);
    tcase_add_test(tc, test_sync_without_cuda_says_so);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
