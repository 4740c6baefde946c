/*
 * `scope-tui check BASE... CANDIDATE`: a regression gate for CI.  Prints
 * every watched phase with its change, the interval of that change at the
 * stated confidence, the one-sided bound its verdict tests, and its verdict (the rules are in
 * run_check.h and run_noise.h).  Several base runs (arguments, or a directory of runs) teach it the
 * run-to-run noise.
 *
 * Exit status: 0 nothing regressed past the threshold; 1 something did (or a
 * phase named with --phase disappeared); 2 bad usage, an unloadable run, or
 * a --role or --phase found in neither run.  --json prints the verdicts as
 * JSON instead (docs/json.md), with the same exit status.
 */
#include "cmd_runs.h"
#include "cmd_util.h"
#include "commands.h"
#include "compare_json.h"
#include "fmt.h"
#include "run_check.h"
#include "run_compare.h"
#include "run_noise.h"
#include "text_escape.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_REGRESSION (RUN_CHECK_DEFAULT_THRESHOLD * 100) /* percent */
#define DEFAULT_CONFIDENCE     95.0                                /* percent */
#define DEFAULT_MIN_SHARE      RUN_CHECK_DEFAULT_MIN_SHARE
#define CELL                   64
#define NAME_CAP               1024 /* role names, whole */

static void check_usage(FILE *f) {
    /* The metrics from the table of phase figures, the default first. */
    char metrics[CELL * 2];
    run_check_metric first = run_check_metric_default();
    const char *name = run_check_metric_name(first);
    run_check_metric_list(metrics, sizeof metrics);
    fputs("usage: scope-tui check [OPTIONS] BASE... CANDIDATE\n"
          "Fail (exit 1) when a watched phase of CANDIDATE regressed against BASE: it\n"
          "grew past the threshold, and beyond the noise at the stated confidence.\n"
          "  --threshold PCT       the largest growth allowed, in percent (default 10;\n"
          "                        --max-regression is the same)\n"
          "  --confidence PCT      of the bound a change must pass the threshold by\n"
          "                        (one-sided: \"at least\"; the interval shown is\n"
          "                        two-sided at the same confidence; default 95; 50 to 99.9)\n",
          f);
    fprintf(f,
            "  --metric M            %s (%s, the default: fair to runs of\n"
            "                        different lengths)%s\n",
            name, phase_figures[first].check, metrics + strlen(name));
    fputs("  --phase NAME          watch this phase: a path (iteration/train) or a bare\n"
          "                        name (every phase of that name); repeatable.  Default:\n"
          "                        every phase with 1% or more of its role's time in BASE\n"
          "  --role NAME           only this role's phases\n"
          "  --json                the verdicts as JSON (schema scope-check/1,\n"
          "                        docs/json.md); the exit status is the same\n"
          "  --base-attempt N, --attempt N  that attempt of each BASE, of CANDIDATE (1 the\n"
          "                        oldest; default the newest)\n"
          "Several BASE runs (arguments, or a directory holding runs) measure the\n"
          "run-to-run noise; the base figure is then their mean.\n"
          "A phase named with --phase that is missing from CANDIDATE fails the check;\n"
          "one watched by default is only noted.\n"
          "Exit status: 0 no regression, 1 regression, 2 bad usage, an unloadable run,\n"
          "or a --role or --phase in neither run.\n",
          f);
}

static int parse_percent(const char *s, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end != s && *end == '%')
        end++;
    if (end == s || *end != '\0' || !isfinite(v) || v < 0)
        return -1;
    *out = v / 100.0;
    return 0;
}

static const char *role_label(char *buf, size_t cap, const run_check_row *row) {
    return fmt_name(buf, cap, row->role->name);
}

/* The interval of the change, "+2.1%..+19.8%"; "-" when the noise is unknown. */
static const char *interval_text(char *buf, size_t cap, const run_cmp_fig *f) {
    char lo[CELL], hi[CELL];
    if (isnan(f->lo) || isnan(f->hi))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%s..%s", fmt_change(lo, sizeof lo, f->lo),
                 fmt_change(hi, sizeof hi, f->hi));
    return buf;
}

/* The one-sided bound the verdict tests, "+6.3%"; "-" when the noise is unknown. */
static const char *at_least_text(char *buf, size_t cap, const run_cmp_fig *f) {
    if (isnan(f->at_least))
        snprintf(buf, cap, "-");
    else
        fmt_change(buf, cap, f->at_least);
    return buf;
}

