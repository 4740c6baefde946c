/*
 * The scope-profiler loader: each rank of the file becomes a process (rank
 * kept, one attempt, role "scope-profiler"), its regions phases nested by
 * containment with exact figures, the file's metadata its identity.  Ranks
 * are read one at a time, in a child process (sp_child.h: a damaged file
 * can crash the HDF5 library), so memory follows the largest rank's events,
 * not the file.  What line_profiler measured in a rank becomes its
 * process's measured lines (log_lines.h).  Anything wrong with the file is
 * one line naming it.
 */
#define _GNU_SOURCE /* strptime, timegm */
#include "run_sp_loader.h"

#include "run_builder.h"
#include "run_intervals.h"
#include "sp_child.h"
#include "text_escape.h"
#include "worker_log.h"

#include <h5_probe.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char role_name[] = "scope-profiler";

/* scope-profiler's timestamp: Python's isoformat() of the local time,
 * "2026-12-01T20:24:00.123456", read as this machine's local time.  0 when
 * absent or unreadable. */
static uint64_t wall_of(const char *iso) {
    struct tm tm = {0};
    const char *rest = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    if (!rest)
        return 0;
    tm.tm_isdst = -1;
    time_t s = mktime(&tm);
    if (s < 0)
        return 0;
    uint64_t ns = 0;
    if (*rest == '.') {
        uint64_t scale = 100000000u;
        for (rest++; *rest >= '0' && *rest <= '9' && scale; rest++, scale /= 10)
            ns += (uint64_t)(*rest - '0') * scale;
    }
    return (uint64_t)s * 1000000000u + ns;
}

static run_str dup_str(worker_log *log, const char *s) {
    return s ? run_str_dup(&log->mem, s, strlen(s)) : (run_str){"", 0};
}

/* A new string of the log: ids 1.. in the order added.  Repeats are not
 * looked for (a file may hold any number of regions): the merge goes by
 * name, not by id. */
static uint32_t string_id(worker_log *log, const char *s) {
    uint32_t id = (uint32_t)log->nstrings + 1;
    log_add_string(log, &(scope_rec_string){.id = id, .value = {(const uint8_t *)s, strlen(s)}});
    return id;
}

/* The identity every rank shares, from the file's metadata. */
static void fill_identity(worker_log *log, const sp_child *f, const sp_rank *r, uint64_t span_ns) {
    const sp_meta *m = sp_child_meta(f);
    run_worker *w = &log->w;
    char buf[128];
    snprintf(buf, sizeof buf, "rank%" PRId64, r->rank);
    w->path = dup_str(log, buf);
    w->readable = w->has_process = 1;
    w->run_id = dup_str(log, m->timestamp ? m->timestamp : "scope-profiler");
    w->host = dup_str(log, m->hostname);
    w->role = run_str_dup(&log->mem, role_name, sizeof role_name - 1);
    w->cwd = dup_str(log, m->working_directory);
    snprintf(buf, sizeof buf, "scope-profiler %s (schema %d)", m->version ? m->version : "",
             sp_child_schema(f));
    w->recorder_version = dup_str(log, buf);
    w->pid = w->ppid = 0;
    w->rank = (int32_t)r->rank;
    w->world_size = m->mpi_size > 0 && m->mpi_size <= INT32_MAX ? (int32_t)m->mpi_size : -1;
    w->start_wall_ns = wall_of(m->timestamp);
    w->last_wall_ns = w->start_wall_ns + span_ns;
    w->runtime_ns = span_ns;
    w->frames = 1;
    w->end = RUN_END_EXIT;
}

/* One rank into its log: every call an interval, nested, then settled. */
static int fill_rank(worker_log *log, const sp_child *f, sp_rank *r) {
    interval_kind *kinds = calloc(r->nregions + 1, sizeof *kinds);
    run_interval *v = malloc((r->nevents + 1) * sizeof *v);
    int rc = -1;
    if (!kinds || !v)
        goto out;
    size_t n = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t k = 0; k < r->nregions; k++) {
        sp_region *g = &r->regions[k];
        kinds[k].name = string_id(log, g->name);
        kinds[k].file = g->source_file && g->source_file[0] ? string_id(log, g->source_file) : 0;
        kinds[k].line =
            g->source_line > 0 && g->source_line <= UINT32_MAX ? (uint32_t)g->source_line : 0;
        kinds[k].tags = g->tags ? string_id(log, g->tags) : 0;
        for (size_t i = 0; i < g->n; i++) {
            v[n++] = (run_interval){g->start[i], g->end[i], (uint32_t)k};
            if (g->start[i] < first)
                first = g->start[i];
            if (g->end[i] > last)
                last = g->end[i];
        }
        /* Copied: the region's own arrays go, so a rank costs its events once. */
        free(g->start);
        free(g->end);
        g->start = g->end = NULL;
    }
    fill_identity(log, f, r, n ? (uint64_t)last - (uint64_t)first : 0);
    interval_stats st = {0};
    if (run_intervals_add(log, 1, v, n, kinds, r->nregions, &st) < 0 || log->nomem)
        goto out;
    char note[200];
    if (st.overlaps) {
        snprintf(note, sizeof note,
                 "%" PRIu64 " call(s) overlapped a call they did not lie inside; each is shown "
                 "under the nearest call that contains it",
                 st.overlaps);
        log_add_note(log, (scope_bytes){(const uint8_t *)note, strlen(note)});
    }
    if (st.too_deep) {
        snprintf(note, sizeof note,
                 "%" PRIu64 " call(s) nested deeper than %d levels are shown at the deepest",
                 st.too_deep, RUN_MAX_DEPTH - 1);
        log_add_note(log, (scope_bytes){(const uint8_t *)note, strlen(note)});
    }
    worker_log_settle(log);
    rc = 0;
