/*
 * The scope-profiler importer (src/load/run_sp_loader.c, formats/h5/sp_file.c):
 * the profiler's own fixtures of schemas 1, 2 and 3 and a three-rank MPI
 * file it wrote, held to the figures their README gives; files written here
 * through the HDF5 library for what those lack (nesting, recursion and
 * overlaps, many ranks, empty regions, missing attributes, a million
 * events); and every kind of bad file, through run_load and through
 * `scope-tui report`, which must say one line naming the file and exit 2.
 *
 * Arguments: the fixtures folder (tests/fixtures/scope-profiler-h5) and the
 * scope-tui executable.
 */
#define _GNU_SOURCE
#include "run_load.h"
#include "run_model.h"
#include "run_sp_loader.h"
#include "sp_check.h"
#include "sp_h5_write.h"
#include "unit_util.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

static const char *fixtures, *scope_tui;

static run_model *load_ok(const char *path) {
    run_model *m = NULL;
    char msg[1024];
    enum run_load_error e = run_load(path, NULL, &m, msg, sizeof msg);
    ck_assert_msg(e == RUN_OK, "%s: %s", path, msg);
    return m;
}

static const run_phase *phase(const run_model *m, const char *path) {
    ck_assert_uint_ge(m->nroles, 1);
    const run_phase *p = run_find_phase(&m->roles[0], path);
    ck_assert_msg(p != NULL, "no phase %s", path);
    return p;
}

static void fixture(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", fixtures, name);
}

/* ---- the profiler's own files ------------------------------------------- */

START_TEST(fixtures_of_every_schema) {
    for (int schema = 1; schema <= 3; schema++) {
        char path[1024], name[32];
        snprintf(name, sizeof name, "schema-%d.h5", schema);
        fixture(path, sizeof path, name);
        ck_assert_int_eq(run_sp_loader.probe(path), 1);
        run_model *m = load_ok(path);
        ck_assert_uint_eq(m->nprocs, 1);
        ck_assert_int_eq(m->workers[0].rank, 0);
        ck_assert_uint_eq(m->ncaveats, 0);
        const run_phase *p = phase(m, "solve");
        ck_assert_uint_eq(p->dist.count, 3);
        ck_assert_uint_eq(p->dist.total_ns, 33);
        ck_assert_uint_eq(p->self_ns, 33);
        ck_assert_uint_eq(p->dist.min_ns, 5);
        ck_assert_uint_eq(p->dist.max_ns, 15);
        ck_assert_int_eq(p->dist.exact_pct, 1);
        ck_assert_double_eq(p->dist.p50_ns, 13);
        ck_assert_double_eq(p->dist.p95_ns, 15);
        ck_assert_double_eq(p->dist.p99_ns, 15);
        ck_assert_str_eq(p->file.s, "solver.py");
        ck_assert_uint_eq(p->line, 7);
        ck_assert_uint_eq(p->tags.len, strlen("golden"));
        ck_assert_mem_eq(p->tags.s, "golden", p->tags.len);
        char want[64];
        snprintf(want, sizeof want, "scope-profiler HDF5, schema %d, MPI size 1", schema);
        ck_assert_str_eq(m->source.s, want);
        run_free(m);
    }
}
END_TEST

/* rank, compute, exchange, step: count and total_ns (the README's h5py). */
static const struct {
    uint64_t compute_n, compute_ns, exchange_n, exchange_ns, step_n, step_ns;
} mpi_said[3] = {
    {4, 9570503, 4, 122922202, 4, 132798669},
    {8, 37062460, 4, 97160809, 4, 134752239},
    {12, 77722231, 4, 47042034, 4, 125516026},
};

