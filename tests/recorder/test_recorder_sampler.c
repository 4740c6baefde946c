/* The resource sampler (SCOPE_SAMPLE_INTERVAL) against programs that move
 * known bytes (progs/rt_sample.c): each thread's bytes reach the phase open
 * on that thread at an interval's start, bytes with no phase open reach no
 * phase, the process's records hold the program's bytes exactly and none
 * of the recorder's own log writes, intervals whose counters cannot be read
 * are dropped and counted (never differenced across), and the last sample
 * at a flush, a signal or the exit makes the totals run to the end, in a
 * forked child too. */
#include "progs/rt_common.h"
#include "rt_util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define INTERVAL "0.02"

#define IO_BITS                                                                                    \
    (SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ | SCOPE_RES_CHAR_WRITE)

/* write_bytes counts the pages a thread dirties, and an fsync may dirty a
 * block of the file system's own metadata on the way, which the kernel
 * charges to the same thread: exact to within these few pages. */
#define METADATA_SLACK (16u * 4096u)

#define assert_disk_write(got, want)                                                               \
    ck_assert_msg((got) >= (want) && (got) <= (want) + METADATA_SLACK,                             \
                  "%s: %llu bytes written to disk, expected %llu", #got,                           \
                  (unsigned long long)(got), (unsigned long long)(want))

typedef struct sums {
    uint64_t records, dropped, disk_read, disk_write, char_read, char_write;
    uint64_t unmeasured; /* records with their I/O bits clear */
} sums;

/* Sums the records of `thread` (0: the process's), of node `node` (or any
 * node when node is UINT32_MAX). */
static sums sum_of(const rr_log *log, uint32_t thread, uint32_t node) {
    sums s = {0};
    for (size_t i = 0; i < log->nresources; i++) {
        const scope_rec_resource *r = &log->resources[i].r;
        if (r->thread != thread || (node != UINT32_MAX && r->node != node))
            continue;
        s.records++;
        if ((r->present & IO_BITS) != IO_BITS) {
            ck_assert_msg(!(r->present & IO_BITS) && !r->disk_read && !r->disk_write &&
                              !r->char_read && !r->char_write,
                          "I/O figures without their bits");
            s.unmeasured++;
            continue;
        }
        s.dropped += r->dropped;
        s.disk_read += r->disk_read;
        s.disk_write += r->disk_write;
        s.char_read += r->char_read;
        s.char_write += r->char_write;
    }
    return s;
}

static uint32_t thread_index(const rr_log *log, const char *name) {
    const rr_thread *t = rr_thread_named(log, name);
    if (!t)
        rr_print(stderr, log);
    ck_assert_msg(t != NULL, "no thread %s", name);
    return t->index;
}

static uint32_t node_id(const rr_log *log, uint32_t thread, const char *path) {
    const rr_node *n = rr_find(log, thread, path);
    ck_assert_msg(n != NULL, "no phase %s on thread %u", path, thread);
    return n->id;
}

/* Runs rt_sample in mode `mode`; returns its run directory in run. */
static void run_sample(char *run, size_t cap, const char *mode, rt_proc *p, int pipe_out) {
    char disk[4200];
    rt_mkdir(run, cap, mode);
    rt_mkdir(disk, sizeof disk, "disk");
    const char *env[] = {"SCOPE_SAMPLE_INTERVAL=" INTERVAL, NULL};
    char *argv[] = {(char *)rt_prog("rt_sample"), run, disk, (char *)mode, NULL};
    rt_opts o = {.env = env, .stdout_pipe = pipe_out};
    rt_spawn(p, argv, &o);
}

static void expect_exit0(rt_proc *p) {
    ck_assert_msg(rt_wait(p, 120) == 0, "rt_sample did not end");
    char *err = rt_stderr(p);
    ck_assert_msg(WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0 && !*err, "rt_sample %s:\n%s",
                  rt_status(p->status), rt_tail(err));
    free(err);
}

START_TEST(test_bytes_go_to_the_thread_that_moved_them) {
    char run[4200];
    rt_proc p;
    run_sample(run, sizeof run, "threads", &p, 0);
    expect_exit0(&p);
    rr_run r;
    const rr_log *log = rt_load_one(run, &r);
    uint32_t w = thread_index(log, "rt-s-writer"), rd = thread_index(log, "rt-s-reader");

    /* The writer's bytes: inside its phase, then with none open. */
    sums in = sum_of(log, w, node_id(log, w, "write_phase"));
    sums loose = sum_of(log, w, 0);
    sums all = sum_of(log, w, UINT32_MAX);
    ck_assert_uint_eq(in.char_write, RT_S_PHASE);
    assert_disk_write(in.disk_write, RT_S_PHASE);
    ck_assert_uint_eq(loose.char_write, RT_S_LOOSE);
    ck_assert_uint_eq(all.char_write, RT_S_PHASE + RT_S_LOOSE);
    ck_assert_uint_eq(all.char_read, 0);
    /* The reader's, from the page cache, none on the writer's phase. */
    sums rin = sum_of(log, rd, node_id(log, rd, "read_phase"));
    ck_assert_uint_eq(rin.char_read, RT_S_READ);
    ck_assert_uint_eq(rin.disk_read, 0);
    ck_assert_uint_eq(sum_of(log, rd, UINT32_MAX).char_write, 0);
    /* The process: exactly the program's bytes, none of the log's writes,
     * none of the sampler's reads of /proc, nothing dropped. */
    sums proc = sum_of(log, 0, UINT32_MAX);
    ck_assert_uint_eq(proc.char_write, RT_S_PHASE + RT_S_LOOSE);
    assert_disk_write(proc.disk_write, RT_S_PHASE + RT_S_LOOSE);
    ck_assert_uint_eq(proc.char_read, RT_S_READ);
    ck_assert_uint_eq(proc.dropped + all.dropped + proc.unmeasured, 0);
    /* Process records with RSS and CPU time, for intervals that follow
     * each other (how many depends on how often a loaded machine let the
     * writer run: the flush's and the exit's at least). */
    ck_assert_msg(proc.records >= 2, "%llu process records", (unsigned long long)proc.records);
    uint64_t end = 0;
    for (size_t i = 0; i < log->nresources; i++) {
        const scope_rec_resource *x = &log->resources[i].r;
        if (x->thread)
            continue;
        ck_assert_msg(
            (x->present &
             (SCOPE_RES_RSS | SCOPE_RES_RSS_PEAK | SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS)) ==
                    (SCOPE_RES_RSS | SCOPE_RES_RSS_PEAK | SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS) &&
                x->rss > 0 && x->rss_peak >= x->rss && x->ngpus == 0,
            "process record %zu: present %#x rss %llu peak %llu", i, x->present,
            (unsigned long long)x->rss, (unsigned long long)x->rss_peak);
        ck_assert_msg(!end || x->mono_ns == end, "a gap between intervals");
        end = x->mono_ns + x->interval_ns;
    }
    /* The flush's own sample sits in the frame closed for it. */
    int in_flush = 0;
    for (size_t i = 0; i < log->nresources; i++)
        in_flush |= log->resources[i].frame_reason == SCOPE_FRAME_FLUSH;
    ck_assert_msg(in_flush, "no sample in the flush's frame");
    rr_free(&r);
}
END_TEST

