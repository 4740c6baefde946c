/*
 * Writes a seed corpus for the fuzz targets: real logs written through the
 * real writer (tests/support/log_samples.c), so the fuzzer starts from inputs
 * that reach deep into the reader instead of having to discover the format.
 *
 *   make_corpus [--mode file|suffix|records|run|stress|reader-stress|elf|h5] OUTDIR
 *
 *   file     whole logs (fuzz_log_reader): several sizes and seeds, plus a
 *            truncated copy, a bit-flipped copy, a copy with a frame cut out,
 *            an empty file and a header-only file;
 *   suffix   the same logs without their file header (fuzz_log_suffix);
 *   records  the decompressed content of every data frame, alone and all of a
 *            log's frames joined by SCOPE_FUZZ_FRAME_SEP (fuzz_log_records);
 *   run      runs of one to three logs in fuzz_run_load's format: the sample
 *            logs' frames, ranks of one role, and runs built record by record
 *            here: several roles with nested phases, histograms, counters
 *            and every mark that becomes a caveat, older attempts, lost and
 *            torn frames, and one log of records that contradict the format
 *            (broken and cyclic parents, dangling ids, repeated definitions,
 *            buckets out of range, extreme identities);
 *   stress   large runs for fuzz_run_load that once took the analysis
 *            quadratic time or overflowed its stack (tens of thousands of
 *            nested, broken, sibling or colliding phases, or counters),
 *            replayed once with a timeout rather than fuzzed: at some
 *            hundred kilobytes each they would slow fuzzing to a crawl;
 *   reader-stress  the same for fuzz_log_reader: megabytes of zstd frame
 *            magics (each a candidate frame to resynchronize on) and a
 *            compression bomb of 20 frames inflating to 64 MiB each, which
 *            once took the reader 15 to 55 seconds.
 *
 * The file and suffix modes also write small versions of the reader-stress
 * shapes (64 KiB of magics, frames of 256 KiB of empty records) for fuzzing.
 *
 * Output names are stable, so rerunning overwrites rather than piles up.
 */
#include "fuzz_common.h"
#include "log_samples.h"
#include "varint.h" /* the codec's own LEB128, for record streams */

#include <scope/log_format.h>
#include <scope/log_hist.h>

#include <zstd.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum mode {
    MODE_FILE,
    MODE_SUFFIX,
    MODE_RECORDS,
    MODE_RUN,
    MODE_STRESS,
    MODE_READER_STRESS,
    MODE_ELF,
    MODE_H5
};

/* Sample logs to start from: one tiny, a few medium, one long enough to hold
 * many aggregate rewrites. */
static const struct {
    unsigned nframes, seed;
} k_logs[] = {{1, 1}, {2, 7}, {3, 11}, {5, 3}, {12, 42}};

#define MAX_FRAMES 64

typedef struct blob {
    uint8_t *p;
    size_t len;
} blob;

static int read_file(const char *path, blob *out) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    out->p = NULL;
    out->len = 0;
    size_t cap = 0;
    for (;;) {
        if (out->len == cap) {
            cap = cap ? 2 * cap : 65536;
            uint8_t *p = realloc(out->p, cap);
            if (!p) {
                fclose(f);
                return -ENOMEM;
            }
            out->p = p;
        }
        size_t n = fread(out->p + out->len, 1, cap - out->len, f);
        if (n == 0)
            break;
        out->len += n;
    }
    int bad = ferror(f);
    fclose(f);
    return bad ? -EIO : 0;
}

static int write_file(const char *dir, const char *name, const void *p, size_t len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "make_corpus: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int ok = (len == 0 || fwrite(p, 1, len, f) == len);
    ok &= (fclose(f) == 0);
    if (!ok)
        fprintf(stderr, "make_corpus: writing %s failed\n", path);
    return ok ? 0 : -1;
}

/* The decompressed content of data frame i of `log` (its frames begin at
 * offsets[0..nframes)), appended to *out.  Returns 1 when appended, 0 when
 * the frame does not decompress (the damaged frame of a damaged copy), -1
 * when out of memory. */
static int frame_content(const blob *log, const uint64_t *offsets, unsigned nframes, unsigned i,
                         blob *out) {
    uint64_t start = offsets[i];
    uint64_t end = i + 1 < nframes ? offsets[i + 1] : log->len;
    if (start >= end || end > log->len)
        return 0;
    unsigned long long content = ZSTD_getFrameContentSize(log->p + start, end - start);
    if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN ||
        content > SCOPE_LOG_MAX_FRAME_CONTENT)
        return 0;
    uint8_t *grown = realloc(out->p, out->len + content + 1);
    if (!grown)
        return -1;
    out->p = grown;
    size_t n = ZSTD_decompress(out->p + out->len, content, log->p + start, end - start);
    if (ZSTD_isError(n))
        return 0;
    out->len += n;
    return 1;
}

