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
    fputs("  PROCESS run ", f);
    put_str(f, p->run_id);
    fputs(" uuid ", f);
    put_str(f, p->uuid);
    fputs(" host ", f);
    put_str(f, p->host);
    fputs(" role ", f);
    put_str(f, p->role);
    fprintf(f, "\n      pid %" PRId64 " ppid %" PRId64 " rank %d local_rank %d node %d world %d",
            p->pid, p->ppid, p->rank, p->local_rank, p->node_rank, p->world_size);
    fputs(" job ", f);
    put_str(f, p->job_id);
    fputs(" step ", f);
    put_str(f, p->step_id);
    fputs("\n      started ", f);
    put_wall(f, p->start_wall_ns);
    fputs(" mono ", f);
    put_secs(f, p->start_mono_ns);
    fputs(" recorder ", f);
    put_str(f, p->recorder_version);
    fputs("\n      exe ", f);
    put_str(f, p->exe);
    fputs(" cwd ", f);
    put_str(f, p->cwd);
    fputs("\n      argv", f);
    for (uint32_t i = 0; i < p->argc; i++) {
        fputc(' ', f);
        put_str(f, p->argv[i]);
    }
    for (uint32_t i = 0; i < p->nsettings; i++) {
        fputs("\n      setting ", f);
        put_str(f, p->settings[i].key);
        fputc('=', f);
        put_str(f, p->settings[i].value);
    }
    fputc('\n', f);
}

static void dump_agg(FILE *f, const scope_rec_phase_agg *a) {
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
    }
    fputc('\n', f);
}

static void dump_record(FILE *f, const scope_record *r) {
    switch (r->type) {
    case SCOPE_REC_FRAME:
        fprintf(f, "  FRAME seq %" PRIu64 " (nested)\n", r->u.frame.seq);
        break;
    case SCOPE_REC_PROCESS:
        dump_process(f, &r->u.process);
        break;
    case SCOPE_REC_STRING:
        fprintf(f, "  STRING %" PRIu32 " ", r->u.string.id);
        put_str(f, r->u.string.value);
        fputc('\n', f);
        break;
    case SCOPE_REC_THREAD:
        fprintf(f, "  THREAD %" PRIu32 " tid %" PRId64 " started ", r->u.thread.index,
                r->u.thread.tid);
        put_secs(f, r->u.thread.start_mono_ns);
        fputs(" name ", f);
        put_str(f, r->u.thread.name);
        fputc('\n', f);
        break;
    case SCOPE_REC_PHASE_NODE: {
        const scope_rec_phase_node *n = &r->u.phase_node;
        fprintf(f,
                "  PHASE_NODE %" PRIu32 " parent %" PRIu32 " name %" PRIu32 " thread %" PRIu32
                " flags%s%s%s file %" PRIu32 " line %" PRIu32 "\n",
                n->id, n->parent, n->name, n->thread, n->flags & SCOPE_PHASE_F_IO ? " io" : "",
                n->flags & SCOPE_PHASE_F_SYNC ? " sync" : "", n->flags ? "" : " -", n->file,
                n->line);
        break;
    }
    case SCOPE_REC_PHASE_AGG:
        dump_agg(f, &r->u.phase_agg);
        break;
    case SCOPE_REC_COUNTER:
        fprintf(f,
                "  COUNTER %" PRIu32 " name %" PRIu32 " node %" PRIu32 " thread %" PRIu32
                " calls %" PRIu64 " total %" PRId64 "\n",
                r->u.counter.id, r->u.counter.name, r->u.counter.node, r->u.counter.thread,
                r->u.counter.calls, r->u.counter.total);
        break;
    case SCOPE_REC_RESOURCE:
        dump_resource(f, &r->u.resource);
        break;
    case SCOPE_REC_MODULE:
        fprintf(f, "  MODULE %" PRIu32 " base 0x%" PRIx64 " size %" PRIu64 " build-id ",
                r->u.module.id, r->u.module.base, r->u.module.size);
        put_hex(f, r->u.module.build_id);
        fputs(" path ", f);
        put_str(f, r->u.module.path);
        fputc('\n', f);
        break;
    case SCOPE_REC_STACK:
        fprintf(f, "  STACK %" PRIu32 " (%" PRIu32 " frames):", r->u.stack.id, r->u.stack.nframes);
        for (uint32_t i = 0; i < r->u.stack.nframes; i++)
            fprintf(f, " %" PRIu32 "+0x%" PRIx64, r->u.stack.frames[i].module,
                    r->u.stack.frames[i].offset);
        fputc('\n', f);
        break;
    case SCOPE_REC_STACK_SAMPLES:
        fprintf(f, "  STACK_SAMPLES thread %" PRIu32 " node %" PRIu32 " period %" PRIu64 "ns:",
                r->u.stack_samples.thread, r->u.stack_samples.node, r->u.stack_samples.period_ns);
        for (uint32_t i = 0; i < r->u.stack_samples.n; i++)
            fprintf(f, " %" PRIu32 "x%" PRIu64, r->u.stack_samples.counts[i].stack,
                    r->u.stack_samples.counts[i].count);
        fputc('\n', f);
        break;
    case SCOPE_REC_MARK:
        fprintf(f, "  MARK %s thread %" PRIu32 " at ", scope_mark_kind_name(r->u.mark.kind),
                r->u.mark.thread);
        put_secs(f, r->u.mark.mono_ns);
        fprintf(f, " value %" PRId64 " ", r->u.mark.value);
        if (r->u.mark.kind == SCOPE_MARK_UNBALANCED)
            fprintf(f, "%s value2 %" PRId64 " ", scope_unbalanced_subkind_name(r->u.mark.subkind),
                    r->u.mark.value2);
        put_str(f, r->u.mark.text);
        fputc('\n', f);
        break;
    case SCOPE_REC_TRACE:
        fprintf(f, "  TRACE thread %" PRIu32 " (%" PRIu32 " events):", r->u.trace.thread,
                r->u.trace.n);
        for (uint32_t i = 0; i < r->u.trace.n; i++)
            fprintf(f, " %" PRIu32 "@%" PRIu64 "+%" PRIu64, r->u.trace.events[i].node,
                    r->u.trace.events[i].start_ns, r->u.trace.events[i].dur_ns);
        fputc('\n', f);
        break;
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
    const scope_log_info *info = scope_log_reader_info(r);
    fputs("log ", f);
    scope_fput_escaped(f, (const uint8_t *)path, strlen(path), 0);
    fprintf(f, "\nformat %u.%u%s, %" PRIu64 " bytes\n", info->version_major, info->version_minor,
            info->header_ok ? "" : " (assumed: header damaged)", info->file_size);

    scope_rec_frame fr;
    uint64_t off, records = 0, unknown = 0;
    while (scope_log_reader_next_frame(r, &fr, &off)) {
        if (detail != DUMP_SUMMARY) {
            fprintf(f, "frame %" PRIu64 " at byte %" PRIu64 ", %s, mono ", fr.seq, off,
                    scope_frame_reason_name(fr.reason));
            put_secs(f, fr.mono_ns);
            fputs(", wall ", f);
            put_wall(f, fr.wall_ns);
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
