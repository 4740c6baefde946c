/*
 * export --format chrome: the trace windows of a run (SCOPE_TRACE) in the
 * Chrome trace event format, which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open.
 *
 *   {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}
 *
 * Every process of the newest attempt whose window opened is one pid (its
 * OS pid), named from its role, rank or pid, and host (a "process_name"
 * metadata event: "actor rank 3 (pid 41) @ node07", "actor pid 41 @ vm"),
 * so that processes of one role tell apart; each of its threads is one tid
 * (the OS thread id), named by a "thread_name" event after its process and
 * its own name ("actor pid 41 main thread (exe)", "actor pid 41 thread 43
 * (loader)"): the name a thread gives itself is often only its program's.  A phase is a complete
 * event ("X": ts and dur in µs); counters are "C" events carrying each counter's running total
 * since the window opened; marks inside the window (signal, fork, exec...) and the window's own
 * bounds are instant events ("i").
 *
 * Time: CLOCK_MONOTONIC is one clock for every process of a host, so a
 * host's processes are placed by it exactly.  Hosts are placed on the wall
 * clock: each host's monotonic times are shifted by one (wall - mono) pair,
 * that of its first log (by path) at its newest frame, so across hosts events align as well as
 * the hosts' clocks agree.  ts 0 is the earliest window start.
 *
 * The document is written as a stream: memory holds one process's events
 * at a time (at most its window's cap).
 */
#include "export_formats.h"
#include "json_out.h"
#include "log_trace.h"
#include "progress.h"
#include "run_builder.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <scope/vec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct chrome_out {
    FILE *f;
    int first; /* no event written yet: no comma before the next */
    int nomem;
} chrome_out;

/* ", " between events, and the start of the next one. */
static void begin_event(chrome_out *o) {
    fputs(o->first ? "\n" : ",\n", o->f);
    o->first = 0;
}

static void put_name(chrome_out *o, run_str name) {
    char *lit = jo_name_literal(name);
    if (!lit) {
        o->nomem = 1;
        fputs("\"\"", o->f);
        return;
    }
    fputs(lit, o->f);
    free(lit);
}

/* ns as µs with three decimals, exactly (no double rounding); any int64,
 * INT64_MIN included. */
static void put_us(FILE *f, int64_t ns) {
    uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    fprintf(f, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", mag / 1000, mag % 1000);
}

static run_str str_of(const char *s) {
    return (run_str){s, strlen(s)};
}

/* "ROLE rank R" or "ROLE pid P": the process among its role's, as a viewer
 * lists tracks without the pid beside them. */
static int process_who(char *buf, size_t cap, const run_worker *w) {
    int n = snprintf(buf, cap, "%.*s", (int)(w->role.len < 200 ? w->role.len : 200),
                     w->role.s ? w->role.s : "");
    if (w->rank >= 0)
        n += snprintf(buf + n, cap - (size_t)n, " rank %d", (int)w->rank);
    else
        n += snprintf(buf + n, cap - (size_t)n, " pid %" PRId64, w->pid);
    return n;
}

static void put_process_name(chrome_out *o, const run_worker *w) {
    char label[512];
    int n = process_who(label, sizeof label, w);
    if (w->rank >= 0)
        n += snprintf(label + n, sizeof label - (size_t)n, " (pid %" PRId64 ")", w->pid);
    snprintf(label + n, sizeof label - (size_t)n, " @ %.*s",
             (int)(w->host.len < 200 ? w->host.len : 200), w->host.s ? w->host.s : "");
    begin_event(o);
    fprintf(o->f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%" PRId64 ",\"args\":{\"name\":",
            w->pid);
    put_name(o, (run_str){label, strlen(label)});
    fputs("}}", o->f);
}

static int64_t tid_of(const log_trace *t, uint32_t index, int64_t pid) {
    if (index == 0)
        return pid; /* the process as a whole */
    for (size_t i = 0; i < t->nthreads; i++)
        if (t->threads[i].index == index)
            return t->threads[i].tid;
    /* Its THREAD record was lost: still one track per thread, on a tid no
     * real thread has. */
    (void)pid;
    return -(int64_t)index;
}

static void put_threads(chrome_out *o, const run_worker *w, const log_trace *t) {
    for (size_t i = 0; i < t->nthreads; i++) {
        char label[700];
        int64_t tid = t->threads[i].tid;
        int n = process_who(label, sizeof label, w);
        if (tid == w->pid)
            n += snprintf(label + n, sizeof label - (size_t)n, " main thread");
        else
            n += snprintf(label + n, sizeof label - (size_t)n, " thread %" PRId64, tid);
        run_str own = t->threads[i].name;
        if (own.len)
            snprintf(label + n, sizeof label - (size_t)n, " (%.*s)",
                     (int)(own.len < 200 ? own.len : 200), own.s);
        begin_event(o);
        fprintf(o->f,
                "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
                ",\"args\":{\"name\":",
                w->pid, tid);
        put_name(o, (run_str){label, strlen(label)});
        fputs("}}", o->f);
    }
}

static void put_instant(chrome_out *o, const char *scope, int64_t pid, int64_t tid, int64_t ts,
                        run_str name, run_str text) {
    begin_event(o);
    fputs("{\"name\":", o->f);
    put_name(o, name);
    fprintf(o->f, ",\"cat\":\"scope\",\"ph\":\"i\",\"s\":\"%s\",\"ts\":", scope);
    put_us(o->f, ts);
    fprintf(o->f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64, pid, tid);
    if (text.len) {
        fputs(",\"args\":{\"text\":", o->f);
        put_name(o, text);
        fputc('}', o->f);
    }
    fputc('}', o->f);
}

/* Running totals of one process's counters, by name id. */
typedef struct counter_total {
    uint32_t name;
    int64_t total;
} counter_total;

static int64_t *total_of(counter_total **v, size_t *n, size_t *cap, uint32_t name) {
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].name == name)
            return &(*v)[i].total;
    if (SCOPE_VEC_RESERVE(*v, *cap, *n + 1) < 0)
        return NULL;
    (*v)[*n] = (counter_total){name, 0};
    return &(*v)[(*n)++].total;
}