static int append(blob *b, const void *p, size_t n) {
    uint8_t *grown = realloc(b->p, b->len + n + 1);
    if (!grown)
        return -1;
    b->p = grown;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

/* Writes `log` as the mode wants it: whole, without its header, or as one
 * file per decompressed data frame. */
static int emit(enum mode mode, const char *dir, const char *name, const blob *log,
                const uint64_t *offsets, unsigned nframes) {
    char fname[256];
    if (mode == MODE_FILE) {
        snprintf(fname, sizeof fname, "%s.%s", name, SCOPE_LOG_FILE_EXT);
        return write_file(dir, fname, log->p, log->len);
    }
    if (mode == MODE_SUFFIX) {
        size_t skip = log->len < SCOPE_LOG_HEADER_SIZE ? log->len : SCOPE_LOG_HEADER_SIZE;
        snprintf(fname, sizeof fname, "%s.suffix", name);
        return write_file(dir, fname, log->p + skip, log->len - skip);
    }
    /* Each frame alone, and all of them in one input joined by the harness's
     * frame separator. */
    blob all = {0}, one = {0};
    int rc = 0;
    for (unsigned i = 0; i < nframes && rc == 0; i++) {
        one.len = 0;
        int got = frame_content(log, offsets, nframes, i, &one);
        if (got <= 0) {
            rc = got;
            continue;
        }
        snprintf(fname, sizeof fname, "%s.frame%02u.records", name, i);
        rc = write_file(dir, fname, one.p, one.len);
        if (rc == 0 && all.len)
            rc = append(&all, SCOPE_FUZZ_FRAME_SEP, SCOPE_FUZZ_FRAME_SEP_LEN);
        if (rc == 0)
            rc = append(&all, one.p, one.len);
    }
    if (rc == 0 && nframes > 1 && all.len) {
        snprintf(fname, sizeof fname, "%s.all.records", name);
        rc = write_file(dir, fname, all.p, all.len);
    }
    free(one.p);
    free(all.p);
    return rc;
}

/* A sample log (log_samples.c) of nframes frames, read into *log with the
 * offsets of its frames.  It is written in place and read back, because the
 * sample writer wants a path.  Returns 0, or -1 with the reason printed. */
static int sample_log(const char *dir, unsigned nframes, unsigned seed, blob *log,
                      uint64_t *offsets) {
    char path[4096];
    uint64_t size = 0;
    snprintf(path, sizeof path, "%s/.tmp-log_f%02u_s%02u", dir, nframes, seed);
    int rc = log_sample_write_log(path, nframes, seed, offsets, &size);
    if (rc < 0) {
        fprintf(stderr, "make_corpus: log_sample_write_log(%u, %u): %s\n", nframes, seed,
                strerror(-rc));
        remove(path);
        return -1;
    }
    rc = read_file(path, log);
    remove(path);
    if (rc < 0 || log->len != size) {
        fprintf(stderr, "make_corpus: reading back the sample log (%u frames, seed %u): %s\n",
                nframes, seed,
                rc < 0 ? strerror(-rc) : "size differs from what the writer reported");
        if (rc == 0)
            free(log->p);
        log->p = NULL;
        return -1;
    }
    return 0;
}

/* ---- runs (fuzz_run_load) ---------------------------------------------------- */

/* A run being built: logs joined by SCOPE_FUZZ_LOG_SEP, frames by one of
 * the frame separators, each frame the records it holds. */
typedef struct run_text {
    blob b;
    size_t cap; /* grown by doubling: the stress runs add a hundred thousand records */
    int nomem;
} run_text;

static void put(run_text *t, const void *p, size_t n) {
    if (t->nomem || !n)
        return;
    if (t->cap - t->b.len < n) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap - t->b.len < n)
            cap *= 2;
        uint8_t *grown = realloc(t->b.p, cap);
        if (!grown) {
            t->nomem = 1;
            return;
        }
        t->b.p = grown;
        t->cap = cap;
    }
    memcpy(t->b.p + t->b.len, p, n);
    t->b.len += n;
}

static void put_varint(run_text *t, uint64_t v) {
    uint8_t tmp[VARINT_MAX_LEN];
    enc_buf e = {tmp, sizeof tmp, 0};
    enc_u64(&e, v);
    put(t, tmp, e.len);
}

/* type | length | body, the body from the codec's own encoder. */
static void put_record(run_text *t, const scope_record *rec) {
    size_t need = scope_record_encode(rec, NULL, 0);
    uint8_t *body = malloc(need ? need : 1);
    if (!body) {
        t->nomem = 1;
        return;
    }
    size_t got = scope_record_encode(rec, body, need);
    put_varint(t, rec->type);
    put_varint(t, got);
    put(t, body, got);
    free(body);
}

static scope_bytes text_bytes(const char *s) {
    return (scope_bytes){(const uint8_t *)s, s ? strlen(s) : 0};
}

/* The FRAME record a frame starts with: the harness closes the frame with
 * its clocks and reason (the writer numbers frames itself). */
static void rec_frame(run_text *t, uint64_t mono, uint64_t wall, uint32_t reason) {
    scope_record r = {.type = SCOPE_REC_FRAME};
    r.u.frame = (scope_rec_frame){0, mono, wall, reason};
    put_record(t, &r);
}

typedef struct identity {
    const char *run_id, *role, *host;
    int64_t pid;
    int32_t rank;
    uint64_t start_wall;
} identity;

static void rec_process(run_text *t, const identity *id) {
    static const scope_bytes argv[] = {{(const uint8_t *)"./az", 4}, {(const uint8_t *)"-v", 2}};
    scope_record r = {.type = SCOPE_REC_PROCESS};
    scope_rec_process *p = &r.u.process;
    p->run_id = text_bytes(id->run_id);
    p->uuid = text_bytes("1a2b3c4d");
    p->host = text_bytes(id->host);
    p->role = text_bytes(id->role);
    p->job_id = text_bytes("4242");
    p->step_id = text_bytes("0");
    p->exe = text_bytes("/opt/az/bin/az");
    p->cwd = text_bytes("/scratch/az");
    p->recorder_version = text_bytes("0.1.0");
    p->pid = id->pid;
    p->ppid = 1;
    p->rank = id->rank;
    p->local_rank = id->rank < 0 ? -1 : id->rank % 4;
    p->node_rank = id->rank < 0 ? -1 : id->rank / 4;
    p->world_size = id->rank < 0 ? -1 : 8;
    p->launcher = text_bytes(id->rank < 0 ? "" : "slurm");
    p->array_job_id = text_bytes("");
    p->array_task = -1;
    p->restarts = id->rank < 0 ? -1 : 0;
    p->start_wall_ns = id->start_wall;
    p->start_mono_ns = 1000000000ull;
    p->argc = 2;
    p->argv = argv;
    put_record(t, &r);
}

static void rec_string_bytes(run_text *t, uint32_t id, scope_bytes value) {
    scope_record r = {.type = SCOPE_REC_STRING};
    r.u.string = (scope_rec_string){id, value};
    put_record(t, &r);
}

static void rec_string(run_text *t, uint32_t id, const char *value) {
    rec_string_bytes(t, id, text_bytes(value));
}

static void rec_thread(run_text *t, uint32_t index, int64_t tid, const char *name) {
    scope_record r = {.type = SCOPE_REC_THREAD};
    r.u.thread = (scope_rec_thread){index, tid, 1000000000ull + index, text_bytes(name)};
    put_record(t, &r);
}

static void rec_node(run_text *t, scope_rec_phase_node n) {
    scope_record r = {.type = SCOPE_REC_PHASE_NODE};
    r.u.phase_node = n;
    put_record(t, &r);
}

static void rec_agg(run_text *t, const scope_rec_phase_agg *a) {
    scope_record r = {.type = SCOPE_REC_PHASE_AGG};
    r.u.phase_agg = *a;
    put_record(t, &r);
}

/* An aggregate of `count` entries around mean_ns, with its histogram in
 * three buckets (half, once and twice the mean). */
