/*
 * Reading one worker's log (see run_log.h): every record handed to the
 * worker's tables, the marks turned into its end state and caveat counts,
 * and the stretches the reader had to skip.
 */
#include "run_log.h"

#include <scope/vec.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_mark(worker_log *log, const scope_rec_mark *mk, uint64_t seq) {
    switch (mk->kind) {
    case SCOPE_MARK_SIGNAL:
        log->last_signal = (int)mk->value;
        log->signal_frame = seq + 1;
        break;
    case SCOPE_MARK_SHUTDOWN:
        log->shutdown = 1;
        break;
    case SCOPE_MARK_FLUSH_FAILED:
        log->flush_failed = 1;
        break;
    case SCOPE_MARK_CAVEAT:
        log_add_note(log, mk->text);
        break;
    case SCOPE_MARK_DROPPED:
        log_set_dropped(log, mk->thread, mk->value); /* the thread's running total */
        break;
    case SCOPE_MARK_FOLDED: /* the process's running total */
        if (mk->value > 0 && (uint64_t)mk->value > log->names_folded_bits) {
            char *text = arena_dup(&log->mem, mk->text.ptr, mk->text.len);
            if (text) {
                log->names_folded_bits = (uint64_t)mk->value;
                log->names_folded_text = text;
            }
        }
        break;
    case SCOPE_MARK_UNBALANCED:
        if (mk->subkind == SCOPE_UNBALANCED_END_EMPTY) {
            log_set_unbalanced_ends(log, mk->thread, mk->value); /* a running total */
        } else if (mk->subkind == SCOPE_UNBALANCED_LEFT_IN_BLOCK) {
            log_set_left_in_block(log, mk->thread, mk->value); /* a running total */
            log_add_note(log, mk->text);                       /* which phase, inside which block */
        } else {
            /* Phases left open, one mark per thread saying how many; a
             * subkind from a later minor version counts as one. */
            int left_open = mk->subkind == SCOPE_UNBALANCED_LEFT_OPEN && mk->value2 > 0;
            uint32_t innermost =
                left_open && mk->value > 0 && mk->value <= UINT32_MAX ? (uint32_t)mk->value : 0;
            log_add_open_phases(log, left_open ? (uint64_t)mk->value2 : 1, innermost, mk->text);
        }
        break;
    case SCOPE_MARK_SATURATED: {
        /* A counter's total held at an int64 limit: the text names it. */
        static const char what[] = "a counter's total passed the 64-bit range and holds at "
                                   "its limit (saturated, not wrapped)";
        log_add_note(log, mk->text.len ? mk->text
                                       : (scope_bytes){(const uint8_t *)what, sizeof what - 1});
        break;
    }
    default:
        break; /* fork, exec: events, not caveats */
    }
}

/* A later PROCESS record (a later scope_init naming a role) replaces the
 * identity; the format says only role and argv may differ. */
static int bytes_are(scope_bytes b, const char *s) {
    return b.len == strlen(s) && !memcmp(b.ptr, s, b.len);
}

/* The PROCESS record's frame_interval_s: "auto", or seconds ("60.000").
 * Anything else (a damaged or foreign log) says nothing. */
static void on_frame_interval(worker_log *log, scope_bytes v) {
    log->interval_auto = bytes_are(v, "auto");
    log->stated_interval_ns = 0;
    char s[32];
    if (log->interval_auto || !v.len || v.len >= sizeof s)
        return;
    memcpy(s, v.ptr, v.len);
    s[v.len] = '\0';
    char *end;
    double secs = strtod(s, &end);
    /* The recorder takes 0.05 to 3600 s; a day bounds what is believed. */
    if (*end || !(secs > 0 && secs <= 86400))
        return;
    log->stated_interval_ns = (uint64_t)(secs * 1e9);
}

