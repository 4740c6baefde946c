/* The noise in a compared figure; see run_noise.h. */
#include "run_noise.h"

#include <scope/log_hist.h>

#include <math.h>
#include <stdint.h>

#define PI 3.14159265358979323846

int run_noise_has(enum phase_fig f) {
    return f == PF_MEAN || f == PF_TOTAL || f == PF_P50 || f == PF_P99 || f == PF_CPU;
}

const char *run_noise_source_name(enum run_noise_source s) {
    switch (s) {
    case RUN_NOISE_NONE:
        break;
    case RUN_NOISE_ENTRIES:
        return "entries";
    case RUN_NOISE_PROCESSES:
        return "processes";
    case RUN_NOISE_RUNS:
        return "runs";
    }
    return "none";
}

static const run_noise none = {NAN, NAN, NAN, RUN_NOISE_NONE};

/* ---- Student's t ------------------------------------------------------------ */

/* P(|T| < t) for integer df (Abramowitz and Stegun 26.7.3 and 26.7.4): a
 * finite series in cos(theta), exact for every df. */
static double t_central(double t, unsigned df) {
    double theta = atan(t / sqrt((double)df)), c = cos(theta), s = sin(theta), c2 = c * c;
    if (df % 2 == 0) {
        double term = 1, sum = 1;
        for (unsigned k = 1; 2 * k <= df - 2; k++) {
            term *= c2 * (2.0 * k - 1) / (2.0 * k);
            sum += term;
        }
        return s * sum;
    }
    if (df == 1)
        return 2 * theta / PI;
    double term = c, sum = c;
    for (unsigned k = 1; 2 * k + 1 <= df - 2; k++) {
        term *= c2 * (2.0 * k) / (2.0 * k + 1);
        sum += term;
    }
    return 2 / PI * (theta + s * sum);
}

static double normal_central(double z, unsigned df) {
    (void)df;
    return erf(z / sqrt(2.0));
}

