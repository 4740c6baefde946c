/*
 * line_profile records of scope-profiler files (formats/h5/sp_lineprof.c,
 * the measured rows of src/model/run_lines.c): a file made by a real
 * line_profiler run (tests/fixtures/scope-profiler-h5/line-profile.h5),
 * whose hits and times must equal what line_profiler itself printed
 * (line-profile.stats.txt beside it), per rank and summed, through the
 * model, `lines`, `lines --json` and the browser's Lines and Source views;
 * and every kind of bad record, written here through the HDF5 library,
 * refused in one line naming the file.
 *
 * Arguments: the fixtures folder and the scope-tui executable.
 */
#define _GNU_SOURCE
#include "run_lines.h"
#include "run_load.h"
#include "run_model.h"
#include "sp_check.h"
#include "sp_h5_write.h"
#include "unit_util.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <string.h>
#include <sys/wait.h>

static const char *fixtures, *scope_tui;
static char dir[512];

/* ---- what line_profiler printed ------------------------------------------ */

typedef struct said_line {
    int rank;
    char function[32];
    unsigned line;
    uint64_t hits;
    double seconds; /* its Time column x its timer unit */
} said_line;

static said_line said[64];
static size_t nsaid;

/* Each function's header: "Function: F at line L" (its def line). */
typedef struct said_function {
    int rank;
    char function[32];
    unsigned def_line;
} said_function;

static said_function said_fns[16];
static size_t nsaid_fns;

/* Reads line-profile.stats.txt: "rank N", then line_profiler's show_text
 * for that rank ("Timer unit: U s", "Function: F at line L", rows of line,
 * hits, time, per hit, % time and the text; a line that never ran has no
 * figures). */
static void read_stats(void) {
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s/line-profile.stats.txt", fixtures);
    FILE *fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fp);
    int rank = -1;
    double unit = 0;
    char fn[32] = "";
    nsaid = nsaid_fns = 0;
    while (fgets(line, sizeof line, fp)) {
        unsigned no;
        unsigned long long hits;
        double time, per, pct;
        if (sscanf(line, "Function: %31s at line %u", fn, &no) == 2) {
            ck_assert_uint_lt(nsaid_fns, sizeof said_fns / sizeof *said_fns);
            said_fns[nsaid_fns] = (said_function){.rank = rank, .def_line = no};
            snprintf(said_fns[nsaid_fns].function, sizeof said_fns[0].function, "%s", fn);
            nsaid_fns++;
            continue;
        }
        if (sscanf(line, "rank %d", &rank) == 1 || sscanf(line, "Timer unit: %lf s", &unit) == 1)
            continue;
        if (sscanf(line, "%u %llu %lf %lf %lf", &no, &hits, &time, &per, &pct) != 5)
            continue;
        ck_assert_uint_lt(nsaid, sizeof said / sizeof *said);
        said[nsaid] = (said_line){.rank = rank, .line = no, .hits = hits, .seconds = time * unit};
        snprintf(said[nsaid].function, sizeof said[nsaid].function, "%s", fn);
        nsaid++;
    }
    fclose(fp);
    ck_assert_uint_ge(nsaid, 8);
    ck_assert_uint_ge(nsaid_fns, 4);
}

/* Hits and seconds line_profiler printed for (function, line), of one
 * rank or (rank -1) summed over ranks; 0 when it printed none. */
static int said_for(int rank, const char *fn, unsigned line, uint64_t *hits, double *seconds) {
    int found = 0;
    *hits = 0;
    *seconds = 0;
    for (size_t i = 0; i < nsaid; i++)
        if ((rank < 0 || said[i].rank == rank) && !strcmp(said[i].function, fn) &&
            said[i].line == line) {
            *hits += said[i].hits;
            *seconds += said[i].seconds;
            found = 1;
        }
    return found;
}

/* Distinct (function, line) pairs printed for a rank (-1: any). */
static size_t said_rows(int rank) {
    size_t n = 0;
    for (size_t i = 0; i < nsaid; i++) {
        if (rank >= 0 && said[i].rank != rank)
            continue;
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = (rank < 0 || said[k].rank == rank) &&
                   !strcmp(said[k].function, said[i].function) && said[k].line == said[i].line;
        n += !seen;
    }
    return n;
}

static void fixture(char *out, size_t cap) {
    snprintf(out, cap, "%s/line-profile.h5", fixtures);
}

static int close_to(double a, double b) {
    return fabs(a - b) <= 1e-12 * fabs(b) + 1e-15;
}

