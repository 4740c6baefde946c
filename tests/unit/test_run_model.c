/*
 * The analysis model (run_model.h) on run directories of hand-made logs.
 * Every log is written through the real writer with a synthetic clock, so
 * the cases that real programs cannot produce cheaply or deterministically
 * (a worker that went quiet ten minutes before the end, a log whose first
 * frame is gone, three attempts in one directory, records whose
 * definitions were lost) are set up exactly, and every figure and caveat is
 * checked against plain arithmetic and against what docs/report.md says.
 */
#define _GNU_SOURCE /* nftw */
#include "log_samples.h"
#include "run_builder.h"
#include "run_dir_loader.h"
#include "run_load.h"
#include "run_model.h"
#include "run_partial.h"
#include "unit_util.h"

#include <scope/log_format.h>
#include <scope/log_hist.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>

#define SEC 1000000000ull
/* 2026-11-30 12:00:00 UTC: every run starts here, so dates in caveats are fixed. */
#define T0 (1796040000ull * SEC)
/* Monotonic clocks start elsewhere: only their differences (frame gaps) count. */
#define MONO0 (7000ull * SEC)

static char base[256]; /* made in main, removed with everything under it at the end */

/* ---- scratch directories ------------------------------------------------- */

static void mkdirs(const char *path) {
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        ck_assert_msg(mkdir(p, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
        *s = '/';
    }
    ck_assert_msg(mkdir(p, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
}

/* A fresh run directory under base: tests never share files, and a failed
 * test leaves its files for main to remove. */
static void new_run(char *run, size_t cap, const char *tag) {
    snprintf(run, cap, "%s/%s-XXXXXX", base, tag);
    ck_assert_msg(mkdtemp(run) != NULL, "mkdtemp(%s): %s", run, strerror(errno));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void rm_tree(const char *dir) {
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- writing logs --------------------------------------------------------- */

/* Who a log says wrote it. */
typedef struct ident {
    const char *run_id, *host, *role, *job_id;
    int64_t pid;
    int32_t rank;      /* -1: no launcher said */
    uint64_t start_ns; /* recorder start, after T0 */
} ident;

static ident who(const char *run_id, const char *host, const char *role, int64_t pid,
                 int32_t rank) {
    return (ident){
        .run_id = run_id, .host = host, .role = role, .job_id = "", .pid = pid, .rank = rank};
}

typedef struct wlog {
    scope_log_writer *w;
    int fd;
    uint64_t start_ns; /* frame times are given from here */
} wlog;

static scope_bytes bytes(const char *s) {
    return (scope_bytes){(const uint8_t *)s, strlen(s)};
}

static void put(wlog *l, scope_record r) {
    int rc = scope_log_writer_add(l->w, &r);
    ck_assert_msg(rc == 0, "scope_log_writer_add(type %u): %s", r.type, strerror(-rc));
}

/* An empty log at RUN/workers/HOST/FILE, as the recorder creates it. */
static void w_create(wlog *l, const char *run, const char *host, const char *file,
                     uint64_t start_ns) {
    char dir[512], path[768];
    snprintf(dir, sizeof dir, "%s/workers/%s", run, host);
    mkdirs(dir);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    l->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    ck_assert_msg(l->fd >= 0, "open %s: %s", path, strerror(errno));
    scope_log_writer_options opt = {0, 64 * 1024};
    ck_assert_int_eq(scope_log_writer_open(&l->w, l->fd, &opt), 0);
    l->start_ns = start_ns;
}

static void w_process(wlog *l, const ident *id) {
    put(l, (scope_record){.type = SCOPE_REC_PROCESS,
                          .u.process = {
                              .run_id = bytes(id->run_id),
                              .uuid = bytes("0badcafe"),
                              .host = bytes(id->host),
                              .role = bytes(id->role),
                              .job_id = bytes(id->job_id),
                              .step_id = bytes(""),
                              .exe = bytes("/opt/bin/worker"),
                              .cwd = bytes("/scratch"),
                              .recorder_version = bytes("test"),
                              .pid = id->pid,
                              .ppid = 1,
                              .rank = id->rank,
                              .local_rank = id->rank,
                              .node_rank = -1,
                              .world_size = id->rank >= 0 ? 64 : -1,
                              .start_wall_ns = T0 + id->start_ns,
                              .start_mono_ns = MONO0 + id->start_ns,
                          }});
}

/* A log whose first frame will hold the PROCESS record. */
static void w_open(wlog *l, const char *run, const ident *id) {
    char file[256];
    snprintf(file, sizeof file, "w_%s_%lld.%s", id->run_id, (long long)id->pid, SCOPE_LOG_FILE_EXT);
    w_create(l, run, id->host, file, id->start_ns);
    w_process(l, id);
}

static void w_string(wlog *l, uint32_t id, const char *s) {
    put(l, (scope_record){.type = SCOPE_REC_STRING, .u.string = {id, bytes(s)}});
}

/* Names with ids 1, 2, 3 ... in the order given; NULL ends the list. */
static void w_names(wlog *l, ...) {
    va_list ap;
    va_start(ap, l);
    uint32_t id = 1;
    for (const char *s; (s = va_arg(ap, const char *)) != NULL; id++)
        w_string(l, id, s);
    va_end(ap);
}

static void w_node(wlog *l, uint32_t id, uint32_t parent, uint32_t name, uint32_t thread) {
    put(l, (scope_record){
               .type = SCOPE_REC_PHASE_NODE,
               .u.phase_node = {.id = id, .parent = parent, .name = name, .thread = thread}});
}

static void w_agg(wlog *l, scope_rec_phase_agg a) {
    put(l, (scope_record){.type = SCOPE_REC_PHASE_AGG, .u.phase_agg = a});
}

/* A node and its aggregate: `count` entries of equal length, no CPU time,
 * no histogram. */
static void w_phase(wlog *l, uint32_t id, uint32_t parent, uint32_t name, uint32_t thread,
                    uint64_t count, uint64_t wall) {
    w_node(l, id, parent, name, thread);
    uint64_t each = count ? wall / count : 0;
    w_agg(l, (scope_rec_phase_agg){
                 .node = id, .count = count, .wall_ns = wall, .min_ns = each, .max_ns = each});
}

static void w_counter(wlog *l, uint32_t id, uint32_t name, uint32_t node, uint32_t thread,
                      uint64_t calls, int64_t total) {
    put(l, (scope_record){.type = SCOPE_REC_COUNTER,
                          .u.counter = {id, name, node, thread, calls, total}});
}

static void w_mark(wlog *l, uint32_t kind, uint32_t thread, int64_t value, const char *text) {
    put(l, (scope_record){.type = SCOPE_REC_MARK, .u.mark = {kind, thread, 0, value, bytes(text)}});
}

/* Closes the open frame `t` ns after the log's recorder start. */
static void w_frame(wlog *l, uint32_t reason, uint64_t t) {
    uint64_t at = l->start_ns + t;
    long rc = scope_log_writer_close_frame(l->w, reason, MONO0 + at, T0 + at);
    ck_assert_msg(rc > 0, "close_frame: %s", strerror((int)-rc));
}

/* Periodic frames at from, from + step, ... while <= to. */
static void w_periodic(wlog *l, uint64_t from, uint64_t to, uint64_t step) {
    for (uint64_t t = from; t <= to; t += step)
        w_frame(l, SCOPE_FRAME_PERIODIC, t);
}

/* The process stops writing with no exit frame: SIGKILL, a crash, a hang. */
static void w_killed(wlog *l) {
    scope_log_writer_free(l->w);
    close(l->fd);
}

/* The exit frame, as scope_shutdown or atexit writes it. */
static void w_exit(wlog *l, uint64_t t) {
    w_mark(l, SCOPE_MARK_SHUTDOWN, 0, SCOPE_SHUTDOWN_EXIT, "");
    w_frame(l, SCOPE_FRAME_EXIT, t);
    w_killed(l);
}

/* The frame the signal handler writes before the signal ends the process. */
static void w_signaled(wlog *l, uint64_t t, int sig) {
    w_mark(l, SCOPE_MARK_SIGNAL, 0, sig, strsignal(sig));
    w_frame(l, SCOPE_FRAME_SIGNAL, t);
    w_killed(l);
}

/* One process of ROLE: a top-level phase "step" of `phase_ns` in one
 * entry, frames every `step` seconds from its start to `last` seconds, then
 * an exit frame at `last` when `clean`. */
static void simple_worker(const char *run, const ident *id, uint64_t phase_ns, uint64_t last_s,
                          uint64_t step_s, int clean) {
    wlog l;
    w_open(&l, run, id);
    w_names(&l, "step", NULL);
    w_phase(&l, 1, 0, 1, 1, 1, phase_ns);
    w_periodic(&l, 0, clean ? last_s * SEC - 1 : last_s * SEC, step_s * SEC);
    if (clean)
        w_exit(&l, last_s * SEC);
    else
        w_killed(&l);
}

/* ---- reading the model ----------------------------------------------------- */

static run_model *load_with(const char *run, const run_options *opt) {
    run_model *m = NULL;
    char msg[512] = "";
    enum run_load_error e = run_load(run, opt, &m, msg, sizeof msg);
    ck_assert_msg(e == RUN_OK, "run_load(%s): error %d: %s", run, (int)e, msg);
    ck_assert_ptr_nonnull(m);
    return m;
}

static run_model *load(const char *run) {
    return load_with(run, NULL);
}

static size_t worker_of(const run_model *m, int64_t pid) {
    for (size_t i = 0; i < m->nworkers; i++)
        if (m->workers[i].has_process && m->workers[i].pid == pid)
            return i;
    ck_abort_msg("no worker with pid %lld", (long long)pid);
    return SIZE_MAX;
}

/* The first caveat of that kind about that worker (SIZE_MAX: the run). */
static const run_caveat *caveat_of(const run_model *m, enum run_caveat_kind kind, size_t worker) {
    for (size_t i = 0; i < m->ncaveats; i++)
        if (m->caveats[i].kind == kind && m->caveats[i].worker == worker)
            return &m->caveats[i];
    return NULL;
}

static const char *caveat_text(const run_model *m, enum run_caveat_kind kind, size_t worker) {
    const run_caveat *c = caveat_of(m, kind, worker);
    ck_assert_msg(c != NULL, "no %s caveat for worker %zu", run_caveat_kind_name(kind), worker);
    return c->text;
}

static size_t count_caveats(const run_model *m, enum run_caveat_kind kind) {
    size_t n = 0;
    for (size_t i = 0; i < m->ncaveats; i++)
        n += m->caveats[i].kind == kind;
    return n;
}

static const run_role *role_of(const run_model *m, const char *name) {
    const run_role *r = run_find_role(m, name);
    ck_assert_msg(r != NULL, "no role %s", name);
    return r;
}

static const run_phase *phase_of(const run_role *r, const char *path) {
    const run_phase *p = run_find_phase(r, path);
    ck_assert_msg(p != NULL, "no phase %s", path);
    return p;
}

/* Where a worker sits in its role's order (per_proc_ns follows it). */
static size_t slot_of(const run_role *r, size_t worker) {
    for (size_t k = 0; k < r->nprocs; k++)
        if (r->workers[k] == worker)
            return k;
    ck_abort_msg("worker %zu is not in role", worker);
    return SIZE_MAX;
}

/* What the model says a histogram bucket stands for: its midpoint. */
static double mid(uint64_t value) {
    uint32_t b = scope_hist_bucket(value);
    return ((double)scope_hist_lower(b) + (double)scope_hist_upper(b)) / 2;
}

/* ---- how workers ended ------------------------------------------------------ */

/* The run ends at 20 min (B's exit).  A went quiet at 10 min with 5 s frames;
 * C exited cleanly at 5 min; D was killed 10 s and G 25 s before the end,
 * both under the 30 s floor (3 of their 5 s intervals would be 15 s).  E and
 * F wrote a frame a minute, so 3 of their intervals is 3 min: E, 2.5 min
 * behind, is only killed; F, 4 min behind, is stale. */
START_TEST(stale_and_killed_workers) {
    char run[512];
    new_run(run, sizeof run, "stale");
    ident b = who("r1", "h1", "w", 200, -1), a = who("r1", "h1", "w", 100, -1);
    ident c = who("r1", "h1", "w", 300, -1), d = who("r1", "h2", "w", 400, -1);
    ident e = who("r1", "h2", "w", 500, -1), f = who("r1", "h2", "w", 600, -1);
    ident g = who("r1", "h2", "w", 700, -1);
    simple_worker(run, &b, 1000, 1200, 5, 1);
    simple_worker(run, &a, 1000, 600, 5, 0);
    simple_worker(run, &c, 1000, 300, 5, 1);
    simple_worker(run, &d, 1000, 1190, 5, 0);
    simple_worker(run, &f, 1000, 960, 60, 0);
    simple_worker(run, &g, 1000, 1175, 5, 0);
    wlog l; /* E: a minute apart, then one last frame half a minute later */
    w_open(&l, run, &e);
    w_periodic(&l, 0, 1020 * SEC, 60 * SEC);
    w_frame(&l, SCOPE_FRAME_PERIODIC, 1050 * SEC);
    w_killed(&l);
    run_model *m = load(run);
    ck_assert_uint_eq(m->nprocs, 7);
    ck_assert_uint_eq(m->end_wall_ns, T0 + 1200 * SEC);

    size_t ia = worker_of(m, 100);
    const run_worker *wa = &m->workers[ia];
    ck_assert_int_eq(wa->end, RUN_END_KILLED);
    ck_assert_int_eq(wa->stale, 1);
    ck_assert_uint_eq(wa->stale_ns, 600 * SEC);
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_STALE, ia),
                     "w pid 100 on h1: stale: it stopped writing 10m 0s before the run's end "
                     "while other workers went on; its figures end there");
    /* Stale says more than killed, so a stale worker is not also "killed". */
    ck_assert_ptr_null(caveat_of(m, RUN_CAVEAT_KILLED, ia));
    ck_assert_uint_eq(wa->ncaveats, 1);

    /* An early, clean exit is not stale: it said it was done. */
    size_t ic = worker_of(m, 300);
    ck_assert_int_eq(m->workers[ic].end, RUN_END_EXIT);
    ck_assert_int_eq(m->workers[ic].stale, 0);
    ck_assert_uint_eq(m->workers[ic].stale_ns, 0);
    ck_assert_uint_eq(m->workers[ic].ncaveats, 0);
    ck_assert_uint_eq(m->workers[worker_of(m, 200)].ncaveats, 0);

    /* Under the 30 s floor: killed, not stale. */
    size_t id = worker_of(m, 400);
    ck_assert_int_eq(m->workers[id].end, RUN_END_KILLED);
    ck_assert_int_eq(m->workers[id].stale, 0);
    ck_assert_uint_eq(m->workers[id].stale_ns, 0);
    ck_assert_ptr_null(caveat_of(m, RUN_CAVEAT_STALE, id));
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_KILLED, id),
                     "w pid 400 on h2: never shut down cleanly (killed, crashed, or still "
                     "running); its figures end at its last frame, 10.0s before the run's end");
    size_t ig = worker_of(m, 700);
    ck_assert_int_eq(m->workers[ig].stale, 0);
    ck_assert_ptr_nonnull(strstr(caveat_text(m, RUN_CAVEAT_KILLED, ig), ", 25.0s before"));

    /* The threshold follows the worker's own largest frame gap. */
    size_t ie = worker_of(m, 500);
    ck_assert_int_eq(m->workers[ie].stale, 0);
    ck_assert_ptr_nonnull(strstr(caveat_text(m, RUN_CAVEAT_KILLED, ie), ", 2m 30s before"));
    size_t i_f = worker_of(m, 600);
    ck_assert_int_eq(m->workers[i_f].stale, 1);
    ck_assert_uint_eq(m->workers[i_f].stale_ns, 240 * SEC);
    ck_assert_ptr_nonnull(strstr(caveat_text(m, RUN_CAVEAT_STALE, i_f), "writing 4m 0s before"));
    ck_assert_uint_eq(count_caveats(m, RUN_CAVEAT_STALE), 2);
    ck_assert_uint_eq(count_caveats(m, RUN_CAVEAT_KILLED), 3);
    run_free(m);
}
END_TEST

START_TEST(ended_by_signal) {
    char run[512];
    new_run(run, sizeof run, "signal");
    ident anchor = who("r1", "h", "w", 10, -1);
    simple_worker(run, &anchor, 1000, 100, 5, 1);

    /* SIGTERM: the handler's frame, with the signal mark, is its last. */
    ident term = who("r1", "h", "w", 20, -1);
    wlog l;
    w_open(&l, run, &term);
    w_names(&l, "step", NULL);
    w_phase(&l, 1, 0, 1, 1, 1, 500);
    w_periodic(&l, 0, 95 * SEC, 5 * SEC);
    w_signaled(&l, 98 * SEC, SIGTERM);

    /* SIGUSR1 asked for a flush and the process went on: the signal did
     * not end it, and no exit frame followed. */
    ident usr = who("r1", "h", "w", 30, -1);
    w_open(&l, run, &usr);
    w_periodic(&l, 0, 45 * SEC, 5 * SEC);
    w_mark(&l, SCOPE_MARK_SIGNAL, 0, SIGUSR1, "User defined signal 1");
    w_frame(&l, SCOPE_FRAME_SIGNAL, 47 * SEC);
    w_periodic(&l, 50 * SEC, 99 * SEC, 5 * SEC);
    w_killed(&l);

    /* SIGINT handled, then a clean shutdown. */
    ident intr = who("r1", "h", "w", 40, -1);
    w_open(&l, run, &intr);
    w_periodic(&l, 0, 90 * SEC, 5 * SEC);
    w_mark(&l, SCOPE_MARK_SIGNAL, 0, SIGINT, "Interrupt");
    w_frame(&l, SCOPE_FRAME_SIGNAL, 92 * SEC);
    w_exit(&l, 99 * SEC);

    /* SIGTERM a minute before the others ended: long enough to be stale,
     * but a signal ended it on purpose, and the caveat says that instead. */
    ident early = who("r1", "h", "w", 50, -1);
    w_open(&l, run, &early);
    w_periodic(&l, 0, 35 * SEC, 5 * SEC);
    w_signaled(&l, 40 * SEC, SIGTERM);

    run_model *m = load(run);
    size_t ie = worker_of(m, 50);
    ck_assert_int_eq(m->workers[ie].end, RUN_END_SIGNAL);
    ck_assert_int_eq(m->workers[ie].stale, 0);
    ck_assert_ptr_null(caveat_of(m, RUN_CAVEAT_STALE, ie));
    ck_assert_ptr_nonnull(caveat_of(m, RUN_CAVEAT_SIGNALED, ie));
    size_t it = worker_of(m, 20);
    ck_assert_int_eq(m->workers[it].end, RUN_END_SIGNAL);
    ck_assert_int_eq(m->workers[it].end_signal, SIGTERM);
    ck_assert_int_eq(m->workers[it].stale, 0);
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_SIGNALED, it),
                     "w pid 20 on h: ended by signal 15 (SIGTERM) after writing its figures; "
                     "nothing after the signal was recorded");
    ck_assert_ptr_null(caveat_of(m, RUN_CAVEAT_KILLED, it));
    ck_assert_uint_eq(m->workers[it].ncaveats, 1);

    size_t iu = worker_of(m, 30);
    ck_assert_int_eq(m->workers[iu].end, RUN_END_KILLED);
    ck_assert_int_eq(m->workers[iu].end_signal, 0);
    ck_assert_ptr_nonnull(caveat_of(m, RUN_CAVEAT_KILLED, iu));
    ck_assert_ptr_null(caveat_of(m, RUN_CAVEAT_SIGNALED, iu));

    size_t ii = worker_of(m, 40);
    ck_assert_int_eq(m->workers[ii].end, RUN_END_EXIT);
    ck_assert_uint_eq(m->workers[ii].ncaveats, 0);
    ck_assert_uint_eq(count_caveats(m, RUN_CAVEAT_SIGNALED), 2);
    run_free(m);
}
END_TEST

