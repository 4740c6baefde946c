/*
 * libFuzzer targets for the event-log reader.  One source, three builds,
 * chosen by SCOPE_FUZZ_MODE:
 *
 *   1 (fuzz_log_reader)   the input is a whole log file, header included;
 *   2 (fuzz_log_suffix)   the input follows a valid file header, so every
 *                         mutation lands in the frames instead of being
 *                         rejected as "not a scope log";
 *   3 (fuzz_log_records)  the input is the *decompressed* content of data
 *                         frames (separated by SCOPE_FUZZ_FRAME_SEP); the
 *                         harness compresses each into a well-formed zstd
 *                         frame after a valid header.  Zstd's checksum
 *                         makes almost every mutation of a compressed frame a
 *                         "checksum mismatch", so only this mode reaches the
 *                         record decoder with arbitrary bodies.  It also checks
 *                         a round trip: re-encoding every decoded record with
 *                         scope_record_encode and reading the result back must
 *                         give the same decoded fields.
 *
 * Every mode iterates all frames and records and reads every decoded field
 * and array element, so AddressSanitizer sees any pointer or length the
 * reader got wrong, then reads the whole damage list.  Whatever the input,
 * the reader must stay within its documented limits (docs/format.md, "The
 * reader's limits"): no more records handed out than the limit allows for
 * the input's length.
 *
 * Modes 1 and 2 also read the input as a file (a memfd), through the
 * reader's window, which the fuzz build makes 4 KiB (SCOPE_LOG_READ_WINDOW)
 * so that inputs of fuzzing size cross many windows: it must give exactly
 * what the reader over memory gives, and read each byte of the file at most
 * once (pread is wrapped to count), so a scan that rereads its window per
 * candidate frame is a crash here, not a slow input.
 */
#define _GNU_SOURCE /* memmem */
#include "fuzz_common.h"
#include "varint.h" /* the codec's own LEB128, for re-encoding */

#include <scope/log_format.h>

#include <zstd.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef SCOPE_FUZZ_MODE
#define SCOPE_FUZZ_MODE 1
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reader's reads, counted: the executables link with --wrap=pread. */
ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);
static uint64_t g_pread_bytes;

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off) {
    ssize_t k = __real_pread(fd, buf, n, off);
    if (k > 0)
        g_pread_bytes += (uint64_t)k;
    return k;
}

/* ---- reading every field ------------------------------------------------ */

/* FNV-1a over everything decoded.  Besides making each field a real load (so
 * ASan checks it), the digest is what the round trip in mode 3 compares. */
#define FNV_PRIME 0x100000001b3ull
#define FNV_BASIS 0xcbf29ce484222325ull

static void mix(uint64_t *h, uint64_t v) {
    for (int i = 0; i < 8; i++) {
        *h = (*h ^ (v & 0xff)) * FNV_PRIME;
        v >>= 8;
    }
}

static void mix_bytes(uint64_t *h, scope_bytes b) {
    mix(h, b.len);
    for (size_t i = 0; i < b.len; i++)
        *h = (*h ^ b.ptr[i]) * FNV_PRIME;
}

static void mix_name(uint64_t *h, const char *s) {
    /* The name tables must answer every value, known or not, with a string. */
    if (!s) {
        fprintf(stderr, "fuzz: a name function returned NULL\n");
        abort();
    }
    mix(h, strlen(s));
}

static void mix_frame(uint64_t *h, const scope_rec_frame *f) {
    mix(h, f->seq);
    mix(h, f->mono_ns);
    mix(h, f->wall_ns);
    mix(h, f->reason);
    mix_name(h, scope_frame_reason_name(f->reason));
    mix(h, f->flags);
    mix(h, f->last_snapshot);
}

