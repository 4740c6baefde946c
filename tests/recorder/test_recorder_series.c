/* The resource series a snapshot carries (RESOURCE_SERIES, docs/format.md
 * 5.19) against the RESOURCE records of the same real program
 * (progs/rt_sample.c), exited and killed by a signal: at every frame that
 * holds series, each figure's series holds exactly the process records of
 * the frames before it in which the figure was measured: the same count,
 * sums, minimum and maximum, each interval in the bucket of its start.
 * Snapshot frames carry the series (docs/format.md 5.2.1); the writer
 * writes one after each frame closed for a flush, the exit or a signal. */
#include "progs/rt_common.h"
#include "rt_util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define INTERVAL "0.02"
#define NFIG     8

/* A process record's value of SCOPE_SERIES_RSS + k, and whether measured. */
static int figure_of(const scope_rec_resource *r, unsigned k, uint64_t *v) {
    static const uint32_t bit[NFIG] = {
        SCOPE_RES_RSS,        SCOPE_RES_CPU_USER,  SCOPE_RES_CPU_SYS,    SCOPE_RES_DISK_READ,
        SCOPE_RES_DISK_WRITE, SCOPE_RES_CHAR_READ, SCOPE_RES_CHAR_WRITE, SCOPE_RES_RSS_PEAK};
    const uint64_t val[NFIG] = {r->rss,        r->cpu_user_ns, r->cpu_sys_ns, r->disk_read,
                                r->disk_write, r->char_read,   r->char_write, r->rss_peak};
    *v = val[k];
    return (r->present & bit[k]) != 0;
}

typedef struct interval {
    uint64_t mono_ns, interval_ns;
} interval;

/* Checks one series against the process records read before it. */
static void check_series(const scope_rec_resource_series *s, const interval *iv, size_t n,
                         const scope_rec_resource *const *recs) {
    ck_assert_uint_eq(s->thread, 0);
    ck_assert_uint_ge(s->figure, SCOPE_SERIES_RSS);
    ck_assert_uint_le(s->figure, SCOPE_SERIES_RSS_PEAK);
    unsigned k = s->figure - SCOPE_SERIES_RSS;
    ck_assert_uint_gt(s->bucket_ns, 0);
    scope_series_bucket *want = calloc(s->nbuckets ? s->nbuckets : 1, sizeof *want);
    ck_assert_ptr_nonnull(want);
    uint64_t count = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        if (!figure_of(recs[i], k, &v))
            continue;
        ck_assert_uint_ge(iv[i].mono_ns, s->start_mono_ns);
        uint64_t b = (iv[i].mono_ns - s->start_mono_ns) / s->bucket_ns;
        ck_assert_msg(b < s->nbuckets, "figure %u: interval at %llu past the last bucket",
                      s->figure, (unsigned long long)iv[i].mono_ns);
        scope_series_bucket *w = &want[b];
        if (!w->samples || v < w->min)
            w->min = v;
        if (!w->samples || v > w->max)
            w->max = v;
        w->samples++;
        w->covered_ns += iv[i].interval_ns;
        w->sum += v;
        count++;
    }
    ck_assert_uint_eq(s->samples_total, count);
    for (uint32_t b = 0; b < s->nbuckets; b++) {
        const scope_series_bucket *g = &s->buckets[b];
        ck_assert_msg(g->samples == want[b].samples && g->covered_ns == want[b].covered_ns &&
                          g->sum == want[b].sum && g->min == want[b].min && g->max == want[b].max,
                      "figure %u bucket %u: %llu samples sum %llu, the records: %llu sum %llu",
                      s->figure, b, (unsigned long long)g->samples, (unsigned long long)g->sum,
                      (unsigned long long)want[b].samples, (unsigned long long)want[b].sum);
    }
    free(want);
}

/* Reads the log, checking every series against the records before it.
 * Returns the number of frames with series; *records the process records. */
