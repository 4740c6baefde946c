/* The comparison of two runs; see run_compare.h. */
#include "run_compare.h"

#include "run_noise.h"
#include "run_resources.h"

#include <scope/log_format.h>

#include <math.h>
#include <scope/vec.h>
#include <stdlib.h>
#include <string.h>

#define PATH_CAP 4096

int run_cmp_fig_beyond_noise(const run_cmp_fig *f) {
    return f->lo > 0 ? 1 : f->hi < 0 ? -1 : 0; /* NAN compares false either way */
}

run_cmp_fig run_cmp_figure(double a, double b) {
    run_cmp_fig f = {a, b, NAN, NAN, NAN, NAN, NAN, NAN};
    if (isnan(a) || isnan(b))
        return f;
    f.delta = b - a;
    if (a != 0)
        f.change = f.delta / fabs(a); /* the sign says which way it moved */
    else
        f.change = b == 0 ? 0.0 : b > 0 ? INFINITY : -INFINITY;
    return f;
}

const char *run_cmp_side_name(enum run_cmp_side side) {
    switch (side) {
    case RUN_CMP_BOTH:
        break;
    case RUN_CMP_ONLY_A:
        return "only_in_a";
    case RUN_CMP_ONLY_B:
        return "only_in_b";
    }
    return "both";
}

static enum run_cmp_side side_of(const void *a, const void *b) {
    return a && b ? RUN_CMP_BOTH : a ? RUN_CMP_ONLY_A : RUN_CMP_ONLY_B;
}

/* A figure of a phase (or counter) that may be missing on one side. */
#define SIDE(p, expr) ((p) ? (double)(expr) : NAN)

/* ---- counters ------------------------------------------------------------ */

static const run_counter *find_counter(const run_phase *p, run_str name) {
    for (size_t i = 0; p && i < p->ncounters; i++)
        if (run_str_eq(p->counters[i].name, name))
            return &p->counters[i];
    return NULL;
}

static run_cmp_counter counter_row(const run_counter *a, const run_counter *b) {
    run_cmp_counter c = {.name = a ? a->name : b->name, .side = side_of(a, b)};
    c.rate_per_s = run_cmp_figure(SIDE(a, a->rate_per_s), SIDE(b, b->rate_per_s));
    c.total = run_cmp_figure(SIDE(a, a->total), SIDE(b, b->total));
    c.calls = run_cmp_figure(SIDE(a, a->calls), SIDE(b, b->calls));
    return c;
}

static int counter_cmp(const void *x, const void *y) {
    return run_str_cmp(((const run_cmp_counter *)x)->name, ((const run_cmp_counter *)y)->name);
}

/* Counters are few per phase: a linear search per name is cheaper than
 * relying on both runs sorting names the same way. */
static int compare_counters(run_cmp_phase *row) {
    const run_phase *a = row->a, *b = row->b;
    size_t na = a ? a->ncounters : 0, nb = b ? b->ncounters : 0;
    if (na + nb == 0)
        return 0;
    row->counters = calloc(na + nb, sizeof *row->counters);
    if (!row->counters)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < na; i++)
        row->counters[n++] = counter_row(&a->counters[i], find_counter(b, a->counters[i].name));
    for (size_t i = 0; i < nb; i++)
        if (!find_counter(a, b->counters[i].name))
            row->counters[n++] = counter_row(NULL, &b->counters[i]);
    row->ncounters = n;
    qsort(row->counters, n, sizeof *row->counters, counter_cmp);
    return 0;
}

/* ---- phases -------------------------------------------------------------- */

typedef struct phase_rows {
    run_cmp_phase *v;
    size_t n, cap;
    double confidence;
    size_t nmore; /* more base runs: each walk level has their namesakes of a */
} phase_rows;

/* Figure f with its interval: from a and b alone, or, with more base runs
 * (more[i] the phase in each of them, NULL where missing), side A as the
 * mean over every base run and the spread between them as noise. */
static void noisy_figure(run_cmp_phase *row, const phase_rows *rows, const run_phase *const *more,
                         enum phase_fig f) {
    const run_phase *a = row->a, *b = row->b;
    run_noise na = run_noise_within(a, f), nb = run_noise_within(b, f);
    run_noise per_run = {NAN, NAN, NAN, RUN_NOISE_NONE}; /* unmeasured with one base run */
    if (a && rows->nmore) {
        /* A few base runs; more than RUN_CMP_MAX_BASE is refused by the commands. */
        double values[RUN_CMP_MAX_BASE];
        size_t n = 0;
        values[n++] = na.value;
        for (size_t i = 0; i < rows->nmore && n < RUN_CMP_MAX_BASE; i++)
            values[n++] = more[i] ? phase_fig_value(more[i], f) : NAN;
        na = run_noise_base(values, n, na, &per_run);
        nb = run_noise_candidate(nb, per_run);
        row->fig[f] = run_cmp_figure(na.value, row->fig[f].b);
    }
    run_noise_interval(na, nb, rows->confidence, &row->fig[f].lo, &row->fig[f].hi);
    double bound = run_noise_bound_confidence(per_run, rows->confidence);
    row->fig[f].at_least = run_noise_at_least(na, nb, bound);
    row->fig[f].at_least_confidence = isnan(row->fig[f].at_least) ? NAN : bound;
    row->noise_a[f] = (unsigned char)na.source;
    row->noise_b[f] = (unsigned char)nb.source;
}

