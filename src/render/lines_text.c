/* The hot-line tables as text; see lines_text.h. */
#include "lines_text.h"

#include "fmt.h"
#include "text_escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A function's table shows every line from its first sampled line to its
 * last; a wider span (an inlined header function, a damaged line table)
 * shows only the sampled lines. */
#define MAX_SPAN 200

static int shown(const run_line *l, const lines_text_opts *o) {
    return l->seconds * 1e6 >= o->min_time_us;
}

static void put_name(FILE *f, run_str s) {
    scope_fput_escaped(f, (const uint8_t *)s.s, s.len, 0);
}

static const char *seconds(char *buf, size_t cap, double s) {
    return fmt_duration(buf, cap, s * 1e9);
}

static void pc_and_sd(char *pc, size_t pcap, char *sd, size_t sdcap, double share,
                      double share_sd) {
    snprintf(pc, pcap, "%.1f", 100 * share);
    if (isnan(share_sd))
        snprintf(sd, sdcap, FMT_NA);
    else
        snprintf(sd, sdcap, "%.1f", 100 * share_sd);
}

/* Whether the result holds measured rows, and sampled ones (or nothing). */
static int has_measured(const run_lines_result *r) {
    return r->hits || r->measured_seconds > 0;
}
static int has_sampled(const run_lines_result *r) {
    return r->samples || !has_measured(r);
}

void lines_text_states(FILE *f, const run_lines_result *r) {
    if (!r->wall || !r->samples)
        return;
    uint64_t said = 0;
    for (int k = 0; k < RUN_LINES_STATES; k++)
        said += r->by_state[k];
    if (said < r->samples) {
        char n[32];
        fprintf(f,
                "%s wall-clock sample%s of a recorder before log format 1.10: on or off a CPU "
                "not said\n",
                fmt_ucount(n, sizeof n, r->samples - said), fmt_plural(r->samples - said));
    }
    if (!said)
        return;
    double total = (double)r->samples;
    uint64_t off = said - r->by_state[RUN_STATE_ON];
    fprintf(f,
            "Threads were on a CPU in %.1f%% of these samples, off it in %.1f%%: blocked %.1f%%, "
            "queued for a CPU %.1f%%",
            100.0 * (double)r->by_state[RUN_STATE_ON] / total, 100.0 * (double)off / total,
            100.0 * (double)r->by_state[RUN_STATE_BLOCKED] / total,
            100.0 * (double)r->by_state[RUN_STATE_QUEUED] / total);
    /* States a newer recorder wrote: off a CPU, but not how. */
    if (r->by_state[RUN_STATE_OFF_UNKNOWN])
        fprintf(f, ", off of a kind this reader does not know %.1f%% (a newer recorder's)",
                100.0 * (double)r->by_state[RUN_STATE_OFF_UNKNOWN] / total);
    fputc('\n', f);
}

void lines_text_heading(FILE *f, const run_lines_info *info, const run_lines_result *r,
                        enum run_lines_attr attr, const lines_text_opts *o) {
    char n[32], t[32];
    if (has_measured(r))
        fprintf(f,
                "Measured lines of %s: %s hit%s, %s measured (line_profiler's exact counts and "
                "times, not samples)\n",
                o->what ? o->what : "the run", fmt_ucount(n, sizeof n, r->hits),
                fmt_plural(r->hits), seconds(t, sizeof t, r->measured_seconds));
    if (!has_sampled(r))
        return;
    /* Wall-clock samples stand for time on a CPU or off it. */
    fprintf(f, "Hot lines of %s: %s sample%s, %s of %s", o->what ? o->what : "the run",
            fmt_ucount(n, sizeof n, r->samples), fmt_plural(r->samples),
            seconds(t, sizeof t, r->seconds),
            !r->wall                                      ? "CPU"
            : info->wall_workers == info->sampled_workers ? "wall time"
                                                          : "CPU and wall time");
    if (!isnan(r->period_ns) && r->period_ns > 0)
        fprintf(f, " (one sample per %s)", fmt_duration(t, sizeof t, r->period_ns));
    fputs("\n", f);
    lines_text_states(f, r);
    fprintf(f, "Attribution: %s",
            attr == RUN_LINES_SELF ? "self (the line that ran)"
                                   : "project (the innermost line under the project folder)");
    if (attr == RUN_LINES_PROJECT && info->project.len) {
        fputs("; project ", f);
        put_name(f, info->project);
    }
    fputs("\n", f);
    if (attr == RUN_LINES_PROJECT && r->outside_project)
        fprintf(f,
                "%s sample%s (%.1f%%) had no frame under the project folder: counted at the "
                "line that ran\n",
                fmt_ucount(n, sizeof n, r->outside_project), fmt_plural(r->outside_project),
                r->samples ? 100.0 * (double)r->outside_project / (double)r->samples : 0.0);
}

