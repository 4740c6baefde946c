/*
 * `scope-tui dump FILE...`: a log's frames and records as text, then what was
 * skipped and why.  A debugging aid, and the way tests look inside a log with
 * the same reader every other command uses.
 *
 * Exit status: 0 every byte read; 1 the log was read but damage was skipped
 * (described in the summary); 2 a file could not be read as a log at all.
 */
#include "commands.h"
#include "text_escape.h"

#include <getopt.h>
#include <inttypes.h>
#include <scope/log_format.h>
#include <scope/log_hist.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum dump_detail { DUMP_RECORDS, DUMP_FRAMES, DUMP_SUMMARY };

static void put_str(FILE *f, scope_bytes b) {
    fputc('"', f);
    scope_fput_escaped(f, b.ptr, b.len, SCOPE_ESCAPE_QUOTE);
    fputc('"', f);
}

/* " name " followed by the quoted bytes. */
static void put_named(FILE *f, const char *name, scope_bytes b) {
    fputs(name, f);
    put_str(f, b);
}

static void put_hex(FILE *f, scope_bytes b) {
    if (b.len == 0)
        fputs("-", f);
    for (size_t i = 0; i < b.len; i++)
        fprintf(f, "%02x", b.ptr[i]);
}

static void put_wall(FILE *f, uint64_t ns) {
    time_t s = (time_t)(ns / 1000000000u);
    struct tm tm;
    char buf[32];
    if (gmtime_r(&s, &tm) && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm))
        fprintf(f, "%s.%03uZ", buf, (unsigned)(ns % 1000000000u / 1000000u));
    else
        fprintf(f, "%" PRIu64 "ns", ns);
}

static void put_secs(FILE *f, uint64_t ns) {
    fprintf(f, "%" PRIu64 ".%09" PRIu64 "s", ns / 1000000000u, ns % 1000000000u);
}

static void dump_process(FILE *f, const scope_rec_process *p) {
    put_named(f, "  PROCESS run ", p->run_id);
    put_named(f, " uuid ", p->uuid);
    put_named(f, " host ", p->host);
    put_named(f, " role ", p->role);
    fprintf(f, "\n      pid %" PRId64 " ppid %" PRId64 " rank %d local_rank %d node %d world %d",
            p->pid, p->ppid, p->rank, p->local_rank, p->node_rank, p->world_size);
    put_named(f, " job ", p->job_id);
    put_named(f, " step ", p->step_id);
    put_named(f, "\n      launcher ", p->launcher);
    put_named(f, " array ", p->array_job_id);
    fprintf(f, " task %d restarts %d", p->array_task, p->restarts);
    fputs("\n      started ", f);
    put_wall(f, p->start_wall_ns);
    fputs(" mono ", f);
    put_secs(f, p->start_mono_ns);
    put_named(f, " recorder ", p->recorder_version);
    put_named(f, "\n      exe ", p->exe);
    put_named(f, " cwd ", p->cwd);
    fputs("\n      argv", f);
    for (uint32_t i = 0; i < p->argc; i++)
        put_named(f, " ", p->argv[i]);
    for (uint32_t i = 0; i < p->nsettings; i++) {
        put_named(f, "\n      setting ", p->settings[i].key);
        put_named(f, "=", p->settings[i].value);
    }
    fputc('\n', f);
}

static void dump_phase_agg(FILE *f, const scope_rec_phase_agg *a) {
    fprintf(f,
            "  PHASE_AGG node %" PRIu32 " count %" PRIu64 " wall %" PRIu64 "ns min %" PRIu64
            "ns max %" PRIu64 "ns cpu %" PRIu64 "ns over %" PRIu64 " entries (%" PRIu64 "ns wall)",
            a->node, a->count, a->wall_ns, a->min_ns, a->max_ns, a->cpu_ns, a->cpu_count,
            a->cpu_wall_ns);
    if (a->io_flags & SCOPE_IO_MEASURED)
        fprintf(f,
                "\n      io over %" PRIu64 " entries (%" PRIu64 " failed): disk r %" PRIu64
                " w %" PRIu64 ", chars r %" PRIu64 " w %" PRIu64,
                a->io_count, a->io_failed, a->disk_read, a->disk_write, a->char_read,
                a->char_write);
    if (a->nbins) {
        fputs("\n      hist", f);
        for (uint32_t i = 0; i < a->nbins; i++)
            fprintf(f, " [%" PRIu64 "..%" PRIu64 "]:%" PRIu64, scope_hist_lower(a->bins[i].bucket),
                    scope_hist_upper(a->bins[i].bucket), a->bins[i].count);
    }
    fputc('\n', f);
}