/* The metric's figures printed by its unit (phase_figures.h). */
static void cells(const run_check_row *row, run_check_metric m, char *base, char *cand,
                  char *change) {
    const run_cmp_fig *f = row->fig;
    snprintf(base, CELL, "-");
    snprintf(cand, CELL, "-");
    if (row->phase->side != RUN_CMP_ONLY_B)
        phase_fig_text(m, (pf_value){0, f->a}, base, CELL);
    if (row->phase->side != RUN_CMP_ONLY_A)
        phase_fig_text(m, (pf_value){0, f->b}, cand, CELL);
    if (row->verdict == RUN_CHECK_GONE)
        snprintf(change, CELL, "gone");
    else if (row->verdict == RUN_CHECK_NEW)
        snprintf(change, CELL, "new");
    else
        fmt_change(change, CELL, f->change);
}

static void print_table(FILE *f, const run_cmp *c, const run_check *k, run_check_metric m) {
    size_t wrole = 4, wpath = 5, wint = 8;
    char buf[NAME_CAP], ci[2 * CELL];
    for (size_t i = 0; i < k->nrows; i++) {
        size_t w = fmt_width(role_label(buf, sizeof buf, &k->rows[i]));
        wrole = w > wrole ? w : wrole;
        w = fmt_width(k->rows[i].phase->path);
        wpath = w > wpath ? w : wpath;
        w = fmt_width(interval_text(ci, sizeof ci, k->rows[i].fig));
        wint = w > wint ? w : wint;
    }
    char head[CELL];
    snprintf(head, sizeof head, "%g%% interval", c->confidence * 100);
    wint = fmt_width(head) > wint ? fmt_width(head) : wint;
    fmt_put_left(f, "role", wrole + 2);
    fmt_put_left(f, "phase", wpath);
    fputs("         base    candidate     change  ", f);
    fmt_put_left(f, head, wint + 2);
    fputs("at least  verdict\n", f);
    for (size_t i = 0; i < k->nrows; i++) {
        const run_check_row *row = &k->rows[i];
        char base[CELL], cand[CELL], change[CELL], least[CELL];
        cells(row, m, base, cand, change);
        fmt_put_left(f, role_label(buf, sizeof buf, row), wrole + 2);
        fmt_put_left(f, row->phase->path, wpath);
        fmt_put_right(f, base, 13);
        fmt_put_right(f, cand, 13);
        fmt_put_right(f, change, 11);
        fputs("  ", f);
        fmt_put_left(f, interval_text(ci, sizeof ci, row->fig), wint + 2);
        fmt_put_right(f, at_least_text(least, sizeof least, row->fig), 8);
        fprintf(f, "  %s\n", run_check_verdict_name(row->verdict));
    }
}

/* The lines under the table: each failure, then each note, in words. */
static void print_findings(FILE *f, const run_cmp *c, const run_check *k, const run_check_opts *o) {
    char role[NAME_CAP], base[CELL], cand[CELL], change[CELL], limit[CELL], ci[2 * CELL];
    char least[CELL];
    fmt_change(limit, sizeof limit, o->max_regression);
    const char *metric = run_check_metric_name(o->metric);
    for (int failures = 1; failures >= 0; failures--)
        for (size_t i = 0; i < k->nrows; i++) {
            const run_check_row *row = &k->rows[i];
            if ((row->failed != 0) != failures || row->verdict == RUN_CHECK_OK)
                continue;
            cells(row, o->metric, base, cand, change);
            role_label(role, sizeof role, row);
            const char *path = row->phase->path;
            switch (row->verdict) {
            case RUN_CHECK_REGRESSED:
                fprintf(f, "REGRESSED: %s (role %s): %s %s -> %s (%s, limit %s", path, role, metric,
                        base, cand, change, limit);
                if (isnan(row->fig->lo))
                    fputs("; no estimate of the noise: judged by the threshold alone)\n", f);
                else
                    fprintf(f, "; at least %s at %g%% one-sided, %g%% interval %s)\n",
                            at_least_text(least, sizeof least, row->fig),
                            row->fig->at_least_confidence * 100, c->confidence * 100,
                            interval_text(ci, sizeof ci, row->fig));
                break;
            case RUN_CHECK_NOISE:
                fprintf(f,
                        "note: %s (role %s): %s %s is past the limit %s but within the noise "
                        "(at least %s at %g%% one-sided, %g%% interval %s): not called\n",
                        path, role, metric, change, limit,
                        at_least_text(least, sizeof least, row->fig),
                        row->fig->at_least_confidence * 100, c->confidence * 100,
                        interval_text(ci, sizeof ci, row->fig));
                break;
            case RUN_CHECK_GONE:
                if (row->failed)
                    fprintf(f, "GONE: %s (role %s) disappeared from the candidate\n", path, role);
                else
                    fprintf(f,
                            "note: %s (role %s) is not in the candidate (name it with --phase "
                            "to require it)\n",
                            path, role);
                break;
            case RUN_CHECK_NEW:
                fprintf(f, "note: %s (role %s) is only in the candidate: nothing to compare\n",
                        path, role);
                break;
            case RUN_CHECK_UNMEASURED:
                fprintf(f, "note: %s (role %s): %s not measured in %s, not judged\n", path, role,
                        metric,
                        isnan(row->fig->a) && isnan(row->fig->b) ? "either run"
                        : isnan(row->fig->a)                     ? "the base"
                                                                 : "the candidate");
                break;
            case RUN_CHECK_OK:
                break;
            }
        }
}

