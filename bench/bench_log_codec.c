/*
 * Benchmark of the event-log codec: how fast records are encoded, how small
 * they are once compressed, what closing a frame costs, and how fast a reader
 * decodes them.  See bench/README.md for what each figure means.
 *
 *   bench_log_codec [--runs N] [--level L]
 *
 * The records are built here rather than taken from the test samples, so the
 * kind mix and frame sizes are exactly the ones the table names.  They imitate
 * a busy process: phase aggregates with sparse histograms, counters, and
 * resource samples, values drifting from frame to frame as a live recorder's
 * would.  Every figure is the median of several runs, next to the cost of
 * clock_gettime measured in the same run as the noise floor.
 */
#include <scope/log_format.h>
#include <scope/log_hist.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- timing ---------------------------------------------------------- */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v in place and returns its q-quantile (0.5 = median). */
static double quantile(double *v, size_t n, double q) {
    qsort(v, n, sizeof *v, cmp_double);
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

/* ---- realistic records ------------------------------------------------ */

/* xorshift64*: deterministic, so every run measures the same bytes. */
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545f4914f6cdd1dull;
}
static uint64_t rnd_below(uint64_t n) {
    return rnd() % n;
}

enum kind { K_AGG, K_COUNTER, K_RESOURCE, K_MIXED, K_NKINDS };
static const char *const k_kind_label[K_NKINDS] = {
    "phase_agg",
    "counter",
    "resource (1/2 with 2 GPUs)",
    "mixed 60/30/10",
};

/* A pool entry owns the arrays its record points into. */
typedef struct pooled {
    scope_record rec;
    scope_hist_bin bins[16];
    scope_gpu_figures gpus[2];
} pooled;

#define NODES   400 /* phase nodes of a mid-sized program, over all threads */
#define THREADS 8

/* `gen` is the frame generation: a later frame carries the same node's
 * aggregate with larger totals, as the recorder rewrites full values. */
static void make_agg(pooled *p, uint32_t node, uint64_t gen) {
    scope_rec_phase_agg *a = &p->rec.u.phase_agg;
    memset(p, 0, sizeof *p);
    p->rec.type = SCOPE_REC_PHASE_AGG;
    /* Each node has a typical duration from 1 µs to ~1 s, stable across frames. */
    uint64_t typical = 1000ull << (node * 7919u % 20u);
    uint64_t count = (node % 50 + 1) * (gen + 1) * 13 + rnd_below(50);
    a->node = node;
    a->count = count;
    a->wall_ns = count * typical + rnd_below(typical + 1);
    a->min_ns = typical / 2 + rnd_below(typical / 4 + 1);
    a->max_ns = typical * 4 + rnd_below(typical * 8 + 1);
    a->cpu_count = count;
    a->cpu_wall_ns = a->wall_ns;
    a->cpu_ns = a->wall_ns / 10 * (5 + node % 5);
    if (node % 10 == 0) { /* a SCOPE_PHASE_IO phase */
        a->io_flags = SCOPE_IO_MEASURED;
        a->io_count = count;
        a->disk_read = count * 4096 * (rnd_below(4) + 1);
        a->disk_write = count * 65536;
        a->char_read = a->disk_read * 3;
        a->char_write = a->disk_write;
    }
    /* Sparse histogram in the shared log-linear buckets: 4..14 occupied
     * buckets from the fastest entry up, a few sub-buckets apart, counts
     * falling off to the right like real latencies. */
    uint32_t nbins = 4 + (uint32_t)rnd_below(11);
    uint32_t bucket = scope_hist_bucket(a->min_ns);
    uint64_t left = count;
    for (uint32_t i = 0; i < nbins && left && bucket < SCOPE_HIST_BUCKETS; i++) {
        uint64_t c = i + 1 == nbins ? left : left / 2 + rnd_below(left / 4 + 1);
        if (c > left)
            c = left;
        p->bins[i].bucket = bucket;
        p->bins[i].count = c;
        left -= c;
        bucket += 1 + (uint32_t)rnd_below(3);
        a->nbins = i + 1;
    }
    a->bins = p->bins;
}