static void rec_agg_of(run_text *t, uint32_t node, uint64_t count, uint64_t mean_ns, int io) {
    scope_hist_bin bins[3];
    uint64_t third = count / 3;
    uint32_t nbins = 0;
    const uint64_t at[3] = {mean_ns / 2, mean_ns, mean_ns * 2};
    const uint64_t n[3] = {third, count - 2 * third, third};
    for (unsigned i = 0; i < 3; i++) {
        if (!n[i])
            continue;
        uint32_t b = scope_hist_bucket(at[i]);
        if (nbins && bins[nbins - 1].bucket == b)
            bins[nbins - 1].count += n[i];
        else
            bins[nbins++] = (scope_hist_bin){b, n[i]};
    }
    scope_rec_phase_agg a = {
        .node = node,
        .count = count,
        .wall_ns = count * mean_ns,
        .min_ns = count ? mean_ns / 2 : 0,
        .max_ns = count ? mean_ns * 2 : 0,
        .cpu_count = count,
        .cpu_wall_ns = count * mean_ns,
        .cpu_ns = count * mean_ns * 3 / 4,
        .nbins = nbins,
        .bins = bins,
    };
    if (io) {
        a.io_flags = SCOPE_IO_MEASURED;
        a.io_count = count;
        a.disk_read = count << 20;
        a.char_read = count << 21;
        a.char_write = count << 12;
    }
    rec_agg(t, &a);
}

static void rec_counter(run_text *t, uint32_t id, uint32_t name, uint32_t node, uint32_t thread,
                        uint64_t calls, int64_t total) {
    scope_record r = {.type = SCOPE_REC_COUNTER};
    r.u.counter = (scope_rec_counter){id, name, node, thread, calls, total};
    put_record(t, &r);
}

static void rec_mark(run_text *t, uint32_t kind, uint32_t thread, uint64_t mono, int64_t value,
                     const char *text) {
    scope_record r = {.type = SCOPE_REC_MARK};
    r.u.mark = (scope_rec_mark){
        .kind = kind, .thread = thread, .mono_ns = mono, .value = value, .text = text_bytes(text)};
    put_record(t, &r);
}

/* Names and phases of the handmade workers: an iteration holding the role's
 * work, a sync phase and a checkpoint with exact I/O on the main thread, and
 * a loader thread with its own top-level phase. */
enum {
    N_ITERATION = 1,
    N_WORK,
    N_INNER,
    N_LEAF,
    N_SYNC,
    N_CHECKPOINT,
    N_LOAD,
    N_SAMPLES,
    N_QUEUE,
    N_BYTES,
    N_FILE,
    N_STRINGS
};

static const scope_rec_phase_node run_nodes[] = {
    {1, 0, N_ITERATION, 1, 0, N_FILE, 10},
    {2, 1, N_WORK, 1, 0, N_FILE, 20},
    {3, 2, N_INNER, 1, 0, N_FILE, 30},
    {4, 3, N_LEAF, 1, 0, N_FILE, 40},
    {5, 1, N_SYNC, 1, SCOPE_PHASE_F_SYNC, N_FILE, 50},
    {6, 0, N_CHECKPOINT, 1, SCOPE_PHASE_F_IO, N_FILE, 60},
    {7, 0, N_LOAD, 2, SCOPE_PHASE_F_IO, 0, 0},
};
#define RUN_NODES (sizeof run_nodes / sizeof run_nodes[0])

/* Typical entry lengths of the nodes above, and entries per frame. */
static const uint64_t run_mean_ns[RUN_NODES] = {
    2000000000ull, 1500000000ull, 20000000ull, 150000ull, 300000000ull, 90000000ull, 15000000ull};
static const uint64_t run_per_frame[RUN_NODES] = {1, 1, 60, 4000, 1, 0, 12};

enum worker_end { END_EXIT, END_SIGNAL, END_KILLED };

typedef struct worker_spec {
    identity id;
    const char *work, *inner, *leaf; /* the role's phase names */
    unsigned nframes;
    enum worker_end end;
    uint64_t late_ns; /* how long after start_wall its first frame closes */
} worker_spec;

/* One worker's log: definitions in the first frame, full aggregates and
 * counters in every frame, and the marks of how it ended. */
static void worker_log(run_text *t, const worker_spec *w) {
    const uint64_t frame_ns = 2000000000ull;
    uint64_t mono0 = 1000000000ull, wall0 = w->id.start_wall + w->late_ns;
    for (unsigned f = 0; f < w->nframes; f++) {
        int last = f + 1 == w->nframes;
        uint64_t mono = mono0 + (f + 1) * frame_ns, wall = wall0 + (f + 1) * frame_ns;
        uint32_t reason = !last                  ? SCOPE_FRAME_PERIODIC
                          : w->end == END_EXIT   ? SCOPE_FRAME_EXIT
                          : w->end == END_SIGNAL ? SCOPE_FRAME_SIGNAL
                                                 : SCOPE_FRAME_PERIODIC;
        if (f)
            put(t, SCOPE_FUZZ_FRAME_SEP, SCOPE_FUZZ_FRAME_SEP_LEN);
        rec_frame(t, mono, wall, reason);
        if (f == 0) {
            rec_process(t, &w->id);
            const char *names[N_STRINGS] = {
                [N_ITERATION] = "iteration", [N_WORK] = w->work,      [N_INNER] = w->inner,
                [N_LEAF] = w->leaf,          [N_SYNC] = "sync",       [N_CHECKPOINT] = "checkpoint",
                [N_LOAD] = "load_batch",     [N_SAMPLES] = "samples", [N_QUEUE] = "queue_delta",
                [N_BYTES] = "bytes_written", [N_FILE] = "az/main.c",
            };
            for (uint32_t i = 1; i < N_STRINGS; i++)
                rec_string(t, i, names[i]);
            rec_thread(t, 1, w->id.pid, "main");
            rec_thread(t, 2, w->id.pid + 1, "loader");
            for (size_t i = 0; i < RUN_NODES; i++)
                rec_node(t, run_nodes[i]);
            if (w->id.rank == 1)
                rec_mark(t, SCOPE_MARK_CAVEAT, 0, mono0 + 5, 0,
                         "GPU figures unavailable: libnvidia-ml.so.1 not found");
        }
        for (size_t i = 0; i < RUN_NODES; i++) {
            uint64_t count = run_per_frame[i] ? run_per_frame[i] * (f + 1) : (f + 1) / 3;
            /* A slower rank, so the spread and the imbalance have something
             * to show. */
            uint64_t mean = run_mean_ns[i] +
                            (uint64_t)(w->id.rank > 0 ? w->id.rank : 0) * (run_mean_ns[i] / 16);
            if (count)
                rec_agg_of(t, run_nodes[i].id, count, mean,
                           !!(run_nodes[i].flags & SCOPE_PHASE_F_IO));
        }
        rec_counter(t, 1, N_SAMPLES, 2, 1, 10 * (f + 1), 2560 * (int64_t)(f + 1));
        rec_counter(t, 2, N_QUEUE, 0, 2, 3 * (f + 1), (int64_t)f * 70 - 400);
        if ((f + 1) / 3)
            rec_counter(t, 3, N_BYTES, 6, 1, (f + 1) / 3, (int64_t)((f + 1) / 3) << 26);
        if (f == 1) {
            rec_mark(t, SCOPE_MARK_FORK, 1, mono - 1000, w->id.pid + 100, NULL);
            rec_mark(t, SCOPE_MARK_DROPPED, 2, mono - 900, 17,
                     "entries or counts not recorded (nested too deep, past a per-thread limit, "
                     "name table full, or no memory)");
            rec_mark(t, SCOPE_MARK_UNBALANCED, 1, mono - 800, 2,
                     "scope_phase_end() with no phase open");
        }
        if (last && w->end == END_EXIT) {
            rec_mark(t, SCOPE_MARK_UNBALANCED, 1, mono - 20, 4, "2 phase(s) still open at exit");
            rec_mark(t, SCOPE_MARK_SHUTDOWN, 0, mono - 10, SCOPE_SHUTDOWN_EXIT, NULL);
        } else if (last && w->end == END_SIGNAL) {
            rec_mark(t, SCOPE_MARK_FLUSH_FAILED, 0, mono - 30, 28, NULL);
            rec_mark(t, SCOPE_MARK_SIGNAL, 0, mono - 10, 15, "Terminated");
        }
    }
}

