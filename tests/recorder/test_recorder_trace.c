/* Trace windows written while threads record (progs/rt_trace.c): the main
 * thread's steps FIRST..LAST and everything entered while they ran, each
 * event naming a thread and a phase node defined no later than its frame;
 * the window's record agrees with the events the log holds; the cap ends
 * the window with exactly its number of events; a window armed with
 * scope_trace_window while the writer thread writes frames comes back
 * whole through `scope-tui export --format chrome`.  Run under ThreadSanitizer
 * too (scripts/test.sh --tsan): the slots are published by every thread
 * and read by the writer as they arrive. */
#include "progs/rt_common.h"
#include "rt_util.h"

#include <scope/log_format.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define MAX_IDS 4096

static const char *scope_tui;

/* What one log says of its window. */
typedef struct seen {
    scope_rec_trace_window win;  /* the newest */
    uint32_t node_name[MAX_IDS]; /* PHASE_NODE id -> name id, 0: not defined */
    uint32_t node_thread[MAX_IDS];
    uint8_t thread_defined[MAX_IDS];
    char strings[MAX_IDS][32];
    uint64_t phase_events, count_events;
    uint64_t steps, inners, works; /* phase events by name: main's, and the workers' */
    uint64_t early, late;          /* events starting outside the window's bounds */
    uint64_t undefined;            /* events naming a thread or node not yet defined */
    uint32_t main_thread;
} seen;

static const char *name_of(const seen *s, uint32_t node) {
    uint32_t id = node < MAX_IDS ? s->node_name[node] : 0;
    return id && id < MAX_IDS ? s->strings[id] : "";
}

static void check_frame_events(seen *s, const scope_record *recs, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const scope_record *r = &recs[i];
        if (r->type == SCOPE_REC_TRACE) {
            uint32_t th = r->u.trace.thread;
            for (uint32_t k = 0; k < r->u.trace.n; k++) {
                const scope_trace_event *e = &r->u.trace.events[k];
                s->phase_events++;
                if (th >= MAX_IDS || !s->thread_defined[th] || e->node >= MAX_IDS ||
                    !s->node_name[e->node] || s->node_thread[e->node] != th)
                    s->undefined++;
                const char *nm = name_of(s, e->node);
                s->steps += !strcmp(nm, "step");
                s->inners += !strcmp(nm, "inner");
                s->works += !strcmp(nm, "work");
                if (!strcmp(nm, "step"))
                    s->main_thread = th;
            }
        } else if (r->type == SCOPE_REC_TRACE_COUNTS) {
            s->count_events += r->u.trace_counts.n;
            if (r->u.trace_counts.thread >= MAX_IDS || !s->thread_defined[r->u.trace_counts.thread])
                s->undefined++;
        }
    }
}

/* The events' starts against the window's final bounds. */
static void check_bounds(seen *s, const char *path) {
    scope_log_reader *rd;
    char msg[256];
    ck_assert_msg(scope_log_reader_open(&rd, path, msg, sizeof msg) == 0, "%s", msg);
    scope_rec_frame fr;
    while (scope_log_reader_next_frame(rd, &fr, NULL) == 1) {
        scope_record r;
        while (scope_log_reader_next_record(rd, &r) == 1) {
            if (r.type == SCOPE_REC_TRACE)
                for (uint32_t k = 0; k < r.u.trace.n; k++) {
                    uint64_t t = r.u.trace.events[k].start_ns;
                    s->early += t < s->win.start_mono_ns;
                    s->late += s->win.end_mono_ns && t > s->win.end_mono_ns;
                }
            else if (r.type == SCOPE_REC_TRACE_COUNTS)
                for (uint32_t k = 0; k < r.u.trace_counts.n; k++) {
                    uint64_t t = r.u.trace_counts.events[k].mono_ns;
                    s->early += t < s->win.start_mono_ns;
                    s->late += s->win.end_mono_ns && t > s->win.end_mono_ns;
                }
        }
    }
    scope_log_reader_close(rd);
}

