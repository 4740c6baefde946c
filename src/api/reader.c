/*
 * libscope-reader.so.1's entry points (scope/reader.h): opening a run
 * through run_load, as every command does, and the tables of processes and
 * caveats; the other tables are built in reader_phases.c,
 * reader_resources.c and reader_lines.c.
 */
#include "reader_run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int reader_fail(int status, char *msg, size_t msglen, const char *fmt, ...) {
    if (msg && msglen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msglen, fmt, ap);
        va_end(ap);
    }
    return status;
}

const char *scope_reader_version(void) {
    return SCOPE_VERSION;
}

int scope_reader_abi(void) {
    return SCOPE_READER_ABI;
}

const char *scope_reader_status_name(int status) {
    static const char *const names[] = {
        [SCOPE_READER_OK] = "ok",
        [SCOPE_READER_NOT_FOUND] = "not found",
        [SCOPE_READER_NOT_A_RUN] = "not a run",
        [SCOPE_READER_PERMISSION] = "permission denied",
        [SCOPE_READER_DAMAGED] = "damaged",
        [SCOPE_READER_NO_ATTEMPT] = "no such attempt",
        [SCOPE_READER_NO_MEMORY] = "out of memory",
        [SCOPE_READER_IO] = "input/output error",
        [SCOPE_READER_INVALID] = "invalid argument",
        [SCOPE_READER_NO_LINES] = "no line samples",
        [SCOPE_READER_NO_SAMPLES] = "samples not loaded",
    };
    if (status < 0 || (size_t)status >= sizeof names / sizeof names[0] || !names[status])
        return "unknown status";
    return names[status];
}

static int status_of(enum run_load_error e) {
    switch (e) {
    case RUN_OK:
        return SCOPE_READER_OK;
    case RUN_ERR_NOT_FOUND:
        return SCOPE_READER_NOT_FOUND;
    case RUN_ERR_NOT_DIR:
    case RUN_ERR_NOT_RUN:
    case RUN_ERR_EMPTY:
        return SCOPE_READER_NOT_A_RUN;
    case RUN_ERR_PERMISSION:
        return SCOPE_READER_PERMISSION;
    case RUN_ERR_NO_READABLE:
        return SCOPE_READER_DAMAGED;
    case RUN_ERR_NO_ATTEMPT:
        return SCOPE_READER_NO_ATTEMPT;
    case RUN_ERR_NOMEM:
        return SCOPE_READER_NO_MEMORY;
    case RUN_ERR_IO:
        break;
    }
    return SCOPE_READER_IO;
}

int scope_reader_open(const char *path, unsigned attempt, unsigned flags, scope_run **out,
                      char *msg, size_t msglen) {
    if (out)
        *out = NULL;
    if (!path || !out)
        return reader_fail(SCOPE_READER_INVALID, msg, msglen, "scope_reader_open: no path");
    scope_run *run = calloc(1, sizeof *run);
    if (!run)
        return reader_fail(SCOPE_READER_NO_MEMORY, msg, msglen, "out of memory");
    run_options ro = {.attempt = attempt, .no_samples = (flags & SCOPE_OPEN_NO_SAMPLES) != 0};
    char why[1024] = "";
    enum run_load_error e = run_load(path, &ro, &run->m, why, sizeof why);
    if (e != RUN_OK) {
        free(run);
        return reader_fail(status_of(e), msg, msglen, "%s", why);
    }
    const run_model *m = run->m;
    run->info = (scope_run_info){
        .dir = m->dir,
        .run_id = m->nattempts ? m->attempts[m->shown_attempt].run_id.s : NULL,
        .source = m->source.len ? m->source.s : NULL,
        .runtime_ns = m->runtime_ns,
        .start_wall_ns = m->start_wall_ns,
        .end_wall_ns = m->end_wall_ns,
        .processes = m->nprocs,
        .running = m->nrunning,
        .roles = m->nroles,
        .attempts = m->nattempts,
        .caveats = m->ncaveats,
        .samples_loaded = !m->no_samples,
    };
    *out = run;
    return SCOPE_READER_OK;
}