static void print_run(FILE *f, const char *tag, const run_model *m) {
    fputs(tag, f);
    scope_fput_escaped(f, (const uint8_t *)m->dir, strlen(m->dir), 0);
    if (m->nattempts) {
        fputs("  (run ", f);
        const run_str *id = &m->attempts[m->shown_attempt].run_id;
        scope_fput_escaped(f, (const uint8_t *)id->s, id->len, 0);
        fputc(')', f);
    }
    /* A gate that passes on a run with lost workers should say so: the
     * figures it judged may be short. */
    if (m->ncaveats)
        fprintf(f, "  %zu caveat%s: see 'scope-tui report'", m->ncaveats,
                m->ncaveats == 1 ? "" : "s");
    fputc('\n', f);
}

/* Where the intervals' noise came from, in one line. */
static void print_noise(FILE *f, const run_cmp *c, const run_check *k, const run_check_opts *o) {
    if (c->nbase > 1) {
        fprintf(f,
                "noise: the base figures are the mean of %zu runs; their spread is the "
                "run-to-run noise of both sides, where larger than the noise within a run; "
                "the bound is one-sided %g%%\n",
                c->nbase, c->confidence * 100);
        return;
    }
    int unknown = 0;
    for (size_t i = 0; i < k->nrows; i++)
        unknown |= k->rows[i].phase->side == RUN_CMP_BOTH && isnan(k->rows[i].fig->lo);
    fprintf(f,
            "noise: within each run (the spread between its processes, or its entries); "
            "one run does not measure the run-to-run noise, so the bound is the %g%% "
            "interval's lower end (one-sided %g%%); several BASE runs measure it\n",
            c->confidence * 100, (1 + c->confidence) / 2 * 100);
    if (unknown)
        fputs("(- : no estimate of the noise, judged by the threshold alone)\n", f);
    (void)o;
}

static int report(FILE *f, const cmd_runs *bases, const run_cmp *c, const run_check *k,
                  const run_check_opts *o) {
    char limit[CELL];
    print_run(f, "base       ", c->a);
    for (size_t i = 1; i < bases->n; i++)
        print_run(f, "           ", bases->v[i]);
    print_run(f, "candidate  ", c->b);
    fprintf(f,
            "metric: %s %s; a regression is growth past %s whose lower bound (at least) is "
            "past it too\n",
            run_check_metric_name(o->metric), phase_figures[o->metric].check,
            fmt_change(limit, sizeof limit, o->max_regression));
    print_noise(f, c, k, o);
    fputc('\n', f);
    if (k->nrows == 0) {
        fputs("No phase has 1% or more of its role's time in the base run: nothing to check.\n", f);
        return 0;
    }
    print_table(f, c, k, o->metric);
    fputc('\n', f);
    print_findings(f, c, k, o);
    fprintf(f, "%zu of %zu watched phase%s failed.\n", k->nfailed, k->nrows,
            k->nrows == 1 ? "" : "s");
    return k->nfailed ? 1 : 0;
}