/* ---- the real file ---------------------------------------------------------- */

/* The model: rows of the measured kind, exact figures, no interval. */
START_TEST(model_holds_measured_rows) {
    read_stats();
    char path[1024], msg[512];
    fixture(path, sizeof path);
    run_model *m = NULL;
    ck_assert_int_eq(run_load(path, NULL, &m, msg, sizeof msg), RUN_OK);
    run_lines_info info;
    ck_assert_int_eq(run_lines_load(m, NULL, &info, msg, sizeof msg), 0);
    ck_assert_int_eq(info.has_lines, 1);
    ck_assert_uint_eq(info.measured_workers, 2);
    ck_assert_uint_eq(info.samples, 0);
    for (int rank = -1; rank < 2; rank++) {
        run_lines_query q = {.worker = SIZE_MAX};
        for (size_t w = 0; w < m->nworkers; w++)
            if (m->workers[w].rank == rank)
                q.worker = w;
        run_lines_result r;
        ck_assert_int_eq(run_lines_select(m, &q, &r, msg, sizeof msg), 0);
        ck_assert_uint_eq(r.nrows, said_rows(rank));
        ck_assert_uint_eq(r.samples, 0);
        double total = 0;
        for (size_t i = 0; i < r.nrows; i++) {
            const run_line *l = &r.rows[i];
            uint64_t hits;
            double secs;
            ck_assert_int_eq(l->kind, RUN_LINE_MEASURED);
            ck_assert(said_for(rank, l->function.s, l->line, &hits, &secs));
            ck_assert_uint_eq(l->hits, hits);
            ck_assert_msg(close_to(l->seconds, secs), "rank %d %s:%u: %.12g s, printed %.12g s",
                          rank, l->function.s, l->line, l->seconds, secs);
            ck_assert(isnan(l->share_sd));
            ck_assert_uint_eq(l->samples, 0);
            if (i)
                ck_assert(l->seconds <= r.rows[i - 1].seconds); /* hottest first */
            total += l->seconds;
        }
        ck_assert(close_to(r.measured_seconds, total));
        for (size_t i = 0; i < r.nfunctions; i++) {
            ck_assert_int_eq(r.functions[i].kind, RUN_LINE_MEASURED);
            ck_assert(isnan(r.functions[i].share_sd));
        }
        run_lines_free(&r);
    }
    run_free(m);
}
END_TEST

/* `lines --json`, per rank and summed: what line_profiler printed. */
START_TEST(json_equals_line_profiler) {
    read_stats();
    char path[1024], cmd[2400];
    fixture(path, sizeof path);
    for (int rank = -1; rank < 2; rank++) {
        char opt[32] = "";
        if (rank >= 0)
            snprintf(opt, sizeof opt, "--rank %d", rank);
        snprintf(cmd, sizeof cmd, "'%s' lines --json --top 0 %s '%s'", scope_tui, opt, path);
        int st;
        char *out = sp_output_of(cmd, &st);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
        cJSON *doc = cJSON_Parse(out);
        ck_assert_msg(doc != NULL, "%s", out);
        ck_assert_int_eq(cJSON_GetObjectItem(doc, "measured_processes")->valueint, 2);
        const cJSON *lines = cJSON_GetObjectItem(doc, "lines"), *l;
        ck_assert_uint_eq((size_t)cJSON_GetArraySize(lines), said_rows(rank));
        uint64_t all = 0;
        cJSON_ArrayForEach(l, lines) {
            const char *fn = cJSON_GetObjectItem(l, "function")->valuestring;
            unsigned no = (unsigned)cJSON_GetObjectItem(l, "line")->valuedouble;
            uint64_t hits;
            double secs;
            ck_assert_msg(said_for(rank, fn, no, &hits, &secs), "%s:%u not printed", fn, no);
            ck_assert_str_eq(cJSON_GetObjectItem(l, "kind")->valuestring, "measured");
            ck_assert_uint_eq((uint64_t)cJSON_GetObjectItem(l, "hits")->valuedouble, hits);
            ck_assert(close_to(cJSON_GetObjectItem(l, "seconds")->valuedouble, secs));
            ck_assert(cJSON_IsNull(cJSON_GetObjectItem(l, "share_sd")));
            ck_assert_int_eq(cJSON_GetObjectItem(l, "samples")->valueint, 0);
            all += hits;
        }
        ck_assert_uint_eq((uint64_t)cJSON_GetObjectItem(doc, "hits")->valuedouble, all);
        cJSON_Delete(doc);
        free(out);
    }
}
END_TEST

