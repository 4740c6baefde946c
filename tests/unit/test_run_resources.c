/*
 * Resource samples in the model (run_resources.h) and the report's sampled
 * blocks, on logs written through the real writer with known figures: every
 * total, share, peak and n/a is checked against plain arithmetic.
 */
#include "report_json.h"
#include "run_compare.h"
#include "report_text.h"
#include "run_load.h"
#include "run_model.h"
#include "run_resources.h"
#include "unit_util.h"

#include <scope/log_format.h>

#include <cjson/cJSON.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>

#define SEC  1000000000ull
#define T0   (1796040000ull * SEC) /* 2026-11-30 12:00:00 UTC */
#define MONO 5000ull * SEC

static char run[256];

typedef struct wlog {
    scope_log_writer *w;
    int fd;
} wlog;

static scope_bytes bytes(const char *s) {
    return (scope_bytes){(const uint8_t *)s, strlen(s)};
}

static void put(wlog *l, scope_record r) {
    ck_assert_int_eq(scope_log_writer_add(l->w, &r), 0);
}

/* A log of `role` by `pid` on host h0 in run r1, with phases "load" (node 1)
 * and "load/read" (node 2) on thread 1, 10 s long each. */
static void open_log(wlog *l, const char *role, int64_t pid, int32_t rank) {
    char dir[512], path[700];
    snprintf(dir, sizeof dir, "%s/workers", run);
    mkdir(dir, 0777);
    snprintf(dir, sizeof dir, "%s/workers/h0", run);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/w_r1_%lld.%s", dir, (long long)pid, SCOPE_LOG_FILE_EXT);
    l->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    ck_assert_msg(l->fd >= 0, "open %s: %s", path, strerror(errno));
    scope_log_writer_options opt = {0, 64 * 1024};
    ck_assert_int_eq(scope_log_writer_open(&l->w, l->fd, &opt), 0);
    put(l, (scope_record){.type = SCOPE_REC_PROCESS,
                          .u.process = {.run_id = bytes("r1"),
                                        .uuid = bytes("0badcafe"),
                                        .host = bytes("h0"),
                                        .role = bytes(role),
                                        .job_id = bytes(""),
                                        .step_id = bytes(""),
                                        .exe = bytes("/bin/w"),
                                        .cwd = bytes("/"),
                                        .recorder_version = bytes("test"),
                                        .pid = pid,
                                        .ppid = 1,
                                        .rank = rank,
                                        .local_rank = rank,
                                        .node_rank = -1,
                                        .world_size = 2,
                                        .start_wall_ns = T0,
                                        .start_mono_ns = MONO}});
    put(l, (scope_record){.type = SCOPE_REC_STRING, .u.string = {1, bytes("load")}});
    put(l, (scope_record){.type = SCOPE_REC_STRING, .u.string = {2, bytes("read")}});
    put(l, (scope_record){.type = SCOPE_REC_PHASE_NODE, .u.phase_node = {1, 0, 1, 1, 0, 0, 0}});
    put(l, (scope_record){.type = SCOPE_REC_PHASE_NODE, .u.phase_node = {2, 1, 2, 1, 0, 0, 0}});
    put(l, (scope_record){.type = SCOPE_REC_PHASE_AGG,
                          .u.phase_agg = {.node = 1,
                                          .count = 1,
                                          .wall_ns = 10 * SEC,
                                          .min_ns = 10 * SEC,
                                          .max_ns = 10 * SEC}});
    put(l,
        (scope_record){
            .type = SCOPE_REC_PHASE_AGG,
            .u.phase_agg = {
                .node = 2, .count = 1, .wall_ns = 5 * SEC, .min_ns = 5 * SEC, .max_ns = 5 * SEC}});
}

#define IO_BITS                                                                                    \
    (SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ | SCOPE_RES_CHAR_WRITE)
#define ALL_BITS                                                                                   \
    (IO_BITS | SCOPE_RES_RSS | SCOPE_RES_RSS_PEAK | SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS)

/* The process record of second s (1 s long). */
static void sample(wlog *l, uint64_t s, uint32_t node, uint64_t dr, uint64_t dw, uint64_t cr,
                   uint64_t cw, uint64_t rss, uint64_t dropped, uint32_t ngpus,
                   const scope_gpu_figures *gpus) {
    put(l, (scope_record){.type = SCOPE_REC_RESOURCE,
                          .u.resource = {.mono_ns = MONO + s * SEC,
                                         .interval_ns = SEC,
                                         .node = node,
                                         .present = ALL_BITS,
                                         .rss = rss,
                                         .cpu_user_ns = SEC / 2,
                                         .cpu_sys_ns = SEC / 4,
                                         .disk_read = dr,
                                         .disk_write = dw,
                                         .char_read = cr,
                                         .char_write = cw,
                                         .ngpus = ngpus,
                                         .gpus = gpus,
                                         .rss_peak = rss + 4096,
                                         .dropped = dropped}});
}