static void on_process(worker_log *log, const scope_rec_process *p) {
    run_worker *w = &log->w;
    arena *a = &log->mem;
    w->has_process = 1;
#define COPY_STR(field) (w->field = run_str_dup(a, p->field.ptr, p->field.len))
    COPY_STR(run_id);
    COPY_STR(uuid);
    COPY_STR(host);
    COPY_STR(role);
    COPY_STR(job_id);
    COPY_STR(step_id);
    COPY_STR(exe);
    COPY_STR(cwd);
    COPY_STR(recorder_version);
    COPY_STR(launcher);
    COPY_STR(array_job_id);
#undef COPY_STR
    w->pid = p->pid;
    w->ppid = p->ppid;
    w->rank = p->rank;
    w->local_rank = p->local_rank;
    w->node_rank = p->node_rank;
    w->world_size = p->world_size;
    w->array_task = p->array_task;
    w->restarts = p->restarts;
    w->start_wall_ns = p->start_wall_ns;
    w->start_mono_ns = p->start_mono_ns;
    for (uint32_t i = 0; i < p->nsettings; i++)
        if (bytes_are(p->settings[i].key, "frame_interval_s"))
            on_frame_interval(log, p->settings[i].value);
}

/* A sample interval, placed on the wall clock by the frame that holds it
 * (the frame's two clocks were read together when it was closed). */
static void on_resource(worker_log *log, const scope_rec_resource *r, const scope_rec_frame *fr) {
    uint64_t before = fr->mono_ns > r->mono_ns ? fr->mono_ns - r->mono_ns : 0;
    uint64_t wall = fr->wall_ns > before ? fr->wall_ns - before : 0;
    if (res_proc_add(&log->res, r, wall) < 0)
        log->nomem = 1;
    log->w.res = log->res;
}

/* The series and NODE_IO records of the snapshot frame a read began at
 * (worker_log.h, snapshot_mono_ns): copies, folded in once the frame is
 * read.  Those of later snapshots are left: the RESOURCE records read
 * since hold the same intervals exactly.  A read from the start ignores
 * them all. */
typedef struct series_batch {
    scope_rec_resource_series *s;
    size_t n, cap;
    scope_rec_node_io *io; /* its NODE_IO records, folded after the series */
    size_t nio, cap_io;
} series_batch;

static void keep_series(worker_log *log, series_batch *sb, const scope_rec_resource_series *r) {
    scope_series_bucket *b = malloc((r->nbuckets ? r->nbuckets : 1) * sizeof *b);
    if (!b || SCOPE_VEC_RESERVE(sb->s, sb->cap, sb->n + 1) < 0) {
        free(b);
        log->nomem = 1;
        return;
    }
    memcpy(b, r->buckets, r->nbuckets * sizeof *b);
    sb->s[sb->n] = *r;
    sb->s[sb->n++].buckets = b;
}

static void keep_node_io(worker_log *log, series_batch *sb, const scope_rec_node_io *r) {
    if (SCOPE_VEC_RESERVE(sb->io, sb->cap_io, sb->nio + 1) < 0) {
        log->nomem = 1;
        return;
    }
    sb->io[sb->nio++] = *r;
}

static void fold_series(worker_log *log, series_batch *sb, const scope_rec_frame *fr) {
    if (res_proc_add_series(&log->res, sb->s, sb->n, fr->mono_ns, fr->wall_ns) < 0 ||
        res_proc_add_node_io(&log->res, sb->io, sb->nio) < 0)
        log->nomem = 1;
    free(sb->io);
    log->w.res = log->res;
    for (size_t i = 0; i < sb->n; i++)
        free((void *)sb->s[i].buckets);
    free(sb->s);
    *sb = (series_batch){0};
}

/* ---- the log ------------------------------------------------------------ */

/* A MARK_STATE record of the snapshot the read began at: a mark written
 * in an earlier frame, which this read did not see. */