static void make_counter(pooled *p, uint32_t id, uint64_t gen) {
    scope_rec_counter *c = &p->rec.u.counter;
    memset(p, 0, sizeof *p);
    p->rec.type = SCOPE_REC_COUNTER;
    c->id = id;
    c->name = 1 + id % 40;
    c->node = 1 + id % NODES;
    c->thread = 1 + id % THREADS;
    c->calls = (gen + 1) * (id % 100 + 1) * 37 + rnd_below(100);
    c->total = (int64_t)(c->calls * (id % 7 == 0 ? 64 : 1 + rnd_below(1000)));
}

static void make_resource(pooled *p, uint64_t second) {
    scope_rec_resource *r = &p->rec.u.resource;
    memset(p, 0, sizeof *p);
    p->rec.type = SCOPE_REC_RESOURCE;
    r->mono_ns = 1000000000ull * (1000 + second) + rnd_below(2000000);
    r->interval_ns = 1000000000ull + rnd_below(4000000) - 2000000;
    r->node = 1 + (uint32_t)rnd_below(NODES);
    r->present = SCOPE_RES_RSS | SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS | SCOPE_RES_DISK_READ |
                 SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ | SCOPE_RES_CHAR_WRITE;
    r->rss = (2ull << 30) + rnd_below(64ull << 20);
    r->cpu_user_ns = 700000000 + rnd_below(300000000);
    r->cpu_sys_ns = 20000000 + rnd_below(50000000);
    r->disk_read = rnd_below(4) ? 0 : rnd_below(64ull << 20);
    r->disk_write = rnd_below(16ull << 20);
    r->char_read = r->disk_read + rnd_below(128ull << 20);
    r->char_write = r->disk_write + rnd_below(1ull << 20);
    if (second % 2 == 0) { /* half the samples come from a process with 2 GPUs */
        r->ngpus = 2;
        for (uint32_t g = 0; g < 2; g++) {
            scope_gpu_figures *f = &p->gpus[g];
            f->index = g;
            f->present = SCOPE_GPU_BUSY | SCOPE_GPU_RUN | SCOPE_GPU_MEM_USED | SCOPE_GPU_MEM_RUN |
                         SCOPE_GPU_MEM_TOTAL;
            f->busy_permyriad = 6000 + (uint32_t)rnd_below(4000);
            f->run_permyriad = f->busy_permyriad - (uint32_t)rnd_below(500);
            f->mem_total = 80ull << 30;
            f->mem_used = (40ull << 30) + rnd_below(8ull << 30);
            f->mem_run = f->mem_used - rnd_below(1ull << 30);
        }
        r->gpus = p->gpus;
    }
}

/* Fills pool[0..n) with records of `kind`.  A mixed pool is laid out the way
 * the recorder writes a frame: aggregates, then counters, then resource
 * samples, in 60/30/10 proportions within every `frame` records.  Within a
 * frame each node and counter appears once (newest wins, so the recorder has
 * no reason to write one twice); the next frame rewrites them with larger
 * totals. */
static void fill_pool(pooled *pool, size_t n, enum kind kind, size_t frame) {
    size_t nagg = frame * 6 / 10, ncounter = frame * 3 / 10;
    for (size_t i = 0; i < n; i++) {
        uint64_t gen = i / frame;
        size_t j = i % frame;
        enum kind k = kind;
        if (kind == K_MIXED) {
            if (j < nagg) {
                k = K_AGG;
            } else if (j < nagg + ncounter) {
                k = K_COUNTER;
                j -= nagg;
            } else {
                k = K_RESOURCE;
                j -= nagg + ncounter;
            }
        }
        switch (k) {
        case K_AGG:
            make_agg(&pool[i], 1 + (uint32_t)j, gen);
            break;
        case K_COUNTER:
            make_counter(&pool[i], 1 + (uint32_t)j, gen);
            break;
        default:
            make_resource(&pool[i], gen * frame + j);
            break;
        }
    }
}