static void mix_resource(uint64_t *h, const scope_rec_resource *r) {
    mix(h, r->mono_ns);
    mix(h, r->interval_ns);
    mix(h, r->node);
    mix(h, r->present);
    mix(h, r->rss);
    mix(h, r->cpu_user_ns);
    mix(h, r->cpu_sys_ns);
    mix(h, r->disk_read);
    mix(h, r->disk_write);
    mix(h, r->char_read);
    mix(h, r->char_write);
    mix(h, r->thread);
    mix(h, r->rss_peak);
    mix(h, r->dropped);
    mix(h, r->ngpus);
    for (uint32_t i = 0; i < r->ngpus; i++) {
        const scope_gpu_figures *g = &r->gpus[i];
        mix(h, g->index);
        mix(h, g->present);
        mix(h, g->busy_permyriad);
        mix(h, g->run_permyriad);
        mix(h, g->mem_used);
        mix(h, g->mem_run);
        mix(h, g->mem_total);
    }
}

static void mix_record(uint64_t *h, const scope_record *rec) {
    mix(h, rec->type);
    mix_name(h, scope_rec_type_name(rec->type));
    switch (rec->type) {
    case SCOPE_REC_FRAME:
        mix_frame(h, &rec->u.frame);
        break;
    case SCOPE_REC_PROCESS: {
        const scope_rec_process *p = &rec->u.process;
        mix_bytes(h, p->run_id);
        mix_bytes(h, p->uuid);
        mix_bytes(h, p->host);
        mix_bytes(h, p->role);
        mix_bytes(h, p->job_id);
        mix_bytes(h, p->step_id);
        mix_bytes(h, p->exe);
        mix_bytes(h, p->cwd);
        mix_bytes(h, p->recorder_version);
        mix(h, (uint64_t)p->pid);
        mix(h, (uint64_t)p->ppid);
        mix(h, (uint64_t)(int64_t)p->rank);
        mix(h, (uint64_t)(int64_t)p->local_rank);
        mix(h, (uint64_t)(int64_t)p->node_rank);
        mix(h, (uint64_t)(int64_t)p->world_size);
        mix(h, p->start_wall_ns);
        mix(h, p->start_mono_ns);
        mix(h, p->argc);
        for (uint32_t i = 0; i < p->argc; i++)
            mix_bytes(h, p->argv[i]);
        mix(h, p->nsettings);
        for (uint32_t i = 0; i < p->nsettings; i++) {
            mix_bytes(h, p->settings[i].key);
            mix_bytes(h, p->settings[i].value);
        }
        mix_bytes(h, p->launcher);
        mix_bytes(h, p->array_job_id);
        mix(h, (uint64_t)(int64_t)p->array_task);
        mix(h, (uint64_t)(int64_t)p->restarts);
        break;
    }
    case SCOPE_REC_STRING:
        mix(h, rec->u.string.id);
        mix_bytes(h, rec->u.string.value);
        break;
    case SCOPE_REC_THREAD:
        mix(h, rec->u.thread.index);
        mix(h, (uint64_t)rec->u.thread.tid);
        mix(h, rec->u.thread.start_mono_ns);
        mix_bytes(h, rec->u.thread.name);
        break;
    case SCOPE_REC_PHASE_NODE: {
        const scope_rec_phase_node *n = &rec->u.phase_node;
        mix(h, n->id);
        mix(h, n->parent);
        mix(h, n->name);
        mix(h, n->thread);
        mix(h, n->flags);
        mix(h, n->file);
        mix(h, n->line);
        break;
    }
    case SCOPE_REC_PHASE_AGG: {
        const scope_rec_phase_agg *a = &rec->u.phase_agg;
        mix(h, a->node);
        mix(h, a->count);
        mix(h, a->wall_ns);
        mix(h, a->min_ns);
        mix(h, a->max_ns);
        mix(h, a->cpu_count);
        mix(h, a->cpu_wall_ns);
        mix(h, a->cpu_ns);
        mix(h, a->io_flags);
        mix(h, a->io_count);
        mix(h, a->io_failed);
        mix(h, a->disk_read);
        mix(h, a->disk_write);
        mix(h, a->char_read);
        mix(h, a->char_write);
        mix(h, a->nbins);
        for (uint32_t i = 0; i < a->nbins; i++) {
            mix(h, a->bins[i].bucket);
            mix(h, a->bins[i].count);
        }
        break;
    }
    case SCOPE_REC_COUNTER: {
        const scope_rec_counter *c = &rec->u.counter;
        mix(h, c->id);
        mix(h, c->name);
        mix(h, c->node);
        mix(h, c->thread);
        mix(h, c->calls);
        mix(h, (uint64_t)c->total);
        break;
    }
    case SCOPE_REC_RESOURCE:
        mix_resource(h, &rec->u.resource);
        break;
    case SCOPE_REC_RESOURCE_BATCH:
        mix(h, rec->u.resource_batch.n);
        for (uint32_t i = 0; i < rec->u.resource_batch.n; i++)
            mix_resource(h, &rec->u.resource_batch.records[i]);
        break;
    case SCOPE_REC_MODULE:
        mix(h, rec->u.module.id);
        mix_bytes(h, rec->u.module.path);
        mix_bytes(h, rec->u.module.build_id);
        mix(h, rec->u.module.base);
        mix(h, rec->u.module.size);
        break;
    case SCOPE_REC_STACK:
        mix(h, rec->u.stack.id);
        mix(h, rec->u.stack.nframes);
        for (uint32_t i = 0; i < rec->u.stack.nframes; i++) {
            mix(h, rec->u.stack.frames[i].module);
            mix(h, rec->u.stack.frames[i].offset);
        }
        break;
    case SCOPE_REC_STACK_SAMPLES:
    case SCOPE_REC_OFFCPU_SAMPLES: { /* the same body, and a state */
        const scope_rec_stack_samples *s =
            rec->type == SCOPE_REC_OFFCPU_SAMPLES ? &rec->u.offcpu_samples : &rec->u.stack_samples;
        mix(h, s->thread);
        mix(h, s->node);
        mix(h, rec->type == SCOPE_REC_OFFCPU_SAMPLES ? s->state : 0);
        mix(h, s->period_ns);
        mix(h, s->n);
        for (uint32_t i = 0; i < s->n; i++) {
            mix(h, s->counts[i].stack);
            mix(h, s->counts[i].count);
        }
        break;
    }
    case SCOPE_REC_MARK:
    case SCOPE_REC_MARK_STATE: /* the same body */
        mix(h, rec->u.mark.kind);
        mix_name(h, scope_mark_kind_name(rec->u.mark.kind));
        mix(h, rec->u.mark.thread);
        mix(h, rec->u.mark.mono_ns);
        mix(h, (uint64_t)rec->u.mark.value);
        mix_bytes(h, rec->u.mark.text);
        mix(h, rec->u.mark.subkind);
        mix(h, (uint64_t)rec->u.mark.value2);
        break;
    case SCOPE_REC_RESOURCE_SERIES: {
        const scope_rec_resource_series *s = &rec->u.resource_series;
        mix(h, s->thread);
        mix(h, s->figure);
        mix(h, s->device);
        mix(h, s->start_mono_ns);
        mix(h, s->bucket_ns);
        mix(h, s->samples_total);
        mix(h, s->nbuckets);
        for (uint32_t i = 0; i < s->nbuckets; i++) {
            mix(h, s->buckets[i].samples);
            mix(h, s->buckets[i].covered_ns);
            mix(h, s->buckets[i].min);
            mix(h, s->buckets[i].max);
            mix(h, s->buckets[i].sum);
        }
        break;
    }
    case SCOPE_REC_LINES:
        mix_bytes(h, rec->u.lines.project);
        mix(h, rec->u.lines.hz);
        mix(h, rec->u.lines.clock);
        mix(h, rec->u.lines.period_ns);
        mix(h, rec->u.lines.samples);
        mix(h, rec->u.lines.dropped);
        mix(h, rec->u.lines.truncated);
        mix(h, rec->u.lines.threads);
        mix(h, rec->u.lines.threads_failed);
        mix(h, rec->u.lines.flags);
        break;
    case SCOPE_REC_TRACE:
        mix(h, rec->u.trace.thread);
        mix(h, rec->u.trace.n);
        for (uint32_t i = 0; i < rec->u.trace.n; i++) {
            mix(h, rec->u.trace.events[i].node);
            mix(h, rec->u.trace.events[i].start_ns);
            mix(h, rec->u.trace.events[i].dur_ns);
        }
        break;
    case SCOPE_REC_OPEN:
        mix(h, rec->u.open.thread);
        mix(h, rec->u.open.n);
        for (uint32_t i = 0; i < rec->u.open.n; i++) {
            mix(h, rec->u.open.phases[i].node);
            mix(h, rec->u.open.phases[i].start_ns);
        }
        break;
    case SCOPE_REC_NODE_IO: {
        const scope_rec_node_io *n = &rec->u.node_io;
        const scope_io_sums *sums[2] = {&n->thread, &n->process};
        mix(h, n->node);
        for (int i = 0; i < 2; i++) {
            mix(h, sums[i]->intervals);
            mix(h, sums[i]->disk_read);
            mix(h, sums[i]->disk_write);
            mix(h, sums[i]->char_read);
            mix(h, sums[i]->char_write);
        }
        break;
    }
    case SCOPE_REC_TRACE_WINDOW:
        mix(h, rec->u.trace_window.phase);
        mix(h, rec->u.trace_window.first);
        mix(h, rec->u.trace_window.last);
        mix(h, rec->u.trace_window.state);
        mix(h, rec->u.trace_window.start_mono_ns);
        mix(h, rec->u.trace_window.end_mono_ns);
        mix(h, rec->u.trace_window.events);
        mix(h, rec->u.trace_window.cap);
        mix(h, rec->u.trace_window.lost);
        break;
    case SCOPE_REC_TRACE_COUNTS:
        mix(h, rec->u.trace_counts.thread);
        mix(h, rec->u.trace_counts.n);
        for (uint32_t i = 0; i < rec->u.trace_counts.n; i++) {
            mix(h, rec->u.trace_counts.events[i].name);
            mix(h, rec->u.trace_counts.events[i].mono_ns);
            mix(h, (uint64_t)rec->u.trace_counts.events[i].value);
        }
        break;
    default:
        /* Unknown kinds carry only their raw body. */
        mix_bytes(h, rec->raw);
        break;
    }
}