static int add_phase(phase_rows *rows, const run_phase *a, const run_phase *b,
                     const run_phase *const *more) {
    if (SCOPE_VEC_RESERVE(rows->v, rows->cap, rows->n + 1) < 0)
        return -1;
    const run_phase *p = a ? a : b;
    run_cmp_phase *row = &rows->v[rows->n];
    *row = (run_cmp_phase){.a = a, .b = b, .side = side_of(a, b), .depth = p->depth};
    char path[PATH_CAP];
    row->path = strdup(run_phase_path(p, path, sizeof path));
    if (!row->path)
        return -1;
    rows->n++; /* counted now, so a failure below still frees the path */
    for (int f = 0; f < PF_N; f++)
        row->fig[f] =
            run_cmp_figure(SIDE(a, phase_fig_value(a, f)), SIDE(b, phase_fig_value(b, f)));
    for (int f = 0; f < PF_N; f++)
        if (run_noise_has((enum phase_fig)f))
            noisy_figure(row, rows, more, (enum phase_fig)f);
    row->impact_ns = fabs((b ? (double)b->dist.total_ns : 0) - (a ? (double)a->dist.total_ns : 0));
    const run_phase *ia = a && a->io_measured ? a : NULL, *ib = b && b->io_measured ? b : NULL;
    row->io = ia || ib;
    row->io_disk_read = run_cmp_figure(SIDE(ia, ia->disk_read), SIDE(ib, ib->disk_read));
    row->io_disk_write = run_cmp_figure(SIDE(ia, ia->disk_write), SIDE(ib, ib->disk_write));
    row->io_cache_read = run_cmp_figure(SIDE(ia, ia->cache_read), SIDE(ib, ib->cache_read));
    row->io_disk_bytes_per_s =
        run_cmp_figure(SIDE(ia, ia->disk_bytes_per_s), SIDE(ib, ib->disk_bytes_per_s));
    return compare_counters(row);
}

static int by_name(const void *x, const void *y) {
    return run_str_cmp((*(const run_phase *const *)x)->name, (*(const run_phase *const *)y)->name);
}

/* A phase's children sorted by name, to find a namesake by bisection: a
 * phase may have hundreds of thousands of children (a name per request),
 * and a scan for each of them made comparing quadratic.  *out is NULL for
 * no phase or no children.  0, or -1 when out of memory. */
static int by_name_of(const run_phase *p, const run_phase ***out) {
    *out = NULL;
    if (!p || !p->nchildren)
        return 0;
    const run_phase **v = malloc(p->nchildren * sizeof *v);
    if (!v)
        return -1;
    memcpy(v, p->children, p->nchildren * sizeof *v);
    qsort(v, p->nchildren, sizeof *v, by_name);
    *out = v;
    return 0;
}

/* The child of p named like `like` (names are unique among siblings),
 * from p's children sorted by name; NULL when none. */
static const run_phase *namesake(const run_phase *p, const run_phase **sorted,
                                 const run_phase *like) {
    const run_phase **hit =
        sorted ? bsearch(&like, sorted, p->nchildren, sizeof *sorted, by_name) : NULL;
    return hit ? *hit : NULL;
}

/* The namesakes of `like` among the children of each more[i] (NULL where
 * missing), into out.  A linear search: only with several base runs. */
static void namesakes_in(const phase_rows *rows, const run_phase *const *more,
                         const run_phase *like, const run_phase **out) {
    for (size_t i = 0; i < rows->nmore; i++)
        out[i] = more[i] ? run_phase_child(more[i], like->name.s, like->name.len) : NULL;
}

/* Walks the children of a and b (either may be NULL) together: A's children
 * with their namesakes in B (and in the more base runs, whose phases at a's
 * place are more[]), then B's children that A lacks. */
