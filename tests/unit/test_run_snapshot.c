/* The run loader reads each log from its newest snapshot (docs/format.md
 * 9.8): the same figures as reading every frame, a process whose first
 * frames are lost keeps its identity and figures, a damaged newest
 * snapshot falls back to an older one with a caveat, the marks before the
 * snapshot come from its MARK_STATE copies, and run_options.read_all reads
 * every frame. */
#include "log_samples.h"
#include "report_json.h"
#include "run_load.h"
#include "run_model.h"
#include "run_resources.h"
#include "unit_util.h"

#include <scope/log_format.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>

static char dir[4096];

static void make_dir(void) {
    unit_tmpdir(dir, sizeof dir);
}

static void remove_dir(void) {
    unit_rmdir(dir);
}

enum { NFRAMES = 12 }; /* snapshots at frames 4, 9 and 11 (log_sample_is_snapshot) */

/* A run directory `tag` under dir with one host folder; its path in run,
 * the log's path (w_<run>_<pid>_<uuid>.scope) in log. */
static void new_run(const char *tag, char *run, size_t runcap, char *log, size_t logcap) {
    snprintf(run, runcap, "%s/%s", dir, tag);
    ck_assert_int_eq(mkdir(run, 0755), 0);
    char p[4300];
    snprintf(p, sizeof p, "%s/workers", run);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/workers/node005", run);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(log, logcap, "%s/w_20260813T2241-471c94_40005_0000abcd.scope", p);
}

static run_model *load_with(const char *run, int read_all, int samples) {
    /* Sample logs are small: from their snapshot whatever their size. */
    run_options opt = {
        .threads = 1, .no_samples = !samples, .read_all = read_all, .snapshot_min_bytes = 1};
    run_model *m = NULL;
    char msg[512] = "";
    ck_assert_msg(run_load(run, &opt, &m, msg, sizeof msg) == RUN_OK, "%s", msg);
    return m;
}

static run_model *load(const char *run, int read_all) {
    return load_with(run, read_all, 0);
}

/* Every phase of every role: name, count, total, CPU time, histogram
 * percentiles, and the counters under it. */
static void phase_text(FILE *f, const run_phase *p) {
    fprintf(f, "%.*s %llu %llu %llu %llu %.0f %.0f %llu|", (int)p->name.len, p->name.s,
            (unsigned long long)p->dist.count, (unsigned long long)p->dist.total_ns,
            (unsigned long long)p->cpu_ns, (unsigned long long)p->dist.max_ns, p->dist.p50_ns,
            p->dist.p99_ns, (unsigned long long)p->open_ns);
    for (size_t c = 0; c < p->ncounters; c++)
        fprintf(f, "c %.*s %llu %lld|", (int)p->counters[c].name.len, p->counters[c].name.s,
                (unsigned long long)p->counters[c].calls, (long long)p->counters[c].total);
    for (size_t i = 0; i < p->nchildren; i++)
        phase_text(f, p->children[i]);
}

static char *figures(const run_model *m) {
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    ck_assert_ptr_nonnull(f);
    for (size_t r = 0; r < m->nroles; r++) {
        fprintf(f, "role %.*s %zu: ", (int)m->roles[r].name.len, m->roles[r].name.s,
                m->roles[r].nprocs);
        phase_text(f, m->roles[r].root);
    }
    fclose(f);
    return s;
}

/* The JSON report, less what differs by how much of the log was read: the
 * number of frames read. */
static char *json(run_model *m) {
    for (size_t i = 0; i < m->nworkers; i++)
        m->workers[i].frames = 0;
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(report_json_print(f, m), 0);
    fclose(f);
    return s;
}

/* The sampled bytes under every phase of every role, and those of the
 * whole run: in all, with no phase open, and left to no phase by a
 * snapshot's series. */
static void phase_io_text(FILE *f, const run_phase *p) {
    run_res_io io;
    if (run_phase_sampled_io(p, &io))
        fprintf(f, "%.*s %llu %llu %llu %llu %llu|", (int)p->name.len, p->name.s,
                (unsigned long long)io.disk_read, (unsigned long long)io.cache_read,
                (unsigned long long)io.disk_write, (unsigned long long)io.char_read,
                (unsigned long long)io.char_write);
    for (size_t i = 0; i < p->nchildren; i++)
        phase_io_text(f, p->children[i]);
}

