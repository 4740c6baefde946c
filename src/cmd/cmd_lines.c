/*
 * `scope-tui lines RUN`: the run's hot source lines, in line_profiler's
 * layout (lines_text.h) or as JSON (lines_json.h).
 *
 * Exit status: 0 printed; 2 bad arguments, not a readable run, or a role,
 * phase or function the run does not have; 3 the run has no line samples.
 */
#include "callers_text.h"
#include "cmd_util.h"
#include "commands.h"
#include "lines_json.h"
#include "lines_text.h"
#include "run_lines.h"
#include "run_stacks.h"
#include "stacks_folded.h"
#include "text_escape.h"
#include "text_style.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_NO_LINES 3

static void usage(FILE *f) {
    fputs("usage: scope-tui lines [OPTIONS] RUN\n\n"
          "Prints the run's hot source lines from its line samples (SCOPE_LINES=1, or\n"
          "'scope-tui record'): per function its lines with samples, estimated CPU time and\n"
          "share (+- one standard deviation), then the hottest lines of the run.  A file\n"
          "that line_profiler measured (a scope-profiler HDF5 file) shows its exact hits and\n"
          "times instead, summed over its ranks.\n\n"
          "  --role R            only processes of role R\n"
          "  --rank N            only the process of rank N\n"
          "  --phase PATH        only samples taken in this phase or under it: a path as the\n"
          "                      report prints it (epoch/train) or a name that is unique\n"
          "  --function NAME     only the lines of functions named NAME, as shown\n"
          "                      ('ns::f(int)') or as linked ('_ZN2ns1fEi')\n"
          "  --top N             the N hottest lines, and the functions holding them\n"
          "                      (default 20; 0: all)\n"
          "  --min-time-us X     leave out lines and functions under X microseconds\n"
          "  --sort KEY          time (default), samples, or line (file and line number)\n"
          "  --raw               charge each sample to the line that ran (self), not to the\n"
          "                      innermost line under the project folder\n"
          "  --source-dir DIR    also look for source files under DIR\n"
          "  --json              the rows as JSON (docs/json.md)\n"
          "  --attempt N         the run's Nth attempt, 1 the oldest (default: the newest)\n"
          "  --folded            the sampled call paths instead, as folded stacks (one line\n"
          "                      per path: frames from the outermost joined by ';', a space,\n"
          "                      its samples) for flamegraph.pl or speedscope; each line\n"
          "                      starts with its role unless --role names one\n"
          "  --callers NAME      the callers and callees of the functions named NAME, each\n"
          "                      with its share of the function's samples\n"
          "  --off-cpu           only samples taken while the thread was off a CPU: where it\n"
          "                      waited (a run recorded with SCOPE_LINES_CLOCK=wall)\n"
          "  --on-cpu            only samples taken while the thread ran on a CPU\n"
          "  --blocked           only off-CPU samples of a thread asleep (a blocking call)\n"
          "  --queued            only off-CPU samples of a thread runnable but waiting for a\n"
          "                      CPU\n"
          "  -h, --help          this help\n\n"
          "Exit status: 0 printed, 2 bad arguments, not a readable run, or an unknown role,\n"
          "phase or function, 3 the run has no line samples.\n",
          f);
}

static void put_escaped(FILE *f, const char *s) {
    scope_fput_escaped(f, (const uint8_t *)s, strlen(s), 0);
}

/* Every phase of the subtree named exactly `name`, up to cap, counted in *n. */
static void phases_named(const run_phase *p, const char *name, const run_phase **out, size_t cap,
                         size_t *n) {
    for (size_t i = 0; i < p->nchildren; i++) {
        const run_phase *c = p->children[i];
        if (c->name.len == strlen(name) && !memcmp(c->name.s, name, c->name.len)) {
            if (*n < cap)
                out[*n] = c;
            ++*n;
        }
        phases_named(c, name, out, cap, n);
    }
}

/* The phase --phase names, in the role given or the only role that has
 * it; NULL after saying why on stderr. */
