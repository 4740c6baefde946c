/*
 * The Overview view: the run's header in full, its trace windows, its
 * attempts, and every caveat in plain words: what the figures elsewhere can
 * and cannot be trusted for.
 */
#include "fmt.h"
#include "hot_lines.h"
#include "style.h"
#include "text_view.h"

#include <scope/log_format.h>
#include <stdio.h>
#include <string.h>

/* The trace windows (SCOPE_TRACE) of the newest attempt's processes: how
 * each went, and the command that opens them where a timeline reads best. */
static void fill_traces(const run_model *m, text_lines *t) {
    static const char *const states[] = {"waiting", "open", "closed", "capped"};
    size_t n = 0;
    for (size_t i = 0; i < m->nworkers; i++)
        n += m->workers[i].role_index != SIZE_MAX && m->workers[i].trace_state >= 0;
    if (!n)
        return;
    char role[512], phase[256], d[64], ev[64], lost[64];
    text_add(t, TH_ROLE, 0, "TRACE WINDOWS (%zu of %zu process%s)", n, m->nprocs,
             m->nprocs == 1 ? "" : "es");
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        if (w->role_index == SIZE_MAX || w->trace_state < 0)
            continue;
        run_worker_label(m, i, role, sizeof role);
        style_escape(w->trace_phase, phase, sizeof phase);
        uint64_t span = w->trace_end_mono_ns > w->trace_start_mono_ns
                            ? w->trace_end_mono_ns - w->trace_start_mono_ns
                            : 0;
        lost[0] = '\0';
        if (w->trace_lost)
            snprintf(lost, sizeof lost, ", %s more not kept",
                     fmt_ucount(d, sizeof d, w->trace_lost));
        text_add(t, w->trace_state == SCOPE_TRACE_CAPPED ? TH_WARN : TH_NORMAL, 4,
                 "  %s: %s %llu-%llu, %s%s%s, %s events%s", role, phase,
                 (unsigned long long)w->trace_first, (unsigned long long)w->trace_last,
                 w->trace_state < 4 ? states[w->trace_state] : "unknown", span ? " after " : "",
                 span ? fmt_duration(d, sizeof d, (double)span) : "",
                 fmt_ucount(ev, sizeof ev, w->trace_events), lost);
    }
    style_escape((run_str){m->dir, strlen(m->dir)}, role, sizeof role);
    text_add(t, TH_DIM, 4,
             "  every event, as a timeline in Perfetto or chrome://tracing: "
             "scope-tui export %s --format chrome -o trace.json",
             role);
    text_add(t, TH_NORMAL, 0, "%s", "");
}

/* What an attempt's line says of it: shown or not, newest or older. */
static const char *attempt_note(const run_model *m, size_t i) {
    int newest = i + 1 == m->nattempts;
    if (i == m->shown_attempt)
        return newest ? "  (newest: the one shown)" : "  (older: the one shown, chosen)";
    return newest ? "  (newest: not merged)" : "  (older: not merged)";
}