static void thread_sample(wlog *l, uint64_t s, uint32_t thread, uint32_t node, uint64_t dr,
                          uint64_t dw, uint64_t cr, uint64_t cw) {
    put(l, (scope_record){.type = SCOPE_REC_RESOURCE,
                          .u.resource = {.mono_ns = MONO + s * SEC,
                                         .interval_ns = SEC,
                                         .node = node,
                                         .present = IO_BITS,
                                         .disk_read = dr,
                                         .disk_write = dw,
                                         .char_read = cr,
                                         .char_write = cw,
                                         .thread = thread}});
}

static void close_log(wlog *l, uint64_t s) {
    put(l, (scope_record){.type = SCOPE_REC_MARK,
                          .u.mark = {SCOPE_MARK_SHUTDOWN, 0, 0, SCOPE_SHUTDOWN_EXIT, bytes("")}});
    ck_assert_int_gt(
        scope_log_writer_close_frame(l->w, SCOPE_FRAME_EXIT, MONO + s * SEC, T0 + s * SEC), 0);
    scope_log_writer_free(l->w);
    close(l->fd);
}

static run_model *load(int no_samples) {
    run_model *m = NULL;
    char msg[512];
    run_options opt = {.no_samples = no_samples};
    ck_assert_msg(run_load(run, &opt, &m, msg, sizeof msg) == RUN_OK, "%s", msg);
    return m;
}

static size_t worker_of(const run_model *m, int64_t pid) {
    for (size_t i = 0; i < m->nworkers; i++)
        if (m->workers[i].pid == pid)
            return i;
    ck_abort_msg("no pid %lld", (long long)pid);
    return 0;
}

/* Two processes of role "io", ten 1-second intervals each.
 *
 * pid 100: each second reads 1,000 bytes from disk of 5,000 read by
 * syscalls and writes 300 (char 400); thread 1 moves all but 1,000 of the
 * char reads under "load/read" (node 2), thread 2 moves 1,000 with no
 * phase open.  Second 5 was dropped before the record of second 6.
 *
 * pid 200: no thread records (a recorder before 1.3): its process records
 * attribute by their node, "load" (node 1), 2,000 bytes read by syscalls
 * a second, all from page cache. */
static void write_io_run_scaled(uint64_t k) {
    wlog a, b;
    open_log(&a, "io", 100, 0);
    open_log(&b, "io", 200, 1);
    for (uint64_t s = 0; s < 10; s++) {
        sample(&a, s, 2, k * 1000, 300, k * 5000, 400, (1 + s) * 1000000, s == 6, 0, NULL);
        thread_sample(&a, s, 1, 2, k * 1000, 300, k * 4000, 400);
        thread_sample(&a, s, 2, 0, 0, 0, k * 1000, 0);
        sample(&b, s, 1, 0, 0, 2000, 0, 2000000, 0, 0, NULL);
    }
    close_log(&a, 10);
    close_log(&b, 10);
}

static void write_io_run(void) {
    write_io_run_scaled(1);
}