START_TEST(mpi_file_of_three_ranks) {
    char path[1024];
    fixture(path, sizeof path, "mpi-3-ranks.h5");
    run_model *m = load_ok(path);
    ck_assert_uint_eq(m->nprocs, 3);
    ck_assert_uint_eq(m->nattempts, 1);
    ck_assert_uint_eq(m->nranked, 3);
    ck_assert_int_eq(m->rank_min, 0);
    ck_assert_int_eq(m->rank_max, 2);
    ck_assert_uint_eq(m->nhosts, 1);
    ck_assert_str_eq(m->hosts[0].s, "vm");
    ck_assert_uint_eq(m->nroles, 1);
    ck_assert_str_eq(m->roles[0].name.s, "scope-profiler");
    /* 2026-12-01T20:32:56 as this machine's local time. */
    struct tm tm = {.tm_year = 126,
                    .tm_mon = 11,
                    .tm_mday = 1,
                    .tm_hour = 20,
                    .tm_min = 32,
                    .tm_sec = 56,
                    .tm_isdst = -1};
    ck_assert_uint_eq(m->start_wall_ns / 1000000000u, (uint64_t)mktime(&tm));
    uint64_t sum[6] = {0};
    for (size_t w = 0; w < m->nworkers; w++) {
        const run_worker *wk = &m->workers[w];
        ck_assert_int_eq(wk->world_size, 3);
        ck_assert_str_eq(wk->cwd.s, "/tmp/sp-mpi3");
        int r = wk->rank;
        ck_assert(r >= 0 && r < 3);
        const run_role *alone = run_worker_role(m, w);
        ck_assert_ptr_nonnull(alone);
        /* compute and exchange only ever run inside step: nested there. */
        ck_assert_uint_eq(alone->root->nchildren, 1);
        const run_phase *step = run_find_phase(alone, "step");
        const run_phase *c = run_find_phase(alone, "step/compute");
        const run_phase *x = run_find_phase(alone, "step/exchange");
        ck_assert(step && c && x);
        ck_assert_uint_eq(c->dist.count, mpi_said[r].compute_n);
        ck_assert_uint_eq(c->dist.total_ns, mpi_said[r].compute_ns);
        ck_assert_uint_eq(x->dist.count, mpi_said[r].exchange_n);
        ck_assert_uint_eq(x->dist.total_ns, mpi_said[r].exchange_ns);
        ck_assert_uint_eq(step->dist.count, mpi_said[r].step_n);
        ck_assert_uint_eq(step->dist.total_ns, mpi_said[r].step_ns);
        ck_assert_uint_eq(step->self_ns,
                          mpi_said[r].step_ns - mpi_said[r].compute_ns - mpi_said[r].exchange_ns);
        sum[0] += mpi_said[r].compute_n, sum[1] += mpi_said[r].compute_ns;
        sum[2] += mpi_said[r].exchange_n, sum[3] += mpi_said[r].exchange_ns;
        sum[4] += mpi_said[r].step_n, sum[5] += mpi_said[r].step_ns;
    }
    ck_assert_uint_eq(phase(m, "step/compute")->dist.count, sum[0]);
    ck_assert_uint_eq(phase(m, "step/compute")->dist.total_ns, sum[1]);
    ck_assert_uint_eq(phase(m, "step/exchange")->dist.count, sum[2]);
    ck_assert_uint_eq(phase(m, "step/exchange")->dist.total_ns, sum[3]);
    ck_assert_uint_eq(phase(m, "step")->dist.count, sum[4]);
    ck_assert_uint_eq(phase(m, "step")->dist.total_ns, sum[5]);
    ck_assert_uint_eq(phase(m, "step/compute")->dist.min_ns, 2098515);
    ck_assert_uint_eq(phase(m, "step/compute")->dist.max_ns, 8192510);
    ck_assert_int_eq(phase(m, "step/compute")->dist.exact_pct, 1);
    run_free(m);
}
END_TEST

