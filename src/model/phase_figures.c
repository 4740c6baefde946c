/* The phase figures, each described once; see phase_figures.h. */
#include "phase_figures.h"

#include "fmt.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Where the model keeps a figure: in the phase's run_dist, or in the phase. */
#define IN_DIST(m, t)  .in_dist = 1, .offset = offsetof(run_dist, m), .type = t
#define IN_PHASE(m, t) .in_dist = 0, .offset = offsetof(run_phase, m), .type = t
/* A phase-table column: heading, width, drop rank (0: never given up), off
 * unless a table turns it on. */
#define COLUMN(h, w, drop, off) .column = {h, w, drop, 1, off}
/* Compare's text column: heading, width, drop rank, and its place. */
#define COMPARE(h, w, drop, place) .cmp = {h, w, drop, 1, 0}, .at[PF_OUT_COMPARE] = place
/* A figure's spelling in an output, and its place there. */
#define JSON(key, place)     .json = key, .at[PF_OUT_JSON] = place
#define COMPARE_JSON(place)  .at[PF_OUT_COMPARE_JSON] = place
#define H5(column, place)    .h5 = column, .at[PF_OUT_H5] = place
#define CHECK(words, place)  .check = words, .at[PF_OUT_CHECK] = place
#define DETAIL(label, place) .detail = label, .at[PF_OUT_DETAIL] = place

/* The columns: self is the one a profile's reader looks at first, so it is
 * the last to go.  The median goes first: the mean (total over count) and
 * the p99 bound it from both sides, and the detail pane and the JSON keep
 * it.  Then the tail, then the count, then wait, which only phases that
 * block give a meaning to.  Durations print in at most 7 columns ("10h
 * 31m"), so 8 leaves a space where a table has no gap of its own; the
 * count's width is a floor (phase_count_width).
 *
 * The places: report --json puts a phase's run_dist figures first (places
 * below 100), then its own; the HDF5 places are the columns' order in the
 * file; the detail pane's tens are its line. */
