/*
 * The analysis against arithmetic: real processes (progs/an_workload.c)
 * whose counts, spins, sleeps and imbalance are known, recorded by the real
 * recorder, loaded by run_load, the same code every view reads through.
 * Then the same runs damaged, rerun and killed.
 */
#define _GNU_SOURCE
#include "an_util.h"
#include "report_json.h"
#include "rt_util.h"
#include "run_model.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <scope/log_format.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const cpu_always[] = {"SCOPE_CPU_TIME=always", NULL};

/* What each worker timed with its own clock (ms), from its stdout. */
typedef struct truth {
    double compute[3], rest[3], iteration[3], compute_cpu[3];
    double entries[30]; /* every compute entry, sorted */
    int nentries;
} truth;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Records an_workload into a fresh run directory; its own timings into
 * *t when given. */
static void record(char *run, size_t cap, const char *tag, const char *mode, truth *t) {
    rt_mkdir(run, cap, tag);
    char *argv[] = {(char *)rt_prog("an_workload"), run, (char *)mode, NULL};
    rt_opts o = {.env = cpu_always};
    rt_proc p;
    rt_run(&p, argv, &o, 60);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "an_workload %s",
                  rt_status(p.status));
    if (!t)
        return;
    char *out = rt_slurp(p.out_path, NULL);
    t->nentries = 0;
    int seen = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        int i;
        double c, r, it, cpu;
        if (sscanf(line, "worker %d compute_ms %lf rest_ms %lf iteration_ms %lf compute_cpu_ms %lf",
                   &i, &c, &r, &it, &cpu) == 5 &&
            i >= 0 && i < 3) {
            t->compute[i] = c, t->rest[i] = r, t->iteration[i] = it, t->compute_cpu[i] = cpu;
            seen |= 1 << i;
        } else if (sscanf(line, "entry %d compute_ms %lf", &i, &c) == 2 && t->nentries < 30) {
            t->entries[t->nentries++] = c;
        }
    }
    free(out);
    ck_assert_msg(seen == 7, "an_workload printed timings for workers %#x", seen);
    ck_assert_int_eq(t->nentries, 30);
    qsort(t->entries, 30, sizeof *t->entries, cmp_double);
}

static double sum3(const double *v) {
    return v[0] + v[1] + v[2];
}

/* What a phase holds beyond the program's clock reads inside it: those
 * reads themselves, and of a parent, its children's scope_phase_begin and
 * _end, which create the node on a first entry and read CPU time (outside
 * the child, inside the parent).  A few microseconds, but under the
 * sanitizers a first entry can cost half a millisecond. */
static double slack_ms(void) {
    return rt_sanitized() ? 1.0 : 0.05;
}

/* Within 1% plus the slack per entry: the program's clock reads are
 * inside the phase, so it is a hair longer, never shorter. */
static void near(const char *what, double model_ns, double truth_ms) {
    double want = truth_ms * 1e6;
    ck_assert_msg(fabs(model_ns - want) <= 0.01 * want + 4 * slack_ms() * 1e6,
                  "%s: model %.3f ms, program %.3f ms", what, model_ns / 1e6, truth_ms);
}

static run_model *load(const char *run) {
    run_model *m = NULL;
    char msg[512];
    enum run_load_error e = run_load(run, NULL, &m, msg, sizeof msg);
    ck_assert_msg(e == RUN_OK, "run_load: %s", msg);
    return m;
}

static size_t caveats_of(const run_model *m, enum run_caveat_kind kind, const char *substr,
                         const run_caveat **first) {
    size_t n = 0;
    for (size_t i = 0; i < m->ncaveats; i++) {
        if (m->caveats[i].kind != kind || (substr && !strstr(m->caveats[i].text, substr)))
            continue;
        if (!n++ && first)
            *first = &m->caveats[i];
    }
    return n;
}

static void print_caveats(const run_model *m) {
    for (size_t i = 0; i < m->ncaveats; i++)
        fprintf(stderr, "caveat %s: %s\n", run_caveat_kind_name(m->caveats[i].kind),
                m->caveats[i].text);
}

#define MS 1e6

/* ---- the figures -------------------------------------------------------- */