START_TEST(browser_and_lines_open_the_mpi_file) {
    char path[1024], cmd[3000];
    fixture(path, sizeof path, "mpi-3-ranks.h5");
    int st;
    snprintf(cmd, sizeof cmd, "'%s' '%s' --size 100x16 --print", scope_tui, path);
    char *screen = sp_output_of(cmd, &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "browser: status %d: %s", st, screen);
    ck_assert_msg(strstr(screen, "3 processes") && strstr(screen, "scope-profiler x3"), "%s",
                  screen);
    /* step at the top, compute and exchange under it, with their counts. */
    const char *step = strstr(screen, "\u25be step");
    const char *compute = strstr(screen, "\n      compute");
    const char *exchange = strstr(screen, "\n      exchange");
    ck_assert_msg(step && compute && exchange && step < compute && step < exchange, "%s", screen);
    ck_assert_msg(strstr(compute, " 24\n") && strstr(exchange, " 12\n"), "%s", screen);
    free(screen);

    snprintf(cmd, sizeof cmd, "'%s' '%s' --view overview --size 120x30 --print", scope_tui, path);
    screen = sp_output_of(cmd, &st);
    ck_assert_msg(strstr(screen, "source       scope-profiler HDF5, schema 1, MPI size 3"), "%s",
                  screen);
    free(screen);

    snprintf(cmd, sizeof cmd, "'%s' report --json '%s'", scope_tui, path);
    char *json = sp_output_of(cmd, &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "report --json: status %d", st);
    ck_assert_msg(strstr(json, "\"source\":\t\"scope-profiler HDF5, schema 1, MPI size 3") &&
                      strstr(json, "\"exact_percentiles\":\ttrue"),
                  "%s", json);
    free(json);

    snprintf(cmd, sizeof cmd, "'%s' lines '%s' 2>&1", scope_tui, path);
    char *out = sp_output_of(cmd, &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 3, "lines: status %d: %s", st, out);
    ck_assert_msg(strstr(out, "has no line samples: ProfileManager.setup(use_line_profiler=True)"),
                  "%s", out);
    free(out);
}
END_TEST

/* ---- files written here --------------------------------------------------- */

/* The browser's phase detail pane names the tags before the source. */
START_TEST(browser_shows_tags) {
    char path[1024], cmd[2400];
    fixture(path, sizeof path, "schema-1.h5");
    snprintf(cmd, sizeof cmd, "'%s' '%s' --size 100x30 --keys j --print", scope_tui, path);
    int st;
    char *out = sp_output_of(cmd, &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "browser: status %d", st);
    ck_assert_msg(strstr(out, "tags golden   solver.py:7"), "no tags in the pane:\n%s", out);
    free(out);
}
END_TEST

static char dir[512];

static void path_in(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", dir, name);
}

START_TEST(nesting_recursion_and_overlaps) {
    /* One rank, schema 2: outer [0,100] holds a [10,30] and [40,60] and b
     * [70,90], and b holds c [75,80]; rec [200,300] holds rec [210,250];
     * x [400,500] and y [450,550] overlap without containment. */
    static const char *const names[] = {"outer", "a", "b", "c", "rec", "x", "y"};
    int64_t start[] = {0, 10, 40, 70, 75, 200, 210, 400, 450};
    int64_t end[] = {100, 30, 60, 90, 80, 300, 250, 500, 550};
    uint32_t ranks[] = {0, 0, 0, 0, 0, 0, 0}, regions[] = {0, 1, 2, 3, 4, 5, 6};
    uint64_t offsets[] = {0, 1, 3, 4, 5, 7, 8}, counts[] = {1, 2, 1, 1, 2, 1, 1};
    char path[600];
    path_in(path, sizeof path, "nesting.h5");
    hid_t f = spw_create(path);
    spw_write_columnar(f, &(spw_columnar){.schema = 2,
                                          .names = names,
                                          .nnames = 7,
                                          .ranks = ranks,
                                          .region_ids = regions,
                                          .offsets = offsets,
                                          .counts = counts,
                                          .nrows = 7,
                                          .start = start,
                                          .end = end,
                                          .nevents = 9});
    spw_close(f);
    run_model *m = load_ok(path);
    const run_phase *outer = phase(m, "outer");
    ck_assert_uint_eq(outer->dist.total_ns, 100);
    ck_assert_uint_eq(outer->nchildren, 2);
    ck_assert_uint_eq(phase(m, "outer/a")->dist.count, 2);
    ck_assert_uint_eq(phase(m, "outer/a")->dist.total_ns, 40);
    ck_assert_uint_eq(phase(m, "outer/b")->dist.total_ns, 20);
    ck_assert_uint_eq(phase(m, "outer/b")->self_ns, 15);
    ck_assert_uint_eq(phase(m, "outer/b/c")->dist.total_ns, 5);
    ck_assert_uint_eq(outer->self_ns, 100 - 40 - 20);
    ck_assert_uint_eq(phase(m, "rec")->dist.count, 1);
    ck_assert_uint_eq(phase(m, "rec")->self_ns, 60);
    ck_assert_uint_eq(phase(m, "rec/rec")->dist.total_ns, 40);
    /* Overlapping calls are siblings, and the process says so. */
    ck_assert_uint_eq(phase(m, "x")->dist.total_ns, 100);
    ck_assert_uint_eq(phase(m, "y")->dist.total_ns, 100);
    ck_assert_uint_eq(phase(m, "x")->nchildren, 0);
    int noted = 0;
    for (size_t i = 0; i < m->ncaveats; i++)
        noted |= strstr(m->caveats[i].text, "1 call(s) overlapped") != NULL;
    ck_assert_msg(noted, "no caveat about the overlapping call");
    run_free(m);
}
END_TEST