/* ---- writer plumbing ---------------------------------------------------- */

static char g_dir[256];
static int g_level = 3;

static scope_log_writer *open_writer(const char *name, int *fd_out) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.%s", g_dir, name, SCOPE_LOG_FILE_EXT);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    scope_log_writer_options opt = {.level = g_level, .max_frame_hint = 1u << 20};
    scope_log_writer *w = NULL;
    int rc = scope_log_writer_open(&w, fd, &opt);
    if (rc < 0) {
        fprintf(stderr, "bench: scope_log_writer_open: %s\n", strerror(-rc));
        exit(1);
    }
    *fd_out = fd;
    return w;
}

static void add(scope_log_writer *w, const scope_record *rec) {
    int rc = scope_log_writer_add(w, rec);
    if (rc < 0) {
        fprintf(stderr, "bench: scope_log_writer_add(%s): %s\n", scope_rec_type_name(rec->type),
                strerror(-rc));
        exit(1);
    }
}

static long close_frame(scope_log_writer *w) {
    long n = scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, now_ns(), 0);
    if (n < 0) {
        fprintf(stderr, "bench: scope_log_writer_close_frame: %s\n", strerror((int)-n));
        exit(1);
    }
    return n;
}

static void finish(scope_log_writer *w, int fd) {
    scope_log_writer_free(w);
    close(fd);
}

/* ---- the measurements ---------------------------------------------------- */

static double bench_clock(void) {
    enum { CALLS = 200000 };
    uint64_t t0 = now_ns();
    for (int i = 0; i < CALLS; i++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        __asm__ volatile("" : : "r"(&ts) : "memory"); /* keep the call */
    }
    return (double)(now_ns() - t0) / CALLS;
}

typedef struct encode_result {
    double ns_per_record, raw_bytes_per_record;
} encode_result;

/* Times scope_log_writer_add alone over `batches` frames of `frame` records;
 * closing the frames (needed to bound the buffer) stays outside the clock. */
static encode_result bench_encode(const pooled *pool, size_t frame, int batches) {
    int fd;
    scope_log_writer *w = open_writer("encode", &fd);
    uint64_t ns = 0, raw = 0;
    for (int b = 0; b < batches; b++) {
        uint64_t t0 = now_ns();
        for (size_t i = 0; i < frame; i++)
            add(w, &pool[i].rec);
        ns += now_ns() - t0;
        raw += scope_log_writer_pending(w);
        close_frame(w);
    }
    finish(w, fd);
    double n = (double)frame * batches;
    return (encode_result){(double)ns / n, (double)raw / n};
}

typedef struct size_result {
    double raw_per_record, stored_per_record;
} size_result;

/* Writes `frames` frames of `frame` records of one kind mix; the stored size
 * includes every frame's zstd header, checksum and FRAME record. */
static size_result bench_size(const pooled *pool, size_t frame, int frames) {
    int fd;
    scope_log_writer *w = open_writer("size", &fd);
    uint64_t raw = 0, stored = 0;
    for (int f = 0; f < frames; f++) {
        for (size_t i = 0; i < frame; i++)
            add(w, &pool[(size_t)f * frame + i].rec);
        raw += scope_log_writer_pending(w);
        stored += (uint64_t)close_frame(w);
    }
    finish(w, fd);
    double n = (double)frame * frames;
    return (size_result){(double)raw / n, (double)stored / n};
}

typedef struct close_result {
    double median_us, p90_us, stored_bytes;
} close_result;

/* Times scope_log_writer_close_frame for frames of `frame` mixed records:
 * compression plus the write(2) into a real file. */