static unsigned check_log(const char *path, size_t *records, uint64_t *char_write) {
    char msg[256];
    scope_log_reader *r;
    ck_assert_msg(scope_log_reader_open(&r, path, msg, sizeof msg) == 0, "%s: %s", path, msg);
    size_t n = 0, cap = 0;
    scope_rec_resource **recs = NULL;
    interval *iv = NULL;
    unsigned series_frames = 0;
    *char_write = 0;
    scope_rec_frame fr;
    uint64_t off;
    while (scope_log_reader_next_frame(r, &fr, &off) == 1) {
        scope_record rec;
        int nseries = 0, nevents = 0;
        while (scope_log_reader_next_record(r, &rec) == 1) {
            if (rec.type == SCOPE_REC_RESOURCE && !rec.u.resource.thread) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 256;
                    recs = realloc(recs, cap * sizeof *recs);
                    iv = realloc(iv, cap * sizeof *iv);
                    ck_assert(recs && iv);
                }
                recs[n] = malloc(sizeof *recs[n]);
                ck_assert_ptr_nonnull(recs[n]);
                *recs[n] = rec.u.resource;
                recs[n]->gpus = NULL;
                recs[n]->ngpus = 0;
                iv[n] = (interval){rec.u.resource.mono_ns, rec.u.resource.interval_ns};
                if (rec.u.resource.present & SCOPE_RES_CHAR_WRITE)
                    *char_write += rec.u.resource.char_write;
                n++;
                nevents++;
            } else if (rec.type == SCOPE_REC_RESOURCE) {
                nevents++;
            } else if (rec.type == SCOPE_REC_RESOURCE_SERIES) {
                /* Records of this frame are not in the series: no frame
                 * holds both. */
                check_series(&rec.u.resource_series, iv, n,
                             (const scope_rec_resource *const *)recs);
                nseries++;
            }
        }
        ck_assert_msg(!(nseries && nevents), "frame %llu holds series and %d RESOURCE records",
                      (unsigned long long)fr.seq, nevents);
        if (nseries) {
            /* Every figure the process measured: rss, its peak, CPU, I/O. */
            ck_assert_int_eq(nseries, NFIG);
            series_frames++;
        }
    }
    ck_assert_uint_eq(scope_log_reader_damage_count(r), 0);
    scope_log_reader_close(r);
    for (size_t i = 0; i < n; i++)
        free(recs[i]);
    free(recs);
    free(iv);
    *records = n;
    return series_frames;
}

/* Process records (thread 0) in the frames of the one log in dir so far. */
static size_t process_records_on_disk(const char *dir) {
    char path[4400];
    if (rr_list(dir, path, sizeof path) < 1)
        return 0;
    rr_log log;
    rr_load_file(path, &log);
    size_t n = 0;
    for (size_t i = 0; i < log.nresources; i++)
        n += log.resources[i].r.thread == 0;
    rr_log_free(&log);
    return n;
}

static void run_sample(char *run, size_t cap, const char *mode, rt_proc *p) {
    char disk[4200];
    rt_mkdir(run, cap, mode);
    rt_mkdir(disk, sizeof disk, "disk");
    /* Frames every 50 ms, so that a driver can see the intervals on disk. */
    const char *env[] = {"SCOPE_SAMPLE_INTERVAL=" INTERVAL, "SCOPE_FRAME_INTERVAL=0.05", NULL};
    char *argv[] = {(char *)rt_prog("rt_sample"), run, disk, (char *)mode, NULL};
    rt_opts o = {.env = env, .stdout_pipe = 1};
    rt_spawn(p, argv, &o);
}

/* Exited: a flush and the exit, each followed by series. */
START_TEST(test_series_of_an_exited_program) {
    char run[4200];
    rt_proc p;
    run_sample(run, sizeof run, "threads", &p);
    ck_assert_msg(rt_wait(&p, 120) == 0, "rt_sample did not end");
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "rt_sample %s",
                  rt_status(p.status));
    rr_run r;
    const rr_log *log = rt_load_one(run, &r);
    size_t records;
    uint64_t char_write;
    unsigned frames = check_log(log->path, &records, &char_write);
    ck_assert_uint_ge(frames, 2);
    ck_assert_uint_ge(records, 5);
    ck_assert_uint_eq(char_write, RT_S_PHASE + RT_S_LOOSE);
    rr_free(&r);
}
END_TEST

/* Killed by SIGTERM: the signal's frame, then its series. */
START_TEST(test_series_of_a_killed_program) {
    char run[4200];
    rt_proc p;
    run_sample(run, sizeof run, "sigterm", &p);
    ck_assert_int_eq(rt_wait_line(p.out_fd, "ready", 60), 0);
    /* Intervals asleep, some of them zeros: five process records on disk
     * at least (about 0.1 s on a quiet machine), however long a loaded
     * machine takes to let the sampler make them. */
    double deadline = rt_now() + 60;
    while (process_records_on_disk(run) < 5 && rt_now() < deadline)
        rt_sleep(0.02);
    kill(p.pid, SIGTERM);
    ck_assert_int_eq(rt_wait(&p, 60), 0);
    ck_assert_msg(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGTERM, "rt_sample %s",
                  rt_status(p.status));
    rr_run r;
    const rr_log *log = rt_load_one(run, &r);
    size_t records;
    uint64_t char_write;
    ck_assert_uint_ge(check_log(log->path, &records, &char_write), 1);
    ck_assert_uint_ge(records, 5);
    ck_assert_uint_eq(char_write, RT_S_PHASE + 6 /* "ready\n" */);
    rr_free(&r);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_series");
    TCase *tc = tcase_create("series");
    rt_fixture(tc);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, test_series_of_an_exited_program);
    tcase_add_test(tc, test_series_of_a_killed_program);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