static void log_sep(run_text *t) {
    put(t, SCOPE_FUZZ_LOG_SEP, SCOPE_FUZZ_LOG_SEP_LEN);
}

/* The hostile worker's run and role, shared with a sound worker of its run. */
#define HOSTILE_RUN  "\x1b[31mrun\xff"
#define HOSTILE_ROLE "r\xc0le"

/* Records that contradict the format, each of a kind the analysis must
 * survive: one log, three frames. */
static void hostile_log(run_text *t) {
#define LIT(s) ((scope_bytes){(const uint8_t *)(s), sizeof(s) - 1})
    rec_frame(t, 5, 1786660000000000000ull, SCOPE_FRAME_PERIODIC);
    scope_record pr = {.type = SCOPE_REC_PROCESS};
    scope_rec_process *p = &pr.u.process;
    p->run_id = LIT(HOSTILE_RUN);
    p->role = LIT(HOSTILE_ROLE);
    p->host = LIT("h\0st\x7f\u200f");
    p->uuid = LIT("\xc3\x28");
    p->job_id = LIT("\x1b]0;job\x07");
    p->pid = INT64_MIN;
    p->ppid = INT64_MAX;
    p->rank = INT32_MAX;
    p->local_rank = p->node_rank = INT32_MIN;
    p->world_size = 0;
    p->launcher = LIT("\x1b[31mhydra\0");
    p->array_job_id = LIT("\xff\n");
    p->array_task = INT32_MIN;
    p->restarts = INT32_MAX;
    p->start_wall_ns = UINT64_MAX;
    put_record(t, &pr);
    /* Format characters that disguise text (U+202E reverses it), C1. */
    rec_string(t, 1, "a\u202etxt.exe\u2066\u200b\ufeff\u2028\xc2\x85");
    rec_string(t, 1, "b");                  /* defined twice, differently */
    rec_string(t, 0, "zero");               /* id 0 */
    rec_string(t, UINT32_MAX, "iteration"); /* the largest id */
    rec_string_bytes(t, 2, LIT("with/slash\0and NUL"));
    rec_thread(t, UINT32_MAX, -1, "\xc0\xaf"); /* the largest thread index */
    rec_node(t, (scope_rec_phase_node){1, 0, 1, UINT32_MAX, 3, 2, 1});
    rec_node(t, (scope_rec_phase_node){1, 0, 2, 1, 0, 0, 0});   /* redefined elsewhere */
    rec_node(t, (scope_rec_phase_node){0, 0, 1, 1, 0, 0, 0});   /* id 0 */
    rec_node(t, (scope_rec_phase_node){9, 9, 1, 1, 0, 0, 0});   /* its own parent */
    rec_node(t, (scope_rec_phase_node){10, 11, 1, 1, 0, 0, 0}); /* a cycle: 10 -> 11 -> 10 */
    rec_node(t, (scope_rec_phase_node){11, 10, 2, 1, 0, 0, 0});
    rec_node(t, (scope_rec_phase_node){12, 77, 1, 1, 0, 0, 0});                  /* a lost parent */
    rec_node(t, (scope_rec_phase_node){13, 12, 1, 1, 0, 0, 0});                  /* ... below it */
    rec_node(t, (scope_rec_phase_node){UINT32_MAX, 1, UINT32_MAX, 1, 0, 99, 7}); /* lost file */
    rec_node(t, (scope_rec_phase_node){14, 1, 55, 2, 0, 0, 0});                  /* a lost name */
    const scope_hist_bin odd_bins[] = {
        {0, UINT64_MAX}, {SCOPE_HIST_BUCKETS - 1, 3}, {SCOPE_HIST_BUCKETS, 5}, {UINT32_MAX, 1}};
    scope_rec_phase_agg a = {.node = 1,
                             .count = UINT64_MAX,
                             .wall_ns = UINT64_MAX,
                             .min_ns = 0,
                             .max_ns = UINT64_MAX,
                             .cpu_count = 1,
                             .cpu_wall_ns = 1,
                             .cpu_ns = UINT64_MAX,
                             .io_flags = UINT32_MAX,
                             .io_count = UINT64_MAX,
                             .nbins = 4,
                             .bins = odd_bins};
    rec_agg(t, &a);
    a.node = UINT32_MAX;
    rec_agg(t, &a);
    a.node = 13;
    rec_agg(t, &a);
    a.node = 10;
    rec_agg(t, &a);
    a.node = 4242; /* never defined */
    rec_agg(t, &a);
    a = (scope_rec_phase_agg){.node = 14, .count = 3, .wall_ns = 3, .min_ns = 9, .max_ns = 1};
    rec_agg(t, &a); /* minimum above maximum */
    rec_counter(t, 1, 1, 1, 1, UINT64_MAX, INT64_MAX);
    rec_counter(t, 2, 1, 1, 2, 1, INT64_MAX); /* the same name in the same phase */
    rec_counter(t, 3, 1, 0, 1, 1, INT64_MIN);
    rec_counter(t, 4, 1, 0, 2, 1, INT64_MIN);
    rec_counter(t, 5, 1, 4242, 1, 1, 1); /* on a phase never defined */
    rec_counter(t, 6, 4242, 1, 1, 1, 1); /* a name never defined */
    rec_counter(t, 7, 1, 10, 1, 1, 1);   /* on the cycle */
    rec_counter(t, 0, 1, 1, 1, 1, 1);    /* id 0 */
    rec_counter(t, 1, 2, 1, 1, 1, 1);    /* id reused for another counter */
    put(t, SCOPE_FUZZ_FRAME_SEP, SCOPE_FUZZ_FRAME_SEP_LEN);

    rec_frame(t, 1, 0, UINT32_MAX); /* clocks going backwards, an unknown reason */
    rec_mark(t, SCOPE_MARK_DROPPED, UINT32_MAX, 1, INT64_MAX, "x");
    rec_mark(t, SCOPE_MARK_DROPPED, 0, 1, INT64_MIN, NULL);
    rec_mark(t, SCOPE_MARK_UNBALANCED, UINT32_MAX, 1, INT64_MAX, "scope_phase_end()");
    rec_mark(t, SCOPE_MARK_UNBALANCED, 0, 1, -1, "");
    rec_mark(t, SCOPE_MARK_SIGNAL, 0, 1, INT64_MIN, NULL);
    rec_mark(t, 0, 0, 0, 0, NULL);
    rec_mark(t, UINT32_MAX, UINT32_MAX, UINT64_MAX, INT64_MAX, "\x1b]0;t\x07");
    for (unsigned i = 0; i < 6; i++) /* more recorder notes than are kept */
        rec_mark(t, SCOPE_MARK_CAVEAT, 0, i, 0, (const char *[]){"a", "b", "c", "d", "e", "a"}[i]);
    put(t, SCOPE_FUZZ_FRAME_SEP, SCOPE_FUZZ_FRAME_SEP_LEN);

    rec_frame(t, UINT64_MAX, UINT64_MAX, SCOPE_FRAME_SIGNAL);
    p->pid = 0; /* a later PROCESS replaces the identity */
    p->rank = -1;
    p->start_wall_ns = 0;
    put_record(t, &pr);
#undef LIT
}