/* ---- re-encoding (mode 3 round trip) ------------------------------------- */

typedef struct buf {
    uint8_t *p;
    size_t len, cap;
} buf;

static uint8_t *buf_reserve(buf *b, size_t n) {
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->len < n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p)
            abort();
        b->p = p;
        b->cap = cap;
    }
    return b->p + b->len;
}

static void buf_put(buf *b, const void *src, size_t n) {
    if (n) {
        memcpy(buf_reserve(b, n), src, n);
        b->len += n;
    }
}

static void buf_varint(buf *b, uint64_t v) {
    uint8_t tmp[VARINT_MAX_LEN];
    enc_buf e = {tmp, sizeof tmp, 0};
    enc_u64(&e, v);
    buf_put(b, tmp, e.len);
}

/* Appends  type | length | body  for rec, encoding known kinds with the
 * codec's own encoder.  The encoder is first asked for the size with a buffer
 * one byte too small, allocated exactly, so an encoder that writes past its
 * capacity is caught by ASan rather than silently corrupting the heap. */
static void append_encoded(buf *out, const scope_record *rec) {
    if (!scope_rec_type_known(rec->type)) {
        buf_varint(out, rec->type);
        buf_varint(out, rec->raw.len);
        buf_put(out, rec->raw.ptr, rec->raw.len);
        return;
    }
    size_t need = scope_record_encode(rec, NULL, 0);
    if (need > 0) {
        uint8_t *small = malloc(need - 1 ? need - 1 : 1);
        if (!small)
            abort();
        size_t again = scope_record_encode(rec, small, need - 1);
        free(small);
        if (again != need) {
            fprintf(stderr, "fuzz: scope_record_encode gave %zu with cap 0 but %zu with cap %zu\n",
                    need, again, need - 1);
            abort();
        }
    }
    uint8_t *body = malloc(need ? need : 1);
    if (!body)
        abort();
    size_t got = scope_record_encode(rec, body, need);
    if (got != need) {
        fprintf(stderr, "fuzz: scope_record_encode needs %zu but wrote %zu\n", need, got);
        abort();
    }
    buf_varint(out, rec->type);
    buf_varint(out, got);
    buf_put(out, body, got);
    free(body);
}

