/*
 * Per-phase sampled I/O of a log read from its snapshot: a real program
 * (progs/an_phase_io.c) whose two threads write and read known byte counts,
 * each in a phase of its own, over many frames; its run loaded as the
 * loader loads a long run's logs, from the newest snapshot (its threshold
 * lowered to a byte), and as a whole.  report --json's `sampled_io` of each
 * phase is the same either way, before the snapshot the bytes come from
 * its NODE_IO records (docs/format.md 5.22), and it holds exactly the
 * bytes the program counted: a flush's sample at each end of each phase
 * puts all of them in intervals that began inside it, on any machine.
 */
#define _GNU_SOURCE
#include "an_util.h"
#include "rt_util.h"
#include "run_load.h"

#include <cjson/cJSON.h>
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* The phase called name anywhere under a JSON array of phases. */
static const cJSON *json_phase(const cJSON *phases, const char *name) {
    const cJSON *p;
    cJSON_ArrayForEach(p, phases) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(p, "name");
        if (cJSON_IsString(nm) && !strcmp(nm->valuestring, name))
            return p;
        const cJSON *in = json_phase(cJSON_GetObjectItemCaseSensitive(p, "children"), name);
        if (in)
            return in;
    }
    return NULL;
}

/* report --json's sampled_io.<figure> of phase `name`; 0 when null. */
static uint64_t sampled(const cJSON *doc, const char *name, const char *figure) {
    const cJSON *role;
    cJSON_ArrayForEach(role, cJSON_GetObjectItemCaseSensitive(doc, "roles")) {
        const cJSON *p = json_phase(cJSON_GetObjectItemCaseSensitive(role, "phases"), name);
        if (!p)
            continue;
        const cJSON *io = cJSON_GetObjectItemCaseSensitive(p, "sampled_io");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(io, figure);
        return cJSON_IsNumber(v) ? (uint64_t)v->valuedouble : 0;
    }
    ck_abort_msg("no phase %s in report --json", name);
    return 0;
}

static run_model *load(const char *run, int read_all) {
    run_options opt = {.threads = 1, .read_all = read_all, .snapshot_min_bytes = 1};
    run_model *m = NULL;
    char msg[512] = "";
    ck_assert_msg(run_load(run, &opt, &m, msg, sizeof msg) == RUN_OK, "run_load: %s", msg);
    return m;
}

static cJSON *report(const run_model *m) {
    size_t len = 0;
    char *text = an_report_json(m, &len);
    cJSON *doc = cJSON_ParseWithLength(text, len);
    ck_assert_msg(doc, "report --json does not parse: %.300s", text);
    free(text);
    return doc;
}

/* The program's own count of what `phase` moved, from its stdout. */
static uint64_t counted(const char *out, const char *phase) {
    char key[64];
    snprintf(key, sizeof key, "%s ", phase);
    const char *at = strstr(out, key);
    ck_assert_msg(at, "an_phase_io printed no count of %s: %s", phase, out);
    return strtoull(at + strlen(key), NULL, 10);
}

START_TEST(test_phase_io_from_snapshot) {
    char run[4200], data[4200];
    rt_mkdir(run, sizeof run, "phaseio");
    rt_mkdir(data, sizeof data, "phaseio_data");
    const char *env[] = {"SCOPE_SAMPLE_INTERVAL=0.01", "SCOPE_FRAME_INTERVAL=0.05", NULL};
    char *argv[] = {(char *)rt_prog("an_phase_io"), run, data, NULL};
    rt_proc p;
    rt_run(&p, argv, &(rt_opts){.env = env}, 120);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "an_phase_io %s",
                  rt_status(p.status));
    size_t len;
    char *out = rt_slurp(p.out_path, &len);
    uint64_t wrote = counted(out, "write_out"), got = counted(out, "read_in");
    free(out);

    run_model *whole = load(run, 1), *snap = load(run, 0);
    /* Read from the snapshot: fewer frames, and the intervals before it
     * known from its series. */
    ck_assert_uint_gt(whole->workers[0].frames, 10);
    ck_assert_uint_lt(snap->workers[0].frames, whole->workers[0].frames);
    ck_assert_uint_eq(an_caveats_with(whole, "snapshot's series"), 0);

    cJSON *a = report(whole), *b = report(snap);
    static const char *const figures[] = {"disk_read", "cache_read", "disk_write", "char_read",
                                          "char_write"};
    for (size_t f = 0; f < sizeof figures / sizeof *figures; f++) {
        ck_assert_uint_eq(sampled(b, "write_out", figures[f]), sampled(a, "write_out", figures[f]));
        ck_assert_uint_eq(sampled(b, "read_in", figures[f]), sampled(a, "read_in", figures[f]));
    }
    uint64_t w = sampled(b, "write_out", "char_write"), r = sampled(b, "read_in", "char_read");
    ck_assert_msg(w == wrote,
                  "write_out: %" PRIu64 " bytes written under it, the program wrote %" PRIu64, w,
                  wrote);
    ck_assert_msg(r == got, "read_in: %" PRIu64 " bytes read under it, the program read %" PRIu64,
                  r, got);
    /* Each thread's bytes under its own phase only. */
    ck_assert_uint_eq(sampled(b, "write_out", "char_read"), 0);
    ck_assert_uint_eq(sampled(b, "read_in", "char_write"), 0);
    ck_assert_uint_eq(an_caveats_with(snap, "the bytes under each phase are exact"), 1);
    cJSON_Delete(a);
    cJSON_Delete(b);
    run_free(whole);
    run_free(snap);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("phase_io");
    TCase *tc = tcase_create("phase_io");
    rt_fixture(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_phase_io_from_snapshot);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