/* One process's window: its names, phases, counters and marks.  shift
 * places its monotonic times on the document's clock; base is ts 0. */
static void put_process(chrome_out *o, const run_worker *w, log_trace *t, int64_t shift,
                        uint64_t base) {
    const scope_rec_trace_window *win = &t->window;
    int64_t pid = w->pid;
#define TS(mono) ((int64_t)((uint64_t)(mono) + (uint64_t)shift - base))
    put_process_name(o, w);
    put_threads(o, w, t);

    /* The window's start, with what placed it: its bounds and the start
     * on the process's own CLOCK_MONOTONIC. */
    run_str phase = log_trace_string(t, win->phase);
    char what[400];
    snprintf(what, sizeof what, "trace window opened: %.*s entry %" PRIu64,
             (int)(phase.len < 200 ? phase.len : 200), phase.s, win->first);
    begin_event(o);
    fputs("{\"name\":", o->f);
    put_name(o, str_of(what));
    fputs(",\"cat\":\"scope\",\"ph\":\"i\",\"s\":\"p\",\"ts\":", o->f);
    put_us(o->f, TS(win->start_mono_ns));
    fprintf(o->f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"args\":{\"phase\":", pid, pid);
    put_name(o, phase);
    fprintf(o->f,
            ",\"first\":%" PRIu64 ",\"last\":%" PRIu64 ",\"mono_ns\":%" PRIu64
            ",\"events\":%" PRIu64 ",\"cap\":%" PRIu64 ",\"lost\":%" PRIu64 "}}",
            win->first, win->last, win->start_mono_ns, win->events, win->cap, win->lost);

    for (size_t i = 0; i < t->nphases; i++) {
        const trace_phase_ev *e = &t->phases[i];
        begin_event(o);
        fputs("{\"name\":", o->f);
        put_name(o, e->name ? log_trace_string(t, e->name) : str_of("(phase lost)"));
        fputs(",\"cat\":\"phase\",\"ph\":\"X\",\"ts\":", o->f);
        put_us(o->f, TS(e->start_ns));
        fputs(",\"dur\":", o->f);
        put_us(o->f, (int64_t)e->dur_ns);
        fprintf(o->f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 "}", pid, tid_of(t, e->thread, pid));
    }

    counter_total *totals = NULL;
    size_t ntotals = 0, cap = 0;
    for (size_t i = 0; i < t->ncounts; i++) {
        const trace_count_ev *e = &t->counts[i];
        int64_t *total = total_of(&totals, &ntotals, &cap, e->name);
        if (!total) {
            o->nomem = 1;
            break;
        }
        int64_t sum;
        *total = __builtin_add_overflow(*total, e->value, &sum)
                     ? (e->value > 0 ? INT64_MAX : INT64_MIN)
                     : sum;
        run_str name = log_trace_string(t, e->name);
        begin_event(o);
        fputs("{\"name\":", o->f);
        put_name(o, name);
        fputs(",\"cat\":\"counter\",\"ph\":\"C\",\"ts\":", o->f);
        put_us(o->f, TS(e->mono_ns));
        fprintf(o->f, ",\"pid\":%" PRId64 ",\"args\":{", pid);
        put_name(o, name);
        fprintf(o->f, ":%" PRId64 "}}", *total);
    }
    free(totals);

    /* The end: the window's, or (open when the log ended) its last frame. */
    uint64_t end = win->end_mono_ns ? win->end_mono_ns : t->frame_mono_ns;
    for (size_t i = 0; i < t->nmarks; i++) {
        const trace_mark_ev *m = &t->marks[i];
        if (m->mono_ns < win->start_mono_ns || m->mono_ns > end)
            continue;
        put_instant(o, m->thread ? "t" : "p", pid, tid_of(t, m->thread, pid), TS(m->mono_ns),
                    str_of(scope_mark_kind_name(m->kind)), m->text);
    }
    if (win->state == SCOPE_TRACE_CAPPED)
        snprintf(what, sizeof what,
                 "trace window capped: %" PRIu64 " events recorded, %" PRIu64
                 " more not (SCOPE_TRACE_EVENTS)",
                 win->cap, win->lost);
    else if (win->state == SCOPE_TRACE_CLOSED)
        snprintf(what, sizeof what, "trace window closed: %.*s entry %" PRIu64 " ended",
                 (int)(phase.len < 200 ? phase.len : 200), phase.s, win->last);
    else
        snprintf(what, sizeof what, "trace window still open when the log ended");
    put_instant(o, "p", pid, pid, TS(end), str_of(what), (run_str){"", 0});
#undef TS
}