static const run_phase *find_phase(const run_model *m, const char *role, const char *arg) {
    const run_phase *found[16];
    size_t n = 0;
    for (size_t r = 0; r < m->nroles; r++) {
        if (role && (m->roles[r].name.len != strlen(role) ||
                     memcmp(m->roles[r].name.s, role, m->roles[r].name.len)))
            continue;
        const run_phase *p = run_find_phase(&m->roles[r], arg);
        if (p) {
            if (n < 16)
                found[n] = p;
            n++;
        } else if (!strchr(arg, '/'))
            phases_named(m->roles[r].root, arg, found, 16, &n);
    }
    if (n == 1)
        return found[0];
    fputs("scope-tui lines: ", stderr);
    if (!n) {
        fputs("no phase '", stderr);
        put_escaped(stderr, arg);
        fputs("' (a path as 'scope-tui report' prints it, or a unique name)\n", stderr);
        return NULL;
    }
    fputs("phase '", stderr);
    put_escaped(stderr, arg);
    fprintf(stderr, "' is ambiguous (%zu phases): name it by its path%s:", n,
            role ? "" : " and --role");
    for (size_t i = 0; i < n && i < 16; i++) {
        char path[512];
        const run_phase *root = found[i];
        while (root->parent)
            root = root->parent;
        const char *rname = "?";
        for (size_t r = 0; r < m->nroles; r++)
            if (m->roles[r].root == root)
                rname = m->roles[r].name.s;
        fputs(i ? ", " : " ", stderr);
        put_escaped(stderr, run_phase_path(found[i], path, sizeof path));
        fputs(" (role ", stderr);
        put_escaped(stderr, rname);
        fputs(")", stderr);
    }
    fputs("\n", stderr);
    return NULL;
}

