/* Hot lines compared between two runs; see run_compare_lines.h. */
#include "run_compare_lines.h"

#include "run_builder.h"

#include "run_lines.h"
#include "run_noise.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A side's sampled rows, and which row of the other side each matched. */
typedef struct side_rows {
    const run_line **v;
    size_t n;
    size_t *match; /* index into the other side's v; SIZE_MAX: none yet */
    uint64_t samples;
} side_rows;

/* A file by its last component: two builds in different folders (two CI
 * checkouts) name the same source by different paths. */
static run_str base_name(run_str file) {
    for (size_t i = file.len; i > 0; i--)
        if (file.s[i - 1] == '/')
            return (run_str){file.s + i, file.len - i};
    return file;
}

/* Function, then file name: where a function's lines sit together. */
static int by_function(const run_line *a, const run_line *b) {
    int c = run_str_cmp(a->function, b->function);
    return c ? c : run_str_cmp(base_name(a->file), base_name(b->file));
}

static int by_place(const void *x, const void *y) {
    const run_line *a = *(const run_line *const *)x, *b = *(const run_line *const *)y;
    int c = by_function(a, b);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

static int same_function(const run_line *a, const run_line *b) {
    return by_function(a, b) == 0;
}

/* The role's sampled lines in m, by place; empty when it has none. */
static int rows_of(run_model *m, const run_cmp_role *role, int side_b, run_lines_result *res,
                   side_rows *s) {
    memset(s, 0, sizeof *s);
    memset(res, 0, sizeof *res);
    const run_role *r = side_b ? role->b : role->a;
    if (!r || strlen(r->name.s) != r->name.len) /* a name holding NUL cannot be asked for */
        return 0;
    run_lines_query q = {.role = r->name.s, .worker = SIZE_MAX, .sort = RUN_LINES_BY_TIME};
    char msg[256];
    if (run_lines_select(m, &q, res, msg, sizeof msg) != 0)
        return 0; /* no line data for this role */
    s->samples = res->samples;
    if (!res->nrows)
        return 0;
    s->v = malloc(res->nrows * sizeof *s->v);
    s->match = malloc(res->nrows * sizeof *s->match);
    if (!s->v || !s->match)
        return -1;
    for (size_t i = 0; i < res->nrows; i++)
        if (res->rows[i].kind == RUN_LINE_SAMPLED && res->rows[i].samples)
            s->v[s->n++] = &res->rows[i];
    qsort(s->v, s->n, sizeof *s->v, by_place);
    for (size_t i = 0; i < s->n; i++)
        s->match[i] = SIZE_MAX;
    return 0;
}

/* Exact places: both sorted by place, merged. */
static void match_exact(side_rows *a, side_rows *b) {
    size_t i = 0, k = 0;
    while (i < a->n && k < b->n) {
        int c = by_place(&a->v[i], &b->v[k]);
        if (c == 0) {
            a->match[i] = k;
            b->match[k] = i;
        }
        i += c <= 0;
        k += c >= 0;
    }
}

/* Rows looked at per function when finding how far its lines moved: the
 * search is quadratic in them. */
#define SHIFT_ROWS 64

/* The first row of b's rows of like's function (rows sorted by place). */
static size_t group_start(const side_rows *b, const run_line *like) {
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (by_function(b->v[mid], like) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void pair(side_rows *a, size_t i, side_rows *b, size_t k) {
    a->match[i] = k;
    b->match[k] = i;
}

/* The unmatched row of b's group [kb, jb) at `line`; SIZE_MAX when none. */
static size_t unmatched_at(const side_rows *b, size_t kb, size_t jb, uint32_t line) {
    for (size_t k = kb; k < jb; k++)
        if (b->match[k] == SIZE_MAX && b->v[k]->line == line)
            return k;
    return SIZE_MAX;
}

/* A function whose code moved as a block (an edit above it): the shift
 * that carries the most unmatched samples of both sides onto each other
 * (each pair counting the smaller of its two), and those lines paired by
 * it.  Counting A's side alone tied a hot line's true shift with one onto
 * a line B sampled a few times (33 -> 37 against 33 -> 38), and the nearer
 * won.  A's group is [ia, ja), B's [kb, jb). */
static void match_shifted(side_rows *a, size_t ia, size_t ja, side_rows *b, size_t kb, size_t jb) {
    int64_t best = 0;
    uint64_t best_score = 0;
    for (size_t i = ia; i < ja && i < ia + SHIFT_ROWS; i++)
        for (size_t k = kb; k < jb && k < kb + SHIFT_ROWS; k++) {
            if (a->match[i] != SIZE_MAX || b->match[k] != SIZE_MAX)
                continue;
            int64_t d = (int64_t)b->v[k]->line - (int64_t)a->v[i]->line;
            uint64_t score = 0;
            for (size_t x = ia; x < ja && x < ia + SHIFT_ROWS; x++) {
                if (a->match[x] != SIZE_MAX)
                    continue;
                size_t y = unmatched_at(b, kb, jb, (uint32_t)((int64_t)a->v[x]->line + d));
                if (y != SIZE_MAX)
                    score +=
                        a->v[x]->samples < b->v[y]->samples ? a->v[x]->samples : b->v[y]->samples;
            }
            if (score > best_score || (score == best_score && llabs(d) < llabs(best))) {
                best = d;
                best_score = score;
            }
        }
    for (size_t i = ia; best_score && i < ja; i++) {
        if (a->match[i] != SIZE_MAX)
            continue;
        size_t k = unmatched_at(b, kb, jb, (uint32_t)((int64_t)a->v[i]->line + best));
        if (k != SIZE_MAX)
            pair(a, i, b, k);
    }
}

/* Lines that moved: within each function (and file), first by the shift
 * that moves most of its samples, then what is left hottest with hottest. */
static void match_moved(side_rows *a, side_rows *b) {
    for (size_t ia = 0, ja; ia < a->n; ia = ja) {
        for (ja = ia + 1; ja < a->n && same_function(a->v[ja], a->v[ia]);)
            ja++;
        size_t kb = group_start(b, a->v[ia]), jb = kb;
        while (jb < b->n && same_function(b->v[jb], a->v[ia]))
            jb++;
        if (kb == jb)
            continue;
        match_shifted(a, ia, ja, b, kb, jb);
        for (;;) { /* the hottest unmatched of each side, until one side runs out */
            size_t i = SIZE_MAX, k = SIZE_MAX;
            for (size_t x = ia; x < ja; x++)
                if (a->match[x] == SIZE_MAX &&
                    (i == SIZE_MAX || a->v[x]->samples > a->v[i]->samples))
                    i = x;
            for (size_t x = kb; x < jb; x++)
                if (b->match[x] == SIZE_MAX &&
                    (k == SIZE_MAX || b->v[x]->samples > b->v[k]->samples))
                    k = x;
            if (i == SIZE_MAX || k == SIZE_MAX)
                break;
            pair(a, i, b, k);
        }
    }
}

static double hotter(const run_cmp_line *l) {
    double a = isnan(l->share.a) ? 0 : l->share.a, b = isnan(l->share.b) ? 0 : l->share.b;
    return a > b ? a : b;
}

static int by_heat(const void *x, const void *y) {
    const run_cmp_line *a = x, *b = y;
    double ha = hotter(a), hb = hotter(b);
    if (ha != hb)
        return ha > hb ? -1 : 1;
    int c = run_str_cmp(a->function, b->function);
    return c ? c
             : (a->line_a + a->line_b > b->line_a + b->line_b) -
                   (a->line_a + a->line_b < b->line_a + b->line_b);
}

static run_cmp_line line_of(const run_line *a, const run_line *b, double z) {
    const run_line *p = a ? a : b;
    run_cmp_line l = {.function = p->function,
                      .file = p->file,
                      .line_a = a ? a->line : 0,
                      .line_b = b ? b->line : 0,
                      .side = a && b ? RUN_CMP_BOTH
                              : a    ? RUN_CMP_ONLY_A
                                     : RUN_CMP_ONLY_B};
    l.moved = a && b && a->line != b->line;
    l.share = run_cmp_figure(a ? a->share : NAN, b ? b->share : NAN);
    l.delta_sd = a && b ? sqrt(a->share_sd * a->share_sd + b->share_sd * b->share_sd) : NAN;
    l.significant = !isnan(l.delta_sd) && fabs(l.share.delta) > z * l.delta_sd;
    return l;
}

static int compare_role_lines(run_model *ma, run_model *mb, run_cmp_role *role, double z) {
    run_lines_result ra = {0}, rb = {0};
    side_rows a = {0}, b = {0};
    run_cmp_role_lines *out = calloc(1, sizeof *out);
    int rc = !out || rows_of(ma, role, 0, &ra, &a) || rows_of(mb, role, 1, &rb, &b) ? -1 : 0;
    if (rc == 0) {
        role->lines = out;
        out->sampled_a = a.n > 0;
        out->sampled_b = b.n > 0;
        out->samples_a = a.samples;
        out->samples_b = b.samples;
    } else {
        free(out);
    }
    run_cmp_line *all = NULL;
    size_t n = 0;
    if (rc == 0 && a.n && b.n) {
        match_exact(&a, &b);
        match_moved(&a, &b);
        all = malloc((a.n + b.n) * sizeof *all);
        rc = all ? 0 : -1;
    }
    if (all) {
        for (size_t i = 0; i < a.n; i++)
            all[n++] = line_of(a.v[i], a.match[i] == SIZE_MAX ? NULL : b.v[a.match[i]], z);
        for (size_t k = 0; k < b.n; k++)
            if (b.match[k] == SIZE_MAX)
                all[n++] = line_of(NULL, b.v[k], z);
        qsort(all, n, sizeof *all, by_heat);
        out->n = n < RUN_CMP_LINES_TOP ? n : RUN_CMP_LINES_TOP;
        out->more = n - out->n;
        out->v = all; /* the rest stays allocated past n: freed with it */
    }
    free(a.v);
    free(a.match);
    free(b.v);
    free(b.match);
    run_lines_free(&ra);
    run_lines_free(&rb);
    return rc;
}

int run_compare_lines(run_model *a, run_model *b, run_cmp *c, char *msg, size_t msglen) {
    run_lines_info ia, ib;
    char why[256];
    /* A summary keeps no line samples (docs/reduce.md): its phases compare,
     * its lines are the run directory's to compare. */
    if (!run_model_has_logs(a) || !run_model_has_logs(b))
        return 0;
    if (run_lines_load(a, NULL, &ia, why, sizeof why) != 0 ||
        run_lines_load(b, NULL, &ib, why, sizeof why) != 0) {
        snprintf(msg, msglen, "%s", why);
        return -1;
    }
    if (!ia.has_lines && !ib.has_lines)
        return 0;
    double z = run_noise_t(c->confidence, INFINITY);
    for (size_t r = 0; r < c->nroles; r++)
        if (compare_role_lines(a, b, &c->roles[r], z) != 0) {
            snprintf(msg, msglen, "out of memory comparing hot lines");
            return -1;
        }
    return 0;
}