/* A figure, or "n/a" when its presence bit says it was not measured. */
static void put_fig(FILE *f, const char *name, uint32_t present, uint32_t bit, uint64_t v) {
    if (present & bit)
        fprintf(f, " %s %" PRIu64, name, v);
    else
        fprintf(f, " %s n/a", name);
}

static void dump_resource(FILE *f, const scope_rec_resource *r) {
    fputs("  RESOURCE at ", f);
    put_secs(f, r->mono_ns);
    fprintf(f, " for %" PRIu64 "ns node %" PRIu32, r->interval_ns, r->node);
    put_fig(f, "rss", r->present, SCOPE_RES_RSS, r->rss);
    put_fig(f, "user_ns", r->present, SCOPE_RES_CPU_USER, r->cpu_user_ns);
    put_fig(f, "sys_ns", r->present, SCOPE_RES_CPU_SYS, r->cpu_sys_ns);
    put_fig(f, "disk_r", r->present, SCOPE_RES_DISK_READ, r->disk_read);
    put_fig(f, "disk_w", r->present, SCOPE_RES_DISK_WRITE, r->disk_write);
    put_fig(f, "chars_r", r->present, SCOPE_RES_CHAR_READ, r->char_read);
    put_fig(f, "chars_w", r->present, SCOPE_RES_CHAR_WRITE, r->char_write);
    put_fig(f, "rss_peak", r->present, SCOPE_RES_RSS_PEAK, r->rss_peak);
    if (r->thread)
        fprintf(f, " thread %" PRIu32, r->thread);
    if (r->dropped)
        fprintf(f, " dropped %" PRIu64, r->dropped);
    for (uint32_t i = 0; i < r->ngpus; i++) {
        const scope_gpu_figures *g = &r->gpus[i];
        fprintf(f, "\n      gpu %" PRIu32 ":", g->index);
        if (g->present & SCOPE_GPU_BUSY)
            fprintf(f, " busy %u.%02u%%", g->busy_permyriad / 100, g->busy_permyriad % 100);
        else
            fputs(" busy n/a", f);
        if (g->present & SCOPE_GPU_RUN)
            fprintf(f, " run %u.%02u%%", g->run_permyriad / 100, g->run_permyriad % 100);
        else
            fputs(" run n/a", f);
        put_fig(f, "mem_used", g->present, SCOPE_GPU_MEM_USED, g->mem_used);
        put_fig(f, "mem_run", g->present, SCOPE_GPU_MEM_RUN, g->mem_run);
        put_fig(f, "mem_total", g->present, SCOPE_GPU_MEM_TOTAL, g->mem_total);
        if (g->present & SCOPE_GPU_RUN_SEEN)
            fputs(" run-seen", f);
    }
    fputc('\n', f);
}

static void dump_frame(FILE *f, const scope_rec_frame *r) {
    fprintf(f, "  FRAME seq %" PRIu64 " (nested)\n", r->seq);
}

static void dump_string(FILE *f, const scope_rec_string *r) {
    fprintf(f, "  STRING %" PRIu32 " ", r->id);
    put_str(f, r->value);
    fputc('\n', f);
}

static void dump_thread(FILE *f, const scope_rec_thread *r) {
    fprintf(f, "  THREAD %" PRIu32 " tid %" PRId64 " started ", r->index, r->tid);
    put_secs(f, r->start_mono_ns);
    put_named(f, " name ", r->name);
    fputc('\n', f);
}

static void dump_phase_node(FILE *f, const scope_rec_phase_node *n) {
    fprintf(f,
            "  PHASE_NODE %" PRIu32 " parent %" PRIu32 " name %" PRIu32 " thread %" PRIu32
            " flags%s%s%s file %" PRIu32 " line %" PRIu32 "\n",
            n->id, n->parent, n->name, n->thread, n->flags & SCOPE_PHASE_F_IO ? " io" : "",
            n->flags & SCOPE_PHASE_F_SYNC ? " sync" : "", n->flags ? "" : " -", n->file, n->line);
}

static void dump_counter(FILE *f, const scope_rec_counter *r) {
    fprintf(f,
            "  COUNTER %" PRIu32 " name %" PRIu32 " node %" PRIu32 " thread %" PRIu32
            " calls %" PRIu64 " total %" PRId64 "\n",
            r->id, r->name, r->node, r->thread, r->calls, r->total);
}

