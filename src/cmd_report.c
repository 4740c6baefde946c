/*
 * `scope-tui report RUN`: the run's figures as text for the terminal, or
 * the whole model as JSON with --json.
 *
 * Exit status: 0 printed; 2 bad arguments or a path that is not a readable
 * run (one line on stderr saying which).
 */
#include "cmd_util.h"
#include "commands.h"
#include "report_json.h"
#include "report_text.h"
#include "run_model.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fputs("usage: scope-tui report [OPTIONS] RUN\n\n"
          "Prints where the time went in a run, role by role.\n\n"
          "  --width N          lay out for N columns (default: the terminal's, else 100)\n"
          "  --color WHEN       auto (default), always or never; NO_COLOR also turns it off\n"
          "  --iteration NAME   the phase whose entries are iterations (default: iteration)\n"
          "  --top N            dominant phases per role (default: 8)\n"
          "  --json             the whole model as JSON (docs/json.md)\n"
          "  -h, --help         this help\n",
          f);
}

int scope_cmd_report(int argc, char **argv) {
    static const struct option opts[] = {
        {"width", required_argument, NULL, 'w'},
        {"color", required_argument, NULL, 'c'},
        {"iteration", required_argument, NULL, 'i'},
        {"top", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int width = 0, color = -1, json = 0, c;
    run_options ro = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'w':
            width = (int)strtol(optarg, &end, 10);
            if (*end || width < 40 || width > 1000) {
                fprintf(stderr, "scope-tui report: --width wants a number from 40 to 1000\n");
                return 2;
            }
            break;
        case 'c':
            if (!strcmp(optarg, "always"))
                color = 1;
            else if (!strcmp(optarg, "never"))
                color = 0;
            else if (!strcmp(optarg, "auto"))
                color = -1;
            else {
                fprintf(stderr, "scope-tui report: --color wants auto, always or never\n");
                return 2;
            }
            break;
        case 'i':
            if (!*optarg) {
                fprintf(stderr, "scope-tui report: --iteration wants a phase name\n");
                return 2;
            }
            ro.iteration_name = optarg;
            break;
        case 't': {
            long n = strtol(optarg, &end, 10);
            if (*end || n < 1 || n > 1000) {
                fprintf(stderr, "scope-tui report: --top wants a number from 1 to 1000\n");
                return 2;
            }
            ro.ndominant = (size_t)n;
            break;
        }
        case 'j':
            json = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            cmd_bad_option("report", c, argv);
            return 2;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "scope-tui report: %s\n",
                argc - optind < 1 ? "which run? (scope-tui report RUN)" : "one run at a time");
        return 2;
    }
    run_model *m = cmd_load_run("report", argv[optind], &ro);
    if (!m)
        return 2;
    int rc = 0;
    if (json) {
        if (report_json_print(stdout, m) < 0) {
            fprintf(stderr, "scope-tui report: the JSON document could not be built (out of "
                            "memory?)\n");
            rc = 2;
        }
    } else {
        text_style st = text_style_for(stdout, width, color);
        report_text_print(stdout, m, &st);
    }
    run_free(m);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("scope-tui report: writing the report");
        return 2;
    }
    return rc;
}