static int walk(phase_rows *rows, const run_phase *a, const run_phase *b,
                const run_phase *const *more) {
    const run_phase **sa, **sb;
    if (by_name_of(a, &sa) < 0 || by_name_of(b, &sb) < 0) {
        free(sa);
        return -1;
    }
    const run_phase **cmore = rows->nmore ? calloc(rows->nmore, sizeof *cmore) : NULL;
    int rc = rows->nmore && !cmore ? -1 : 0;
    for (size_t i = 0; rc == 0 && a && i < a->nchildren; i++) {
        const run_phase *ca = a->children[i], *cb = namesake(b, sb, ca);
        namesakes_in(rows, more, ca, cmore);
        rc = add_phase(rows, ca, cb, cmore) || walk(rows, ca, cb, cmore) ? -1 : 0;
    }
    for (size_t i = 0; rc == 0 && b && i < b->nchildren; i++) {
        const run_phase *cb = b->children[i];
        if (namesake(a, sa, cb))
            continue;
        for (size_t k = 0; k < rows->nmore; k++)
            cmore[k] = NULL;
        rc = add_phase(rows, NULL, cb, cmore) || walk(rows, NULL, cb, cmore) ? -1 : 0;
    }
    free(cmore);
    free(sa);
    free(sb);
    return rc;
}

static double larger_total(const run_cmp_fig *f) {
    double a = isnan(f->a) ? 0 : f->a, b = isnan(f->b) ? 0 : f->b;
    return a > b ? a : b;
}

static int by_impact(double ia, double ib, double ta, double tb) {
    if (ia != ib)
        return ia > ib ? -1 : 1;
    if (ta != tb)
        return ta > tb ? -1 : 1;
    return 0;
}

static int phase_cmp(const void *x, const void *y) {
    const run_cmp_phase *p = x, *q = y;
    int c = by_impact(p->impact_ns, q->impact_ns, larger_total(&p->fig[PF_TOTAL]),
                      larger_total(&q->fig[PF_TOTAL]));
    return c ? c : strcmp(p->path, q->path);
}

/* ---- roles --------------------------------------------------------------- */

static const run_role *find_role(const run_model *m, run_str name) {
    for (size_t i = 0; i < m->nroles; i++)
        if (run_str_eq(m->roles[i].name, name))
            return &m->roles[i];
    return NULL;
}

/* A sampled byte count, NAN on a side that did not measure it. */
static double res_bytes(const run_res *r, uint32_t bits, uint64_t v) {
    return r && r->nsampled && (r->present & bits) == bits ? (double)v : NAN;
}

static double res_rate(const run_res *r, double v) {
    return r && r->nsampled ? v : NAN;
}

static int add_gpu(run_cmp_role *row, const run_res_gpu *g, int side_b) {
    size_t i = 0;
    while (i < row->ngpus &&
           !(row->gpus[i].index == g->index && run_str_eq(row->gpus[i].host, g->host)))
        i++;
    if (i == row->ngpus) {
        /* Exactly one more: a role has a few GPUs at most. */
        if (SCOPE_VEC_RESIZE(row->gpus, row->ngpus + 1) < 0)
            return -1;
        row->gpus[row->ngpus++] = (run_cmp_gpu){.host = g->host,
                                                .index = g->index,
                                                .busy = run_cmp_figure(NAN, NAN),
                                                .this_run = run_cmp_figure(NAN, NAN)};
    }
    run_cmp_gpu *e = &row->gpus[i];
    if (side_b) {
        e->busy = run_cmp_figure(e->busy.a, g->busy_mean);
        e->this_run = run_cmp_figure(e->this_run.a, g->run_mean);
    } else {
        e->busy = run_cmp_figure(g->busy_mean, e->busy.b);
        e->this_run = run_cmp_figure(g->run_mean, e->this_run.b);
    }
    return 0;
}

/* The role's sampled figures on both sides. */
static int compare_resources(run_cmp_role *row, const run_model *ma, const run_role *a,
                             const run_model *mb, const run_role *b) {
    if ((a && ma->no_samples) || (b && mb->no_samples))
        return 0;
    run_res *ra = a ? run_res_of(ma, a->workers, a->nprocs) : NULL;
    run_res *rb = b ? run_res_of(mb, b->workers, b->nprocs) : NULL;
    int rc = (a && !ra) || (b && !rb) ? -1 : 0;
    row->res = (ra && ra->nsampled) || (rb && rb->nsampled);
    const uint32_t dr = SCOPE_RES_DISK_READ, cr = SCOPE_RES_DISK_READ | SCOPE_RES_CHAR_READ,
                   dw = SCOPE_RES_DISK_WRITE;
#define RES_FIG(field, bits, expr)                                                                 \
    row->field = run_cmp_figure(res_bytes(ra, bits, ra ? ra->expr : 0),                            \
                                res_bytes(rb, bits, rb ? rb->expr : 0))
    RES_FIG(disk_read, dr, io.disk_read);
    RES_FIG(cache_read, cr, io.cache_read);
    RES_FIG(disk_write, dw, io.disk_write);
#undef RES_FIG
    row->disk_read_per_s = run_cmp_figure(res_rate(ra, ra ? ra->disk_read_per_s : NAN),
                                          res_rate(rb, rb ? rb->disk_read_per_s : NAN));
    row->cache_read_per_s = run_cmp_figure(res_rate(ra, ra ? ra->cache_read_per_s : NAN),
                                           res_rate(rb, rb ? rb->cache_read_per_s : NAN));
    row->disk_write_per_s = run_cmp_figure(res_rate(ra, ra ? ra->disk_write_per_s : NAN),
                                           res_rate(rb, rb ? rb->disk_write_per_s : NAN));
    for (size_t i = 0; rc == 0 && ra && i < ra->ngpus; i++)
        rc = add_gpu(row, &ra->gpus[i], 0);
    for (size_t i = 0; rc == 0 && rb && i < rb->ngpus; i++)
        rc = add_gpu(row, &rb->gpus[i], 1);
    /* The hosts' names are the models' own, which outlive the comparison. */
    run_res_free(ra);
    run_res_free(rb);
    return rc;
}

