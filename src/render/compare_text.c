/* The comparison as text; see compare_text.h.  Every figure comes from the
 * comparison model: this file only lays them out. */
#include "compare_text.h"

#include "run_compare_lines.h"

#include "fmt.h"
#include "text_escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CELL 64
#define GAP  2
/* Paths and names are cut to the column by fmt_fit, on character
 * boundaries; these buffers only need to hold them whole. */
#define LABEL_CAP 4096

/* Columns after the phase path: the totals and their change, then the
 * phase figures compare shows (phase_figures.h), each the change in it
 * (share: "A→B").  Under width pressure the highest `drop` goes first; 0
 * never goes. */
enum { C_TOTAL_A, C_TOTAL_B, C_CHANGE, C_FIGURES, MAX_COLS = C_FIGURES + PF_N + 1 };

typedef struct col {
    const char *head;
    size_t width;
    int drop;
    int fig; /* the figure of a column from C_FIGURES on; FIG_INTERVAL: the mean's interval */
} col;

/* The interval of the mean's change (run_noise.h), right after the mean:
 * "-1.2%..+3.4%".  Left out for width with the share. */
#define FIG_INTERVAL (-2)
static const col interval_col = {"interval", 15, 1, FIG_INTERVAL};

/* Wide enough for "999,999.9/s", "only in A", "100.0%>100.0%" and
 * "+1234.5%". */
static const col fixed_cols[C_FIGURES] = {
    [C_TOTAL_A] = {"total A", 11, 0, -1},
    [C_TOTAL_B] = {"total B", 11, 0, -1},
    [C_CHANGE] = {"change", 9, 0, -1},
};

/* The path column: never narrower than PATH_MIN; optional columns are left
 * out before paths are cut below PATH_WANT, since rows whose paths read the
 * same are worth less than any one figure. */
#define PATH_MIN  12
#define PATH_WANT 32

typedef struct cmp_layout {
    FILE *f;
    const text_style *st;
    col cols[MAX_COLS];
    int ncols;
    int shown[MAX_COLS];
    size_t path_cols;
    text_style rule;   /* the style, as wide as the table */
    size_t rule_hosts; /* hosts of the two runs, at most: GPUs are named with theirs when > 1 */
} cmp_layout;

static const char *arrow(const cmp_layout *l) {
    return l->st->utf8 ? "\xe2\x86\x92" : "->";
}

static size_t cols_width(const cmp_layout *l) {
    size_t w = 0;
    for (int c = 0; c < l->ncols; c++)
        if (l->shown[c])
            w += GAP + l->cols[c].width;
    return w;
}

/* The fixed columns, then the figures' in compare's order. */
static void columns(cmp_layout *l) {
    enum phase_fig ids[PF_N];
    size_t n = phase_figures_in(PF_OUT_COMPARE, ids);
    memcpy(l->cols, fixed_cols, sizeof fixed_cols);
    l->ncols = C_FIGURES;
    for (size_t i = 0; i < n; i++) {
        const layout_column *c = &phase_figures[ids[i]].cmp;
        l->cols[l->ncols++] = (col){c->heading, (size_t)c->width, c->drop, (int)ids[i]};
        if (ids[i] == PF_MEAN)
            l->cols[l->ncols++] = interval_col;
    }
}

/* The widest path (or counter line) of any role, so every role's table lines
 * up with the others. */
static size_t widest_label(const run_cmp *c) {
    size_t w = PATH_MIN;
    char buf[LABEL_CAP];
    for (size_t r = 0; r < c->nroles; r++)
        for (size_t i = 0; i < c->roles[r].nphases; i++) {
            const run_cmp_phase *p = &c->roles[r].phases[i];
            size_t pw = fmt_width(p->path);
            w = pw > w ? pw : w;
            for (size_t k = 0; k < p->ncounters; k++) {
                size_t cw = 4 + fmt_width(fmt_name(buf, sizeof buf, p->counters[k].name));
                w = cw > w ? cw : w;
            }
        }
    return w;
}

static void plan(cmp_layout *l, const run_cmp *c) {
    size_t width = (size_t)l->st->width;
    size_t want = widest_label(c);
    size_t need = want < PATH_WANT ? want : PATH_WANT;
    int most = 0;
    columns(l);
    for (int k = 0; k < l->ncols; k++) {
        l->shown[k] = 1;
        most = l->cols[k].drop > most ? l->cols[k].drop : most;
    }
    for (int drop = most; drop > 0 && need + cols_width(l) > width; drop--)
        for (int k = 0; k < l->ncols; k++)
            if (l->cols[k].drop == drop)
                l->shown[k] = 0;
    size_t rest = cols_width(l);
    size_t room = width > rest + PATH_MIN ? width - rest : PATH_MIN;
    l->path_cols = want < room ? want : room;
    l->rule = *l->st;
    l->rule.width = (int)(l->path_cols + rest);
}