static void dump_module(FILE *f, const scope_rec_module *r) {
    fprintf(f, "  MODULE %" PRIu32 " base 0x%" PRIx64 " size %" PRIu64 " build-id ", r->id, r->base,
            r->size);
    put_hex(f, r->build_id);
    put_named(f, " path ", r->path);
    fputc('\n', f);
}

static void dump_stack(FILE *f, const scope_rec_stack *r) {
    fprintf(f, "  STACK %" PRIu32 " (%" PRIu32 " frames):", r->id, r->nframes);
    for (uint32_t i = 0; i < r->nframes; i++)
        fprintf(f, " %" PRIu32 "+0x%" PRIx64, r->frames[i].module, r->frames[i].offset);
    fputc('\n', f);
}

static void dump_stack_samples(FILE *f, const scope_rec_stack_samples *r) {
    fprintf(f,
            "  STACK_SAMPLES thread %" PRIu32 " node %" PRIu32 " period %" PRIu64 "ns:", r->thread,
            r->node, r->period_ns);
    for (uint32_t i = 0; i < r->n; i++)
        fprintf(f, " %" PRIu32 "x%" PRIu64, r->counts[i].stack, r->counts[i].count);
    fputc('\n', f);
}

static void dump_offcpu_samples(FILE *f, const scope_rec_offcpu_samples *r) {
    const char *state = r->state == SCOPE_CPU_BLOCKED  ? "blocked"
                        : r->state == SCOPE_CPU_QUEUED ? "queued"
                                                       : "state?";
    fprintf(f,
            "  OFFCPU_SAMPLES thread %" PRIu32 " node %" PRIu32 " %s (%" PRIu32 ") period %" PRIu64
            "ns:",
            r->thread, r->node, state, r->state, r->period_ns);
    for (uint32_t i = 0; i < r->n; i++)
        fprintf(f, " %" PRIu32 "x%" PRIu64, r->counts[i].stack, r->counts[i].count);
    fputc('\n', f);
}

static void dump_lines(FILE *f, const scope_rec_lines *r) {
    fprintf(f,
            "  LINES %" PRIu32 " Hz %s period %" PRIu64 "ns samples %" PRIu64 " dropped %" PRIu64
            " truncated %" PRIu64 " threads %" PRIu32 " failed %" PRIu32 " flags",
            r->hz, r->clock == SCOPE_LINES_CLOCK_WALL ? "wall" : "cpu", r->period_ns, r->samples,
            r->dropped, r->truncated, r->threads, r->threads_failed);
    if (!r->flags)
        fputs(" -", f);
    if (r->flags & SCOPE_LINES_F_ACTIVE)
        fputs(" active", f);
    if (r->flags & SCOPE_LINES_F_FOREIGN)
        fputs(" foreign-handler", f);
    if (r->flags & SCOPE_LINES_F_BLOCKED)
        fputs(" blocked", f);
    if (r->flags & SCOPE_LINES_F_NO_UNWIND)
        fputs(" no-unwind", f);
    put_named(f, " project ", r->project);
    if (r->signals)
        fprintf(f, " signals %" PRIu64, r->signals);
    fputc('\n', f);
}

static void put_mark(FILE *f, const char *what, const scope_rec_mark *r) {
    fprintf(f, "  %s %s thread %" PRIu32 " at ", what, scope_mark_kind_name(r->kind), r->thread);
    put_secs(f, r->mono_ns);
    fprintf(f, " value %" PRId64 " ", r->value);
    if (r->kind == SCOPE_MARK_UNBALANCED)
        fprintf(f, "%s value2 %" PRId64 " ", scope_unbalanced_subkind_name(r->subkind), r->value2);
    put_str(f, r->text);
    fputc('\n', f);
}

static void dump_mark(FILE *f, const scope_rec_mark *r) {
    put_mark(f, "MARK", r);
}

static void dump_mark_state(FILE *f, const scope_rec_mark_state *r) {
    put_mark(f, "MARK_STATE", r);
}