/* A phase's call site is named as the compiler saw the file
 * ("programs/../lib/io.c"): shown normalised, as the hot lines' files are;
 * a leading ".." of a relative path stays. */
START_TEST(phase_files_normalised) {
    char run[512];
    new_run(run, sizeof run, "phasefile");
    ident id = who("r1", "h", "w", 10, -1);
    wlog l;
    w_open(&l, run, &id);
    w_names(&l, "read", "programs/../lib/./io.c", "write", "../src//out.c", NULL);
    put(&l,
        (scope_record){.type = SCOPE_REC_PHASE_NODE,
                       .u.phase_node = {.id = 1, .name = 1, .thread = 1, .file = 2, .line = 7}});
    put(&l,
        (scope_record){.type = SCOPE_REC_PHASE_NODE,
                       .u.phase_node = {.id = 2, .name = 3, .thread = 1, .file = 4, .line = 9}});
    w_agg(&l,
          (scope_rec_phase_agg){.node = 1, .count = 1, .wall_ns = 10, .min_ns = 10, .max_ns = 10});
    w_agg(&l,
          (scope_rec_phase_agg){.node = 2, .count = 1, .wall_ns = 10, .min_ns = 10, .max_ns = 10});
    w_exit(&l, 1 * SEC);
    run_model *m = load(run);
    const run_phase *read = phase_of(&m->roles[0], "read");
    ck_assert_str_eq(read->file.s, "lib/io.c");
    ck_assert_uint_eq(read->file.len, strlen("lib/io.c"));
    ck_assert_uint_eq(read->line, 7);
    const run_phase *write = phase_of(&m->roles[0], "write");
    ck_assert_str_eq(write->file.s, "../src/out.c");
    ck_assert_uint_eq(write->file.len, strlen("../src/out.c"));
    run_free(m);
}
END_TEST

/* ---- the recorder's own marks ---------------------------------------------- */

START_TEST(recorder_marks) {
    static const char end_empty[] = "scope_phase_end() with no phase open";
    static const char dropped[] = "entries or counts not recorded";
    char run[512];
    new_run(run, sizeof run, "marks");
    ident id = who("r1", "h", "w", 77, -1);
    wlog l;
    w_open(&l, run, &id);
    w_mark(&l, SCOPE_MARK_CAVEAT, 0, 0, "clock \x1b[2J jumped");
    w_mark(&l, SCOPE_MARK_UNBALANCED, 1, 2, end_empty);
    w_mark(&l, SCOPE_MARK_DROPPED, 1, 4, dropped);
    w_frame(&l, SCOPE_FRAME_PERIODIC, 0);
    /* Running totals per thread: the newest counts, threads add. */
    w_mark(&l, SCOPE_MARK_UNBALANCED, 1, 5, end_empty);
    w_mark(&l, SCOPE_MARK_UNBALANCED, 2, 3, end_empty);
    w_mark(&l, SCOPE_MARK_DROPPED, 1, 7, dropped);
    w_mark(&l, SCOPE_MARK_DROPPED, 2, 1, dropped);
    w_mark(&l, SCOPE_MARK_CAVEAT, 0, 0, "clock \x1b[2J jumped"); /* said once */
    w_mark(&l, SCOPE_MARK_FLUSH_FAILED, 0, ENOSPC,
           "writing frames failed (No space left on device); what they held follows");
    w_frame(&l, SCOPE_FRAME_PERIODIC, 5 * SEC);
    /* Phases left open: one mark per thread, saying how many. */
    w_mark(&l, SCOPE_MARK_UNBALANCED, 2, 9, "1 phase(s) still open when its thread exited");
    w_frame(&l, SCOPE_FRAME_PERIODIC, 10 * SEC);
    w_mark(&l, SCOPE_MARK_UNBALANCED, 1, 4, "2 phase(s) still open at exit");
    w_exit(&l, 12 * SEC);

    run_model *m = load(run);
    size_t i = worker_of(m, 77);
    const run_worker *w = &m->workers[i];
    ck_assert_int_eq(w->end, RUN_END_EXIT);
    ck_assert_uint_eq(w->unbalanced, 5 + 3 + 1 + 2);
    ck_assert_uint_eq(w->dropped, 7 + 1);
    ck_assert_int_eq(w->flush_failed, 1);
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_UNBALANCED, i),
                     "w pid 77 on h: 11 unbalanced phases (scope_phase_end() with no phase "
                     "open of its own, scope_phase_begin() left open inside a block, or phases "
                     "left open at exit): the phases around them may be cut short");
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_DROPPED, i),
                     "w pid 77 on h: the recorder dropped 8 entries or counts (nested too deep, "
                     "past a per-thread limit, name table full, or no memory): the counts shown "
                     "are short by that much");
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_FLUSH_FAILED, i),
                     "w pid 77 on h: some frames could not be written when due (a full disk or a "
                     "file size limit); figures from that time reached the log late or not at "
                     "all");
    /* The recorder's words, escaped, each distinct text once, in order. */
    ck_assert_uint_eq(count_caveats(m, RUN_CAVEAT_RECORDER), 3);
    const run_caveat *rc = caveat_of(m, RUN_CAVEAT_RECORDER, i);
    ck_assert_str_eq(rc[0].text, "w pid 77 on h: the recorder says: clock \\x1b[2J jumped");
    ck_assert_int_eq(rc[1].kind, RUN_CAVEAT_RECORDER);
    ck_assert_str_eq(rc[1].text,
                     "w pid 77 on h: the recorder says: 1 phase(s) still open when its thread "
                     "exited");
    ck_assert_str_eq(rc[2].text, "w pid 77 on h: the recorder says: 2 phase(s) still open at exit");
    ck_assert_uint_eq(w->ncaveats, 6);
    run_free(m);
}
END_TEST

