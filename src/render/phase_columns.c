/* The figure columns of a phase table; see phase_columns.h. */
#include "phase_columns.h"

#include "fmt.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* Self is the column a profile's reader looks at first, so it is the last
 * to go.  The median goes first: the mean (total over count) and the p99
 * bound it from both sides, and the detail pane and the JSON keep it.  Then
 * the tail, then the count, then wait, which only phases that block give a
 * meaning to. */
const layout_column phase_columns[PHASE_NCOLUMNS] = {
    [PHASE_COL_SHARE] = {"share", 7, 0, 1, 0},  [PHASE_COL_TOTAL] = {"total", 8, 0, 1, 0},
    [PHASE_COL_SELF] = {"self", 8, 6, 1, 0},    [PHASE_COL_WAIT] = {"wait", 5, 5, 1, 0},
    [PHASE_COL_P50] = {"p50", 8, 2, 1, 0},      [PHASE_COL_P99] = {"p99", 8, 3, 1, 0},
    [PHASE_COL_COUNT] = {"count", 10, 4, 1, 0}, [PHASE_COL_MEAN] = {"mean", 8, 2, 1, 1},
    [PHASE_COL_P95] = {"p95", 8, 2, 1, 1},
};

int phase_cell(const run_phase *p, enum phase_column c, char *buf, size_t cap) {
    /* Left open and never completed, with no time recorded (a log before
     * format 1.4): 0 would read as a phase that took none. */
    if (p->open_threads && !p->dist.count && !p->open_ns &&
        (c == PHASE_COL_SHARE || c == PHASE_COL_TOTAL || c == PHASE_COL_SELF)) {
        snprintf(buf, cap, "open");
        return 0;
    }
    switch (c) {
    case PHASE_COL_SHARE:
        fmt_percent(buf, cap, p->share, 1);
        return 0;
    case PHASE_COL_TOTAL:
        fmt_duration(buf, cap, (double)p->dist.total_ns);
        /* An entry still open: at least this, and more since its last frame
         * (or its end, when the log stops with it open). */
        if (p->open_threads && strlen(buf) + 1 < cap)
            strcat(buf, "+");
        return 0;
    case PHASE_COL_SELF:
        fmt_duration(buf, cap, (double)p->self_ns);
        return 0;
    case PHASE_COL_WAIT:
        fmt_percent(buf, cap, p->wait, 0);
        return isnan(p->wait);
    case PHASE_COL_P50:
        fmt_duration(buf, cap, p->dist.p50_ns);
        return isnan(p->dist.p50_ns);
    case PHASE_COL_MEAN:
        fmt_duration(buf, cap, p->dist.mean_ns);
        return isnan(p->dist.mean_ns);
    case PHASE_COL_P95:
        fmt_duration(buf, cap, p->dist.p95_ns);
        return isnan(p->dist.p95_ns);
    case PHASE_COL_P99:
        fmt_duration(buf, cap, p->dist.p99_ns);
        return isnan(p->dist.p99_ns);
    case PHASE_COL_COUNT:
        fmt_ucount(buf, cap, p->dist.count);
        return 0;
    case PHASE_NCOLUMNS:
        break;
    }
    assert(!"a phase column");
    buf[0] = '\0';
    return 0;
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