/* "file:line" of a row, escaped, or the function's module when no line is
 * known. */
static void location(char *buf, size_t cap, const run_line *l) {
    char file[512];
    if (l->file.len && l->line) {
        fmt_name(file, sizeof file, l->file);
        snprintf(buf, cap, "%s:%u", file, l->line);
    } else if (l->module.len) {
        fmt_name(file, sizeof file, l->module);
        snprintf(buf, cap, "(%s)", file);
    } else
        snprintf(buf, cap, "(unknown module)");
}

/* The escaped text of line `line` of file, or NULL with *why set. */
static const char *source_line(run_model *m, run_str file, uint32_t line, const char **why,
                               char *whybuf, size_t whycap) {
    const run_str *lines;
    size_t n = run_lines_source(m, file, &lines, whybuf, whycap);
    *why = whybuf;
    if (!n)
        return NULL;
    if (line == 0 || line > n) {
        snprintf(whybuf, whycap, "the file has %zu lines: it changed since the run", n);
        return NULL;
    }
    return lines[line - 1].s;
}

/* One row of a function's table: a sampled line's samples, time, share
 * and its standard deviation, or a measured line's hits, time, time per
 * hit and share (line_profiler's columns); blank figures when l is NULL. */
static void table_row(FILE *f, const char *label, enum run_line_kind kind, const run_line *l,
                      const char *text) {
    char t[32], n[32], pc[16], sd[16];
    if (!l)
        fprintf(f, "%6s %11s %11s %7s %5s   %s\n", label, "", "", "", "", text);
    else if (kind == RUN_LINE_MEASURED) {
        char per[32];
        fprintf(f, "%6s %11s %11s %9s %7.1f   %s\n", label, fmt_ucount(n, sizeof n, l->hits),
                seconds(t, sizeof t, l->seconds),
                l->hits ? seconds(per, sizeof per, l->seconds / (double)l->hits) : "",
                100 * l->share, text);
    } else {
        pc_and_sd(pc, sizeof pc, sd, sizeof sd, l->share, l->share_sd);
        fprintf(f, "%6s %11s %11s %7s %5s   %s\n", label, fmt_ucount(n, sizeof n, l->samples),
                seconds(t, sizeof t, l->seconds), pc, sd, text);
    }
}

