/*
 * `scope-tui report RUN`: the run's figures as text for the terminal, or
 * the whole model as JSON with --json, or as one self-contained HTML page
 * with --html (-o FILE writes any of them to FILE).
 *
 * Exit status: 0 printed; 2 bad arguments or a path that is not a readable
 * run (one line on stderr saying which); with --strict, 3 when the report
 * was printed but the run is damaged (strict_kinds below).
 */
#include "cmd_export.h"
#include "cmd_util.h"
#include "commands.h"
#include "html_report.h"
#include "report_json.h"
#include "report_hot.h"
#include "report_text.h"
#include "run_model.h"
#include "text_escape.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The caveats that make --strict fail: figures are missing or cut short
 * because data was lost.  Left out: a signal (its figures were flushed),
 * staleness (a killed worker is already "killed"), unbalanced phases (the
 * program's doing, recorded faithfully), what the recorder reports of
 * itself, and earlier attempts, which are not part of the run shown. */
static const enum run_caveat_kind strict_kinds[] = {
    RUN_CAVEAT_UNREADABLE, RUN_CAVEAT_NO_IDENTITY, RUN_CAVEAT_DAMAGED,      RUN_CAVEAT_TRUNCATED,
    RUN_CAVEAT_KILLED,     RUN_CAVEAT_DROPPED,     RUN_CAVEAT_FLUSH_FAILED, RUN_CAVEAT_INCONSISTENT,
};

/* How many caveats of the model are of a strict kind; their kinds' names,
 * each once, into names. */
static size_t strict_caveats(const run_model *m, char *names, size_t cap) {
    size_t n = 0, used = 0;
    names[0] = '\0';
    for (size_t k = 0; k < sizeof strict_kinds / sizeof strict_kinds[0]; k++) {
        size_t of_kind = 0;
        for (size_t i = 0; i < m->ncaveats; i++)
            of_kind += m->caveats[i].kind == strict_kinds[k];
        if (of_kind && used < cap) {
            int w = snprintf(names + used, cap - used, "%s%s", n ? ", " : "",
                             run_caveat_kind_name(strict_kinds[k]));
            used += w > 0 ? (size_t)w : 0;
        }
        n += of_kind;
    }
    return n;
}

/* An --iteration name no role has: say so on stderr, so that stdout stays
 * the report (or a JSON document) a script reads, and name the top-level
 * phases, which is where the iteration phase usually is. */
static void warn_unmatched_iteration(const run_model *m) {
    for (size_t r = 0; r < m->nroles; r++)
        if (m->roles[r].has_iterations)
            return;
    fputs("scope-tui report: no phase is named '", stderr);
    scope_fput_escaped(stderr, (const uint8_t *)m->iteration_name, strlen(m->iteration_name), 0);
    fputs("' (--iteration); top-level phases:", stderr);
    size_t shown = 0;
    for (size_t r = 0; r < m->nroles && shown < 12; r++) {
        const run_phase *root = m->roles[r].root;
        for (size_t c = 0; c < root->nchildren && shown < 12; c++) {
            run_str name = root->children[c]->name;
            int seen = 0;
            for (size_t q = 0; q <= r && !seen; q++)
                for (size_t d = 0; d < m->roles[q].root->nchildren && !seen; d++) {
                    const run_phase *o = m->roles[q].root->children[d];
                    if (o == root->children[c])
                        break;
                    seen = run_str_eq(o->name, name);
                }
            if (seen)
                continue;
            fputs(shown++ ? ", " : " ", stderr);
            scope_fput_escaped(stderr, (const uint8_t *)name.s, name.len, 0);
        }
    }
    fputs(shown ? "\n" : " none\n", stderr);
}

static void usage(FILE *f) {
    fputs("usage: scope-tui report [OPTIONS] RUN\n\n"
          "Prints where the time went in a run, role by role.\n\n"
          "  --width N          lay out for N columns (default: the terminal's, else 100)\n"
          "  --color WHEN       auto (default), always or never; NO_COLOR also turns it off\n"
          "  --iteration NAME   the phase whose entries are iterations (default: iteration)\n"
          "  --top N            dominant phases per role (default: 8)\n"
          "  --json             the whole model as JSON (docs/json.md)\n"
          "  --html             one self-contained HTML page: plots, sortable tables\n"
          "                     (docs/report.md, HTML)\n"
          "  -o, --output FILE  write to FILE instead of standard output\n"
          "  --no-samples       leave out the sampled blocks (I/O, MEMORY, GPU) and skip\n"
          "                     reading the samples: phases only, loads faster\n"
          "  --attempt N        the run's Nth attempt, 1 the oldest (default: the newest);\n"
          "                     a directory recorded into again holds several\n"
          "  --strict           exit 3 when the run is damaged: a log unreadable, damaged,\n"
          "                     cut mid-frame, or never shut down; records lost or dropped\n"
          "  -h, --help         this help\n\n"
          "Exit status: 0 printed, 2 bad arguments or not a readable run, 3 (with --strict)\n"
          "printed but the run is damaged.\n",
          f);
}

int scope_cmd_report(int argc, char **argv) {
    static const struct option opts[] = {
        {"width", required_argument, NULL, 'w'},
        {"color", required_argument, NULL, 'c'},
        {"iteration", required_argument, NULL, 'i'},
        {"top", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'j'},
        {"html", no_argument, NULL, 'H'},
        {"output", required_argument, NULL, 'o'},
        {"strict", no_argument, NULL, 's'},
        {"no-samples", no_argument, NULL, 'n'},
        CMD_ATTEMPT_OPTION,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int width = 0, color = -1, json = 0, html = 0, strict = 0, c;
    const char *output = NULL;
    run_options ro = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
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
        case 'H':
            html = 1;
            break;
        case 'o':
            output = optarg;
            break;
        case 's':
            strict = 1;
            break;
        case 'n':
            ro.no_samples = 1;
            break;
        case 'A':
            if (cmd_parse_attempt("report", optarg, &ro) < 0)
                return 2;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            cmd_bad_option("report", c, argv);
            return 2;
        }
    }
    if (!cmd_one_run("report", argc - optind, "scope-tui report RUN"))
        return 2;
    if (json && html) {
        fputs("scope-tui report: --json and --html are two formats: give one\n", stderr);
        return 2;
    }
    run_model *m = cmd_load_run("report", argv[optind], &ro);
    if (!m)
        return 2;
    cmd_output o;
    FILE *out = cmd_output_open("report", &o, output);
    if (!out) {
        run_free(m);
        return 2;
    }
    if (ro.iteration_name)
        warn_unmatched_iteration(m);
    int rc = 0;
    char msg[512];
    if (html) {
        if (html_report_print(out, m, msg, sizeof msg) < 0) {
            fprintf(stderr, "scope-tui report: %s\n", msg);
            rc = 2;
        }
    } else if (json) {
        if (report_json_print(out, m) < 0) {
            fprintf(stderr, "scope-tui report: the JSON document could not be built (out of "
                            "memory?)\n");
            rc = 2;
        }
    } else {
        text_style st = text_style_for(out, width, color);
        if (!run_opens_on_lines(m))
            report_text_print(out, m, &st);
        else if (report_hot_print(out, m, argv[optind], &st, msg, sizeof msg) < 0) {
            fprintf(stderr, "scope-tui report: %s\n", msg);
            rc = 2;
        }
    }
    char kinds[256];
    size_t ndamaged = strict && rc == 0 ? strict_caveats(m, kinds, sizeof kinds) : 0;
    run_free(m);
    if (cmd_output_close("report", &o, rc == 0) < 0)
        return 2;
    if (ndamaged) {
        fprintf(stderr, "scope-tui report: --strict: the run is damaged (%zu caveat%s: %s)\n",
                ndamaged, ndamaged == 1 ? "" : "s", kinds);
        return 3;
    }
    return rc;
}