START_TEST(known_figures) {
    char run[4200];
    truth t;
    record(run, sizeof run, "known", "", &t);
    run_model *m = load(run);
    print_caveats(m);
    ck_assert_uint_eq(m->nattempts, 1);
    ck_assert_uint_eq(m->nprocs, 4);
    ck_assert_uint_eq(m->ncaveats, 0);
    ck_assert_uint_eq(m->nroles, 2);
    /* Roles by phase time: the coordinator waits for all of the workers'
     * time and more, so it comes first. */
    ck_assert_str_eq(m->roles[0].name.s, "coordinator");
    const run_role *w = run_find_role(m, "worker");
    ck_assert_uint_eq(w->nprocs, 3);

    const run_phase *it = an_phase(m, "worker", "iteration");
    const run_phase *compute = an_phase(m, "worker", "iteration/compute");
    const run_phase *rest = an_phase(m, "worker", "iteration/rest");
    ck_assert_uint_eq(it->dist.count, 30);
    ck_assert_uint_eq(compute->dist.count, 30);
    ck_assert_uint_eq(rest->dist.count, 30);
    ck_assert_uint_eq(it->nchildren, 2);

    /* 20 + 40 + 60 ms of spinning at least (a busy machine stretches a
     * spin that is preempted at its end), and exactly what the program
     * itself timed. */
    double c = (double)compute->dist.total_ns;
    ck_assert_msg(c >= 120 * MS, "compute total %.3f ms", c / MS);
    near("compute total", c, sum3(t.compute));
    double r = (double)rest->dist.total_ns;
    ck_assert_msg(r >= 150 * MS, "rest total %.3f ms", r / MS);
    near("rest total", r, sum3(t.rest));
    near("iteration total", (double)it->dist.total_ns, sum3(t.iteration));
    /* Self time is what the children leave; shares are of the role's time. */
    ck_assert_uint_eq(it->self_ns,
                      it->dist.total_ns - compute->dist.total_ns - rest->dist.total_ns);
    ck_assert_double_eq_tol(it->share, 1.0, 1e-9);
    ck_assert_double_eq_tol(compute->share, c / (double)w->phase_ns, 1e-9);
    ck_assert_uint_eq(w->phase_ns, it->dist.total_ns);

    /* Spinning is on CPU, sleeping is not (CPU time read on every entry). */
    ck_assert_uint_eq(compute->cpu_count, 30);
    /* On a busy machine a spin is preempted too: then wait% is what the
     * program's own CPU clock says it lost. */
    double want_wait = 1 - sum3(t.compute_cpu) / sum3(t.compute);
    ck_assert_msg(fabs(compute->wait - want_wait) < 0.03, "compute wait %.3f, program %.3f",
                  compute->wait, want_wait);
    ck_assert_msg(rest->wait > 0.85, "rest wait %.3f", rest->wait);

    /* Percentiles from the merged histogram: 10 entries each of about 2, 4
     * and 6 ms.  The 15th and 30th of the 30 the program timed, to within
     * a bucket (3.2%) and a clock read. */
    double slack = slack_ms() * MS;
    ck_assert_msg(fabs(compute->dist.p50_ns - t.entries[14] * MS) <
                      0.035 * t.entries[14] * MS + slack,
                  "p50 %.3f ms, program %.3f ms", compute->dist.p50_ns / MS, t.entries[14]);
    ck_assert_msg(fabs(compute->dist.p99_ns - t.entries[29] * MS) <
                      0.035 * t.entries[29] * MS + slack,
                  "p99 %.3f ms, program %.3f ms", compute->dist.p99_ns / MS, t.entries[29]);
    ck_assert_msg(fabs((double)compute->dist.max_ns - t.entries[29] * MS) <
                      0.01 * t.entries[29] * MS + slack,
                  "max %.3f ms, program %.3f ms", (double)compute->dist.max_ns / MS, t.entries[29]);
    ck_assert_msg(compute->dist.min_ns >= 2 * MS, "min %.3f ms", (double)compute->dist.min_ns / MS);
    ck_assert_msg(fabs((double)compute->dist.min_ns - t.entries[0] * MS) <
                      0.01 * t.entries[0] * MS + slack,
                  "min %.3f ms, program %.3f ms", (double)compute->dist.min_ns / MS, t.entries[0]);
    ck_assert_msg(compute->dist.max_ns >= 6 * MS, "max");
    ck_assert_double_eq_tol(compute->dist.mean_ns, c / 30, 1);

    /* Spread across the three processes: about 20, 40, 60 ms, exactly
     * what each timed.  Worker i spins the longest when i = 2, but on a
     * loaded machine preemption can reorder their totals: the spread is of
     * the totals as timed, so compare it with their order statistics. */
    ck_assert_uint_eq(compute->nprocs, 3);
    double by_size[3] = {t.compute[0], t.compute[1], t.compute[2]};
    qsort(by_size, 3, sizeof by_size[0], cmp_double);
    near("spread min", compute->spread_min_ns, by_size[0]);
    near("spread median", compute->spread_median_ns, by_size[1]);
    near("spread max", compute->spread_max_ns, by_size[2]);

    /* Imbalance: the busiest process's phase time over the mean, about
     * 110/90 = 1.22 and exactly what the program's own times give. */
    double mean = sum3(t.iteration) / 3;
    double busiest = fmax(t.iteration[0], fmax(t.iteration[1], t.iteration[2]));
    ck_assert_msg(fabs(w->imbalance - busiest / mean) < 0.02, "imbalance %.4f, program %.4f",
                  w->imbalance, busiest / mean);
    /* Above 1, as processes of different work are; how far (1.22 on a quiet
     * machine) is the sleeps' and preemptions', which the check above
     * already holds to the program's own times. */
    ck_assert_msg(w->imbalance > 1.0, "imbalance %.3f", w->imbalance);
    /* The slowest process is the one with the most phase time, and the
     * spread's max the one with the most compute.  On a loaded machine
     * those need not be one worker (its rest may be shorter), nor the one
     * that spins longest: each is checked against its own figure. */
    ck_assert_uint_ne(w->slowest_worker, SIZE_MAX);
    near("slowest process's phase time", (double)m->workers[w->slowest_worker].phase_ns, busiest);
    size_t k = 0;
    while (k < w->nprocs && w->workers[k] != compute->spread_max_worker)
        k++;
    ck_assert_uint_lt(k, w->nprocs);
    ck_assert_double_eq(run_phase_proc_ns(compute, k), compute->spread_max_ns);

    /* Counters: exact totals, rate per second of the phase's own time. */
    const run_counter *items = an_counter(compute, "items");
    ck_assert_uint_eq(items->calls, 30);
    ck_assert_int_eq(items->total, 210);
    ck_assert_double_eq_tol(items->rate_per_s, 210 / (c / 1e9), 1e-6);
    ck_assert_double_eq_tol(items->ns_per_unit, c / 210, 1e-6);
    ck_assert_uint_eq(w->nunattached, 1);
    ck_assert_str_eq(w->unattached[0].name.s, "outside");
    ck_assert_int_eq(w->unattached[0].total, 15);
    ck_assert_uint_eq(w->unattached[0].calls, 3);
    ck_assert(isnan(w->unattached[0].rate_per_s));

    /* Iterations and dominant phases. */
    ck_assert(w->has_iterations);
    ck_assert_uint_eq(w->iterations.count, 30);
    ck_assert_uint_eq(w->iterations.total_ns, it->dist.total_ns);
    ck_assert_uint_ge(w->ndominant, 2);
    /* Most self time first: rest (150 ms of sleep) unless a busy machine
     * stretched the spins past it, which the program's own times say. */
    int compute_first = sum3(t.compute) > sum3(t.rest);
    ck_assert_ptr_eq(w->dominant[0], compute_first ? compute : rest);
    ck_assert_ptr_eq(w->dominant[1], compute_first ? rest : compute);
    const run_role *co = run_find_role(m, "coordinator");
    ck_assert(!co->has_iterations);
    ck_assert_uint_eq(an_phase(m, "coordinator", "wait_children")->dist.count, 1);
    ck_assert_uint_ge(an_phase(m, "coordinator", "wait_children")->dist.total_ns, w->phase_ns);
    run_free(m);
}
END_TEST

