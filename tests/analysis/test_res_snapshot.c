/*
 * A log read from a snapshot gives the resource totals of the whole log:
 * a real program (progs/an_series.c) writes known bytes on both sides of
 * a flush, whose frame the recorder follows with a snapshot frame holding
 * the resource series (docs/format.md 5.2.1).  Its log read
 * whole, and a copy holding only the file header and the frames from the
 * series on read as a reader that starts at that snapshot reads it
 * (worker_log.snapshot_mono_ns), give the same bytes, CPU time, RSS and
 * intervals, and the same bytes under each phase node (the snapshot's
 * NODE_IO records); the second says its time series before the snapshot
 * is approximate and its bytes per phase exact.
 */
#define _GNU_SOURCE
#include "an_util.h"
#include "rt_util.h"
#include "run_caveats.h"
#include "run_log.h"
#include "run_resources.h"

#include <scope/log_format.h>

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KIB 1024ull

/* The one log under run, as a path relative to it. */
static void find_log(const char *run, char *rel, size_t cap) {
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "cd '%s' && find workers -name '*.scope'", run);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(fgets(rel, (int)cap, p));
    rel[strcspn(rel, "\n")] = '\0';
    pclose(p);
}

/* The offset and closing time of the first frame holding series. */
static void find_series_frame(const char *path, uint64_t *offset, uint64_t *mono) {
    char msg[256];
    scope_log_reader *r;
    ck_assert_msg(scope_log_reader_open(&r, path, msg, sizeof msg) == 0, "%s", msg);
    scope_rec_frame fr;
    uint64_t off;
    *offset = 0;
    while (!*offset && scope_log_reader_next_frame(r, &fr, &off) == 1) {
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1)
            if (rec.type == SCOPE_REC_RESOURCE_SERIES) {
                *offset = off;
                *mono = fr.mono_ns;
            }
    }
    scope_log_reader_close(r);
    ck_assert_msg(*offset, "%s: no frame holds series", path);
}

/* Writes dst: src's file header, then src from offset on. */
static void cut_copy(const char *src, const char *dst, uint64_t offset) {
    size_t len;
    char *all = rt_slurp(src, &len);
    ck_assert_uint_gt(len, offset);
    int fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, all, SCOPE_LOG_HEADER_SIZE), SCOPE_LOG_HEADER_SIZE);
    ck_assert_int_eq(write(fd, all + offset, len - offset), (ssize_t)(len - offset));
    close(fd);
    free(all);
}

/* A run of its own holding the log at path under the same relative name
 * rel, cut at offset (cut_copy): the log as a reader starting there sees it. */