START_TEST(many_ranks_schema_3) {
    enum { NR = 64 };
    static const char *const names[] = {"work"};
    uint32_t ranks[NR], regions[NR];
    uint64_t offsets[NR], counts[NR];
    int64_t start[NR * (NR + 1) / 2], end[NR * (NR + 1) / 2];
    size_t n = 0;
    for (uint32_t r = 0; r < NR; r++) {
        ranks[r] = NR - 1 - r; /* rows need not come in rank order */
        regions[r] = 0;
        offsets[r] = n;
        counts[r] = ranks[r] + 1;
        for (uint32_t i = 0; i <= ranks[r]; i++, n++) {
            start[n] = 1000 * (int64_t)i + ranks[r];
            end[n] = start[n] + 10 + ranks[r];
        }
    }
    char path[600];
    path_in(path, sizeof path, "ranks.h5");
    hid_t f = spw_create(path);
    spw_write_columnar(f, &(spw_columnar){.schema = 3,
                                          .names = names,
                                          .nnames = 1,
                                          .ranks = ranks,
                                          .region_ids = regions,
                                          .offsets = offsets,
                                          .counts = counts,
                                          .nrows = NR,
                                          .start = start,
                                          .end = end,
                                          .nevents = n});
    spw_metadata(f, "node7", "2026-11-30T12:00:00.5", NR);
    spw_close(f);
    run_model *m = load_ok(path);
    ck_assert_uint_eq(m->nprocs, NR);
    ck_assert_int_eq(m->rank_max, NR - 1);
    uint64_t want_ns = 0;
    for (uint32_t r = 0; r < NR; r++) {
        want_ns += (uint64_t)(r + 1) * (10 + r);
        const run_worker *w = NULL;
        for (size_t k = 0; k < m->nworkers; k++)
            if (m->workers[k].rank == (int32_t)r)
                w = &m->workers[k];
        ck_assert_ptr_nonnull(w);
        ck_assert_uint_eq(w->phase_ns, (uint64_t)(r + 1) * (10 + r));
        ck_assert_str_eq(w->host.s, "node7");
    }
    ck_assert_uint_eq(phase(m, "work")->dist.count, NR * (NR + 1) / 2);
    ck_assert_uint_eq(phase(m, "work")->dist.total_ns, want_ns);
    ck_assert_uint_eq(phase(m, "work")->dist.min_ns, 10);
    ck_assert_uint_eq(phase(m, "work")->dist.max_ns, 10 + NR - 1);
    run_free(m);
}
END_TEST

START_TEST(empty_regions_and_missing_attributes) {
    /* No /metadata, no source files or lines, a region with no call, and a
     * rank group with no regions at all. */
    char path[600];
    path_in(path, sizeof path, "bare.h5");
    hid_t f = spw_create(path);
    int64_t s[] = {5, 50}, e[] = {25, 60};
    spw_region1(f, 0, "load", s, e, 2, NULL, 0);
    spw_region1(f, 0, "never", s, e, 0, NULL, 0);
    H5Gclose(spw_group(f, "rank1"));
    spw_close(f);
    run_model *m = load_ok(path);
    ck_assert_uint_eq(m->nprocs, 2);
    ck_assert_int_eq(m->workers[0].world_size, -1);
    ck_assert_uint_eq(m->workers[0].host.len, 0);
    ck_assert_uint_eq(m->start_wall_ns, 0);
    const run_phase *p = phase(m, "load");
    ck_assert_uint_eq(p->dist.count, 2);
    ck_assert_uint_eq(p->dist.total_ns, 30);
    ck_assert_uint_eq(p->file.len, 0);
    ck_assert_uint_eq(p->line, 0);
    ck_assert_ptr_null(run_find_phase(&m->roles[0], "never"));
    ck_assert_str_eq(m->source.s, "scope-profiler HDF5, schema 1");
    run_free(m);
}
END_TEST