/* ---- damaged, rerun, killed ------------------------------------------------ */

/* Byte offsets of a log's intact frames, and its size. */
static size_t frame_offsets(const char *path, uint64_t *off, size_t cap, uint64_t *size) {
    scope_log_reader *r;
    char msg[256];
    ck_assert_msg(scope_log_reader_open(&r, path, msg, sizeof msg) == 0, "%s", msg);
    scope_rec_frame fr;
    size_t n = 0;
    while (n < cap && scope_log_reader_next_frame(r, &fr, &off[n]) == 1)
        n++;
    *size = scope_log_reader_info(r)->file_size;
    scope_log_reader_close(r);
    return n;
}

static void worker_path(const run_model *m, const run_role *r, size_t k, char *out, size_t cap) {
    snprintf(out, cap, "%s/%s", m->dir, m->workers[r->workers[k]].path.s);
}

START_TEST(damaged_workers) {
    char run[4200], path[8400], label[400];
    record(run, sizeof run, "damaged", "", NULL);
    run_model *clean = load(run);
    const run_role *w = run_find_role(clean, "worker");
    uint64_t off[9], size;

    /* Each log: the first frame, the first flush, the second and the exit,
     * each followed by its snapshot (docs/format.md 5.2.1).
     * Worker 0: flip bytes inside its fifth frame (the second flush, which
     * defines nothing new).  The frames after it carry full values again,
     * so no figure is lost, but the caveat says what was skipped. */
    worker_path(clean, w, 0, path, sizeof path);
    ck_assert_uint_eq(frame_offsets(path, off, 9, &size), 8);
    int fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, "\xde\xad\xbe\xef", 4, (off_t)(off[4] + (off[5] - off[4]) / 2)), 4);
    close(fd);
    char damaged_label[400];
    run_worker_label(clean, w->workers[0], damaged_label, sizeof damaged_label);

    /* Worker 1: cut inside its exit frame, as a kill during the write
     * would: it keeps the first five iterations. */
    worker_path(clean, w, 1, path, sizeof path);
    ck_assert_uint_eq(frame_offsets(path, off, 9, &size), 8);
    ck_assert_int_eq(truncate(path, (off_t)(off[6] + (off[7] - off[6]) / 2)), 0);
    run_worker_label(clean, w->workers[1], label, sizeof label);
    run_free(clean);

    run_model *m = load(run);
    print_caveats(m);
    ck_assert_uint_eq(m->nprocs, 4);
    const run_caveat *c = NULL;
    ck_assert_uint_eq(caveats_of(m, RUN_CAVEAT_DAMAGED, damaged_label, &c), 1);
    ck_assert_msg(strstr(c->text, "checksum") || strstr(c->text, "damaged"), "%s", c->text);
    ck_assert_uint_eq(caveats_of(m, RUN_CAVEAT_TRUNCATED, label, NULL), 1);
    /* Its exit frame was the one cut: it never shut down as far as the
     * log can tell. */
    ck_assert_uint_eq(caveats_of(m, RUN_CAVEAT_KILLED, label, NULL), 1);
    ck_assert_uint_eq(caveats_of(m, RUN_CAVEAT_KILLED, damaged_label, NULL), 0);
    ck_assert_uint_eq(caveats_of(m, RUN_CAVEAT_INCONSISTENT, NULL, NULL), 0);
    ck_assert_uint_eq(m->ncaveats, 3);
    /* 10 + 5 + 10 iterations; the other figures stay whole. */
    ck_assert_uint_eq(an_phase(m, "worker", "iteration")->dist.count, 25);
    ck_assert_int_eq(an_counter(an_phase(m, "worker", "iteration/compute"), "items")->total, 175);
    run_free(m);
}
END_TEST