/* Which workers go in: the newest attempt's, readable. */
static int in_export(const run_worker *w) {
    return w->readable && w->role_index != SIZE_MAX;
}

/* The (wall - mono) shift of each worker's host: the first log of that
 * host read (by path) sets it for all its processes. */
static int64_t host_shift(const run_model *m, size_t wi, const int64_t *shifts,
                          const uint8_t *known) {
    const run_worker *w = &m->workers[wi];
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *x = &m->workers[i];
        if (known[i] && x->host.len == w->host.len &&
            (!w->host.len || !memcmp(x->host.s, w->host.s, w->host.len)))
            return shifts[i];
    }
    return shifts[wi];
}

static int write_chrome(const run_model *m, const char *run, int out_fd, char *msg, size_t msglen) {
    /* Which processes opened a window, from the model: the logs are read
     * only for those. */
    size_t opened = 0, asked = 0;
    uint64_t base = UINT64_MAX;
    int64_t *shifts = calloc(m->nworkers ? m->nworkers : 1, sizeof *shifts);
    uint8_t *known = calloc(m->nworkers ? m->nworkers : 1, 1);
    int dirfd = -1, rc = -1;
    FILE *f = NULL;
    progress prog = {0};
    if (!shifts || !known) {
        snprintf(msg, msglen, "out of memory");
        goto out;
    }
    if (run_model_needs_logs(m, "a trace window's events", msg, msglen) < 0)
        goto out;
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        if (!in_export(w) || w->trace_state < 0)
            continue;
        asked++;
        if (w->trace_state != SCOPE_TRACE_WAITING && w->trace_start_mono_ns)
            opened++;
    }
    if (!opened) {
        if (asked)
            snprintf(msg, msglen,
                     "the run's trace window never opened: no process reached the entry that "
                     "opens it (scope-tui report %s names the phase's counts)",
                     run);
        else
            snprintf(msg, msglen,
                     "the run has no trace window: record one with "
                     "SCOPE_TRACE=PHASE:FIRST-LAST (docs/recorder.md)");
        goto out;
    }
    dirfd = open(run, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        snprintf(msg, msglen, "cannot open the run directory: %s", strerror(errno));
        goto out;
    }
    /* Each log's newest (wall, mono) pair places its host's clock. */
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        if (in_export(w) && w->trace_state > SCOPE_TRACE_WAITING && w->trace_start_mono_ns &&
            w->last_wall_ns) {
            shifts[i] = (int64_t)(w->last_wall_ns - w->last_mono_ns);
            known[i] = 1;
        }
    }
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        if (!known[i])
            continue;
        uint64_t start = w->trace_start_mono_ns + (uint64_t)host_shift(m, i, shifts, known);
        if (start < base)
            base = start;
    }

    f = export_stream(out_fd, msg, msglen);
    if (!f)
        goto out;
    chrome_out o = {f, 1, 0};
    fputs("{\"traceEvents\":[", f);
    size_t nknown = 0, done = 0;
    for (size_t i = 0; i < m->nworkers; i++)
        nknown += known[i];
    progress_begin(&prog, "exporting the trace windows", "process", "processes", nknown);
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        if (!known[i])
            continue;
        progress_step(&prog, done++);
        log_trace t = {0};
        char why[256] = "";
        if (log_trace_read(dirfd, w->path.s, &t, why, sizeof why) < 0) {
            log_trace_free(&t);
            snprintf(msg, msglen, "cannot read %s: %s", w->path.s, why);
            goto out;
        }
        if (t.window.phase && t.window.start_mono_ns)
            put_process(&o, w, &t, host_shift(m, i, shifts, known), base);
        log_trace_free(&t);
        if (o.nomem) {
            snprintf(msg, msglen, "out of memory");
            goto out;
        }
    }
    fputs("\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"run\":", f);
    o.first = 1;
    put_name(&o, str_of(m->dir ? m->dir : run));
    fprintf(f,
            ",\"processes_with_window\":%zu,\"clock\":\"CLOCK_MONOTONIC per host, hosts "
            "placed by their wall clocks; ts 0 is the earliest window start\"}}\n",
            opened);
    rc = 0;
out:
    progress_end(&prog);
    if (f) {
        if (ferror(f) || fclose(f) != 0) {
            if (rc == 0)
                snprintf(msg, msglen, "cannot write: %s", strerror(errno ? errno : EIO));
            rc = -1;
        }
    }
    if (dirfd >= 0)
        close(dirfd);
    free(shifts);
    free(known);
    return rc;
}

const export_format export_format_chrome = {
    "chrome", "the trace windows (SCOPE_TRACE) as a Chrome trace, for Perfetto or chrome://tracing",
    write_chrome};