static close_result bench_close(const pooled *pool, size_t pool_frames, size_t frame, int closes) {
    int fd;
    scope_log_writer *w = open_writer("close", &fd);
    double *us = malloc(sizeof *us * (size_t)closes);
    double *bytes = malloc(sizeof *bytes * (size_t)closes);
    if (!us || !bytes)
        exit(1);
    /* One untimed close first: the first write may fault in page cache. */
    for (int c = -1; c < closes; c++) {
        /* Each frame takes the next generation, so zstd never sees the same
         * frame twice in a row (it compresses frames independently anyway). */
        const pooled *src = pool + (size_t)((c + 1) % (int)pool_frames) * frame;
        for (size_t i = 0; i < frame; i++)
            add(w, &src[i].rec);
        uint64_t t0 = now_ns();
        long n = close_frame(w);
        uint64_t t1 = now_ns();
        if (c >= 0) {
            us[c] = (double)(t1 - t0) / 1000.0;
            bytes[c] = (double)n;
        }
    }
    finish(w, fd);
    close_result r = {quantile(us, (size_t)closes, 0.5), quantile(us, (size_t)closes, 0.9),
                      quantile(bytes, (size_t)closes, 0.5)};
    free(us);
    free(bytes);
    return r;
}

typedef struct blob {
    uint8_t *p;
    size_t len;
} blob;

static blob slurp(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.%s", g_dir, name, SCOPE_LOG_FILE_EXT);
    blob b = {0};
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    b.len = (size_t)ftell(f);
    rewind(f);
    b.p = malloc(b.len ? b.len : 1);
    if (!b.p || fread(b.p, 1, b.len, f) != b.len) {
        fprintf(stderr, "bench: reading %s failed\n", path);
        exit(1);
    }
    fclose(f);
    return b;
}

/* Decodes a whole log held in memory: decompression plus record decoding,
 * every record's fields touched.  Returns ns per record. */
static double bench_decode(const blob *log, uint64_t want_records) {
    volatile uint64_t sink = 0;
    uint64_t t0 = now_ns();
    scope_log_reader *r = NULL;
    char msg[200];
    if (scope_log_reader_open_mem(&r, log->p, log->len, msg, sizeof msg) < 0) {
        fprintf(stderr, "bench: reader: %s\n", msg);
        exit(1);
    }
    uint64_t records = 0;
    scope_rec_frame fr;
    while (scope_log_reader_next_frame(r, &fr, NULL) == 1) {
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1) {
            records++;
            if (rec.type == SCOPE_REC_PHASE_AGG)
                sink += rec.u.phase_agg.count + rec.u.phase_agg.nbins;
            else if (rec.type == SCOPE_REC_COUNTER)
                sink += rec.u.counter.calls;
            else if (rec.type == SCOPE_REC_RESOURCE)
                sink += rec.u.resource.rss + rec.u.resource.ngpus;
        }
    }
    size_t damage = scope_log_reader_damage_count(r);
    scope_log_reader_close(r);
    uint64_t ns = now_ns() - t0;
    if (records != want_records || damage) {
        fprintf(stderr, "bench: read back %llu of %llu records, %zu damage entries\n",
                (unsigned long long)records, (unsigned long long)want_records, damage);
        exit(1);
    }
    (void)sink;
    return (double)ns / (double)records;
}

/* ---- main ------------------------------------------------------------------ */

static void cleanup_dir(void) {
    static const char *const names[] = {"encode", "size", "close", "decode"};
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", g_dir, names[i], SCOPE_LOG_FILE_EXT);
        unlink(path);
    }
    rmdir(g_dir);
}

static int usage(void) {
    fprintf(stderr, "usage: bench_log_codec [--runs N] [--level L]\n"
                    "  --runs N   repetitions of each figure, median printed (default 11)\n"
                    "  --level L  zstd level given to the writer (default 3, the writer's)\n");
    return 2;
}