static void function_table(FILE *f, run_model *m, const run_lines_result *r,
                           const run_lines_function *fn, const lines_text_opts *o) {
    char t[32], n[32], pc[16], sd[16], label[16];
    fputs("\n", f);
    pc_and_sd(pc, sizeof pc, sd, sizeof sd, fn->share, fn->share_sd);
    if (fn->kind == RUN_LINE_MEASURED)
        fprintf(f, "Total time: %s (%s hit%s, %s%% of the measured time; measured, exact)\n",
                seconds(t, sizeof t, fn->seconds), fmt_ucount(n, sizeof n, fn->hits),
                fmt_plural(fn->hits), pc);
    else
        fprintf(f, "Total time: %s (%s sample%s, %s%% +- %s)\n", seconds(t, sizeof t, fn->seconds),
                fmt_ucount(n, sizeof n, fn->samples), fmt_plural(fn->samples), pc, sd);
    fputs("File: ", f);
    if (fn->file.len)
        put_name(f, fn->file);
    else {
        fputs("(unknown) in ", f);
        put_name(f, fn->module.len ? fn->module : (run_str){"(unknown module)", 16});
    }
    fputs("\nFunction: ", f);
    put_name(f, fn->function);
    /* Where the function starts, when its profiler said, as line_profiler
     * prints it; else the span of the lines that have figures. */
    if (fn->def_line)
        fprintf(f, " at line %u", fn->def_line);
    else if (fn->first_line)
        fprintf(f, " at lines %u-%u", fn->first_line, fn->last_line);
    fputs("\n\n", f);
    if (fn->kind == RUN_LINE_MEASURED)
        fputs("Line #        Hits        Time   Per Hit  % Time   Line Contents\n", f);
    else
        fputs("Line #     Samples        Time  % Time    +-   Line Contents\n", f);
    fputs("=============================================================\n", f);
    /* A hostile log may give a function any number of rows: not on the stack. */
    const run_line **rows = malloc((fn->nrows ? fn->nrows : 1) * sizeof *rows);
    if (!rows) {
        fputs("(out of memory)\n", f);
        return;
    }
    size_t nrows = 0;
    for (size_t k = 0; k < fn->nrows; k++) {
        const run_line *l = &r->rows[r->function_rows[fn->first_row + k]];
        if (shown(l, o))
            rows[nrows++] = l;
    }
    /* From the function's first line when it is known (its def line, with
     * no figures, as line_profiler lists it), else its first with figures. */
    uint32_t start = fn->def_line && fn->def_line <= fn->first_line ? fn->def_line : fn->first_line;
    int span = fn->first_line && fn->last_line - start < MAX_SPAN;
    const char *missing = NULL;
    char whybuf[200];
    uint32_t from = span ? start : 0, to = span ? fn->last_line : 0;
    size_t next = 0;
    /* Rows without a line first (function-level), then the span. */
    while (next < nrows && !rows[next]->line) {
        table_row(f, "-", fn->kind, rows[next++], "(no line information)");
    }
    for (uint32_t line = from; span && line <= to; line++) {
        const run_line *l = next < nrows && rows[next]->line == line ? rows[next++] : NULL;
        const char *why;
        const char *text =
            fn->file.len ? source_line(m, fn->file, line, &why, whybuf, sizeof whybuf) : NULL;
        if (!text && !missing && fn->file.len)
            missing = why;
        snprintf(label, sizeof label, "%u", line);
        table_row(f, label, fn->kind, l, text ? text : "");
    }
    for (; next < nrows; next++) { /* no span: the sampled lines only */
        const run_line *l = rows[next];
        const char *why;
        const char *text =
            fn->file.len ? source_line(m, fn->file, l->line, &why, whybuf, sizeof whybuf) : NULL;
        if (!text && !missing && fn->file.len)
            missing = why;
        snprintf(label, sizeof label, "%u", l->line);
        table_row(f, label, fn->kind, l, text ? text : "");
    }
    free(rows);
    if (missing)
        fprintf(f, "(no source text: %s)\n", missing);
    else if (!fn->first_line && !fn->module.len)
        fputs("(these addresses lie in no module the process recorded)\n", f);
    else if (!fn->first_line)
        fputs("(no line information for this module: see the caveats)\n", f);
}

/* Whether the function holds one of the hottest `top` shown lines. */
static int among_top(const run_lines_result *r, const run_lines_function *fn, size_t top,
                     const lines_text_opts *o) {
    size_t rank = 0;
    for (size_t i = 0; i < r->nrows && rank < top; i++) {
        const run_line *l = &r->rows[i];
        if (!shown(l, o))
            continue;
        rank++;
        if (run_str_eq(l->function, fn->function) && run_str_eq(l->file, fn->file) &&
            run_str_eq(l->module, fn->module))
            return 1;
    }
    return 0;
}

