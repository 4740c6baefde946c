/*
 * HDF5 input that reaches outside its own file: a scope-profiler file, and
 * one of scope's own exports, whose datasets or groups are external links
 * (to a named pipe, which blocks whoever opens it for reading, or to
 * another valid file, which would be read in silence), or soft links to
 * such a link; or whose links cannot all be listed.  Each must be refused
 * in one line naming the link, promptly, by `scope-tui report`, the
 * browser and run_load.  And the child process
 * that reads a scope-profiler file is held to a wall-clock limit: a file
 * whose reading blocks (a dataset written with a filter this libhdf5 lacks,
 * with HDF5_PLUGIN_PATH holding a named pipe, which the library opens
 * looking for the filter) is refused once SCOPE_H5_READ_TIMEOUT passes.
 *
 * Every command runs under `timeout -s KILL`: a reader that follows the
 * link hangs, and the test fails instead of hanging with it.
 *
 * Arguments: the fixtures folder (tests/fixtures/scope-profiler-h5) and the
 * scope-tui executable.
 */
#define _GNU_SOURCE
#include "run_load.h"
#include "run_model.h"
#include "sp_check.h"
#include "sp_h5_write.h"
#include "unit_util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *fixtures, *scope_tui;
static char dir[512];

/* Seconds any command here may take: each takes well under one. */
#define LIMIT "30"

static void path_in(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", dir, name);
}

/* A named pipe at dir/name, made once. */
static void fifo_in(char *out, size_t cap, const char *name) {
    path_in(out, cap, name);
    if (access(out, F_OK) != 0)
        ck_assert_int_eq(mkfifo(out, 0600), 0);
}

/* Whoever still waits to read the pipe is let go (a reader that opened it
 * before the fix would otherwise wait for ever); returns 1 when someone
 * was waiting. */
static int release(const char *fifo) {
    int fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* A schema 3 file of one rank and one region, at path. */
static void write_valid(const char *path) {
    static const char *const names[] = {"solve"};
    static const uint32_t ranks[] = {0}, regions[] = {0};
    static const uint64_t offsets[] = {0}, counts[] = {3};
    static const int64_t start[] = {10, 20, 40}, end[] = {15, 33, 55};
    hid_t f = spw_create(path);
    spw_write_columnar(f, &(spw_columnar){.schema = 3,
                                          .names = names,
                                          .nnames = 1,
                                          .ranks = ranks,
                                          .region_ids = regions,
                                          .offsets = offsets,
                                          .counts = counts,
                                          .nrows = 1,
                                          .start = start,
                                          .end = end,
                                          .nevents = 3});
    spw_close(f);
}

/* The valid file at path, with its /events replaced by an external link to
 * target:/events (through a soft link /hidden when soft). */
static void write_linked(const char *path, const char *target, int soft) {
    write_valid(path);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    ck_assert_int_ge(H5Ldelete(f, "events", H5P_DEFAULT), 0);
    const char *at = soft ? "hidden" : "events";
    ck_assert_int_ge(H5Lcreate_external(target, "/events", f, at, H5P_DEFAULT, H5P_DEFAULT), 0);
    if (soft)
        ck_assert_int_ge(H5Lcreate_soft("/hidden", f, "events", H5P_DEFAULT, H5P_DEFAULT), 0);
    ck_assert_int_ge(H5Fclose(f), 0);
}

/* `scope-tui report path` and the browser on it end within LIMIT with
 * status 2 and one line holding want and the path; then run_load refuses
 * it too.  env: assignments for the commands ("" none). */
static void refused_promptly(const char *path, const char *want, const char *env) {
    char err[700], cmd[3000];
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    const char *shapes[] = {"report '%s'", "'%s' --size 100x16 --print"};
    for (int k = 0; k < 2; k++) {
        char what[1200];
        snprintf(what, sizeof what, shapes[k], path);
        snprintf(cmd, sizeof cmd, "%s timeout -s KILL " LIMIT " '%s' %s >/dev/null 2>'%s'", env,
                 scope_tui, what, err);
        int st = system(cmd);
        ck_assert_msg(!(WIFEXITED(st) && WEXITSTATUS(st) == 137),
                      "%s: scope-tui %s did not end within " LIMIT " s", path, what);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: scope-tui %s: status %d", path,
                      what, st);
        sp_one_line(err, path, want);
    }
    if (!*env) {
        run_model *m = NULL;
        char msg[1024];
        ck_assert_int_ne(run_load(path, NULL, &m, msg, sizeof msg), RUN_OK);
        ck_assert_msg(strstr(msg, want), "run_load: '%s' lacks '%s'", msg, want);
    }
}

/* The valid file with /events an external link to a named pipe (through
 * the soft link /hidden when soft): refused, and the pipe never opened. */
static void linked_to_a_fifo(const char *name, int soft, const char *want) {
    char fifo[600], path[600], file[64];
    snprintf(file, sizeof file, "%s.fifo", name);
    fifo_in(fifo, sizeof fifo, file);
    snprintf(file, sizeof file, "%s.h5", name);
    path_in(path, sizeof path, file);
    write_linked(path, fifo, soft);
    refused_promptly(path, want, "");
    ck_assert_msg(!release(fifo), "someone opened the named pipe the link names");
}

START_TEST(scope_profiler_external_link_to_a_fifo) {
    linked_to_a_fifo("to-fifo", 0, "/events is an external link");
}
END_TEST

START_TEST(scope_profiler_external_link_to_another_file) {
    char other[600], path[600];
    path_in(other, sizeof other, "other.h5");
    write_valid(other);
    path_in(path, sizeof path, "to-other.h5");
    write_linked(path, other, 0);
    refused_promptly(path, "/events is an external link", "");
}
END_TEST

