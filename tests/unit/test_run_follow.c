/*
 * The follower (src/load/run_follow.h) on real files that change between
 * refreshes: frames appended by a real scope_log_writer, a frame cut off
 * mid-write and then completed, a log cut back, a log replaced by a new
 * attempt under the same name, a new process's log, a log removed.  After
 * every refresh the model must be the one a fresh load of the directory
 * gives (the report printed from each is compared), and the follower must
 * have read what it says (kept, read on, read again).  Also the liveness of
 * a log whose pid is alive on this host but belongs to another boot.
 */
#define _GNU_SOURCE /* nftw */
#include "report_text.h"
#include "run_follow.h"
#include "run_load.h"
#include "run_model.h"
#include "unit_util.h"

#include <scope/log_format.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#define SEC 1000000000ull

static char base[256];

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

static void new_run(char *run, size_t cap, const char *tag) {
    snprintf(run, cap, "%s/%s-XXXXXX", base, tag);
    ck_assert_msg(mkdtemp(run) != NULL, "mkdtemp(%s): %s", run, strerror(errno));
    char p[600];
    snprintf(p, sizeof p, "%s/workers", run);
    ck_assert_int_eq(mkdir(p, 0777), 0);
    snprintf(p, sizeof p, "%s/workers/node1", run);
    ck_assert_int_eq(mkdir(p, 0777), 0);
}

/* ---- a process writing its log -------------------------------------------- */

typedef struct proc {
    char path[700];
    int fd;
    scope_log_writer *w;
    const char *run_id, *host;
    int64_t pid;
    uint64_t wall0, mono0; /* its recorder's start */
    uint64_t t;            /* ns after the start of the next frame */
    uint64_t count;        /* entries of its phase "step" so far, 10 ms each */
} proc;

static scope_bytes bytes(const char *s) {
    return (scope_bytes){(const uint8_t *)s, strlen(s)};
}

static void put(proc *p, scope_record r) {
    ck_assert_int_eq(scope_log_writer_add(p->w, &r), 0);
}

/* Its log RUN/workers/node1/NAME, with the PROCESS record and the phase
 * defined in the first frame (not closed yet). */
static void p_start(proc *p, const char *run, const char *name, const char *run_id,
                    const char *host, int64_t pid, uint64_t wall0, uint64_t mono0) {
    *p = (proc){.run_id = run_id, .host = host, .pid = pid, .wall0 = wall0, .mono0 = mono0};
    snprintf(p->path, sizeof p->path, "%s/workers/node1/%s", run, name);
    p->fd = open(p->path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    ck_assert_msg(p->fd >= 0, "open %s: %s", p->path, strerror(errno));
    scope_log_writer_options opt = {0, 64 * 1024};
    ck_assert_int_eq(scope_log_writer_open(&p->w, p->fd, &opt), 0);
    put(p, (scope_record){.type = SCOPE_REC_PROCESS,
                          .u.process = {.run_id = bytes(run_id),
                                        .uuid = bytes("0badcafe"),
                                        .host = bytes(host),
                                        .role = bytes("worker"),
                                        .job_id = bytes(""),
                                        .step_id = bytes(""),
                                        .exe = bytes("/opt/bin/worker"),
                                        .cwd = bytes("/scratch"),
                                        .recorder_version = bytes("test"),
                                        .pid = pid,
                                        .ppid = 1,
                                        .rank = -1,
                                        .local_rank = -1,
                                        .node_rank = -1,
                                        .world_size = -1,
                                        .start_wall_ns = wall0,
                                        .start_mono_ns = mono0}});
    put(p, (scope_record){.type = SCOPE_REC_STRING, .u.string = {1, bytes("step")}});
    put(p, (scope_record){.type = SCOPE_REC_PHASE_NODE,
                          .u.phase_node = {.id = 1, .parent = 0, .name = 1, .thread = 1}});
}

/* n more entries of "step" and a periodic frame 1 s later with its total. */
static void p_frame(proc *p, uint64_t n) {
    p->count += n;
    uint64_t wall = p->count * 10000000ull;
    put(p, (scope_record){.type = SCOPE_REC_PHASE_AGG,
                          .u.phase_agg = {.node = 1,
                                          .count = p->count,
                                          .wall_ns = wall,
                                          .min_ns = 10000000ull,
                                          .max_ns = 10000000ull}});
    p->t += SEC;
    long rc =
        scope_log_writer_close_frame(p->w, SCOPE_FRAME_PERIODIC, p->mono0 + p->t, p->wall0 + p->t);
    ck_assert_msg(rc > 0, "close_frame: %s", strerror((int)-rc));
}

static void p_exit(proc *p) {
    put(p, (scope_record){.type = SCOPE_REC_MARK,
                          .u.mark = {SCOPE_MARK_SHUTDOWN, 0, 0, SCOPE_SHUTDOWN_EXIT, bytes("")}});
    p_frame(p, 0);
}

static void p_stop(proc *p) {
    scope_log_writer_free(p->w);
    close(p->fd);
}

static off_t size_of(const char *path) {
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return st.st_size;
}

/* ---- the follower against a fresh load ------------------------------------- */

static char *report(const run_model *m) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    text_style st = {.width = 120};
    report_text_print(f, m, &st);
    fclose(f);
    return text;
}

