/*
 * Caveats: every reason a figure may be less than the whole truth, worded
 * plainly and naming the worker.  The views print these sentences as they
 * are, so the wording lives here once.
 *
 * Staleness is derived here, at load time, from the other workers: a worker
 * that did not shut down and whose last frame is much older than the run's
 * end stopped writing (a lost node, SIGSTOP, a hang in the kernel) while
 * the others went on.
 */
#define _GNU_SOURCE /* sigabbrev_np */
#include "run_caveats.h"

#include "fmt.h"
#include "run_live.h"
#include "text_escape.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <scope/vec.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[RUN_CAVEAT_KIND_LIMIT] = {
    [RUN_CAVEAT_UNREADABLE] = "unreadable", [RUN_CAVEAT_NO_IDENTITY] = "no-identity",
    [RUN_CAVEAT_DAMAGED] = "damaged",       [RUN_CAVEAT_TRUNCATED] = "truncated",
    [RUN_CAVEAT_KILLED] = "killed",         [RUN_CAVEAT_SIGNALED] = "signaled",
    [RUN_CAVEAT_STALE] = "stale",           [RUN_CAVEAT_UNBALANCED] = "unbalanced",
    [RUN_CAVEAT_DROPPED] = "dropped",       [RUN_CAVEAT_FLUSH_FAILED] = "flush-failed",
    [RUN_CAVEAT_RECORDER] = "recorder",     [RUN_CAVEAT_INCONSISTENT] = "inconsistent",
    [RUN_CAVEAT_SUPERSEDED] = "superseded", [RUN_CAVEAT_LINES] = "lines",
    [RUN_CAVEAT_RESOURCES] = "resources",   [RUN_CAVEAT_CAPPED] = "capped",
};

static_assert(sizeof kind_names / sizeof kind_names[0] == RUN_CAVEAT_KIND_LIMIT,
              "a name for every caveat kind");

const char *run_end_name(enum run_end end) {
    switch (end) {
    case RUN_END_EXIT:
        return "exit";
    case RUN_END_SIGNAL:
        return "signal";
    case RUN_END_KILLED:
        return "killed";
    case RUN_END_RUNNING:
        return "running";
    case RUN_END_UNKNOWN:
        break;
    }
    return "unknown";
}

const char *run_caveat_kind_name(enum run_caveat_kind kind) {
    return (unsigned)kind < RUN_CAVEAT_KIND_LIMIT ? kind_names[kind] : "unknown";
}

const char *run_worker_label(const run_model *m, size_t worker, char *buf, size_t cap) {
    const run_worker *w = &m->workers[worker];
    char role[128], host[128];
    if (!w->has_process) {
        fmt_name(buf, cap, w->path);
        return buf;
    }
    fmt_name(role, sizeof role, w->role);
    fmt_name(host, sizeof host, w->host);
    if (w->rank >= 0 && w->pid <= 0) /* a source that keeps no pid (an imported file) */
        snprintf(buf, cap, "%s rank %d (on %s)", role, w->rank, host);
    else if (w->rank >= 0)
        snprintf(buf, cap, "%s rank %d (pid %" PRId64 " on %s)", role, w->rank, w->pid, host);
    else
        snprintf(buf, cap, "%s pid %" PRId64 " on %s", role, w->pid, host);
    return buf;
}

typedef struct caveat_list {
    run_model *m;
    arena *mem; /* the texts */
    int nomem;
} caveat_list;

