/* A run without phases, reported by its hot lines; see report_hot.h. */
#include "report_hot.h"

#include "fmt.h"
#include "lines_text.h"
#include "report_text.h"
#include "run_lines.h"
#include "text_escape.h"

#include <string.h>

static void put_role(FILE *f, run_model *m, const run_role *r, const run_lines_result *res,
                     const text_style *st) {
    char up[256], n[32], cpu[32], text[400];
    fputc('\n', f);
    fmt_title(up, sizeof up, r->name);
    text_heading(f, st, up);
    snprintf(text, sizeof text, "  (%zu process%s, %s line sample%s, about %s of CPU)\n", r->nprocs,
             r->nprocs == 1 ? "" : "es", fmt_ucount(n, sizeof n, res->samples),
             res->samples == 1 ? "" : "s", fmt_duration(cpu, sizeof cpu, res->seconds * 1e9));
    fputs(text, f);
    text_rule(f, st);
    if (!res->samples) {
        text_dim(f, st, "  no line samples (it used too little CPU to be sampled)\n");
        return;
    }
    lines_text_opts o = {.top = REPORT_HOT_LINES};
    lines_text_top(f, m, res, &o);
}

int report_hot_print(FILE *f, run_model *m, const char *run, const text_style *st, char *msg,
                     size_t msglen) {
    if (run_lines_load(m, NULL, NULL, msg, msglen) < 0)
        return -1;
    report_text_header(f, m, st);
    fputc('\n', f);
    text_dim(f, st,
             "No phases were recorded: each role's hottest lines instead, roles by line\n"
             "samples, most first.\n");
    for (size_t i = 0; i < m->nroles; i++) {
        const run_role *r = &m->roles[i];
        run_lines_query q = {.role = r->name.s, .worker = SIZE_MAX};
        run_lines_result res = {0};
        if (run_lines_select(m, &q, &res, msg, msglen) < 0)
            res = (run_lines_result){0}; /* a role with no samples at all */
        put_role(f, m, r, &res, st);
        run_lines_free(&res);
    }
    report_text_caveats(f, m, st);
    fputs("\nEvery line, by function: scope-tui lines ", f);
    scope_fput_escaped(f, (const uint8_t *)run, strlen(run), 0);
    fputs("   (the browser opens on them: scope-tui ", f);
    scope_fput_escaped(f, (const uint8_t *)run, strlen(run), 0);
    fputs(")\n", f);
    return 0;
}