static void dump_resource_series(FILE *f, const scope_rec_resource_series *r) {
    fprintf(f, "  RESOURCE_SERIES thread %" PRIu32 " figure %" PRIu32 " device %" PRIu32 " from ",
            r->thread, r->figure, r->device);
    put_secs(f, r->start_mono_ns);
    fputs(" by ", f);
    put_secs(f, r->bucket_ns);
    fprintf(f, ", %" PRIu64 " samples in %" PRIu32 " buckets:", r->samples_total, r->nbuckets);
    for (uint32_t i = 0; i < r->nbuckets; i++) {
        const scope_series_bucket *k = &r->buckets[i];
        if (k->samples)
            fprintf(f, " %" PRIu32 "=%" PRIu64 "x[%" PRIu64 "..%" PRIu64 "]/%" PRIu64, i,
                    k->samples, k->min, k->max, k->sum);
    }
    fputc('\n', f);
}

static void dump_trace(FILE *f, const scope_rec_trace *r) {
    fprintf(f, "  TRACE thread %" PRIu32 " (%" PRIu32 " events):", r->thread, r->n);
    for (uint32_t i = 0; i < r->n; i++)
        fprintf(f, " %" PRIu32 "@%" PRIu64 "+%" PRIu64, r->events[i].node, r->events[i].start_ns,
                r->events[i].dur_ns);
    fputc('\n', f);
}

static void dump_open(FILE *f, const scope_rec_open *r) {
    fprintf(f, "  OPEN thread %" PRIu32 " (%" PRIu32 " open):", r->thread, r->n);
    for (uint32_t i = 0; i < r->n; i++)
        fprintf(f, " %" PRIu32 "@%" PRIu64, r->phases[i].node, r->phases[i].start_ns);
    fputc('\n', f);
}

static void dump_trace_window(FILE *f, const scope_rec_trace_window *r) {
    static const char *const states[] = {"waiting", "open", "closed", "capped"};
    fprintf(f, "  TRACE_WINDOW phase %" PRIu32 " entries %" PRIu64 "-%" PRIu64 " %s from ",
            r->phase, r->first, r->last, r->state < 4 ? states[r->state] : "unknown");
    put_secs(f, r->start_mono_ns);
    fputs(" to ", f);
    put_secs(f, r->end_mono_ns);
    fprintf(f, " events %" PRIu64 " cap %" PRIu64 " lost %" PRIu64 "\n", r->events, r->cap,
            r->lost);
}

static void dump_trace_counts(FILE *f, const scope_rec_trace_counts *r) {
    fprintf(f, "  TRACE_COUNTS thread %" PRIu32 " (%" PRIu32 " events):", r->thread, r->n);
    for (uint32_t i = 0; i < r->n; i++)
        fprintf(f, " %" PRIu32 "@%" PRIu64 "%+" PRId64, r->events[i].name, r->events[i].mono_ns,
                r->events[i].value);
    fputc('\n', f);
}

static void put_io_sums(FILE *f, const char *who, const scope_io_sums *s) {
    fprintf(f,
            " %s %" PRIu64 " intervals disk %" PRIu64 "r/%" PRIu64 "w char %" PRIu64 "r/%" PRIu64
            "w",
            who, s->intervals, s->disk_read, s->disk_write, s->char_read, s->char_write);
}

static void dump_node_io(FILE *f, const scope_rec_node_io *r) {
    fprintf(f, "  NODE_IO node %" PRIu32 ":", r->node);
    put_io_sums(f, "threads", &r->thread);
    fputc(',', f);
    put_io_sums(f, "process", &r->process);
    fputc('\n', f);
}

/* The batch's line, then each of its intervals as a RESOURCE record's. */
static void dump_resource_batch(FILE *f, const scope_rec_resource_batch *r) {
    fprintf(f, "  RESOURCE_BATCH of %" PRIu32 " interval%s\n", r->n, r->n == 1 ? "" : "s");
    for (uint32_t i = 0; i < r->n; i++) {
        fputs("  ", f);
        dump_resource(f, &r->records[i]);
    }
}

/* One line (or a few) per record, by the kinds of scope/record_kinds.h. */
static void dump_record(FILE *f, const scope_record *r) {
    switch (r->type) {
#define DUMP_ROW(name, number, member)                                                             \
    case SCOPE_REC_##name:                                                                         \
        dump_##member(f, &r->u.member);                                                            \
        break;
        SCOPE_REC_KINDS(DUMP_ROW)
#undef DUMP_ROW
    default:
        fprintf(f, "  UNKNOWN type %" PRIu32 " (%zu bytes, skipped)\n", r->type, r->raw.len);
        break;
    }
}