static void add(caveat_list *l, enum run_caveat_kind kind, size_t worker, const char *fmt, ...) {
    run_model *m = l->m;
    if (l->nomem)
        return;
    if (SCOPE_VEC_RESERVE(m->caveats, m->cap_caveats, m->ncaveats + 1) < 0) {
        l->nomem = 1;
        return;
    }
    char text[1024];
    char label[400] = "";
    if (worker != SIZE_MAX)
        run_worker_label(m, worker, label, sizeof label);
    int n = snprintf(text, sizeof text, "%s%s", label, worker != SIZE_MAX ? ": " : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
    va_end(ap);
    char *s = arena_dup(l->mem, text, strlen(text));
    if (!s) {
        l->nomem = 1;
        return;
    }
    m->caveats[m->ncaveats++] = (run_caveat){kind, worker, s};
    if (worker != SIZE_MAX)
        m->workers[worker].ncaveats++;
}

static void superseded(caveat_list *l) {
    run_model *m = l->m;
    if (m->nattempts < 2)
        return;
    char list[700] = "";
    size_t used = 0;
    for (size_t a = 0; a < m->nattempts && used < sizeof list - 1; a++) {
        if (a == m->shown_attempt)
            continue;
        const run_attempt *at = &m->attempts[a];
        char id[80], when[32];
        fmt_name(id, sizeof id, at->run_id);
        fmt_wall(when, sizeof when, at->start_wall_ns);
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s (%zu process%s, %s UTC)",
                                 used ? ", " : "", id, at->nworkers, at->nworkers == 1 ? "" : "es",
                                 when);
    }
    size_t others = m->nattempts - 1;
    if (m->shown_attempt + 1 == m->nattempts)
        add(l, RUN_CAVEAT_SUPERSEDED, SIZE_MAX,
            "%zu earlier attempt%s in this directory %s shown or merged (--attempt N, or A in "
            "the Overview, shows one): %s",
            others, others == 1 ? "" : "s", others == 1 ? "is not" : "are not", list);
    else
        add(l, RUN_CAVEAT_SUPERSEDED, SIZE_MAX,
            "attempt %zu of %zu is shown, as chosen; the other%s %s not merged: %s",
            m->shown_attempt + 1, m->nattempts, others == 1 ? "" : "s", others == 1 ? "is" : "are",
            list);
}

static void damage(caveat_list *l, size_t i, const worker_log *log) {
    const run_worker *w = &l->m->workers[i];
    uint64_t damaged = 0, damaged_lost = 0;
    size_t stretches = 0;
    for (size_t d = 0; d < log->ndamage; d++) {
        if (log->damage[d].truncated)
            continue;
        damaged += log->damage[d].length;
        damaged_lost += log->damage[d].frames_lost;
        stretches++;
    }
    char bytes[32];
    if (log->snapshot_damaged)
        add(l, RUN_CAVEAT_DAMAGED, i,
            "its newest snapshot (byte %" PRIu64 ") is damaged, so its log was read from an "
            "older one (byte %" PRIu64 ") and the frames after it",
            log->snapshot_damaged, log->snapshot_offset);
    if (stretches) {
        const scope_log_damage *first = NULL;
        for (size_t d = 0; d < log->ndamage && !first; d++)
            if (!log->damage[d].truncated)
                first = &log->damage[d];
        add(l, RUN_CAVEAT_DAMAGED, i,
            "%s of its log %s damaged and skipped (%zu stretch%s from byte %" PRIu64
            ", first: %s; %" PRIu64 " frame%s lost); its figures are those of the newest "
            "intact frames",
            fmt_bytes(bytes, sizeof bytes, (double)damaged), damaged == 1 ? "was" : "were",
            stretches, stretches == 1 ? "" : "es", first->offset, first->what, damaged_lost,
            damaged_lost == 1 ? "" : "s");
    }
    if (w->truncated) {
        const scope_log_damage *t = &log->damage[log->ndamage - 1];
        for (size_t d = 0; d < log->ndamage; d++)
            if (log->damage[d].truncated)
                t = &log->damage[d];
        add(l, RUN_CAVEAT_TRUNCATED, i,
            w->end == RUN_END_RUNNING
                ? "its log ends inside a frame it is still writing (it is running): the last "
                  "%s from byte %" PRIu64 " were not read"
                : "its log ends inside a frame (killed while writing, or still running): the "
                  "last %s from byte %" PRIu64 " were not read",
            fmt_bytes(bytes, sizeof bytes, (double)t->length), t->offset);
    }
}