typedef struct follower {
    run_follow *f;
    run_model *m;
    const char *run;
} follower;

static void follow(follower *fl, const char *run) {
    char msg[512] = "";
    fl->run = run;
    ck_assert_msg(run_follow_open(&fl->f, run, NULL, &fl->m, msg, sizeof msg) == RUN_OK, "%s", msg);
    ck_assert_ptr_nonnull(fl->f);
}

/* A refresh, and the model it gives checked against a fresh load. */
static const run_follow_stats *refresh(follower *fl) {
    char msg[512] = "";
    ck_assert_msg(run_follow_refresh(fl->f, &fl->m, msg, sizeof msg) == RUN_OK, "%s", msg);
    run_model *fresh = NULL;
    ck_assert_msg(run_load(fl->run, NULL, &fresh, msg, sizeof msg) == RUN_OK, "%s", msg);
    char *a = report(fl->m), *b = report(fresh);
    ck_assert_msg(!strcmp(a, b), "followed:\n%s\nloaded afresh:\n%s", a, b);
    free(a);
    free(b);
    run_free(fresh);
    return run_follow_last(fl->f);
}

static void unfollow(follower *fl) {
    run_free(fl->m);
    run_follow_close(fl->f);
}

static uint64_t step_count(const run_model *m) {
    const run_role *r = run_find_role(m, "worker");
    ck_assert_ptr_nonnull(r);
    const run_phase *p = run_find_phase(r, "step");
    ck_assert_ptr_nonnull(p);
    return p->dist.count;
}

static size_t caveats_with(const run_model *m, const char *text) {
    size_t n = 0;
    for (size_t i = 0; i < m->ncaveats; i++)
        n += strstr(m->caveats[i].text, text) != NULL;
    return n;
}

/* A fixed start in the past, on another host: judged by its frames' age. */
#define WALL0 (1796040000ull * SEC)
#define MONO0 (7000ull * SEC)

/* ---- the cases --------------------------------------------------------------- */

START_TEST(appended_frames_are_read_on) {
    char run[300];
    new_run(run, sizeof run, "append");
    proc a, b;
    p_start(&a, run, "w_r1_1.scope", "r1", "elsewhere", 1, WALL0, MONO0);
    p_start(&b, run, "w_r1_2.scope", "r1", "elsewhere", 2, WALL0, MONO0);
    p_frame(&a, 3);
    p_frame(&b, 5);
    follower fl;
    follow(&fl, run);
    ck_assert_uint_eq(step_count(fl.m), 8);

    /* Nothing changed: nothing opened. */
    const run_follow_stats *st = refresh(&fl);
    ck_assert_uint_eq(st->unchanged, 2);
    ck_assert_uint_eq(st->read_on, 0);
    ck_assert_uint_eq(st->bytes, 0);

    /* One log grows by three frames: read on, its new bytes only. */
    off_t before = size_of(a.path);
    p_frame(&a, 1);
    p_frame(&a, 1);
    p_frame(&a, 2);
    st = refresh(&fl);
    ck_assert_uint_eq(st->read_on, 1);
    ck_assert_uint_eq(st->unchanged, 1);
    ck_assert_uint_eq(st->read_again, 0);
    ck_assert_uint_eq(st->bytes, (uint64_t)(size_of(a.path) - before));
    ck_assert_uint_eq(step_count(fl.m), 3 + 4 + 5); /* counts are totals: none twice */
    ck_assert_uint_eq(fl.m->workers[0].frames, 4);

    /* Both grow; one ends. */
    p_frame(&a, 10);
    p_exit(&b);
    st = refresh(&fl);
    ck_assert_uint_eq(st->read_on, 2);
    ck_assert_uint_eq(step_count(fl.m), 17 + 5);
    ck_assert_int_eq(fl.m->workers[1].end, RUN_END_EXIT);
    p_stop(&a);
    p_stop(&b);
    unfollow(&fl);
}
END_TEST