static char *phase_io(run_model *m) {
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    ck_assert_ptr_nonnull(f);
    for (size_t r = 0; r < m->nroles; r++)
        phase_io_text(f, m->roles[r].root);
    const run_res *all = run_all_res(m);
    ck_assert_ptr_nonnull(all);
    const run_res_io *io[] = {&all->io, &all->no_phase, &all->series_io};
    for (size_t i = 0; i < 3; i++)
        fprintf(f, "run %zu: %llu %llu %llu %llu|", i, (unsigned long long)io[i]->disk_read,
                (unsigned long long)io[i]->disk_write, (unsigned long long)io[i]->char_read,
                (unsigned long long)io[i]->char_write);
    fclose(f);
    return s;
}

/* The two texts are the same; both are freed. */
static void assert_same(char *a, char *b) {
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}

static int has_caveat(const run_model *m, enum run_caveat_kind kind, const char *words) {
    for (size_t i = 0; i < m->ncaveats; i++)
        if (m->caveats[i].kind == kind && strstr(m->caveats[i].text, words))
            return 1;
    return 0;
}

/* Reading from the newest snapshot and reading every frame give the same
 * report: phases, counters, marks (shutdown, the dropped total, the
 * recorder's caveat) and identity. */
START_TEST(test_snapshot_read_equals_whole_read) {
    for (unsigned seed = 0; seed < 4; seed++) {
        char run[4200], log[4400], tag[32];
        snprintf(tag, sizeof tag, "equal%u", seed);
        new_run(tag, run, sizeof run, log, sizeof log);
        ck_assert_int_eq(log_sample_write_log(log, NFRAMES, seed, NULL, NULL), 0);
        run_model *whole = load(run, 1), *snap = load(run, 0);
        ck_assert_uint_eq(whole->workers[0].frames, NFRAMES);
        ck_assert_uint_eq(snap->workers[0].frames, 1); /* the exit snapshot alone */
        ck_assert_int_eq(snap->workers[0].end, RUN_END_EXIT);
        ck_assert_uint_gt(snap->workers[0].dropped, 0);
        assert_same(json(whole), json(snap));
        run_free(whole);
        run_free(snap);
    }
}
END_TEST

/* The bytes the resource intervals put under each phase, read from a
 * snapshot (its NODE_IO records, docs/format.md 5.22, then the intervals
 * after it) and read whole (every interval, every snapshot's NODE_IO
 * skipped): the same, for the exit snapshot, and for an older one a torn
 * tail sends the read back to. */
START_TEST(test_snapshot_read_keeps_phase_io) {
    for (unsigned seed = 0; seed < 4; seed++) {
        char run[4200], log[4400], tag[32];
        snprintf(tag, sizeof tag, "phase-io%u", seed);
        new_run(tag, run, sizeof run, log, sizeof log);
        uint64_t off[NFRAMES], size;
        ck_assert_int_eq(log_sample_write_log(log, NFRAMES, seed, off, &size), 0);
        for (int torn = 0; torn < 2; torn++) {
            if (torn) /* inside frame 8: read from snapshot 4, then 5, 6 and 7 */
                ck_assert_int_eq(truncate(log, (off_t)((off[8] + off[9]) / 2)), 0);
            run_model *whole = load_with(run, 1, 1), *snap = load_with(run, 0, 1);
            ck_assert_uint_eq(snap->workers[0].frames, torn ? 4 : 1);
            ck_assert(has_caveat(snap, RUN_CAVEAT_RESOURCES, "bytes under each phase are exact"));
            char *a = phase_io(whole);
            ck_assert_msg(strstr(a, "mcts ") && strstr(a, "forward "), "no sampled I/O: %s", a);
            assert_same(a, phase_io(snap));
            run_free(whole);
            run_free(snap);
        }
    }
}
END_TEST

