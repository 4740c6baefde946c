/*
 * libscope-lines.so, the in-process tables (scope/lines_render.h), loaded
 * with dlopen as libscope loads it and fed samples made of this process's
 * own modules and the addresses of its own lines (built -O0 -g): the tables
 * must name those functions, lines and source text.
 *
 * Usage: test_lines_render LIBSCOPE_LINES_SO PROJECT_DIR
 */
#define _GNU_SOURCE
#include "self_modules.h"

#include <scope/lines_render.h>

#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *lib_path, *project;
static scope_lines_render_fn render;
static volatile double sink;

__attribute__((noinline)) static void *here(void) {
    return __builtin_return_address(0);
}

enum { LINE_X = __LINE__ + 2 };
__attribute__((noinline)) static void *render_kernel_x(void) {
    void *pc = here(); /* render_kernel_x's hot line */
    sink += 1;
    return pc;
}

enum { LINE_Y = __LINE__ + 2 };
__attribute__((noinline)) static void *render_kernel_y(void) {
    void *pc = here(); /* render_kernel_y's hot line */
    sink -= 1;
    return pc;
}

enum { LINE_M = __LINE__ + 3 };
__attribute__((noinline)) static void *render_calls_libm(double x) {
    void *pc;
    sink = exp(x) + (double)(uintptr_t)(pc = here());
    return pc;
}

#define MAX_MODULES 64
static self_module mods[MAX_MODULES];
static scope_rec_module recs[MAX_MODULES];
/* 1: the process has one sample, in render_kernel_x, and one was dropped. */
static int single;

/* Renders one table of the process's samples into a string. */
static char *table(enum scope_lines_table which, double min_us, int top, const char *sort,
                   int *rc) {
    size_t n = self_modules(mods, MAX_MODULES);
    for (size_t i = 0; i < n; i++)
        recs[i] = self_module_record(&mods[i], i);
    void *exp_addr = dlsym(RTLD_DEFAULT, "exp");
    ck_assert_ptr_nonnull(exp_addr);
    scope_frame_addr fx[] = {self_where(mods, n, render_kernel_x())};
    scope_frame_addr fy[] = {self_where(mods, n, render_kernel_y())};
    scope_frame_addr fm[] = {self_where(mods, n, (char *)exp_addr + 1),
                             self_where(mods, n, render_calls_libm(0.25))};
    scope_rec_stack stacks[] = {{1, 1, fx}, {2, 1, fy}, {3, 2, fm}};
    scope_stack_count counts[] = {{1, 70}, {2, 30}, {3, 20}};
    scope_rec_stack_samples samples[] = {{1, 0, 10000000, single ? 1 : 3, counts, SCOPE_CPU_ON}};
    if (single)
        counts[0].count = 1;
    scope_lines_input in = {recs, n, stacks, 3, samples, 1, project, 10000000, single ? 1 : 4};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    *rc = render(f, &in, which, min_us, top, sort);
    fclose(f);
    return buf;
}

START_TEST(stats_table) {
    int rc;
    char *out = table(SCOPE_LINES_TABLE_STATS, 0, 0, "time", &rc);
    fprintf(stderr, "%s", out);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(out, "Function: render_kernel_x"), "no table of render_kernel_x");
    ck_assert_msg(strstr(out, "Function: render_calls_libm"),
                  "libm's time not charged to its caller");
    char want[200];
    snprintf(want, sizeof want, "%6d %11s", LINE_X, "70");
    ck_assert_msg(strstr(out, want), "no row '%s'", want);
    snprintf(want, sizeof want, "%6d %11s", LINE_M, "20");
    ck_assert_msg(strstr(out, want), "no row '%s'", want);
    ck_assert_msg(strstr(out, "render_kernel_x's hot line"), "no source text");
    ck_assert_msg(strstr(out, "dropped 4 of 124 samples"), "no caveat for the dropped samples");
    /* Hottest function first. */
    ck_assert_msg(strstr(out, "Function: render_kernel_x") <
                      strstr(out, "Function: render_kernel_y"),
                  "render_kernel_x, the hotter, first");
    free(out);
}
END_TEST

START_TEST(top_table) {
    int rc;
    char *out = table(SCOPE_LINES_TABLE_TOP, 0, 2, "hits", &rc);
    fprintf(stderr, "%s", out);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(out, "render_kernel_x") && strstr(out, "render_kernel_y"), "top lines");
    ck_assert_msg(!strstr(out, "render_calls_libm"), "--top 2 shows two lines");
    free(out);
    /* min_time_us leaves out the lines under it: 30 samples x 10 ms = 300 ms. */
    out = table(SCOPE_LINES_TABLE_TOP, 400000, 0, "line", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(out, "render_kernel_x") && !strstr(out, "render_kernel_y"), "%s", out);
    free(out);
}
END_TEST

/* One of anything is said in the singular: "1 sample", never "1 samples". */
START_TEST(one_sample) {
    int rc;
    single = 1;
    char *stats = table(SCOPE_LINES_TABLE_STATS, 0, 0, "time", &rc);
    ck_assert_int_eq(rc, 0);
    char *top = table(SCOPE_LINES_TABLE_TOP, 0, 0, "time", &rc);
    single = 0;
    ck_assert_int_eq(rc, 0);
    fprintf(stderr, "%s%s", stats, top);
    ck_assert_msg(strstr(stats, "Hot lines of this process: 1 sample,"), "%s", stats);
    ck_assert_msg(strstr(stats, "(1 sample, 100.0%"), "%s", stats);
    ck_assert_msg(strstr(stats, "dropped 1 of 2 samples"), "%s", stats);
    ck_assert_msg(strstr(stats, "1 sample was dropped"), "%s", stats);
    ck_assert_msg(strstr(top, "Hot lines of this process: 1 sample,"), "%s", top);
    ck_assert_msg(!strstr(stats, " 1 samples") && !strstr(top, " 1 samples"), "%s%s", stats, top);
    free(stats);
    free(top);
}
END_TEST

START_TEST(bad_input) {
    int rc;
    char *out = table(SCOPE_LINES_TABLE_STATS, 0, 0, "fastest", &rc);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(out, "sort_by"), "%s", out);
    free(out);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    scope_lines_input empty = {0};
    ck_assert_int_eq(render(f, &empty, SCOPE_LINES_TABLE_TOP, 0, 0, NULL), -1);
    fclose(f);
    ck_assert_msg(strstr(buf, "no line samples"), "%s", buf);
    free(buf);
}
END_TEST

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: test_lines_render LIBSCOPE_LINES_SO PROJECT_DIR\n");
        return 2;
    }
    lib_path = argv[1];
    project = argv[2];
    void *lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "test_lines_render: %s\n", dlerror());
        return 1;
    }
    render = (scope_lines_render_fn)dlsym(lib, SCOPE_LINES_RENDER_SYMBOL);
    if (!render) {
        fprintf(stderr, "test_lines_render: no %s in %s\n", SCOPE_LINES_RENDER_SYMBOL, lib_path);
        return 1;
    }
    Suite *s = suite_create("lines_render");
    TCase *tc = tcase_create("lines_render");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, stats_table);
    tcase_add_test(tc, top_table);
    tcase_add_test(tc, one_sample);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