// clang-format off
const phase_figure phase_figures[PF_N] = {
    [PF_SHARE] = {.name = "share", .unit = PF_UNIT_FRACTION, .decimals = 1,
        IN_PHASE(share, PF_F64), .merge = PF_MERGE_DERIVED,
        .flags = PF_OPEN_WORD | PF_CMP_SIDES | PF_NEVER_NA,
        COLUMN("share", 7, 0, 0), JSON("share", 140), H5("share", 110),
        COMPARE("share", 13, 1, 20), COMPARE_JSON(60), DETAIL("share", 23)},
    [PF_TOTAL] = {.name = "total", .unit = PF_UNIT_NS,
        IN_DIST(total_ns, PF_U64), .merge = PF_MERGE_SUM,
        .flags = PF_OPEN_WORD | PF_OPEN_PLUS,
        COLUMN("total", 8, 0, 0), JSON("total_ns", 20), H5("total_ns", 30),
        /* compare's own first columns: total A, total B, change */
        COMPARE_JSON(10), CHECK("time", 20), DETAIL("total", 21)},
    [PF_SELF] = {.name = "self", .unit = PF_UNIT_NS,
        IN_PHASE(self_ns, PF_U64), .merge = PF_MERGE_DERIVED,
        .flags = PF_OPEN_WORD | PF_DOMINANT,
        COLUMN("self", 8, 6, 0), JSON("self_ns", 110), H5("self_ns", 40),
        COMPARE("self", 8, 2, 30), COMPARE_JSON(20), DETAIL("self", 22)},
    [PF_WAIT] = {.name = "wait", .unit = PF_UNIT_FRACTION, .decimals = 0,
        IN_PHASE(wait, PF_F64), .merge = PF_MERGE_DERIVED,
        .flags = PF_NOTE_CPU | PF_DOMINANT,
        COLUMN("wait", 5, 5, 0), JSON("wait", 150), H5("wait", 120),
        DETAIL("wait", 24)},
    /* The part of wait spent runnable, waiting for a CPU: wait% keeps its
     * meaning (all off-CPU time), and blocked is wait less queued. */
    [PF_QUEUED] = {.name = "queued", .unit = PF_UNIT_FRACTION, .decimals = 0,
        IN_PHASE(queued, PF_F64), .merge = PF_MERGE_DERIVED,
        .flags = PF_DETAIL_IF_MEASURED,
        COLUMN("queued", 7, 2, 1), JSON("queued", 155), H5("queued", 125), COMPARE_JSON(85),
        DETAIL("queued", 25)},
    [PF_MEAN] = {.name = "mean", .unit = PF_UNIT_NS,
        IN_DIST(mean_ns, PF_F64), .merge = PF_MERGE_DERIVED,
        COLUMN("mean", 8, 2, 1), JSON("mean_ns", 30), H5("mean_ns", 70),
        COMPARE("mean", 8, 0, 10), COMPARE_JSON(30), CHECK("time per entry", 10),
        DETAIL("mean", 12)},
    [PF_P50] = {.name = "p50", .unit = PF_UNIT_NS,
        IN_DIST(p50_ns, PF_F64), .merge = PF_MERGE_HIST,
        .flags = PF_DOMINANT,
        COLUMN("p50", 8, 2, 0), JSON("p50_ns", 40), H5("p50_ns", 80),
        COMPARE("p50", 8, 3, 40), COMPARE_JSON(40), CHECK("time", 30), DETAIL("p50", 13)},
    [PF_P95] = {.name = "p95", .unit = PF_UNIT_NS,
        IN_DIST(p95_ns, PF_F64), .merge = PF_MERGE_HIST,
        COLUMN("p95", 8, 2, 1), JSON("p95_ns", 50), H5("p95_ns", 90), DETAIL("p95", 14)},
    [PF_P99] = {.name = "p99", .unit = PF_UNIT_NS,
        IN_DIST(p99_ns, PF_F64), .merge = PF_MERGE_HIST,
        .flags = PF_NOTE_HIST | PF_DOMINANT,
        COLUMN("p99", 8, 3, 0), JSON("p99_ns", 60), H5("p99_ns", 100),
        COMPARE("p99", 8, 4, 50), COMPARE_JSON(50), CHECK("time", 40), DETAIL("p99", 15)},
    [PF_COUNT] = {.name = "count", .unit = PF_UNIT_COUNT,
        IN_DIST(count, PF_U64), .merge = PF_MERGE_SUM,
        COLUMN("count", 10, 4, 0), JSON("count", 10), H5("count", 20),
        COMPARE("count", 8, 5, 60), COMPARE_JSON(70), DETAIL("entries", 11)},
    /* Not columns. */
    [PF_MIN] = {.name = "min", .unit = PF_UNIT_NS,
        IN_DIST(min_ns, PF_U64), .merge = PF_MERGE_MIN,
        .flags = PF_NULL_IF_NONE,
        JSON("min_ns", 70), H5("min_ns", 50)},
    [PF_MAX] = {.name = "max", .unit = PF_UNIT_NS,
        IN_DIST(max_ns, PF_U64), .merge = PF_MERGE_MAX,
        .flags = PF_NULL_IF_NONE,
        JSON("max_ns", 80), H5("max_ns", 60), DETAIL("max", 16)},
    [PF_OPEN_THREADS] = {.name = "open_threads", .unit = PF_UNIT_COUNT,
        IN_PHASE(open_threads, PF_SIZE), .merge = PF_MERGE_SUM,
        JSON("open_threads", 120), H5("open_threads", 10)},
    [PF_OPEN] = {.name = "open", .unit = PF_UNIT_NS,
        IN_PHASE(open_ns, PF_U64), .merge = PF_MERGE_SUM,
        JSON("open_ns", 130)},
    [PF_CPU_COUNT] = {.name = "cpu_count", .unit = PF_UNIT_COUNT,
        IN_PHASE(cpu_count, PF_U64), .merge = PF_MERGE_SUM,
        JSON("cpu_count", 160), H5("cpu_count", 130)},
    [PF_HIST_COUNT] = {.name = "hist_count", .unit = PF_UNIT_COUNT,
        IN_PHASE(hist_count, PF_U64), .merge = PF_MERGE_SUM,
        JSON("hist_count", 170)},
    [PF_CPU_WALL] = {.name = "cpu_wall", .unit = PF_UNIT_NS,
        IN_PHASE(cpu_wall_ns, PF_U64), .merge = PF_MERGE_SUM,
        H5("cpu_wall_ns", 140)},
    [PF_CPU] = {.name = "cpu", .unit = PF_UNIT_NS,
        IN_PHASE(cpu_ns, PF_U64), .merge = PF_MERGE_SUM,
        JSON("cpu_ns", 165), H5("cpu_ns", 150), COMPARE_JSON(80),
        CHECK("CPU time, of the entries whose CPU time was read", 50)},
};
// clang-format on