/* Issue 16: a log whose first frames (PROCESS and every definition in
 * them) are lost still gives its process, from the snapshot after them. */
START_TEST(test_first_frames_lost_keep_the_process) {
    char run[4200], log[4400];
    new_run("first-lost", run, sizeof run, log, sizeof log);
    uint64_t off[NFRAMES], size;
    ck_assert_int_eq(log_sample_write_log(log, NFRAMES, 3, off, &size), 0);
    run_model *intact = load(run, 0);
    char *want = figures(intact);
    run_free(intact);

    uint8_t *data;
    size_t n;
    ck_assert_int_eq(log_sample_read_file(log, &data, &n), 0);
    memset(data + off[0], 0x55, off[2] - off[0]); /* frames 0 and 1 */
    ck_assert_int_eq(log_sample_write_file(log, data, n), 0);
    free(data);

    /* Read whole, the damage is met and reported. */
    run_model *whole = load(run, 1);
    ck_assert(has_caveat(whole, RUN_CAVEAT_DAMAGED, "damaged and skipped"));
    run_free(whole);

    run_model *m = load(run, 0);
    const run_worker *w = &m->workers[0];
    ck_assert_int_eq(w->has_process, 1);
    ck_assert_str_eq(w->role.s, "trainer");
    ck_assert_str_eq(w->host.s, "node003");
    ck_assert(!has_caveat(m, RUN_CAVEAT_NO_IDENTITY, ""));
    ck_assert(!has_caveat(m, RUN_CAVEAT_DAMAGED, "")); /* the damage is before the snapshot */
    char *got = figures(m);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    run_free(m);
}
END_TEST

/* The newest snapshot is damaged: the log is read from the one before it,
 * the caveat says so, and the figures are those of the intact log (the
 * frames after the older snapshot carry the rest).  The exit snapshot is
 * cut short too, so that the newest intact frame names the damaged one. */
START_TEST(test_damaged_newest_snapshot_falls_back) {
    char run[4200], log[4400];
    new_run("fallback", run, sizeof run, log, sizeof log);
    uint64_t off[NFRAMES], size;
    ck_assert_int_eq(log_sample_write_log(log, NFRAMES, 1, off, &size), 0);
    run_model *intact = load(run, 0);
    char *want = figures(intact);
    run_free(intact);

    uint8_t *data;
    size_t n;
    ck_assert_int_eq(log_sample_read_file(log, &data, &n), 0);
    data[(off[9] + off[10]) / 2] ^= 0x10; /* snapshot 9 fails its checksum */
    n = (off[11] + n) / 2;                /* and the exit snapshot is cut short */
    ck_assert_int_eq(log_sample_write_file(log, data, n), 0);
    free(data);

    run_model *m = load(run, 0);
    ck_assert_int_eq(m->workers[0].has_process, 1);
    ck_assert_int_eq(m->workers[0].end, RUN_END_EXIT); /* its exit frame is intact */
    char words[64];
    snprintf(words, sizeof words, "newest snapshot (byte %llu) is damaged",
             (unsigned long long)off[9]);
    ck_assert_msg(has_caveat(m, RUN_CAVEAT_DAMAGED, words), "no caveat saying %s", words);
    snprintf(words, sizeof words, "older one (byte %llu)", (unsigned long long)off[4]);
    ck_assert(has_caveat(m, RUN_CAVEAT_DAMAGED, words));
    ck_assert_uint_eq(m->workers[0].frames, 6); /* 4 to 8, then 10 */
    char *got = figures(m);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    run_free(m);
}
END_TEST

/* A live writer is in the middle of a frame: the newest intact frame names
 * the snapshot, and the half frame is reported as the tail being written. */