/* Writes every run of the run mode into dir.  Returns 0, or -1. */
static int write_runs(const char *dir) {
    int failed = 0;
    const uint64_t wall = 1786660000000000000ull;

    /* The sample logs: one alone; three ranks of one role; one with a frame
     * lost in the middle and its last frame torn (a truncated log). */
    static const struct {
        const char *name;
        unsigned nlogs;
        unsigned nframes[SCOPE_FUZZ_MAX_LOGS], seed[SCOPE_FUZZ_MAX_LOGS];
        int damage;
    } samples[] = {
        {"run_sample_one", 1, {3}, {1}, 0},
        {"run_sample_long", 1, {12}, {42}, 0},
        {"run_sample_ranks", 3, {2, 3, 5}, {1, 2, 3}, 0},
        {"run_sample_damaged", 2, {5, 2}, {11, 6}, 1},
    };
    for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
        run_text t = {0};
        for (unsigned l = 0; l < samples[k].nlogs && !failed; l++) {
            unsigned nframes = samples[k].nframes[l];
            uint64_t offsets[MAX_FRAMES];
            blob log = {0}, one = {0};
            if (sample_log(dir, nframes, samples[k].seed[l], &log, offsets) < 0) {
                failed = 1;
                break;
            }
            if (l)
                log_sep(&t);
            for (unsigned i = 0; i < nframes; i++) {
                one.len = 0;
                if (frame_content(&log, offsets, nframes, i, &one) < 0)
                    t.nomem = 1;
                put(&t, one.p, one.len);
                const char *sep = SCOPE_FUZZ_FRAME_SEP;
                if (samples[k].damage && l == 0 && i == 1)
                    sep = SCOPE_FUZZ_LOST_SEP;
                else if (samples[k].damage && l == 0 && i + 1 == nframes)
                    sep = SCOPE_FUZZ_TORN_SEP; /* ends the log: it is truncated */
                else if (i + 1 == nframes)
                    sep = "";
                put(&t, sep, strlen(sep));
            }
            free(one.p);
            free(log.p);
        }
        if (!failed && !t.nomem) {
            char fname[128];
            snprintf(fname, sizeof fname, "%s.run", samples[k].name);
            failed |= write_file(dir, fname, t.b.p, t.b.len) < 0;
        }
        failed |= t.nomem;
        free(t.b.p);
    }

    /* Built here: two roles, one worker exiting, one ended by a signal, and
     * one killed long before the others' end (stale). */
    run_text t = {0};
    const worker_spec roles[] = {
        {{"20260813T2241-471c94", "learner", "node001", 4100, 0, wall},
         "train",
         "forward",
         "matmul",
         6,
         END_EXIT,
         0},
        {{"20260813T2241-471c94", "actor", "node002", 4200, 1, wall + 1000},
         "self_play",
         "mcts",
         "env_step",
         5,
         END_SIGNAL,
         0},
        {{"20260813T2241-471c94", "actor", "node002", 4300, 2, wall + 2000},
         "self_play",
         "mcts",
         "env_step",
         2,
         END_KILLED,
         0},
    };
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        if (i)
            log_sep(&t);
        worker_log(&t, &roles[i]);
    }
    failed |= t.nomem || write_file(dir, "run_roles.run", t.b.p, t.b.len) < 0;
    free(t.b.p);

    /* Three attempts in one directory: only the newest is merged. */
    t = (run_text){0};
    const worker_spec attempts[] = {
        {{"20260813T2241-aaaaaa", "learner", "node001", 5100, -1, wall},
         "train",
         "forward",
         "matmul",
         2,
         END_KILLED,
         0},
        {{"20260813T2300-bbbbbb", "learner", "node001", 5200, -1, wall + 3600000000000ull},
         "train",
         "forward",
         "matmul",
         3,
         END_SIGNAL,
         0},
        {{"20260813T2359-cccccc", "learner", "node003", 5300, 0, wall + 7200000000000ull},
         "train",
         "forward",
         "matmul",
         2,
         END_EXIT,
         60000000000ull},
    };
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++) {
        if (i)
            log_sep(&t);
        worker_log(&t, &attempts[i]);
    }
    failed |= t.nomem || write_file(dir, "run_attempts.run", t.b.p, t.b.len) < 0;
    free(t.b.p);

    /* One worker whose records contradict the format, next to a sound one
     * of the same run and one whose identity was never written. */
    t = (run_text){0};
    hostile_log(&t);
    log_sep(&t);
    worker_spec sound = {{HOSTILE_RUN, HOSTILE_ROLE, "h", 7, 3, wall},
                         "iteration",
                         "iteration",
                         "iteration",
                         2,
                         END_EXIT,
                         0};
    worker_log(&t, &sound);
    log_sep(&t);
    rec_frame(&t, 1, wall, SCOPE_FRAME_PERIODIC);
    rec_string(&t, 1, "orphan");
    rec_node(&t, (scope_rec_phase_node){1, 0, 1, 1, 0, 0, 0});
    rec_agg_of(&t, 1, 4, 1000, 0);
    failed |= t.nomem || write_file(dir, "run_hostile.run", t.b.p, t.b.len) < 0;
    free(t.b.p);

    /* Line samples: a sound worker whose last frame adds modules (missing
     * files, a hostile path), stacks (in no module, in an undefined module,
     * empty), counts under phases and none (one of an undefined stack), and
     * the sampler's LINES record. */
    t = (run_text){0};
    worker_log(&t, &roles[0]);
    put(&t, SCOPE_FUZZ_FRAME_SEP, SCOPE_FUZZ_FRAME_SEP_LEN);
    rec_frame(&t, 100000000000ull, wall + 100000000000ull, SCOPE_FRAME_EXIT);
    {
        static const uint8_t bid[] = {0xde, 0xad, 0xbe, 0xef};
        scope_record r = {.type = SCOPE_REC_MODULE};
        r.u.module = (scope_rec_module){
            1, text_bytes("/nonexistent/app"), {bid, sizeof bid}, 0x555555554000ull, 0x20000};
        put_record(&t, &r);
        r.u.module = (scope_rec_module){
            2, text_bytes("/tmp/\x1b[31mlib\xff.so"), {NULL, 0}, 0x7f0000000000ull, 0x1000};
        put_record(&t, &r);
        scope_frame_addr f1[] = {{1, 0x1a2c}, {2, 0x10}, {1, 0x1f80}};
        scope_frame_addr f2[] = {{0, 0x7f0000001234ull}};
        scope_frame_addr f3[] = {{7, 0x10}, {1, 0x20}};
        scope_record st = {.type = SCOPE_REC_STACK};
        st.u.stack = (scope_rec_stack){1, 3, f1};
        put_record(&t, &st);
        st.u.stack = (scope_rec_stack){2, 1, f2};
        put_record(&t, &st);
        st.u.stack = (scope_rec_stack){3, 2, f3};
        put_record(&t, &st);
        st.u.stack = (scope_rec_stack){4, 0, NULL};
        put_record(&t, &st);
        scope_stack_count c1[] = {{1, 50}, {2, 7}, {3, 1}, {4, 2}, {9, 4}};
        scope_stack_count c2[] = {{1, 3}, {3, 11}};
        scope_record ss = {.type = SCOPE_REC_STACK_SAMPLES};
        ss.u.stack_samples = (scope_rec_stack_samples){1, 2, 10000000, 5, c1, SCOPE_CPU_ON};
        put_record(&t, &ss);
        ss.u.stack_samples = (scope_rec_stack_samples){2, 0, 1000000, 2, c2, SCOPE_CPU_ON};
        put_record(&t, &ss);
        scope_record ln = {.type = SCOPE_REC_LINES};
        ln.u.lines = (scope_rec_lines){text_bytes("/nonexistent"),
                                       100,
                                       0,
                                       10000000,
                                       80,
                                       3,
                                       1,
                                       2,
                                       1,
                                       SCOPE_LINES_F_ACTIVE | SCOPE_LINES_F_BLOCKED};
        put_record(&t, &ln);
    }
    failed |= t.nomem || write_file(dir, "run_lines.run", t.b.p, t.b.len) < 0;
    free(t.b.p);

    /* The smallest runs: one empty log (a header alone), and one empty frame. */
    failed |= write_file(dir, "run_empty.run", "", 0) < 0;
    t = (run_text){0};
    rec_frame(&t, 0, 0, 0);
    failed |= t.nomem || write_file(dir, "run_frame_only.run", t.b.p, t.b.len) < 0;
    free(t.b.p);
    return failed ? -1 : 0;
}