int main(int argc, char **argv) {
    int runs = 11;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--level") == 0 && i + 1 < argc)
            g_level = atoi(argv[++i]);
        else
            return usage();
    }
    if (runs < 1 || g_level < 1 || g_level > 19)
        return usage();

    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/scope-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
        fprintf(stderr, "bench: mkdtemp %s: %s\n", g_dir, strerror(errno));
        return 1;
    }
    atexit(cleanup_dir);

    enum { SIZE_FRAME = 500, SIZE_FRAMES = 20, ENC_FRAME = 5000, ENC_BATCHES = 20 };
    static const size_t close_sizes[] = {50, 500, 5000};
    static const int close_counts[] = {400, 200, 60};
    enum { CLOSE_GENERATIONS = 8 };

    /* Pools: 20 generations of 500-record frames per kind (size figures),
     * 8 generations of each close size (close figures). */
    pooled *kind_pool[K_NKINDS];
    for (int k = 0; k < K_NKINDS; k++) {
        kind_pool[k] = malloc(sizeof(pooled) * SIZE_FRAME * SIZE_FRAMES);
        if (!kind_pool[k])
            return 1;
        fill_pool(kind_pool[k], SIZE_FRAME * SIZE_FRAMES, (enum kind)k, SIZE_FRAME);
    }
    double agg_bins = 0;
    for (size_t i = 0; i < SIZE_FRAME * SIZE_FRAMES; i++)
        agg_bins += kind_pool[K_AGG][i].rec.u.phase_agg.nbins;
    agg_bins /= SIZE_FRAME * SIZE_FRAMES;
    pooled *close_pool[3];
    for (int s = 0; s < 3; s++) {
        size_t n = close_sizes[s] * CLOSE_GENERATIONS;
        close_pool[s] = malloc(sizeof(pooled) * n);
        if (!close_pool[s])
            return 1;
        fill_pool(close_pool[s], n, K_MIXED, close_sizes[s]);
    }
    pooled *enc_pool = close_pool[2]; /* first 5000-record mixed frame */

    /* A log of 40 mixed 5000-record frames for the reader. */
    enum { DEC_FRAMES = 40 };
    uint64_t dec_raw = 0;
    {
        int fd;
        scope_log_writer *w = open_writer("decode", &fd);
        for (int f = 0; f < DEC_FRAMES; f++) {
            const pooled *src = close_pool[2] + (size_t)(f % CLOSE_GENERATIONS) * ENC_FRAME;
            for (size_t i = 0; i < ENC_FRAME; i++)
                add(w, &src[i].rec);
            dec_raw += scope_log_writer_pending(w);
            close_frame(w);
        }
        finish(w, fd);
    }
    blob log = slurp("decode");

    double *clock_ns = calloc((size_t)runs, sizeof(double));
    double *enc_ns = calloc((size_t)runs, sizeof(double));
    double *dec_ns = calloc((size_t)runs, sizeof(double));
    double *size_raw[K_NKINDS], *size_stored[K_NKINDS];
    double *close_med[3], *close_p90[3], *close_bytes[3];
    for (int k = 0; k < K_NKINDS; k++) {
        size_raw[k] = calloc((size_t)runs, sizeof(double));
        size_stored[k] = calloc((size_t)runs, sizeof(double));
    }
    for (int s = 0; s < 3; s++) {
        close_med[s] = calloc((size_t)runs, sizeof(double));
        close_p90[s] = calloc((size_t)runs, sizeof(double));
        close_bytes[s] = calloc((size_t)runs, sizeof(double));
    }
    double enc_raw = 0;

    /* Runs interleave the figures, so a slow patch of machine time spreads
     * over all of them instead of spoiling one. */
    for (int run = 0; run < runs; run++) {
        clock_ns[run] = bench_clock();
        encode_result e = bench_encode(enc_pool, ENC_FRAME, ENC_BATCHES);
        enc_ns[run] = e.ns_per_record;
        enc_raw = e.raw_bytes_per_record;
        for (int k = 0; k < K_NKINDS; k++) {
            size_result s = bench_size(kind_pool[k], SIZE_FRAME, SIZE_FRAMES);
            size_raw[k][run] = s.raw_per_record;
            size_stored[k][run] = s.stored_per_record;
        }
        for (int s = 0; s < 3; s++) {
            close_result c =
                bench_close(close_pool[s], CLOSE_GENERATIONS, close_sizes[s], close_counts[s]);
            close_med[s][run] = c.median_us;
            close_p90[s][run] = c.p90_us;
            close_bytes[s][run] = c.stored_bytes;
        }
        dec_ns[run] = bench_decode(&log, (uint64_t)DEC_FRAMES * ENC_FRAME);
    }

    double clk = quantile(clock_ns, (size_t)runs, 0.5);
    double enc = quantile(enc_ns, (size_t)runs, 0.5);
    double dec = quantile(dec_ns, (size_t)runs, 0.5);

    printf("scope log codec benchmark: zstd level %d, median of %d runs\n\n", g_level, runs);
    printf("%-44s %12s  %s\n", "noise baseline", "value", "unit");
    printf("  %-42s %12.1f  %s\n", "clock_gettime(CLOCK_MONOTONIC)", clk, "ns/call");

    printf("\n%-44s %12s  %s\n", "encode (scope_log_writer_add, mixed kinds)", "value", "unit");
    printf("  %-42s %12.2f  %s\n", "records", 1e3 / enc, "M records/s");
    printf("  %-42s %12.1f  %s\n", "raw record bytes", enc_raw * 1e3 / enc, "MB/s");
    printf("  %-42s %12.1f  %s\n", "time per record", enc, "ns");

    printf("\n%-28s %10s %12s %8s\n", "size per record", "raw B/rec", "stored B/rec", "ratio");
    for (int k = 0; k < K_NKINDS; k++) {
        double raw = quantile(size_raw[k], (size_t)runs, 0.5);
        double st = quantile(size_stored[k], (size_t)runs, 0.5);
        char label[64];
        if (k == K_AGG)
            snprintf(label, sizeof label, "%s (%.1f bins avg)", k_kind_label[k], agg_bins);
        else
            snprintf(label, sizeof label, "%s", k_kind_label[k]);
        printf("  %-26s %10.1f %12.2f %7.1fx\n", label, raw, st, raw / st);
    }

    printf("\n%-28s %10s %10s %12s %10s\n", "close frame (compress+write)", "median us", "p90 us",
           "stored B", "ns/record");
    for (int s = 0; s < 3; s++) {
        double med = quantile(close_med[s], (size_t)runs, 0.5);
        char label[64];
        snprintf(label, sizeof label, "%zu mixed records", close_sizes[s]);
        printf("  %-26s %10.1f %10.1f %12.0f %10.1f\n", label, med,
               quantile(close_p90[s], (size_t)runs, 0.5),
               quantile(close_bytes[s], (size_t)runs, 0.5), med * 1e3 / (double)close_sizes[s]);
    }

    printf("\n%-44s %12s  %s\n", "decode (reader over memory, mixed kinds)", "value", "unit");
    printf("  %-42s %12.2f  %s\n", "records", 1e3 / dec, "M records/s");
    printf("  %-42s %12.1f  %s\n", "time per record", dec, "ns");
    double dec_n = (double)DEC_FRAMES * ENC_FRAME;
    printf("  %-42s %12.1f  %s\n", "raw record bytes out", (double)dec_raw / (dec * dec_n) * 1e3,
           "MB/s");
    printf("  %-42s %12.1f  %s\n", "compressed log bytes in", (double)log.len / (dec * dec_n) * 1e3,
           "MB/s");

    for (int k = 0; k < K_NKINDS; k++) {
        free(size_raw[k]);
        free(size_stored[k]);
        free(kind_pool[k]);
    }
    for (int s = 0; s < 3; s++) {
        free(close_med[s]);
        free(close_p90[s]);
        free(close_bytes[s]);
        free(close_pool[s]);
    }
    free(clock_ns);
    free(enc_ns);
    free(dec_ns);
    free(log.p);
    return 0;
}