size_t phase_figures_in(enum pf_output o, enum phase_fig ids[PF_N]) {
    size_t n = 0;
    for (int f = 0; f < PF_N; f++) {
        if (!phase_figures[f].at[o])
            continue;
        /* Insertion by place: a handful of figures. */
        size_t i = n++;
        while (i > 0 && phase_figures[ids[i - 1]].at[o] > phase_figures[f].at[o]) {
            ids[i] = ids[i - 1];
            i--;
        }
        ids[i] = (enum phase_fig)f;
    }
    return n;
}

static pf_value read_at(const void *base, const phase_figure *pf) {
    const char *at = (const char *)base + pf->offset;
    pf_value v = {0, NAN};
    switch (pf->type) {
    case PF_U64:
        memcpy(&v.u, at, sizeof v.u);
        v.d = (double)v.u;
        break;
    case PF_SIZE: {
        size_t n;
        memcpy(&n, at, sizeof n);
        v.u = n;
        v.d = (double)n;
        break;
    }
    case PF_F64:
        memcpy(&v.d, at, sizeof v.d);
        break;
    }
    return v;
}

pf_value phase_fig_get(const run_phase *p, enum phase_fig f) {
    const phase_figure *pf = &phase_figures[f];
    return read_at(pf->in_dist ? (const void *)&p->dist : (const void *)p, pf);
}

void phase_fig_set(run_phase *p, enum phase_fig f, uint64_t u) {
    const phase_figure *pf = &phase_figures[f];
    char *at = (char *)(pf->in_dist ? (void *)&p->dist : (void *)p) + pf->offset;
    if (pf->type == PF_U64) {
        memcpy(at, &u, sizeof u);
    } else if (pf->type == PF_SIZE) {
        size_t n = (size_t)u;
        memcpy(at, &n, sizeof n);
    }
}

pf_value phase_fig_dist_get(const run_dist *d, enum phase_fig f) {
    return phase_figures[f].in_dist ? read_at(d, &phase_figures[f]) : (pf_value){0, NAN};
}

double phase_fig_value(const run_phase *p, enum phase_fig f) {
    return phase_fig_get(p, f).d;
}

const char *phase_fig_text(enum phase_fig f, pf_value v, char *buf, size_t cap) {
    const phase_figure *pf = &phase_figures[f];
    switch (pf->unit) {
    case PF_UNIT_NS:
        break;
    case PF_UNIT_FRACTION:
        return fmt_percent(buf, cap, v.d, pf->decimals);
    case PF_UNIT_COUNT:
        return fmt_ucount(buf, cap, pf->type == PF_F64 ? (uint64_t)v.d : v.u);
    }
    return fmt_duration(buf, cap, v.d);
}

int phase_fig_named(enum pf_output o, const char *name) {
    for (int f = 0; f < PF_N; f++)
        if (phase_figures[f].at[o] && !strcmp(phase_figures[f].name, name))
            return f;
    return -1;
}