/* ---- driving the reader ------------------------------------------------ */

static void read_damage(const scope_log_reader *r, uint64_t *h) {
    size_t n = scope_log_reader_damage_count(r);
    for (size_t i = 0; i < n; i++) {
        const scope_log_damage *d = scope_log_reader_damage(r, i);
        if (!d) {
            fprintf(stderr, "fuzz: damage entry %zu of %zu is NULL\n", i, n);
            abort();
        }
        mix(h, d->offset);
        mix(h, d->length);
        mix(h, d->frames_lost);
        mix(h, (uint64_t)d->truncated);
        /* Callers print `what` with %s: it must be terminated inside the array. */
        const char *end = memchr(d->what, '\0', sizeof d->what);
        if (!end) {
            fprintf(stderr, "fuzz: damage[%zu].what is not NUL-terminated\n", i);
            abort();
        }
        mix(h, (uint64_t)(end - d->what));
    }
}

/* Frame contents rebuilt from decoded records, one buffer per frame read. */
typedef struct frame_list {
    buf *frames;
    size_t n, cap;
} frame_list;

/* Reads the whole log in data[0..size), or the file at `path` holding the
 * same bytes, and returns the digest of everything decoded.  When
 * `reencoded` is given, every frame read is also rebuilt into it from its
 * decoded records, for the round trip of mode 3. */