static void cut_run(char *cut, size_t cap, const char *path, const char *rel, uint64_t offset) {
    static char cmd[17100], dst[17000];
    rt_mkdir(cut, cap, "cut");
    snprintf(dst, sizeof dst, "%s/%s", cut, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", dst);
    ck_assert_int_eq(system(cmd), 0);
    cut_copy(path, dst, offset);
}

static void read_log(const char *run, const char *rel, uint64_t snapshot_mono, worker_log *log) {
    int dirfd = open(run, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(dirfd, 0);
    worker_log_init(log);
    log->snapshot_mono_ns = snapshot_mono;
    log->read_all = 1; /* frame by frame from where the file starts, as this test cut it */
    log_read(dirfd, rel, log);
    close(dirfd);
    ck_assert_int_eq(log->open_rc, 0);
    ck_assert_msg(log->res != NULL, "%s: no resource figures", rel);
}

static uint64_t bucket_char_write(const res_proc *p) {
    uint64_t s = 0;
    for (uint32_t i = 0; i < p->s.nused; i++)
        s += p->b[i].char_write;
    return s;
}

static int same_node_io(const res_node_io *x, const res_node_io *y) {
    return x->disk_read == y->disk_read && x->disk_write == y->disk_write &&
           x->char_read == y->char_read && x->char_write == y->char_write &&
           x->p_disk_read == y->p_disk_read && x->p_disk_write == y->p_disk_write &&
           x->p_char_read == y->p_char_read && x->p_char_write == y->p_char_write;
}

/* Runs an_series into a new run directory; gives its log (relative to the
 * run, and whole) and where the first series frame is. */
static void run_series(char *run, size_t run_cap, char *rel, size_t rel_cap, char *path,
                       size_t path_cap, uint64_t *offset, uint64_t *mono) {
    char file[4300];
    rt_mkdir(run, run_cap, "series");
    snprintf(file, sizeof file, "%s/data", rt_base);
    const char *env[] = {"SCOPE_SAMPLE_INTERVAL=0.01", NULL};
    char *argv[] = {(char *)rt_prog("an_series"), run, file, NULL};
    rt_proc p;
    rt_run(&p, argv, &(rt_opts){.env = env}, 120);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "an_series %s",
                  rt_status(p.status));
    find_log(run, rel, rel_cap);
    snprintf(path, path_cap, "%s/%s", run, rel);
    find_series_frame(path, offset, mono);
}

START_TEST(test_snapshot_gives_the_whole_logs_totals) {
    char run[4200], path[8600], rel[4096];
    uint64_t offset, mono;
    run_series(run, sizeof run, rel, sizeof rel, path, sizeof path, &offset, &mono);

    char cut[4200];
    cut_run(cut, sizeof cut, path, rel, offset);

    worker_log whole, snap;
    read_log(run, rel, 0, &whole);
    read_log(cut, rel, mono, &snap);
    const res_proc *a = whole.res, *b = snap.res;

    /* The program's bytes, exactly, either way. */
    uint64_t written = 40 * 32 * KIB + 40 * 64 * KIB;
    ck_assert_uint_eq(a->char_write, written);
    ck_assert_uint_eq(b->char_write, written);
    ck_assert_uint_eq(b->char_read, a->char_read);
    ck_assert_uint_eq(b->disk_read, a->disk_read);
    ck_assert_uint_eq(b->disk_write, a->disk_write);
    ck_assert_uint_eq(b->cpu_user_ns, a->cpu_user_ns);
    ck_assert_uint_eq(b->cpu_sys_ns, a->cpu_sys_ns);
    ck_assert_uint_eq(b->rss_max, a->rss_max);
    ck_assert_uint_eq(b->rss_peak, a->rss_peak);
    ck_assert_uint_eq(b->intervals, a->intervals);
    ck_assert_uint_eq(b->sampled_ns, a->sampled_ns);
    ck_assert_uint_eq(b->present, a->present);
    /* The sparkline's buckets hold every byte, placed by series bucket. */
    ck_assert_uint_eq(bucket_char_write(a), written);
    ck_assert_uint_eq(bucket_char_write(b), written);

    /* What came from the series: the first half, and it is said. */
    ck_assert_uint_eq(a->series.intervals, 0);
    ck_assert_uint_gt(b->series.intervals, 0);
    ck_assert_uint_lt(b->series.intervals, b->intervals);
    ck_assert_uint_ge(b->series.char_write, 40 * 32 * KIB);
    ck_assert_uint_lt(b->series.char_write, written);

    /* The phases: both put write_a's bytes under it, the cut one through
     * the snapshot's NODE_IO records; node by node, thread and process
     * records alike, the same as the whole log. */
    uint64_t a_nodes = 0;
    for (size_t i = 0; i < a->nnodes; i++)
        a_nodes += a->nodes[i].char_write;
    ck_assert_uint_eq(a_nodes, written);
    ck_assert_uint_gt(b->series.node_io, 0);
    ck_assert_uint_eq(b->nnodes, a->nnodes);
    for (size_t i = 0; i < a->nnodes; i++) {
        const res_node_io *x = &a->nodes[i], *y = NULL;
        for (size_t k = 0; k < b->nnodes; k++)
            if (b->nodes[k].node == x->node)
                y = &b->nodes[k];
        ck_assert_msg(y != NULL, "node %u missing from the snapshot's read", x->node);
        ck_assert_msg(same_node_io(x, y),
                      "node %u: char_write %llu p_char_write %llu whole, %llu %llu from the "
                      "snapshot",
                      x->node, (unsigned long long)x->char_write,
                      (unsigned long long)x->p_char_write, (unsigned long long)y->char_write,
                      (unsigned long long)y->p_char_write);
    }
    ck_assert_uint_eq(b->thread_records, a->thread_records);
    ck_assert_uint_eq(b->t_disk_read, a->t_disk_read);
    ck_assert_uint_eq(b->t_disk_write, a->t_disk_write);
    ck_assert_uint_eq(b->t_char_read, a->t_char_read);
    ck_assert_uint_eq(b->t_char_write, a->t_char_write);

    worker_log_release(&whole);
    worker_log_release(&snap);
}
END_TEST

/* Told where the snapshot is but read whole (a reader that started at the
 * top): the RESOURCE records before the series are there, and the series
 * must not count them twice.  Read from the snapshot, the model says which
 * figures are approximate. */
START_TEST(test_series_count_once_and_say_so) {
    char run[4200], path[8600], rel[4096];
    uint64_t offset, mono;
    run_series(run, sizeof run, rel, sizeof rel, path, sizeof path, &offset, &mono);
    worker_log told, whole;
    read_log(run, rel, mono, &told);
    read_log(run, rel, 0, &whole);
    ck_assert_uint_eq(told.res->char_write, whole.res->char_write);
    ck_assert_uint_eq(told.res->intervals, whole.res->intervals);
    ck_assert_uint_eq(told.res->series.intervals, 0);

    char cut[4200];
    cut_run(cut, sizeof cut, path, rel, offset);
    worker_log snap;
    read_log(cut, rel, mono, &snap);
    run_worker w = snap.w;
    w.attempt = 0;
    w.has_process = 1; /* its PROCESS record is before the cut: no snapshot restates it yet */
    run_model m = {.workers = &w, .nworkers = 1, .nattempts = 1};
    arena mem = {0};
    ck_assert_int_eq(run_add_caveats(&m, &mem, &snap), 0);
    size_t found = 0;
    for (size_t i = 0; i < m.ncaveats; i++)
        if (m.caveats[i].kind == RUN_CAVEAT_RESOURCES) {
            found++;
            ck_assert_msg(strstr(m.caveats[i].text, "approximate") &&
                              strstr(m.caveats[i].text, "bytes under each phase are exact"),
                          "%s", m.caveats[i].text);
        }
    ck_assert_uint_eq(found, 1);
    /* The report's figures: the series' bytes are in the totals and, by
     * the snapshot's NODE_IO, in the phases that moved them, so "(no
     * phase open)" holds what it holds reading the whole log. */
    size_t which = 0;
    run_res *rr = run_res_of(&m, &which, 1);
    ck_assert_ptr_nonnull(rr);
    ck_assert_uint_eq(rr->series_intervals, snap.res->series.intervals);
    ck_assert_uint_eq(rr->series_no_node_io, 0);
    ck_assert_uint_eq(rr->series_io.char_write, 0);
    ck_assert_uint_eq(rr->io.char_write, whole.res->char_write);
    uint64_t in_phases = 0;
    for (size_t i = 0; i < whole.res->nnodes; i++)
        if (whole.res->nodes[i].node)
            in_phases += whole.res->nodes[i].char_write;
    ck_assert_uint_eq(rr->no_phase.char_write, whole.res->char_write - in_phases);
    run_res_free(rr);
    run_caveats_free(&m);
    arena_free(&mem);
    worker_log_release(&told);
    worker_log_release(&whole);
    worker_log_release(&snap);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("res_snapshot");
    TCase *tc = tcase_create("snapshot");
    rt_fixture(tc);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, test_snapshot_gives_the_whole_logs_totals);
    tcase_add_test(tc, test_series_count_once_and_say_so);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
