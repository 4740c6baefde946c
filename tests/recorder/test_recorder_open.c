/* The phases open at each frame (format 1.4, OPEN), copied by the writer
 * while the threads that own them run (progs/rt_open.c): a thread that
 * holds two phases open has them, with their starts, in every frame after
 * its definitions; the stacks of threads that change theirs millions of
 * times a second are always stacks they had: each phase the parent of the
 * next, on the thread that owns them, begun in order and before the frame
 * closed. */
#define _GNU_SOURCE
#include "progs/rt_common.h"
#include "rt_util.h"

#include <scope/log_format.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define MAX_NODES 64

typedef struct node_def {
    uint32_t parent, thread;
    int defined;
} node_def;

/* The one log of the run in dir, its path into out. */
static void find_log(const char *dir, char *out, size_t cap) {
    char hosts[4300];
    snprintf(hosts, sizeof hosts, "%s/workers", dir);
    DIR *d = opendir(hosts);
    ck_assert_ptr_nonnull(d);
    struct dirent *e, *h = NULL;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            h = e;
    ck_assert_ptr_nonnull(h);
    char host[4600];
    snprintf(host, sizeof host, "%s/%s", hosts, h->d_name);
    closedir(d);
    d = opendir(host);
    ck_assert_ptr_nonnull(d);
    out[0] = '\0';
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".scope"))
            snprintf(out, cap, "%s/%s", host, e->d_name);
    closedir(d);
    ck_assert_msg(out[0], "no log under %s", host);
}

/* Starts are ticks turned into CLOCK_MONOTONIC at each frame, from how long
 * ago the entry began: the same start reads a little differently in each
 * frame, by the clocks' rounding and the tick rate's calibration (well
 * under 100 ppm of the second this runs). */
static int near(uint64_t a, uint64_t b) {
    return (a > b ? a - b : b - a) <= 100000;
}

START_TEST(test_open_stacks_while_running) {
    char dir[4200];
    rt_mkdir(dir, sizeof dir, "open");
    const char *env[] = {"SCOPE_FRAME_INTERVAL=0.05", NULL};
    char *argv[] = {(char *)rt_prog("rt_open"), dir, NULL};
    rt_proc p;
    rt_opts o = {.env = env};
    rt_run(&p, argv, &o, 120);
    char *err = rt_stderr(&p);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "rt_open %s; stderr:\n%s",
                  rt_status(p.status), rt_tail(err));
    free(err);

    char path[5000], msg[256];
    find_log(dir, path, sizeof path);
    scope_log_reader *r;
    ck_assert_msg(scope_log_reader_open(&r, path, msg, sizeof msg) == 0, "%s", msg);
    node_def nodes[MAX_NODES] = {{0}};
    uint32_t holder = 0, frames = 0, holder_opens = 0, churn_opens = 0;
    uint32_t holder_first = 0, holder_last = 0; /* frames (from 1) holding its stack */
    uint64_t hold_start = 0, inner_start = 0;
    scope_rec_frame fr;
    uint64_t off;
    while (scope_log_reader_next_frame(r, &fr, &off) == 1) {
        frames++;
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1) {
            if (rec.type == SCOPE_REC_THREAD && rec.u.thread.name.len == strlen(RT_OPEN_HOLDER) &&
                !memcmp(rec.u.thread.name.ptr, RT_OPEN_HOLDER, rec.u.thread.name.len))
                holder = rec.u.thread.index;
            if (rec.type == SCOPE_REC_PHASE_NODE) {
                ck_assert_uint_lt(rec.u.phase_node.id, MAX_NODES);
                nodes[rec.u.phase_node.id] =
                    (node_def){rec.u.phase_node.parent, rec.u.phase_node.thread, 1};
            }
            if (rec.type != SCOPE_REC_OPEN)
                continue;
            const scope_rec_open *op = &rec.u.open;
            ck_assert_uint_ge(op->n, 1);
            for (uint32_t i = 0; i < op->n; i++) {
                uint32_t id = op->phases[i].node;
                ck_assert_msg(id < MAX_NODES && nodes[id].defined,
                              "frame %" PRIu64 ": open node %u not defined yet", fr.seq, id);
                ck_assert_uint_eq(nodes[id].thread, op->thread);
                ck_assert_uint_eq(nodes[id].parent, i ? op->phases[i - 1].node : 0);
                ck_assert_msg(i == 0 || op->phases[i].start_ns >= op->phases[i - 1].start_ns,
                              "frame %" PRIu64 ": phase %u began before its parent", fr.seq, i);
                ck_assert_msg(op->phases[i].start_ns <= fr.mono_ns,
                              "frame %" PRIu64 ": an open phase begins after its frame", fr.seq);
            }
            if (op->thread == holder && op->n == 1 && !holder_opens) {
                /* Caught between its two entries (the snapshot right after
                 * the first frame may be): the outer one alone. */
                continue;
            }
            if (op->thread == holder) {
                /* The same two entries, open since they began. */
                ck_assert_uint_eq(op->n, 2);
                if (!holder_opens++) {
                    hold_start = op->phases[0].start_ns;
                    inner_start = op->phases[1].start_ns;
                    holder_first = frames;
                }
                holder_last = frames;
                ck_assert_msg(near(op->phases[0].start_ns, hold_start) &&
                                  near(op->phases[1].start_ns, inner_start),
                              "frame %" PRIu64 ": hold began at %" PRIu64 ", inner at %" PRIu64
                              ", not %" PRIu64 " and %" PRIu64,
                              fr.seq, op->phases[0].start_ns, op->phases[1].start_ns, hold_start,
                              inner_start);
            } else {
                churn_opens++;
            }
        }
    }
    scope_log_reader_close(r);
    ck_assert_uint_ne(holder, 0);
    /* About 20 frames in RT_OPEN_MS, and RT_OPEN_FRAMES at least while the
     * holder has its phases open however loaded the machine (rt_open waits
     * for them).  Every frame from the first that holds the holder's stack
     * to the last that does holds it: how many frames come before (its
     * phases defined) and after (the threads stopped and joined, then the
     * exit) is the machine's. */
    ck_assert_uint_ge(frames, 6);
    ck_assert_msg(holder_opens >= RT_OPEN_FRAMES && holder_opens == holder_last - holder_first + 1,
                  "%u frames, the holder's stack in %u, from frame %u to frame %u", frames,
                  holder_opens, holder_first, holder_last);
    ck_assert_uint_ge(churn_opens, 1);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("recorder_open");
    TCase *tc = tcase_create("open");
    rt_fixture(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_open_stacks_while_running);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