/* A link's target is a name from the file: shown escaped, like any. */
START_TEST(link_target_shown_escaped) {
    char path[600];
    path_in(path, sizeof path, "escape.h5");
    write_linked(path, "/nonexistent/\033[31mred.h5", 0);
    refused_promptly(path, "/events is an external link, to /nonexistent/\\x1b[31mred.h5:/events",
                     "");
}
END_TEST

START_TEST(scope_profiler_soft_link_to_an_external_link) {
    linked_to_a_fifo("soft", 1, "/hidden is an external link");
}
END_TEST

/* A file whose links cannot all be listed could hold an external link
 * where the walk did not reach: refused whole. */
START_TEST(links_that_cannot_be_listed) {
    char path[1024];
    snprintf(path, sizeof path, "%s/damaged-links.h5", fixtures);
    refused_promptly(path, "its links could not be listed (damaged)", "");
}
END_TEST

/* One of scope's own exports (of the fixture of three ranks), its
 * /processes table then replaced by an external link to target. */
static void export_linked(const char *path, const char *target) {
    char src[1024], cmd[3000];
    snprintf(src, sizeof src, "%s/mpi-3-ranks.h5", fixtures);
    snprintf(cmd, sizeof cmd, "'%s' export '%s' --format hdf5 -o '%s'", scope_tui, src, path);
    ck_assert_int_eq(system(cmd), 0);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert_int_ge(f, 0);
    ck_assert_int_ge(H5Ldelete(f, "processes", H5P_DEFAULT), 0);
    ck_assert_int_ge(
        H5Lcreate_external(target, "/processes", f, "processes", H5P_DEFAULT, H5P_DEFAULT), 0);
    ck_assert_int_ge(H5Fclose(f), 0);
}

START_TEST(export_external_links) {
    char fifo[600], path[600], other[600], cmd[3000];
    fifo_in(fifo, sizeof fifo, "processes.fifo");
    path_in(path, sizeof path, "export-to-fifo.h5");
    export_linked(path, fifo);
    refused_promptly(path, "/processes is an external link", "");
    ck_assert_msg(!release(fifo), "someone opened the named pipe the link names");

    path_in(other, sizeof other, "export-other.h5");
    snprintf(cmd, sizeof cmd, "'%s' export '%s/schema-3.h5' --format hdf5 -o '%s'", scope_tui,
             fixtures, other);
    ck_assert_int_eq(system(cmd), 0);
    path_in(path, sizeof path, "export-to-other.h5");
    export_linked(path, other);
    refused_promptly(path, "/processes is an external link", "");
}
END_TEST

/* A filter that stores its bytes as they are, under an id no libhdf5
 * knows: registered here to write the file, unknown to the reader. */
#define PRIVATE_FILTER 32001
static size_t same_bytes(unsigned flags, size_t ncd, const unsigned cd[], size_t nbytes,
                         size_t *size, void **buf) {
    (void)flags, (void)ncd, (void)cd, (void)size, (void)buf;
    return nbytes;
}

START_TEST(reading_child_has_a_time_limit) {
    char path[600], plugins[600], fifo[700];
    path_in(plugins, sizeof plugins, "plugins");
    ck_assert_int_eq(mkdir(plugins, 0700) == 0 || errno == EEXIST, 1);
    snprintf(fifo, sizeof fifo, "%s/libfilter.so", plugins);
    if (access(fifo, F_OK) != 0)
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    const H5Z_class2_t filter = {
        H5Z_CLASS_T_VERS, (H5Z_filter_t)PRIVATE_FILTER, 1, 1, "same bytes", NULL, NULL, same_bytes};
    ck_assert_int_ge(H5Zregister(&filter), 0);
    path_in(path, sizeof path, "filtered.h5");
    hid_t f = spw_create(path);
    hid_t g = spw_group(f, "rank0/regions/solve");
    int64_t s[] = {10, 20, 40}, e[] = {15, 33, 55};
    hsize_t dims[1] = {3};
    hid_t space = H5Screate_simple(1, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ck_assert_int_ge(H5Pset_chunk(dcpl, 1, dims), 0);
    ck_assert_int_ge(H5Pset_filter(dcpl, PRIVATE_FILTER, H5Z_FLAG_MANDATORY, 0, NULL), 0);
    hid_t ds = H5Dcreate2(g, "start_times", H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ck_assert_int_ge(ds, 0);
    ck_assert_int_ge(H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, s), 0);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
    spw_int64s(g, "end_times", e, 3);
    H5Gclose(g);
    spw_close(f);
    char env[800];
    snprintf(env, sizeof env, "HDF5_PLUGIN_PATH='%s' SCOPE_H5_READ_TIMEOUT=2", plugins);
    refused_promptly(path, "its reader took more than 2 s", env);
    release(fifo);
}
END_TEST

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s FIXTURES_DIR SCOPE_TUI\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    scope_tui = argv[2];
    if (sp_make_scratch(dir, sizeof dir, "scope-h5-links") < 0) {
        perror(dir);
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("h5_links");
    TCase *tc = tcase_create("links");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, scope_profiler_external_link_to_a_fifo);
    tcase_add_test(tc, scope_profiler_external_link_to_another_file);
    tcase_add_test(tc, scope_profiler_soft_link_to_an_external_link);
    tcase_add_test(tc, link_target_shown_escaped);
    tcase_add_test(tc, links_that_cannot_be_listed);
    tcase_add_test(tc, export_external_links);
    tcase_add_test(tc, reading_child_has_a_time_limit);
    suite_add_tcase(s, tc);
    int rc = unit_run(s);
    sp_remove_scratch(dir);
    return rc;
}