static char *line_with(const char *text, const char *needle);

/* The text: line_profiler's columns, the source found under --source-dir,
 * and "exact" where sampled rows show their standard deviation. */
START_TEST(text_in_line_profilers_columns) {
    char path[1024], cmd[3000];
    fixture(path, sizeof path);
    snprintf(cmd, sizeof cmd, "'%s' lines --source-dir '%s' '%s'", scope_tui, fixtures, path);
    int st;
    char *out = sp_output_of(cmd, &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, out);
    ck_assert_msg(strstr(out, "Measured lines of the run: ") && !strstr(out, "Hot lines of"), "%s",
                  out);
    ck_assert_msg(strstr(out, "Line #        Hits        Time   Per Hit  % Time   Line Contents"),
                  "%s", out);
    /* work's loop body (line 31) ran 1000 times in rank 0 and 2000 in rank 1. */
    const char *row = strstr(out, "\n    31       3,000 ");
    ck_assert_msg(row && strstr(row, "total += i * i\n"), "%s", out);
    ck_assert_msg(strstr(out, "   1     3,000 ") && strstr(out, " exact  work "), "%s", out);
    free(out);

    /* The region the records profiled is a phase: --phase selects them. */
    snprintf(cmd, sizeof cmd, "'%s' lines --phase work --rank 1 '%s'", scope_tui, path);
    out = sp_output_of(cmd, &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, out);
    ck_assert_msg(strstr(out, "Measured lines of rank 1, phase work: ") &&
                      strstr(out, "\n    31       2,000 "),
                  "%s", out);
    free(out);

    /* Each function as line_profiler heads it, from its def line on, which
     * has no figures, only its text. */
    read_stats();
    for (size_t i = 0; i < nsaid_fns; i++) {
        const said_function *sf = &said_fns[i];
        snprintf(cmd, sizeof cmd, "'%s' lines --rank %d --source-dir '%s' '%s'", scope_tui,
                 sf->rank, fixtures, path);
        out = sp_output_of(cmd, &st);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, out);
        char head[128], def[128], num[16];
        snprintf(head, sizeof head, "\nFunction: %s at line %u\n", sf->function, sf->def_line);
        snprintf(def, sizeof def, "def %s(", sf->function);
        snprintf(num, sizeof num, "%6u", sf->def_line);
        ck_assert_msg(strstr(out, head), "rank %d: no \"%s\":\n%s", sf->rank, head + 1, out);
        /* Its number, no figures (blanks), its text. */
        char *row = line_with(out, def);
        ck_assert_msg(row && !strncmp(row, num, strlen(num)) &&
                          row + strlen(num) + strspn(row + strlen(num), " ") == strstr(row, def),
                      "rank %d: no row %u of blanks and \"%s\":\n%s", sf->rank, sf->def_line, def,
                      out);
        free(row);
        ck_assert_msg(!strstr(out, " at lines "), "%s", out);
        free(out);
    }

    snprintf(cmd, sizeof cmd, "'%s' lines --rank 7 '%s' 2>&1", scope_tui, path);
    out = sp_output_of(cmd, &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2 &&
                      strstr(out, "no process of rank 7 in this run"),
                  "status %d: %s", st, out);
    free(out);
}
END_TEST

/* A copy of the line of text that holds needle; NULL when none does. */
static char *line_with(const char *text, const char *needle) {
    const char *at = strstr(text, needle);
    if (!at)
        return NULL;
    const char *start = at, *end = strchr(at, '\n');
    while (start > text && start[-1] != '\n')
        start--;
    return strndup(start, end ? (size_t)(end - start) : strlen(start));
}

/* The browser: the Lines view shows hits and "exact", never a ±; Enter
 * opens the function's source with each line's hits. */