START_TEST(two_attempts) {
    char run[4200];
    record(run, sizeof run, "attempts", "", NULL);
    run_model *first = load(run);
    char old_id[64];
    snprintf(old_id, sizeof old_id, "%s", first->attempts[0].run_id.s);
    run_free(first);
    /* Into the same directory again, as a requeued job would. */
    char *argv[] = {(char *)rt_prog("an_workload"), run, NULL};
    rt_opts o = {.env = cpu_always};
    rt_proc p;
    rt_run(&p, argv, &o, 60);
    ck_assert_int_eq(WEXITSTATUS(p.status), 0);

    run_model *m = load(run);
    print_caveats(m);
    ck_assert_uint_eq(m->nworkers, 8);
    ck_assert_uint_eq(m->nattempts, 2);
    ck_assert_str_eq(m->attempts[0].run_id.s, old_id);
    ck_assert_str_ne(m->attempts[1].run_id.s, old_id);
    ck_assert_uint_eq(m->attempts[0].nworkers, 4);
    ck_assert_uint_eq(m->nprocs, 4);
    const run_caveat *c = NULL;
    ck_assert_uint_eq(caveats_of(m, RUN_CAVEAT_SUPERSEDED, old_id, &c), 1);
    ck_assert_msg(strstr(c->text, "4 processes"), "%s", c->text);
    /* Never merged: the newest attempt's figures alone. */
    ck_assert_uint_eq(an_phase(m, "worker", "iteration")->dist.count, 30);
    ck_assert_int_eq(an_counter(an_phase(m, "worker", "iteration/compute"), "items")->total, 210);
    run_free(m);
}
END_TEST