static void ending(caveat_list *l, size_t i, const worker_log *log) {
    run_model *m = l->m;
    run_worker *w = &m->workers[i];
    char dur[32];
    uint64_t behind = m->end_wall_ns > w->last_wall_ns ? m->end_wall_ns - w->last_wall_ns : 0;
    /* Only a worker with no ending can be stale: one that exited or was
     * ended by a signal stopped on purpose, and says so.  One still running
     * whose frames stopped long before the others' is stale too (stopped,
     * or hung).  Judged against the run's newest frame, never this
     * reader's clock, so a run read long after it ended is not stale. */
    if (w->end == RUN_END_KILLED || w->end == RUN_END_RUNNING) {
        if (behind > run_stale_limit_ns(run_frame_gap_ns(log))) {
            w->stale = 1;
            w->stale_ns = behind;
            add(l, RUN_CAVEAT_STALE, i,
                "stale: it stopped writing %s before the run's end while other workers went "
                "on; its figures end there",
                fmt_duration(dur, sizeof dur, (double)behind));
        }
    }
    if (w->end == RUN_END_SIGNAL) {
        const char *abbrev = sigabbrev_np(w->end_signal);
        add(l, RUN_CAVEAT_SIGNALED, i,
            "ended by signal %d (SIG%s) after writing its figures; nothing after the signal "
            "was recorded",
            w->end_signal, abbrev ? abbrev : "?");
    } else if (w->end == RUN_END_KILLED && !w->stale) {
        if (behind >= 1000000000ull)
            add(l, RUN_CAVEAT_KILLED, i,
                "never shut down cleanly (killed, crashed, or still running); its figures "
                "end at its last frame, %s before the run's end",
                fmt_duration(dur, sizeof dur, (double)behind));
        else
            add(l, RUN_CAVEAT_KILLED, i,
                "never shut down cleanly (killed, crashed, or still running); its figures "
                "end at its last frame");
    }
}

/* Names past the recorder's limit, recorded as "(other)": how many, from
 * the bits they set in the recorder's fold map (docs/format.md 5.13). */
static void names_folded(caveat_list *l, size_t i, const worker_log *log) {
    double m = SCOPE_FOLD_MAP_BITS, bits = (double)log->names_folded_bits;
    int past = bits >= m; /* every bit set: more than the map can tell */
    double est = -m * log1p(-(past ? m - 1 : bits) / m);
    char n[32], text[300];
    fmt_ucount(n, sizeof n, (uint64_t)llround(est));
    scope_escape((const uint8_t *)log->names_folded_text, strlen(log->names_folded_text), text,
                 sizeof text, 0);
    add(l, RUN_CAVEAT_RECORDER, i, "%s %s %s (an estimate)", past ? "more than" : "about", n, text);
}