static uint64_t read_log(const uint8_t *data, size_t size, const char *path,
                         frame_list *reencoded) {
    uint64_t h = FNV_BASIS;
    char msg[256];
    memset(msg, 'x', sizeof msg);
    scope_log_reader *r = NULL;
    int rc = path ? scope_log_reader_open(&r, path, msg, sizeof msg)
                  : scope_log_reader_open_mem(&r, data, size, msg, sizeof msg);
    if (rc < 0) {
        /* The message must be a terminated string inside the buffer it was given. */
        if (!memchr(msg, '\0', sizeof msg)) {
            fprintf(stderr, "fuzz: open message is not NUL-terminated\n");
            abort();
        }
        if (r) {
            fprintf(stderr, "fuzz: open failed (%d) but set the reader\n", rc);
            abort();
        }
        mix(&h, (uint64_t)(int64_t)rc);
        return h;
    }
    if (!r) {
        fprintf(stderr, "fuzz: open succeeded without a reader\n");
        abort();
    }
    /* Re-encoding a batch as itself round-trips its own encoder; other
     * reads take its intervals one by one, as the analysis does. */
    scope_log_reader_whole_batches(r, reencoded != NULL);
    const scope_log_info *info = scope_log_reader_info(r);
    mix(&h, info->version_major);
    mix(&h, info->version_minor);
    mix(&h, info->file_size);
    mix(&h, (uint64_t)info->header_ok);

    scope_rec_frame frame;
    uint64_t offset = 0, prev_offset = 0, records = 0;
    int first = 1;
    while (scope_log_reader_next_frame(r, &frame, &offset) == 1) {
        if (offset >= size || (!first && offset <= prev_offset)) {
            fprintf(stderr, "fuzz: frame offset %llu after %llu in a %zu-byte log\n",
                    (unsigned long long)offset, (unsigned long long)prev_offset, size);
            abort();
        }
        first = 0;
        prev_offset = offset;
        /* Frame offsets differ between the original and the rebuilt log (the
         * compressed sizes differ), so they stay out of the digest. */
        mix_frame(&h, &frame);
        buf *out = NULL;
        if (reencoded) {
            if (reencoded->n == reencoded->cap) {
                reencoded->cap = reencoded->cap ? 2 * reencoded->cap : 8;
                reencoded->frames =
                    realloc(reencoded->frames, reencoded->cap * sizeof *reencoded->frames);
                if (!reencoded->frames)
                    abort();
            }
            out = &reencoded->frames[reencoded->n++];
            memset(out, 0, sizeof *out);
            scope_record fr;
            memset(&fr, 0, sizeof fr);
            fr.type = SCOPE_REC_FRAME;
            fr.u.frame = frame;
            append_encoded(out, &fr);
        }
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1) {
            records++;
            mix_bytes(&h, rec.raw);
            if (out)
                append_encoded(out, &rec);
            mix_record(&h, &rec);
        }
    }
    uint64_t limit = (uint64_t)size * SCOPE_LOG_MAX_RECORDS_PER_BYTE + SCOPE_LOG_RECORDS_ALLOWANCE;
    if (records > limit) {
        fprintf(stderr, "fuzz: %llu records from a %zu-byte log, past the limit of %llu\n",
                (unsigned long long)records, size, (unsigned long long)limit);
        abort();
    }
    /* Calling past the end must keep answering "no more". */
    if (scope_log_reader_next_frame(r, &frame, &offset) != 0) {
        fprintf(stderr, "fuzz: next_frame returned a frame after reporting the end\n");
        abort();
    }
    mix(&h, scope_log_reader_frames_read(r));
    read_damage(r, &h);
    scope_log_reader_close(r);
    return h;
}