static int parse_number(const char *opt, const char *arg, double lo, double hi, double *out) {
    char *end;
    double v = strtod(arg, &end);
    if (*end || !*arg || !(v >= lo && v <= hi)) {
        fprintf(stderr, "scope-tui lines: %s wants a number from %g to %g\n", opt, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* --callers NAME: each function of that name on the sampled stacks (one
 * per file and module), in the flame's order (widest first).  Returns the
 * exit status. */
static int print_callers(run_model *m, const run_lines_query *sel, const char *name) {
    char msg[512];
    run_flame fl;
    if (run_flame_build(m, sel, RUN_FLAME_FUNCTIONS, &fl, msg, sizeof msg) < 0) {
        fprintf(stderr, "scope-tui lines: %s\n", msg);
        return 2;
    }
    int rc = 0;
    size_t shown = 0, len = strlen(name);
    for (size_t k = 0; k < fl.nframes && rc == 0; k++) {
        const run_flame_frame *f = &fl.frames[k];
        if (f->kind != RUN_FRAME_CODE || f->function.len != len || memcmp(f->function.s, name, len))
            continue;
        int seen = 0; /* the same function under another caller: shown already */
        for (size_t j = 0; j < k && !seen; j++)
            seen = fl.frames[j].kind == RUN_FRAME_CODE && run_flame_same(&fl.frames[j], f);
        if (seen)
            continue;
        run_callers c;
        if (run_callers_select(m, sel, f->function, f->file, f->module, &c, msg, sizeof msg) < 0) {
            fprintf(stderr, "scope-tui lines: %s\n", msg);
            rc = 2;
            break;
        }
        if (shown++)
            fputc('\n', stdout);
        callers_text_print(stdout, &c);
        run_callers_free(&c);
    }
    run_flame_free(&fl);
    if (!rc && !shown) {
        fputs("scope-tui lines: no sampled stack holds a function named '", stderr);
        put_escaped(stderr, name);
        fputs("'\n", stderr);
        rc = 2;
    }
    return rc;
}

/* SCOPE_SYMBOLIZE_COUNTS=1: what symbolizing took, one line on stderr, for
 * the tests and bench/bench_symbolize.sh (lines_symbolize.h). */
static void print_counts(run_model *m) {
    const char *v = getenv("SCOPE_SYMBOLIZE_COUNTS");
    lines_sym_count k;
    if (!v || strcmp(v, "1") || run_lines_counts(m, &k) < 0)
        return;
    fprintf(stderr,
            "scope-tui lines: symbolized: %zu modules, %zu module files opened, %zu addresses, "
            "%llu whole symbol tables searched\n",
            k.modules, k.files_opened, k.addresses, (unsigned long long)k.searches);
}

int scope_cmd_lines(int argc, char **argv) {
    static const struct option opts[] = {
        {"role", required_argument, NULL, 'r'},
        {"rank", required_argument, NULL, 'k'},
        {"phase", required_argument, NULL, 'p'},
        {"function", required_argument, NULL, 'f'},
        {"top", required_argument, NULL, 't'},
        {"min-time-us", required_argument, NULL, 'm'},
        {"sort", required_argument, NULL, 's'},
        {"raw", no_argument, NULL, 'R'},
        {"source-dir", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'j'},
        CMD_ATTEMPT_OPTION,
        {"folded", no_argument, NULL, 'F'},
        {"callers", required_argument, NULL, 'C'},
        {"on-cpu", no_argument, NULL, 1000 + RUN_LINES_CPU_ON},
        {"off-cpu", no_argument, NULL, 1000 + RUN_LINES_CPU_OFF},
        {"blocked", no_argument, NULL, 1000 + RUN_LINES_CPU_BLOCKED},
        {"queued", no_argument, NULL, 1000 + RUN_LINES_CPU_QUEUED},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    run_lines_query q = {.worker = SIZE_MAX};
    run_options ro = {0};
    const char *phase = NULL, *source_dir = NULL, *callers = NULL;
    double top = 20, min_us = 0, rank = -1;
    int json = 0, folded = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            q.role = optarg;
            break;
        case 'p':
            phase = optarg;
            break;
        case 'k':
            if (parse_number("--rank", optarg, 0, INT32_MAX, &rank) < 0 || rank != (int32_t)rank) {
                if (rank >= 0)
                    fputs("scope-tui lines: --rank wants a whole number\n", stderr);
                return 2;
            }
            break;
        case 'f':
            q.function = optarg;
            break;
        case 't':
            if (parse_number("--top", optarg, 0, 1e6, &top) < 0)
                return 2;
            break;
        case 'm':
            if (parse_number("--min-time-us", optarg, 0, 1e15, &min_us) < 0)
                return 2;
            break;
        case 's':
            if (!strcmp(optarg, "time"))
                q.sort = RUN_LINES_BY_TIME;
            else if (!strcmp(optarg, "samples") || !strcmp(optarg, "hits"))
                q.sort = RUN_LINES_BY_SAMPLES;
            else if (!strcmp(optarg, "line"))
                q.sort = RUN_LINES_BY_LINE;
            else {
                fprintf(stderr, "scope-tui lines: --sort wants time, samples or line\n");
                return 2;
            }
            break;
        case 'R':
            q.attr = RUN_LINES_SELF;
            break;
        case 'd':
            source_dir = optarg;
            break;
        case 'j':
            json = 1;
            break;
        case 'A':
            if (cmd_parse_attempt("lines", optarg, &ro) < 0)
                return 2;
            break;
        case 'F':
            folded = 1;
            break;
        case 'C':
            callers = optarg;
            break;
        case 1000 + RUN_LINES_CPU_ON:
        case 1000 + RUN_LINES_CPU_OFF:
        case 1000 + RUN_LINES_CPU_BLOCKED:
        case 1000 + RUN_LINES_CPU_QUEUED:
            if (q.cpu != RUN_LINES_CPU_ALL && q.cpu != (enum run_lines_cpu)(c - 1000)) {
                fputs("scope-tui lines: --on-cpu, --off-cpu, --blocked and --queued choose one "
                      "set of samples: give one\n",
                      stderr);
                return 2;
            }
            q.cpu = (enum run_lines_cpu)(c - 1000);
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            cmd_bad_option("lines", c, argv);
            return 2;
        }
    }
    if (!cmd_one_run("lines", argc - optind, "scope-tui lines RUN"))
        return 2;
    if (folded && (json || q.function || callers)) {
        fputs("scope-tui lines: --folded prints every sampled path: not with --json, "
              "--function or --callers\n",
              stderr);
        return 2;
    }
    if (callers && (json || q.function)) {
        fputs("scope-tui lines: --callers is text: not with --json or --function\n", stderr);
        return 2;
    }
    run_model *m = cmd_load_run("lines", argv[optind], &ro);
    if (!m)
        return 2;
    char msg[512];
    run_lines_info info;
    int rc = 0;
    run_lines_result r = {0};
    if (run_lines_load(m, source_dir, &info, msg, sizeof msg) < 0) {
        fprintf(stderr, "scope-tui lines: %s\n", msg);
        rc = 2;
        goto out;
    }
    print_counts(m);
    if (!info.has_lines) {
        fputs("scope-tui lines: ", stderr);
        put_escaped(stderr, argv[optind]);
        fprintf(stderr, " has no line samples: %s\n", run_lines_how_to_record(m));
        cmd_say_attempt(stderr, m);
        rc = EXIT_NO_LINES;
        goto out;
    }
    if (q.role && !run_find_role(m, q.role)) {
        fputs("scope-tui lines: no role '", stderr);
        put_escaped(stderr, q.role);
        fputs("' in this run\n", stderr);
        rc = 2;
        goto out;
    }
    if (rank >= 0) {
        for (size_t w = 0; w < m->nworkers && q.worker == SIZE_MAX; w++)
            if (m->workers[w].role_index != SIZE_MAX && m->workers[w].rank == (int32_t)rank)
                q.worker = w;
        if (q.worker == SIZE_MAX) {
            fprintf(stderr, "scope-tui lines: no process of rank %d in this run\n", (int)rank);
            rc = 2;
            goto out;
        }
    }
    if (phase && !(q.phase = find_phase(m, q.role, phase))) {
        rc = 2;
        goto out;
    }
    if (folded) {
        run_flame fl;
        if (run_flame_build(m, &q, RUN_FLAME_FUNCTIONS, &fl, msg, sizeof msg) < 0) {
            fprintf(stderr, "scope-tui lines: %s\n", msg);
            rc = 2;
            goto out;
        }
        if (!stacks_folded_print(stdout, &fl)) {
            fputs("scope-tui lines: no sampled stacks in this selection\n", stderr);
            rc = EXIT_NO_LINES;
        }
        run_flame_free(&fl);
        goto out;
    }
    if (callers) {
        rc = print_callers(m, &q, callers);
        goto out;
    }
    if (run_lines_select(m, &q, &r, msg, sizeof msg) < 0) {
        fprintf(stderr, "scope-tui lines: %s\n", msg);
        rc = 2;
        goto out;
    }
    if (json) {
        if (lines_json_print(stdout, m, &info, &q, &r, (size_t)top, min_us) < 0) {
            fputs("scope-tui lines: the JSON document could not be built (out of memory?)\n",
                  stderr);
            rc = 2;
        }
    } else {
        char what[600] = "", esc[256];
        size_t used = 0;
        if (q.role) {
            scope_escape((const uint8_t *)q.role, strlen(q.role), esc, sizeof esc, 0);
            used += (size_t)snprintf(what + used, sizeof what - used, "role %s", esc);
        }
        if (rank >= 0)
            used += (size_t)snprintf(what + used, sizeof what - used, "%srank %d", used ? ", " : "",
                                     (int)rank);
        if (phase) {
            scope_escape((const uint8_t *)phase, strlen(phase), esc, sizeof esc, 0);
            used += (size_t)snprintf(what + used, sizeof what - used, "%sphase %s",
                                     used ? ", " : "", esc);
        }
        if (q.function && used < sizeof what) {
            scope_escape((const uint8_t *)q.function, strlen(q.function), esc, sizeof esc, 0);
            used += (size_t)snprintf(what + used, sizeof what - used, "%sfunction %s",
                                     used ? ", " : "", esc);
        }
        if (q.cpu != RUN_LINES_CPU_ALL && used < sizeof what)
            snprintf(what + used, sizeof what - used, "%s%s samples", used ? ", " : "",
                     run_lines_cpu_name(q.cpu));
        lines_text_opts o = {.min_time_us = min_us,
                             .top = (size_t)top,
                             .what = what[0] ? what : NULL,
                             .utf8 = text_style_for(stdout, 0, -1).utf8};
        cmd_say_attempt(stdout, m);
        lines_text_heading(stdout, &info, &r, q.attr, &o);
        lines_text_stats(stdout, m, &r, &o);
        lines_text_top(stdout, m, &r, &o);
        lines_text_caveats(stdout, m);
    }
out:
    run_lines_free(&r);
    run_free(m);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("scope-tui lines: writing the tables");
        return 2;
    }
    return rc;
}
