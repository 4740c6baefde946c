/* The figure columns of a phase table; see phase_columns.h. */
#include "phase_columns.h"

#include "fmt.h"

#include <assert.h>
#include <math.h>
#include <string.h>

void phase_columns_of(layout_column cols[PF_NCOLUMNS]) {
    for (size_t c = 0; c < PF_NCOLUMNS; c++)
        cols[c] = phase_figures[c].column;
}

int phase_cell(const run_phase *p, enum phase_fig c, char *buf, size_t cap) {
    assert(c < PF_NCOLUMNS);
    const phase_figure *pf = &phase_figures[c];
    /* Left open and never completed, with no time recorded (a log before
     * format 1.4): 0 would read as a phase that took none. */
    if ((pf->flags & PF_OPEN_WORD) && p->open_threads && !p->dist.count && !p->open_ns) {
        snprintf(buf, cap, "open");
        return 0;
    }
    pf_value v = phase_fig_get(p, c);
    phase_fig_text(c, v, buf, cap);
    /* An entry still open: at least this, and more since its last frame
     * (or its end, when the log stops with it open). */
    if ((pf->flags & PF_OPEN_PLUS) && p->open_threads && strlen(buf) + 1 < cap)
        strcat(buf, "+");
    return !(pf->flags & PF_NEVER_NA) && isnan(v.d);
}

const char *phase_spread_cell(const run_phase *p, size_t role_procs, char *buf, size_t cap) {
    char a[24], b[24], c[24];
    if (p->open_threads && !p->dist.count && !p->open_ns) { /* as its total says */
        snprintf(buf, cap, "open (%zu/%zu)", p->nprocs, role_procs);
        return buf;
    }
    int n = snprintf(buf, cap, "%s/%s/%s", fmt_duration(a, sizeof a, p->spread_min_ns),
                     fmt_duration(b, sizeof b, p->spread_median_ns),
                     fmt_duration(c, sizeof c, p->spread_max_ns));
    if (p->nprocs < role_procs && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " (%zu/%zu)", p->nprocs, role_procs);
    return buf;
}

int phase_spread_width(const run_phase *root, size_t role_procs) {
    int widest = 0;
    char cell[96];
    for (size_t i = 0; i < root->nchildren; i++) {
        int w = (int)fmt_width(phase_spread_cell(root->children[i], role_procs, cell, sizeof cell));
        int below = phase_spread_width(root->children[i], role_procs);
        if (w > widest)
            widest = w;
        if (below > widest)
            widest = below;
    }
    return widest;
}

int phase_queued_measured(const run_phase *root) {
    for (size_t i = 0; i < root->nchildren; i++)
        if (!isnan(root->children[i]->queued) || phase_queued_measured(root->children[i]))
            return 1;
    return 0;
}

static void largest_count(const run_phase *p, uint64_t *max) {
    for (size_t i = 0; i < p->nchildren; i++) {
        if (p->children[i]->dist.count > *max)
            *max = p->children[i]->dist.count;
        largest_count(p->children[i], max);
    }
}

int phase_count_width(const run_phase *root) {
    uint64_t max = 0;
    char buf[32];
    largest_count(root, &max);
    return root->nchildren ? (int)strlen(fmt_ucount(buf, sizeof buf, max)) : 0;
}