static void recorder_marks(caveat_list *l, size_t i, const worker_log *log) {
    const run_worker *w = &l->m->workers[i];
    char n[32];
    if (w->unbalanced)
        add(l, RUN_CAVEAT_UNBALANCED, i,
            "%s unbalanced phase%s (scope_phase_end() with no phase open of its own, "
            "scope_phase_begin() left open inside a block, or phases left open at exit): the "
            "phases around them may be cut short",
            fmt_ucount(n, sizeof n, w->unbalanced), w->unbalanced == 1 ? "" : "s");
    if (w->dropped)
        add(l, RUN_CAVEAT_DROPPED, i,
            "the recorder dropped %s entr%s or counts (nested too deep, past a per-thread "
            "limit, name table full, or no memory): the counts shown are short by that much",
            fmt_ucount(n, sizeof n, w->dropped), w->dropped == 1 ? "y" : "ies");
    if (log->names_folded_bits)
        names_folded(l, i, log);
    if (log->vanished)
        add(l, RUN_CAVEAT_UNREADABLE, i,
            "its log file left the run directory after it was read: its figures are those "
            "read then, and it is not judged running");
    if (w->flush_failed)
        add(l, RUN_CAVEAT_FLUSH_FAILED, i,
            "some frames could not be written when due (a full disk or a file size limit); "
            "figures from that time reached the log late or not at all");
    for (size_t k = 0; k < log->nnotes; k++) {
        char text[300];
        scope_escape((const uint8_t *)log->notes[k], strlen(log->notes[k]), text, sizeof text, 0);
        add(l, RUN_CAVEAT_RECORDER, i, "the recorder says: %s", text);
    }
    if (log->inconsistent)
        add(l, RUN_CAVEAT_INCONSISTENT, i,
            "%s record%s could not be placed and %s left out (first: %s)",
            fmt_ucount(n, sizeof n, log->inconsistent), log->inconsistent == 1 ? "" : "s",
            log->inconsistent == 1 ? "was" : "were", log->inconsistent_what);
}

/* What the reader's caps (read_caps.h) left out of the log: definitions,
 * then histograms. */
static void capped(caveat_list *l, size_t i, const worker_log *log) {
    static const char *const what[READ_KINDS][2] = {
        [READ_NODES] = {"phase node", "phase nodes"},
        [READ_COUNTERS] = {"counter", "counters"},
        [READ_NAMES] = {"name", "names"},
    };
    const read_tally *t = &log->tally;
    char list[600] = "";
    size_t used = 0, parts = 0;
    for (int k = 0; k < READ_BINS; k++) {
        if (!t->hit[k])
            continue;
        char n[32], cap[32];
        enum read_cap_kind kind = (enum read_cap_kind)k;
        used +=
            (size_t)snprintf(list + used, sizeof list - used, "%s%s %s (past the cap of %s a %s)",
                             parts++ ? ", " : "", fmt_ucount(n, sizeof n, t->left_out[k]),
                             what[k][t->left_out[k] != 1],
                             fmt_ucount(cap, sizeof cap, read_caps_cap_of(log->caps, t, kind)),
                             t->by_run[k] ? "run" : "log");
        if (used >= sizeof list)
            used = sizeof list - 1;
    }
    if (parts)
        add(l, RUN_CAVEAT_CAPPED, i,
            "the reader left out %s: their figures are missing, and a phase's time left out "
            "shows in its parent's self time (docs/trust.md, \"What a reader holds\")",
            list);
    if (t->hit[READ_BINS]) {
        char n[32], cap[32];
        add(l, RUN_CAVEAT_CAPPED, i,
            "the reader left out the histograms of %s phase node%s (past the cap of %s "
            "histogram buckets a %s): the percentiles of their phases rest on fewer entries",
            fmt_ucount(n, sizeof n, t->left_out[READ_BINS]), t->left_out[READ_BINS] == 1 ? "" : "s",
            fmt_ucount(cap, sizeof cap, read_caps_cap_of(log->caps, t, READ_BINS)),
            t->by_run[READ_BINS] ? "run" : "log");
    }
}