/* Cuts a path from the left to `cols` columns ("…self_play/mcts"): its
 * end names the phase, its start only where it sits. */
static void fit_path(char *s, size_t cols, int utf8) {
    const char *ell = utf8 ? "\xe2\x80\xa6" : "...";
    size_t ell_cols = utf8 ? 1 : 3;
    if (fmt_width(s) <= cols || cols <= ell_cols)
        return;
    size_t n = strlen(s), i = 0;
    while (i < n && fmt_width(s + i) > cols - ell_cols) {
        uint32_t cp;
        size_t len = scope_utf8_seq_len((const uint8_t *)s + i, n - i, &cp);
        i += len ? len : 1;
    }
    size_t elen = strlen(ell);
    memmove(s + elen, s + i, n - i + 1);
    memcpy(s, ell, elen);
}

/* One table line: the label, then the cells of the shown columns, up to
 * the last one that holds something (no trailing blanks). */
static void put_row(const cmp_layout *l, const char *label, int is_path,
                    char cells[MAX_COLS][CELL]) {
    char lab[LABEL_CAP + 8]; /* room for the ellipsis fit_path puts first */
    int last = -1;
    for (int k = 0; k < l->ncols; k++)
        if (l->shown[k] && cells[k][0])
            last = k;
    snprintf(lab, sizeof lab, "%s", label);
    if (is_path)
        fit_path(lab, l->path_cols, l->st->utf8);
    else
        fmt_fit(lab, sizeof lab, l->path_cols, l->st->utf8);
    fmt_put_left(l->f, lab, last >= 0 ? l->path_cols : 0);
    for (int k = 0; k <= last; k++) {
        if (!l->shown[k])
            continue;
        fprintf(l->f, "%*s", GAP, "");
        fmt_put_right(l->f, cells[k], l->cols[k].width);
    }
    fputc('\n', l->f);
}

/* A figure compared side by side reads "share A→B". */
static int sides(const col *c) {
    return c->fig >= 0 && (phase_figures[c->fig].flags & PF_CMP_SIDES);
}

static void header(const cmp_layout *l) {
    char cells[MAX_COLS][CELL];
    for (int k = 0; k < l->ncols; k++)
        if (sides(&l->cols[k]))
            snprintf(cells[k], CELL, "%s A%sB", l->cols[k].head, arrow(l));
        else
            snprintf(cells[k], CELL, "%s", l->cols[k].head);
    put_row(l, "phase", 0, cells);
}

static const char *side_text(enum run_cmp_side side) {
    return side == RUN_CMP_ONLY_A ? "only in A" : "only in B";
}

/* A side's figure, or "-" where the phase (or counter) is not in that run. */
static void side_cell(char *cell, size_t cap, int present, const char *text) {
    snprintf(cell, cap, "%s", present ? text : "-");
}

/* The mean's interval of change; empty when the noise is unknown. */
static void interval_cell(char *cell, size_t cap, const run_cmp_phase *p) {
    const run_cmp_fig *m = &p->fig[PF_MEAN];
    char lo[CELL], hi[CELL];
    cell[0] = '\0';
    if (p->side == RUN_CMP_BOTH && !isnan(m->lo) && !isnan(m->hi))
        snprintf(cell, cap, "%s..%s", fmt_change(lo, sizeof lo, m->lo),
                 fmt_change(hi, sizeof hi, m->hi));
}