static void add_definition(seen *s, const scope_record *r) {
    if (r->type == SCOPE_REC_STRING && r->u.string.id < MAX_IDS)
        snprintf(s->strings[r->u.string.id], sizeof s->strings[0], "%.*s",
                 (int)r->u.string.value.len, (const char *)r->u.string.value.ptr);
    else if (r->type == SCOPE_REC_THREAD && r->u.thread.index < MAX_IDS)
        s->thread_defined[r->u.thread.index] = 1;
    else if (r->type == SCOPE_REC_PHASE_NODE && r->u.phase_node.id < MAX_IDS) {
        s->node_name[r->u.phase_node.id] = r->u.phase_node.name;
        s->node_thread[r->u.phase_node.id] = r->u.phase_node.thread;
    } else if (r->type == SCOPE_REC_TRACE_WINDOW)
        s->win = r->u.trace_window; /* the newest wins */
}

/* Reads the log frame by frame: a frame's definitions first (from a
 * second reader at the same frame, since inside a frame a definition may
 * follow its use), then its events against what it and the frames before
 * it defined. */
static void read_log(const char *path, seen *s) {
    memset(s, 0, sizeof *s);
    scope_log_reader *rd, *defs;
    char msg[256];
    ck_assert_msg(scope_log_reader_open(&rd, path, msg, sizeof msg) == 0, "%s", msg);
    ck_assert_msg(scope_log_reader_open(&defs, path, msg, sizeof msg) == 0, "%s", msg);
    scope_rec_frame fr, fr2;
    scope_record r;
    while (scope_log_reader_next_frame(rd, &fr, NULL) == 1) {
        ck_assert_int_eq(scope_log_reader_next_frame(defs, &fr2, NULL), 1);
        ck_assert_uint_eq(fr.seq, fr2.seq);
        while (scope_log_reader_next_record(defs, &r) == 1)
            add_definition(s, &r);
        while (scope_log_reader_next_record(rd, &r) == 1)
            check_frame_events(s, &r, 1);
    }
    scope_log_reader_close(defs);
    scope_log_reader_close(rd);
    check_bounds(s, path);
}

/* Runs rt_trace with env (and mode, or NULL) into a fresh run directory
 * dir; path gets its log. */
static void run_trace(const char *tag, const char *mode, const char *const *env, char *dir,
                      size_t dircap, char *path, size_t cap) {
    rt_mkdir(dir, dircap, tag);
    char *argv[] = {(char *)rt_prog("rt_trace"), dir, (char *)mode, NULL};
    rt_proc p;
    rt_opts o = {.env = env};
    rt_run(&p, argv, &o, rt_sanitized() ? 300 : 60);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "rt_trace %s; stderr:\n%s",
                  rt_status(p.status), rt_tail(err));
    free(err);
    ck_assert_int_eq(rr_list(dir, path, cap), 1);
}

START_TEST(test_window_while_threads_record) {
    const char *env[] = {"SCOPE_TRACE=step:5-15", "SCOPE_FRAME_INTERVAL=0.05", NULL};
    char dir[4200], path[4300];
    run_trace("trace-threads", NULL, env, dir, sizeof dir, path, sizeof path);
    seen *s = calloc(1, sizeof *s);
    read_log(path, s);
    ck_assert_uint_eq(s->win.state, SCOPE_TRACE_CLOSED);
    ck_assert_uint_eq(s->win.first, 5);
    ck_assert_uint_eq(s->win.last, 15);
    ck_assert_uint_eq(s->win.lost, 0);
    ck_assert_uint_eq(s->undefined, 0);
    /* Steps 5 to 15 and their inner phases, no other step. */
    ck_assert_uint_eq(s->steps, 11);
    ck_assert_uint_eq(s->inners, 11);
    ck_assert_uint_gt(s->works, 0);
    ck_assert_uint_gt(s->count_events, 0);
    ck_assert_uint_eq(s->win.events, s->phase_events + s->count_events);
    ck_assert_uint_eq(s->early, 0);
    /* A worker's phase entered before the end may end after it; none
     * starts after it. */
    ck_assert_uint_eq(s->late, 0);
    free(s);
}
END_TEST