/* ---- logs that cannot be read or placed ------------------------------------ */

/* An unbalanced mark as a 1.1 writer writes it: what it counts in fields. */
static void w_unbalanced(wlog *l, uint32_t subkind, uint32_t thread, int64_t value, int64_t value2,
                         const char *text) {
    put(l, (scope_record){.type = SCOPE_REC_MARK,
                          .u.mark = {.kind = SCOPE_MARK_UNBALANCED,
                                     .thread = thread,
                                     .value = value,
                                     .text = bytes(text),
                                     .subkind = subkind,
                                     .value2 = value2}});
}

/* A mark with the body a 1.0 writer gave it: nothing after its text. */
static void w_mark_1_0(wlog *l, uint32_t kind, uint32_t thread, int64_t value, const char *text) {
    uint8_t body[512];
    size_t n = log_sample_mark_1_0(body, sizeof body, kind, thread, 0, value, text);
    ck_assert_uint_le(n, sizeof body);
    ck_assert_int_eq(scope_log_writer_add_raw(l->w, SCOPE_REC_MARK, body, n), 0);
}

/* Format 1.1: the subkind and value2 say what an unbalanced mark counts,
 * and its text is only shown.  Texts worded nothing like the 1.0 writer's
 * (one even misleading) count by their fields alone. */
START_TEST(unbalanced_marks_by_subkind) {
    char run[512];
    new_run(run, sizeof run, "marks-subkind");
    ident id = who("r1", "h", "w", 78, -1);
    wlog l;
    w_open(&l, run, &id);
    w_unbalanced(&l, SCOPE_UNBALANCED_END_EMPTY, 1, 2, 0, "");
    w_frame(&l, SCOPE_FRAME_PERIODIC, 0);
    w_unbalanced(&l, SCOPE_UNBALANCED_END_EMPTY, 1, 5, 0, "ends found nothing open");
    w_unbalanced(&l, SCOPE_UNBALANCED_END_EMPTY, 2, 3, 0, "");
    w_unbalanced(&l, SCOPE_UNBALANCED_LEFT_OPEN, 2, 9, 1, "a phase was never closed");
    w_unbalanced(&l, SCOPE_UNBALANCED_LEFT_OPEN, 1, 4, 2,
                 "scope_phase_end(): 7 phase(s) still open");
    w_exit(&l, 12 * SEC);

    run_model *m = load(run);
    size_t i = worker_of(m, 78);
    ck_assert_uint_eq(m->workers[i].unbalanced, 5 + 3 + 1 + 2);
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_UNBALANCED, i),
                     "w pid 78 on h: 11 unbalanced phases (scope_phase_end() with no phase "
                     "open of its own, scope_phase_begin() left open inside a block, or phases "
                     "left open at exit): the phases around them may be cut short");
    ck_assert_uint_eq(count_caveats(m, RUN_CAVEAT_RECORDER), 2);
    const run_caveat *rc = caveat_of(m, RUN_CAVEAT_RECORDER, i);
    ck_assert_str_eq(rc[0].text, "w pid 78 on h: the recorder says: a phase was never closed");
    ck_assert_str_eq(rc[1].text,
                     "w pid 78 on h: the recorder says: scope_phase_end(): 7 phase(s) still open");
    run_free(m);
}
END_TEST

/* A log written by format 1.0 (marks without subkind or value2) reads with
 * the figures and caveats a 1.1 log of the same events gives. */
START_TEST(unbalanced_marks_of_format_1_0) {
    static const char end_empty[] = "scope_phase_end() with no phase open";
    char run[2][512];
    for (int v = 0; v < 2; v++) {
        new_run(run[v], sizeof run[v], v ? "marks-1-1" : "marks-1-0");
        ident id = who("r1", "h", "w", 79, -1);
        wlog l;
        w_open(&l, run[v], &id);
        if (v == 0) {
            w_mark_1_0(&l, SCOPE_MARK_UNBALANCED, 1, 5, end_empty);
            w_mark_1_0(&l, SCOPE_MARK_UNBALANCED, 2, 3, end_empty);
            w_mark_1_0(&l, SCOPE_MARK_UNBALANCED, 2, 9,
                       "1 phase(s) still open when its thread exited");
            w_mark_1_0(&l, SCOPE_MARK_UNBALANCED, 1, 4, "2 phase(s) still open at exit");
            w_mark_1_0(&l, SCOPE_MARK_UNBALANCED, 3, 6, "left open, count unsaid");
        } else {
            w_unbalanced(&l, SCOPE_UNBALANCED_END_EMPTY, 1, 5, 0, end_empty);
            w_unbalanced(&l, SCOPE_UNBALANCED_END_EMPTY, 2, 3, 0, end_empty);
            w_unbalanced(&l, SCOPE_UNBALANCED_LEFT_OPEN, 2, 9, 1,
                         "1 phase(s) still open when its thread exited");
            w_unbalanced(&l, SCOPE_UNBALANCED_LEFT_OPEN, 1, 4, 2, "2 phase(s) still open at exit");
            w_unbalanced(&l, SCOPE_UNBALANCED_LEFT_OPEN, 3, 6, 1, "left open, count unsaid");
        }
        w_exit(&l, 12 * SEC);
    }
    run_model *old = load(run[0]), *cur = load(run[1]);
    ck_assert_uint_eq(old->workers[0].unbalanced, 5 + 3 + 1 + 2 + 1);
    ck_assert_uint_eq(old->workers[0].unbalanced, cur->workers[0].unbalanced);
    ck_assert_uint_eq(old->ncaveats, cur->ncaveats);
    for (size_t k = 0; k < old->ncaveats; k++) {
        ck_assert_int_eq(old->caveats[k].kind, cur->caveats[k].kind);
        ck_assert_str_eq(old->caveats[k].text, cur->caveats[k].text);
    }
    run_free(old);
    run_free(cur);
}
END_TEST

START_TEST(unreadable_and_unidentified_logs) {
    char run[512], path[768];
    new_run(run, sizeof run, "lost");
    ident good = who("r1", "h", "w", 5, -1);
    simple_worker(run, &good, 1000, 30, 5, 1);
    /* Sorted by path: a_empty, b_garbage, w_r1_5, x_headless. */
    snprintf(path, sizeof path, "%s/workers/h/a_empty.scope", run);
    ck_assert_int_eq(log_sample_write_file(path, "", 0), 0);
    snprintf(path, sizeof path, "%s/workers/h/b_garbage.scope", run);
    ck_assert_int_eq(log_sample_write_file(path, "not a log at all\n", 17), 0);
    snprintf(path, sizeof path, "%s/workers/h/notes.txt", run);
    ck_assert_int_eq(log_sample_write_file(path, "ignored", 7), 0);
    /* Its first frame, the one with the PROCESS record, is gone. */
    wlog l;
    w_create(&l, run, "h", "x_headless.scope", 0);
    w_names(&l, "step", NULL);
    w_phase(&l, 1, 0, 1, 1, 3, 999);
    w_frame(&l, SCOPE_FRAME_PERIODIC, 5 * SEC);
    w_exit(&l, 10 * SEC);

    run_model *m = load(run);
    ck_assert_uint_eq(m->nworkers, 4);
    ck_assert_str_eq(m->workers[0].path.s, "workers/h/a_empty.scope");
    ck_assert_str_eq(m->workers[1].path.s, "workers/h/b_garbage.scope");
    ck_assert_str_eq(m->workers[3].path.s, "workers/h/x_headless.scope");
    for (size_t i = 0; i < 2; i++) {
        const run_worker *w = &m->workers[i];
        ck_assert_int_eq(w->readable, 0);
        ck_assert_int_eq(w->end, RUN_END_UNKNOWN);
        ck_assert_uint_eq(w->attempt, SIZE_MAX);
        ck_assert_uint_eq(w->role_index, SIZE_MAX);
        const char *t = caveat_text(m, RUN_CAVEAT_UNREADABLE, i);
        char want[128];
        snprintf(want, sizeof want, "%s: could not be read (", m->workers[i].path.s);
        ck_assert_msg(!strncmp(t, want, strlen(want)), "%s", t);
        ck_assert_ptr_nonnull(strstr(t, "); that process is missing from every figure"));
    }
    const run_worker *h = &m->workers[3];
    ck_assert_int_eq(h->readable, 1);
    ck_assert_int_eq(h->has_process, 0);
    ck_assert_uint_eq(h->attempt, SIZE_MAX);
    ck_assert_uint_eq(h->role_index, SIZE_MAX);
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_NO_IDENTITY, 3),
                     "workers/h/x_headless.scope: its first frame was lost, so its run, role "
                     "and host are unknown; its figures are left out");
    ck_assert_uint_eq(h->ncaveats, 1);

    /* The rest of the run loads, and the lost logs add nothing to it. */
    ck_assert_uint_eq(m->nattempts, 1);
    ck_assert_uint_eq(m->nprocs, 1);
    ck_assert_uint_eq(m->nroles, 1);
    ck_assert_uint_eq(m->roles[0].nprocs, 1);
    ck_assert_uint_eq(m->roles[0].phase_ns, 1000);
    ck_assert_uint_eq(phase_of(&m->roles[0], "step")->dist.count, 1);
    ck_assert_uint_eq(m->workers[2].role_index, 0);
    ck_assert_uint_eq(m->ncaveats, 3);
    run_free(m);
}
END_TEST

/* ---- the run header and attempts ------------------------------------------- */

START_TEST(run_header) {
    char run[512];
    new_run(run, sizeof run, "header");
    static const struct {
        const char *host, *job;
        int64_t pid;
        int32_t rank;
        uint64_t start_s, last_s;
    } procs[] = {
        {"nodeB", "9002", 1, 5, 10, 40},
        {"nodeA", "9001", 2, 2, 3, 33},
        {"nodeB", "", 3, -1, 7, 37},
        {"nodeC", "9002", 4, 7, 20, 50},
    };
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        ident id = who("r1", procs[i].host, "w", procs[i].pid, procs[i].rank);
        id.job_id = procs[i].job;
        id.start_ns = procs[i].start_s * SEC;
        simple_worker(run, &id, 100, procs[i].last_s - procs[i].start_s, 5, 1);
    }
    run_model *m = load(run);
    ck_assert_uint_eq(m->nattempts, 1);
    ck_assert_str_eq(m->attempts[0].run_id.s, "r1");
    ck_assert_uint_eq(m->attempts[0].nworkers, 4);
    ck_assert_uint_eq(m->nprocs, 4);
    ck_assert_uint_eq(m->nhosts, 3);
    ck_assert_str_eq(m->hosts[0].s, "nodeA");
    ck_assert_str_eq(m->hosts[1].s, "nodeB");
    ck_assert_str_eq(m->hosts[2].s, "nodeC");
    ck_assert_uint_eq(m->nranked, 3);
    ck_assert_int_eq(m->rank_min, 2);
    ck_assert_int_eq(m->rank_max, 7);
    ck_assert_uint_eq(m->njob_ids, 2);
    ck_assert_str_eq(m->job_id.s, "9001");
    /* From the earliest recorder start to the newest frame. */
    ck_assert_uint_eq(m->start_wall_ns, T0 + 3 * SEC);
    ck_assert_uint_eq(m->end_wall_ns, T0 + 50 * SEC);
    ck_assert_uint_eq(m->runtime_ns, 47 * SEC);
    ck_assert_uint_eq(m->workers[worker_of(m, 4)].runtime_ns, 30 * SEC);
    ck_assert_uint_eq(m->ncaveats, 0);
    run_free(m);
}
END_TEST