START_TEST(io_totals_and_attribution) {
    write_io_run();
    run_model *m = load(0);
    const run_role *r = run_find_role(m, "io");
    ck_assert_ptr_nonnull(r);
    const run_res *res = run_role_res(m, r);
    ck_assert_ptr_nonnull(res);
    ck_assert_uint_eq(res->nsampled, 2);
    ck_assert_uint_eq(res->intervals, 20);
    ck_assert_uint_eq(res->dropped, 1);
    ck_assert_uint_eq(res->io.disk_read, 10000);
    ck_assert_uint_eq(res->io.char_read, 50000 + 20000);
    ck_assert_uint_eq(res->io.cache_read, 70000 - 10000);
    ck_assert_uint_eq(res->io.disk_write, 3000);
    ck_assert_uint_eq(res->io.char_write, 4000);
    /* No phase: pid 100's thread 2 (1,000 a second); pid 200 none. */
    ck_assert_uint_eq(res->no_phase.char_read, 10000);
    ck_assert_uint_eq(res->no_phase.char_write, 0);
    ck_assert_double_eq_tol(res->no_phase_share, 10000.0 / 74000.0, 1e-12);
    /* All of it recorded by a thread with no phase open: outside every
     * phase, none beyond what the threads recorded. */
    ck_assert_uint_eq(res->outside_phases.char_read, 10000);
    ck_assert_double_eq_tol(res->outside_phases_share, 10000.0 / 74000.0, 1e-12);
    ck_assert_uint_eq(res->unplaced.char_read + res->unplaced.char_write, 0);
    ck_assert_double_eq_tol(res->unplaced_share, 0, 1e-12);
    /* Rates per second of the run's 10 s; peaks from the busiest second. */
    ck_assert_double_eq_tol(res->disk_read_per_s, 1000.0, 1e-9);
    ck_assert_double_eq_tol(res->cache_read_per_s, 6000.0, 1e-9);
    ck_assert_double_eq_tol(res->disk_read_peak, 1000.0, 1e-3);
    ck_assert_double_eq_tol(res->cache_read_peak, 4000.0, 1e-3);
    /* RSS: pid 100 grows to 10 MB (peak field 4,096 above). */
    ck_assert_uint_eq(res->rss_peak, 10000000 + 4096);
    ck_assert_int_eq(m->workers[res->rss_peak_worker].pid, 100);
    ck_assert_uint_eq(res->rss_peak_sum, 10000000 + 4096 + 2000000 + 4096);
    ck_assert_uint_eq(res->cpu_ns, 20 * (SEC / 2 + SEC / 4));
    ck_assert_double_eq_tol(res->cpu_cores, 1.5, 1e-9);
    ck_assert_uint_eq(res->ngpus, 0);

    /* The phases: load/read has pid 100's thread 1; load has pid 200's. */
    const run_phase *rd = run_find_phase(r, "load/read"), *ld = run_find_phase(r, "load");
    run_res_io io;
    ck_assert(run_phase_sampled_io(rd, &io));
    ck_assert_uint_eq(io.disk_read, 10000);
    ck_assert_uint_eq(io.char_read, 40000);
    ck_assert_uint_eq(io.cache_read, 30000);
    ck_assert_uint_eq(io.disk_write, 3000);
    ck_assert(run_phase_sampled_io(ld, &io));
    ck_assert_uint_eq(io.char_read, 20000);
    ck_assert_uint_eq(io.disk_read, 0);

    /* Over time: the columns add up to the bytes (rates x column time). */
    double cols[5], sum = 0;
    double peak = run_res_fold(m, r->workers, r->nprocs, RUN_RES_CACHE_READ, NULL, 5, cols);
    for (int c = 0; c < 5; c++) {
        ck_assert(!isnan(cols[c]));
        sum += cols[c] * 2.0; /* each column is 2 s */
    }
    ck_assert_double_eq_tol(sum, 60000.0, 1e-6);
    ck_assert_double_eq_tol(peak, 6000.0, 1e-6);
    double rss[10];
    run_res_fold(m, r->workers, r->nprocs, RUN_RES_RSS, NULL, 10, rss);
    /* Each bucket holds its interval's peak: pid 100's mark (rss + 4 KiB)
     * rises every second, pid 200's only in its first, so its last reads. */
    ck_assert_double_eq_tol(rss[9], 10004096.0 + 2000000.0, 1e-6);

    /* One process alone. */
    const run_res *one = run_worker_res(m, worker_of(m, 200));
    ck_assert_uint_eq(one->io.char_read, 20000);
    ck_assert_uint_eq(one->no_phase.char_read, 0);
    run_free(m);
}
END_TEST

static char *report_of(run_model *m) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    text_style st = {.width = 100, .color = 0, .utf8 = 1};
    report_text_print(f, m, &st);
    fclose(f);
    return text;
}

static cJSON *json_of(run_model *m) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(report_json_print(f, m), 0);
    fclose(f);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(doc);
    return doc;
}

static double num_at(const cJSON *o, const char *a, const char *b) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    ck_assert_msg(cJSON_IsNumber(x), "%s.%s is not a number", a, b ? b : "");
    return x->valuedouble;
}

START_TEST(json_resources) {
    write_io_run();
    run_model *m = load(0);
    cJSON *doc = json_of(m);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(doc, "resources");
    ck_assert_double_eq(num_at(res, "io", "cache_read"), 60000);
    ck_assert_double_eq(num_at(res, "io", "disk_write"), 3000);
    ck_assert_double_eq(num_at(res, "no_phase", "char_read"), 10000);
    ck_assert_double_eq(num_at(res, "dropped", NULL), 1);
    ck_assert_double_eq(num_at(res, "memory", "rss_peak"), 10004096);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "samples_loaded")));
    const cJSON *role = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "roles"), 0);
    const cJSON *load_phase =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(role, "phases"), 0);
    ck_assert_double_eq(num_at(load_phase, "sampled_io", "char_read"), 20000);
    ck_assert_double_eq(num_at(role, "resources", "intervals"), 20);
    cJSON_Delete(doc);
    run_free(m);

    m = load(1);
    doc = json_of(m);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "resources")));
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(doc, "samples_loaded")));
    cJSON_Delete(doc);
    run_free(m);
}
END_TEST