/* One log of n phases or counters shaped to find quadratic work or deep
 * recursion in the merge and the renderers.  Each took the analysis 10 to 30
 * seconds (ASan build) or crashed it before it was fixed. */
enum stress_kind {
    STRESS_DEEP,      /* a chain n deep: stack overflow, gigabytes of JSON indentation */
    STRESS_UPWARD,    /* the same defined deepest first, so placing walks up the chain */
    STRESS_BROKEN,    /* a chain under a lost parent, walked again from each node */
    STRESS_WIDE,      /* n distinct children of one phase, each found by a scan */
    STRESS_COUNTERS,  /* n distinct counters in one phase, the same */
    STRESS_COLLIDING, /* ids k << 16, all in one bucket of the id map */
};

static void stress_log(run_text *t, enum stress_kind kind, uint32_t n) {
    const identity id = {"stress", "w", "h", 1, 0, 1786660000000000000ull};
    rec_frame(t, 1, id.start_wall + 1000000000ull, SCOPE_FRAME_EXIT);
    rec_process(t, &id);
    rec_string(t, 1, "p");
    rec_mark(t, SCOPE_MARK_SHUTDOWN, 0, 1, SCOPE_SHUTDOWN_EXIT, NULL);
    char name[16];
    for (uint32_t i = 1; i <= n && !t->nomem; i++) {
        switch (kind) {
        case STRESS_DEEP:
            rec_node(t, (scope_rec_phase_node){i, i - 1, 1, 1, 0, 0, 0});
            break;
        case STRESS_UPWARD:
            rec_node(t, (scope_rec_phase_node){i, i < n ? i + 1 : 0, 1, 1, 0, 0, 0});
            break;
        case STRESS_BROKEN:
            rec_node(t, (scope_rec_phase_node){i, i > 1 ? i - 1 : n + 1, 1, 1, 0, 0, 0});
            break;
        case STRESS_WIDE:
            snprintf(name, sizeof name, "%" PRIu32, i);
            rec_string(t, i + 1, name);
            rec_node(t, (scope_rec_phase_node){i, 0, i + 1, 1, 0, 0, 0});
            break;
        case STRESS_COUNTERS:
            if (i == 1)
                rec_node(t, (scope_rec_phase_node){1, 0, 1, 1, 0, 0, 0});
            snprintf(name, sizeof name, "%" PRIu32, i);
            rec_string(t, i + 1, name);
            rec_counter(t, i, i + 1, 1, 1, 1, 1);
            break;
        case STRESS_COLLIDING:
            rec_node(t, (scope_rec_phase_node){i << 16, 0, 1, 1, 0, 0, 0});
            break;
        }
    }
}