void scope_reader_close(scope_run *run) {
    if (!run)
        return;
    run_free(run->m);
    free(run);
}

const scope_run_info *scope_run_info_get(const scope_run *run) {
    return run ? &run->info : NULL;
}

/* One row per log of the run, every attempt's (`attempt` and `shown` say
 * which), as report --json's "workers". */
static int reader_processes(scope_run *run, scope_table *t) {
    const run_model *m = run->m;
    size_t worker = rt_column(t, "worker", "", SCOPE_COL_I64),
           path = rt_column(t, "path", "", SCOPE_COL_STR),
           role = rt_column(t, "role", "", SCOPE_COL_STR),
           host = rt_column(t, "host", "", SCOPE_COL_STR),
           pid = rt_column(t, "pid", "", SCOPE_COL_I64),
           rank = rt_column(t, "rank", "", SCOPE_COL_I64),
           local_rank = rt_column(t, "local_rank", "", SCOPE_COL_I64),
           world_size = rt_column(t, "world_size", "count", SCOPE_COL_I64),
           run_id = rt_column(t, "run_id", "", SCOPE_COL_STR),
           attempt = rt_column(t, "attempt", "", SCOPE_COL_I64),
           shown = rt_column(t, "shown", "", SCOPE_COL_BOOL),
           readable = rt_column(t, "readable", "", SCOPE_COL_BOOL),
           end = rt_column(t, "end", "", SCOPE_COL_STR),
           end_signal = rt_column(t, "end_signal", "", SCOPE_COL_I64),
           start = rt_column(t, "start_wall_ns", "ns", SCOPE_COL_U64),
           runtime = rt_column(t, "runtime_ns", "ns", SCOPE_COL_U64),
           phase_ns = rt_column(t, "phase_ns", "ns", SCOPE_COL_U64),
           threads = rt_column(t, "threads", "count", SCOPE_COL_U64),
           frames = rt_column(t, "frames", "count", SCOPE_COL_U64),
           frames_lost = rt_column(t, "frames_lost", "count", SCOPE_COL_U64),
           skipped = rt_column(t, "bytes_skipped", "bytes", SCOPE_COL_U64),
           truncated = rt_column(t, "truncated", "", SCOPE_COL_BOOL),
           stale = rt_column(t, "stale", "", SCOPE_COL_BOOL),
           unbalanced = rt_column(t, "unbalanced", "count", SCOPE_COL_U64),
           dropped = rt_column(t, "dropped", "count", SCOPE_COL_U64),
           line_samples = rt_column(t, "line_samples", "count", SCOPE_COL_U64),
           caveats = rt_column(t, "caveats", "count", SCOPE_COL_U64);
    for (size_t i = 0; i < m->nworkers; i++) {
        const run_worker *w = &m->workers[i];
        rt_row(t);
        rt_i64(t, worker, (int64_t)i);
        rt_name(t, path, w->path);
        if (w->has_process) {
            rt_name(t, role, w->role);
            rt_name(t, host, w->host);
            rt_i64_or_missing(t, pid, w->pid > 0 ? w->pid : -1); /* imported: no pids */
            rt_i64_or_missing(t, rank, w->rank);
            rt_i64_or_missing(t, local_rank, w->local_rank);
            rt_i64_or_missing(t, world_size, w->world_size);
            rt_name(t, run_id, w->run_id);
            rt_u64(t, start, w->start_wall_ns);
        } else {
            const size_t unknown[] = {pid, rank, local_rank, world_size, start};
            for (size_t k = 0; k < sizeof unknown / sizeof unknown[0]; k++)
                rt_missing(t, unknown[k]);
        }
        rt_index(t, attempt, w->attempt);
        rt_bool(t, shown, m->nattempts && w->attempt == m->shown_attempt);
        rt_bool(t, readable, w->readable);
        rt_str(t, end, run_end_name(w->end));
        if (w->end == RUN_END_SIGNAL)
            rt_i64(t, end_signal, w->end_signal);
        else
            rt_missing(t, end_signal);
        rt_u64(t, runtime, w->runtime_ns);
        rt_u64(t, phase_ns, w->phase_ns);
        rt_u64(t, threads, w->nthreads);
        rt_u64(t, frames, w->frames);
        rt_u64(t, frames_lost, w->frames_lost);
        rt_u64(t, skipped, w->bytes_skipped);
        rt_bool(t, truncated, w->truncated);
        rt_bool(t, stale, w->stale);
        rt_u64(t, unbalanced, w->unbalanced);
        rt_u64(t, dropped, w->dropped);
        rt_u64(t, line_samples, w->line_samples);
        rt_u64(t, caveats, w->ncaveats);
    }
    return SCOPE_READER_OK;
}

