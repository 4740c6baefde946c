/* Regression verdicts for `check`; see run_check.h. */
#include "run_check.h"

#include "text_escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *run_check_metric_name(run_check_metric metric) {
    return phase_figures[metric].name;
}

int run_check_metric_parse(const char *s, run_check_metric *out) {
    int f = phase_fig_named(PF_OUT_CHECK, s);
    if (f < 0)
        return -1;
    *out = (run_check_metric)f;
    return 0;
}

run_check_metric run_check_metric_default(void) {
    enum phase_fig ids[PF_N];
    phase_figures_in(PF_OUT_CHECK, ids);
    return ids[0];
}

const char *run_check_metric_list(char *buf, size_t cap) {
    enum phase_fig ids[PF_N];
    size_t n = phase_figures_in(PF_OUT_CHECK, ids), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < cap; i++) {
        int k = snprintf(buf + used, cap - used, "%s%s",
                         i == 0       ? ""
                         : i + 1 == n ? " or "
                                      : ", ",
                         phase_figures[ids[i]].name);
        used += k > 0 ? (size_t)k : 0;
    }
    return buf;
}

const char *run_check_verdict_name(enum run_check_verdict v) {
    switch (v) {
    case RUN_CHECK_OK:
        break;
    case RUN_CHECK_REGRESSED:
        return "REGRESSED";
    case RUN_CHECK_NOISE:
        return "NOISE";
    case RUN_CHECK_GONE:
        return "GONE";
    case RUN_CHECK_NEW:
        return "NEW";
    case RUN_CHECK_UNMEASURED:
        return "UNMEASURED";
    }
    return "OK";
}

/* Names are matched as the user sees them printed: escaped. */
static int escaped_eq(run_str name, const char *want) {
    char buf[4096];
    size_t need = scope_escape((const uint8_t *)name.s, name.len, buf, sizeof buf, 0);
    return need < sizeof buf && !strcmp(buf, want);
}

/* A full path, or a bare name matching the phase's own name at any depth. */
static int phase_matches(const run_cmp_phase *p, const char *want) {
    if (!strcmp(p->path, want))
        return 1;
    return !strchr(want, '/') && escaped_eq((p->a ? p->a : p->b)->name, want);
}

static void judge(run_check_row *row, const run_check_opts *o, int named) {
    const run_cmp_phase *p = row->phase;
    row->fig = &p->fig[o->metric];
    if (p->side == RUN_CMP_ONLY_A) {
        row->verdict = RUN_CHECK_GONE;
        row->failed = named;
    } else if (p->side == RUN_CMP_ONLY_B) {
        row->verdict = RUN_CHECK_NEW;
    } else if (isnan(row->fig->change)) {
        row->verdict = RUN_CHECK_UNMEASURED;
    } else if (row->fig->change > o->max_regression && row->fig->at_least <= o->max_regression) {
        row->verdict = RUN_CHECK_NOISE; /* NAN (no estimate) compares false */
    } else if (row->fig->change > o->max_regression) {
        row->verdict = RUN_CHECK_REGRESSED;
        row->failed = 1;
    } else {
        row->verdict = RUN_CHECK_OK;
    }
}

/* Whether the phase is watched; marks the --phase arguments it matches. */
static int watched(const run_cmp_phase *p, const run_check_opts *o, char *matched) {
    if (o->nphases == 0)
        return p->fig[PF_SHARE].a >= o->min_share; /* NAN (not in the base) compares false */
    int any = 0;
    for (size_t i = 0; i < o->nphases; i++)
        if (phase_matches(p, o->phases[i]))
            any = matched[i] = 1;
    return any;
}

static void judge_role(run_check *k, const run_cmp_role *r, const run_check_opts *o,
                       char *matched) {
    for (size_t i = 0; i < r->nphases; i++) {
        const run_cmp_phase *p = &r->phases[i];
        if (!watched(p, o, matched))
            continue;
        run_check_row *row = &k->rows[k->nrows++];
        *row = (run_check_row){.role = r, .phase = p};
        judge(row, o, o->nphases > 0);
        k->nfailed += row->failed != 0;
    }
}

static enum run_check_status fail(run_check *k, char *matched, enum run_check_status st) {
    run_check_free(k);
    free(matched);
    return st;
}

enum run_check_status run_check_judge(const run_cmp *c, const run_check_opts *o, run_check **out,
                                      char *msg, size_t msglen) {
    *out = NULL;
    if (msglen)
        msg[0] = '\0';
    size_t most = 0; /* every phase watched: the rows never outgrow this */
    for (size_t r = 0; r < c->nroles; r++)
        most += c->roles[r].nphases;
    run_check *k = calloc(1, sizeof *k);
    char *matched = calloc(o->nphases + 1, 1);
    if (k)
        k->rows = calloc(most + 1, sizeof *k->rows);
    if (!k || !matched || !k->rows)
        return fail(k, matched, RUN_CHECK_NOMEM);
    int role_found = 0;
    for (size_t r = 0; r < c->nroles; r++) {
        if (o->role && !escaped_eq(c->roles[r].name, o->role))
            continue;
        role_found = 1;
        judge_role(k, &c->roles[r], o, matched);
    }
    /* The arguments came from a command line: escaped before they are shown. */
    char arg[512];
    if (o->role && !role_found) {
        scope_escape((const uint8_t *)o->role, strlen(o->role), arg, sizeof arg, 0);
        snprintf(msg, msglen, "no role '%s' in either run", arg);
        return fail(k, matched, RUN_CHECK_NO_ROLE);
    }
    for (size_t i = 0; i < o->nphases; i++)
        if (!matched[i]) {
            scope_escape((const uint8_t *)o->phases[i], strlen(o->phases[i]), arg, sizeof arg, 0);
            snprintf(msg, msglen, "no phase '%s' in either run%s", arg,
                     o->role ? " (in the role asked for)" : "");
            return fail(k, matched, RUN_CHECK_NO_PHASE);
        }
    free(matched);
    *out = k;
    return RUN_CHECK_DONE;
}

void run_check_free(run_check *k) {
    if (!k)
        return;
    free(k->rows);
    free(k);
}