static void dump_damage(FILE *f, const scope_log_reader *r) {
    size_t n = scope_log_reader_damage_count(r);
    for (size_t i = 0; i < n; i++) {
        const scope_log_damage *d = scope_log_reader_damage(r, i);
        if (d->length)
            fprintf(f, "  bytes %" PRIu64 "..%" PRIu64 " (%" PRIu64 " bytes%s) skipped: %s",
                    d->offset, d->offset + d->length - 1, d->length,
                    d->truncated ? ", to the end of the file" : "", d->what);
        else
            fprintf(f, "  at byte %" PRIu64 ": %s", d->offset, d->what);
        if (d->frames_lost)
            fprintf(f, "; %" PRIu64 " frame%s lost", d->frames_lost,
                    d->frames_lost == 1 ? "" : "s");
        fputc('\n', f);
    }
}

static int dump_file(FILE *f, const char *path, enum dump_detail detail) {
    char msg[256];
    scope_log_reader *r;
    if (scope_log_reader_open(&r, path, msg, sizeof msg) < 0) {
        fprintf(stderr, "scope-tui dump: ");
        scope_fput_escaped(stderr, (const uint8_t *)path, strlen(path), 0);
        fprintf(stderr, ": %s\n", msg);
        return 2;
    }
    scope_log_reader_whole_batches(r, 1); /* each batch shown as written, its intervals under it */
    const scope_log_info *info = scope_log_reader_info(r);
    fputs("log ", f);
    scope_fput_escaped(f, (const uint8_t *)path, strlen(path), 0);
    fprintf(f, "\nformat %u.%u%s, %" PRIu64 " bytes\n", info->version_major, info->version_minor,
            info->header_ok ? "" : " (assumed: header damaged)", info->file_size);

    scope_rec_frame fr;
    uint64_t off, records = 0, unknown = 0;
    while (scope_log_reader_next_frame(r, &fr, &off)) {
        if (detail != DUMP_SUMMARY) {
            fprintf(f, "frame %" PRIu64 " at byte %" PRIu64 ", %s%s, mono ", fr.seq, off,
                    scope_frame_reason_name(fr.reason),
                    fr.flags & SCOPE_FRAME_F_SNAPSHOT ? ", snapshot" : "");
            put_secs(f, fr.mono_ns);
            fputs(", wall ", f);
            put_wall(f, fr.wall_ns);
            if (fr.last_snapshot)
                fprintf(f, ", previous snapshot at byte %" PRIu64, fr.last_snapshot);
            fputc('\n', f);
        }
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec)) {
            records++;
            unknown += !scope_rec_type_known(rec.type);
            if (detail == DUMP_RECORDS)
                dump_record(f, &rec);
        }
    }
    size_t ndamage = scope_log_reader_damage_count(r);
    uint64_t frames = scope_log_reader_frames_read(r);
    fprintf(f, "summary: %" PRIu64 " frame%s, %" PRIu64 " record%s read", frames,
            frames == 1 ? "" : "s", records, records == 1 ? "" : "s");
    if (unknown)
        fprintf(f, " (%" PRIu64 " of unknown kinds skipped)", unknown);
    if (ndamage == 0) {
        fputs("; nothing skipped\n", f);
    } else {
        fprintf(f, "; %zu problem%s:\n", ndamage, ndamage == 1 ? "" : "s");
        dump_damage(f, r);
    }
    scope_log_reader_close(r);
    return ndamage ? 1 : 0;
}

static void dump_usage(FILE *f) {
    fputs("usage: scope-tui dump [--frames | --summary] FILE...\n"
          "Print a scope event log's frames and records as text, then what was skipped.\n"
          "  --frames   one line per frame, no records\n"
          "  --summary  only the summary of frames, records and damage\n"
          "Exit status: 0 all read, 1 damage skipped (see summary), 2 unreadable or usage.\n",
          f);
}

int scope_cmd_dump(int argc, char **argv) {
    static const struct option opts[] = {{"frames", no_argument, 0, 'f'},
                                         {"summary", no_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    enum dump_detail detail = DUMP_RECORDS;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "fsh", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            detail = DUMP_FRAMES;
            break;
        case 's':
            detail = DUMP_SUMMARY;
            break;
        case 'h':
            dump_usage(stdout);
            return 0;
        default:
            dump_usage(stderr);
            return 2;
        }
    }
    if (optind >= argc) {
        fputs("scope-tui dump: no log file given\n", stderr);
        dump_usage(stderr);
        return 2;
    }
    int worst = 0;
    for (int i = optind; i < argc; i++) {
        int rc = dump_file(stdout, argv[i], detail);
        worst = rc > worst ? rc : worst;
    }
    return worst;
}