static void phase_row(const cmp_layout *l, const run_cmp_phase *p) {
    char cells[MAX_COLS][CELL] = {{0}}, buf[CELL], sa[CELL / 4], sb[CELL / 4];
    const run_cmp_fig *total = &p->fig[PF_TOTAL];
    side_cell(cells[C_TOTAL_A], CELL, p->a != NULL, fmt_duration(buf, sizeof buf, total->a));
    side_cell(cells[C_TOTAL_B], CELL, p->b != NULL, fmt_duration(buf, sizeof buf, total->b));
    if (p->side != RUN_CMP_BOTH)
        snprintf(cells[C_CHANGE], CELL, "%s", side_text(p->side));
    else
        fmt_change(cells[C_CHANGE], CELL, total->change);
    for (int k = C_FIGURES; k < l->ncols; k++) {
        if (l->cols[k].fig == FIG_INTERVAL) {
            interval_cell(cells[k], CELL, p);
            continue;
        }
        enum phase_fig f = (enum phase_fig)l->cols[k].fig;
        const run_cmp_fig *fig = &p->fig[f];
        if (sides(&l->cols[k])) {
            side_cell(sa, sizeof sa, p->a != NULL,
                      phase_fig_text(f, (pf_value){0, fig->a}, buf, sizeof buf));
            side_cell(sb, sizeof sb, p->b != NULL,
                      phase_fig_text(f, (pf_value){0, fig->b}, buf, sizeof buf));
            snprintf(cells[k], CELL, "%s%s%s", sa, arrow(l), sb);
        } else if (p->side == RUN_CMP_BOTH) {
            fmt_change(cells[k], CELL, fig->change);
        }
    }
    put_row(l, p->path, 1, cells);
}

/* A counter under its phase: rates in the total columns, so the table keeps
 * its shape. */
static void counter_row(const cmp_layout *l, const run_cmp_counter *k) {
    char cells[MAX_COLS][CELL] = {{0}}, buf[CELL], label[LABEL_CAP];
    side_cell(cells[C_TOTAL_A], CELL, k->side != RUN_CMP_ONLY_B,
              fmt_rate(buf, sizeof buf, k->rate_per_s.a));
    side_cell(cells[C_TOTAL_B], CELL, k->side != RUN_CMP_ONLY_A,
              fmt_rate(buf, sizeof buf, k->rate_per_s.b));
    if (k->side != RUN_CMP_BOTH)
        snprintf(cells[C_CHANGE], CELL, "%s", side_text(k->side));
    else
        fmt_change(cells[C_CHANGE], CELL, k->rate_per_s.change);
    char name[LABEL_CAP - 8];
    snprintf(label, sizeof label, "  + %s", fmt_name(name, sizeof name, k->name));
    put_row(l, label, 0, cells);
}

/* Under a role's table: which phases ran a different number of entries in
 * B than in A, since their totals then move with the count as much as with
 * the time of one entry (the mean column). */
static void counts_note(const cmp_layout *l, const run_cmp_role *r) {
    size_t n = 0, first = 0;
    for (size_t i = 0; i < r->nphases; i++)
        if (r->phases[i].side == RUN_CMP_BOTH &&
            r->phases[i].fig[PF_COUNT].a != r->phases[i].fig[PF_COUNT].b && !n++)
            first = i;
    if (!n)
        return;
    const run_cmp_phase *p = &r->phases[first];
    char a[CELL], b[CELL], text[LABEL_CAP + CELL * 4];
    fmt_ucount(a, sizeof a, (uint64_t)p->fig[PF_COUNT].a);
    fmt_ucount(b, sizeof b, (uint64_t)p->fig[PF_COUNT].b);
    snprintf(text, sizeof text,
             "Entry counts differ in %zu phase%s (%s: %s %s %s entries): %s total%s with the "
             "number of entries; mean is the time of one entry.",
             n, n == 1 ? "" : "s", p->path, a, arrow(l), b, n == 1 ? "its" : "their",
             n == 1 ? " moves" : "s move");
    text_wrap(l->f, l->st, text, 0, 0);
}

/* "A → B (change)" of a figure printed by fmt (bytes, a share), n/a on a
 * side that did not measure it. */
static const char *fig_text(char *buf, size_t cap, const cmp_layout *l, const run_cmp_fig *fig,
                            const char *(*fmt)(char *, size_t, double), const char *unit) {
    char a[CELL], b[CELL], ch[CELL] = "";
    if (!isnan(fig->change))
        snprintf(ch, sizeof ch, " (%s)", fmt_change(b, sizeof b, fig->change));
    snprintf(buf, cap, "%s%s %s %s%s%s", fmt(a, sizeof a, fig->a), isnan(fig->a) ? "" : unit,
             arrow(l), fmt(b, sizeof b, fig->b), isnan(fig->b) ? "" : unit, ch);
    return buf;
}

static const char *bytes_of(char *buf, size_t cap, double v) {
    return fmt_bytes(buf, cap, v);
}

static const char *share_of(char *buf, size_t cap, double v) {
    return fmt_percent(buf, cap, v, 1);
}