#if SCOPE_FUZZ_MODE == 3
/* Digest of the decoded fields only (no raw bytes, no damage, no offsets):
 * what must survive decode -> encode -> decode unchanged. */
static uint64_t fields_digest(const uint8_t *data, size_t size, int whole_batches) {
    uint64_t h = FNV_BASIS;
    scope_log_reader *r = NULL;
    if (scope_log_reader_open_mem(&r, data, size, NULL, 0) < 0)
        return h;
    scope_log_reader_whole_batches(r, whole_batches);
    scope_rec_frame frame;
    uint64_t offset;
    while (scope_log_reader_next_frame(r, &frame, &offset) == 1) {
        mix_frame(&h, &frame);
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1)
            mix_record(&h, &rec);
    }
    scope_log_reader_close(r);
    return h;
}
#endif

/* ---- building logs around the input -------------------------------------- */

/* A valid file header, taken from the real writer rather than spelled out
 * here, so the harness follows the format if the header payload changes. */
static uint8_t g_header[SCOPE_LOG_HEADER_SIZE];
static size_t g_header_len;
static ZSTD_CCtx *g_cctx;

static void capture_header(void) {
    char path[] = "/tmp/scope-fuzz-header-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("fuzz: mkstemp");
        abort();
    }
    unlink(path);
    scope_log_writer *w = NULL;
    if (scope_log_writer_open(&w, fd, NULL) < 0) {
        fprintf(stderr, "fuzz: scope_log_writer_open failed\n");
        abort();
    }
    scope_log_writer_free(w);
    ssize_t n = pread(fd, g_header, sizeof g_header, 0);
    close(fd);
    if (n != (ssize_t)sizeof g_header) {
        fprintf(stderr, "fuzz: the writer wrote a %zd-byte header, expected %u\n", n,
                SCOPE_LOG_HEADER_SIZE);
        abort();
    }
    g_header_len = (size_t)n;
}

#if SCOPE_FUZZ_MODE != 3
static void snapshot_both(const uint8_t *data, size_t size, const char *path);

/* Reads data[0..size) again as a file, through the reader's window: it must
 * give what the reader over memory gave (`want`), reading each byte once. */