/* What the line sampler says of itself in its newest LINES record. */
static void line_sampler(caveat_list *l, size_t i, const worker_log *log) {
    const log_lines *ll = &log->lines;
    const scope_rec_lines *r = &ll->rec;
    char n[32], t[32];
    if (!ll->has_record)
        return;
    if (r->dropped)
        add(l, RUN_CAVEAT_LINES, i,
            "the line sampler dropped %s of %s sample%s (its per-thread storage was full): "
            "line figures leave %s out",
            fmt_ucount(n, sizeof n, r->dropped), fmt_ucount(t, sizeof t, r->samples),
            fmt_plural(r->samples), r->dropped == 1 ? "it" : "them");
    if (r->threads_failed)
        add(l, RUN_CAVEAT_LINES, i,
            "%s thread%s could not be sampled (no CPU timer): %s time is missing from the "
            "line figures",
            fmt_ucount(n, sizeof n, r->threads_failed), r->threads_failed == 1 ? "" : "s",
            r->threads_failed == 1 ? "its" : "their");
    if (r->flags & SCOPE_LINES_F_FOREIGN)
        add(l, RUN_CAVEAT_LINES, i,
            "the program installed its own SIGPROF handler, so line sampling stopped there: "
            "later lines are missing");
    if (r->flags & SCOPE_LINES_F_BLOCKED)
        add(l, RUN_CAVEAT_LINES, i,
            "some thread blocked the sampling signal: its time while blocked is missing from "
            "the line figures");
    if (r->truncated)
        add(l, RUN_CAVEAT_LINES, i,
            "%s stack%s cut at the unwind depth limit: a project line above the cut is "
            "charged to the deepest frame kept",
            fmt_ucount(n, sizeof n, r->truncated), r->truncated == 1 ? " was" : "s were");
    if (r->flags & SCOPE_LINES_F_NO_UNWIND)
        add(l, RUN_CAVEAT_LINES, i,
            "stacks were walked with frame pointers only (no libunwind): time in code built "
            "without them may be charged to the wrong caller");
}

/* Resource figures before the snapshot a read began at came from its
 * series (res_proc.h): say what they can and cannot be trusted for. */
static void resource_series(caveat_list *l, size_t i, const worker_log *log) {
    const res_proc *p = log->res;
    if (!p || !p->series.intervals)
        return;
    char n[32], when[64], width[32];
    add(l, RUN_CAVEAT_RESOURCES, i,
        "its resource figures up to %s (%s intervals) come from the snapshot's series, "
        "not its 1 Hz samples: totals exact, but the time series and peak rates there are "
        "approximate (buckets of %s, each shown as its mean)%s",
        fmt_wall(when, sizeof when, p->series.until_wall_ns),
        fmt_ucount(n, sizeof n, p->series.intervals),
        fmt_duration(width, sizeof width, (double)p->series.bucket_ns),
        p->series.node_io ? "; the bytes under each phase are exact (the snapshot's NODE_IO)"
                          : ", and none of those bytes is attributed to a phase (the snapshot "
                            "holds no NODE_IO)");
}

int run_caveat_append(run_model *m, arena *mem, enum run_caveat_kind kind, size_t worker,
                      const char *fmt, ...) {
    caveat_list l = {.m = m, .mem = mem};
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    add(&l, kind, worker, "%s", text);
    return l.nomem ? -1 : 0;
}

void run_caveats_free(run_model *m) {
    free(m->caveats);
    m->caveats = NULL;
    m->ncaveats = m->cap_caveats = 0;
}

int run_add_caveats(run_model *m, arena *mem, const worker_log *logs) {
    caveat_list l = {.m = m, .mem = mem};
    superseded(&l);
    size_t newest = m->nattempts ? m->shown_attempt : SIZE_MAX;
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        const worker_log *log = &logs[i];
        if (!w->readable) {
            char why[300];
            scope_escape((const uint8_t *)log->open_msg, strlen(log->open_msg), why, sizeof why, 0);
            add(&l, RUN_CAVEAT_UNREADABLE, i,
                "could not be read (%s); that process is missing from every figure", why);
            continue;
        }
        if (!w->has_process) {
            add(&l, RUN_CAVEAT_NO_IDENTITY, i,
                "its first frame was lost, so its run, role and host are unknown; its "
                "figures are left out");
            damage(&l, i, log);
            continue;
        }
        if (w->attempt != newest)
            continue; /* the other attempts are named once, above */
        damage(&l, i, log);
        ending(&l, i, log);
        recorder_marks(&l, i, log);
        capped(&l, i, log);
        line_sampler(&l, i, log);
        resource_series(&l, i, log);
    }
    return l.nomem ? -1 : 0;
}