START_TEST(browser_lines_and_source_views) {
    char path[1024], cmd[3000];
    fixture(path, sizeof path);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --view lines --size 110x24 --source-dir '%s' --print",
             scope_tui, path, fixtures);
    int st;
    char *screen = sp_output_of(cmd, &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, screen);
    ck_assert_msg(strstr(screen, "measured by line_profiler: exact hits and time") &&
                      strstr(screen, " hits measured") && strstr(screen, "hits    \u25bctime"),
                  "%s", screen);
    char *row = line_with(screen, "line_profile_work.py:31  work");
    ck_assert_msg(row && strstr(row, "exact     3,000"), "%s", screen);
    free(row);
    ck_assert_msg(!strstr(screen, "\u00b10") && !strstr(screen, "samples"), "%s", screen);
    free(screen);

    snprintf(cmd, sizeof cmd,
             "'%s' '%s' --view lines --size 110x24 --source-dir '%s' --keys 'j<Enter>' --print",
             scope_tui, path, fixtures);
    screen = sp_output_of(cmd, &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, screen);
    ck_assert_msg(strstr(screen, " hits, ") && strstr(screen, " measured (exact)"), "%s", screen);
    row = line_with(screen, "total += i * i");
    ck_assert_msg(row && strstr(row, "    31 ") && strstr(row, "  3,000  "), "%s", screen);
    free(row);
    /* Named and listed from its def line, as line_profiler does. */
    ck_assert_msg(strstr(screen, " work at line 28  "), "%s", screen);
    row = line_with(screen, "def work(n):");
    ck_assert_msg(row && strstr(row, "    28 "), "%s", screen);
    free(row);
    free(screen);
}
END_TEST

/* ---- bad records -------------------------------------------------------------- */

/* One rank with region "work" and one line_profile group, whose parts
 * each test spoils in its own way. */
typedef struct profile_spec {
    int no_function, function_int; /* the function attribute absent, or an integer */
    int unit_kind;                 /* 0 a float, 1 absent, 2 a string */
    double unit;
    const int64_t *lines, *hits, *times;
    size_t nlines, nhits, ntimes;
    int float_hits;       /* hits stored as floats */
    size_t chunk_times;   /* times chunked in chunks this large, left unwritten */
    int profile_is_table; /* line_profile/0 a dataset, not a group */
} profile_spec;

static void write_profile(const char *path, const profile_spec *p) {
    hid_t f = spw_create(path);
    int64_t s[] = {10}, e[] = {100};
    spw_region1(f, 0, "work", s, e, 1, "work.py", 3);
    if (p->profile_is_table) {
        hid_t lp = spw_group(f, "rank0/line_profile");
        spw_int64s(lp, "0", s, 1);
        H5Gclose(lp);
        spw_close(f);
        return;
    }
    hid_t g = spw_group(f, "rank0/line_profile/0");
    spw_attr_str(g, "region", "work");
    spw_attr_str(g, "filename", "work.py");
    if (p->function_int)
        spw_attr_int(g, "function", 4);
    else if (!p->no_function)
        spw_attr_str(g, "function", "work");
    spw_attr_int(g, "first_lineno", 3);
    if (p->unit_kind == 0)
        spw_attr_double(g, "unit", p->unit);
    else if (p->unit_kind == 2)
        spw_attr_str(g, "unit", "1e-9");
    spw_int64s(g, "line_numbers", p->lines, p->nlines);
    if (p->float_hits) {
        double v[8];
        for (size_t i = 0; i < p->nhits; i++)
            v[i] = (double)p->hits[i];
        spw_dataset(g, "hits", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, p->nhits);
    } else
        spw_int64s(g, "hits", p->hits, p->nhits);
    if (p->chunk_times)
        spw_int64s_chunked(g, "times", NULL, p->ntimes, p->chunk_times);
    else
        spw_int64s(g, "times", p->times, p->ntimes);
    H5Gclose(g);
    spw_close(f);
}

static const int64_t good_lines[] = {4, 5, 6}, good_hits[] = {1, 1000, 1000},
                     good_times[] = {500, 90000, 120000};

static profile_spec good(void) {
    return (profile_spec){.unit = 1e-9,
                          .lines = good_lines,
                          .hits = good_hits,
                          .times = good_times,
                          .nlines = 3,
                          .nhits = 3,
                          .ntimes = 3};
}

static void refused_profile(const char *name, const profile_spec *p, const char *want) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_profile(path, p);
    sp_refused(scope_tui, dir, path, want);
}

/* The good record reads, so each refusal below is its one spoiled part. */
START_TEST(good_record_reads) {
    char path[700], msg[512];
    snprintf(path, sizeof path, "%s/good.h5", dir);
    profile_spec p = good();
    write_profile(path, &p);
    run_model *m = NULL;
    ck_assert_int_eq(run_load(path, NULL, &m, msg, sizeof msg), RUN_OK);
    run_lines_result r;
    ck_assert_int_eq(
        run_lines_select(m, &(run_lines_query){.worker = SIZE_MAX}, &r, msg, sizeof msg), 0);
    ck_assert_uint_eq(r.nrows, 3);
    ck_assert_uint_eq(r.rows[0].line, 6);
    ck_assert_uint_eq(r.rows[0].hits, 1000);
    ck_assert(close_to(r.rows[0].seconds, 120000e-9));
    ck_assert_uint_eq(r.hits, 2001);
    run_lines_free(&r);
    run_free(m);
}
END_TEST