void lines_text_stats(FILE *f, run_model *m, const run_lines_result *r, const lines_text_opts *o) {
    if (!r->nrows) {
        fputs("\n(no samples in this selection)\n", f);
        return;
    }
    size_t printed = 0;
    for (size_t i = 0; i < r->nfunctions; i++) {
        const run_lines_function *fn = &r->functions[i];
        if (fn->seconds * 1e6 < o->min_time_us)
            continue;
        if (o->top && !among_top(r, fn, o->top, o))
            continue;
        function_table(f, m, r, fn, o);
        printed++;
    }
    if (!printed)
        fputs("\n(no function reaches the --min-time-us threshold)\n", f);
}

/* The top table's function column: as wide as its widest name, from
 * FUNCTION_MIN to FUNCTION_MAX columns; a wider name is shortened
 * (fmt_function), so the locations stay in one column. */
#define FUNCTION_MIN 24
#define FUNCTION_MAX 40

static size_t function_cols(const run_lines_result *r, const lines_text_opts *o, size_t want) {
    char name[600];
    size_t cols = FUNCTION_MIN, rank = 0;
    for (size_t i = 0; i < r->nrows && rank < want && cols < FUNCTION_MAX; i++) {
        if (!shown(&r->rows[i], o))
            continue;
        rank++;
        size_t w = fmt_width(fmt_name(name, sizeof name, r->rows[i].function));
        if (w > cols)
            cols = w < FUNCTION_MAX ? w : FUNCTION_MAX;
    }
    return cols;
}

void lines_text_top(FILE *f, run_model *m, const run_lines_result *r, const lines_text_opts *o) {
    char t[32], n[32], pc[16], sd[16], loc[700], fnname[600];
    size_t want = o->top ? o->top : r->nrows;
    size_t fn_cols = function_cols(r, o, want);
    fprintf(f, "\nTop lines\n\n");
    /* Measured rows show their hits where sampled rows show samples, and
     * "exact" where those show their standard deviation. */
    fprintf(f, "%4s %9s %11s %7s %5s  %-*s %s\n", "#",
            !has_measured(r) ? "Samples"
            : has_sampled(r) ? "Smp|Hits"
                             : "Hits",
            "Time", "% Time", "+-", (int)fn_cols, "Function", "Location");
    size_t rank = 0;
    for (size_t i = 0; i < r->nrows && rank < want; i++) {
        const run_line *l = &r->rows[i];
        if (!shown(l, o))
            continue;
        rank++;
        pc_and_sd(pc, sizeof pc, sd, sizeof sd, l->share, l->share_sd);
        if (l->kind == RUN_LINE_MEASURED)
            snprintf(sd, sizeof sd, "exact");
        location(loc, sizeof loc, l);
        fmt_function(fnname, sizeof fnname, l->function, fn_cols, 0, o->utf8);
        fprintf(f, "%4zu %9s %11s %7s %5s  ", rank,
                fmt_ucount(n, sizeof n, l->kind == RUN_LINE_MEASURED ? l->hits : l->samples),
                seconds(t, sizeof t, l->seconds), pc, sd);
        fmt_put_left(f, fnname, fn_cols); /* pads by columns, not bytes */
        fprintf(f, " %s\n", loc);
        if (l->line && l->file.len) {
            const char *why;
            char whybuf[200];
            const char *text = source_line(m, l->file, l->line, &why, whybuf, sizeof whybuf);
            if (text) {
                while (*text == ' ')
                    text++;
                fprintf(f, "%44s%s\n", "", text);
            } else
                fprintf(f, "%44s(no source text: %s)\n", "", why);
        }
    }
    if (!rank)
        fputs(r->nrows ? "(no line reaches the --min-time-us threshold)\n"
                       : "(no samples in this selection)\n",
              f);
}

void lines_text_caveats(FILE *f, const run_model *m) {
    size_t n = 0;
    for (size_t i = 0; i < m->ncaveats; i++) {
        if (m->caveats[i].kind != RUN_CAVEAT_LINES)
            continue;
        if (!n++)
            fputs("\nCaveats:\n", f);
        fprintf(f, "  - %s\n", m->caveats[i].text);
    }
}