/* A figure that moved, or was measured on one side only. */
static int moved(const run_cmp_fig *f) {
    return isnan(f->a) != isnan(f->b) || (!isnan(f->delta) && f->delta != 0);
}

/* Under a role's table: the exact I/O of its I/O phases, its sampled I/O
 * rates and its GPU share, each where it changed. */
static void resource_notes(const cmp_layout *l, const run_cmp_role *r) {
    char x[CELL * 2], y[CELL * 2], z[CELL * 2], text[LABEL_CAP + CELL * 8];
    for (size_t i = 0; i < r->nphases; i++) {
        const run_cmp_phase *p = &r->phases[i];
        if (!p->io || !(moved(&p->io_disk_read) || moved(&p->io_disk_write) ||
                        moved(&p->io_cache_read) || moved(&p->io_disk_bytes_per_s)))
            continue;
        /* The rate's unit goes on each side's figure, before the change:
         * "0 B/s -> 75.8 kB/s (new)", never "... (new)/s". */
        snprintf(text, sizeof text, "I/O of %s (exact): disk read %s, disk write %s, disk %s",
                 p->path, fig_text(x, sizeof x, l, &p->io_disk_read, bytes_of, ""),
                 fig_text(y, sizeof y, l, &p->io_disk_write, bytes_of, ""),
                 fig_text(z, sizeof z, l, &p->io_disk_bytes_per_s, bytes_of, "/s"));
        text_wrap(l->f, l->st, text, 0, 2);
    }
    if (r->res && (moved(&r->disk_read_per_s) || moved(&r->cache_read_per_s) ||
                   moved(&r->disk_write_per_s))) {
        snprintf(text, sizeof text,
                 "I/O (sampled, per second of runtime): from disk %s, from page cache %s, "
                 "written %s",
                 fig_text(x, sizeof x, l, &r->disk_read_per_s, bytes_of, "/s"),
                 fig_text(y, sizeof y, l, &r->cache_read_per_s, bytes_of, "/s"),
                 fig_text(z, sizeof z, l, &r->disk_write_per_s, bytes_of, "/s"));
        text_wrap(l->f, l->st, text, 0, 2);
    }
    for (size_t i = 0; i < r->ngpus; i++) {
        const run_cmp_gpu *g = &r->gpus[i];
        if (!moved(&g->busy) && !moved(&g->this_run))
            continue;
        char host[CELL] = "";
        if (l->rule_hosts > 1)
            snprintf(host, sizeof host, "%s ", fmt_name(x, sizeof x, g->host));
        snprintf(text, sizeof text, "%sGPU %u: busy %s, this run %s", host, g->index,
                 fig_text(y, sizeof y, l, &g->busy, share_of, ""),
                 fig_text(z, sizeof z, l, &g->this_run, share_of, ""));
        text_wrap(l->f, l->st, text, 0, 2);
    }
}

/* A line's place: "file.c:42", "file.c:30->33" when it moved, the base
 * name of its file (JSON has the whole path). */
static const char *line_place(char *buf, size_t cap, const cmp_layout *l, const run_cmp_line *x) {
    char file[LABEL_CAP / 4];
    fmt_name(file, sizeof file, x->file.len ? x->file : (run_str){"??", 2});
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (x->moved)
        snprintf(buf, cap, "%s:%u%s%u", base, x->line_a, arrow(l), x->line_b);
    else
        snprintf(buf, cap, "%s:%u", base, x->side == RUN_CMP_ONLY_B ? x->line_b : x->line_a);
    return buf;
}

/* Under a role's table: its hottest lines with their share of the role's
 * line samples in A and B, matched by function and line (or by function
 * where the line moved). */
