/*
 * The phase figures: each figure a phase shows, described once.  Every
 * output that prints phase figures (the phase table's columns in the text
 * report and the browser, the report's dominant phases, the browser's
 * detail pane, `report --json`, compare in text and JSON, check's metrics,
 * the HDF5 export's /phases) walks phase_figures[] instead of naming
 * figures, as htop's columns walk its Process_fields[].  (The browser's
 * sort orders still name theirs: view_ops.nsorts is a constant.)
 *
 * A figure's row says what it is (name, unit), where the model keeps it
 * (a member of the phase's run_dist or of the run_phase), how processes
 * combine into it (run_merge.c computes it so), and its place and spelling
 * in each output.  Where an output leaves a figure out, its place there is
 * 0; where an output spells it its own way, the row holds that spelling.
 * Adding a figure: docs/architecture.md, "Adding a phase figure".
 */
#ifndef SCOPE_PHASE_FIGURES_H
#define SCOPE_PHASE_FIGURES_H

#include "layout.h"
#include "run_model.h"

#include <stddef.h>
#include <stdint.h>

/* The figures.  Those that are columns of the phase table come first, in
 * the columns' order (the text report's and the browser's), up to
 * PF_NCOLUMNS; the others follow it. */
enum phase_fig {
    PF_SHARE,
    PF_TOTAL,
    PF_SELF,
    PF_WAIT,
    PF_QUEUED, /* off unless a table turns it on (a role that measured it) */
    PF_MEAN,   /* off unless a table turns it on (a wide browser) */
    PF_P50,
    PF_P95, /* off unless a table turns it on */
    PF_P99,
    PF_COUNT,
    PF_NCOLUMNS,
    PF_MIN = PF_NCOLUMNS,
    PF_MAX,
    PF_OPEN_THREADS,
    PF_OPEN,
    PF_CPU_COUNT,
    PF_HIST_COUNT,
    PF_CPU_WALL,
    PF_CPU,
    PF_N
};

/* How a figure prints. */
enum pf_unit {
    PF_UNIT_NS,       /* a duration: "1.25s" */
    PF_UNIT_FRACTION, /* 0..1, as a percentage with `decimals` decimals */
    PF_UNIT_COUNT,    /* "1,234" */
};

/* How the model keeps it. */
enum pf_type { PF_U64, PF_SIZE, PF_F64 /* NAN: not measured */ };

/* How the processes (and threads) merged into a phase combine into the
 * figure; run_merge.c computes each so. */
enum pf_merge {
    PF_MERGE_SUM,     /* added up */
    PF_MERGE_MIN,     /* the least */
    PF_MERGE_MAX,     /* the most */
    PF_MERGE_HIST,    /* read off the merged histogram (or every entry: exact_pct) */
    PF_MERGE_DERIVED, /* computed from merged figures (mean = total / count, ...) */
};

/* The outputs that place figures in an order of their own.  A row's at[o]
 * is its place in output o, ascending, 0 when the output leaves it out;
 * places go in tens so that a new figure fits between two. */
enum pf_output {
    PF_OUT_JSON,         /* report --json: a phase's keys (run_dist's first) */
    PF_OUT_H5,           /* export --format hdf5: /phases columns */
    PF_OUT_COMPARE,      /* compare's text columns after total A, total B, change */
    PF_OUT_COMPARE_JSON, /* compare --json: a phase's figures */
    PF_OUT_CHECK,        /* check --metric, the first the default */
    PF_OUT_DETAIL,       /* the browser's detail pane: tens are its line, units the place */
    PF_OUTPUTS
};

/* What an output does differently for a figure, as data (flags). */
enum pf_flag {
    /* Its cell says "open" for a phase left open and never completed. */
    PF_OPEN_WORD = 0x1,
    /* Its cell ends with "+" while entries are open: at least that much. */
    PF_OPEN_PLUS = 0x2,
    /* Its JSON is null when the phase has no entries (min, max). */
    PF_NULL_IF_NONE = 0x4,
    /* Compare's cell is "A→B" (share), not the change. */
    PF_CMP_SIDES = 0x8,
    /* The detail pane says after it on how many entries the histogram
     * rests, when on fewer than all (run_partial.h). */
    PF_NOTE_HIST = 0x10,
    /* The detail pane says after it how many entries had their CPU time
     * read, when few (run_partial.h). */
    PF_NOTE_CPU = 0x20,
    /* Its cell is never dimmed as not measured (share: NAN only in a role
     * with no phase time). */
    PF_NEVER_NA = 0x40,
    /* A column of the text report's dominant phases. */
    PF_DOMINANT = 0x80,
    /* The detail pane leaves it out where it is not measured (a figure
     * older logs never carry). */
    PF_DETAIL_IF_MEASURED = 0x100,
};

typedef struct phase_figure {
    const char *name; /* check's --metric, the docs */
    enum pf_unit unit;
    int decimals; /* a fraction's decimals in cells */
    int in_dist;  /* a member of run_phase.dist (iterations have it too), else of run_phase */
    size_t offset;
    enum pf_type type;
    enum pf_merge merge;
    unsigned flags;       /* enum pf_flag */
    layout_column column; /* the phase table's column (heading NULL: none) */
    const char *json;     /* report --json and compare --json key */
    const char *h5;       /* HDF5 /phases column */
    layout_column cmp;    /* compare's text column (its heading, width and drop rank) */
    const char *check;    /* check's words after the metric's name: "time per entry" */
    const char *detail;   /* the detail pane's label */
    int at[PF_OUTPUTS];
} phase_figure;

extern const phase_figure phase_figures[PF_N];

/* The figures in output o, in its order, into ids; returns how many. */
size_t phase_figures_in(enum pf_output o, enum phase_fig ids[PF_N]);

/* A figure's value as the model keeps it: u exact where it is an integer
 * (0 where not), d as a double, NAN where not measured. */
typedef struct pf_value {
    uint64_t u;
    double d;
} pf_value;

/* Figure f of a phase, or of a distribution (where f is in_dist; else
 * NAN). */
pf_value phase_fig_get(const run_phase *p, enum phase_fig f);
/* Sets integer figure f (PF_U64 or PF_SIZE) of a phase to u: what a
 * partial model read from a file (run_h5_summary.h) fills its phases with. */
void phase_fig_set(run_phase *p, enum phase_fig f, uint64_t u);
pf_value phase_fig_dist_get(const run_dist *d, enum phase_fig f);
double phase_fig_value(const run_phase *p, enum phase_fig f); /* its d */

/* The value v of figure f, printed by its unit, into buf.  Returns buf. */
const char *phase_fig_text(enum phase_fig f, pf_value v, char *buf, size_t cap);

/* The figure named `name` among those of output o; -1 when none. */
int phase_fig_named(enum pf_output o, const char *name);

#endif