/* Three attempts whose run ids sort the other way round from their starts. */
START_TEST(attempts_newest_shown) {
    char run[512];
    new_run(run, sizeof run, "attempts");
    static const struct {
        const char *run_id, *role;
        int64_t pid;
        uint64_t start_s;
        int clean;
    } procs[] = {
        {"c-first", "old", 11, 0, 1},     {"c-first", "old", 12, 2, 1},
        {"b-second", "old", 21, 3600, 0}, {"a-third", "new", 31, 7200, 1},
        {"a-third", "new", 32, 7201, 1},  {"a-third", "new", 33, 7202, 1},
    };
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        ident id = who(procs[i].run_id, "h", procs[i].role, procs[i].pid, -1);
        id.start_ns = procs[i].start_s * SEC;
        simple_worker(run, &id, 100, 60, 5, procs[i].clean);
    }
    run_model *m = load(run);
    ck_assert_uint_eq(m->nattempts, 3);
    ck_assert_str_eq(m->attempts[0].run_id.s, "c-first");
    ck_assert_uint_eq(m->attempts[0].nworkers, 2);
    ck_assert_uint_eq(m->attempts[0].start_wall_ns, T0);
    ck_assert_uint_eq(m->attempts[0].end_wall_ns, T0 + 62 * SEC);
    ck_assert_str_eq(m->attempts[1].run_id.s, "b-second");
    ck_assert_uint_eq(m->attempts[1].nworkers, 1);
    ck_assert_str_eq(m->attempts[2].run_id.s, "a-third");
    ck_assert_uint_eq(m->attempts[2].nworkers, 3);

    /* Only the newest is shown. */
    ck_assert_uint_eq(m->nprocs, 3);
    ck_assert_uint_eq(m->start_wall_ns, T0 + 7200 * SEC);
    ck_assert_uint_eq(m->runtime_ns, 62 * SEC);
    ck_assert_uint_eq(m->nroles, 1);
    ck_assert_str_eq(m->roles[0].name.s, "new");
    ck_assert_uint_eq(m->roles[0].phase_ns, 300);
    ck_assert_ptr_null(run_find_role(m, "old"));
    size_t old = worker_of(m, 21);
    ck_assert_uint_eq(m->workers[old].attempt, 1);
    ck_assert_uint_eq(m->workers[old].role_index, SIZE_MAX);
    /* A superseded worker that never shut down is not a caveat of its own. */
    ck_assert_uint_eq(m->workers[old].ncaveats, 0);
    ck_assert_uint_eq(m->workers[worker_of(m, 32)].attempt, 2);
    /* Last frames as time into each worker's own attempt. */
    ck_assert_uint_eq(m->workers[worker_of(m, 11)].last_in_attempt_ns, 60 * SEC);
    ck_assert_uint_eq(m->workers[worker_of(m, 12)].last_in_attempt_ns, 62 * SEC);
    ck_assert_uint_eq(m->workers[worker_of(m, 31)].last_in_attempt_ns, 60 * SEC);
    ck_assert_uint_eq(m->workers[worker_of(m, 33)].last_in_attempt_ns, 62 * SEC);

    ck_assert_uint_eq(m->ncaveats, 1);
    ck_assert_int_eq(m->caveats[0].kind, RUN_CAVEAT_SUPERSEDED);
    ck_assert_uint_eq(m->caveats[0].worker, SIZE_MAX);
    ck_assert_str_eq(m->caveats[0].text,
                     "2 earlier attempts in this directory are not shown or merged (--attempt "
                     "N, or A in the Overview, shows one): c-first (2 processes, 2026-11-30 "
                     "12:00:00 UTC), b-second (1 process, 2026-11-30 13:00:00 UTC)");
    ck_assert_uint_eq(m->shown_attempt, 2);
    run_free(m);

    /* --attempt 1: the oldest, its roles and header, the others named. */
    m = load_with(run, &(run_options){.attempt = 1});
    ck_assert_uint_eq(m->shown_attempt, 0);
    ck_assert_uint_eq(m->nprocs, 2);
    ck_assert_uint_eq(m->start_wall_ns, T0);
    ck_assert_uint_eq(m->nroles, 1);
    ck_assert_str_eq(m->roles[0].name.s, "old");
    ck_assert_uint_eq(m->roles[0].nprocs, 2);
    ck_assert_uint_eq(m->workers[worker_of(m, 11)].role_index, 0);
    ck_assert_uint_eq(m->workers[worker_of(m, 31)].role_index, SIZE_MAX);
    ck_assert_uint_eq(m->caveats[0].kind, RUN_CAVEAT_SUPERSEDED);
    ck_assert_str_eq(m->caveats[0].text,
                     "attempt 1 of 3 is shown, as chosen; the others are not merged: b-second (1 "
                     "process, 2026-11-30 13:00:00 UTC), a-third (3 processes, 2026-11-30 "
                     "14:00:00 UTC)");
    run_free(m);

    /* One past the last is refused, saying how many there are. */
    run_model *none = NULL;
    char msg[600];
    ck_assert_int_eq(run_load(run, &(run_options){.attempt = 4}, &none, msg, sizeof msg),
                     RUN_ERR_NO_ATTEMPT);
    ck_assert_ptr_null(none);
    ck_assert_msg(strstr(msg, "no attempt 4: the run holds 3"), "%s", msg);
}
END_TEST

/* ---- merging phases ---------------------------------------------------------- */

/* One learner, two threads with the same tree, and an "iteration" nested
 * inside thread 1's iteration/retry:
 *   thread 1: iteration 10 x 1000 { step 10 x 600, retry 2 x 100 { iteration 3 x 90 } }
 *   thread 2: iteration  5 x  500 { step  5 x 200 } */
static void write_learner(const char *run) {
    ident id = who("r1", "h", "learner", 1, 0);
    wlog l;
    w_open(&l, run, &id);
    w_names(&l, "iteration", "step", "retry", NULL);
    w_node(&l, 1, 0, 1, 1);
    w_agg(&l, (scope_rec_phase_agg){
                  .node = 1, .count = 10, .wall_ns = 1000, .min_ns = 50, .max_ns = 200});
    w_phase(&l, 2, 1, 2, 1, 10, 600);
    w_phase(&l, 3, 1, 3, 1, 2, 100);
    w_node(&l, 4, 3, 1, 1);
    w_agg(&l,
          (scope_rec_phase_agg){.node = 4, .count = 3, .wall_ns = 90, .min_ns = 10, .max_ns = 40});
    w_node(&l, 5, 0, 1, 2);
    w_agg(&l, (scope_rec_phase_agg){
                  .node = 5, .count = 5, .wall_ns = 500, .min_ns = 80, .max_ns = 150});
    w_phase(&l, 6, 5, 2, 2, 5, 200);
    w_exit(&l, 10 * SEC);
}

START_TEST(threads_merge_by_path) {
    char run[512];
    new_run(run, sizeof run, "merge");
    write_learner(run);
    run_model *m = load(run);
    const run_worker *w = &m->workers[0];
    ck_assert_uint_eq(w->nthreads, 2);
    ck_assert_uint_eq(w->phase_ns, 1500);
    const run_role *r = role_of(m, "learner");
    ck_assert_uint_eq(r->phase_ns, 1500);
    ck_assert_uint_eq(r->nphases, 4);
    ck_assert_uint_eq(r->root->nchildren, 1);

    const run_phase *it = phase_of(r, "iteration");
    ck_assert_uint_eq(it->depth, 1);
    ck_assert_uint_eq(it->dist.count, 15);
    ck_assert_uint_eq(it->dist.total_ns, 1500);
    ck_assert_uint_eq(it->dist.min_ns, 50);
    ck_assert_uint_eq(it->dist.max_ns, 200);
    ck_assert_uint_eq(it->self_ns, 1500 - 800 - 100);
    ck_assert_double_eq(it->share, 1.0);
    ck_assert_uint_eq(it->nprocs, 1);
    ck_assert_double_eq(run_phase_proc_ns(it, 0), 1500);
    /* Children by total, largest first. */
    ck_assert_uint_eq(it->nchildren, 2);
    ck_assert_str_eq(it->children[0]->name.s, "step");
    ck_assert_str_eq(it->children[1]->name.s, "retry");
    const run_phase *step = phase_of(r, "iteration/step");
    ck_assert_uint_eq(step->dist.count, 15);
    ck_assert_uint_eq(step->dist.total_ns, 800);
    ck_assert_double_eq(step->share, 800.0 / 1500);
    const run_phase *nested = phase_of(r, "iteration/retry/iteration");
    ck_assert_uint_eq(nested->depth, 3);
    ck_assert_uint_eq(nested->dist.total_ns, 90);
    ck_assert_uint_eq(phase_of(r, "iteration/retry")->self_ns, 10);

    /* The outermost iterations only: the nested one is inside them. */
    ck_assert_int_eq(r->has_iterations, 1);
    ck_assert_uint_eq(r->iterations.count, 15);
    ck_assert_uint_eq(r->iterations.total_ns, 1500);
    ck_assert_double_eq(r->iterations.mean_ns, 100);
    ck_assert_uint_eq(r->iterations.min_ns, 50);
    ck_assert_uint_eq(r->iterations.max_ns, 200);
    ck_assert(isnan(r->iterations.p50_ns)); /* no histogram was sent */

    /* Dominant: by self time, most first. */
    ck_assert_uint_eq(r->ndominant, 4);
    ck_assert_ptr_eq(r->dominant[0], step);
    ck_assert_ptr_eq(r->dominant[1], it);
    ck_assert_ptr_eq(r->dominant[2], nested);
    run_free(m);
}
END_TEST

START_TEST(iteration_name_option) {
    char run[512];
    new_run(run, sizeof run, "itername");
    write_learner(run);
    run_options o = {.iteration_name = "step", .ndominant = 2, .threads = 1};
    run_model *m = load_with(run, &o);
    ck_assert_str_eq(m->iteration_name, "step");
    const run_role *r = role_of(m, "learner");
    ck_assert_int_eq(r->has_iterations, 1);
    ck_assert_uint_eq(r->iterations.count, 15);
    ck_assert_uint_eq(r->iterations.total_ns, 800);
    ck_assert_uint_eq(r->ndominant, 2);
    run_free(m);

    o.iteration_name = "retry";
    m = load_with(run, &o);
    ck_assert_uint_eq(role_of(m, "learner")->iterations.count, 2);
    run_free(m);

    o.iteration_name = "epoch";
    m = load_with(run, &o);
    r = role_of(m, "learner");
    ck_assert_int_eq(r->has_iterations, 0);
    ck_assert_uint_eq(r->iterations.count, 0);
    ck_assert(isnan(r->iterations.mean_ns));
    run_free(m);
}
END_TEST

/* Exact per-phase I/O, merged over two processes: "save" measured in both
 * (one entry's read failed in rank 1), "flagged" opened with
 * SCOPE_PHASE_IO but never measured.  Bytes add; what the page cache
 * served and the disk rate come from the model, not the renderers. */
START_TEST(io_by_phase) {
    char run[512];
    new_run(run, sizeof run, "io");
    for (int rank = 0; rank < 2; rank++) {
        ident id = who("r1", "h", "w", 10 + rank, rank);
        wlog l;
        w_open(&l, run, &id);
        w_names(&l, "save", "flagged", NULL);
        put(&l, (scope_record){
                    .type = SCOPE_REC_PHASE_NODE,
                    .u.phase_node = {.id = 1, .name = 1, .thread = 1, .flags = SCOPE_PHASE_F_IO}});
        put(&l, (scope_record){
                    .type = SCOPE_REC_PHASE_NODE,
                    .u.phase_node = {.id = 2, .name = 2, .thread = 1, .flags = SCOPE_PHASE_F_IO}});
        w_agg(&l, (scope_rec_phase_agg){.node = 1,
                                        .count = 2,
                                        .wall_ns = SEC,
                                        .min_ns = SEC / 2,
                                        .max_ns = SEC / 2,
                                        .io_flags = SCOPE_IO_MEASURED,
                                        .io_count = 2 - (uint64_t)rank,
                                        .io_failed = (uint64_t)rank,
                                        .disk_read = 3000,
                                        .disk_write = 1000,
                                        .char_read = 5000,
                                        .char_write = 1000});
        w_agg(&l, (scope_rec_phase_agg){
                      .node = 2, .count = 1, .wall_ns = 10, .min_ns = 10, .max_ns = 10});
        w_exit(&l, 5 * SEC);
    }
    run_model *m = load(run);
    const run_role *r = run_find_role(m, "w");
    const run_phase *save = run_find_phase(r, "save");
    ck_assert(save->flags & SCOPE_PHASE_F_IO);
    ck_assert_int_eq(save->io_measured, 1);
    ck_assert_uint_eq(save->io_count, 3);
    ck_assert_uint_eq(save->io_failed, 1);
    ck_assert_uint_eq(save->disk_read, 6000);
    ck_assert_uint_eq(save->disk_write, 2000);
    ck_assert_uint_eq(save->char_read, 10000);
    ck_assert_uint_eq(save->cache_read, 4000);
    ck_assert_double_eq_tol(save->disk_bytes_per_s, 8000 / 2.0, 1e-9); /* 8 kB in 2 s */
    const run_phase *flagged = run_find_phase(r, "flagged");
    ck_assert(flagged->flags & SCOPE_PHASE_F_IO);
    ck_assert_int_eq(flagged->io_measured, 0);
    ck_assert_uint_eq(flagged->cache_read, 0);
    ck_assert(isnan(flagged->disk_bytes_per_s));
    run_free(m);
}
END_TEST