START_TEST(test_cap_ends_the_window) {
    const char *env[] = {"SCOPE_TRACE=step:2-19", "SCOPE_TRACE_EVENTS=40",
                         "SCOPE_FRAME_INTERVAL=0.05", NULL};
    char dir[4200], path[4300];
    run_trace("trace-cap", NULL, env, dir, sizeof dir, path, sizeof path);
    seen *s = calloc(1, sizeof *s);
    read_log(path, s);
    ck_assert_uint_eq(s->win.state, SCOPE_TRACE_CAPPED);
    ck_assert_uint_eq(s->win.cap, 40);
    ck_assert_uint_eq(s->win.events, 40);
    ck_assert_uint_eq(s->phase_events + s->count_events, 40);
    ck_assert_uint_gt(s->win.lost, 0);
    ck_assert_uint_eq(s->undefined, 0);
    ck_assert_uint_eq(s->early, 0);
    free(s);
}
END_TEST

static size_t count_of(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The program's main thread arms the window after frames were written, the
 * writer thread writing more (every 50 ms, the shortest interval) meanwhile and the workers
 * recording: the writer must see the whole window or none of it. */
START_TEST(test_window_armed_while_writing) {
    const char *env[] = {"SCOPE_FRAME_INTERVAL=0.05", NULL};
    char dir[4200], path[4300];
    run_trace("trace-api", "api", env, dir, sizeof dir, path, sizeof path);
    seen *s = calloc(1, sizeof *s);
    read_log(path, s);
    uint64_t steps = RT_TRACE_API_LAST - RT_TRACE_API_FIRST + 1;
    ck_assert_uint_eq(s->win.state, SCOPE_TRACE_CLOSED);
    ck_assert_uint_eq(s->win.first, RT_TRACE_API_FIRST);
    ck_assert_uint_eq(s->win.last, RT_TRACE_API_LAST);
    ck_assert_uint_eq(s->win.lost, 0);
    ck_assert_uint_eq(s->undefined, 0);
    ck_assert_uint_eq(s->steps, steps);
    ck_assert_uint_eq(s->inners, steps);
    ck_assert_uint_eq(s->win.events, s->phase_events + s->count_events);
    ck_assert_uint_eq(s->early, 0);
    ck_assert_uint_eq(s->late, 0);
    free(s);

    char out[4400];
    snprintf(out, sizeof out, "%s/trace.json", dir);
    char *argv[] = {(char *)scope_tui, "export", dir, "--format", "chrome", "-o", out, NULL};
    rt_proc p;
    rt_run(&p, argv, NULL, rt_sanitized() ? 300 : 60);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "export: %s; stderr:\n%s",
                  rt_status(p.status), rt_tail(err));
    free(err);
    char *json = rt_slurp(out, NULL);
    ck_assert_ptr_nonnull(json);
    ck_assert_uint_eq(count_of(json, "{\"name\":\"step\",\"cat\":\"phase\",\"ph\":\"X\""), steps);
    ck_assert_uint_eq(count_of(json, "{\"name\":\"inner\",\"cat\":\"phase\",\"ph\":\"X\""), steps);
    char closed[80];
    snprintf(closed, sizeof closed, "trace window closed: step entry %d ended", RT_TRACE_API_LAST);
    ck_assert_msg(strstr(json, closed), "the export lacks \"%s\":\n%s", closed, rt_tail(json));
    free(json);
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
    Suite *s = suite_create("recorder_trace");
    TCase *tc = tcase_create("trace");
    rt_fixture(tc);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_window_while_threads_record);
    tcase_add_test(tc, test_cap_ends_the_window);
    tcase_add_test(tc, test_window_armed_while_writing);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