START_TEST(test_unreadable_intervals_are_dropped) {
    char run[4200];
    rt_proc p;
    run_sample(run, sizeof run, "dropped", &p, 0);
    expect_exit0(&p);
    rr_run r;
    const rr_log *log = rt_load_one(run, &r);
    uint32_t t = thread_index(log, "rt-s-nofd");
    /* Its counters could not be opened while it wrote RT_S_PHASE bytes:
     * those intervals are dropped and counted, and never differenced
     * across, so only the bytes after them are in its records. */
    sums s = sum_of(log, t, UINT32_MAX);
    ck_assert_uint_eq(s.char_write, RT_S_MARK);
    ck_assert_msg(s.dropped >= 2, "%llu intervals dropped", (unsigned long long)s.dropped);
    rr_free(&r);
}
END_TEST

START_TEST(test_sigterm_takes_a_last_sample) {
    char run[4200];
    rt_proc p;
    run_sample(run, sizeof run, "sigterm", &p, 1);
    ck_assert_int_eq(rt_wait_line(p.out_fd, "ready", 60), 0);
    kill(p.pid, SIGTERM);
    ck_assert_int_eq(rt_wait(&p, 60), 0);
    ck_assert_msg(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGTERM, "rt_sample %s",
                  rt_status(p.status));
    rr_run r;
    const rr_log *log = rt_load_one(run, &r);
    ck_assert_uint_eq(sum_of(log, 0, UINT32_MAX).char_write, RT_S_PHASE + 6 /* "ready\n" */);
    int in_signal = 0;
    for (size_t i = 0; i < log->nresources; i++)
        in_signal |= log->resources[i].frame_reason == SCOPE_FRAME_SIGNAL;
    ck_assert_msg(in_signal, "no sample in the signal's frame");
    rr_free(&r);
}
END_TEST

/* The child starts a writer thread of its own, and ThreadSanitizer ends a
 * child that starts a thread after the fork of a threaded process
 * (scripts/test.sh leaves test_recorder_fork out for the same reason). */
#if defined(__SANITIZE_THREAD__)
#define RT_TSAN 1
#else
#define RT_TSAN 0
#endif

#if !RT_TSAN
START_TEST(test_forked_child_samples_its_own) {
    char run[4200];
    rt_proc p;
    run_sample(run, sizeof run, "fork", &p, 0);
    expect_exit0(&p);
    rr_run r;
    ck_assert_int_eq(rr_load(run, &r), 2);
    const rr_log *parent = NULL, *child = NULL;
    for (size_t i = 0; i < r.nlogs; i++)
        *(rr_find(&r.logs[i], 1, "child_work") ? &child : &parent) = &r.logs[i];
    ck_assert(parent && child);
    rt_assert_clean(parent);
    rt_assert_clean(child);
    /* Each process its own bytes: the child's from the fork on.  The
     * parent's interval in which it reaped the child holds the child's
     * bytes too, as the kernel counts them: not measured. */
    sums ps = sum_of(parent, 0, UINT32_MAX);
    ck_assert_uint_eq(ps.char_write, RT_S_LOOSE);
    ck_assert_uint_eq(ps.unmeasured, 1);
    ck_assert_uint_eq(sum_of(child, 0, UINT32_MAX).unmeasured, 0);
    ck_assert_uint_eq(sum_of(child, 0, UINT32_MAX).char_write, RT_S_PHASE);
    ck_assert_uint_eq(sum_of(child, 1, UINT32_MAX).char_write, RT_S_PHASE);
    rr_free(&r);
}
END_TEST
#endif

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_sampler");
    TCase *tc = tcase_create("sampler");
    rt_fixture(tc);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, test_bytes_go_to_the_thread_that_moved_them);
    tcase_add_test(tc, test_unreadable_intervals_are_dropped);
    tcase_add_test(tc, test_sigterm_takes_a_last_sample);
#if !RT_TSAN
    tcase_add_test(tc, test_forked_child_samples_its_own);
#endif
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