START_TEST(frame_cut_mid_write_is_read_when_whole) {
    char run[300];
    new_run(run, sizeof run, "cut");
    proc a;
    p_start(&a, run, "w_r1_1.scope", "r1", "elsewhere", 1, WALL0, MONO0);
    p_frame(&a, 2);
    follower fl;
    follow(&fl, run);

    /* The next frame reaches the file in two writes; the refresh comes in
     * between. */
    off_t before = size_of(a.path);
    p_frame(&a, 5);
    off_t after = size_of(a.path);
    size_t len = (size_t)(after - before);
    uint8_t *tail = malloc(len);
    int rfd = open(a.path, O_RDONLY);
    ck_assert_int_eq(pread(rfd, tail, len, before), (ssize_t)len);
    close(rfd);
    ck_assert_int_eq(truncate(a.path, before + (off_t)len / 2), 0);
    const run_follow_stats *st = refresh(&fl);
    ck_assert_uint_eq(st->read_on, 1);
    ck_assert_uint_eq(step_count(fl.m), 2);
    ck_assert_int_eq(fl.m->workers[0].truncated, 1);

    ck_assert_int_eq(pwrite(a.fd, tail + len / 2, len - len / 2, before + (off_t)len / 2),
                     (ssize_t)(len - len / 2));
    free(tail);
    st = refresh(&fl);
    ck_assert_uint_eq(st->read_on, 1);
    ck_assert_uint_eq(step_count(fl.m), 7);
    ck_assert_int_eq(fl.m->workers[0].truncated, 0);
    ck_assert_uint_eq(fl.m->workers[0].bytes_skipped, 0);
    ck_assert_uint_eq(fl.m->workers[0].frames, 2);
    p_frame(&a, 1);
    st = refresh(&fl);
    ck_assert_uint_eq(step_count(fl.m), 8);
    p_stop(&a);
    unfollow(&fl);
}
END_TEST

START_TEST(log_cut_back_is_read_again) {
    char run[300];
    new_run(run, sizeof run, "shrunk");
    proc a;
    p_start(&a, run, "w_r1_1.scope", "r1", "elsewhere", 1, WALL0, MONO0);
    p_frame(&a, 2);
    off_t first = size_of(a.path);
    p_frame(&a, 3);
    p_frame(&a, 4);
    follower fl;
    follow(&fl, run);
    ck_assert_uint_eq(step_count(fl.m), 9);

    /* Cut back to its first frame: the figures of that frame, read again. */
    ck_assert_int_eq(truncate(a.path, first), 0);
    const run_follow_stats *st = refresh(&fl);
    ck_assert_uint_eq(st->read_again, 1);
    ck_assert_uint_eq(step_count(fl.m), 2);

    /* Cut inside its newest frame read, then grown past the old size with
     * other bytes: the frame read last is not there, so it is read again. */
    p_stop(&a);
    p_start(&a, run, "w_r1_1.scope", "r1", "elsewhere", 1, WALL0, MONO0);
    p_frame(&a, 1);
    p_frame(&a, 1);
    refresh(&fl);
    ck_assert_uint_eq(step_count(fl.m), 2);
    p_frame(&a, 30);
    p_frame(&a, 30);
    st = refresh(&fl);
    ck_assert_uint_eq(step_count(fl.m), 62);
    p_stop(&a);
    unfollow(&fl);
}
END_TEST

/* A string of n letters that zstd cannot shrink much. */
static void p_big_string(proc *p, uint32_t id, size_t n) {
    char *s = malloc(n + 1);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        s[i] = (char)('a' + (x >> 16) % 26);
    }
    s[n] = '\0';
    put(p, (scope_record){.type = SCOPE_REC_STRING, .u.string = {id, bytes(s)}});
    free(s);
}