START_TEST(lengths_that_differ) {
    profile_spec p = good();
    p.nhits = 2;
    refused_profile("lp-lengths.h5", &p,
                    "rank 0, line_profile/0: 3 line numbers, 2 hits and 3 times");
}
END_TEST

START_TEST(wrong_types) {
    profile_spec p = good();
    p.float_hits = 1;
    refused_profile("lp-float.h5", &p, "rank 0, line_profile/0: hits is not a dataset of integers");
    p = good();
    p.function_int = 1;
    refused_profile("lp-fnint.h5", &p,
                    "rank 0, line_profile/0: attribute function is not a string");
    p = good();
    p.no_function = 1;
    refused_profile("lp-nofn.h5", &p, "rank 0, line_profile/0: no function attribute");
    p = good();
    p.unit_kind = 2;
    refused_profile("lp-unitstr.h5", &p, "rank 0, line_profile/0: attribute unit is not a number");
    p = good();
    p.profile_is_table = 1;
    refused_profile("lp-table.h5", &p, "rank 0, line_profile/0 is not a group");
}
END_TEST

START_TEST(negative_hits_or_times) {
    static const int64_t neg_hits[] = {1, -4, 1000}, neg_times[] = {500, 90000, -7};
    profile_spec p = good();
    p.hits = neg_hits;
    refused_profile("lp-neghits.h5", &p,
                    "rank 0, line_profile/0: line 5 has a negative hit count (-4)");
    p = good();
    p.times = neg_times;
    refused_profile("lp-negtimes.h5", &p,
                    "rank 0, line_profile/0: line 6 has a negative time (-7)");
}
END_TEST

START_TEST(missing_or_bad_unit) {
    profile_spec p = good();
    p.unit_kind = 1;
    refused_profile("lp-nounit.h5", &p,
                    "rank 0, line_profile/0: no unit attribute (seconds per tick of times)");
    p = good();
    p.unit = 0;
    refused_profile("lp-unit0.h5", &p,
                    "rank 0, line_profile/0: unit is 0, not a positive number of seconds");
    p.unit = -1e-6;
    refused_profile("lp-unitneg.h5", &p,
                    "rank 0, line_profile/0: unit is -1e-06, not a positive number of seconds");
    p.unit = NAN;
    refused_profile("lp-unitnan.h5", &p,
                    "rank 0, line_profile/0: unit is nan, not a positive number of seconds");
}
END_TEST

START_TEST(line_numbers_below_one) {
    static const int64_t zero_line[] = {0, 5, 6};
    profile_spec p = good();
    p.lines = zero_line;
    refused_profile("lp-line0.h5", &p,
                    "rank 0, line_profile/0: row 0 has line number 0 (line numbers start at 1)");
}
END_TEST

START_TEST(absurd_sizes) {
    /* 2^28-element chunks of times in a file of a few KiB: refused before
     * the library reads one into a buffer of that size. */
    profile_spec p = good();
    p.chunk_times = (size_t)1 << 28;
    refused_profile("lp-chunks.h5", &p,
                    "rank 0, line_profile/0: times claims chunks of 268435456 elements, more "
                    "than the file can hold");
}
END_TEST

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s FIXTURES_DIR SCOPE_TUI\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    scope_tui = argv[2];
    if (sp_make_scratch(dir, sizeof dir, "scope-sp-lineprof") < 0) {
        perror(dir);
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("sp_lineprof");
    TCase *real = tcase_create("line_profiler's file");
    tcase_set_timeout(real, 120);
    tcase_add_test(real, model_holds_measured_rows);
    tcase_add_test(real, json_equals_line_profiler);
    tcase_add_test(real, text_in_line_profilers_columns);
    tcase_add_test(real, browser_lines_and_source_views);
    suite_add_tcase(s, real);
    TCase *bad = tcase_create("bad records");
    tcase_set_timeout(bad, 120);
    tcase_add_test(bad, good_record_reads);
    tcase_add_test(bad, lengths_that_differ);
    tcase_add_test(bad, wrong_types);
    tcase_add_test(bad, negative_hits_or_times);
    tcase_add_test(bad, missing_or_bad_unit);
    tcase_add_test(bad, line_numbers_below_one);
    tcase_add_test(bad, absurd_sizes);
    suite_add_tcase(s, bad);
    int rc = unit_run(s);
    sp_remove_scratch(dir);
    return rc;
}