/* Two processes:
 *   rank 0: load 4 x 2 s { items 100 }, train 2 x 1 s { items 25, refund -5 },
 *           loose 7 counted with no phase open; thread 2: load 1 x 1 s { items 20 }
 *   rank 1: load 2 x 1 s { items 80 }, loose 3 */
START_TEST(counters_by_phase) {
    char run[512];
    new_run(run, sizeof run, "counters");
    ident a = who("r1", "h", "c", 1, 0), b = who("r1", "h", "c", 2, 1);
    wlog l;
    w_open(&l, run, &a);
    w_names(&l, "load", "train", "items", "loose", "refund", NULL);
    w_phase(&l, 1, 0, 1, 1, 4, 2 * SEC);
    w_phase(&l, 2, 0, 2, 1, 2, 1 * SEC);
    w_phase(&l, 3, 0, 1, 2, 1, 1 * SEC);
    w_counter(&l, 1, 3, 1, 1, 2, 60);
    w_frame(&l, SCOPE_FRAME_PERIODIC, 0);
    w_counter(&l, 1, 3, 1, 1, 4, 100); /* newest wins */
    w_counter(&l, 2, 3, 2, 1, 2, 25);
    w_counter(&l, 3, 4, 0, 1, 3, 7);
    w_counter(&l, 4, 5, 2, 1, 1, -5);
    w_counter(&l, 5, 3, 3, 2, 1, 20);
    w_exit(&l, 5 * SEC);
    w_open(&l, run, &b);
    w_names(&l, "load", "items", "loose", NULL);
    w_phase(&l, 1, 0, 1, 1, 2, 1 * SEC);
    w_counter(&l, 1, 2, 1, 1, 2, 80);
    w_counter(&l, 2, 3, 0, 1, 1, 3);
    w_exit(&l, 5 * SEC);

    run_model *m = load(run);
    const run_role *r = role_of(m, "c");
    const run_phase *load_p = phase_of(r, "load"), *train = phase_of(r, "train");
    ck_assert_uint_eq(load_p->dist.total_ns, 4 * SEC);
    ck_assert_uint_eq(load_p->ncounters, 1);
    const run_counter *k = &load_p->counters[0];
    ck_assert_str_eq(k->name.s, "items");
    ck_assert_uint_eq(k->calls, 4 + 1 + 2);
    ck_assert_int_eq(k->total, 100 + 20 + 80);
    ck_assert_double_eq(k->rate_per_s, 50);
    ck_assert_double_eq(k->ns_per_unit, 4e9 / 200);

    /* The same name under another phase is another counter; by name. */
    ck_assert_uint_eq(train->ncounters, 2);
    ck_assert_str_eq(train->counters[0].name.s, "items");
    ck_assert_int_eq(train->counters[0].total, 25);
    ck_assert_double_eq(train->counters[0].rate_per_s, 25);
    ck_assert_double_eq(train->counters[0].ns_per_unit, 1e9 / 25);
    ck_assert_str_eq(train->counters[1].name.s, "refund");
    ck_assert_double_eq(train->counters[1].rate_per_s, -5);
    ck_assert(isnan(train->counters[1].ns_per_unit)); /* no time per unit below 1 */

    /* Counted with no phase open: totals only, no phase time to divide by. */
    ck_assert_uint_eq(r->nunattached, 1);
    ck_assert_str_eq(r->unattached[0].name.s, "loose");
    ck_assert_uint_eq(r->unattached[0].calls, 4);
    ck_assert_int_eq(r->unattached[0].total, 10);
    ck_assert(isnan(r->unattached[0].rate_per_s));
    ck_assert(isnan(r->unattached[0].ns_per_unit));
    run_free(m);
}
END_TEST

/* ---- histograms ---------------------------------------------------------------- */

static scope_hist_bin bin(uint64_t value, uint64_t count) {
    return (scope_hist_bin){scope_hist_bucket(value), count};
}

/* "step": rank 0 has 60 entries of 1010 ns and 30 of 5000 ns, rank 1 5 of
 * 5000 and 5 of 100000 ns.  Rank 0 later sends newer scalars without bins.
 * "replace": the newest histogram of a node replaces the one before.
 * "plain": never a histogram.  "empty": no entry completed. */
START_TEST(histograms_add_across_processes) {
    char run[512];
    new_run(run, sizeof run, "hist");
    ident a = who("r1", "h", "w", 1, 0), b = who("r1", "h", "w", 2, 1);
    wlog l;
    w_open(&l, run, &a);
    w_names(&l, "step", "replace", "plain", "empty", NULL);
    scope_hist_bin a_bins[] = {bin(1010, 60), bin(5000, 30)};
    w_node(&l, 1, 0, 1, 1);
    w_agg(&l, (scope_rec_phase_agg){.node = 1,
                                    .count = 90,
                                    .wall_ns = 60 * 1010 + 30 * 5000,
                                    .min_ns = 1010,
                                    .max_ns = 5000,
                                    .nbins = 2,
                                    .bins = a_bins});
    scope_hist_bin old_bins[] = {bin(2000, 4)};
    w_node(&l, 2, 0, 2, 1);
    w_agg(&l, (scope_rec_phase_agg){.node = 2,
                                    .count = 4,
                                    .wall_ns = 8000,
                                    .min_ns = 2000,
                                    .max_ns = 2000,
                                    .nbins = 1,
                                    .bins = old_bins});
    w_phase(&l, 3, 0, 3, 1, 4, 400);
    w_phase(&l, 4, 0, 4, 1, 0, 0);
    w_frame(&l, SCOPE_FRAME_PERIODIC, 0);
    /* Newer scalars, no bins: the histogram stays the one sent before. */
    w_agg(&l, (scope_rec_phase_agg){.node = 1,
                                    .count = 92,
                                    .wall_ns = 60 * 1010 + 32 * 5000,
                                    .min_ns = 1010,
                                    .max_ns = 6000});
    scope_hist_bin new_bins[] = {bin(3000, 7)};
    w_agg(&l, (scope_rec_phase_agg){.node = 2,
                                    .count = 7,
                                    .wall_ns = 21000,
                                    .min_ns = 3000,
                                    .max_ns = 3000,
                                    .nbins = 1,
                                    .bins = new_bins});
    w_exit(&l, 5 * SEC);

    w_open(&l, run, &b);
    w_names(&l, "step", NULL);
    scope_hist_bin b_bins[] = {bin(5000, 5), bin(100000, 5)};
    w_node(&l, 1, 0, 1, 1);
    w_agg(&l, (scope_rec_phase_agg){.node = 1,
                                    .count = 10,
                                    .wall_ns = 5 * 5000 + 5 * 100000,
                                    .min_ns = 5000,
                                    .max_ns = 100000,
                                    .nbins = 2,
                                    .bins = b_bins});
    w_exit(&l, 5 * SEC);

    run_model *m = load(run);
    const run_role *r = role_of(m, "w");
    const run_phase *step = phase_of(r, "step");
    ck_assert_uint_eq(step->dist.count, 92 + 10);
    ck_assert_uint_eq(step->dist.total_ns, 60 * 1010 + 32 * 5000 + 5 * 5000 + 5 * 100000);
    ck_assert_uint_eq(step->dist.min_ns, 1010);
    ck_assert_uint_eq(step->dist.max_ns, 100000);
    ck_assert_ptr_nonnull(step->hist);
    ck_assert_uint_eq(run_phase_hist_at(step, scope_hist_bucket(1010)), 60);
    ck_assert_uint_eq(run_phase_hist_at(step, scope_hist_bucket(5000)), 35);
    ck_assert_uint_eq(run_phase_hist_at(step, scope_hist_bucket(100000)), 5);
    /* 100 entries in the histogram: rank 50 in the 1010 bucket, whose
     * midpoint lies below the exact minimum; rank 95 in the 5000 bucket;
     * rank 99 in the 100000 bucket, whose midpoint lies above the maximum. */
    ck_assert(mid(1010) < 1010 && mid(100000) > 100000);
    ck_assert_double_eq(step->dist.p50_ns, 1010);
    ck_assert_double_eq(step->dist.p95_ns, mid(5000));
    ck_assert_double_eq(step->dist.p99_ns, 100000);
    ck_assert_double_eq(step->dist.mean_ns, (double)step->dist.total_ns / 102);
    /* Rank 0's histogram is older than its count: the percentiles rest on
     * 100 of the 102 entries, and say so. */
    char note[160];
    ck_assert_uint_eq(step->hist_count, 100);
    ck_assert(run_phase_hist_partial(step));
    ck_assert_str_eq(run_phase_partial_note(step, note, sizeof note),
                     "percentiles as of 100 of 102 entries");

    const run_phase *rep = phase_of(r, "replace");
    ck_assert_uint_eq(rep->dist.count, 7);
    ck_assert_uint_eq(run_phase_hist_at(rep, scope_hist_bucket(2000)), 0);
    ck_assert_uint_eq(run_phase_hist_at(rep, scope_hist_bucket(3000)), 7);
    ck_assert_double_eq(rep->dist.p50_ns, 3000); /* clamped to min = max */
    ck_assert_uint_eq(rep->hist_count, 7);
    ck_assert(!run_phase_hist_partial(rep));
    ck_assert_str_eq(run_phase_partial_note(rep, note, sizeof note), "");

    const run_phase *plain = phase_of(r, "plain");
    ck_assert_ptr_null(plain->hist);
    ck_assert(isnan(plain->dist.p50_ns) && isnan(plain->dist.p95_ns) && isnan(plain->dist.p99_ns));
    ck_assert_double_eq(plain->dist.mean_ns, 100);

    const run_phase *empty = phase_of(r, "empty");
    ck_assert_uint_eq(empty->dist.count, 0);
    ck_assert(isnan(empty->dist.mean_ns));
    ck_assert_uint_eq(empty->dist.min_ns, 0);
    ck_assert_uint_eq(empty->dist.max_ns, 0);
    run_free(m);
}
END_TEST

/* ---- inconsistent input ------------------------------------------------------ */

/* Order within a frame does not matter (docs/format.md, 5.1): an
 * aggregate may come before the definition of its node in the same frame;
 * in the next frame it would be a definition lost. */
START_TEST(definition_later_in_the_frame) {
    char run[512];
    new_run(run, sizeof run, "order");
    ident id = who("r1", "h", "w", 10, -1);
    wlog l;
    w_open(&l, run, &id);
    w_frame(&l, SCOPE_FRAME_PERIODIC, 0);
    w_agg(&l, (scope_rec_phase_agg){
                  .node = 1, .count = 4, .wall_ns = 400, .min_ns = 100, .max_ns = 100});
    w_names(&l, "early", NULL);
    w_node(&l, 1, 0, 1, 1);
    w_frame(&l, SCOPE_FRAME_PERIODIC, 5 * SEC);
    w_agg(&l, (scope_rec_phase_agg){.node = 2, .count = 1, .wall_ns = 7, .min_ns = 7, .max_ns = 7});
    w_frame(&l, SCOPE_FRAME_PERIODIC, 10 * SEC);
    w_string(&l, 2, "late");
    w_node(&l, 2, 0, 2, 1);
    w_exit(&l, 15 * SEC);
    run_model *m = load(run);
    const run_role *r = run_find_role(m, "w");
    const run_phase *early = run_find_phase(r, "early");
    ck_assert_ptr_nonnull(early);
    ck_assert_uint_eq(early->dist.count, 4);
    ck_assert_uint_eq(early->dist.total_ns, 400);
    const run_phase *late = run_find_phase(r, "late");
    ck_assert_ptr_nonnull(late);
    ck_assert_uint_eq(late->dist.count, 0);
    ck_assert_uint_eq(count_caveats(m, RUN_CAVEAT_INCONSISTENT), 1);
    run_free(m);
}
END_TEST