/* Rewritten in place with the same first frame, byte for byte, past the
 * bytes whose hash is compared, then other frames: the frame read last is
 * no longer where it was, so the log is read again. */
START_TEST(log_rewritten_past_its_first_bytes) {
    char run[300];
    new_run(run, sizeof run, "rewritten");
    proc a;
    p_start(&a, run, "w_r1_1.scope", "r1", "elsewhere", 1, WALL0, MONO0);
    p_big_string(&a, 2, 8000);
    p_frame(&a, 2);
    ck_assert_int_gt(size_of(a.path), 4096);
    p_frame(&a, 3);
    follower fl;
    follow(&fl, run);
    ck_assert_uint_eq(step_count(fl.m), 5);

    p_stop(&a);
    p_start(&a, run, "w_r1_1.scope", "r1", "elsewhere", 1, WALL0, MONO0);
    p_big_string(&a, 2, 8000);
    p_frame(&a, 2);
    a.t += SEC / 2;
    p_frame(&a, 40);
    p_frame(&a, 1);
    const run_follow_stats *st = refresh(&fl);
    ck_assert_uint_eq(st->read_again, 1);
    ck_assert_uint_eq(step_count(fl.m), 43);
    p_stop(&a);
    unfollow(&fl);
}
END_TEST

START_TEST(log_replaced_by_a_new_attempt) {
    char run[300];
    new_run(run, sizeof run, "replaced");
    proc a, b;
    p_start(&a, run, "w_r1_1.scope", "r1", "elsewhere", 1, WALL0, MONO0);
    p_start(&b, run, "w_r1_2.scope", "r1", "elsewhere", 2, WALL0, MONO0);
    p_frame(&a, 4);
    p_frame(&b, 4);
    follower fl;
    follow(&fl, run);
    ck_assert_uint_eq(fl.m->nattempts, 1);

    /* A restarted job: a new file under the same name (another inode, a
     * longer log of another run id), and the other process's log anew. */
    p_stop(&a);
    ck_assert_int_eq(unlink(a.path), 0);
    p_start(&a, run, "w_r1_1.scope", "r2", "elsewhere", 11, WALL0 + 60 * SEC, MONO0 + 60 * SEC);
    for (int i = 0; i < 5; i++)
        p_frame(&a, 1);
    const run_follow_stats *st = refresh(&fl);
    ck_assert_uint_eq(st->read_again, 1);
    ck_assert_uint_eq(fl.m->nattempts, 2);
    ck_assert_uint_eq(step_count(fl.m), 5); /* the newest attempt */

    /* Rewritten in place (same inode) to the same length by another
     * process: its first bytes differ. */
    off_t size = size_of(b.path);
    p_stop(&b);
    p_start(&b, run, "w_r1_2.scope", "r2", "elsewhere", 12, WALL0 + 61 * SEC, MONO0 + 61 * SEC);
    while (size_of(b.path) < size)
        p_frame(&b, 1);
    p_frame(&b, 1);
    st = refresh(&fl);
    ck_assert_uint_eq(st->read_again, 1);
    ck_assert_uint_eq(fl.m->nattempts, 1);
    ck_assert_uint_eq(step_count(fl.m), 5 + b.count);

    /* A third process of the new attempt appears. */
    proc c;
    p_start(&c, run, "w_r2_13.scope", "r2", "elsewhere", 13, WALL0 + 62 * SEC, MONO0 + 62 * SEC);
    p_frame(&c, 7);
    st = refresh(&fl);
    ck_assert_uint_eq(st->added, 1);
    ck_assert_uint_eq(st->logs, 3);
    ck_assert_uint_eq(fl.m->nprocs, 3);
    p_stop(&a);
    p_stop(&b);
    p_stop(&c);
    unfollow(&fl);
}
END_TEST