static int compare_role(run_cmp_role *row, const run_model *ma, const run_role *a,
                        const run_model *mb, const run_role *b, const run_cmp_opts *o) {
    *row = (run_cmp_role){.name = a ? a->name : b->name, .a = a, .b = b, .side = side_of(a, b)};
    row->phase_ns = run_cmp_figure(SIDE(a, a->phase_ns), SIDE(b, b->phase_ns));
    row->nprocs = run_cmp_figure(SIDE(a, a->nprocs), SIDE(b, b->nprocs));
    row->impact_ns = fabs((b ? (double)b->phase_ns : 0) - (a ? (double)a->phase_ns : 0));
    phase_rows rows = {.confidence = o->confidence, .nmore = o->nmore_a};
    /* The role's root in each more base run, where it has the role. */
    const run_phase **more = o->nmore_a ? calloc(o->nmore_a, sizeof *more) : NULL;
    if (o->nmore_a && !more)
        return -1;
    for (size_t i = 0; a && i < o->nmore_a; i++) {
        const run_role *r = find_role(o->more_a[i], a->name);
        more[i] = r ? r->root : NULL;
    }
    int rc = walk(&rows, a ? a->root : NULL, b ? b->root : NULL, more);
    free(more);
    row->phases = rows.v;
    row->nphases = rows.n;
    if (rc == 0 && row->nphases) /* qsort wants a real array even for none */
        qsort(row->phases, row->nphases, sizeof *row->phases, phase_cmp);
    if (rc == 0)
        rc = compare_resources(row, ma, a, mb, b);
    return rc;
}

static int role_cmp(const void *x, const void *y) {
    const run_cmp_role *p = x, *q = y;
    int c = by_impact(p->impact_ns, q->impact_ns, larger_total(&p->phase_ns),
                      larger_total(&q->phase_ns));
    return c ? c : run_str_cmp(p->name, q->name);
}

run_cmp *run_compare(const run_model *a, const run_model *b) {
    return run_compare_with(a, b, &(run_cmp_opts){0});
}

run_cmp *run_compare_with(const run_model *a, const run_model *b, const run_cmp_opts *opts) {
    run_cmp_opts o = *opts;
    if (!(o.confidence > 0))
        o.confidence = 0.95;
    run_cmp *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->a = a, c->b = b;
    c->confidence = o.confidence;
    c->nbase = 1 + o.nmore_a;
    if (a->nroles + b->nroles) {
        c->roles = calloc(a->nroles + b->nroles, sizeof *c->roles);
        if (!c->roles)
            goto fail;
    }
    for (size_t i = 0; i < a->nroles; i++)
        if (compare_role(&c->roles[c->nroles++], a, &a->roles[i], b, find_role(b, a->roles[i].name),
                         &o))
            goto fail;
    for (size_t i = 0; i < b->nroles; i++)
        if (!find_role(a, b->roles[i].name) &&
            compare_role(&c->roles[c->nroles++], a, NULL, b, &b->roles[i], &o))
            goto fail;
    if (c->nroles)
        qsort(c->roles, c->nroles, sizeof *c->roles, role_cmp);
    return c;
fail:
    run_cmp_free(c);
    return NULL;
}

void run_cmp_free(run_cmp *c) {
    if (!c)
        return;
    for (size_t r = 0; r < c->nroles; r++) {
        for (size_t i = 0; i < c->roles[r].nphases; i++) {
            free(c->roles[r].phases[i].path);
            free(c->roles[r].phases[i].counters);
        }
        free(c->roles[r].phases);
        free(c->roles[r].gpus);
        if (c->roles[r].lines)
            free(c->roles[r].lines->v);
        free(c->roles[r].lines);
    }
    free(c->roles);
    free(c);
}