/* Writes logs whose records lose their definitions: an aggregate of node
 * 77; node 5 whose parent 66 is undefined, its child 7 and a counter in it;
 * a counter whose name 99 is undefined; node 6 whose name 55 is undefined;
 * and a log whose nodes are each other's parent. */
static void write_inconsistent_logs(const char *run) {
    ident id = who("r1", "h", "w", 9, -1);
    wlog l;
    w_open(&l, run, &id);
    w_names(&l, "good", "orphan", "child", "items", NULL);
    w_phase(&l, 1, 0, 1, 1, 1, 100);
    w_agg(&l, (scope_rec_phase_agg){.node = 77, .count = 1, .wall_ns = 5});
    w_phase(&l, 5, 66, 2, 1, 1, 30);
    w_phase(&l, 7, 5, 3, 1, 1, 20);
    w_counter(&l, 1, 4, 5, 1, 1, 1);
    w_counter(&l, 2, 99, 1, 1, 1, 1);
    w_counter(&l, 3, 4, 1, 1, 2, 8);
    w_phase(&l, 6, 0, 55, 1, 2, 40);
    w_exit(&l, 5 * SEC);
    /* A damaged log whose nodes 10 and 11 are each other's parent. */
    ident cyc = who("r1", "h", "w", 10, -1);
    w_open(&l, run, &cyc);
    w_names(&l, "good", "loop", NULL);
    w_phase(&l, 1, 0, 1, 1, 1, 100);
    w_phase(&l, 10, 11, 2, 1, 1, 5);
    w_phase(&l, 11, 10, 2, 1, 1, 5);
    w_exit(&l, 5 * SEC);
}

/* The logs of write_inconsistent_logs: each record left out counts once,
 * however many others refer to it. */
START_TEST(inconsistent_records) {
    char run[512];
    new_run(run, sizeof run, "inconsistent");
    write_inconsistent_logs(run);

    run_model *m = load(run);
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_INCONSISTENT, worker_of(m, 9)),
                     "w pid 9 on h: 5 records could not be placed and were left out (first: "
                     "figures of a phase whose definition was lost)");
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_INCONSISTENT, worker_of(m, 10)),
                     "w pid 10 on h: 2 records could not be placed and were left out (first: "
                     "phases whose parents form a cycle)");
    ck_assert_uint_eq(count_caveats(m, RUN_CAVEAT_INCONSISTENT), 2);

    /* The rest loads; a phase whose name was lost still counts, unnamed. */
    const run_role *r = role_of(m, "w");
    ck_assert_uint_eq(r->nphases, 2);
    ck_assert_uint_eq(r->phase_ns, 240);
    ck_assert_uint_eq(m->workers[worker_of(m, 9)].phase_ns, 140);
    const run_phase *good = phase_of(r, "good");
    ck_assert_uint_eq(good->dist.total_ns, 200);
    ck_assert_uint_eq(good->ncounters, 1);
    ck_assert_int_eq(good->counters[0].total, 8);
    const run_phase *unnamed = phase_of(r, "(unnamed phase)");
    ck_assert_uint_eq(unnamed->dist.count, 2);
    ck_assert_uint_eq(unnamed->dist.total_ns, 40);
    ck_assert_ptr_null(run_find_phase(r, "orphan"));
    run_free(m);
}
END_TEST

/* ---- wait, shares, spread, imbalance ----------------------------------------- */

/* Role "w", ranks 0..4 (ns):
 *   rank 0: step 400 (cpu 4 entries, 400 wall, 100 cpu) { inner 150 },
 *           nocpu 50, overcpu 10 (cpu 30 of 10 wall), only0 40
 *   rank 1: step 100 (cpu 1 entry, 100 wall, 50 cpu)
 *   rank 2: step 300 (no cpu read)
 *   rank 3: step 200 (cpu 2 entries, 200 wall, 150 cpu)
 *   rank 4: nocpu 50
 * Role "idle": a phase that never completed an entry, and a counter. */
/* A wait% read on part of many entries says the range it allows over all
 * of them: the unread entries' wall time waited all of it or none. */
START_TEST(wait_range_over_unread_entries) {
    run_phase p = {.wait = 0.5, .cpu_count = 40, .cpu_wall_ns = 600};
    p.dist.count = 100;
    p.dist.total_ns = 1000;
    double lo = -1, hi = -1;
    char note[160];
    ck_assert(run_phase_wait_range(&p, &lo, &hi));
    ck_assert_double_eq_tol(lo, 0.3, 1e-12);
    ck_assert_double_eq_tol(hi, 0.7, 1e-12);
    ck_assert_str_eq(run_phase_partial_note(&p, note, sizeof note),
                     "wait% from 40 of 100 entries: 30 to 70% over all");
    /* 99% of the time read: a range 1 point wide is not said. */
    p.cpu_wall_ns = 990;
    ck_assert(!run_phase_wait_range(&p, &lo, &hi));
    ck_assert_str_eq(run_phase_partial_note(&p, note, sizeof note), "");
    /* Every entry read: no range at all. */
    p.cpu_wall_ns = 600;
    p.cpu_count = 100;
    ck_assert(!run_phase_wait_range(&p, &lo, &hi));
    /* Few entries read: their count is said, as before. */
    p.cpu_count = 7;
    ck_assert(!run_phase_wait_range(&p, &lo, &hi));
    ck_assert_str_eq(run_phase_partial_note(&p, note, sizeof note), "wait% from 7 of 100 entries");
}
END_TEST

START_TEST(wait_share_spread_imbalance) {
    char run[512];
    new_run(run, sizeof run, "spread");
    static const struct {
        uint64_t step, cpu_count, cpu_wall, cpu;
    } steps[] = {{400, 4, 400, 100}, {100, 1, 100, 50}, {300, 0, 0, 0}, {200, 2, 200, 150}};
    wlog l;
    for (int32_t rank = 0; rank < 5; rank++) {
        ident id = who("r1", "h", "w", 100 + rank, rank);
        w_open(&l, run, &id);
        w_names(&l, "step", "inner", "nocpu", "overcpu", "only0", NULL);
        if (rank < 4) {
            w_node(&l, 1, 0, 1, 1);
            w_agg(&l, (scope_rec_phase_agg){.node = 1,
                                            .count = 4,
                                            .wall_ns = steps[rank].step,
                                            .min_ns = 1,
                                            .max_ns = steps[rank].step,
                                            .cpu_count = steps[rank].cpu_count,
                                            .cpu_wall_ns = steps[rank].cpu_wall,
                                            .cpu_ns = steps[rank].cpu});
        }
        if (rank == 0) {
            w_phase(&l, 2, 1, 2, 1, 4, 150);
            w_phase(&l, 3, 0, 3, 1, 1, 50);
            w_node(&l, 4, 0, 4, 1);
            w_agg(&l, (scope_rec_phase_agg){.node = 4,
                                            .count = 1,
                                            .wall_ns = 10,
                                            .min_ns = 10,
                                            .max_ns = 10,
                                            .cpu_count = 1,
                                            .cpu_wall_ns = 10,
                                            .cpu_ns = 30});
            w_phase(&l, 5, 0, 5, 1, 1, 40);
        }
        if (rank == 4)
            w_phase(&l, 3, 0, 3, 1, 1, 50);
        w_exit(&l, 5 * SEC);
    }
    ident idle = who("r1", "h", "idle", 900, -1);
    w_open(&l, run, &idle);
    w_names(&l, "waiting", "ticks", NULL);
    w_node(&l, 1, 0, 1, 1);
    w_counter(&l, 1, 2, 0, 1, 1, 1);
    w_exit(&l, 5 * SEC);

    run_model *m = load(run);
    const run_role *r = role_of(m, "w");
    ck_assert_uint_eq(r->phase_ns, 1150);
    const run_phase *step = phase_of(r, "step"), *inner = phase_of(r, "step/inner");
    ck_assert_uint_eq(step->dist.total_ns, 1000);
    ck_assert_uint_eq(step->self_ns, 850);
    ck_assert_double_eq(step->share, 1000.0 / 1150);
    ck_assert_double_eq(inner->share, 150.0 / 1150);
    ck_assert_uint_eq(inner->self_ns, 150);

    /* wait = 1 - cpu / wall over the entries whose CPU time was read. */
    ck_assert_uint_eq(step->cpu_count, 7);
    ck_assert_uint_eq(step->cpu_wall_ns, 700);
    ck_assert_uint_eq(step->cpu_ns, 300);
    ck_assert_double_eq(step->wait, 1.0 - 300.0 / 700.0);
    /* Few entries read: the wait% says on how many. */
    char note[160];
    ck_assert(run_phase_wait_few(step));
    ck_assert_str_eq(run_phase_partial_note(step, note, sizeof note), "wait% from 7 of 16 entries");
    ck_assert(!run_phase_wait_few(phase_of(r, "nocpu")));
    ck_assert(isnan(phase_of(r, "nocpu")->wait));
    ck_assert_double_eq(phase_of(r, "overcpu")->wait, 0);

    /* Spread over the 4 of 5 processes with the phase: median of an even
     * count is the mean of the middle two. */
    size_t w0 = worker_of(m, 100), w4 = worker_of(m, 104);
    ck_assert_uint_eq(step->nprocs, 4);
    ck_assert_double_eq(step->spread_min_ns, 100);
    ck_assert_double_eq(step->spread_median_ns, 250);
    ck_assert_double_eq(step->spread_max_ns, 400);
    ck_assert_uint_eq(step->spread_max_worker, w0);
    ck_assert_double_eq(run_phase_proc_ns(step, slot_of(r, w0)), 400);
    ck_assert(isnan(run_phase_proc_ns(step, slot_of(r, w4))));
    const run_phase *only0 = phase_of(r, "only0");
    ck_assert_uint_eq(only0->nprocs, 1);
    ck_assert_double_eq(only0->spread_median_ns, 40);
    for (size_t k = 1; k < r->nprocs; k++)
        ck_assert(isnan(run_phase_proc_ns(only0, k)));

    /* Imbalance: the busiest process's phase time (500) over the mean (230). */
    ck_assert_uint_eq(m->workers[w0].phase_ns, 500);
    ck_assert_double_eq(r->imbalance, 500.0 / (1150.0 / 5));
    ck_assert_uint_eq(r->slowest_worker, w0);

    /* No phase time at all: imbalance is not measured, and neither are shares. */
    const run_role *ir = role_of(m, "idle");
    ck_assert_uint_eq(ir->phase_ns, 0);
    ck_assert(isnan(ir->imbalance));
    ck_assert_uint_eq(ir->slowest_worker, SIZE_MAX);
    ck_assert(isnan(phase_of(ir, "waiting")->share));
    ck_assert(isnan(phase_of(ir, "waiting")->wait));
    ck_assert_uint_eq(ir->ndominant, 0);
    run_free(m);
}
END_TEST

/* ---- order and lookups -------------------------------------------------------- */