static void read_as_file(const uint8_t *data, size_t size, uint64_t want) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz-log", MFD_CLOEXEC);
        if (fd < 0) {
            perror("fuzz: memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("fuzz: writing the memfd");
        abort();
    }
    g_pread_bytes = 0;
    uint64_t got = read_log(data, size, path, NULL);
    if (got != want) {
        fprintf(stderr, "fuzz: the reader over a file and over memory differ (%zu bytes)\n", size);
        abort();
    }
    if (g_pread_bytes > size) {
        fprintf(stderr, "fuzz: the reader read %llu bytes of a %zu-byte file\n",
                (unsigned long long)g_pread_bytes, size);
        abort();
    }
    snapshot_both(data, size, path);
}
#endif

#if SCOPE_FUZZ_MODE != 3
/* Reads data[0..size) (or the file at path) from its newest snapshot
 * (docs/format.md 9.8) and returns the digest of what it read.  The search
 * must name an intact snapshot frame that reading then starts at, or none. */
static uint64_t read_from_snapshot(const uint8_t *data, size_t size, const char *path) {
    uint64_t h = FNV_BASIS;
    scope_log_reader *r = NULL;
    int rc = path ? scope_log_reader_open(&r, path, NULL, 0)
                  : scope_log_reader_open_mem(&r, data, size, NULL, 0);
    if (rc < 0)
        return h;
    size_t opened = scope_log_reader_damage_count(r);
    scope_log_snapshot s;
    if (scope_log_reader_find_snapshot(r, &s) != 0 || scope_log_reader_damage_count(r) != opened) {
        fprintf(stderr, "fuzz: find_snapshot failed, or reported damage\n");
        abort();
    }
    mix(&h, (uint64_t)s.status);
    mix(&h, s.offset);
    mix(&h, s.seq);
    mix(&h, s.damaged_offset);
    mix(&h, s.passed_over);
    if (s.status != SCOPE_SNAPSHOT_NONE) {
        scope_rec_frame fr;
        uint64_t at;
        if (s.offset < SCOPE_LOG_HEADER_SIZE || s.offset >= size ||
            scope_log_reader_seek(r, s.offset, s.seq) != 0 ||
            scope_log_reader_next_frame(r, &fr, &at) != 1 || at != s.offset || fr.seq != s.seq ||
            !(fr.flags & SCOPE_FRAME_F_SNAPSHOT)) {
            fprintf(stderr, "fuzz: the snapshot found at %llu is not where reading starts\n",
                    (unsigned long long)s.offset);
            abort();
        }
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1)
            mix_record(&h, &rec);
    } else if (s.offset || s.passed_over || s.damaged_offset) {
        fprintf(stderr, "fuzz: no snapshot, but an offset\n");
        abort();
    }
    scope_rec_frame frame;
    while (scope_log_reader_next_frame(r, &frame, NULL) == 1) {
        mix_frame(&h, &frame);
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1)
            mix_record(&h, &rec);
    }
    read_damage(r, &h);
    scope_log_reader_close(r);
    return h;
}

/* The snapshot read over memory and over a file agree, and the file's
 * reads stay within a few times its length: the search reads the tail
 * once, and again only after a candidate's walk moved the window, a few
 * times at most. */
static void snapshot_both(const uint8_t *data, size_t size, const char *path) {
    uint64_t want = read_from_snapshot(data, size, NULL);
    g_pread_bytes = 0;
    if (read_from_snapshot(data, size, path) != want) {
        fprintf(stderr, "fuzz: snapshot reads over a file and over memory differ\n");
        abort();
    }
    if (g_pread_bytes > 80 * (uint64_t)size) {
        fprintf(stderr, "fuzz: the snapshot read read %llu bytes of a %zu-byte file\n",
                (unsigned long long)g_pread_bytes, size);
        abort();
    }
}
#endif

#if SCOPE_FUZZ_MODE == 3
/* Appends one zstd frame holding `content`, flagged the way the writer flags
 * its frames (content size and checksum), so the reader accepts it. */