static void fill_overview(view *v, text_lines *t) {
    const run_model *m = v->app->model;
    char a[1024], b[256], c[64];
    text_add(t, TH_ROLE, 0, "RUN");
    style_escape((run_str){m->dir, strlen(m->dir)}, a, sizeof a);
    text_add(t, TH_NORMAL, 15, "  directory    %s", a);
    if (m->source.len) {
        style_escape(m->source, a, sizeof a);
        text_add(t, TH_NORMAL, 15, "  source       %s", a);
    }
    if (m->nattempts) {
        style_escape(m->attempts[m->shown_attempt].run_id, a, sizeof a);
        text_add(t, TH_NORMAL, 15, "  run id       %s", a);
    }
    text_add(t, TH_NORMAL, 15, "  started      %s%s", fmt_wall(b, sizeof b, m->start_wall_ns),
             m->start_wall_ns ? " UTC" : "");
    text_add(t, TH_NORMAL, 15, "  last frame   %s UTC", fmt_wall(b, sizeof b, m->end_wall_ns));
    text_add(t, TH_NORMAL, 15, "  runtime      %s",
             fmt_duration(b, sizeof b, (double)m->runtime_ns));
    size_t len = 0;
    a[0] = '\0';
    for (size_t r = 0; r < m->nroles && len < sizeof a - 300; r++) {
        style_escape(m->roles[r].name, b, sizeof b);
        len += (size_t)snprintf(a + len, sizeof a - len, "%s%s x%zu", r ? ", " : "", b,
                                m->roles[r].nprocs);
    }
    text_add(t, TH_NORMAL, 15, "  processes    %zu (%s)%s", m->nprocs, m->nroles ? a : "no roles",
             m->roles_by_samples && m->nroles > 1 ? ", roles by line samples, most first" : "");
    len = 0;
    a[0] = '\0';
    for (size_t h = 0; h < m->nhosts && len < sizeof a - 300; h++) {
        style_escape(m->hosts[h], b, sizeof b);
        len += (size_t)snprintf(a + len, sizeof a - len, "%s%s", h ? ", " : "", b);
    }
    text_add(t, TH_NORMAL, 15, "  hosts        %zu: %s", m->nhosts, a);
    if (m->nranked)
        text_add(t, TH_NORMAL, 15, "  ranks        %d-%d (%zu of %zu process%s %s one)",
                 m->rank_min, m->rank_max, m->nranked, m->nprocs, m->nprocs == 1 ? "" : "es",
                 m->nranked == 1 ? "has" : "have");
    else
        text_add(t, TH_NORMAL, 15, "  ranks        none (no launcher gave ranks)");
    if (m->job_id.len) {
        style_escape(m->job_id, a, sizeof a);
        text_add(t, TH_NORMAL, 15, "  job          %s%s", a,
                 m->njob_ids > 1 ? " (and other job ids: processes disagree)" : "");
    }
    if (m->launcher.len) {
        style_escape(m->launcher, a, sizeof a);
        text_add(t, TH_NORMAL, 15, "  launcher     %s", a);
    }
    len = 0;
    a[0] = '\0';
    for (size_t s = 0; s < m->nsteps && len < sizeof a - 300; s++) {
        style_escape(m->steps[s], b, sizeof b);
        len += (size_t)snprintf(a + len, sizeof a - len, "%s%s", s ? ", " : "", b);
    }
    if (m->nsteps)
        text_add(t, TH_NORMAL, 15, "  %-13s%s", m->nsteps == 1 ? "step" : "steps", a);
    if (m->array_job_id.len) {
        style_escape(m->array_job_id, a, sizeof a);
        text_add(t, TH_NORMAL, 15, "  array        %s, task %d", a, m->array_task);
    }
    if (m->restarts > 0)
        text_add(t, TH_NORMAL, 15, "  restarts     %d (the launcher restarted the job)",
                 m->restarts);
    text_add(t, TH_NORMAL, 0, "%s", "");

    fill_traces(m, t);

    text_add(t, TH_ROLE, 0, "ATTEMPTS (%zu)%s", m->nattempts,
             m->nattempts > 1 ? "  A: show the next one (--attempt N on the command line)" : "");
    for (size_t i = 0; i < m->nattempts; i++) {
        const run_attempt *at = &m->attempts[i];
        style_escape(at->run_id, a, sizeof a);
        text_add(t, i == m->shown_attempt ? TH_NORMAL : TH_DIM, 6,
                 "  %zu  %s  %zu process%s  from %s UTC, %s%s", i + 1, a, at->nworkers,
                 at->nworkers == 1 ? "" : "es", fmt_wall(b, sizeof b, at->start_wall_ns),
                 fmt_duration(c, sizeof c,
                              (double)(at->end_wall_ns > at->start_wall_ns
                                           ? at->end_wall_ns - at->start_wall_ns
                                           : 0)),
                 attempt_note(m, i));
    }
    text_add(t, TH_NORMAL, 0, "%s", "");

    /* The run's caveats, as the header counts them; then those the line
     * samples' loading found (symbols, debug info), once Lines was opened. */
    size_t own = app_run_caveats(v->app);
    text_add(t, TH_ROLE, 0, "CAVEATS (%zu)", own);
    if (!own)
        text_add(t, TH_NORMAL, 2,
                 "  none: every process shut down cleanly and every log was read whole");
    for (size_t i = 0; i < m->ncaveats; i++) {
        if (i == own) {
            text_add(t, TH_NORMAL, 0, "%s", "");
            text_add(t, TH_ROLE, 0, "LINE CAVEATS (%zu), found reading the line samples",
                     m->ncaveats - own);
        }
        text_add(t, m->caveats[i].kind == RUN_CAVEAT_UNREADABLE ? TH_ERROR : TH_WARN, 4, "  %s: %s",
                 run_caveat_kind_name(m->caveats[i].kind), m->caveats[i].text);
    }
}

static int overview_init(view *v) {
    return text_view_init(v, fill_overview);
}

const view_ops overview_view_ops = TEXT_VIEW_OPS(overview_init);