START_TEST(roles_workers_and_lookups) {
    char run[512];
    new_run(run, sizeof run, "order");
    static const struct {
        const char *role;
        int64_t pid;
        int32_t rank;
        uint64_t phase_ns;
    } procs[] = {
        {"small", 1, -1, 100}, {"big", 100, 3, 250}, {"big", 900, 1, 250},  {"big", 50, -1, 250},
        {"big", 20, -1, 250},  {"mid", 7, -1, 500},  {"tie_b", 8, -1, 300}, {"tie_a", 9, -1, 300},
    };
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        ident id = who("r1", "h1", procs[i].role, procs[i].pid, procs[i].rank);
        simple_worker(run, &id, procs[i].phase_ns, 10, 5, 1);
    }
    /* Names from the log are bytes: a terminal escape, a '/' in a name. */
    ident odd = who("r1", "h\xff", "r\x1b", 5, -1);
    wlog l;
    w_open(&l, run, &odd);
    w_names(&l, "outer", "esc\x1b[1m", "a/b", NULL);
    w_phase(&l, 1, 0, 1, 1, 1, 60);
    w_phase(&l, 2, 1, 2, 1, 1, 30);
    w_phase(&l, 3, 1, 3, 1, 1, 20);
    w_exit(&l, 10 * SEC);

    run_model *m = load(run);
    static const char *const order[] = {"big", "mid", "tie_a", "tie_b", "small", "r\x1b"};
    ck_assert_uint_eq(m->nroles, 6);
    for (size_t i = 0; i < m->nroles; i++)
        ck_assert_str_eq(m->roles[i].name.s, order[i]);
    ck_assert_uint_eq(m->roles[0].phase_ns, 1000);

    /* Within a role: ranked processes by rank, then the rest by pid. */
    const run_role *big = &m->roles[0];
    static const int64_t pids[] = {900, 100, 20, 50};
    ck_assert_uint_eq(big->nprocs, 4);
    for (size_t k = 0; k < 4; k++) {
        ck_assert_int_eq(m->workers[big->workers[k]].pid, pids[k]);
        ck_assert_uint_eq(m->workers[big->workers[k]].role_index, 0);
    }
    ck_assert_uint_eq(m->workers[worker_of(m, 1)].role_index, 4);
    ck_assert_ptr_eq(run_find_role(m, "tie_a"), &m->roles[2]);
    ck_assert_ptr_null(run_find_role(m, "nope"));

    char buf[128];
    ck_assert_str_eq(run_worker_label(m, worker_of(m, 900), buf, sizeof buf),
                     "big rank 1 (pid 900 on h1)");
    ck_assert_str_eq(run_worker_label(m, worker_of(m, 20), buf, sizeof buf), "big pid 20 on h1");
    ck_assert_str_eq(run_worker_label(m, worker_of(m, 5), buf, sizeof buf),
                     "r\\x1b pid 5 on h\\xff");

    const run_role *r = role_of(m, "r\x1b");
    const run_phase *esc = phase_of(r, "outer/esc\x1b[1m");
    ck_assert_str_eq(run_phase_path(esc, buf, sizeof buf), "outer/esc\\x1b[1m");
    ck_assert_str_eq(run_phase_path(esc, buf, 9), "outer/es");
    ck_assert_ptr_null(run_find_phase(r, "outer/a/b")); /* '/' separates */
    const run_phase *slash = run_phase_child(phase_of(r, "outer"), "a/b", 3);
    ck_assert_ptr_nonnull(slash);
    ck_assert_uint_eq(slash->dist.total_ns, 20);
    ck_assert_str_eq(run_phase_path(slash, buf, sizeof buf), "outer/a/b");
    ck_assert_ptr_null(run_find_phase(r, ""));
    ck_assert_ptr_null(run_find_phase(r, "missing"));
    ck_assert_ptr_null(run_find_phase(r, "outer/missing"));
    ck_assert_str_eq(run_caveat_kind_name(RUN_CAVEAT_STALE), "stale");
    run_free(m);
}
END_TEST

/* ---- one process alone --------------------------------------------------------- */

/* Every figure of the model a view can show, as text, so that a model can
 * be compared with itself before and after something that must not change
 * it. */
static void dump_phase(FILE *f, const run_phase *p, size_t nprocs) {
    char path[512];
    fprintf(f, "%s: n %llu t %llu self %llu share %.17g wait %.17g procs %zu %.17g %.17g %.17g %zu",
            run_phase_path(p, path, sizeof path), (unsigned long long)p->dist.count,
            (unsigned long long)p->dist.total_ns, (unsigned long long)p->self_ns, p->share, p->wait,
            p->nprocs, p->spread_min_ns, p->spread_median_ns, p->spread_max_ns,
            p->spread_max_worker);
    for (size_t k = 0; p->parent && k < nprocs; k++)
        fprintf(f, " %.17g", run_phase_proc_ns(p, k));
    for (size_t k = 0; k < p->ncounters; k++)
        fprintf(f, " [%s %llu %lld]", p->counters[k].name.s,
                (unsigned long long)p->counters[k].calls, (long long)p->counters[k].total);
    fputc('\n', f);
    for (size_t i = 0; i < p->nchildren; i++)
        dump_phase(f, p->children[i], nprocs);
}

static char *dump_model(const run_model *m) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    for (size_t r = 0; r < m->nroles; r++) {
        const run_role *role = &m->roles[r];
        fprintf(f, "role %s procs %zu t %llu phases %zu imb %.17g slowest %zu dom %zu it %d %llu\n",
                role->name.s, role->nprocs, (unsigned long long)role->phase_ns, role->nphases,
                role->imbalance, role->slowest_worker, role->ndominant, role->has_iterations,
                (unsigned long long)role->iterations.count);
        for (size_t k = 0; k < role->nprocs; k++)
            fprintf(f, " w %zu", role->workers[k]);
        for (size_t k = 0; k < role->ndominant; k++)
            fprintf(f, " d %s", role->dominant[k]->name.s);
        for (size_t k = 0; k < role->nunattached; k++)
            fprintf(f, " u %s %lld", role->unattached[k].name.s,
                    (long long)role->unattached[k].total);
        fputc('\n', f);
        dump_phase(f, role->root, role->nprocs);
    }
    for (size_t i = 0; i < m->nworkers; i++)
        fprintf(f, "worker %zu role %zu caveats %zu phase %llu\n", i, m->workers[i].role_index,
                m->workers[i].ncaveats, (unsigned long long)m->workers[i].phase_ns);
    for (size_t i = 0; i < m->ncaveats; i++)
        fprintf(f, "caveat %d %zu %s\n", (int)m->caveats[i].kind, m->caveats[i].worker,
                m->caveats[i].text);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

/* Role "w", ranks 0..2 (pid 10 + rank), each on two threads merged by path:
 *   thread 1: iteration (2 + r) x 1000 (r + 1) { step (2 + r) x 600 (r + 1) [items 10 (r + 1)] }
 *   thread 2: iteration 1 x 500 { step 1 x 100 (r + 1) }
 *   rank 1 only: extra 300; loose r + 1 counted with no phase open.
 * Rank 2 was killed (a caveat); role "other" is one more process.  Loaded
 * with iteration name "step" and one dominant phase, which the process
 * alone follows too. */
START_TEST(worker_role_alone) {
    char run[512];
    new_run(run, sizeof run, "alone");
    wlog l;
    for (int32_t r = 0; r < 3; r++) {
        ident id = who("r1", "h", "w", 10 + r, r);
        uint64_t k = (uint64_t)r + 1;
        w_open(&l, run, &id);
        w_names(&l, "iteration", "step", "extra", "items", "loose", NULL);
        w_phase(&l, 1, 0, 1, 1, 1 + k, 1000 * k);
        w_phase(&l, 2, 1, 2, 1, 1 + k, 600 * k);
        w_phase(&l, 3, 0, 1, 2, 1, 500);
        w_phase(&l, 4, 3, 2, 2, 1, 100 * k);
        if (r == 1)
            w_phase(&l, 5, 0, 3, 1, 1, 300);
        w_counter(&l, 1, 4, 2, 1, 1, 10 * (int64_t)k);
        w_counter(&l, 2, 5, 0, 1, 2, (int64_t)k);
        if (r == 2) {
            w_frame(&l, SCOPE_FRAME_PERIODIC, 4 * SEC);
            w_killed(&l);
        } else {
            w_exit(&l, 5 * SEC);
        }
    }
    ident o = who("r1", "h", "other", 99, -1);
    simple_worker(run, &o, 50, 5, 5, 1);
    run_options opt = {.iteration_name = "step", .ndominant = 1, .threads = 1};
    run_model *m = load_with(run, &opt);
    ck_assert_uint_eq(count_caveats(m, RUN_CAVEAT_KILLED), 1);
    char *before = dump_model(m);
    const run_role *full = role_of(m, "w");

    for (int32_t r = 0; r < 3; r++) {
        size_t w = worker_of(m, 10 + r);
        uint64_t k = (uint64_t)r + 1;
        uint64_t it_ns = 1000 * k + 500, step_ns = 700 * k, extra = r == 1 ? 300 : 0;
        uint64_t total = it_ns + extra;
        const run_role *a = run_worker_role(m, w);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_eq(run_worker_role(m, w), a); /* kept */
        ck_assert_str_eq(a->name.s, "w");
        ck_assert_uint_eq(a->nprocs, 1);
        ck_assert_uint_eq(a->workers[0], w);
        ck_assert_uint_eq(a->phase_ns, total);
        ck_assert_uint_eq(a->phase_ns, m->workers[w].phase_ns);
        ck_assert_uint_eq(a->nphases, r == 1 ? 3 : 2);
        ck_assert_double_eq(a->imbalance, 1.0);
        ck_assert_uint_eq(a->slowest_worker, w);

        const run_phase *it = phase_of(a, "iteration"), *step = phase_of(a, "iteration/step");
        ck_assert_uint_eq(it->dist.count, 2 + k);
        ck_assert_uint_eq(it->dist.total_ns, it_ns);
        ck_assert_uint_eq(step->dist.count, 2 + k);
        ck_assert_uint_eq(step->dist.total_ns, step_ns);
        ck_assert_uint_eq(it->self_ns, it_ns - step_ns);
        /* Its share of the whole role's figures, exactly. */
        size_t slot = slot_of(full, w);
        ck_assert_double_eq(run_phase_proc_ns(phase_of(full, "iteration"), slot), (double)it_ns);
        ck_assert_double_eq(run_phase_proc_ns(phase_of(full, "iteration/step"), slot),
                            (double)step_ns);
        /* Shares of this process's phase time, a spread of one. */
        ck_assert_double_eq(it->share, (double)it_ns / (double)total);
        ck_assert_double_eq(step->share, (double)step_ns / (double)total);
        for (const run_phase *p = step; p; p = p == step ? it : NULL) {
            ck_assert_uint_eq(p->nprocs, 1);
            ck_assert_double_eq(run_phase_proc_ns(p, 0), (double)p->dist.total_ns);
            ck_assert_double_eq(p->spread_min_ns, (double)p->dist.total_ns);
            ck_assert_double_eq(p->spread_median_ns, (double)p->dist.total_ns);
            ck_assert_double_eq(p->spread_max_ns, (double)p->dist.total_ns);
            ck_assert_uint_eq(p->spread_max_worker, w);
        }
        if (r == 1) {
            const run_phase *x = phase_of(a, "extra");
            ck_assert_uint_eq(x->dist.total_ns, 300);
            ck_assert_double_eq(x->share, 300.0 / (double)total);
        } else {
            ck_assert_ptr_null(run_find_phase(a, "extra"));
        }

        /* Its counters only. */
        ck_assert_uint_eq(step->ncounters, 1);
        ck_assert_str_eq(step->counters[0].name.s, "items");
        ck_assert_uint_eq(step->counters[0].calls, 1);
        ck_assert_int_eq(step->counters[0].total, 10 * (int64_t)k);
        ck_assert_double_eq(step->counters[0].rate_per_s, 10.0 * (double)k / (step_ns / 1e9));
        ck_assert_uint_eq(it->ncounters, 0);
        ck_assert_uint_eq(a->nunattached, 1);
        ck_assert_uint_eq(a->unattached[0].calls, 2);
        ck_assert_int_eq(a->unattached[0].total, (int64_t)k);

        /* The load's options: iterations named "step", one dominant phase. */
        ck_assert_int_eq(a->has_iterations, 1);
        ck_assert_uint_eq(a->iterations.count, 2 + k);
        ck_assert_uint_eq(a->iterations.total_ns, step_ns);
        ck_assert_uint_eq(a->ndominant, 1);
        ck_assert_ptr_eq(a->dominant[0], it->self_ns > step->self_ns ? it : step);
    }
    ck_assert_ptr_eq(run_worker_role(m, worker_of(m, 10)), run_worker_role(m, worker_of(m, 10)));
    ck_assert_uint_eq(run_worker_role(m, worker_of(m, 99))->phase_ns, 50);

    /* Nothing the model said before changed. */
    char *after = dump_model(m);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
    run_free(m);
}
END_TEST

/* Only a process of the newest attempt can be shown alone. */
START_TEST(worker_role_outside_newest) {
    char run[512], path[768];
    new_run(run, sizeof run, "alone-old");
    ident old = who("a-old", "h", "w", 1, -1), now = who("b-new", "h", "w", 2, -1);
    ident idle = who("b-new", "h", "w", 3, -1);
    now.start_ns = old.start_ns + 3600 * SEC;
    idle.start_ns = now.start_ns;
    simple_worker(run, &old, 100, 10, 5, 1);
    simple_worker(run, &now, 200, 10, 5, 1);
    wlog l;
    w_open(&l, run, &idle); /* in the newest attempt, with no phase time */
    w_exit(&l, 10 * SEC);
    w_create(&l, run, "h", "x_headless.scope", now.start_ns);
    w_names(&l, "step", NULL);
    w_phase(&l, 1, 0, 1, 1, 3, 999);
    w_frame(&l, SCOPE_FRAME_PERIODIC, 5 * SEC);
    w_exit(&l, 10 * SEC);
    snprintf(path, sizeof path, "%s/workers/h/b_garbage.scope", run);
    ck_assert_int_eq(log_sample_write_file(path, "not a log at all\n", 17), 0);

    run_model *m = load(run);
    char *before = dump_model(m);
    ck_assert_uint_eq(m->nworkers, 5);
    ck_assert_ptr_null(run_worker_role(m, worker_of(m, 1)));
    for (size_t i = 0; i < m->nworkers; i++)
        if (!m->workers[i].has_process)
            ck_assert_ptr_null(run_worker_role(m, i));
    ck_assert_ptr_null(run_worker_role(m, m->nworkers));
    ck_assert_ptr_null(run_worker_role(m, SIZE_MAX));
    const run_role *a = run_worker_role(m, worker_of(m, 2));
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(a->phase_ns, 200);
    ck_assert_double_eq(a->imbalance, 1.0);
    /* No phase time: as for any role, imbalance is not measured. */
    const run_role *z = run_worker_role(m, worker_of(m, 3));
    ck_assert_ptr_nonnull(z);
    ck_assert_uint_eq(z->phase_ns, 0);
    ck_assert_uint_eq(z->nphases, 0);
    ck_assert(isnan(z->imbalance));
    ck_assert_uint_eq(z->slowest_worker, SIZE_MAX);
    ck_assert_uint_eq(z->ndominant, 0);
    char *after = dump_model(m);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
    run_free(m);
}
END_TEST