static void on_mark_state(worker_log *log, const scope_rec_mark *mk, const scope_rec_frame *fr) {
    /* A snapshot closed for a signal follows the frame the signal closed
     * (docs/format.md 5.2.1): its newest signal mark is then that frame's,
     * which is how the process ended if nothing follows.  An older signal
     * (a flushing one the process lived through) says nothing of the end. */
    if (mk->kind == SCOPE_MARK_SIGNAL) {
        if (fr->reason == SCOPE_FRAME_SIGNAL && fr->seq > 0) {
            log->last_signal = (int)mk->value;
            log->signal_frame = fr->seq; /* that of the frame before, plus 1 */
        }
        return;
    }
    on_mark(log, mk, 0);
}

static void read_frames(worker_log *log, scope_log_reader *r) {
    scope_rec_frame fr;
    uint64_t off;
    while (scope_log_reader_next_frame(r, &fr, &off) == 1 && !log->nomem) {
        if (log->frames && fr.mono_ns > log->last_mono_ns &&
            fr.mono_ns - log->last_mono_ns > log->max_gap_ns)
            log->max_gap_ns = fr.mono_ns - log->last_mono_ns;
        log->frames++;
        /* A snapshot restates the frame before it and holds no events, so
         * for how the process ended it stands for that frame: a signal
         * frame followed by its snapshot still ends the log. */
        int snapshot = (fr.flags & SCOPE_FRAME_F_SNAPSHOT) != 0;
        /* Past the first frame read, a snapshot restates definitions
         * read before: any the reader's caps left out are counted already. */
        log->restating = snapshot && log->frames > 1;
        log->last_seq = snapshot && fr.seq > 0 ? fr.seq - 1 : fr.seq;
        log->last_off = off; /* where a follower reads on (log_read_more) */
        log->last_frame_seq = fr.seq;
        /* Marks before the read began are copied into the snapshot it began
         * at; later snapshots copy marks this read has already seen. */
        int mark_state = log->snapshot_offset && off == log->snapshot_offset;
        log->last_mono_ns = fr.mono_ns;
        log->last_wall_ns = fr.wall_ns;
        log_frame_begins(log, fr.mono_ns);
        int from_series = !log->no_samples && log->snapshot_mono_ns &&
                          fr.mono_ns == log->snapshot_mono_ns && !log->res;
        series_batch sb = {0};
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1 && !log->nomem) {
            switch (rec.type) {
            case SCOPE_REC_PROCESS:
                on_process(log, &rec.u.process);
                break;
            case SCOPE_REC_STRING:
                log_add_string(log, &rec.u.string);
                break;
            case SCOPE_REC_PHASE_NODE:
                log_add_node(log, &rec.u.phase_node);
                break;
            case SCOPE_REC_PHASE_AGG:
                log_add_agg(log, &rec.u.phase_agg);
                break;
            case SCOPE_REC_COUNTER:
                log_add_counter(log, &rec.u.counter);
                break;
            case SCOPE_REC_MARK:
                on_mark(log, &rec.u.mark, fr.seq);
                break;
            case SCOPE_REC_MARK_STATE:
                if (mark_state)
                    on_mark_state(log, &rec.u.mark_state, &fr);
                break;
            case SCOPE_REC_RESOURCE:
                if (!log->no_samples)
                    on_resource(log, &rec.u.resource, &fr);
                break;
            case SCOPE_REC_MODULE:
                log_lines_add_module(&log->lines, &log->mem, &rec.u.module);
                break;
            case SCOPE_REC_STACK:
                log_lines_add_stack(&log->lines, &log->mem, &rec.u.stack);
                break;
            case SCOPE_REC_STACK_SAMPLES:
                rec.u.stack_samples.state = SCOPE_CPU_ON;
                log_lines_add_samples(&log->lines, &rec.u.stack_samples);
                break;
            case SCOPE_REC_OFFCPU_SAMPLES:
                log_lines_add_samples(&log->lines, &rec.u.offcpu_samples);
                break;
            case SCOPE_REC_LINES:
                log_lines_set(&log->lines, &log->mem, &rec.u.lines);
                break;
            case SCOPE_REC_OPEN:
                log_add_open(log, &rec.u.open);
                break;
            case SCOPE_REC_TRACE_WINDOW:
                if (rec.u.trace_window.phase)
                    log->trace = rec.u.trace_window; /* newest wins */
                break;
            case SCOPE_REC_RESOURCE_SERIES:
                if (from_series)
                    keep_series(log, &sb, &rec.u.resource_series);
                break;
            case SCOPE_REC_NODE_IO:
                if (from_series)
                    keep_node_io(log, &sb, &rec.u.node_io);
                break;
            default: /* trace events: read by export --format chrome (log_trace.c) */
                break;
            }
            log->nomem |= log->lines.nomem;
        }
        if (from_series)
            fold_series(log, &sb, &fr);
        log_settle_pending(log);
    }
}