/* Loads the runs and judges them: the exit status. */
static int check_runs(char *const *base, size_t nbase, const char *candidate,
                      const run_check_opts *o, double confidence, int json,
                      const run_options *ro_base, const run_options *ro_cand) {
    cmd_runs bases;
    if (cmd_load_runs("check", base, nbase, RUN_CMP_MAX_BASE, ro_base, &bases) != 0)
        return 2;
    run_model *b = cmd_load_run("check", candidate, ro_cand);
    run_cmp_opts co = {.confidence = confidence,
                       .more_a = (const run_model *const *)bases.v + 1,
                       .nmore_a = bases.n - 1};
    run_cmp *cmp = b ? run_compare_with(bases.v[0], b, &co) : NULL;
    run_check *k = NULL;
    char msg[1024];
    int rc = 2;
    if (b && !cmp) {
        fputs("scope-tui check: out of memory\n", stderr);
    } else if (cmp) {
        enum run_check_status st = run_check_judge(cmp, o, &k, msg, sizeof msg);
        if (st == RUN_CHECK_NOMEM)
            fputs("scope-tui check: out of memory\n", stderr);
        else if (st != RUN_CHECK_DONE)
            fprintf(stderr, "scope-tui check: %s\n", msg);
        else if (!json)
            rc = report(stdout, &bases, cmp, k, o);
        else if (check_json_print(stdout, cmp, k, o) != 0)
            fputs("scope-tui check: could not write the JSON (out of memory or output "
                  "error)\n",
                  stderr);
        else
            rc = k->nfailed ? 1 : 0;
    }
    run_check_free(k);
    run_cmp_free(cmp);
    run_free(b); /* NULL when not loaded */
    cmd_runs_free(&bases);
    return rc;
}

int scope_cmd_check(int argc, char **argv) {
    static const struct option opts[] = {{"max-regression", required_argument, 0, 'x'},
                                         {"threshold", required_argument, 0, 'x'},
                                         {"confidence", required_argument, 0, 'c'},
                                         {"metric", required_argument, 0, 'm'},
                                         {"phase", required_argument, 0, 'p'},
                                         {"role", required_argument, 0, 'r'},
                                         {"json", no_argument, 0, 'j'},
                                         {"base-attempt", required_argument, 0, 'B'},
                                         CMD_ATTEMPT_OPTION,
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    run_options ro_base = {0}, ro_cand = {0};
    run_check_opts o = {.max_regression = DEFAULT_MAX_REGRESSION / 100.0,
                        .metric = run_check_metric_default(),
                        .min_share = DEFAULT_MIN_SHARE};
    /* At most one --phase per argument, so argc bounds them. */
    const char **phases = calloc((size_t)argc, sizeof *phases);
    if (!phases) {
        fputs("scope-tui check: out of memory\n", stderr);
        return 2;
    }
    o.phases = phases;
    int c, rc = -1, json = 0;
    double confidence = DEFAULT_CONFIDENCE / 100.0;
    optind = 1;
    opterr = 0;
    while (rc < 0 && (c = getopt_long(argc, argv, ":x:c:m:p:r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'x':
            if (parse_percent(optarg, &o.max_regression)) {
                fputs("scope-tui check: --threshold wants a percentage such as 10\n", stderr);
                rc = 2;
            }
            break;
        case 'c':
            if (parse_percent(optarg, &confidence) || confidence < 0.5 || confidence > 0.999) {
                fputs("scope-tui check: --confidence wants a percentage from 50 to 99.9, such "
                      "as 95\n",
                      stderr);
                rc = 2;
            }
            break;
        case 'm':
            if (run_check_metric_parse(optarg, &o.metric)) {
                char names[CELL * 2];
                fprintf(stderr, "scope-tui check: --metric wants %s\n",
                        run_check_metric_list(names, sizeof names));
                rc = 2;
            }
            break;
        case 'p':
            phases[o.nphases++] = optarg;
            break;
        case 'r':
            o.role = optarg;
            break;
        case 'j':
            json = 1;
            break;
        case 'B':
        case 'A':
            if (cmd_parse_attempt("check", optarg, c == 'B' ? &ro_base : &ro_cand) < 0)
                rc = 2;
            break;
        case 'h':
            check_usage(stdout);
            rc = 0;
            break;
        default:
            cmd_bad_option("check", c, argv);
            rc = 2;
        }
    }
    if (rc < 0 && argc - optind < 2) {
        fputs("scope-tui check: two runs wanted, BASE and CANDIDATE (see --help)\n", stderr);
        rc = 2;
    }
    if (rc < 0)
        rc = check_runs(argv + optind, (size_t)(argc - optind - 1), argv[argc - 1], &o, confidence,
                        json, &ro_base, &ro_cand);
    free(phases);
    return rc;
}