START_TEST(report_blocks_and_no_samples) {
    write_io_run();
    run_model *m = load(0);
    char *text = report_of(m);
    ck_assert_msg(strstr(text, "I/O  (sampled about once a second: 20 intervals, 1 dropped)"), "%s",
                  text);
    ck_assert_msg(strstr(text, "Read (from disk)               10.0 kB   1.0 kB/s"), "%s", text);
    ck_assert_msg(strstr(text, "Read (from page cache)         60.0 kB   6.0 kB/s"), "%s", text);
    ck_assert_msg(
        strstr(text,
               "(outside every phase)          10.0 kB   13.5% of 74.0 kB through read and write"),
        "%s", text);
    ck_assert_msg(strstr(text, "1 interval whose counters could not be read left out"), "%s", text);
    ck_assert_msg(strstr(text, "RSS peak                       10.0 MB   io rank 0 (pid 100"), "%s",
                  text);
    ck_assert_msg(strstr(text, "  cache  ██████████"), "%s", text);
    ck_assert_msg(strstr(text, "peak 6.0 kB/s"), "the role's peak, both processes:\n%s", text);
    ck_assert_msg(!strstr(text, "\nGPU"), "no GPU block without GPU entries:\n%s", text);
    free(text);
    run_free(m);

    m = load(1);
    ck_assert(m->no_samples);
    ck_assert_ptr_null(m->workers[0].res);
    text = report_of(m);
    ck_assert_msg(!strstr(text, "(sampled") && !strstr(text, "MEMORY"), "%s", text);
    free(text);
    run_free(m);
}
END_TEST

/* GPU 0: pid 100 busy 90%, its own share 30% (NVML saw it), 2 GB;
 * pid 200 sees the same device (busy 80%) with a share of measured 0 and no
 * sample attributed.  GPU 1: both see it, NVML never attributes a sample to
 * either: its share is n/a, not 0. */
START_TEST(gpu_busy_share_and_na) {
    wlog a, b;
    open_log(&a, "gpu", 100, 0);
    open_log(&b, "gpu", 200, 1);
    uint32_t all = SCOPE_GPU_BUSY | SCOPE_GPU_RUN | SCOPE_GPU_MEM_RUN | SCOPE_GPU_MEM_TOTAL;
    uint64_t gb = 1000000000ull;
    scope_gpu_figures ga[2] = {{0, all | SCOPE_GPU_RUN_SEEN, 9000, 3000, 0, 2 * gb, 80 * gb},
                               {1, all, 1000, 0, 0, 0, 80 * gb}};
    scope_gpu_figures gb2[2] = {{0, all, 8000, 0, 0, 0, 80 * gb}, {1, all, 1000, 0, 0, 0, 80 * gb}};
    for (uint64_t s = 0; s < 10; s++) {
        sample(&a, s, 1, 0, 0, 0, 0, gb, 0, 2, ga);
        sample(&b, s, 1, 0, 0, 0, 0, gb, 0, 2, gb2);
    }
    close_log(&a, 10);
    close_log(&b, 10);
    run_model *m = load(0);
    const run_res *res = run_all_res(m);
    ck_assert_uint_eq(res->ngpus, 2);
    const run_res_gpu *g0 = &res->gpus[0], *g1 = &res->gpus[1];
    ck_assert_uint_eq(g0->index, 0);
    ck_assert_double_eq_tol(g0->busy_mean, 0.85, 1e-9);
    ck_assert_double_eq_tol(g0->busy_peak, 0.90, 1e-9);
    ck_assert_double_eq_tol(g0->idle, 0.15, 1e-9);
    ck_assert_double_eq_tol(g0->run_mean, 0.30, 1e-9);
    ck_assert_double_eq_tol(g0->vram_run_peak, 2e9, 1e-3);
    ck_assert_uint_eq(g0->nworkers, 2);
    ck_assert_uint_eq(g0->nrunning, 1);
    ck_assert_uint_eq(g1->index, 1);
    ck_assert_double_eq_tol(g1->busy_mean, 0.10, 1e-9);
    ck_assert(isnan(g1->run_mean));
    ck_assert(isnan(g1->run_peak));
    ck_assert_uint_eq(g1->nrunning, 0);
    char *text = report_of(m);
    ck_assert_msg(strstr(text, "GPU 0                          85.0%      30.0%      15.0%"), "%s",
                  text);
    ck_assert_msg(strstr(text, "GPU 1                          10.0%        n/a      90.0%"), "%s",
                  text);
    free(text);
    run_free(m);
}
END_TEST