static void append_zstd_frame(buf *out, const void *content, size_t len) {
    size_t bound = ZSTD_compressBound(len);
    uint8_t *dst = buf_reserve(out, bound);
    size_t n = ZSTD_compress2(g_cctx, dst, bound, content, len);
    if (ZSTD_isError(n)) {
        fprintf(stderr, "fuzz: ZSTD_compress2: %s\n", ZSTD_getErrorName(n));
        abort();
    }
    out->len += n;
}
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    capture_header();
    g_cctx = ZSTD_createCCtx();
    if (!g_cctx)
        abort();
    ZSTD_CCtx_setParameter(g_cctx, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(g_cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(g_cctx, ZSTD_c_contentSizeFlag, 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
#if SCOPE_FUZZ_MODE == 1
    /* libFuzzer passes an exactly sized heap copy, so ASan catches a read
     * even one byte past the end of the file. */
    read_as_file(data, size, read_log(data, size, NULL, NULL));
#elif SCOPE_FUZZ_MODE == 2
    /* Built in a growable buffer, then read from an exactly sized copy: the
     * growable one has slack that would hide an over-read from ASan. */
    buf log = {0};
    buf_put(&log, g_header, g_header_len);
    buf_put(&log, data, size);
    uint8_t *exact = malloc(log.len);
    if (!exact)
        abort();
    memcpy(exact, log.p, log.len);
    free(log.p);
    read_as_file(exact, g_header_len + size, read_log(exact, g_header_len + size, NULL, NULL));
    free(exact);
#else
    /* Larger than any frame the reader accepts: nothing to learn. */
    if (size > SCOPE_LOG_MAX_FRAME_CONTENT)
        return 0;
    buf log = {0};
    buf_put(&log, g_header, g_header_len);
    const uint8_t *piece = data, *end = data + size;
    for (;;) {
        const uint8_t *sep =
            memmem(piece, (size_t)(end - piece), SCOPE_FUZZ_FRAME_SEP, SCOPE_FUZZ_FRAME_SEP_LEN);
        append_zstd_frame(&log, piece, (size_t)((sep ? sep : end) - piece));
        if (!sep)
            break;
        piece = sep + SCOPE_FUZZ_FRAME_SEP_LEN;
    }
    uint8_t *exact = malloc(log.len);
    if (!exact)
        abort();
    memcpy(exact, log.p, log.len);

    frame_list rebuilt = {0};
    read_log(exact, log.len, NULL, &rebuilt);
    /* batches as written, and as the intervals they hand out */
    uint64_t want = fields_digest(exact, log.len, 1), want_each = fields_digest(exact, log.len, 0);
    /* Content that can hold more records than the reader's allowance is
     * read within a limit that follows the compressed size, which the round
     * trip may change: no round trip for it. */
    if (size >= 2 * (size_t)SCOPE_LOG_RECORDS_ALLOWANCE) {
        for (size_t i = 0; i < rebuilt.n; i++)
            free(rebuilt.frames[i].p);
        free(rebuilt.frames);
        free(exact);
        free(log.p);
        return 0;
    }

    /* decode -> encode -> decode must give back the same fields. */
    buf again = {0};
    buf_put(&again, g_header, g_header_len);
    for (size_t i = 0; i < rebuilt.n; i++) {
        append_zstd_frame(&again, rebuilt.frames[i].p, rebuilt.frames[i].len);
        free(rebuilt.frames[i].p);
    }
    free(rebuilt.frames);
    uint64_t got = fields_digest(again.p, again.len, 1);
    uint64_t got_each = fields_digest(again.p, again.len, 0);
    if (got != want || got_each != want_each) {
        fprintf(stderr,
                "fuzz: records changed in a decode -> encode -> decode round trip "
                "(%zu frames)\n",
                rebuilt.n);
        abort();
    }
    free(again.p);
    free(exact);
    free(log.p);
#endif
    return 0;
}
