/*
 * libscope-lines.so: the in-process line tables (scope/lines_render.h).
 * libscope hands over one snapshot of its process's samples, in the same
 * records it writes to the log; they become a model of one process exactly
 * as a log read from disk would (run_builder.h), so the tables are those of
 * `scope-tui lines`, printed by the same code (lines_text.h).
 */
#include "lines_text.h"
#include "run_builder.h"
#include "run_lines.h"
#include "worker_log.h"

#include <scope/lines_render.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int scope_lines_render_v1(FILE *out, const scope_lines_input *in, enum scope_lines_table table,
                          double min_time_us, int top_n, const char *sort_by);

/* The process as the one worker of a model. */
static run_model *model_of(const scope_lines_input *in, char *msg, size_t msglen) {
    run_model_builder *b = run_builder_new("(this process)", NULL);
    worker_log *log = b ? run_builder_add_workers(b, 1) : NULL;
    if (!log) {
        if (b)
            run_builder_abandon(b);
        snprintf(msg, msglen, "out of memory");
        return NULL;
    }
    static const char run_id[] = "in-process", role[] = "process", host[] = "localhost";
    run_worker *w = &log->w;
    w->path = run_str_dup(&log->mem, "(this process)", 14);
    w->readable = 1;
    w->has_process = 1;
    w->run_id = run_str_dup(&log->mem, run_id, sizeof run_id - 1);
    w->role = run_str_dup(&log->mem, role, sizeof role - 1);
    w->host = run_str_dup(&log->mem, host, sizeof host - 1);
    w->pid = getpid();
    w->end = RUN_END_EXIT; /* still running, and speaking for itself */
    for (size_t i = 0; i < in->nmodules; i++)
        log_lines_add_module(&log->lines, &log->mem, &in->modules[i]);
    for (size_t i = 0; i < in->nstacks; i++)
        log_lines_add_stack(&log->lines, &log->mem, &in->stacks[i]);
    for (size_t i = 0; i < in->nsamples; i++)
        log_lines_add_samples(&log->lines, &in->samples[i]);
    const char *project = in->project_dir ? in->project_dir : "";
    uint64_t taken = in->dropped;
    for (size_t i = 0; i < in->nsamples; i++)
        for (uint32_t k = 0; k < in->samples[i].n; k++)
            taken += in->samples[i].counts[k].count;
    scope_rec_lines rec = {
        .project = {(const uint8_t *)project, strlen(project)},
        .hz = in->period_ns ? (uint32_t)(1000000000ull / in->period_ns) : 0,
        .period_ns = in->period_ns,
        .samples = taken,
        .dropped = in->dropped,
        .flags = SCOPE_LINES_F_ACTIVE,
    };
    log_lines_set(&log->lines, &log->mem, &rec);
    log->nomem |= log->lines.nomem;
    run_model *m = NULL;
    if (run_builder_finish(b, &m, msg, msglen) != RUN_OK)
        return NULL;
    return m;
}

__attribute__((visibility("default"))) int
scope_lines_render_v1(FILE *out, const scope_lines_input *in, enum scope_lines_table table,
                      double min_time_us, int top_n, const char *sort_by) {
    run_lines_query q = {.worker = SIZE_MAX, .attr = RUN_LINES_PROJECT};
    if (!sort_by || !strcmp(sort_by, "time"))
        q.sort = RUN_LINES_BY_TIME;
    else if (!strcmp(sort_by, "hits") || !strcmp(sort_by, "samples"))
        q.sort = RUN_LINES_BY_SAMPLES;
    else if (!strcmp(sort_by, "line"))
        q.sort = RUN_LINES_BY_LINE;
    else {
        fprintf(out, "scope lines: sort_by is \"time\", \"hits\" or \"line\"\n");
        return -1;
    }
    if (!in || (!in->nsamples && !in->nstacks)) {
        fprintf(out, "scope lines: no line samples yet (is sampling on? scope_lines_begin, or "
                     "SCOPE_LINES=1)\n");
        return -1;
    }
    char msg[512];
    run_model *m = model_of(in, msg, sizeof msg);
    if (!m) {
        fprintf(out, "scope lines: %s\n", msg);
        return -1;
    }
    run_lines_info info;
    run_lines_result r = {0};
    int rc = -1;
    if (run_lines_load(m, NULL, &info, msg, sizeof msg) < 0 ||
        run_lines_select(m, &q, &r, msg, sizeof msg) < 0)
        fprintf(out, "scope lines: %s\n", msg);
    else {
        lines_text_opts o = {.min_time_us = min_time_us > 0 ? min_time_us : 0,
                             .top = top_n > 0 ? (size_t)top_n : 0,
                             .what = "this process"};
        lines_text_heading(out, &info, &r, q.attr, &o);
        if (table == SCOPE_LINES_TABLE_TOP)
            lines_text_top(out, m, &r, &o);
        else
            lines_text_stats(out, m, &r, &o);
        if (in->dropped)
            fprintf(out,
                    "\n%llu sample%s dropped (per-thread storage full): the figures "
                    "leave %s out\n",
                    (unsigned long long)in->dropped, in->dropped == 1 ? " was" : "s were",
                    in->dropped == 1 ? "it" : "them");
        lines_text_caveats(out, m);
        rc = 0;
    }
    run_lines_free(&r);
    run_free(m);
    fflush(out);
    return rc;
}