/* The trace window's figures, and a caveat when the cap ended it early. */
static void settle_trace(worker_log *log) {
    const scope_rec_trace_window *t = &log->trace;
    run_worker *w = &log->w;
    if (!t->phase)
        return;
    const run_str *name = log_string_of(log, t->phase);
    w->trace_state = (int)t->state;
    w->trace_phase = name ? *name : run_str_dup(&log->mem, "(unknown phase)", 15);
    w->trace_first = t->first;
    w->trace_last = t->last;
    w->trace_start_mono_ns = t->start_mono_ns;
    w->trace_end_mono_ns = t->end_mono_ns;
    w->trace_events = t->events;
    w->trace_cap = t->cap;
    w->trace_lost = t->lost;
    if (t->state == SCOPE_TRACE_CAPPED) {
        char text[400];
        int n =
            snprintf(text, sizeof text,
                     "trace window %.*s:%llu-%llu ended early at its cap of %llu events "
                     "(%llu more not recorded; SCOPE_TRACE_EVENTS raises the cap)",
                     (int)(w->trace_phase.len < 120 ? w->trace_phase.len : 120), w->trace_phase.s,
                     (unsigned long long)t->first, (unsigned long long)t->last,
                     (unsigned long long)t->cap, (unsigned long long)t->lost);
        log_add_note(log, (scope_bytes){(const uint8_t *)text,
                                        n < (int)sizeof text ? (size_t)n : sizeof text - 1});
    }
}

/* How the process ended, from its last frames and marks. */
static void settle_end(worker_log *log) {
    run_worker *w = &log->w;
    if (log->shutdown)
        w->end = RUN_END_EXIT;
    else if (log->signal_frame && log->signal_frame == log->last_seq + 1) {
        w->end = RUN_END_SIGNAL;
        w->end_signal = log->last_signal;
    } else
        w->end = RUN_END_KILLED;
}

/* Moves the reader to the newest intact snapshot, when the log has one:
 * it restates every definition and aggregate, so nothing before it needs
 * reading (docs/format.md 9.8).  A log without one is read whole. */
static void start_at_snapshot(worker_log *log, scope_log_reader *r) {
    scope_log_snapshot s;
    if (scope_log_reader_find_snapshot(r, &s) < 0 || s.status == SCOPE_SNAPSHOT_NONE ||
        scope_log_reader_seek(r, s.offset, s.seq) < 0)
        return;
    log->snapshot_offset = s.offset;
    log->snapshot_mono_ns = s.mono_ns ? s.mono_ns : 1; /* 0 would say "from the start" */
    if (s.status == SCOPE_SNAPSHOT_OLDER)
        log->snapshot_damaged = s.damaged_offset;
}

/* The reader's damage after what the log kept: a follower's earlier read
 * may have ended in a frame cut off mid-write, which this read read whole,
 * so the kept stretches past the newest intact frame (from) are dropped.
 * The worker's figures of damage then come from the whole list. */