/* The logs of inconsistent_records: merging one again finds the same
 * records it cannot place, and says nothing twice. */
START_TEST(worker_role_inconsistent) {
    char run[512];
    new_run(run, sizeof run, "alone-inconsistent");
    write_inconsistent_logs(run);

    run_model *m = load(run);
    char *before = dump_model(m);
    size_t w9 = worker_of(m, 9), w10 = worker_of(m, 10);
    for (int twice = 0; twice < 2; twice++) {
        const run_role *a = run_worker_role(m, w9);
        ck_assert_ptr_nonnull(a);
        ck_assert_uint_eq(a->nphases, 2);
        ck_assert_uint_eq(a->phase_ns, 140);
        const run_phase *good = phase_of(a, "good");
        ck_assert_uint_eq(good->dist.total_ns, 100);
        ck_assert_double_eq(good->share, 100.0 / 140);
        ck_assert_uint_eq(good->ncounters, 1);
        ck_assert_int_eq(good->counters[0].total, 8);
        ck_assert_uint_eq(phase_of(a, "(unnamed phase)")->dist.total_ns, 40);
        ck_assert_ptr_null(run_find_phase(a, "orphan"));
        const run_role *b = run_worker_role(m, w10);
        ck_assert_ptr_nonnull(b);
        ck_assert_uint_eq(b->nphases, 1);
        ck_assert_uint_eq(b->phase_ns, 100);
    }
    ck_assert_uint_eq(count_caveats(m, RUN_CAVEAT_INCONSISTENT), 2);
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_INCONSISTENT, w9),
                     "w pid 9 on h: 5 records could not be placed and were left out (first: "
                     "figures of a phase whose definition was lost)");
    ck_assert_str_eq(caveat_text(m, RUN_CAVEAT_INCONSISTENT, w10),
                     "w pid 10 on h: 2 records could not be placed and were left out (first: "
                     "phases whose parents form a cycle)");
    char *after = dump_model(m);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
    run_free(m);
}
END_TEST

/* The sparkline's folding: entries land in the column of their bucket's
 * middle on a log axis from the lowest bucket's lower edge to the highest's
 * upper edge; every entry is counted once; no histogram folds to nothing. */
START_TEST(hist_fold_for_sparklines) {
    uint32_t b1 = scope_hist_bucket(1000), b2 = scope_hist_bucket(1000000),
             b3 = scope_hist_bucket(1000000000);
    run_hist_bin hist[] = {{b1, 5}, {b2, 7}, {b3, 2}};
    run_phase p = {.hist = hist, .nhist = 3};
    uint64_t cols[10];
    double lo, hi;
    ck_assert_uint_eq(run_hist_fold(&p, 10, cols, &lo, &hi), 14);
    ck_assert_double_eq(lo, (double)scope_hist_lower(b1));
    ck_assert_double_eq(hi, (double)scope_hist_upper(b3));
    /* 1 us, 1 ms and 1 s are evenly spaced in log: first, middle, last column. */
    ck_assert_uint_eq(cols[0], 5);
    ck_assert_uint_eq(cols[4] + cols[5], 7);
    ck_assert_uint_eq(cols[9], 2);
    uint64_t sum = 0;
    for (int i = 0; i < 10; i++)
        sum += cols[i];
    ck_assert_uint_eq(sum, 14);
    /* One column holds everything; a single bucket too. */
    ck_assert_uint_eq(run_hist_fold(&p, 1, cols, &lo, &hi), 14);
    ck_assert_uint_eq(cols[0], 14);
    /* A single bucket is the whole axis: its entries fall in its middle. */
    p = (run_phase){.hist = &hist[2], .nhist = 1};
    ck_assert_uint_eq(run_hist_fold(&p, 10, cols, &lo, &hi), 2);
    ck_assert_uint_eq(cols[4] + cols[5], 2);
    /* Its buckets read one by one. */
    ck_assert_uint_eq(run_phase_hist_at(&p, b3), 2);
    ck_assert_uint_eq(run_phase_hist_at(&p, b1), 0);
    /* No histogram: nothing folded, the axis unknown. */
    run_phase none = {0};
    ck_assert_uint_eq(run_hist_fold(&none, 10, cols, &lo, &hi), 0);
    ck_assert(isnan(lo) && isnan(hi));
    for (int i = 0; i < 10; i++)
        ck_assert_uint_eq(cols[i], 0);
    ck_assert_uint_eq(run_phase_hist_at(&none, b1), 0);
}
END_TEST

/* Paths as deep as the model nests (RUN_MAX_DEPTH) resolve and print in
 * full: a chain of `depth` phases named "d" on one thread. */
static void check_depth(unsigned depth) {
    char run[512], tag[32];
    snprintf(tag, sizeof tag, "deep-%u", depth);
    new_run(run, sizeof run, tag);
    ident id = who("r1", "h", "w", 80, -1);
    wlog l;
    w_open(&l, run, &id);
    w_names(&l, "d", NULL);
    for (uint32_t n = 1; n <= depth; n++)
        w_phase(&l, n, n - 1, 1, 1, 1, (uint64_t)(depth + 1 - n) * 1000);
    w_exit(&l, SEC);
    run_model *m = load(run);
    ck_assert_uint_eq(count_caveats(m, RUN_CAVEAT_INCONSISTENT), 0);
    char path[2 * RUN_MAX_DEPTH + 1] = "", shown[2 * RUN_MAX_DEPTH + 1];
    for (unsigned n = 0; n < depth; n++)
        strcat(path, n ? "/d" : "d");
    const run_phase *p = run_find_phase(run_find_role(m, "w"), path);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(p->depth, depth);
    ck_assert_uint_eq(p->dist.total_ns, 1000);
    ck_assert_str_eq(run_phase_path(p, shown, sizeof shown), path);
    run_free(m);
}

START_TEST(deep_paths_resolve) {
    check_depth(200);
    check_depth(RUN_MAX_DEPTH);
}
END_TEST

/* A loader is anything that fills a builder.  This one makes one process
 * from memory, as an importer of another format would, without a file. */
static int probe_memory(const char *path) {
    return !strncmp(path, "memory:", 7);
}

static enum run_load_error load_memory(run_model_builder *b, const char *path,
                                       const run_options *opt, char *msg, size_t msglen) {
    (void)opt;
    worker_log *log = run_builder_add_workers(b, 1);
    if (!log)
        return run_load_fail(msg, msglen, RUN_ERR_NOMEM, "%s: out of memory", path);
    run_worker *w = &log->w;
    w->path = run_str_dup(&log->mem, path, strlen(path));
    w->readable = w->has_process = 1;
    w->run_id = run_str_dup(&log->mem, "imported", 8);
    w->role = run_str_dup(&log->mem, "trainer", 7);
    w->host = run_str_dup(&log->mem, "h5", 2);
    w->pid = 4;
    w->start_wall_ns = T0;
    w->last_wall_ns = T0 + 10 * SEC;
    w->end = RUN_END_EXIT;
    log_add_string(log, &(scope_rec_string){1, bytes("step")});
    log_add_agg(log, &(scope_rec_phase_agg){
                         .node = 1, .count = 4, .wall_ns = 4 * SEC, .min_ns = SEC, .max_ns = SEC});
    log_add_node(log, &(scope_rec_phase_node){.id = 1, .name = 1, .thread = 1});
    log_settle_pending(log);
    worker_log_settle(log);
    return RUN_OK;
}

static const run_loader memory_loader = {"memory", probe_memory, load_memory};

START_TEST(a_second_loader_builds_a_model) {
    char msg[256] = "";
    ck_assert_int_eq(memory_loader.probe("memory:one"), 1);
    run_model_builder *b = run_builder_new("memory:one", NULL);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(memory_loader.load(b, "memory:one", NULL, msg, sizeof msg), RUN_OK);
    run_model *m = NULL;
    ck_assert_int_eq(run_builder_finish(b, &m, msg, sizeof msg), RUN_OK);
    ck_assert_str_eq(m->dir, "memory:one");
    ck_assert_uint_eq(m->nworkers, 1);
    ck_assert_uint_eq(m->ncaveats, 0);
    const run_role *r = run_find_role(m, "trainer");
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->phase_ns, 4 * SEC);
    const run_phase *p = run_find_phase(r, "step");
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(p->dist.count, 4);
    const run_role *alone = run_worker_role(m, 0);
    ck_assert_ptr_nonnull(alone);
    ck_assert_uint_eq(run_find_phase(alone, "step")->dist.count, 4);
    run_free(m);

    /* With nothing readable the builder says so, naming its source. */
    b = run_builder_new("memory:none", NULL);
    worker_log *log = run_builder_add_workers(b, 1);
    snprintf(log->open_msg, sizeof log->open_msg, "gone");
    ck_assert_int_eq(run_builder_finish(b, &m, msg, sizeof msg), RUN_ERR_NO_READABLE);
    ck_assert_ptr_null(m);
    ck_assert_str_eq(msg, "memory:none: none of its 1 log(s) could be read (first: gone)");
}
END_TEST

START_TEST(run_directories_load_first) {
    char run[512];
    new_run(run, sizeof run, "probe");
    ck_assert_ptr_eq(run_loaders[0], &run_dir_loader);
    ck_assert_int_eq(run_dir_loader.probe(run), 1);
    ck_assert_int_eq(run_dir_loader.probe("/nonexistent/run"), 0);
}
END_TEST

int main(void) {
    /* Not unit_tmpdir: its ck_assert may only run inside a test. */
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/scope-run-model-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(base)) {
        perror(base);
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("run_model");
    TCase *ends = tcase_create("caveats");
    tcase_add_test(ends, stale_and_killed_workers);
    tcase_add_test(ends, ended_by_signal);
    tcase_add_test(ends, recorder_marks);
    tcase_add_test(ends, unbalanced_marks_by_subkind);
    tcase_add_test(ends, unbalanced_marks_of_format_1_0);
    tcase_add_test(ends, unreadable_and_unidentified_logs);
    tcase_add_test(ends, inconsistent_records);
    tcase_add_test(ends, definition_later_in_the_frame);
    suite_add_tcase(s, ends);
    TCase *run = tcase_create("run");
    tcase_add_test(run, run_header);
    tcase_add_test(run, attempts_newest_shown);
    tcase_add_test(run, roles_workers_and_lookups);
    tcase_add_test(run, deep_paths_resolve);
    tcase_add_test(run, a_second_loader_builds_a_model);
    tcase_add_test(run, run_directories_load_first);
    suite_add_tcase(s, run);
    TCase *fig = tcase_create("figures");
    tcase_add_test(fig, threads_merge_by_path);
    tcase_add_test(fig, iteration_name_option);
    tcase_add_test(fig, counters_by_phase);
    tcase_add_test(fig, io_by_phase);
    tcase_add_test(fig, histograms_add_across_processes);
    tcase_add_test(fig, wait_share_spread_imbalance);
    tcase_add_test(fig, wait_range_over_unread_entries);
    tcase_add_test(fig, hist_fold_for_sparklines);
    tcase_add_test(fig, phase_files_normalised);
    suite_add_tcase(s, fig);
    TCase *alone = tcase_create("alone");
    tcase_add_test(alone, worker_role_alone);
    tcase_add_test(alone, worker_role_outside_newest);
    tcase_add_test(alone, worker_role_inconsistent);
    suite_add_tcase(s, alone);
    int rc = unit_run(s);
    rm_tree(base);
    return rc;
}
