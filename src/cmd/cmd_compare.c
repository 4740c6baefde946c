/*
 * `scope-tui compare A B [--json] [--width N]`: what changed from run A (the
 * base) to run B, per role and phase, biggest change in time first.
 *
 * Exit status: 0 printed; 2 bad usage or a run that cannot be loaded.
 */
#include "cmd_util.h"
#include "commands.h"
#include "compare_json.h"
#include "compare_text.h"
#include "run_compare.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#define MIN_WIDTH 40

static void compare_usage(FILE *f) {
    fputs("usage: scope-tui compare [--json] [--width N] A B\n"
          "Compare run B (the candidate) against run A (the base): per role and phase,\n"
          "the change in total, share, self, p50 and p99 time, entry count and counter\n"
          "rates, sorted by impact (the absolute change in total time), biggest first.\n"
          "Phases, roles and counters found in one run only are marked 'only in A/B'.\n"
          "  --json       the comparison as JSON (schema scope-compare/1, docs/json.md)\n"
          "  --width N    lay the table out for N columns (default: the terminal's width)\n"
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

int scope_cmd_compare(int argc, char **argv) {
    static const struct option opts[] = {{"json", no_argument, 0, 'j'},
                                         {"width", required_argument, 0, 'w'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int json = 0, width = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":jw:h", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 'w':
            if (parse_width(optarg, &width)) {
                fprintf(stderr,
                        "scope-tui compare: --width wants a number of columns, %d or more\n",
                        MIN_WIDTH);
                return 2;
            }
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
    run_options ro = {0};
    run_model *a = cmd_load_run("compare", argv[optind], &ro);
    run_model *b = a ? cmd_load_run("compare", argv[optind + 1], &ro) : NULL;
    run_cmp *cmp = b ? run_compare(a, b) : NULL;
    int rc = 2;
    if (b && !cmp) {
        fputs("scope-tui compare: out of memory\n", stderr);
    } else if (cmp && json) {
        rc = compare_json_print(stdout, cmp) ? 2 : 0;
    } else if (cmp) {
        text_style st = text_style_for(stdout, width, -1);
        compare_text_print(stdout, cmp, &st);
        rc = 0;
    }
    if (rc == 0 && (fflush(stdout) || ferror(stdout))) {
        fputs("scope-tui compare: could not write the comparison\n", stderr);
        rc = 2;
    }
    run_cmp_free(cmp);
    run_free(b); /* NULL when not loaded */
    run_free(a);
    return rc;
}