START_TEST(log_removed_is_said) {
    char run[300];
    new_run(run, sizeof run, "removed");
    struct utsname u;
    ck_assert_int_eq(uname(&u), 0);
    /* This process, on this host, recording now: running. */
    proc a, b;
    p_start(&a, run, "w_r1_1.scope", "r1", u.nodename, getpid(), clock_ns(CLOCK_REALTIME),
            clock_ns(CLOCK_MONOTONIC));
    p_start(&b, run, "w_r1_2.scope", "r1", u.nodename, getpid(), clock_ns(CLOCK_REALTIME),
            clock_ns(CLOCK_MONOTONIC));
    p_frame(&a, 2);
    p_frame(&b, 3);
    follower fl;
    follow(&fl, run);
    ck_assert_uint_eq(fl.m->nrunning, 2);

    ck_assert_int_eq(unlink(a.path), 0);
    char msg[512];
    ck_assert_int_eq(run_follow_refresh(fl.f, &fl.m, msg, sizeof msg), RUN_OK);
    const run_follow_stats *st = run_follow_last(fl.f);
    ck_assert_uint_eq(st->vanished, 1);
    ck_assert_uint_eq(fl.m->nrunning, 1);
    ck_assert_uint_eq(step_count(fl.m), 5); /* as read before it went */
    ck_assert_uint_eq(caveats_with(fl.m, "left the run directory"), 1);
    ck_assert_int_eq(run_follow_refresh(fl.f, &fl.m, msg, sizeof msg), RUN_OK);
    ck_assert_uint_eq(run_follow_last(fl.f)->vanished, 0);
    ck_assert_uint_eq(caveats_with(fl.m, "left the run directory"), 1);

    /* The whole directory gone: the refresh fails and the model stands. */
    p_stop(&a);
    p_stop(&b);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", run);
    ck_assert_int_eq(system(cmd), 0);
    run_model *m = fl.m;
    ck_assert_int_eq(run_follow_refresh(fl.f, &fl.m, msg, sizeof msg), RUN_ERR_NOT_FOUND);
    ck_assert_ptr_eq(fl.m, m);
    ck_assert_msg(strstr(msg, "no such run directory"), "%s", msg);
    ck_assert_uint_eq(step_count(fl.m), 5);
    unfollow(&fl);
}
END_TEST

/* A log whose host is this one and whose pid is alive (this test's) but
 * whose recorder started on another boot: the monotonic start passes (it
 * lies ahead of this boot's clock), the wall-clock start (a day before
 * this process started) does not. */
START_TEST(pid_of_another_boot_is_not_running) {
    char run[300];
    new_run(run, sizeof run, "boot");
    struct utsname u;
    ck_assert_int_eq(uname(&u), 0);
    proc a, b;
    p_start(&a, run, "w_r1_1.scope", "r1", u.nodename, getpid(),
            clock_ns(CLOCK_REALTIME) - 86400 * SEC, clock_ns(CLOCK_MONOTONIC) + 3600 * SEC);
    p_frame(&a, 1);
    p_stop(&a);
    run_model *m = NULL;
    char msg[512];
    ck_assert_int_eq(run_load(run, NULL, &m, msg, sizeof msg), RUN_OK);
    ck_assert_uint_eq(m->nrunning, 0);
    ck_assert_int_eq(m->workers[0].end, RUN_END_KILLED);
    run_free(m);

    /* The same pid with its recorder's real start: running. */
    ck_assert_int_eq(unlink(a.path), 0);
    p_start(&b, run, "w_r1_2.scope", "r1", u.nodename, getpid(), clock_ns(CLOCK_REALTIME),
            clock_ns(CLOCK_MONOTONIC));
    p_frame(&b, 1);
    p_stop(&b);
    ck_assert_int_eq(run_load(run, NULL, &m, msg, sizeof msg), RUN_OK);
    ck_assert_uint_eq(m->nrunning, 1);
    run_free(m);
}
END_TEST

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/scope-run-follow-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(base)) {
        perror(base);
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("run_follow");
    TCase *tc = tcase_create("follow");
    tcase_add_test(tc, appended_frames_are_read_on);
    tcase_add_test(tc, frame_cut_mid_write_is_read_when_whole);
    tcase_add_test(tc, log_cut_back_is_read_again);
    tcase_add_test(tc, log_rewritten_past_its_first_bytes);
    tcase_add_test(tc, log_replaced_by_a_new_attempt);
    tcase_add_test(tc, log_removed_is_said);
    suite_add_tcase(s, tc);
    TCase *live = tcase_create("live");
    tcase_add_test(live, pid_of_another_boot_is_not_running);
    suite_add_tcase(s, live);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (!failed)
        nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