/* Writes the stress runs into dir.  Returns 0, or -1. */
static int write_stress(const char *dir) {
    static const struct {
        const char *name;
        enum stress_kind kind;
        uint32_t n;
    } runs[] = {
        {"stress_deep_chain", STRESS_DEEP, 20000},
        {"stress_upward_chain", STRESS_UPWARD, 10000},
        {"stress_broken_chain", STRESS_BROKEN, 20000},
        {"stress_wide", STRESS_WIDE, 20000},
        {"stress_counters", STRESS_COUNTERS, 20000},
        {"stress_colliding_ids", STRESS_COLLIDING, 30000},
    };
    int failed = 0;
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        run_text t = {0};
        stress_log(&t, runs[k].kind, runs[k].n);
        char fname[64];
        snprintf(fname, sizeof fname, "%s.run", runs[k].name);
        failed |= t.nomem || write_file(dir, fname, t.b.p, t.b.len) < 0;
        free(t.b.p);
    }
    return failed ? -1 : 0;
}

/* ---- logs that cost a reader more than their size ------------------------- */

static const uint8_t zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};

/* Appends n bytes of repeated zstd frame magics. */
static int append_magics(blob *b, size_t n) {
    uint8_t *grown = realloc(b->p, b->len + n + 1);
    if (!grown)
        return -1;
    b->p = grown;
    for (size_t i = 0; i < n; i++)
        b->p[b->len + i] = zstd_magic[i % 4];
    b->len += n;
    return 0;
}

/* Appends a frame as a writer makes one (content size, checksum) whose
 * content is its FRAME record and then `fill` bytes of `pattern` repeated:
 * with a short pattern, a few kilobytes that inflate to `fill`. */
static int append_bomb_frame(blob *b, uint64_t seq, const uint8_t *pattern, size_t plen,
                             size_t fill) {
    scope_record fr = {.type = SCOPE_REC_FRAME};
    fr.u.frame.seq = seq;
    fr.u.frame.mono_ns = 1000000000ull * (seq + 1);
    uint8_t body[64];
    size_t blen = scope_record_encode(&fr, body, sizeof body);
    size_t content = 2 + blen + fill;
    uint8_t *raw = blen < sizeof body ? malloc(content) : NULL;
    size_t bound = ZSTD_compressBound(content);
    uint8_t *out = malloc(bound);
    int rc = -1;
    if (raw && out) {
        raw[0] = SCOPE_REC_FRAME;
        raw[1] = (uint8_t)blen;
        memcpy(raw + 2, body, blen);
        for (size_t i = 0; i < fill; i++)
            raw[2 + blen + i] = pattern[i % plen];
        ZSTD_CCtx *c = ZSTD_createCCtx();
        if (c) {
            ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
            ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
            ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1);
            size_t n = ZSTD_compress2(c, out, bound, raw, content);
            if (!ZSTD_isError(n))
                rc = append(b, out, n);
            ZSTD_freeCCtx(c);
        }
    }
    free(raw);
    free(out);
    return rc;
}

/* A header and nframes bomb frames of empty records of an unknown kind. */
static int bomb_log(blob *b, const uint8_t *header, unsigned nframes, size_t fill) {
    static const uint8_t empty_record[2] = {100, 0};
    b->len = 0;
    int rc = append(b, header, SCOPE_LOG_HEADER_SIZE);
    for (unsigned i = 0; i < nframes && rc == 0; i++)
        rc = append_bomb_frame(b, i, empty_record, sizeof empty_record, fill);
    return rc;
}

/* The shapes in the sizes where they cost seconds: replayed, not fuzzed. */
static int write_reader_stress(const char *dir, const uint8_t *header) {
    blob b = {0};
    int failed = 0;
    failed |= append(&b, header, SCOPE_LOG_HEADER_SIZE) < 0 || append_magics(&b, 4u << 20) < 0 ||
              write_file(dir, "stress_magics_after_header.scope", b.p, b.len) < 0;
    b.len = 0;
    failed |= append_magics(&b, 4u << 20) < 0 ||
              write_file(dir, "stress_magics_only.scope", b.p, b.len) < 0;
    failed |= bomb_log(&b, header, 20, SCOPE_LOG_MAX_FRAME_CONTENT - 64) < 0 ||
              write_file(dir, "stress_bomb.scope", b.p, b.len) < 0;
    free(b.p);
    return failed ? -1 : 0;
}

/* Small versions of the same, for the file and suffix modes: a log with
 * 64 KiB of magics between its frames (at offsets[1]), and frames of 256 KiB
 * of empty records, past the reader's limit on records. */
static int write_costly_seeds(enum mode mode, const char *dir, const blob *log,
                              const uint64_t *offsets, unsigned nframes) {
    blob b = {0};
    size_t n = 64u << 10;
    int failed = append(&b, log->p, (size_t)offsets[1]) < 0 || append_magics(&b, n) < 0 ||
                 append(&b, log->p + offsets[1], log->len - (size_t)offsets[1]) < 0;
    uint64_t moved[MAX_FRAMES];
    for (unsigned i = 0; i < nframes; i++)
        moved[i] = offsets[i] + (i >= 1 ? n : 0);
    failed |= failed || emit(mode, dir, "costly_magics", &b, moved, nframes) < 0;
    failed |= bomb_log(&b, log->p, 3, 256u << 10) < 0 ||
              emit(mode, dir, "costly_bomb", &b, offsets, 0) < 0;
    free(b.p);
    return failed ? -1 : 0;
}

/* mkdir -p: ctest and fuzz.sh name folders whose parents may not exist yet. */
static int mkdir_p(const char *dir) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(path, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

#ifndef SCOPE_FUZZ_ELF_SEED
#define SCOPE_FUZZ_ELF_SEED ""
#endif

/* The whole of the file at path into b (b->p malloc'd).  0, or -1 said. */
static int read_whole(const char *path, blob *b) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "make_corpus: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char buf[65536];
    size_t n;
    int failed = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        uint8_t *p = realloc(b->p, b->len + n);
        if (!p) {
            failed = 1;
            break;
        }
        b->p = p;
        memcpy(b->p + b->len, buf, n);
        b->len += n;
    }
    fclose(f);
    return failed ? -1 : 0;
}

/* fuzz_lines_symbolize's seeds: a small module with debug info (built
 * beside this program), its first half, and its ELF header alone. */