out:
    free(kinds);
    free(v);
    return rc;
}

/* A rank's line profiles as its process's measured lines: hits as
 * counted, time as ticks x unit. */
static int add_profiles(worker_log *log, const sp_rank *r) {
    for (size_t k = 0; k < r->nprofiles; k++) {
        const sp_line_profile *p = &r->profiles[k];
        for (size_t i = 0; i < p->n; i++)
            log_lines_add_measured(&log->lines, &log->mem,
                                   &(log_measured_line){
                                       .file = {p->filename, strlen(p->filename)},
                                       .function = {p->function, strlen(p->function)},
                                       .region = p->region ? (run_str){p->region, strlen(p->region)}
                                                           : (run_str){"", 0},
                                       .line = (uint32_t)p->line[i],
                                       .def_line = (uint32_t)p->first_lineno,
                                       .hits = (uint64_t)p->hits[i],
                                       .seconds = (double)p->times[i] * p->unit,
                                   });
    }
    return log->lines.nomem ? -1 : 0;
}

static int probe_h5(const char *path) {
    return scope_h5_probe(path);
}

/* The reader's message, which may quote names from the file (a region,
 * a link's target), escaped like every name shown. */
static const char *escaped(const char *why, char *buf, size_t cap) {
    scope_escape((const uint8_t *)why, strlen(why), buf, cap, 0);
    return buf;
}

static enum run_load_error load_h5(run_model_builder *b, const char *path, const run_options *opt,
                                   char *msg, size_t msglen) {
    (void)opt;
    char shown[512], why[512], why_shown[600];
    scope_escape((const uint8_t *)path, strlen(path), shown, sizeof shown, 0);
    sp_child *f;
    if (sp_child_open(path, &f, why, sizeof why) < 0)
        return run_load_fail(msg, msglen, RUN_ERR_NOT_RUN, "%s: %s", shown,
                             escaped(why, why_shown, sizeof why_shown));
    const sp_meta *meta = sp_child_meta(f);
    char source[1024];
    int len = snprintf(source, sizeof source, "scope-profiler HDF5, schema %d", sp_child_schema(f));
    if (meta->mpi_size >= 0)
        len += snprintf(source + len, sizeof source - (size_t)len, ", MPI size %" PRId64,
                        meta->mpi_size);
    if (meta->version)
        len += snprintf(source + len, sizeof source - (size_t)len, ", scope-profiler %.100s",
                        meta->version);
    if (meta->python_version)
        len += snprintf(source + len, sizeof source - (size_t)len, ", Python %.40s",
                        meta->python_version);
    if (meta->working_directory)
        snprintf(source + len, sizeof source - (size_t)len, ", in %.600s", meta->working_directory);
    run_builder_set_source(b, source);
    size_t nranks = sp_child_nranks(f);
    enum run_load_error e = RUN_OK;
    if (!nranks)
        e = run_load_fail(msg, msglen, RUN_ERR_EMPTY,
                          "%s: a scope-profiler file with no rank in it", shown);
    worker_log *logs = e == RUN_OK ? run_builder_add_workers(b, nranks) : NULL;
    if (e == RUN_OK && !logs)
        e = run_load_fail(msg, msglen, RUN_ERR_NOMEM, "%s: out of memory", shown);
    for (size_t i = 0; i < nranks && e == RUN_OK; i++) {
        sp_rank r;
        if (sp_child_next(f, &r, why, sizeof why) < 0) {
            e = run_load_fail(msg, msglen, RUN_ERR_IO, "%s: %s", shown,
                              escaped(why, why_shown, sizeof why_shown));
            break;
        }
        if (fill_rank(&logs[i], f, &r) < 0 || add_profiles(&logs[i], &r) < 0)
            e = run_load_fail(msg, msglen, RUN_ERR_NOMEM,
                              "%s: out of memory for rank %" PRId64 "'s %zu calls", shown, r.rank,
                              r.nevents);
        sp_rank_free(&r);
    }
    sp_child_close(f);
    return e;
}

const run_loader run_sp_loader = {
    .name = "scope-profiler HDF5 file",
    .probe = probe_h5,
    .load = load_h5,
};