START_TEST(a_million_events) {
    enum { N = 1000000 };
    int64_t *s = malloc(N * sizeof *s), *e = malloc(N * sizeof *e);
    ck_assert(s && e);
    uint64_t total = 0;
    for (int64_t i = 0; i < N; i++) {
        s[i] = 1000 * i;
        e[i] = s[i] + 1 + i % 500;
        total += (uint64_t)(1 + i % 500);
    }
    int64_t rs = -1, re = 1000 * (int64_t)N;
    char path[600];
    path_in(path, sizeof path, "million.h5");
    hid_t f = spw_create(path);
    spw_region1(f, 0, "tick", s, e, N, "loop.py", 3);
    spw_region1(f, 0, "run", &rs, &re, 1, "main.py", 1);
    spw_close(f);
    free(s);
    free(e);
    run_model *m = load_ok(path);
    const run_phase *t = phase(m, "run/tick");
    ck_assert_uint_eq(t->dist.count, N);
    ck_assert_uint_eq(t->dist.total_ns, total);
    ck_assert_uint_eq(t->dist.min_ns, 1);
    ck_assert_uint_eq(t->dist.max_ns, 500);
    /* Durations 1..500, 2000 times each: the median is 250, p99 495. */
    ck_assert_double_eq(t->dist.p50_ns, 250);
    ck_assert_double_eq(t->dist.p99_ns, 495);
    ck_assert_uint_eq(phase(m, "run")->self_ns, (uint64_t)re - (uint64_t)rs - total);
    run_free(m);
}
END_TEST

/* ---- bad files ------------------------------------------------------------ */

/* path fails to load with a message holding want, and `scope-tui report`
 * says one line naming it and exits 2. */
static void refused(const char *path, const char *want) {
    sp_refused(scope_tui, dir, path, want);
}

static void write_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
}

START_TEST(not_hdf5) {
    char path[600];
    path_in(path, sizeof path, "profiling_data.h5");
    write_text(path, "a text file, named as the profiler names its output\n");
    refused(path, "is a file, not a run directory nor an HDF5 file");
}
END_TEST

START_TEST(hdf5_of_another_layout) {
    char path[600];
    path_in(path, sizeof path, "other.h5");
    hid_t f = spw_create(path);
    double v[] = {1, 2};
    spw_dataset(f, "temperature", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, 2);
    spw_close(f);
    refused(path, "HDF5 of another layout");
}
END_TEST

START_TEST(truncated) {
    char src[1024], path[600];
    fixture(src, sizeof src, "mpi-3-ranks.h5");
    struct stat st;
    ck_assert_int_eq(stat(src, &st), 0);
    const off_t cuts[] = {100, 2048, st.st_size / 2, st.st_size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        snprintf(path, sizeof path, "%s/cut-%zu.h5", dir, i);
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "head -c %lld '%s' >'%s'", (long long)cuts[i], src, path);
        ck_assert_int_eq(system(cmd), 0);
        refused(path, "not a readable HDF5 file (truncated or damaged)");
    }
}
END_TEST

/* Tags in each schema's form reach the model (one per line) and report
 * --json (a list, on the phases that have tags only). */
