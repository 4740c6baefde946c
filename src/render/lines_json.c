/* `scope-tui lines --json`; see lines_json.h and docs/json.md. */
#include "lines_json.h"

#include "json_out.h"

static void line_fields(json_out *j, cJSON *o, const char *line_key, enum run_line_kind kind,
                        run_str file, uint32_t line, run_str function, run_str linkage,
                        run_str module, uint64_t samples, uint64_t hits, double seconds,
                        double share, double share_sd) {
    /* A measured row's figures are exact: hits where a sampled row has
     * none, and no standard deviation (null). */
    jo_str(j, o, "kind", kind == RUN_LINE_MEASURED ? "measured" : "sampled");
    jo_name_or_null(j, o, "file", file);
    if (line)
        jo_u64(j, o, line_key, line);
    else
        jo_null(j, o, line_key);
    jo_name(j, o, "function", function);
    jo_name_or_null(j, o, "linkage_name", linkage);
    jo_name_or_null(j, o, "module", module);
    jo_u64(j, o, "samples", samples);
    if (kind == RUN_LINE_MEASURED)
        jo_u64(j, o, "hits", hits);
    else
        jo_null(j, o, "hits");
    jo_num(j, o, "seconds", seconds);
    jo_num(j, o, "share", share);
    jo_num(j, o, "share_sd", share_sd);
}

int lines_json_print(FILE *f, const run_model *m, const run_lines_info *info,
                     const run_lines_query *q, const run_lines_result *r, size_t top,
                     double min_time_us) {
    json_out j = {0};
    cJSON *root = jo_document(&j, LINES_JSON_SCHEMA);
    if (!root)
        return -1;
    jo_run_identity(&j, root, m);
    jo_str(&j, root, "attribution", q->attr == RUN_LINES_SELF ? "self" : "project");
    jo_name_or_null(&j, root, "project", info->project);
    if (info->hz)
        jo_u64(&j, root, "hz", info->hz);
    else
        jo_null(&j, root, "hz");
    jo_num(&j, root, "period_ns", r->period_ns);
    jo_u64(&j, root, "samples", r->samples);
    jo_num(&j, root, "seconds", r->seconds);
    jo_u64(&j, root, "outside_project", r->outside_project);
    jo_str(&j, root, "cpu", run_lines_cpu_name(q->cpu));
    cJSON *states = jo_object(&j, root, "samples_by_state");
    jo_u64(&j, states, "on_cpu", r->by_state[RUN_STATE_ON]);
    jo_u64(&j, states, "blocked", r->by_state[RUN_STATE_BLOCKED]);
    jo_u64(&j, states, "queued", r->by_state[RUN_STATE_QUEUED]);
    jo_u64(&j, states, "off_unknown", r->by_state[RUN_STATE_OFF_UNKNOWN]);
    jo_u64(&j, root, "dropped", info->dropped);
    jo_u64(&j, root, "sampled_processes", info->sampled_workers);
    jo_u64(&j, root, "hits", r->hits);
    jo_num(&j, root, "measured_seconds", r->measured_seconds);
    jo_u64(&j, root, "measured_processes", info->measured_workers);
    cJSON *lines = jo_array(&j, root, "lines");
    size_t n = 0;
    for (size_t i = 0; i < r->nrows && (!top || n < top); i++) {
        const run_line *l = &r->rows[i];
        if (l->seconds * 1e6 < min_time_us)
            continue;
        n++;
        cJSON *o = jo_object(&j, lines, NULL);
        line_fields(&j, o, "line", l->kind, l->file, l->line, l->function, l->linkage, l->module,
                    l->samples, l->hits, l->seconds, l->share, l->share_sd);
        jo_bool(&j, o, "approximate", l->approximate);
    }
    cJSON *fns = jo_array(&j, root, "functions");
    for (size_t i = 0; i < r->nfunctions; i++) {
        const run_lines_function *fn = &r->functions[i];
        if (fn->seconds * 1e6 < min_time_us)
            continue;
        cJSON *o = jo_object(&j, fns, NULL);
        line_fields(&j, o, "first_line", fn->kind, fn->file, fn->first_line, fn->function,
                    fn->linkage, fn->module, fn->samples, fn->hits, fn->seconds, fn->share,
                    fn->share_sd);
        if (fn->last_line)
            jo_u64(&j, o, "last_line", fn->last_line);
        else
            jo_null(&j, o, "last_line");
        if (fn->def_line)
            jo_u64(&j, o, "def_line", fn->def_line);
        else
            jo_null(&j, o, "def_line");
    }
    cJSON *cav = jo_array(&j, root, "caveats");
    for (size_t i = 0; i < m->ncaveats; i++)
        if (m->caveats[i].kind == RUN_CAVEAT_LINES)
            jo_str(&j, cav, NULL, m->caveats[i].text);
    return jo_finish(&j, root, f);
}