/* A sampler that could read no I/O counter: the block says n/a, no 0 B. */
START_TEST(io_not_measured_is_na) {
    wlog a;
    open_log(&a, "blind", 100, 0);
    for (uint64_t s = 0; s < 3; s++)
        put(&a, (scope_record){.type = SCOPE_REC_RESOURCE,
                               .u.resource = {.mono_ns = MONO + s * SEC,
                                              .interval_ns = SEC,
                                              .present = SCOPE_RES_RSS,
                                              .rss = 5000000}});
    close_log(&a, 3);
    run_model *m = load(0);
    const run_res *res = run_all_res(m);
    ck_assert(isnan(res->disk_read_per_s));
    ck_assert(isnan(res->cpu_cores));
    char *text = report_of(m);
    ck_assert_msg(strstr(text, "n/a: no I/O counter could be read by the sampler"), "%s", text);
    ck_assert_msg(strstr(text, "CPU                                n/a   not measured"), "%s",
                  text);
    free(text);
    run_free(m);
}
END_TEST

/* Compare: pid 100 reads twice as much in B; the sampled rates say so. */
START_TEST(compare_sampled_rates) {
    write_io_run();
    run_model *a = load(0);
    char first[256];
    snprintf(first, sizeof first, "%s", run);
    unit_tmpdir(run, sizeof run);
    write_io_run_scaled(2);
    run_model *b = load(0);
    run_cmp *c = run_compare(a, b);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(c->nroles, 1);
    const run_cmp_role *r = &c->roles[0];
    ck_assert(r->res);
    ck_assert_double_eq_tol(r->disk_read_per_s.a, 1000.0, 1e-9);
    ck_assert_double_eq_tol(r->disk_read_per_s.b, 2000.0, 1e-9);
    ck_assert_double_eq_tol(r->disk_read_per_s.change, 1.0, 1e-12);
    ck_assert_double_eq_tol(r->cache_read.b, 100000.0, 1e-9); /* 80,000 + 20,000 */
    ck_assert_uint_eq(r->ngpus, 0);
    run_cmp_free(c);
    run_free(b);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", run);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(run, sizeof run, "%s", first);
    run_free(a);
}
END_TEST

/* A sample that began half a second before the run did (another host's
 * clock, or the recorder starting its sampler before the PROCESS record's
 * time): its bytes are still in the series, in the first column. */
START_TEST(fold_keeps_samples_before_the_start) {
    wlog a;
    open_log(&a, "early", 100, 0);
    for (uint64_t s = 0; s < 4; s++)
        put(&a, (scope_record){.type = SCOPE_REC_RESOURCE,
                               .u.resource = {.mono_ns = MONO + s * SEC - SEC / 2,
                                              .interval_ns = SEC,
                                              .present = IO_BITS,
                                              .disk_read = 1000}});
    close_log(&a, 4);
    run_model *m = load(0);
    const run_role *r = run_find_role(m, "early");
    double cols[4], sum = 0;
    run_res_fold(m, r->workers, r->nprocs, RUN_RES_DISK_READ, NULL, 4, cols);
    for (int c = 0; c < 4; c++)
        sum += isnan(cols[c]) ? 0 : cols[c]; /* 1 s columns: bytes/s = bytes */
    /* 4,000 bytes, of which the half second before the start is outside. */
    ck_assert_double_eq_tol(sum, 3500.0, 1e-6);
    ck_assert_double_eq_tol(cols[0], 1000.0, 1e-6);
    run_free(m);
}
END_TEST

static void setup(void) {
    unit_tmpdir(run, sizeof run);
}

static void teardown(void) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", run);
    ck_assert_int_eq(system(cmd), 0);
}

int main(void) {
    Suite *s = suite_create("run_resources");
    TCase *tc = tcase_create("resources");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, io_totals_and_attribution);
    tcase_add_test(tc, report_blocks_and_no_samples);
    tcase_add_test(tc, json_resources);
    tcase_add_test(tc, compare_sampled_rates);
    tcase_add_test(tc, fold_keeps_samples_before_the_start);
    tcase_add_test(tc, gpu_busy_share_and_na);
    tcase_add_test(tc, io_not_measured_is_na);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