static void lines_block(const cmp_layout *l, const run_cmp *c, const run_cmp_role *r) {
    const run_cmp_role_lines *ls = r->lines;
    char a[CELL], b[CELL], text[LABEL_CAP];
    if (!ls || (!ls->sampled_a && !ls->sampled_b) || r->side != RUN_CMP_BOTH)
        return; /* a role in one run has nothing to compare its lines with */
    if (!ls->sampled_a || !ls->sampled_b) {
        snprintf(text, sizeof text,
                 "Hot lines: line samples in %s only (%s samples); nothing to "
                 "compare them with.",
                 ls->sampled_a ? "A" : "B",
                 fmt_ucount(a, sizeof a, ls->sampled_a ? ls->samples_a : ls->samples_b));
        text_wrap(l->f, l->st, text, 0, 0);
        return;
    }
    snprintf(text, sizeof text,
             "Hot lines (share of the role's line samples, %s A %s %s B; *: a change beyond "
             "the samples' noise at %g%%):",
             fmt_ucount(a, sizeof a, ls->samples_a), arrow(l),
             fmt_ucount(b, sizeof b, ls->samples_b), c->confidence * 100);
    text_wrap(l->f, l->st, text, 0, 2);
    size_t wf = 8, wp = 4;
    char fn[LABEL_CAP / 4], place[LABEL_CAP / 4 + 64]; /* a file name and two line numbers */
    for (size_t i = 0; i < ls->n; i++) {
        size_t w = fmt_width(fmt_name(fn, sizeof fn, ls->v[i].function));
        wf = w > wf ? w : wf;
        w = fmt_width(line_place(place, sizeof place, l, &ls->v[i]));
        wp = w > wp ? w : wp;
    }
    wf = wf > 40 ? 40 : wf;
    wp = wp > 40 ? 40 : wp;
    for (size_t i = 0; i < ls->n; i++) {
        const run_cmp_line *x = &ls->v[i];
        char sa[CELL], sb[CELL], shares[CELL * 2], delta[CELL] = "";
        fmt_name(fn, sizeof fn, x->function);
        fmt_fit(fn, sizeof fn, wf, l->st->utf8);
        line_place(place, sizeof place, l, x);
        fmt_fit_left(place, sizeof place, wp, l->st->utf8);
        snprintf(shares, sizeof shares, "%s %s %s",
                 isnan(x->share.a) ? "-" : fmt_percent(sa, sizeof sa, x->share.a, 1), arrow(l),
                 isnan(x->share.b) ? "-" : fmt_percent(sb, sizeof sb, x->share.b, 1));
        if (x->side != RUN_CMP_BOTH)
            snprintf(delta, sizeof delta, "%s", side_text(x->side));
        else
            snprintf(delta, sizeof delta, "%+.1f pts%s",
                     fabs(x->share.delta) < 0.0005 ? 0.0 : x->share.delta * 100,
                     x->significant ? " *" : "");
        fputs("  ", l->f);
        fmt_put_left(l->f, fn, wf + 2);
        fmt_put_left(l->f, place, wp + 2);
        fmt_put_right(l->f, shares, 16);
        fprintf(l->f, "  %s\n", delta);
    }
    if (ls->more) {
        snprintf(text, sizeof text, "(%zu more line%s; see 'scope-tui lines')", ls->more,
                 ls->more == 1 ? "" : "s");
        fputs("  ", l->f);
        text_wrap(l->f, l->st, text, 2, 2);
    }
}

static void role_title(const cmp_layout *l, const run_cmp_role *r) {
    char name[LABEL_CAP], a[CELL], b[CELL], ch[CELL], text[CELL * 8];
    fmt_title(name, sizeof name, r->name);
    if (r->side != RUN_CMP_BOTH) {
        double n = r->a ? r->nprocs.a : r->nprocs.b;
        snprintf(text, sizeof text, "(%s: %.0f process%s, phase time %s)", side_text(r->side), n,
                 n == 1 ? "" : "es",
                 fmt_duration(a, sizeof a, r->a ? r->phase_ns.a : r->phase_ns.b));
    } else {
        snprintf(text, sizeof text, "(processes %.0f %s %.0f, phase time %s %s %s, %s)",
                 r->nprocs.a, arrow(l), r->nprocs.b, fmt_duration(a, sizeof a, r->phase_ns.a),
                 arrow(l), fmt_duration(b, sizeof b, r->phase_ns.b),
                 fmt_change(ch, sizeof ch, r->phase_ns.change));
    }
    text_heading(l->f, l->st, name);
    fputs("  ", l->f);
    text_wrap(l->f, l->st, text, fmt_width(name) + 2, 2);
}

