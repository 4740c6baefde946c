/*
 * The reader API's table of hot lines: `scope-tui lines --json`'s rows, the
 * same query (every role, each sample billed to its innermost frame in the
 * project folder, hottest first: `lines`'s defaults) through the
 * same model (run_lines.h).  Symbolizing happens on the first call, as
 * `lines` does it; a run without line samples answers SCOPE_READER_NO_LINES.
 */
#include "reader_run.h"

int reader_lines(scope_run *run, scope_table *t, char *msg, size_t msglen) {
    run_model *m = run->m;
    char why[512];
    if (!run->lines_loaded) {
        if (run_lines_load(m, NULL, &run->lines_info, why, sizeof why) < 0)
            return reader_fail(SCOPE_READER_NO_MEMORY, msg, msglen, "%s", why);
        run->lines_loaded = 1;
    }
    if (!run->lines_info.has_lines)
        return reader_fail(SCOPE_READER_NO_LINES, msg, msglen, "%s has no line samples: %s", m->dir,
                           run_lines_how_to_record(m));
    run_lines_query q = {.worker = SIZE_MAX};
    run_lines_result r = {0};
    if (run_lines_select(m, &q, &r, why, sizeof why) < 0)
        return reader_fail(SCOPE_READER_NO_MEMORY, msg, msglen, "%s", why);
    size_t kind = rt_column(t, "kind", "", SCOPE_COL_STR),
           file = rt_column(t, "file", "", SCOPE_COL_STR),
           line = rt_column(t, "line", "", SCOPE_COL_U64),
           function = rt_column(t, "function", "", SCOPE_COL_STR),
           linkage = rt_column(t, "linkage_name", "", SCOPE_COL_STR),
           module = rt_column(t, "module", "", SCOPE_COL_STR),
           samples = rt_column(t, "samples", "count", SCOPE_COL_U64),
           hits = rt_column(t, "hits", "count", SCOPE_COL_U64),
           seconds = rt_column(t, "seconds", "s", SCOPE_COL_F64),
           share = rt_column(t, "share", "fraction", SCOPE_COL_F64),
           share_sd = rt_column(t, "share_sd", "fraction", SCOPE_COL_F64),
           approximate = rt_column(t, "approximate", "", SCOPE_COL_BOOL);
    for (size_t i = 0; i < r.nrows; i++) {
        const run_line *l = &r.rows[i];
        rt_row(t);
        rt_str(t, kind, l->kind == RUN_LINE_MEASURED ? "measured" : "sampled");
        rt_name(t, file, l->file);
        if (l->line)
            rt_u64(t, line, l->line);
        else
            rt_missing(t, line);
        rt_name(t, function, l->function);
        rt_name(t, linkage, l->linkage);
        rt_name(t, module, l->module);
        rt_u64(t, samples, l->samples);
        if (l->kind == RUN_LINE_MEASURED) /* a sampled row has no hits: missing, not 0 */
            rt_u64(t, hits, l->hits);
        else
            rt_missing(t, hits);
        rt_f64(t, seconds, l->seconds);
        rt_f64(t, share, l->share);
        rt_f64(t, share_sd, l->share_sd);
        rt_bool(t, approximate, l->approximate);
    }
    run_lines_free(&r);
    return SCOPE_READER_OK;
}