START_TEST(tags_of_every_schema) {
    char path[600];
    path_in(path, sizeof path, "tags1.h5");
    hid_t f = spw_create(path);
    int64_t s[] = {10, 20}, e[] = {15, 30};
    spw_region1(f, 0, "solve", s, e, 2, NULL, 0);
    int64_t ps[] = {100}, pe[] = {110};
    spw_region1(f, 0, "plain", ps, pe, 1, NULL, 0);
    hid_t g = H5Gopen2(f, "rank0/regions/solve", H5P_DEFAULT);
    static const char *const two[] = {"golden", "mpi"};
    spw_attr_strs(g, "tags", two, 2);
    H5Gclose(g);
    g = H5Gopen2(f, "rank0/regions/plain", H5P_DEFAULT);
    spw_attr_strs(g, "tags", two, 0);
    H5Gclose(g);
    spw_close(f);
    run_model *m = load_ok(path);
    const run_phase *p = phase(m, "solve");
    ck_assert_uint_eq(p->tags.len, strlen("golden\nmpi"));
    ck_assert_mem_eq(p->tags.s, "golden\nmpi", p->tags.len);
    ck_assert_uint_eq(phase(m, "plain")->tags.len, 0);
    run_free(m);

    path_in(path, sizeof path, "tags2.h5");
    static const char *const names[] = {"solve", "plain"};
    static const uint32_t zero[] = {0, 0}, ids[] = {0, 1};
    static const uint64_t off[] = {0, 3}, cnt[] = {3, 1};
    int64_t s4[] = {10, 20, 40, 60}, e4[] = {15, 33, 55, 70};
    for (int schema = 2; schema <= 3; schema++) {
        f = spw_create(path);
        spw_write_columnar(f, &(spw_columnar){.schema = schema,
                                              .names = names,
                                              .nnames = 2,
                                              .ranks = zero,
                                              .region_ids = ids,
                                              .offsets = off,
                                              .counts = cnt,
                                              .nrows = 2,
                                              .start = s4,
                                              .end = e4,
                                              .nevents = 4});
        static const char *const json[] = {"[\"golden\", \"caf\u00e9 \\\"x\\\"\"]", "[]"};
        spw_strings(f, "rank_region_index/tags", json, 2);
        spw_close(f);
        m = load_ok(path);
        p = phase(m, "solve");
        ck_assert_uint_eq(p->tags.len, strlen("golden\ncaf\u00e9 \"x\""));
        ck_assert_mem_eq(p->tags.s, "golden\ncaf\u00e9 \"x\"", p->tags.len);
        ck_assert_uint_eq(phase(m, "plain")->tags.len, 0);
        run_free(m);
    }

    char cmd[1400];
    snprintf(cmd, sizeof cmd, "'%s' report --json '%s'", scope_tui, path);
    int st;
    char *out = sp_output_of(cmd, &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "report --json: status %d", st);
    cJSON *doc = cJSON_Parse(out);
    ck_assert_ptr_nonnull(doc);
    cJSON *phases =
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "roles"), 0), "phases");
    int seen = 0;
    for (cJSON *ph = phases ? phases->child : NULL; ph; ph = ph->next) {
        const char *name = cJSON_GetObjectItem(ph, "name")->valuestring;
        cJSON *tags = cJSON_GetObjectItem(ph, "tags");
        if (!strcmp(name, "plain")) {
            ck_assert_ptr_null(tags);
        } else {
            ck_assert_int_eq(cJSON_GetArraySize(tags), 2);
            ck_assert_str_eq(cJSON_GetArrayItem(tags, 0)->valuestring, "golden");
            ck_assert_str_eq(cJSON_GetArrayItem(tags, 1)->valuestring, "caf\u00e9 \"x\"");
        }
        seen++;
    }
    ck_assert_int_eq(seen, 2);
    cJSON_Delete(doc);
    free(out);
}
END_TEST