START_TEST(killed_worker) {
    char run[4200];
    record(run, sizeof run, "killed", "victim", NULL);
    run_model *m = load(run);
    print_caveats(m);
    ck_assert_uint_eq(m->nprocs, 5);
    const run_role *v = run_find_role(m, "victim");
    ck_assert_uint_eq(v->nprocs, 1);
    const run_worker *vw = &m->workers[v->workers[0]];
    ck_assert_int_eq(vw->end, RUN_END_KILLED);
    ck_assert_uint_eq(caveats_of(m, RUN_CAVEAT_KILLED, "victim pid", NULL), 1);
    ck_assert_uint_eq(caveats_of(m, RUN_CAVEAT_KILLED, NULL, NULL), 1);
    /* What it flushed before the kill is there. */
    ck_assert_uint_eq(an_phase(m, "victim", "doomed")->dist.count, 1);
    run_free(m);
}
END_TEST

/* ---- JSON: the model, parsed back ---------------------------------------- */

/* A figure the model may lack: null in JSON exactly when it is NAN, and
 * otherwise the same number (integers printed exactly, others to 17
 * digits). */
static void same_num(const cJSON *o, const char *key, double want, const char *where) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    ck_assert_msg(v, "%s: no %s", where, key);
    if (isnan(want)) {
        ck_assert_msg(cJSON_IsNull(v), "%s: %s is not null for a figure not measured", where, key);
        return;
    }
    ck_assert_msg(cJSON_IsNumber(v), "%s: %s is not a number", where, key);
    ck_assert_msg(fabs(v->valuedouble - want) <= 1e-9 * fabs(want) + 1e-9,
                  "%s: %s is %.17g, the model has %.17g", where, key, v->valuedouble, want);
}

static void same_name(const cJSON *o, run_str want, const char *where) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "name");
    ck_assert_msg(cJSON_IsString(v), "%s: no name", where);
    ck_assert_msg(strlen(v->valuestring) == want.len && !memcmp(v->valuestring, want.s, want.len),
                  "%s: name '%s'", where, v->valuestring);
}

static void same_counters(const cJSON *arr, const run_counter *k, size_t n, const char *where) {
    ck_assert_int_eq(cJSON_GetArraySize(arr), (int)n);
    for (size_t i = 0; i < n; i++) {
        const cJSON *c = cJSON_GetArrayItem(arr, (int)i);
        same_name(c, k[i].name, where);
        same_num(c, "calls", (double)k[i].calls, where);
        same_num(c, "total", (double)k[i].total, where);
        same_num(c, "rate_per_s", k[i].rate_per_s, where);
        same_num(c, "ns_per_unit", k[i].ns_per_unit, where);
    }
}

static size_t same_phase(const cJSON *o, const run_phase *p, const char *role) {
    char where[512], path[400];
    snprintf(where, sizeof where, "%s/%s", role, run_phase_path(p, path, sizeof path));
    same_name(o, p->name, where);
    same_num(o, "count", (double)p->dist.count, where);
    same_num(o, "total_ns", (double)p->dist.total_ns, where);
    same_num(o, "self_ns", (double)p->self_ns, where);
    same_num(o, "share", p->share, where);
    same_num(o, "wait", p->wait, where);
    same_num(o, "mean_ns", p->dist.mean_ns, where);
    same_num(o, "p50_ns", p->dist.p50_ns, where);
    same_num(o, "p95_ns", p->dist.p95_ns, where);
    same_num(o, "p99_ns", p->dist.p99_ns, where);
    same_num(o, "nprocs", (double)p->nprocs, where);
    const cJSON *per = cJSON_GetObjectItemCaseSensitive(o, "per_proc_ns");
    for (int i = 0; i < cJSON_GetArraySize(per); i++) {
        const cJSON *v = cJSON_GetArrayItem(per, i);
        ck_assert_msg(isnan(run_phase_proc_ns(p, i))
                          ? cJSON_IsNull(v)
                          : fabs(v->valuedouble - run_phase_proc_ns(p, i)) < 1,
                      "%s: per_proc_ns[%d]", where, i);
    }
    same_counters(cJSON_GetObjectItemCaseSensitive(o, "counters"), p->counters, p->ncounters,
                  where);
    ck_assert_msg(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "io")) == !p->io_measured,
                  "%s: io", where);
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(o, "children");
    ck_assert_int_eq(cJSON_GetArraySize(kids), (int)p->nchildren);
    size_t n = 1;
    for (size_t i = 0; i < p->nchildren; i++)
        n += same_phase(cJSON_GetArrayItem(kids, (int)i), p->children[i], role);
    return n;
}