static void take_damage(worker_log *log, scope_log_reader *r, uint64_t from) {
    run_worker *w = &log->w;
    size_t kept = 0;
    for (size_t i = 0; i < log->ndamage; i++)
        if (log->damage[i].offset <= from)
            log->damage[kept++] = log->damage[i];
    size_t more = scope_log_reader_damage_count(r);
    if (SCOPE_VEC_RESERVE(log->damage, log->cap_damage, kept + more) < 0)
        log->nomem = 1, more = 0;
    for (size_t i = 0; i < more; i++)
        log->damage[kept + i] = *scope_log_reader_damage(r, i);
    log->ndamage = kept + more;
    w->bytes_skipped = w->frames_lost = 0;
    w->truncated = 0;
    for (size_t i = 0; i < log->ndamage; i++) {
        const scope_log_damage *d = &log->damage[i];
        w->bytes_skipped += d->length;
        w->frames_lost += d->frames_lost;
        if (d->truncated)
            w->truncated = 1;
    }
}

/* After the frames were read: the worker's figures and end, settled, and
 * the inconsistencies counted so far kept for a model built again. */
static void finish(worker_log *log, scope_log_reader *r, uint64_t resumed_at) {
    run_worker *w = &log->w;
    take_damage(log, r, resumed_at);
    scope_log_reader_close(r);
    w->frames = log->frames;
    w->last_wall_ns = log->last_wall_ns;
    w->last_mono_ns = log->last_mono_ns;
    w->runtime_ns = log->last_wall_ns > w->start_wall_ns ? log->last_wall_ns - w->start_wall_ns : 0;
    w->flush_failed = log->flush_failed;
    settle_end(log);
    settle_trace(log);
    worker_log_settle(log);
    log->read_inconsistent = log->inconsistent;
    memcpy(log->read_inconsistent_what, log->inconsistent_what, sizeof log->read_inconsistent_what);
}

void log_read(int dirfd, const char *relpath, worker_log *log) {
    scope_log_reader *r;
    log->open_rc =
        scope_log_reader_open_beneath(&r, dirfd, relpath, log->open_msg, sizeof log->open_msg);
    if (log->open_rc < 0)
        return;
    log->w.readable = 1;
    log->read_size = scope_log_reader_info(r)->file_size;
    log->lines.minor = scope_log_reader_info(r)->version_minor;
    if (log->no_samples)
        scope_log_reader_skip_kinds(r, 1ull << SCOPE_REC_RESOURCE);
    if (!log->read_all && log->read_size >= log->snapshot_min_size)
        start_at_snapshot(log, r);
    read_frames(log, r);
    finish(log, r, 0);
}

int log_read_more(int dirfd, const char *relpath, worker_log *log) {
    if (!log->frames || log->open_rc < 0 || log->nomem)
        return 0;
    scope_log_reader *r;
    char msg[sizeof log->open_msg];
    if (scope_log_reader_open_beneath(&r, dirfd, relpath, msg, sizeof msg) < 0)
        return 0;
    uint64_t size = scope_log_reader_info(r)->file_size;
    /* The newest frame read before must be there still, the same: else the
     * file was cut back or rewritten, and reading on would mix two logs. */
    scope_rec_frame fr;
    uint64_t off;
    if (size < log->read_size || scope_log_reader_seek(r, log->last_off, log->last_frame_seq) < 0 ||
        scope_log_reader_next_frame(r, &fr, &off) != 1 || off != log->last_off ||
        fr.seq != log->last_frame_seq || fr.mono_ns != log->last_mono_ns ||
        fr.wall_ns != log->last_wall_ns || scope_log_reader_damage_count(r)) {
        scope_log_reader_close(r);
        return 0;
    }
    log->read_size = size;
    log->inconsistent = log->read_inconsistent; /* a merge's count is the merge's */
    memcpy(log->inconsistent_what, log->read_inconsistent_what, sizeof log->inconsistent_what);
    if (log->no_samples)
        scope_log_reader_skip_kinds(r, 1ull << SCOPE_REC_RESOURCE);
    read_frames(log, r); /* the frame just checked is passed over, its records unread */
    finish(log, r, off);
    return 1;
}
