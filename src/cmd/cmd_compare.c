/*
 * `scope-tui compare A B [--json] [--width N]`: what changed from run A (the
 * base) to run B, per role and phase, biggest change in time first.
 *
 * Exit status: 0 printed; 2 bad usage or a run that cannot be loaded.
 */
#include "cmd_export.h"
#include "cmd_util.h"
#include "commands.h"
#include "compare_json.h"
#include "compare_text.h"
#include "html_compare.h"
#include "text_escape.h"
#include "run_compare.h"
#include "run_compare_lines.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_WIDTH 40

static void compare_usage(FILE *f) {
    fputs("usage: scope-tui compare [--json | --html] [-o FILE] [--width N] [--confidence PCT] "
          "[--no-lines]\n"
          "                         [--attempt-a N] [--attempt-b N] A B\n"
          "Compare run B (the candidate) against run A (the base): per role and phase,\n"
          "the change in total, share, self, p50 and p99 time, entry count and counter\n"
          "rates, sorted by impact (the absolute change in total time), biggest first.\n"
          "Phases, roles and counters found in one run only are marked 'only in A/B'.\n"
          "Each change of a mean has its interval from the noise within the runs; the\n"
          "roles' hottest source lines (when both runs sampled lines) follow their table.\n"
          "  --json       the comparison as JSON (schema scope-compare/1, docs/json.md)\n"
          "  --html       the comparison as one self-contained HTML page (docs/compare.md)\n"
          "  -o, --output FILE  write to FILE instead of standard output\n"
          "  --width N    lay the table out for N columns (default: the terminal's width)\n"
          "  --confidence PCT  of the intervals (default 95; 50 to 99.9)\n"
          "  --no-lines   leave the hot lines out (no symbolizing)\n"
          "  --attempt-a N, --attempt-b N  that attempt of A, of B (1 the oldest; default the\n"
          "               newest): `compare RUN RUN --attempt-a 1` compares a directory\n"
          "               recorded into twice, its first attempt against its newest\n"
          "On a terminal, without --json, --width or --no-lines, the two runs open in the\n"
          "browser's Diff view (as 'scope-tui A B'); piped or redirected, the table prints.\n"
          "Exit status: 0 compared, 2 bad usage or a run that cannot be loaded.\n",
          f);
}

static int parse_width(const char *s, int *out) {
    char *end;
    long n = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || n < MIN_WIDTH || n > 10000)
        return -1;
    *out = (int)n;
    return 0;
}

/* A confidence in percent, 50 to 99.9, as a fraction. */
static int parse_confidence(const char *s, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end != s && *end == '%')
        end++;
    if (end == s || *end != '\0' || !(v >= 50 && v <= 99.9))
        return -1;
    *out = v / 100;
    return 0;
}

/* `scope-tui A B --attempt-a N --attempt N --confidence PCT` in the browser. */
static int browse_diff(char *a, char *b, const run_options *ro_a, const run_options *ro_b,
                       double confidence) {
    char att_a[32], att_b[32], conf[32];
    char *args[10] = {"scope-tui", a, b};
    int n = 3;
    if (ro_a->attempt) {
        snprintf(att_a, sizeof att_a, "%zu", ro_a->attempt);
        args[n++] = "--attempt-a";
        args[n++] = att_a;
    }
    if (ro_b->attempt) {
        snprintf(att_b, sizeof att_b, "%zu", ro_b->attempt);
        args[n++] = "--attempt";
        args[n++] = att_b;
    }
    snprintf(conf, sizeof conf, "%g", confidence * 100);
    args[n++] = "--confidence";
    args[n++] = conf;
    args[n] = NULL;
    return scope_cli_browse(n, args);
}

int scope_cmd_compare(int argc, char **argv) {
    static const struct option opts[] = {{"json", no_argument, 0, 'j'},
                                         {"html", no_argument, 0, 'H'},
                                         {"output", required_argument, 0, 'o'},
                                         {"width", required_argument, 0, 'w'},
                                         {"confidence", required_argument, 0, 'c'},
                                         {"no-lines", no_argument, 0, 'L'},
                                         {"attempt-a", required_argument, 0, 'a'},
                                         {"attempt-b", required_argument, 0, 'b'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int json = 0, html = 0, width = 0, c, lines = 1;
    const char *output = NULL;
    run_options ro_a = {0}, ro_b = {0};
    double confidence = 0.95;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":jw:c:ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 'H':
            html = 1;
            break;
        case 'o':
            output = optarg;
            break;
        case 'w':
            if (parse_width(optarg, &width)) {
                fprintf(stderr,
                        "scope-tui compare: --width wants a number of columns, %d or more\n",
                        MIN_WIDTH);
                return 2;
            }
            break;
        case 'c':
            if (parse_confidence(optarg, &confidence)) {
                fputs("scope-tui compare: --confidence wants a percentage from 50 to 99.9, such "
                      "as 95\n",
                      stderr);
                return 2;
            }
            break;
        case 'L':
            lines = 0;
            break;
        case 'a':
        case 'b':
            if (cmd_parse_attempt("compare", optarg, c == 'a' ? &ro_a : &ro_b) < 0)
                return 2;
            break;
        case 'h':
            compare_usage(stdout);
            return 0;
        default:
            cmd_bad_option("compare", c, argv);
            return 2;
        }
    }
    if (argc - optind != 2) {
        fputs("scope-tui compare: two run directories wanted, A and B (see --help)\n", stderr);
        return 2;
    }
    if (json && html) {
        fputs("scope-tui compare: --json and --html are two formats: give one\n", stderr);
        return 2;
    }
    /* A person at a terminal gets the Diff view; a pipe, a file or an
     * option of the table's own gets the table. */
    if (!json && !html && !output && !width && lines && scope_cli_browse && isatty(STDOUT_FILENO) &&
        isatty(STDIN_FILENO))
        return browse_diff(argv[optind], argv[optind + 1], &ro_a, &ro_b, confidence);
    run_model *a = cmd_load_run("compare", argv[optind], &ro_a);
    run_model *b = a ? cmd_load_run("compare", argv[optind + 1], &ro_b) : NULL;
    run_cmp *cmp = b ? run_compare_with(a, b, &(run_cmp_opts){.confidence = confidence}) : NULL;
    int rc = 2;
    char msg[512];
    cmd_output o;
    FILE *out = cmp ? cmd_output_open("compare", &o, output) : NULL;
    if (cmp && !out) {
        /* cmd_output_open said why */
    } else if (b && !cmp) {
        fputs("scope-tui compare: out of memory\n", stderr);
    } else if (cmp && lines && run_compare_lines(a, b, cmp, msg, sizeof msg) != 0) {
        fprintf(stderr, "scope-tui compare: %s\n", msg);
    } else if (cmp && json) {
        rc = compare_json_print(out, cmp) ? 2 : 0;
    } else if (cmp && html) {
        html_compare_print(out, cmp);
        rc = 0;
    } else if (cmp) {
        text_style st = text_style_for(out, width, -1);
        compare_text_print(out, cmp, &st);
        rc = 0;
    }
    if (out && cmd_output_close("compare", &o, rc == 0) < 0)
        rc = 2;
    run_cmp_free(cmp);
    run_free(b); /* NULL when not loaded */
    run_free(a);
    return rc;
}