static void run_line(const cmp_layout *l, const char *tag, const run_model *m) {
    char dir[LABEL_CAP], id[CELL * 2] = "", rt[CELL], wall[CELL], caveats[CELL] = "";
    char text[LABEL_CAP + CELL * 8];
    scope_escape((const uint8_t *)m->dir, strlen(m->dir), dir, sizeof dir, 0);
    if (m->nattempts)
        fmt_name(id, sizeof id, m->attempts[m->shown_attempt].run_id);
    if (m->ncaveats)
        snprintf(caveats, sizeof caveats, "; %zu caveat%s: see 'scope-tui report'", m->ncaveats,
                 m->ncaveats == 1 ? "" : "s");
    /* A loaded host makes every phase of its run slower: said beside the
     * run, so that a change it explains is not read as the program's. */
    char loaded[CELL * 2] = "", pct[CELL];
    double queued = run_queued_share(m);
    if (queued >= RUN_LOADED_QUEUED)
        snprintf(loaded, sizeof loaded, "; loaded host: %s of phase time waiting for a CPU",
                 fmt_percent(pct, sizeof pct, queued, 0));
    snprintf(text, sizeof text, "%s: %s (run %s, %zu process%s, runtime %s, started %s UTC%s%s)",
             tag, dir, id, m->nprocs, m->nprocs == 1 ? "" : "es",
             fmt_duration(rt, sizeof rt, (double)m->runtime_ns),
             fmt_wall(wall, sizeof wall, m->start_wall_ns), loaded, caveats);
    text_wrap(l->f, l->st, text, 0, 3);
}

static void dropped_note(const cmp_layout *l) {
    char text[CELL * 4] = "(left out for width:";
    size_t len = strlen(text);
    int any = 0;
    for (int k = l->ncols - 1; k >= 0; k--)
        if (!l->shown[k]) {
            len += (size_t)snprintf(text + len, sizeof text - len, "%s %s%s", any ? "," : "",
                                    l->cols[k].head, sides(&l->cols[k]) ? " A>B" : "");
            any = 1;
        }
    if (!any)
        return;
    snprintf(text + len, sizeof text - len, "; see --width N or --json)");
    text_wrap(l->f, l->st, text, 0, 1);
}

/* One line naming every role with its processes in A and B, and which
 * roles appeared or vanished, before the tables go into each. */
static void roles_line(const cmp_layout *l, const run_cmp *c) {
    size_t cap = 64 + c->nroles * (LABEL_CAP / 4), len = 0;
    char *text = malloc(cap), name[LABEL_CAP / 8];
    if (!text)
        return;
    len += (size_t)snprintf(text, cap, "Roles (processes A %s B):", arrow(l));
    for (size_t r = 0; r < c->nroles && len < cap; r++) {
        const run_cmp_role *role = &c->roles[r];
        fmt_name(name, sizeof name, role->name);
        const char *sep = r ? "," : "";
        if (role->side == RUN_CMP_BOTH)
            len += (size_t)snprintf(text + len, cap - len, "%s %s %.0f %s %.0f", sep, name,
                                    role->nprocs.a, arrow(l), role->nprocs.b);
        else
            len += (size_t)snprintf(text + len, cap - len, "%s %s %s (%.0f process%s)", sep, name,
                                    role->side == RUN_CMP_ONLY_B ? "appeared" : "vanished",
                                    role->a ? role->nprocs.a : role->nprocs.b,
                                    (role->a ? role->nprocs.a : role->nprocs.b) == 1 ? "" : "es");
    }
    text_wrap(l->f, l->st, text, 0, 2);
    free(text);
}

void compare_text_print(FILE *f, const run_cmp *c, const text_style *st) {
    cmp_layout l = {.f = f, .st = st};
    l.rule_hosts = c->a->nhosts > c->b->nhosts ? c->a->nhosts : c->b->nhosts;
    plan(&l, c);
    run_line(&l, "A", c->a);
    run_line(&l, "B", c->b);
    char legend[LABEL_CAP];
    snprintf(legend, sizeof legend,
             "Rows by impact (the change in total time); changes are B against A; mean: "
             "the change in time per entry; interval: where that change lies at %g%% "
             "confidence, from the noise within each run (docs/compare.md). "
             "Counters (+): their rate per second of their phase's time.",
             c->confidence * 100);
    text_wrap(f, st, legend, 0, 0);
    if (c->nroles)
        roles_line(&l, c);
    if (c->nroles == 0)
        fputs("\nNo phases were recorded in either run.\n", f);
    for (size_t r = 0; r < c->nroles; r++) {
        const run_cmp_role *role = &c->roles[r];
        fputc('\n', f);
        role_title(&l, role);
        text_rule(f, &l.rule);
        header(&l);
        for (size_t i = 0; i < role->nphases; i++) {
            phase_row(&l, &role->phases[i]);
            for (size_t k = 0; k < role->phases[i].ncounters; k++)
                counter_row(&l, &role->phases[i].counters[k]);
        }
        counts_note(&l, role);
        resource_notes(&l, role);
        lines_block(&l, c, role);
    }
    dropped_note(&l);
}