static int reader_caveats(scope_run *run, scope_table *t) {
    const run_model *m = run->m;
    size_t kind = rt_column(t, "kind", "", SCOPE_COL_STR),
           worker = rt_column(t, "worker", "", SCOPE_COL_I64),
           path = rt_column(t, "path", "", SCOPE_COL_STR),
           text = rt_column(t, "text", "", SCOPE_COL_STR);
    for (size_t i = 0; i < m->ncaveats; i++) {
        const run_caveat *c = &m->caveats[i];
        rt_row(t);
        rt_str(t, kind, run_caveat_kind_name(c->kind));
        rt_index(t, worker, c->worker);
        if (c->worker < m->nworkers)
            rt_name(t, path, m->workers[c->worker].path);
        rt_str(t, text, c->text);
    }
    return SCOPE_READER_OK;
}

/* Runs build on a new table and hands it out, or frees it on error. */
static int finish(int rc, scope_table *t, scope_table **out, char *msg, size_t msglen) {
    if (rc == SCOPE_READER_OK && rt_failed(t))
        rc = reader_fail(SCOPE_READER_NO_MEMORY, msg, msglen, "out of memory building a table");
    if (rc != SCOPE_READER_OK) {
        scope_table_free(t);
        return rc;
    }
    *out = t;
    return SCOPE_READER_OK;
}

int scope_run_table(scope_run *run, int which, scope_table **out, char *msg, size_t msglen) {
    if (out)
        *out = NULL;
    if (!run || !out)
        return reader_fail(SCOPE_READER_INVALID, msg, msglen, "scope_run_table: no run");
    scope_table *t = rt_new();
    if (!t)
        return reader_fail(SCOPE_READER_NO_MEMORY, msg, msglen, "out of memory");
    int rc;
    switch (which) {
    case SCOPE_TABLE_PHASES:
        rc = reader_phases(run, t, msg, msglen);
        break;
    case SCOPE_TABLE_LINES:
        rc = reader_lines(run, t, msg, msglen);
        break;
    case SCOPE_TABLE_SAMPLES:
        rc = reader_samples(run, t, msg, msglen);
        break;
    case SCOPE_TABLE_IO:
        rc = reader_io(run, t, msg, msglen);
        break;
    case SCOPE_TABLE_GPU:
        rc = reader_gpu(run, t, msg, msglen);
        break;
    case SCOPE_TABLE_PROCESSES:
        rc = reader_processes(run, t);
        break;
    case SCOPE_TABLE_CAVEATS:
        rc = reader_caveats(run, t);
        break;
    default:
        rc = reader_fail(SCOPE_READER_INVALID, msg, msglen, "no table %d", which);
    }
    return finish(rc, t, out, msg, msglen);
}

int scope_run_compare(scope_run *a, scope_run *b, scope_table **out, char *msg, size_t msglen) {
    if (out)
        *out = NULL;
    if (!a || !b || !out)
        return reader_fail(SCOPE_READER_INVALID, msg, msglen, "scope_run_compare: no run");
    scope_table *t = rt_new();
    if (!t)
        return reader_fail(SCOPE_READER_NO_MEMORY, msg, msglen, "out of memory");
    return finish(reader_compare(a, b, t, msg, msglen), t, out, msg, msglen);
}