START_TEST(wrong_types) {
    char path[600];
    path_in(path, sizeof path, "floats.h5");
    hid_t f = spw_create(path);
    hid_t g = spw_group(f, "rank0/regions/solve");
    double v[] = {1.5, 2.5};
    spw_dataset(g, "start_times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, 2);
    spw_dataset(g, "end_times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, 2);
    H5Gclose(g);
    spw_close(f);
    refused(path, "rank 0, region solve: start_times is not a dataset of integers");

    path_in(path, sizeof path, "names.h5");
    f = spw_create(path);
    int64_t s[] = {1}, e[] = {2}, names[] = {7};
    uint32_t zero[] = {0};
    uint64_t off[] = {0}, one[] = {1};
    spw_attr_int(f, "scope_profiler_schema", 2);
    spw_int64s(f, "region_table/names", names, 1);
    spw_uint32s(f, "rank_region_index/ranks", zero, 1);
    spw_uint32s(f, "rank_region_index/region_ids", zero, 1);
    spw_uint64s(f, "rank_region_index/event_offsets", off, 1);
    spw_uint64s(f, "rank_region_index/event_counts", one, 1);
    spw_int64s(f, "events/start_times", s, 1);
    spw_int64s(f, "events/end_times", e, 1);
    spw_close(f);
    refused(path, "region_table/names is not a dataset of strings");
}
END_TEST

/* A file of one region, "solve", of rank 0 in schema 2 or 3, whose one
 * index row holds 3 calls and whose /events holds nevents; left open for
 * more. */
static hid_t one_row_file(const char *path, int schema, const int64_t *start, const int64_t *end,
                          size_t nevents) {
    static const char *const names[] = {"solve"};
    static const uint32_t zero[] = {0};
    static const uint64_t off[] = {0}, cnt[] = {3};
    hid_t f = spw_create(path);
    spw_write_columnar(f, &(spw_columnar){.schema = schema,
                                          .names = names,
                                          .nnames = 1,
                                          .ranks = zero,
                                          .region_ids = zero,
                                          .offsets = off,
                                          .counts = cnt,
                                          .nrows = 1,
                                          .start = start,
                                          .end = end,
                                          .nevents = nevents});
    return f;
}

START_TEST(bad_tags) {
    char path[600];
    path_in(path, sizeof path, "badtags1.h5");
    hid_t f = spw_create(path);
    int64_t s[] = {1, 2, 3}, e[] = {4, 5, 6};
    spw_region1(f, 0, "solve", s, e, 3, NULL, 0);
    hid_t g = H5Gopen2(f, "rank0/regions/solve", H5P_DEFAULT);
    spw_attr_int(g, "tags", 7);
    H5Gclose(g);
    spw_close(f);
    refused(path, "rank 0, region solve: attribute tags is not an array of strings");

    static const char *const not_json[] = {"golden, fast"}, *const not_strings[] = {"[1]"};
    path_in(path, sizeof path, "badtags2.h5");
    f = one_row_file(path, 2, s, e, 3);
    spw_strings(f, "rank_region_index/tags", not_json, 1);
    spw_close(f);
    refused(path, "rank_region_index/tags row 0 is not a JSON list of strings: golden, fast");

    path_in(path, sizeof path, "badtags3.h5");
    f = one_row_file(path, 3, s, e, 3);
    spw_strings(f, "rank_region_index/tags", not_strings, 1);
    spw_close(f);
    refused(path, "rank_region_index/tags row 0 is not a JSON list of strings: [1]");

    path_in(path, sizeof path, "badtags4.h5");
    f = one_row_file(path, 2, s, e, 3);
    spw_int64s(f, "rank_region_index/tags", s, 1);
    spw_close(f);
    refused(path, "rank_region_index/tags is not 1 strings, one per row");
}
END_TEST

START_TEST(mismatched_lengths) {
    char path[600];
    path_in(path, sizeof path, "lengths1.h5");
    hid_t f = spw_create(path);
    hid_t g = spw_group(f, "rank0/regions/solve");
    int64_t s[] = {1, 2, 3}, e[] = {4, 5};
    spw_int64s(g, "start_times", s, 3);
    spw_int64s(g, "end_times", e, 2);
    H5Gclose(g);
    spw_close(f);
    refused(path, "rank 0, region solve: 3 start times but 2 end times");

    uint32_t zero[] = {0, 0};
    path_in(path, sizeof path, "lengths2.h5");
    f = one_row_file(path, 2, s, s, 3);
    spw_uint32s(f, "rank_region_index/source_lines", zero, 2);
    spw_close(f);
    refused(path, "rank_region_index/source_lines has 2 rows, ranks has 1");

    path_in(path, sizeof path, "lengths3.h5");
    f = one_row_file(path, 2, s, s, 2);
    spw_close(f);
    refused(path, "rank_region_index row 0 holds events 0 + 3, past the 2 in /events");
}
END_TEST

START_TEST(negative_durations) {
    char path[600];
    path_in(path, sizeof path, "negative1.h5");
    hid_t f = spw_create(path);
    int64_t s[] = {10, 20, 40}, e[] = {15, 19, 55};
    spw_region1(f, 0, "solve", s, e, 3, NULL, 0);
    spw_close(f);
    refused(path,
            "rank 0, region solve: call 1 ends before it starts (a negative duration: -1 ns)");

    /* The widest negative duration there is, said without overflowing
     * (found by fuzz_sp_import). */
    path_in(path, sizeof path, "negative-wide.h5");
    f = spw_create(path);
    int64_t ws[] = {INT64_MAX}, we[] = {INT64_MIN};
    spw_region1(f, 0, "solve", ws, we, 1, NULL, 0);
    spw_close(f);
    refused(path, "call 0 ends before it starts (a negative duration: -18446744073709551615 ns)");

    /* Schema 3 stores the durations themselves. */
    path_in(path, sizeof path, "negative3.h5");
    f = one_row_file(path, 3, s, e, 3);
    spw_close(f);
    refused(path, "rank 0, region solve: call 1 has a negative duration (-1 ns)");
}
END_TEST

/* ThreadSanitizer's memcpy checks each byte of the range it is given before
 * copying: the near-2^64 copy below then runs for hours instead of
 * faulting, in a reader that is not ThreadSanitizer's concern. */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

START_TEST(a_file_that_crashes_hdf5) {
    /* Found by fuzz_sp_import: a damaged global heap makes HDF5 1.10 copy a
     * variable-length string of a length near 2^64 (H5HG_read), which ends
     * the reader: a segmentation fault, or under ASan its report and exit
     * status 1.  Either way the file is refused in one line, not a crash. */
#ifdef UNDER_TSAN
    return;
#endif
    char path[1024];
    fixture(path, sizeof path, "damaged-heap.h5");
    refused(path, "the HDF5 library ");
    refused(path, "reading it");
}
END_TEST

START_TEST(chunks_larger_than_the_file) {
    /* HDF5 reads a chunk whole, into a buffer of the size the file claims:
     * 2^28 int64 (2 GiB) chunks in a file of a few KiB are refused before
     * any is read (found by fuzz_sp_import as a 4 GiB allocation).  The
     * start times are left unwritten, so no chunk is stored. */
    char path[600];
    path_in(path, sizeof path, "chunks.h5");
    hid_t f = spw_create(path);
    hid_t g = spw_group(f, "rank0/regions/solve");
    int64_t e[] = {15, 33, 55};
    spw_int64s_chunked(g, "start_times", NULL, 3, (size_t)1 << 28);
    spw_int64s_chunked(g, "end_times", e, 3, 2);
    H5Gclose(g);
    spw_close(f);
    refused(path, "rank 0, region solve: start_times claims chunks of 268435456 elements, more "
                  "than the file can hold");
}
END_TEST

START_TEST(unknown_schema) {
    char path[600];
    path_in(path, sizeof path, "schema9.h5");
    hid_t f = spw_create(path);
    spw_attr_int(f, "scope_profiler_schema", 9);
    spw_close(f);
    refused(path, "scope-profiler schema 9, which this scope does not read");
}
END_TEST

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s FIXTURES_DIR SCOPE_TUI\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    scope_tui = argv[2];
    if (sp_make_scratch(dir, sizeof dir, "scope-sp-import") < 0) {
        perror(dir);
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("sp_import");
    TCase *good = tcase_create("files");
    tcase_set_timeout(good, 120);
    tcase_add_test(good, fixtures_of_every_schema);
    tcase_add_test(good, mpi_file_of_three_ranks);
    tcase_add_test(good, browser_and_lines_open_the_mpi_file);
    tcase_add_test(good, nesting_recursion_and_overlaps);
    tcase_add_test(good, many_ranks_schema_3);
    tcase_add_test(good, empty_regions_and_missing_attributes);
    tcase_add_test(good, a_million_events);
    tcase_add_test(good, tags_of_every_schema);
    tcase_add_test(good, browser_shows_tags);
    suite_add_tcase(s, good);
    TCase *bad = tcase_create("bad files");
    tcase_set_timeout(bad, 120);
    tcase_add_test(bad, not_hdf5);
    tcase_add_test(bad, hdf5_of_another_layout);
    tcase_add_test(bad, truncated);
    tcase_add_test(bad, wrong_types);
    tcase_add_test(bad, bad_tags);
    tcase_add_test(bad, mismatched_lengths);
    tcase_add_test(bad, negative_durations);
    tcase_add_test(bad, unknown_schema);
    tcase_add_test(bad, chunks_larger_than_the_file);
    tcase_add_test(bad, a_file_that_crashes_hdf5);
    suite_add_tcase(s, bad);
    int rc = unit_run(s);
    sp_remove_scratch(dir);
    return rc;
}