static int write_elf_seeds(const char *dir) {
    blob b = {0};
    int failed = read_whole(SCOPE_FUZZ_ELF_SEED, &b) < 0;
    failed |= b.len < 64;
    failed |= failed || write_file(dir, "elf_whole", b.p, b.len) < 0;
    failed |= failed || write_file(dir, "elf_half", b.p, b.len / 2) < 0;
    failed |= failed || write_file(dir, "elf_header", b.p, 64) < 0;
    free(b.p);
    return failed ? -1 : 0;
}

#ifndef SCOPE_FUZZ_H5_FIXTURES
#define SCOPE_FUZZ_H5_FIXTURES ""
#endif

/* fuzz_sp_import's seeds: scope-profiler's files of every schema, its
 * three-rank MPI file and a file with line_profile records
 * (tests/fixtures/scope-profiler-h5), each whole and cut in half. */
static int write_h5_seeds(const char *dir) {
    static const char *const names[] = {"schema-1.h5", "schema-2.h5", "schema-3.h5",
                                        "mpi-3-ranks.h5", "line-profile.h5"};
    int failed = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names && !failed; i++) {
        char path[4096], half[64];
        snprintf(path, sizeof path, "%s/%s", SCOPE_FUZZ_H5_FIXTURES, names[i]);
        blob b = {0};
        failed = read_whole(path, &b) < 0;
        snprintf(half, sizeof half, "half-%s", names[i]);
        failed |= failed || write_file(dir, names[i], b.p, b.len) < 0;
        failed |= failed || write_file(dir, half, b.p, b.len / 2) < 0;
        free(b.p);
    }
    return failed ? -1 : 0;
}

static int usage(void) {
    fprintf(stderr,
            "usage: make_corpus [--mode file|suffix|records|run|stress|reader-stress|elf|h5] "
            "OUTDIR\n");
    return 2;
}

int main(int argc, char **argv) {
    enum mode mode = MODE_FILE;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            if (strcmp(m, "file") == 0)
                mode = MODE_FILE;
            else if (strcmp(m, "suffix") == 0)
                mode = MODE_SUFFIX;
            else if (strcmp(m, "records") == 0)
                mode = MODE_RECORDS;
            else if (strcmp(m, "run") == 0)
                mode = MODE_RUN;
            else if (strcmp(m, "stress") == 0)
                mode = MODE_STRESS;
            else if (strcmp(m, "reader-stress") == 0)
                mode = MODE_READER_STRESS;
            else if (strcmp(m, "elf") == 0)
                mode = MODE_ELF;
            else if (strcmp(m, "h5") == 0)
                mode = MODE_H5;
            else
                return usage();
        } else if (argv[i][0] == '-' || dir) {
            return usage();
        } else {
            dir = argv[i];
        }
    }
    if (!dir)
        return usage();
    if (mkdir_p(dir) < 0) {
        fprintf(stderr, "make_corpus: %s: %s\n", dir, strerror(errno));
        return 1;
    }

    if (mode == MODE_RUN)
        return write_runs(dir) < 0 ? 1 : 0;
    if (mode == MODE_ELF)
        return write_elf_seeds(dir) < 0 ? 1 : 0;
    if (mode == MODE_H5)
        return write_h5_seeds(dir) < 0 ? 1 : 0;
    if (mode == MODE_STRESS)
        return write_stress(dir) < 0 ? 1 : 0;
    if (mode == MODE_READER_STRESS) {
        /* A sample log for its header: the real writer's, not spelled out. */
        blob log = {0};
        uint64_t offsets[MAX_FRAMES];
        int rc = sample_log(dir, 1, 1, &log, offsets);
        if (rc == 0)
            rc = write_reader_stress(dir, log.p);
        free(log.p);
        return rc < 0 ? 1 : 0;
    }

    int failed = 0;
    int wrote_derived = 0;
    for (size_t k = 0; k < sizeof k_logs / sizeof k_logs[0]; k++) {
        unsigned nframes = k_logs[k].nframes;
        char name[64];
        uint64_t offsets[MAX_FRAMES];
        snprintf(name, sizeof name, "log_f%02u_s%02u", nframes, k_logs[k].seed);
        blob log = {0};
        if (sample_log(dir, nframes, k_logs[k].seed, &log, offsets) < 0) {
            failed = 1;
            continue;
        }
        failed |= emit(mode, dir, name, &log, offsets, nframes) < 0;

        /* Damaged copies of the first log with at least three frames: the
         * reader's recovery paths need seeds too. */
        if (!wrote_derived && nframes >= 3) {
            wrote_derived = 1;
            uint64_t last = offsets[nframes - 1];
            blob b;

            /* Cut in the middle of the last frame: what a crash leaves. */
            b.p = log.p;
            b.len = (size_t)(last + (log.len - last) / 2);
            failed |= emit(mode, dir, "damaged_truncated", &b, offsets, nframes - 1) < 0;

            /* One flipped bit in the middle of the second frame: its
             * checksum fails, the frames around it must still read. */
            b.p = malloc(log.len);
            if (!b.p)
                return 1;
            memcpy(b.p, log.p, log.len);
            b.len = log.len;
            size_t flip = (size_t)(offsets[1] + (offsets[2] - offsets[1]) / 2);
            b.p[flip] ^= 0x10;
            failed |= emit(mode, dir, "damaged_bitflip", &b, offsets, nframes) < 0;

            /* The second frame cut out whole: a gap in the sequence numbers. */
            size_t cut = (size_t)(offsets[2] - offsets[1]);
            memcpy(b.p, log.p, log.len);
            memmove(b.p + offsets[1], b.p + offsets[2], log.len - offsets[2]);
            b.len = log.len - cut;
            uint64_t gap_offsets[MAX_FRAMES];
            gap_offsets[0] = offsets[0];
            for (unsigned i = 2; i < nframes; i++)
                gap_offsets[i - 1] = offsets[i] - cut;
            failed |= emit(mode, dir, "damaged_gap", &b, gap_offsets, nframes - 1) < 0;
            free(b.p);

            if (mode != MODE_RECORDS) /* too large to fuzz as frame contents */
                failed |= write_costly_seeds(mode, dir, &log, offsets, nframes) < 0;

            /* The header alone, and nothing at all. */
            if (mode == MODE_FILE) {
                b.p = log.p;
                b.len = SCOPE_LOG_HEADER_SIZE;
                failed |= emit(mode, dir, "header_only", &b, offsets, 0) < 0;
                b.len = 0;
                failed |= emit(mode, dir, "empty", &b, offsets, 0) < 0;
            }
        }
        free(log.p);
    }
    if (!wrote_derived) {
        fprintf(stderr, "make_corpus: no sample log had three frames; damaged copies missing\n");
        failed = 1;
    }
    return failed ? 1 : 0;
}