START_TEST(test_truncated_tail_reads_from_the_snapshot) {
    char run[4200], log[4400];
    new_run("torn", run, sizeof run, log, sizeof log);
    uint64_t off[NFRAMES], size;
    ck_assert_int_eq(log_sample_write_log(log, NFRAMES, 2, off, &size), 0);
    ck_assert_int_eq(truncate(log, (off_t)((off[8] + off[9]) / 2)), 0); /* inside frame 8 */
    run_model *whole = load(run, 1), *snap = load(run, 0);
    ck_assert_uint_eq(snap->workers[0].frames, 4); /* 4 (the snapshot), 5, 6, 7 */
    ck_assert_int_eq(snap->workers[0].truncated, 1);
    ck_assert(has_caveat(snap, RUN_CAVEAT_TRUNCATED, "ends inside a frame"));
    assert_same(json(whole), json(snap));
    run_free(whole);
    run_free(snap);
}
END_TEST

/* How a process ended, when a snapshot follows its last frame: a signal
 * frame and the snapshot after it still say "ended by signal", read whole
 * or from the snapshot (its MARK_STATE copy of the signal mark). */
START_TEST(test_signal_before_the_last_snapshot) {
    char run[4200], log[4400];
    new_run("signal", run, sizeof run, log, sizeof log);
    int fd = open(log, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0644);
    ck_assert_int_ge(fd, 0);
    scope_log_writer *w;
    ck_assert_int_eq(scope_log_writer_open(&w, fd, NULL), 0);
    scope_record proc = {.type = SCOPE_REC_PROCESS};
    proc.u.process.run_id = (scope_bytes){(const uint8_t *)"20260813T2241-471c94", 20};
    proc.u.process.uuid = (scope_bytes){(const uint8_t *)"0000abcd", 8};
    proc.u.process.host = (scope_bytes){(const uint8_t *)"node005", 7};
    proc.u.process.role = (scope_bytes){(const uint8_t *)"worker", 6};
    proc.u.process.pid = 40005;
    proc.u.process.rank = proc.u.process.local_rank = proc.u.process.node_rank = -1;
    proc.u.process.world_size = proc.u.process.array_task = proc.u.process.restarts = -1;
    proc.u.process.start_wall_ns = 1786660000000000000ull;
    proc.u.process.start_mono_ns = 5000000000ull;
    scope_record sig = {.type = SCOPE_REC_MARK};
    sig.u.mark =
        (scope_rec_mark){.kind = SCOPE_MARK_SIGNAL, .mono_ns = 6000000000ull, .value = SIGTERM};
    ck_assert_int_eq(scope_log_writer_add(w, &proc), 0);
    ck_assert_int_gt(scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, 5500000000ull,
                                                  1786660000500000000ull),
                     0);
    ck_assert_int_eq(scope_log_writer_add(w, &sig), 0);
    ck_assert_int_gt(
        scope_log_writer_close_frame(w, SCOPE_FRAME_SIGNAL, 6000000000ull, 1786660001000000000ull),
        0);
    sig.type = SCOPE_REC_MARK_STATE;
    ck_assert_int_eq(scope_log_writer_add(w, &proc), 0);
    ck_assert_int_eq(scope_log_writer_add(w, &sig), 0);
    ck_assert_int_gt(scope_log_writer_close_frame_flags(w, SCOPE_FRAME_SIGNAL,
                                                        SCOPE_FRAME_F_SNAPSHOT, 6000001000ull,
                                                        1786660001000001000ull),
                     0);
    scope_log_writer_free(w);
    close(fd);
    for (int read_all = 0; read_all < 2; read_all++) {
        run_model *m = load(run, read_all);
        ck_assert_msg(m->workers[0].end == RUN_END_SIGNAL, "read_all %d: end %d", read_all,
                      (int)m->workers[0].end);
        ck_assert_int_eq(m->workers[0].end_signal, SIGTERM);
        ck_assert(has_caveat(m, RUN_CAVEAT_SIGNALED, "SIGTERM"));
        run_free(m);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("run_snapshot");
    TCase *tc = tcase_create("snapshot");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_snapshot_read_equals_whole_read);
    tcase_add_test(tc, test_snapshot_read_keeps_phase_io);
    tcase_add_test(tc, test_first_frames_lost_keep_the_process);
    tcase_add_test(tc, test_damaged_newest_snapshot_falls_back);
    tcase_add_test(tc, test_truncated_tail_reads_from_the_snapshot);
    tcase_add_test(tc, test_signal_before_the_last_snapshot);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