/* Every figure of the model, printed as JSON and parsed back with cJSON:
 * the same numbers, in the same places, null exactly where the model has
 * none.  On a run with a killed worker, so caveats and NANs are there. */
START_TEST(json_is_the_model) {
    char run[4200];
    record(run, sizeof run, "json", "victim", NULL);
    run_model *m = load(run);
    size_t len = 0;
    char *text = an_report_json(m, &len);
    cJSON *doc = cJSON_ParseWithLength(text, len);
    ck_assert_msg(doc, "report --json does not parse: %.300s", text);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(doc, "schema")->valuestring,
                     REPORT_JSON_SCHEMA);
    const cJSON *hdr = cJSON_GetObjectItemCaseSensitive(doc, "run");
    same_num(hdr, "processes", (double)m->nprocs, "run");
    same_num(hdr, "runtime_ns", (double)m->runtime_ns, "run");
    const cJSON *cav = cJSON_GetObjectItemCaseSensitive(doc, "caveats");
    ck_assert_int_eq(cJSON_GetArraySize(cav), (int)m->ncaveats);
    ck_assert_uint_ge(m->ncaveats, 1);
    for (size_t i = 0; i < m->ncaveats; i++)
        ck_assert_str_eq(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cav, (int)i), "text")->valuestring,
            m->caveats[i].text);
    const cJSON *roles = cJSON_GetObjectItemCaseSensitive(doc, "roles");
    ck_assert_int_eq(cJSON_GetArraySize(roles), (int)m->nroles);
    size_t phases = 0;
    for (size_t r = 0; r < m->nroles; r++) {
        const run_role *role = &m->roles[r];
        const cJSON *o = cJSON_GetArrayItem(roles, (int)r);
        same_name(o, role->name, role->name.s);
        same_num(o, "nprocs", (double)role->nprocs, role->name.s);
        same_num(o, "phase_ns", (double)role->phase_ns, role->name.s);
        same_num(o, "imbalance", role->imbalance, role->name.s);
        same_counters(cJSON_GetObjectItemCaseSensitive(o, "unattached"), role->unattached,
                      role->nunattached, role->name.s);
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "phases");
        ck_assert_int_eq(cJSON_GetArraySize(list), (int)role->root->nchildren);
        for (size_t i = 0; i < role->root->nchildren; i++)
            phases +=
                same_phase(cJSON_GetArrayItem(list, (int)i), role->root->children[i], role->name.s);
        ck_assert_msg(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "iterations")) ==
                          !role->has_iterations,
                      "%s: iterations", role->name.s);
    }
    /* worker: iteration, compute, rest; coordinator: wait_children;
     * victim: doomed (never_ends was entered after its last frame). */
    ck_assert_uint_eq(phases, 5);
    cJSON_Delete(doc);
    free(text);
    run_free(m);
}
END_TEST

Suite *analysis_suite(void) {
    Suite *s = suite_create("analysis");
    TCase *tc = tcase_create("figures");
    rt_fixture(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, known_figures);
    suite_add_tcase(s, tc);
    tc = tcase_create("caveats");
    rt_fixture(tc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, damaged_workers);
    tcase_add_test(tc, two_attempts);
    tcase_add_test(tc, killed_worker);
    tcase_add_test(tc, json_is_the_model);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv) {
    rt_args(argc, argv);
    return rt_run_suite(analysis_suite());
}