/* Bisection: both are increasing in t from 0 at 0 to 1. */
static double central_quantile(double (*cdf)(double, unsigned), unsigned df, double confidence) {
    double lo = 0, hi = 1;
    while (cdf(hi, df) < confidence && hi < 1e12)
        hi *= 2;
    for (int i = 0; i < 100; i++) {
        double mid = (lo + hi) / 2;
        if (cdf(mid, df) < confidence)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

double run_noise_t(double confidence, double df) {
    if (!(confidence > 0 && confidence < 1) || !(df >= 1))
        return NAN;
    if (df >= 1000)
        return central_quantile(normal_central, 0, confidence);
    return central_quantile(t_central, (unsigned)floor(df), confidence);
}

/* ---- within one run ----------------------------------------------------------- */

/* A bucket's midpoint and the variance of a value spread evenly over it
 * (so that entries all in one bucket still carry its width as doubt). */
static double bucket_mid(uint32_t b) {
    return ((double)scope_hist_lower(b) + (double)scope_hist_upper(b)) / 2;
}

static double bucket_var(uint32_t b) {
    double w = (double)scope_hist_upper(b) - (double)scope_hist_lower(b) + 1;
    return w * w / 12;
}

/* The duration at rank r (0 .. n) of the histogram, evenly within its bucket. */
static double at_rank(const run_phase *p, double r) {
    double seen = 0;
    for (size_t i = 0; i < p->nhist; i++) {
        double c = (double)p->hist[i].count;
        if (seen + c >= r && c > 0) {
            double lo = (double)scope_hist_lower(p->hist[i].bucket);
            double hi = (double)scope_hist_upper(p->hist[i].bucket) + 1;
            return lo + (hi - lo) * (r - seen) / c;
        }
        seen += c;
    }
    return p->nhist ? (double)scope_hist_upper(p->hist[p->nhist - 1].bucket) + 1 : NAN;
}

static run_noise from_entries(const run_phase *p, enum phase_fig f, double value) {
    double n = 0, sum = 0, sq = 0, spread = 0;
    for (size_t i = 0; i < p->nhist; i++) {
        double c = (double)p->hist[i].count, m = bucket_mid(p->hist[i].bucket);
        n += c;
        sum += c * m;
        sq += c * m * m;
        spread += c * bucket_var(p->hist[i].bucket);
    }
    if (n < 2 || !(value > 0))
        return none;
    double rel;
    if (f == PF_MEAN || f == PF_TOTAL) {
        double mean = sum / n, var = (sq - n * mean * mean) / (n - 1) + spread / n;
        rel = sqrt(var > 0 ? var : 0) / sqrt(n) / mean;
    } else {
        /* A percentile's rank among n entries moves by sqrt(n q (1 - q)). */
        double q = f == PF_P50 ? 0.50 : 0.99, step = sqrt(n * q * (1 - q));
        double lo = at_rank(p, fmax(0, n * q - step)), hi = at_rank(p, fmin(n, n * q + step));
        rel = (hi - lo) / 2 / value;
    }
    return (run_noise){value, rel, n - 1, RUN_NOISE_ENTRIES};
}

/* A process's own figure: its mean time per entry, or its total. */
static double proc_figure(const run_proc_ns *e, enum phase_fig f) {
    if (f == PF_TOTAL)
        return e->ns;
    if (f == PF_CPU)
        return (double)e->cpu_ns;
    return ((double)e->ns - (double)e->open_ns) / (double)e->count;
}

static run_noise from_processes(const run_phase *p, enum phase_fig f, double value) {
    double k = 0, sum = 0, sq = 0;
    for (size_t i = 0; i < p->nprocs; i++) {
        if (!p->per_proc[i].count)
            continue;
        double x = proc_figure(&p->per_proc[i], f);
        k++;
        sum += x;
        sq += x * x;
    }
    if (k < 2 || !(sum > 0))
        return none;
    double mean = sum / k, var = (sq - k * mean * mean) / (k - 1);
    double rel = sqrt(var > 0 ? var : 0) / mean / sqrt(k);
    return (run_noise){value, rel, k - 1, RUN_NOISE_PROCESSES};
}

run_noise run_noise_within(const run_phase *p, enum phase_fig f) {
    if (!p || !run_noise_has(f))
        return none;
    double value = phase_fig_value(p, f);
    if (isnan(value))
        return none;
    /* The histogram holds wall time: it says nothing of CPU time. */
    run_noise e = f == PF_CPU ? none : from_entries(p, f, value), k = from_processes(p, f, value);
    run_noise out = none;
    if (!isnan(k.rel_se) && !(e.rel_se > k.rel_se))
        out = k;
    else if (!isnan(e.rel_se))
        out = e;
    out.value = value;
    return out;
}

/* ---- several runs ------------------------------------------------------------- */

run_noise run_noise_base(const double *values, size_t nvalues, run_noise first,
                         run_noise *per_run) {
    *per_run = none;
    double r = 0, sum = 0, sq = 0;
    for (size_t i = 0; i < nvalues; i++)
        if (isfinite(values[i]) && values[i] > 0) {
            r++;
            sum += values[i];
            sq += values[i] * values[i];
        }
    if (r < 2)
        return first;
    double mean = sum / r, var = (sq - r * mean * mean) / (r - 1);
    *per_run = (run_noise){mean, sqrt(var > 0 ? var : 0) / mean, r - 1, RUN_NOISE_RUNS};
    /* The mean of r runs: both its spreads shrink by sqrt(r). */
    run_noise base = first;
    base.value = mean;
    base.rel_se = first.rel_se / sqrt(r);
    if (isnan(base.rel_se) || per_run->rel_se / sqrt(r) >= base.rel_se)
        base = (run_noise){mean, per_run->rel_se / sqrt(r), r - 1, RUN_NOISE_RUNS};
    return base;
}

run_noise run_noise_candidate(run_noise within, run_noise per_run) {
    if (per_run.source != RUN_NOISE_RUNS || isnan(within.value) ||
        (!isnan(within.rel_se) && within.rel_se > per_run.rel_se))
        return within;
    return (run_noise){within.value, per_run.rel_se, per_run.df, RUN_NOISE_RUNS};
}

/* ---- the change -------------------------------------------------------------- */

/* The change's log L, its standard error *s and degrees of freedom *df;
 * 0, or -1 when either side has no estimate or a figure is not above 0. */
static int change_spread(run_noise a, run_noise b, double *l, double *s, double *df) {
    if (!(a.value > 0) || !(b.value > 0) || !isfinite(a.value) || !isfinite(b.value) ||
        isnan(a.rel_se) || isnan(b.rel_se))
        return -1;
    double va = a.rel_se * a.rel_se, vb = b.rel_se * b.rel_se;
    *l = log(b.value / a.value);
    *s = sqrt(va + vb);
    if (a.source == RUN_NOISE_RUNS && b.source == RUN_NOISE_RUNS) {
        /* Both sides scale the one spread of the base runs (the base's mean
         * by 1 / runs, the candidate's one run by 1): one estimate, with its
         * own degrees of freedom, not two independent ones. */
        *df = fmin(a.df, b.df);
        return 0;
    }
    /* Welch-Satterthwaite; a side of infinite df adds nothing to the sum. */
    double den = (va > 0 ? va * va / a.df : 0) + (vb > 0 ? vb * vb / b.df : 0);
    *df = den > 0 ? (va + vb) * (va + vb) / den : INFINITY;
    return 0;
}

void run_noise_interval(run_noise a, run_noise b, double confidence, double *lo, double *hi) {
    *lo = *hi = NAN;
    double l, s, df;
    if (change_spread(a, b, &l, &s, &df) != 0)
        return;
    double t = run_noise_t(confidence, df);
    if (isnan(t))
        return;
    *lo = expm1(l - t * s);
    *hi = expm1(l + t * s);
}

double run_noise_at_least(run_noise a, run_noise b, double confidence) {
    double l, s, df;
    if (change_spread(a, b, &l, &s, &df) != 0)
        return NAN;
    /* P(T < t) = confidence is the two-sided quantile at 2 confidence - 1. */
    double t = confidence > 0.5 ? run_noise_t(2 * confidence - 1, df) : 0;
    return isnan(t) ? NAN : expm1(l - t * s);
}

double run_noise_bound_confidence(run_noise per_run, double confidence) {
    return per_run.source == RUN_NOISE_RUNS ? confidence : (1 + confidence) / 2;
}
