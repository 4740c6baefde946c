/* Sample records and sample logs for the tests, the fuzz corpus and the
 * benchmarks.  Everything here is deterministic: the same seed gives the same
 * bytes, so a failure found with a sample log can be reproduced from its seed. */
#include "log_samples.h"

#include <scope/log_hist.h>
#include <scope/vec.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* A byte-string literal, embedded NULs included (sizeof, not strlen). */
#define B(lit)   ((scope_bytes){(const uint8_t *)(lit), sizeof(lit) - 1})
#define NO_BYTES ((scope_bytes){NULL, 0})

static scope_bytes bytes_of(const char *s) {
    return (scope_bytes){(const uint8_t *)s, strlen(s)};
}

/* splitmix64: small, good enough, and the same on every platform. */
static uint64_t rnd_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform-ish in [lo, hi]. */
static uint64_t rnd_range(uint64_t *s, uint64_t lo, uint64_t hi) {
    return lo + rnd_next(s) % (hi - lo + 1);
}

/* ---- single sample records -------------------------------------------- */

/* Every byte value once: a byte string no text convention can mangle quietly. */
static uint8_t all_bytes[256];

/* A string longer than 127 bytes, so its length prefix needs two varint bytes. */
static uint8_t long_text[300];

static void init_static_bytes(void) {
    for (unsigned i = 0; i < sizeof all_bytes; i++)
        all_bytes[i] = (uint8_t)i;
    for (unsigned i = 0; i < sizeof long_text; i++)
        long_text[i] = (uint8_t)("/scratch/\x01\x7f\xff/"[i % 14]);
}

/* Storage of variant 3 (large arrays), rebuilt by every call that asks for it. */
static struct {
    scope_bytes argv[300];
    char argv_text[300][12];
    scope_kv settings[100];
    char settings_text[100][2][16];
    scope_hist_bin bins[SCOPE_HIST_BUCKETS];
    scope_gpu_figures gpus[64];
    scope_frame_addr frames[512];
    scope_stack_count counts[1000];
    scope_trace_event events[2000];
    scope_open_phase open[255];
    scope_trace_count counts_ev[2000];
    scope_rec_resource batch[600];
    scope_gpu_figures batch_gpus[600 * 3];
} big;

static void fill_process(scope_rec_process *p, unsigned variant) {
    static const scope_bytes argv0[] = {
        {(const uint8_t *)"train", 5},
        {(const uint8_t *)"--config", 8},
        {(const uint8_t *)"cfg/az.yaml", 11},
        {(const uint8_t *)"--workers=8", 11},
    };
    static const scope_kv settings0[] = {
        {{(const uint8_t *)"interval_s", 10}, {(const uint8_t *)"2", 1}},
        {{(const uint8_t *)"lines_hz", 8}, {(const uint8_t *)"100", 3}},
        {{(const uint8_t *)"trace", 5}, {(const uint8_t *)"off", 3}},
    };
    /* An empty argument, a lone NUL, a byte that is never UTF-8 and a
     * terminal escape: each must come back as given. */
    static scope_bytes argv1[5];
    static scope_kv settings1[3];

    switch (variant) {
    case 0:
        p->run_id = B("20260813T2241-471c94");
        p->uuid = B("9f3a61c2");
        p->host = B("node017");
        p->role = B("trainer");
        p->job_id = B("812345");
        p->step_id = B("0");
        p->exe = B("/opt/az/bin/train");
        p->cwd = B("/scratch/az");
        p->recorder_version = B("0.1.0");
        p->pid = 48211;
        p->ppid = 48190;
        p->rank = 3;
        p->local_rank = 1;
        p->node_rank = 1;
        p->world_size = 8;
        p->start_wall_ns = 1786660000123456789ull;
        p->start_mono_ns = 9876543210ull;
        p->argc = NELEM(argv0);
        p->argv = argv0;
        p->nsettings = NELEM(settings0);
        p->settings = settings0;
        p->launcher = B("slurm");
        p->array_job_id = B("812340");
        p->array_task = 5;
        p->restarts = 1;
        break;
    case 1:
        argv1[0] = NO_BYTES;
        argv1[1] = B("\0");
        argv1[2] = B("\xff\xfe");
        argv1[3] = B("\x1b[2J\x1b]0;title\x07");
        argv1[4] = (scope_bytes){all_bytes, sizeof all_bytes};
        settings1[0] = (scope_kv){NO_BYTES, NO_BYTES};
        settings1[1] = (scope_kv){B("k\0ey"), B("\xc3\x28")};
        settings1[2] = (scope_kv){(scope_bytes){long_text, sizeof long_text}, B("\r\n")};
        p->run_id = B("\x1b[31mred\x07\n\t\r");
        p->uuid = B("a\0b\0");
        p->host = B("\xff\xfe\xc3\x28 \xe2\x82");
        p->role = B("\xc0\xaf\xed\xa0\x80");
        p->job_id = (scope_bytes){all_bytes, sizeof all_bytes};
        p->step_id = NO_BYTES;
        p->exe = B("/bin/\0hidden");
        p->cwd = (scope_bytes){long_text, sizeof long_text};
        p->recorder_version = B("\0");
        p->pid = INT64_MIN;
        p->ppid = INT64_MAX;
        p->rank = -1;
        p->local_rank = -1;
        p->node_rank = INT32_MIN;
        p->world_size = INT32_MAX;
        p->start_wall_ns = UINT64_MAX;
        p->start_mono_ns = 0;
        p->argc = NELEM(argv1);
        p->argv = argv1;
        p->nsettings = NELEM(settings1);
        p->settings = settings1;
        p->launcher = B("\x1b[2Jhydra\0");
        p->array_job_id = (scope_bytes){long_text, sizeof long_text};
        p->array_task = INT32_MIN;
        p->restarts = INT32_MAX;
        break;
    case 2:
        p->rank = p->local_rank = p->node_rank = p->world_size = -1;
        p->pid = 1;
        p->ppid = 0;
        break;
    default:
        for (unsigned i = 0; i < NELEM(big.argv); i++) {
            snprintf(big.argv_text[i], sizeof big.argv_text[i], "arg%u", i * 7919u);
            big.argv[i] = bytes_of(big.argv_text[i]);
        }
        for (unsigned i = 0; i < NELEM(big.settings); i++) {
            snprintf(big.settings_text[i][0], sizeof big.settings_text[i][0], "key%u", i);
            snprintf(big.settings_text[i][1], sizeof big.settings_text[i][1], "%u", i * i);
            big.settings[i].key = bytes_of(big.settings_text[i][0]);
            big.settings[i].value = bytes_of(big.settings_text[i][1]);
        }
        p->run_id = B("20260813T2241-471c94");
        p->uuid = B("00000000");
        p->host = B("h");
        p->role = B("r");
        p->pid = 2;
        p->ppid = 1;
        p->rank = 1023;
        p->local_rank = 7;
        p->node_rank = 127;
        p->world_size = 1024;
        p->argc = NELEM(big.argv);
        p->argv = big.argv;
        p->nsettings = NELEM(big.settings);
        p->settings = big.settings;
        break;
    }
}

static void fill_phase_agg(scope_rec_phase_agg *a, unsigned variant) {
    static scope_hist_bin bins0[6];
    static const scope_hist_bin bins1[] = {
        {0, UINT64_MAX}, {1, 0}, {500, 1}, {SCOPE_HIST_BUCKETS - 1, UINT64_MAX}};
    static const uint64_t durations0[] = {3, 900, 1200, 45000, 46000, 2000000000ull};

    switch (variant) {
    case 0:
        for (unsigned i = 0; i < NELEM(bins0); i++) {
            bins0[i].bucket = scope_hist_bucket(durations0[i]);
            bins0[i].count = 1 + i * 3;
        }
        a->node = 3;
        a->count = 5120;
        a->wall_ns = 61234567890ull;
        a->min_ns = 3;
        a->max_ns = 2000000000ull;
        a->cpu_count = 5000;
        a->cpu_wall_ns = 60000000000ull;
        a->cpu_ns = 41000000000ull;
        a->io_flags = SCOPE_IO_MEASURED;
        a->io_count = 12;
        a->io_failed = 1;
        a->disk_read = 1u << 20;
        a->disk_write = 0;
        a->char_read = 5u << 20;
        a->char_write = 4096;
        a->nbins = NELEM(bins0);
        a->bins = bins0;
        break;
    case 1:
        a->node = UINT32_MAX;
        a->count = a->wall_ns = a->min_ns = a->max_ns = UINT64_MAX;
        a->cpu_count = a->cpu_wall_ns = a->cpu_ns = UINT64_MAX;
        a->io_flags = UINT32_MAX;
        a->io_count = a->io_failed = UINT64_MAX;
        a->disk_read = a->disk_write = a->char_read = a->char_write = UINT64_MAX;
        a->nbins = NELEM(bins1);
        a->bins = bins1;
        break;
    case 2:
        a->node = 1;
        break;
    default:
        for (unsigned i = 0; i < SCOPE_HIST_BUCKETS; i++) {
            big.bins[i].bucket = i;
            big.bins[i].count = (uint64_t)i * 0x10001u;
        }
        a->node = 7;
        a->count = 1;
        a->nbins = SCOPE_HIST_BUCKETS;
        a->bins = big.bins;
        break;
    }
}

static void fill_resource_series(scope_rec_resource_series *r, unsigned variant) {
    static const scope_series_bucket b0[] = {
        {4, 4000000000ull, 1u << 20, 3u << 20, 9u << 20},
        {0, 0, 0, 0, 0},
        {1, 1000000000ull, 7, 7, 7},
    };
    static const scope_series_bucket b1[] = {{UINT64_MAX, UINT64_MAX, 0, UINT64_MAX, UINT64_MAX},
                                             {1, 1, UINT64_MAX, UINT64_MAX, UINT64_MAX}};
    switch (variant) {
    case 0:
        *r = (scope_rec_resource_series){0, SCOPE_SERIES_RSS, 0, 5000000000ull, 2000000000ull, 5, 3,
                                         b0};
        break;
    case 1:
        *r = (scope_rec_resource_series){UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT64_MAX,
                                         UINT64_MAX, UINT64_MAX, 2,          b1};
        break;
    case 2:
        *r = (scope_rec_resource_series){0};
        break;
    default:
        *r = (scope_rec_resource_series){3, SCOPE_SERIES_GPU_MEM_RUN, 1, 1, 1, 0, 1, b0 + 1};
        break;
    }
}

/* NODE_IO: 0, an hour of a learner's phase; 1, every field at its
 * largest; 2, all zero (node 0, nothing moved); 3, process records only. */
static void fill_node_io(scope_rec_node_io *r, unsigned variant) {
    switch (variant) {
    case 0:
        *r = (scope_rec_node_io){7,
                                 {3600, 1ull << 33, 5ull << 30, 3ull << 34, 5ull << 30},
                                 {3597, 1ull << 32, 4ull << 30, 3ull << 33, 9ull << 29}};
        break;
    case 1:
        *r = (scope_rec_node_io){UINT32_MAX,
                                 {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX},
                                 {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX}};
        break;
    case 2:
        *r = (scope_rec_node_io){0};
        break;
    default:
        *r = (scope_rec_node_io){3, {0}, {12, 0, 0, 4096, 1}};
        break;
    }
}

static void fill_resource(scope_rec_resource *r, unsigned variant) {
    /* Two devices: the second without this run's share, as when NVML's
     * accounting mode is off. */
    static const scope_gpu_figures gpus0[] = {
        {0,
         SCOPE_GPU_BUSY | SCOPE_GPU_RUN | SCOPE_GPU_MEM_USED | SCOPE_GPU_MEM_RUN |
             SCOPE_GPU_MEM_TOTAL,
         8734, 8100, 40ull << 30, 37ull << 30, 80ull << 30},
        {3, SCOPE_GPU_BUSY | SCOPE_GPU_MEM_USED | SCOPE_GPU_MEM_TOTAL, 0, 0, 1ull << 30, 0,
         80ull << 30},
    };
    static const scope_gpu_figures gpus1[] = {
        {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX},
        {0, 0, 0, 0, 0, 0, 0},
    };
    switch (variant) {
    case 0:
        r->mono_ns = 12000000000ull;
        r->interval_ns = 1000000000ull;
        r->node = 4;
        r->present = SCOPE_RES_RSS | SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS | SCOPE_RES_CHAR_READ |
                     SCOPE_RES_CHAR_WRITE;
        r->rss = 3ull << 30;
        r->cpu_user_ns = 930000000;
        r->cpu_sys_ns = 40000000;
        r->char_read = 1 << 20;
        r->char_write = 65536;
        r->ngpus = NELEM(gpus0);
        r->gpus = gpus0;
        break;
    case 1:
        r->thread = UINT32_MAX;
        r->rss_peak = UINT64_MAX;
        r->dropped = UINT64_MAX;
        r->mono_ns = r->interval_ns = UINT64_MAX;
        r->node = UINT32_MAX;
        r->present = UINT32_MAX;
        r->rss = r->cpu_user_ns = r->cpu_sys_ns = UINT64_MAX;
        r->disk_read = r->disk_write = r->char_read = r->char_write = UINT64_MAX;
        r->ngpus = NELEM(gpus1);
        r->gpus = gpus1;
        break;
    case 2:
        r->mono_ns = 1;
        break;
    default:
        for (unsigned i = 0; i < NELEM(big.gpus); i++) {
            big.gpus[i] = (scope_gpu_figures){
                i, i & 0x1f, i * 150, i * 100, (uint64_t)i << 32, (uint64_t)i << 20, 80ull << 30};
        }
        r->mono_ns = 5;
        r->interval_ns = 1000000000ull;
        r->present = 0xff;
        r->thread = 3;
        r->rss_peak = 5ull << 30;
        r->dropped = 2;
        r->ngpus = NELEM(big.gpus);
        r->gpus = big.gpus;
        break;
    }
}

/* RESOURCE_BATCH: 0, three seconds of a learner as the recorder writes them
 * (each thread's intervals together; times and CPU to the sampler's grain,
 * memory in KiB); 1, extremes, so that every difference wraps and every u32
 * column reaches its limit; 2, empty; 3, 600 intervals of 7 threads
 * interleaved, as a writer that does not sort writes them, with 0 to 3 GPU
 * entries each. */
static void fill_resource_batch(scope_rec_resource_batch *b, unsigned variant) {
    static scope_rec_resource recs[9];
    static scope_gpu_figures gpus[6];
    memset(recs, 0, sizeof recs);
    switch (variant) {
    case 0:
        for (unsigned s = 0; s < 3; s++) {
            scope_rec_resource *p = &recs[s], *t = &recs[3 + s], *u = &recs[6 + s];
            fill_resource(p, 0);
            p->mono_ns = (12000ull << 20) + s * (954ull << 20);
            p->interval_ns = 954ull << 20;
            p->rss = (3ull << 30) + s * 4096 * 25;
            p->cpu_user_ns = (880ull + s * 3) << 20;
            p->present |= SCOPE_RES_RSS_PEAK;
            p->rss_peak = (3ull << 30) + 3 * 4096 * 25;
            for (unsigned g = 0; g < 2; g++) {
                gpus[s * 2 + g] = p->gpus[g];
                gpus[s * 2 + g].busy_permyriad += s * 7;
            }
            p->gpus = gpus + s * 2;
            *t = (scope_rec_resource){.mono_ns = p->mono_ns,
                                      .interval_ns = p->interval_ns,
                                      .node = 9,
                                      .present = SCOPE_RES_CHAR_READ | SCOPE_RES_CHAR_WRITE,
                                      .char_read = 700000 + s * 11,
                                      .thread = 2};
            *u = *t;
            u->thread = 5;
            u->node = s == 2 ? 12 : 11;
            u->char_read = 0;
            u->char_write = 1 << 20;
        }
        *b = (scope_rec_resource_batch){9, recs};
        break;
    case 1:
        fill_resource(&recs[0], 1);
        recs[1].thread = UINT32_MAX; /* every field from its limit to 0 */
        fill_resource(&recs[2], 1);
        recs[2].thread = 0;
        recs[3] = recs[0];
        recs[3].ngpus = 1; /* one entry against the two before */
        *b = (scope_rec_resource_batch){4, recs};
        break;
    case 2:
        *b = (scope_rec_resource_batch){0, NULL};
        break;
    default: {
        uint64_t rng = 42;
        unsigned g = 0;
        for (unsigned i = 0; i < NELEM(big.batch); i++) {
            scope_rec_resource *r = &big.batch[i];
            *r = (scope_rec_resource){.thread = i % 7 == 0 ? 0 : 1000 + i % 7};
            r->mono_ns = 5000000000ull + (i / 7) * 1000000000ull + rnd_range(&rng, 0, 999);
            r->interval_ns = 1000000000ull + rnd_range(&rng, 0, 1u << 20);
            r->node = (uint32_t)rnd_range(&rng, 0, 40);
            r->present = (uint32_t)rnd_range(&rng, 0, 0xff);
            r->rss = rnd_range(&rng, 0, 1ull << 40);
            r->cpu_user_ns = rnd_range(&rng, 0, 4000000000ull);
            r->cpu_sys_ns = rnd_range(&rng, 0, 400000000ull);
            r->disk_read = rnd_range(&rng, 0, 1ull << 30);
            r->disk_write = rnd_range(&rng, 0, 1ull << 30);
            r->char_read = rnd_range(&rng, 0, 1ull << 34);
            r->char_write = rnd_range(&rng, 0, 1ull << 34);
            r->rss_peak = rnd_range(&rng, 0, 1ull << 41);
            r->dropped = rnd_range(&rng, 0, 3) == 0 ? rnd_range(&rng, 1, 5) : 0;
            r->ngpus = (uint32_t)(i % 4);
            r->gpus = r->ngpus ? big.batch_gpus + g : NULL;
            for (unsigned k = 0; k < r->ngpus; k++, g++)
                big.batch_gpus[g] = (scope_gpu_figures){k,
                                                        (uint32_t)rnd_range(&rng, 0, 0x3f),
                                                        (uint32_t)rnd_range(&rng, 0, 10000),
                                                        (uint32_t)rnd_range(&rng, 0, 10000),
                                                        rnd_range(&rng, 0, 80ull << 30),
                                                        rnd_range(&rng, 0, 80ull << 30),
                                                        80ull << 30};
        }
        *b = (scope_rec_resource_batch){NELEM(big.batch), big.batch};
        break;
    }
    }
}

static void fill_stack(scope_rec_stack *s, unsigned variant) {
    static const scope_frame_addr frames0[] = {
        {2, 0x1a2b3}, {2, 0x19f00}, {1, 0x4410}, {1, 0x4021}, {3, 0x29d90}, {0, 0x7ffff7a2d083},
    };
    static const scope_frame_addr frames1[] = {
        {UINT32_MAX, UINT64_MAX}, {0, 0}, {0, UINT64_MAX}, {UINT32_MAX, 0}};
    switch (variant) {
    case 0:
        s->id = 17;
        s->nframes = NELEM(frames0);
        s->frames = frames0;
        break;
    case 1:
        s->id = UINT32_MAX;
        s->nframes = NELEM(frames1);
        s->frames = frames1;
        break;
    case 2:
        s->id = 1;
        break;
    default:
        for (unsigned i = 0; i < NELEM(big.frames); i++)
            big.frames[i] = (scope_frame_addr){i % 5, 0x400000u + i * 0x1234u};
        s->id = 99;
        s->nframes = NELEM(big.frames);
        s->frames = big.frames;
        break;
    }
}

static void fill_stack_samples(scope_rec_stack_samples *s, unsigned variant) {
    static const scope_stack_count counts0[] = {{1, 412}, {2, 37}, {17, 1}, {5, 9000}};
    static const scope_stack_count counts1[] = {{UINT32_MAX, UINT64_MAX}, {0, 0}};
    switch (variant) {
    case 0:
        s->thread = 1;
        s->node = 4;
        s->period_ns = 10000000;
        s->n = NELEM(counts0);
        s->counts = counts0;
        break;
    case 1:
        s->thread = UINT32_MAX;
        s->node = UINT32_MAX;
        s->period_ns = UINT64_MAX;
        s->n = NELEM(counts1);
        s->counts = counts1;
        break;
    case 2:
        s->thread = 2;
        break;
    default:
        for (unsigned i = 0; i < NELEM(big.counts); i++)
            big.counts[i] = (scope_stack_count){i + 1, (uint64_t)i * i * i};
        s->thread = 3;
        s->node = 11;
        s->period_ns = 1000000;
        s->n = NELEM(big.counts);
        s->counts = big.counts;
        break;
    }
}

static void fill_trace(scope_rec_trace *t, unsigned variant) {
    static const scope_trace_event events0[] = {
        {1, 5000000000ull, 2000000000ull},
        {2, 5000001000ull, 1200000000ull},
        {3, 5000002000ull, 40000},
        {4, 5000003000ull, 900},
    };
    /* Out of order and wrapping gaps: the encoding stores signed gaps, and
     * any order must survive. */
    static const scope_trace_event events1[] = {
        {UINT32_MAX, UINT64_MAX, UINT64_MAX}, {0, 0, 0}, {1, UINT64_MAX, 1}, {2, 1, UINT64_MAX},
        {3, (uint64_t)INT64_MAX + 1, 0},
    };
    switch (variant) {
    case 0:
        t->thread = 1;
        t->n = NELEM(events0);
        t->events = events0;
        break;
    case 1:
        t->thread = UINT32_MAX;
        t->n = NELEM(events1);
        t->events = events1;
        break;
    case 2:
        t->thread = 1;
        break;
    default:
        for (unsigned i = 0; i < NELEM(big.events); i++)
            big.events[i] = (scope_trace_event){1 + i % 11, 1000000000ull + i * 25000ull,
                                                (uint64_t)(i % 97) * 1000};
        t->thread = 2;
        t->n = NELEM(big.events);
        t->events = big.events;
        break;
    }
}

static void fill_open(scope_rec_open *o, unsigned variant) {
    static const scope_open_phase open0[] = {
        {1, 5000000000ull},
        {2, 5000001000ull},
        {3, 5000002500ull},
    };
    /* Starts out of order and wrapping: gaps are signed, any order survives. */
    static const scope_open_phase open1[] = {
        {UINT32_MAX, UINT64_MAX}, {0, 0}, {1, UINT64_MAX}, {2, (uint64_t)INT64_MAX + 1}};
    switch (variant) {
    case 0:
        o->thread = 1;
        o->n = NELEM(open0);
        o->phases = open0;
        break;
    case 1:
        o->thread = UINT32_MAX;
        o->n = NELEM(open1);
        o->phases = open1;
        break;
    case 2:
        o->thread = 1;
        break;
    default: /* the deepest stack a recorder writes */
        for (unsigned i = 0; i < NELEM(big.open); i++)
            big.open[i] = (scope_open_phase){1 + i, 1000000000ull + i * 40000ull};
        o->thread = 2;
        o->n = NELEM(big.open);
        o->phases = big.open;
        break;
    }
}

static void fill_trace_counts(scope_rec_trace_counts *t, unsigned variant) {
    static const scope_trace_count events0[] = {
        {5, 5000000500ull, 64},
        {5, 5000900000ull, 64},
        {6, 5001000000ull, -3},
    };
    /* Out of order, wrapping gaps and extreme values. */
    static const scope_trace_count events1[] = {
        {UINT32_MAX, UINT64_MAX, INT64_MIN},
        {0, 0, INT64_MAX},
        {1, UINT64_MAX, 0},
        {2, (uint64_t)INT64_MAX + 1, -1},
    };
    switch (variant) {
    case 0:
        t->thread = 1;
        t->n = NELEM(events0);
        t->events = events0;
        break;
    case 1:
        t->thread = UINT32_MAX;
        t->n = NELEM(events1);
        t->events = events1;
        break;
    case 2:
        t->thread = 1;
        break;
    default:
        for (unsigned i = 0; i < NELEM(big.counts_ev); i++)
            big.counts_ev[i] =
                (scope_trace_count){1 + i % 7, 1000000000ull + i * 31000ull, (int64_t)i * 3 - 100};
        t->thread = 2;
        t->n = NELEM(big.counts_ev);
        t->events = big.counts_ev;
        break;
    }
}

static void fill_trace_window(scope_rec_trace_window *w, unsigned variant) {
    switch (variant) {
    case 0:
        *w = (scope_rec_trace_window){
            7, 100, 110, SCOPE_TRACE_CLOSED, 5000000000ull, 5100000000ull, 4211, 1048576, 0};
        break;
    case 1:
        *w = (scope_rec_trace_window){UINT32_MAX, UINT64_MAX, UINT64_MAX, UINT32_MAX, UINT64_MAX,
                                      UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
        break;
    case 2:
        *w = (scope_rec_trace_window){0};
        break;
    default:
        *w = (scope_rec_trace_window){3,    1,    1000000, SCOPE_TRACE_CAPPED, 1000, 2000,
                                      1000, 1000, 123456};
        break;
    }
}

int log_sample_record(scope_record *rec, uint32_t type, unsigned variant) {
    if (variant >= LOG_SAMPLE_VARIANTS)
        return -EINVAL;
    init_static_bytes();
    memset(rec, 0, sizeof *rec);
    rec->type = type;
    switch (type) {
    case SCOPE_REC_FRAME: {
        static const scope_rec_frame f[] = {
            {3, 16000000000ull, 1786660016000000000ull, SCOPE_FRAME_PERIODIC, 0, 0},
            {UINT64_MAX, UINT64_MAX, UINT64_MAX, SCOPE_FRAME_EXEC, UINT32_MAX, UINT64_MAX},
            {0, 0, 0, SCOPE_FRAME_PERIODIC, 0, 0},
            {1u << 20, 1, 2, SCOPE_FRAME_SIGNAL, SCOPE_FRAME_F_SNAPSHOT, 48213},
        };
        rec->u.frame = f[variant];
        return 0;
    }
    case SCOPE_REC_PROCESS:
        fill_process(&rec->u.process, variant);
        return 0;
    case SCOPE_REC_STRING: {
        if (variant == 0)
            rec->u.string = (scope_rec_string){1, B("self_play")};
        else if (variant == 1)
            rec->u.string = (scope_rec_string){UINT32_MAX, {all_bytes, sizeof all_bytes}};
        else if (variant == 2)
            rec->u.string = (scope_rec_string){0, NO_BYTES};
        else
            rec->u.string = (scope_rec_string){4000000000u, {long_text, sizeof long_text}};
        return 0;
    }
    case SCOPE_REC_THREAD: {
        static const scope_rec_thread t[] = {
            {1, 48211, 9876543210ull, {(const uint8_t *)"main", 4}},
            {UINT32_MAX, INT64_MIN, UINT64_MAX, {(const uint8_t *)"\x1b]0;pwned\x07\0x", 13}},
            {0, -1, 0, {NULL, 0}},
            {2, INT64_MAX, 1, {(const uint8_t *)"loader", 6}},
        };
        rec->u.thread = t[variant];
        return 0;
    }
    case SCOPE_REC_PHASE_NODE: {
        static const scope_rec_phase_node n[] = {
            {3, 2, 3, 1, 0, 15, 212},
            {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX},
            {0, 0, 0, 0, 0, 0, 0},
            {9, 1, 7, 1, SCOPE_PHASE_F_IO | SCOPE_PHASE_F_SYNC, 18, 1},
        };
        rec->u.phase_node = n[variant];
        return 0;
    }
    case SCOPE_REC_PHASE_AGG:
        fill_phase_agg(&rec->u.phase_agg, variant);
        return 0;
    case SCOPE_REC_COUNTER: {
        static const scope_rec_counter c[] = {
            {1, 10, 3, 1, 320, 20480},
            {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT64_MAX, INT64_MIN},
            {0, 0, 0, 0, 0, 0},
            {5, 14, 0, 2, 7, INT64_MAX},
        };
        rec->u.counter = c[variant];
        return 0;
    }
    case SCOPE_REC_RESOURCE:
        fill_resource(&rec->u.resource, variant);
        return 0;
    case SCOPE_REC_RESOURCE_BATCH:
        fill_resource_batch(&rec->u.resource_batch, variant);
        return 0;
    case SCOPE_REC_MODULE: {
        static const uint8_t build_id[20] = {0x4c, 0x1d, 0x2e, 0x00, 0xff, 0x10, 0x9a,
                                             0x00, 0x00, 0x7f, 0x80, 0x81, 0xc3, 0x28,
                                             0x0a, 0x0d, 0x1b, 0x5b, 0x32, 0x4a};
        if (variant == 0)
            rec->u.module = (scope_rec_module){2,
                                               B("/usr/lib/x86_64-linux-gnu/libm.so.6"),
                                               {build_id, sizeof build_id},
                                               0x7f12a0000000ull,
                                               0xfe000};
        else if (variant == 1)
            rec->u.module = (scope_rec_module){UINT32_MAX,
                                               B("/tmp/\x1b[1m\0lib\xff.so"),
                                               {all_bytes, sizeof all_bytes},
                                               UINT64_MAX,
                                               UINT64_MAX};
        else if (variant == 2)
            rec->u.module = (scope_rec_module){0, NO_BYTES, NO_BYTES, 0, 0};
        else
            rec->u.module = (scope_rec_module){
                1, {long_text, sizeof long_text}, NO_BYTES, 0x400000, 1ull << 40};
        return 0;
    }
    case SCOPE_REC_STACK:
        fill_stack(&rec->u.stack, variant);
        return 0;
    case SCOPE_REC_STACK_SAMPLES:
        fill_stack_samples(&rec->u.stack_samples, variant);
        return 0;
    case SCOPE_REC_OFFCPU_SAMPLES:
        /* STACK_SAMPLES' body with a state, never ON (a decoder refuses it). */
        fill_stack_samples(&rec->u.offcpu_samples, variant);
        rec->u.offcpu_samples.state = variant == 1   ? UINT32_MAX
                                      : variant == 2 ? SCOPE_CPU_QUEUED
                                                     : SCOPE_CPU_BLOCKED;
        return 0;
    case SCOPE_REC_MARK: {
        if (variant == 0)
            rec->u.mark = (scope_rec_mark){
                .kind = SCOPE_MARK_FORK, .thread = 1, .mono_ns = 14000000000ull, .value = 48377};
        else if (variant == 1)
            rec->u.mark = (scope_rec_mark){.kind = UINT32_MAX,
                                           .thread = UINT32_MAX,
                                           .mono_ns = UINT64_MAX,
                                           .value = INT64_MIN,
                                           .text = B("\0\x1b[31m\xff\n")};
        else if (variant == 2)
            rec->u.mark = (scope_rec_mark){0};
        else
            rec->u.mark = (scope_rec_mark){.kind = SCOPE_MARK_CAVEAT,
                                           .mono_ns = 1,
                                           .value = INT64_MAX,
                                           .text = {long_text, sizeof long_text}};
        return 0;
    }
    case SCOPE_REC_TRACE:
        fill_trace(&rec->u.trace, variant);
        return 0;
    case SCOPE_REC_OPEN:
        fill_open(&rec->u.open, variant);
        return 0;
    case SCOPE_REC_TRACE_WINDOW:
        fill_trace_window(&rec->u.trace_window, variant);
        return 0;
    case SCOPE_REC_TRACE_COUNTS:
        fill_trace_counts(&rec->u.trace_counts, variant);
        return 0;
    case SCOPE_REC_RESOURCE_SERIES:
        fill_resource_series(&rec->u.resource_series, variant);
        return 0;
    case SCOPE_REC_NODE_IO:
        fill_node_io(&rec->u.node_io, variant);
        return 0;
    case SCOPE_REC_MARK_STATE: {
        scope_record m;
        log_sample_record(&m, SCOPE_REC_MARK, variant);
        rec->u.mark_state = m.u.mark;
        return 0;
    }
    case SCOPE_REC_LINES:
        if (variant == 0)
            rec->u.lines = (scope_rec_lines){B("/home/ada/rl-pipeline"),
                                             99,
                                             SCOPE_LINES_CLOCK_CPU,
                                             10101010,
                                             48211,
                                             3,
                                             17,
                                             9,
                                             0,
                                             SCOPE_LINES_F_ACTIVE,
                                             48190};
        else if (variant == 1)
            rec->u.lines = (scope_rec_lines){B("/tmp/\x1b[1m\0proj\xff"),
                                             UINT32_MAX,
                                             UINT32_MAX,
                                             UINT64_MAX,
                                             UINT64_MAX,
                                             UINT64_MAX,
                                             UINT64_MAX,
                                             UINT32_MAX,
                                             UINT32_MAX,
                                             UINT32_MAX,
                                             UINT64_MAX};
        else if (variant == 2)
            rec->u.lines = (scope_rec_lines){0};
        else
            rec->u.lines = (scope_rec_lines){{long_text, sizeof long_text},
                                             1000,
                                             SCOPE_LINES_CLOCK_WALL,
                                             1000000,
                                             1,
                                             0,
                                             0,
                                             1,
                                             1,
                                             SCOPE_LINES_F_FOREIGN | SCOPE_LINES_F_BLOCKED |
                                                 SCOPE_LINES_F_NO_UNWIND,
                                             0};
        return 0;
    default:
        return -EINVAL;
    }
}

/* ---- field-by-field comparison ---------------------------------------- */

typedef struct cmp {
    char *why;
    size_t whylen;
    int equal;
} cmp;

static void differ(cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void differ(cmp *c, const char *fmt, ...) {
    if (!c->equal)
        return; /* keep the first difference: later ones are usually its echo */
    c->equal = 0;
    if (c->why && c->whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->whylen, fmt, ap);
        va_end(ap);
    }
}

static void cmp_u64(cmp *c, const char *field, uint64_t a, uint64_t b) {
    if (a != b)
        differ(c, "%s: %llu vs %llu", field, (unsigned long long)a, (unsigned long long)b);
}

static void cmp_i64(cmp *c, const char *field, int64_t a, int64_t b) {
    if (a != b)
        differ(c, "%s: %lld vs %lld", field, (long long)a, (long long)b);
}

static void cmp_bytes(cmp *c, const char *field, scope_bytes a, scope_bytes b) {
    if (a.len != b.len)
        differ(c, "%s: %zu bytes vs %zu bytes", field, a.len, b.len);
    else if (a.len && (!a.ptr || !b.ptr))
        differ(c, "%s: NULL pointer with %zu bytes", field, a.len);
    else if (a.len && memcmp(a.ptr, b.ptr, a.len) != 0)
        differ(c, "%s: %zu bytes differ", field, a.len);
}

/* An array count, and a non-NULL pointer wherever the count is not 0. */
static int cmp_count(cmp *c, const char *field, uint64_t na, const void *pa, uint64_t nb,
                     const void *pb) {
    cmp_u64(c, field, na, nb);
    if (na == nb && na && (!pa || !pb))
        differ(c, "%s: NULL array of %llu elements", field, (unsigned long long)na);
    return c->equal;
}

/* One resource interval, its fields named after `what`. */
static void cmp_resource(cmp *cp, const char *what, const scope_rec_resource *x,
                         const scope_rec_resource *y) {
    char name[128];
#define CMP_R(f)                                                                                   \
    snprintf(name, sizeof name, "%s." #f, what);                                                   \
    cmp_u64(cp, name, x->f, y->f)
    CMP_R(mono_ns);
    CMP_R(interval_ns);
    CMP_R(node);
    CMP_R(present);
    CMP_R(rss);
    CMP_R(cpu_user_ns);
    CMP_R(cpu_sys_ns);
    CMP_R(disk_read);
    CMP_R(disk_write);
    CMP_R(char_read);
    CMP_R(char_write);
    CMP_R(thread);
    CMP_R(rss_peak);
    CMP_R(dropped);
    snprintf(name, sizeof name, "%s.ngpus", what);
    if (!cmp_count(cp, name, x->ngpus, x->gpus, y->ngpus, y->gpus))
        return;
    for (uint32_t i = 0; i < x->ngpus; i++) {
#define CMP_GPU(f)                                                                                 \
    snprintf(name, sizeof name, "%s.gpus[%u]." #f, what, i);                                       \
    cmp_u64(cp, name, x->gpus[i].f, y->gpus[i].f)
        CMP_GPU(index);
        CMP_GPU(present);
        CMP_GPU(busy_permyriad);
        CMP_GPU(run_permyriad);
        CMP_GPU(mem_used);
        CMP_GPU(mem_run);
        CMP_GPU(mem_total);
#undef CMP_GPU
    }
#undef CMP_R
}

#define CMP_U(f)  cmp_u64(&c, #f, x->f, y->f)
#define CMP_I(f)  cmp_i64(&c, #f, x->f, y->f)
#define CMP_B(f)  cmp_bytes(&c, #f, x->f, y->f)
#define CMP_AU(f) cmp_u64(&c, name, x->f, y->f)

int log_sample_record_equal(const scope_record *a, const scope_record *b, char *why,
                            size_t whylen) {
    cmp c = {why, whylen, 1};
    char name[96];
    if (why && whylen)
        why[0] = '\0';
    if (a->type != b->type) {
        differ(&c, "type: %u vs %u", a->type, b->type);
        return 0;
    }
    switch (a->type) {
    case SCOPE_REC_FRAME: {
        const scope_rec_frame *x = &a->u.frame, *y = &b->u.frame;
        CMP_U(seq);
        CMP_U(mono_ns);
        CMP_U(wall_ns);
        CMP_U(reason);
        CMP_U(flags);
        CMP_U(last_snapshot);
        break;
    }
    case SCOPE_REC_PROCESS: {
        const scope_rec_process *x = &a->u.process, *y = &b->u.process;
        CMP_B(run_id);
        CMP_B(uuid);
        CMP_B(host);
        CMP_B(role);
        CMP_B(job_id);
        CMP_B(step_id);
        CMP_B(exe);
        CMP_B(cwd);
        CMP_B(recorder_version);
        CMP_I(pid);
        CMP_I(ppid);
        CMP_I(rank);
        CMP_I(local_rank);
        CMP_I(node_rank);
        CMP_I(world_size);
        CMP_U(start_wall_ns);
        CMP_U(start_mono_ns);
        CMP_B(launcher);
        CMP_B(array_job_id);
        CMP_I(array_task);
        CMP_I(restarts);
        if (cmp_count(&c, "process.argc", x->argc, x->argv, y->argc, y->argv)) {
            for (uint32_t i = 0; i < x->argc; i++) {
                snprintf(name, sizeof name, "process.argv[%u]", i);
                cmp_bytes(&c, name, x->argv[i], y->argv[i]);
            }
        }
        if (cmp_count(&c, "process.nsettings", x->nsettings, x->settings, y->nsettings,
                      y->settings)) {
            for (uint32_t i = 0; i < x->nsettings; i++) {
                snprintf(name, sizeof name, "process.settings[%u].key", i);
                cmp_bytes(&c, name, x->settings[i].key, y->settings[i].key);
                snprintf(name, sizeof name, "process.settings[%u].value", i);
                cmp_bytes(&c, name, x->settings[i].value, y->settings[i].value);
            }
        }
        break;
    }
    case SCOPE_REC_STRING: {
        const scope_rec_string *x = &a->u.string, *y = &b->u.string;
        CMP_U(id);
        CMP_B(value);
        break;
    }
    case SCOPE_REC_THREAD: {
        const scope_rec_thread *x = &a->u.thread, *y = &b->u.thread;
        CMP_U(index);
        CMP_I(tid);
        CMP_U(start_mono_ns);
        CMP_B(name);
        break;
    }
    case SCOPE_REC_PHASE_NODE: {
        const scope_rec_phase_node *x = &a->u.phase_node, *y = &b->u.phase_node;
        CMP_U(id);
        CMP_U(parent);
        CMP_U(name);
        CMP_U(thread);
        CMP_U(flags);
        CMP_U(file);
        CMP_U(line);
        break;
    }
    case SCOPE_REC_PHASE_AGG: {
        const scope_rec_phase_agg *x = &a->u.phase_agg, *y = &b->u.phase_agg;
        CMP_U(node);
        CMP_U(count);
        CMP_U(wall_ns);
        CMP_U(min_ns);
        CMP_U(max_ns);
        CMP_U(cpu_count);
        CMP_U(cpu_wall_ns);
        CMP_U(cpu_ns);
        CMP_U(io_flags);
        CMP_U(io_count);
        CMP_U(io_failed);
        CMP_U(disk_read);
        CMP_U(disk_write);
        CMP_U(char_read);
        CMP_U(char_write);
        if (cmp_count(&c, "phase_agg.nbins", x->nbins, x->bins, y->nbins, y->bins)) {
            for (uint32_t i = 0; i < x->nbins; i++) {
                snprintf(name, sizeof name, "phase_agg.bins[%u].bucket", i);
                CMP_AU(bins[i].bucket);
                snprintf(name, sizeof name, "phase_agg.bins[%u].count", i);
                CMP_AU(bins[i].count);
            }
        }
        break;
    }
    case SCOPE_REC_COUNTER: {
        const scope_rec_counter *x = &a->u.counter, *y = &b->u.counter;
        CMP_U(id);
        CMP_U(name);
        CMP_U(node);
        CMP_U(thread);
        CMP_U(calls);
        CMP_I(total);
        break;
    }
    case SCOPE_REC_RESOURCE:
        cmp_resource(&c, "resource", &a->u.resource, &b->u.resource);
        break;
    case SCOPE_REC_RESOURCE_BATCH: {
        const scope_rec_resource_batch *x = &a->u.resource_batch, *y = &b->u.resource_batch;
        if (cmp_count(&c, "resource_batch.n", x->n, x->records, y->n, y->records))
            for (uint32_t i = 0; i < x->n && c.equal; i++) {
                snprintf(name, sizeof name, "resource_batch.records[%u]", i);
                cmp_resource(&c, name, &x->records[i], &y->records[i]);
            }
        break;
    }
    case SCOPE_REC_MODULE: {
        const scope_rec_module *x = &a->u.module, *y = &b->u.module;
        CMP_U(id);
        CMP_B(path);
        CMP_B(build_id);
        CMP_U(base);
        CMP_U(size);
        break;
    }
    case SCOPE_REC_STACK: {
        const scope_rec_stack *x = &a->u.stack, *y = &b->u.stack;
        CMP_U(id);
        if (cmp_count(&c, "stack.nframes", x->nframes, x->frames, y->nframes, y->frames)) {
            for (uint32_t i = 0; i < x->nframes; i++) {
                snprintf(name, sizeof name, "stack.frames[%u].module", i);
                CMP_AU(frames[i].module);
                snprintf(name, sizeof name, "stack.frames[%u].offset", i);
                CMP_AU(frames[i].offset);
            }
        }
        break;
    }
    case SCOPE_REC_STACK_SAMPLES:
    case SCOPE_REC_OFFCPU_SAMPLES: {
        const scope_rec_stack_samples *x = &a->u.stack_samples, *y = &b->u.stack_samples;
        CMP_U(thread);
        CMP_U(node);
        CMP_U(period_ns);
        if (a->type == SCOPE_REC_OFFCPU_SAMPLES)
            CMP_U(state);
        if (cmp_count(&c, "stack_samples.n", x->n, x->counts, y->n, y->counts)) {
            for (uint32_t i = 0; i < x->n; i++) {
                snprintf(name, sizeof name, "stack_samples.counts[%u].stack", i);
                CMP_AU(counts[i].stack);
                snprintf(name, sizeof name, "stack_samples.counts[%u].count", i);
                CMP_AU(counts[i].count);
            }
        }
        break;
    }
    case SCOPE_REC_MARK:
    case SCOPE_REC_MARK_STATE: {
        const scope_rec_mark *x = &a->u.mark, *y = &b->u.mark;
        CMP_U(kind);
        CMP_U(thread);
        CMP_U(mono_ns);
        CMP_I(value);
        CMP_B(text);
        CMP_U(subkind);
        CMP_I(value2);
        break;
    }
    case SCOPE_REC_LINES: {
        const scope_rec_lines *x = &a->u.lines, *y = &b->u.lines;
        CMP_B(project);
        CMP_U(hz);
        CMP_U(clock);
        CMP_U(period_ns);
        CMP_U(samples);
        CMP_U(dropped);
        CMP_U(truncated);
        CMP_U(threads);
        CMP_U(threads_failed);
        CMP_U(flags);
        break;
    }
    case SCOPE_REC_TRACE: {
        const scope_rec_trace *x = &a->u.trace, *y = &b->u.trace;
        CMP_U(thread);
        if (cmp_count(&c, "trace.n", x->n, x->events, y->n, y->events)) {
            for (uint32_t i = 0; i < x->n; i++) {
                snprintf(name, sizeof name, "trace.events[%u].node", i);
                CMP_AU(events[i].node);
                snprintf(name, sizeof name, "trace.events[%u].start_ns", i);
                CMP_AU(events[i].start_ns);
                snprintf(name, sizeof name, "trace.events[%u].dur_ns", i);
                CMP_AU(events[i].dur_ns);
            }
        }
        break;
    }
    case SCOPE_REC_OPEN: {
        const scope_rec_open *x = &a->u.open, *y = &b->u.open;
        CMP_U(thread);
        if (cmp_count(&c, "open.n", x->n, x->phases, y->n, y->phases)) {
            for (uint32_t i = 0; i < x->n; i++) {
                snprintf(name, sizeof name, "open.phases[%u].node", i);
                CMP_AU(phases[i].node);
                snprintf(name, sizeof name, "open.phases[%u].start_ns", i);
                CMP_AU(phases[i].start_ns);
            }
        }
        break;
    }
    case SCOPE_REC_TRACE_WINDOW: {
        const scope_rec_trace_window *x = &a->u.trace_window, *y = &b->u.trace_window;
        CMP_U(phase);
        CMP_U(first);
        CMP_U(last);
        CMP_U(state);
        CMP_U(start_mono_ns);
        CMP_U(end_mono_ns);
        CMP_U(events);
        CMP_U(cap);
        CMP_U(lost);
        break;
    }
    case SCOPE_REC_RESOURCE_SERIES: {
        const scope_rec_resource_series *x = &a->u.resource_series, *y = &b->u.resource_series;
        CMP_U(thread);
        CMP_U(figure);
        CMP_U(device);
        CMP_U(start_mono_ns);
        CMP_U(bucket_ns);
        CMP_U(samples_total);
        if (cmp_count(&c, "resource_series.nbuckets", x->nbuckets, x->buckets, y->nbuckets,
                      y->buckets)) {
            for (uint32_t i = 0; i < x->nbuckets; i++) {
#define CMP_BUCKET(f)                                                                              \
    snprintf(name, sizeof name, "resource_series.buckets[%u]." #f, i);                             \
    CMP_AU(buckets[i].f)
                CMP_BUCKET(samples);
                CMP_BUCKET(covered_ns);
                CMP_BUCKET(min);
                CMP_BUCKET(max);
                CMP_BUCKET(sum);
#undef CMP_BUCKET
            }
        }
        break;
    }
    case SCOPE_REC_NODE_IO: {
        const scope_rec_node_io *x = &a->u.node_io, *y = &b->u.node_io;
        CMP_U(node);
        CMP_U(thread.intervals);
        CMP_U(thread.disk_read);
        CMP_U(thread.disk_write);
        CMP_U(thread.char_read);
        CMP_U(thread.char_write);
        CMP_U(process.intervals);
        CMP_U(process.disk_read);
        CMP_U(process.disk_write);
        CMP_U(process.char_read);
        CMP_U(process.char_write);
        break;
    }
    case SCOPE_REC_TRACE_COUNTS: {
        const scope_rec_trace_counts *x = &a->u.trace_counts, *y = &b->u.trace_counts;
        CMP_U(thread);
        if (cmp_count(&c, "trace_counts.n", x->n, x->events, y->n, y->events)) {
            for (uint32_t i = 0; i < x->n; i++) {
                snprintf(name, sizeof name, "trace_counts.events[%u].name", i);
                CMP_AU(events[i].name);
                snprintf(name, sizeof name, "trace_counts.events[%u].mono_ns", i);
                CMP_AU(events[i].mono_ns);
                snprintf(name, sizeof name, "trace_counts.events[%u].value", i);
                cmp_i64(&c, name, x->events[i].value, y->events[i].value);
            }
        }
        break;
    }
    default:
        /* Unknown kinds carry nothing but their raw body. */
        cmp_bytes(&c, "raw", a->raw, b->raw);
        break;
    }
    return c.equal;
}

/* ---- a realistic sample log ------------------------------------------- */

/* The program being "recorded": an AlphaZero-style trainer whose main thread
 * alternates self-play and training, with a loader thread and an environment
 * worker. */
enum {
    S_ITERATION = 1,
    S_SELF_PLAY,
    S_MCTS,
    S_ENV_STEP,
    S_LOAD_BATCH,
    S_TRAIN,
    S_CHECKPOINT,
    S_FORWARD,
    S_BACKWARD,
    S_MCTS_SIMS,
    S_ENV_STEPS,
    S_SAMPLES_LOADED,
    S_BYTES_CHECKPOINTED,
    S_QUEUE_DELTA,
    S_MAIN_C,
    S_SELFPLAY_C,
    S_TRAIN_C,
    S_LOADER_C,
    S_CHECKPOINT_C,
    S_ENV_C,
    S_NSTRINGS
};

static const char *const sample_strings[S_NSTRINGS] = {
    [S_ITERATION] = "iteration",
    [S_SELF_PLAY] = "self_play",
    [S_MCTS] = "mcts",
    [S_ENV_STEP] = "env_step",
    [S_LOAD_BATCH] = "load_batch",
    [S_TRAIN] = "train",
    [S_CHECKPOINT] = "checkpoint",
    [S_FORWARD] = "forward",
    [S_BACKWARD] = "backward",
    [S_MCTS_SIMS] = "mcts_simulations",
    [S_ENV_STEPS] = "env_steps",
    [S_SAMPLES_LOADED] = "samples_loaded",
    [S_BYTES_CHECKPOINTED] = "bytes_checkpointed",
    [S_QUEUE_DELTA] = "replay_queue_delta",
    [S_MAIN_C] = "az/main.c",
    [S_SELFPLAY_C] = "az/selfplay.c",
    [S_TRAIN_C] = "az/train.c",
    [S_LOADER_C] = "az/loader.c",
    [S_CHECKPOINT_C] = "az/checkpoint.c",
    [S_ENV_C] = "az/env.c",
};

enum { T_MAIN = 1, T_LOADER = 2, T_ENV = 3, NTHREADS = 3 };

/* Per node: how many entries a 2-second frame adds and their typical length. */
typedef struct sample_node {
    scope_rec_phase_node def;
    unsigned per_frame;  /* entries completed per frame (0: see every) */
    unsigned every;      /* when per_frame is 0: one entry every `every` frames */
    uint64_t mean_ns;    /* typical duration */
    unsigned cpu_permil; /* share of wall time on CPU */
} sample_node;

#define NNODES 11
static const sample_node sample_nodes[NNODES] = {
    {{1, 0, S_ITERATION, T_MAIN, 0, S_MAIN_C, 88}, 1, 0, 1900000000ull, 700},
    {{2, 1, S_SELF_PLAY, T_MAIN, 0, S_SELFPLAY_C, 41}, 1, 0, 1100000000ull, 820},
    {{3, 2, S_MCTS, T_MAIN, 0, S_SELFPLAY_C, 57}, 48, 0, 21000000ull, 950},
    {{4, 3, S_ENV_STEP, T_MAIN, 0, S_ENV_C, 130}, 96, 0, 180000ull, 990},
    {{5, 1, S_TRAIN, T_MAIN, 0, S_TRAIN_C, 20}, 1, 0, 700000000ull, 400},
    {{6, 5, S_LOAD_BATCH, T_MAIN, 0, S_TRAIN_C, 33}, 8, 0, 4000000ull, 300},
    {{7, 5, S_FORWARD, T_MAIN, SCOPE_PHASE_F_SYNC, S_TRAIN_C, 47}, 8, 0, 38000000ull, 150},
    {{8, 5, S_BACKWARD, T_MAIN, SCOPE_PHASE_F_SYNC, S_TRAIN_C, 52}, 8, 0, 51000000ull, 120},
    {{9, 1, S_CHECKPOINT, T_MAIN, SCOPE_PHASE_F_IO, S_CHECKPOINT_C, 12}, 0, 3, 90000000ull, 200},
    {{10, 0, S_LOAD_BATCH, T_LOADER, SCOPE_PHASE_F_IO, S_LOADER_C, 75}, 12, 0, 15000000ull, 250},
    {{11, 0, S_ENV_STEP, T_ENV, 0, S_ENV_C, 130}, 200, 0, 170000ull, 980},
};

/* A resource figure's series for snapshots (docs/format.md 5.19), folded
 * from the RESOURCE records the log holds: a few buckets whose width
 * doubles as the log grows longer, as a recorder keeps it. */
#define SAMPLE_SERIES_BUCKETS 8
typedef struct sample_series {
    uint32_t figure, device;
    uint64_t bucket_ns, samples_total;
    scope_series_bucket b[SAMPLE_SERIES_BUCKETS];
} sample_series;
#define SAMPLE_SERIES 32 /* 8 process figures and 5 per GPU, two GPUs at most */
#define SAMPLE_MARKS  64

/* Running totals, written as full values each frame ("newest wins"). */
typedef struct sample_state {
    uint64_t rng;
    scope_rec_phase_agg agg[NNODES];
    uint64_t hist[NNODES][SCOPE_HIST_BUCKETS];
    scope_hist_bin bins[SCOPE_HIST_BUCKETS];
    uint64_t counter_calls[5];
    int64_t counter_total[5];
    uint64_t stack_counts[3][12];
    unsigned nstacks;
    /* What a snapshot frame restates (docs/format.md 5.2.1). */
    unsigned last_f;      /* the newest data frame written */
    uint64_t last_mono;   /* its close time */
    int has_trace_window; /* one was written: the newest stands */
    scope_rec_trace_window trace_window;
    scope_rec_mark marks[SAMPLE_MARKS]; /* copies of the marks written, for MARK_STATE */
    unsigned nmarks;
    sample_series series[SAMPLE_SERIES];
    unsigned nseries;
    scope_rec_node_io node_io[NNODES + 1]; /* by node id: the intervals' bytes, for NODE_IO */
} sample_state;

static int add(scope_log_writer *w, const scope_record *rec) {
    return scope_log_writer_add(w, rec);
}

static int write_definitions(scope_log_writer *w, unsigned seed, uint64_t start_mono,
                             uint64_t start_wall) {
    scope_record rec;
    int rc;
    static const scope_bytes argv[] = {
        {(const uint8_t *)"./train", 7},
        {(const uint8_t *)"--config", 8},
        {(const uint8_t *)"cfg/az.yaml", 11},
        {(const uint8_t *)"--selfplay-workers", 18},
        {(const uint8_t *)"8", 1},
    };
    static const scope_kv settings[] = {
        {{(const uint8_t *)"frame_interval_s", 16}, {(const uint8_t *)"2", 1}},
        {{(const uint8_t *)"resource_interval_s", 19}, {(const uint8_t *)"1", 1}},
        {{(const uint8_t *)"lines_hz", 8}, {(const uint8_t *)"100", 3}},
        {{(const uint8_t *)"trace_window_s", 14}, {(const uint8_t *)"0", 1}},
    };
    char uuid[16], host[16];
    snprintf(uuid, sizeof uuid, "%08x", (seed * 2654435761u) ^ 0x5c0be1u);
    snprintf(host, sizeof host, "node%03u", seed % 64);

    memset(&rec, 0, sizeof rec);
    rec.type = SCOPE_REC_PROCESS;
    scope_rec_process *p = &rec.u.process;
    p->run_id = B("20260813T2241-471c94");
    p->uuid = bytes_of(uuid);
    p->host = bytes_of(host);
    p->role = B("trainer");
    p->job_id = B("812345");
    p->step_id = B("0");
    p->exe = B("/opt/az/bin/train");
    p->cwd = B("/scratch/az/run7");
    p->recorder_version = B("0.1.0");
    p->pid = 40000 + seed % 20000;
    p->ppid = 39990;
    p->rank = (int32_t)(seed % 8);
    p->local_rank = (int32_t)(seed % 4);
    p->node_rank = (int32_t)(seed % 8 / 4);
    p->world_size = 8;
    p->start_wall_ns = start_wall;
    p->start_mono_ns = start_mono;
    p->argc = NELEM(argv);
    p->argv = argv;
    p->nsettings = NELEM(settings);
    p->settings = settings;
    if ((rc = add(w, &rec)) < 0)
        return rc;

    for (uint32_t id = 1; id < S_NSTRINGS; id++) {
        memset(&rec, 0, sizeof rec);
        rec.type = SCOPE_REC_STRING;
        rec.u.string.id = id;
        rec.u.string.value = bytes_of(sample_strings[id]);
        if ((rc = add(w, &rec)) < 0)
            return rc;
    }

    static const char *const thread_names[NTHREADS + 1] = {NULL, "main", "loader",
                                                           "env-worker\x1b[31m\xff"};
    for (uint32_t t = 1; t <= NTHREADS; t++) {
        memset(&rec, 0, sizeof rec);
        rec.type = SCOPE_REC_THREAD;
        rec.u.thread.index = t;
        rec.u.thread.tid = p->pid + (t - 1) * 3;
        rec.u.thread.start_mono_ns = start_mono + (t - 1) * 1500000ull;
        rec.u.thread.name = bytes_of(thread_names[t]);
        if ((rc = add(w, &rec)) < 0)
            return rc;
    }

    for (unsigned i = 0; i < NNODES; i++) {
        memset(&rec, 0, sizeof rec);
        rec.type = SCOPE_REC_PHASE_NODE;
        rec.u.phase_node = sample_nodes[i].def;
        if ((rc = add(w, &rec)) < 0)
            return rc;
    }

    /* The executable and two libraries, with GNU build ids. */
    static const struct {
        const char *path;
        uint64_t base, size;
    } modules[] = {
        {"/opt/az/bin/train", 0x555555554000ull, 0x2d000},
        {"/usr/lib/x86_64-linux-gnu/libm.so.6", 0x7ffff7e00000ull, 0xfe000},
        {"/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7ffff7a00000ull, 0x1c7000},
    };
    for (uint32_t m = 0; m < NELEM(modules); m++) {
        uint8_t build_id[20];
        uint64_t s = 0xb111d1du + m;
        for (unsigned i = 0; i < sizeof build_id; i++)
            build_id[i] = (uint8_t)rnd_next(&s);
        memset(&rec, 0, sizeof rec);
        rec.type = SCOPE_REC_MODULE;
        rec.u.module.id = m + 1;
        rec.u.module.path = bytes_of(modules[m].path);
        rec.u.module.build_id = (scope_bytes){build_id, sizeof build_id};
        rec.u.module.base = modules[m].base;
        rec.u.module.size = modules[m].size;
        if ((rc = add(w, &rec)) < 0)
            return rc;
    }
    return 0;
}

/* Stack `id` (1..): a few frames in the executable over libm/libc. */
static int write_stack(scope_log_writer *w, uint32_t id) {
    scope_frame_addr frames[8];
    uint64_t s = 0x57ac0000u + id;
    uint32_t n = 3 + id % 5;
    for (uint32_t i = 0; i < n; i++) {
        frames[i].module = i == 0 ? 2 + id % 2 : 1;
        frames[i].offset = 0x1000 + rnd_next(&s) % 0x2c000;
    }
    scope_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = SCOPE_REC_STACK;
    rec.u.stack.id = id;
    rec.u.stack.nframes = n;
    rec.u.stack.frames = frames;
    return add(w, &rec);
}

/* Node i's aggregate as it stands: its running totals and histogram. */
static int emit_agg(scope_log_writer *w, sample_state *st, unsigned i) {
    uint32_t nbins = 0;
    for (uint32_t b = 0; b < SCOPE_HIST_BUCKETS; b++) {
        if (st->hist[i][b])
            st->bins[nbins++] = (scope_hist_bin){b, st->hist[i][b]};
    }
    scope_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = SCOPE_REC_PHASE_AGG;
    rec.u.phase_agg = st->agg[i];
    rec.u.phase_agg.nbins = nbins;
    rec.u.phase_agg.bins = st->bins;
    return add(w, &rec);
}

static const struct {
    uint32_t name, node, thread;
} sample_counters[5] = {
    {S_MCTS_SIMS, 3, T_MAIN},         {S_ENV_STEPS, 11, T_ENV},
    {S_SAMPLES_LOADED, 10, T_LOADER}, {S_BYTES_CHECKPOINTED, 9, T_MAIN},
    {S_QUEUE_DELTA, 0, T_LOADER},
};

static int emit_counter(scope_log_writer *w, const sample_state *st, unsigned c) {
    scope_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = SCOPE_REC_COUNTER;
    rec.u.counter = (scope_rec_counter){c + 1,
                                        sample_counters[c].name,
                                        sample_counters[c].node,
                                        sample_counters[c].thread,
                                        st->counter_calls[c],
                                        st->counter_total[c]};
    return add(w, &rec);
}

static int write_aggregates(scope_log_writer *w, sample_state *st, unsigned f) {
    int rc;
    for (unsigned i = 0; i < NNODES; i++) {
        const sample_node *n = &sample_nodes[i];
        unsigned entries = n->per_frame ? n->per_frame : (f % n->every == n->every - 1);
        if (!entries)
            continue; /* nothing new: the previous frame's aggregate still stands */
        scope_rec_phase_agg *a = &st->agg[i];
        a->node = n->def.id;
        for (unsigned e = 0; e < entries; e++) {
            /* Mostly near the mean, now and then 4x slower: a tail to find. */
            uint64_t d = n->mean_ns / 2 + rnd_next(&st->rng) % n->mean_ns;
            if (rnd_next(&st->rng) % 50 == 0)
                d *= 4;
            if (a->count == 0 || d < a->min_ns)
                a->min_ns = d;
            if (d > a->max_ns)
                a->max_ns = d;
            a->count++;
            a->wall_ns += d;
            st->hist[i][scope_hist_bucket(d)]++;
            /* One entry in 40 ran on a thread whose CPU clock could not be
             * read: it counts in wall time but not in wait%. */
            if (rnd_next(&st->rng) % 40 != 0) {
                a->cpu_count++;
                a->cpu_wall_ns += d;
                a->cpu_ns += d * n->cpu_permil / 1000;
            }
            if (n->def.flags & SCOPE_PHASE_F_IO) {
                a->io_flags = SCOPE_IO_MEASURED;
                if (rnd_next(&st->rng) % 100 == 0) {
                    a->io_failed++;
                } else {
                    a->io_count++;
                    if (n->def.id == 9) {
                        uint64_t bytes = 48ull << 20;
                        a->char_write += bytes;
                        a->disk_write += bytes - (bytes >> 3);
                    } else {
                        uint64_t bytes = (1ull << 20) + rnd_next(&st->rng) % (1u << 20);
                        a->char_read += bytes;
                        a->disk_read += bytes * (rnd_next(&st->rng) % 4) / 4; /* cache hits */
                    }
                }
            }
        }
        if ((rc = emit_agg(w, st, i)) < 0)
            return rc;
    }

    for (unsigned c = 0; c < NELEM(sample_counters); c++) {
        /* What one 2-second frame adds to each counter. */
        uint64_t calls = 12;
        int64_t amount = 0;
        switch (c) {
        case 0: /* 48 searches of 64 simulations */
            calls = 48;
            amount = 48 * 64;
            break;
        case 1:
            calls = 200;
            amount = 200;
            break;
        case 2: /* 12 batches of 256 samples */
            amount = 12 * 256;
            break;
        case 3: /* one checkpoint every third frame */
            calls = f % 3 == 2;
            amount = calls ? 48 << 20 : 0;
            break;
        default: /* a signed counter that drifts both ways */
            amount = (int64_t)(rnd_next(&st->rng) % 2001) - 1000;
            break;
        }
        if (!calls)
            continue;
        st->counter_calls[c] += calls;
        st->counter_total[c] += amount;
        if ((rc = emit_counter(w, st, c)) < 0)
            return rc;
    }
    return 0;
}

/* Adds one interval's value to the series of (figure, device). */
static void fold(sample_state *st, uint32_t figure, uint32_t device, uint64_t start_mono,
                 const scope_rec_resource *r, uint64_t value) {
    sample_series *x = NULL;
    for (unsigned i = 0; i < st->nseries && !x; i++)
        if (st->series[i].figure == figure && st->series[i].device == device)
            x = &st->series[i];
    if (!x) {
        if (st->nseries == SAMPLE_SERIES)
            return;
        x = &st->series[st->nseries++];
        *x = (sample_series){.figure = figure, .device = device, .bucket_ns = 4000000000ull};
    }
    uint64_t at = r->mono_ns > start_mono ? r->mono_ns - start_mono : 0;
    while (at / x->bucket_ns >= SAMPLE_SERIES_BUCKETS) {
        /* Twice as wide: neighbours merge, and the second half empties. */
        for (unsigned i = 0; i < SAMPLE_SERIES_BUCKETS; i++) {
            scope_series_bucket m = {0};
            for (unsigned k = 2 * i; k < 2 * i + 2 && k < SAMPLE_SERIES_BUCKETS; k++) {
                const scope_series_bucket *b = &x->b[k];
                if (!b->samples)
                    continue;
                m.min = m.samples && m.min < b->min ? m.min : b->min;
                m.max = m.samples && m.max > b->max ? m.max : b->max;
                m.samples += b->samples;
                m.covered_ns += b->covered_ns;
                m.sum += b->sum;
            }
            x->b[i] = m;
        }
        x->bucket_ns *= 2;
    }
    scope_series_bucket *b = &x->b[at / x->bucket_ns];
    b->min = b->samples && b->min < value ? b->min : value;
    b->max = b->samples && b->max > value ? b->max : value;
    b->samples++;
    b->covered_ns += r->interval_ns;
    b->sum += value;
    x->samples_total++;
}

static void fold_node_io(sample_state *st, const scope_rec_resource *r) {
    if (r->node > NNODES)
        return;
    scope_rec_node_io *n = &st->node_io[r->node];
    scope_io_sums *s = r->thread ? &n->thread : &n->process;
    n->node = r->node;
    s->intervals++;
    s->disk_read += r->present & SCOPE_RES_DISK_READ ? r->disk_read : 0;
    s->disk_write += r->present & SCOPE_RES_DISK_WRITE ? r->disk_write : 0;
    s->char_read += r->present & SCOPE_RES_CHAR_READ ? r->char_read : 0;
    s->char_write += r->present & SCOPE_RES_CHAR_WRITE ? r->char_write : 0;
}

static void fold_resource(sample_state *st, const scope_rec_resource *r, uint64_t start_mono) {
    static const struct {
        uint32_t bit, figure;
    } figures[] = {
        {SCOPE_RES_RSS, SCOPE_SERIES_RSS},
        {SCOPE_RES_CPU_USER, SCOPE_SERIES_CPU_USER},
        {SCOPE_RES_CPU_SYS, SCOPE_SERIES_CPU_SYS},
        {SCOPE_RES_DISK_READ, SCOPE_SERIES_DISK_READ},
        {SCOPE_RES_DISK_WRITE, SCOPE_SERIES_DISK_WRITE},
        {SCOPE_RES_CHAR_READ, SCOPE_SERIES_CHAR_READ},
        {SCOPE_RES_CHAR_WRITE, SCOPE_SERIES_CHAR_WRITE},
        {SCOPE_RES_RSS_PEAK, SCOPE_SERIES_RSS_PEAK},
    };
    const uint64_t values[] = {r->rss,        r->cpu_user_ns, r->cpu_sys_ns, r->disk_read,
                               r->disk_write, r->char_read,   r->char_write, r->rss_peak};
    for (unsigned i = 0; i < NELEM(figures); i++)
        if (r->present & figures[i].bit)
            fold(st, figures[i].figure, 0, start_mono, r, values[i]);
    for (uint32_t g = 0; g < r->ngpus; g++) {
        const scope_gpu_figures *x = &r->gpus[g];
        if (x->present & SCOPE_GPU_BUSY)
            fold(st, SCOPE_SERIES_GPU_BUSY, x->index, start_mono, r, x->busy_permyriad);
        if (x->present & SCOPE_GPU_RUN)
            fold(st, SCOPE_SERIES_GPU_RUN, x->index, start_mono, r, x->run_permyriad);
        if (x->present & SCOPE_GPU_MEM_USED)
            fold(st, SCOPE_SERIES_GPU_MEM_USED, x->index, start_mono, r, x->mem_used);
        if (x->present & SCOPE_GPU_MEM_RUN)
            fold(st, SCOPE_SERIES_GPU_MEM_RUN, x->index, start_mono, r, x->mem_run);
        if (x->present & SCOPE_GPU_MEM_TOTAL)
            fold(st, SCOPE_SERIES_GPU_MEM_TOTAL, x->index, start_mono, r, x->mem_total);
    }
}

static int write_resources(scope_log_writer *w, sample_state *st, unsigned seed, unsigned f,
                           uint64_t start_mono) {
    /* One sample per simulated second, two seconds per frame: as one
     * RESOURCE_BATCH in even frames (the form of 1.7 writers), as two
     * RESOURCE records in odd ones (the form before). */
    unsigned ngpus = seed % 3;
    scope_rec_resource iv[2];
    scope_gpu_figures gpus_of[2][2];
    for (unsigned s = 0; s < 2; s++) {
        uint64_t second = (uint64_t)f * 2 + s;
        scope_gpu_figures *gpus = gpus_of[s];
        for (unsigned g = 0; g < ngpus; g++) {
            gpus[g].index = g * 2; /* the run uses devices 0 and 2 of the node */
            gpus[g].present = SCOPE_GPU_BUSY | SCOPE_GPU_MEM_USED | SCOPE_GPU_MEM_TOTAL;
            /* Only device 0 has accounting mode on, so only it has this
             * run's share. */
            if (g == 0)
                gpus[g].present |= SCOPE_GPU_RUN | SCOPE_GPU_MEM_RUN;
            gpus[g].busy_permyriad = (uint32_t)rnd_range(&st->rng, 6000, 9900);
            gpus[g].run_permyriad =
                g == 0 ? gpus[g].busy_permyriad - (uint32_t)rnd_range(&st->rng, 0, 500) : 0;
            gpus[g].mem_total = 80ull << 30;
            gpus[g].mem_used = (30ull << 30) + rnd_range(&st->rng, 0, 1ull << 30);
            gpus[g].mem_run = g == 0 ? gpus[g].mem_used - (2ull << 30) : 0;
        }
        scope_rec_resource *r = &iv[s];
        memset(r, 0, sizeof *r);
        r->mono_ns = start_mono + second * 1000000000ull;
        r->interval_ns = 1000000000ull + rnd_range(&st->rng, 0, 2000000);
        r->node = s == 0 ? 3 : 7; /* mcts, then forward */
        r->present = SCOPE_RES_RSS | SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS | SCOPE_RES_CHAR_READ |
                     SCOPE_RES_CHAR_WRITE;
        /* Odd seeds run in a container without block-layer figures. */
        if (seed % 2 == 0)
            r->present |= SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE;
        r->rss = (2ull << 30) + second * (3u << 20);
        r->present |= SCOPE_RES_RSS_PEAK;
        r->rss_peak = r->rss + (1u << 20);
        r->cpu_user_ns = rnd_range(&st->rng, 1800000000ull, 2900000000ull);
        r->cpu_sys_ns = rnd_range(&st->rng, 30000000, 90000000);
        r->char_read = rnd_range(&st->rng, 0, 8u << 20);
        r->char_write = rnd_range(&st->rng, 0, 1u << 16);
        if (seed % 2 == 0) {
            r->disk_read = r->char_read / 4;
            r->disk_write = r->char_write;
        }
        r->ngpus = ngpus;
        r->gpus = ngpus ? gpus : NULL;
        fold_resource(st, r, start_mono);
        fold_node_io(st, r);
    }
    scope_record rec;
    memset(&rec, 0, sizeof rec);
    if (f % 2 == 0) {
        rec.type = SCOPE_REC_RESOURCE_BATCH;
        rec.u.resource_batch = (scope_rec_resource_batch){2, iv};
        return add(w, &rec);
    }
    for (unsigned s = 0; s < 2; s++) {
        rec.type = SCOPE_REC_RESOURCE;
        rec.u.resource = iv[s];
        int rc = add(w, &rec);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static const struct sample_where {
    uint32_t thread, node;
} sample_where[3] = {{T_MAIN, 4}, {T_MAIN, 7}, {T_LOADER, 10}};

static int emit_stack_samples(scope_log_writer *w, const sample_state *st);

static int write_samples(scope_log_writer *w, sample_state *st, unsigned f) {
    int rc;
    /* Two new stacks each frame, defined before their first use. */
    for (unsigned k = 0; k < 2 && st->nstacks < 12; k++) {
        if ((rc = write_stack(w, ++st->nstacks)) < 0)
            return rc;
    }
    for (unsigned k = 0; k < NELEM(sample_where); k++)
        for (uint32_t s = 0; s < st->nstacks; s++)
            if ((s + k) % 3 == 0 || s + 1 == st->nstacks)
                st->stack_counts[k][s] += rnd_range(&st->rng, 1, 60);
    (void)f;
    return emit_stack_samples(w, st);
}

/* Every (thread, node)'s samples per stack so far (newest wins). */
static int emit_stack_samples(scope_log_writer *w, const sample_state *st) {
    const struct sample_where *where = sample_where;
    int rc;
    for (unsigned k = 0; k < NELEM(sample_where); k++) {
        scope_stack_count counts[12];
        uint32_t n = 0;
        for (uint32_t s = 0; s < st->nstacks; s++)
            if (st->stack_counts[k][s])
                counts[n++] = (scope_stack_count){s + 1, st->stack_counts[k][s]};
        scope_record rec;
        memset(&rec, 0, sizeof rec);
        rec.type = SCOPE_REC_STACK_SAMPLES;
        rec.u.stack_samples.thread = where[k].thread;
        rec.u.stack_samples.node = where[k].node;
        rec.u.stack_samples.period_ns = 10000000;
        rec.u.stack_samples.n = n;
        rec.u.stack_samples.counts = n ? counts : NULL;
        if ((rc = add(w, &rec)) < 0)
            return rc;
        /* The main thread's first phase also waited, blocked, in every
         * stack a third as often (format 1.10). */
        if (k == 0) {
            for (uint32_t i = 0; i < n; i++)
                counts[i].count = counts[i].count / 3 + 1;
            rec.type = SCOPE_REC_OFFCPU_SAMPLES;
            rec.u.offcpu_samples.state = SCOPE_CPU_BLOCKED;
            if ((rc = add(w, &rec)) < 0)
                return rc;
        }
    }
    return 0;
}

/* Writes a mark and keeps its copy for the snapshots' MARK_STATE records
 * (docs/format.md 5.20): of a running total (DROPPED) only the newest per
 * thread.  Texts are literals, so the copies may point at them. */
static int write_mark(scope_log_writer *w, sample_state *st, uint32_t kind, uint32_t thread,
                      uint64_t mono, int64_t value, const char *text) {
    scope_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = SCOPE_REC_MARK;
    rec.u.mark = (scope_rec_mark){.kind = kind,
                                  .thread = thread,
                                  .mono_ns = mono,
                                  .value = value,
                                  .text = text ? bytes_of(text) : NO_BYTES};
    unsigned i = 0;
    if (kind == SCOPE_MARK_DROPPED)
        while (i < st->nmarks && !(st->marks[i].kind == kind && st->marks[i].thread == thread))
            i++;
    else
        i = st->nmarks;
    if (i < SAMPLE_MARKS) {
        st->marks[i] = rec.u.mark;
        if (i == st->nmarks)
            st->nmarks++;
    }
    return add(w, &rec);
}

/* The line sampler's totals, as of frame f (newest wins). */
static int write_lines(scope_log_writer *w, unsigned f) {
    scope_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = SCOPE_REC_LINES;
    rec.u.lines = (scope_rec_lines){.project = bytes_of("/home/ada/rl-pipeline"),
                                    .hz = 99,
                                    .clock = SCOPE_LINES_CLOCK_CPU,
                                    .period_ns = 10101010,
                                    .samples = 198ull * (f + 1),
                                    .dropped = f / 3,
                                    .threads = 3,
                                    .flags = SCOPE_LINES_F_ACTIVE};
    return add(w, &rec);
}

static int write_trace(scope_log_writer *w, sample_state *st, uint64_t t0) {
    /* One iteration of the main thread, event by event, in start order. */
    static const uint32_t nodes[] = {1, 2, 3, 4, 4, 4, 3, 4, 4, 5, 6, 7, 8, 6, 7, 8};
    scope_trace_event ev[NELEM(nodes)];
    uint64_t t = t0;
    for (unsigned i = 0; i < NELEM(nodes); i++) {
        ev[i].node = nodes[i];
        ev[i].start_ns = t;
        ev[i].dur_ns = sample_nodes[nodes[i] - 1].mean_ns / 4 + rnd_range(&st->rng, 0, 1000);
        t += rnd_range(&st->rng, 1000, 2000000);
    }
    scope_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = SCOPE_REC_TRACE;
    rec.u.trace.thread = T_MAIN;
    rec.u.trace.n = NELEM(ev);
    rec.u.trace.events = ev;
    int rc = add(w, &rec);
    if (rc < 0)
        return rc;
    /* Its counter events, and the window itself (newest wins). */
    scope_trace_count counts[3];
    for (unsigned i = 0; i < NELEM(counts); i++)
        counts[i] = (scope_trace_count){S_SAMPLES_LOADED, t0 + 1000 * (i + 1),
                                        (int64_t)rnd_range(&st->rng, 1, 64)};
    memset(&rec, 0, sizeof rec);
    rec.type = SCOPE_REC_TRACE_COUNTS;
    rec.u.trace_counts = (scope_rec_trace_counts){T_LOADER, NELEM(counts), counts};
    if ((rc = add(w, &rec)) < 0)
        return rc;
    memset(&rec, 0, sizeof rec);
    rec.type = SCOPE_REC_TRACE_WINDOW;
    rec.u.trace_window = (scope_rec_trace_window){
        S_ITERATION, 3, 3, SCOPE_TRACE_CLOSED, t0, t, NELEM(ev) + NELEM(counts), 1u << 20, 0};
    st->trace_window = rec.u.trace_window;
    st->has_trace_window = 1;
    return add(w, &rec);
}

/* What the main thread has open when a frame closes at mono: an
 * iteration, its self-play and one search, begun in that order; nothing
 * in the last frame, written at exit, so the figures of a whole sample
 * log are its aggregates alone. */
static int write_open(scope_log_writer *w, uint64_t mono, int last) {
    scope_open_phase open[] = {
        {1, mono - 1500000000ull}, {2, mono - 900000000ull}, {3, mono - 4000000ull}};
    scope_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = SCOPE_REC_OPEN;
    rec.u.open = (scope_rec_open){T_MAIN, last ? 0 : NELEM(open), open};
    return add(w, &rec);
}

/* A snapshot frame's records (docs/format.md 5.2.1): every definition, the
 * full value of every aggregate, the marks written so far and the resource
 * series, as of the newest data frame, and no event. */
static int write_snapshot(scope_log_writer *w, sample_state *st, unsigned seed, uint64_t start_mono,
                          uint64_t start_wall, int last) {
    int rc;
    if ((rc = write_definitions(w, seed, start_mono, start_wall)) < 0)
        return rc;
    for (uint32_t id = 1; id <= st->nstacks; id++)
        if ((rc = write_stack(w, id)) < 0)
            return rc;
    for (unsigned i = 0; i < NNODES; i++)
        if (st->agg[i].count && (rc = emit_agg(w, st, i)) < 0)
            return rc;
    for (unsigned c = 0; c < NELEM(sample_counters); c++)
        if (st->counter_calls[c] && (rc = emit_counter(w, st, c)) < 0)
            return rc;
    if ((rc = emit_stack_samples(w, st)) < 0 || (rc = write_lines(w, st->last_f)) < 0 ||
        (rc = write_open(w, st->last_mono, last)) < 0)
        return rc;
    scope_record rec;
    if (st->has_trace_window) {
        memset(&rec, 0, sizeof rec);
        rec.type = SCOPE_REC_TRACE_WINDOW;
        rec.u.trace_window = st->trace_window;
        if ((rc = add(w, &rec)) < 0)
            return rc;
    }
    for (unsigned i = 0; i < st->nmarks; i++) {
        memset(&rec, 0, sizeof rec);
        rec.type = SCOPE_REC_MARK_STATE;
        rec.u.mark_state = st->marks[i];
        if ((rc = add(w, &rec)) < 0)
            return rc;
    }
    for (unsigned i = 0; i < st->nseries; i++) {
        const sample_series *x = &st->series[i];
        scope_series_bucket b[SAMPLE_SERIES_BUCKETS];
        uint32_t n = 0;
        for (unsigned k = 0; k < SAMPLE_SERIES_BUCKETS; k++)
            if (x->b[k].samples)
                n = k + 1; /* the buckets after the newest measured one are not written */
        for (unsigned k = 0; k < n; k++)
            b[k] = x->b[k];
        memset(&rec, 0, sizeof rec);
        rec.type = SCOPE_REC_RESOURCE_SERIES;
        rec.u.resource_series = (scope_rec_resource_series){
            0, x->figure, x->device, start_mono, x->bucket_ns, x->samples_total, n, b};
        if ((rc = add(w, &rec)) < 0)
            return rc;
    }
    for (unsigned i = 0; i <= NNODES; i++) {
        const scope_rec_node_io *n = &st->node_io[i];
        if (!n->thread.intervals && !n->process.intervals)
            continue;
        memset(&rec, 0, sizeof rec);
        rec.type = SCOPE_REC_NODE_IO;
        rec.u.node_io = *n;
        if ((rc = add(w, &rec)) < 0)
            return rc;
    }
    return 0;
}

/* Whether frame i of n is a snapshot: the one right after the exit frame
 * (the last), and one after every fourth data frame, as a recorder writes
 * them once the bytes since the last snapshot reach its size.  A one-frame
 * log has none: its process died before its first. */
static int sample_is_snapshot(unsigned i, unsigned n) {
    return n >= 2 && (i + 1 == n || (i % 5 == 4 && i + 2 < n));
}

int log_sample_is_snapshot(unsigned frame, unsigned nframes) {
    return sample_is_snapshot(frame, nframes);
}

int log_sample_write_log(const char *path, unsigned nframes, unsigned seed, uint64_t *frame_offsets,
                         uint64_t *file_size) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    scope_log_writer *w = NULL;
    sample_state *st = calloc(1, sizeof *st);
    int rc = st ? scope_log_writer_open(&w, fd, NULL) : -ENOMEM;
    if (rc < 0)
        goto out;
    st->rng = 0x5c09e000u ^ ((uint64_t)seed << 32) ^ seed;

    const uint64_t start_mono = 5000000000ull + (uint64_t)seed * 7919;
    const uint64_t start_wall = 1786660000000000000ull + (uint64_t)seed * 1000003;
    const uint64_t frame_ns = 2000000000ull;

    /* Data frames are numbered f = 0, 1, 2 ... (2 simulated seconds each);
     * a snapshot frame follows one closely and adds no time of its own. */
    unsigned ndata = 0;
    for (unsigned i = 0; i < nframes; i++)
        ndata += !sample_is_snapshot(i, nframes);
    for (unsigned i = 0, f = 0; i < nframes; i++) {
        if (sample_is_snapshot(i, nframes)) {
            int last = f == ndata;
            uint64_t mono = st->last_mono + 1000;
            struct stat sb;
            if ((rc = write_snapshot(w, st, seed, start_mono, start_wall, last)) < 0)
                goto out;
            if (fstat(fd, &sb) < 0) {
                rc = -errno;
                goto out;
            }
            if (frame_offsets)
                frame_offsets[i] = (uint64_t)sb.st_size;
            /* Closed for the same reason as the frame it follows (5.2.1). */
            long n = scope_log_writer_close_frame_flags(
                w, last ? SCOPE_FRAME_EXIT : SCOPE_FRAME_PERIODIC, SCOPE_FRAME_F_SNAPSHOT, mono,
                start_wall + (mono - start_mono));
            if (n < 0) {
                rc = (int)n;
                goto out;
            }
            continue;
        }
        uint64_t mono = start_mono + (f + 1) * frame_ns;
        if (f == 0) {
            if ((rc = write_definitions(w, seed, start_mono, start_wall)) < 0)
                goto out;
            if (seed % 3 == 0 &&
                (rc = write_mark(w, st, SCOPE_MARK_CAVEAT, 0, start_mono + 1000, 0,
                                 "GPU figures unavailable: libnvidia-ml.so.1 not found")) < 0)
                goto out;
        }
        if ((rc = write_aggregates(w, st, f)) < 0 ||
            (rc = write_resources(w, st, seed, f, start_mono)) < 0 ||
            (rc = write_samples(w, st, f)) < 0 || (rc = write_lines(w, f)) < 0)
            goto out;
        if (f == 1 && (rc = write_mark(w, st, SCOPE_MARK_FORK, T_MAIN, mono - 700000000ull,
                                       40000 + (int64_t)(seed % 20000) + 17, NULL)) < 0)
            goto out;
        if (f % 5 == 3 && (rc = write_mark(w, st, SCOPE_MARK_DROPPED, T_LOADER, mono - 1000,
                                           (int64_t)(f * 3 + 1), "trace events")) < 0)
            goto out;
        /* A trace window now and then; a log of one or two data frames gets
         * one too, so that every kind appears in any sample log. */
        if ((f == 1 || f % 4 == 3 || ndata == 1) &&
            (rc = write_trace(w, st, mono - frame_ns + 5000)) < 0)
            goto out;
        int last = f + 1 == ndata;
        if ((rc = write_open(w, mono, last)) < 0)
            goto out;
        if (last && (rc = write_mark(w, st, SCOPE_MARK_SHUTDOWN, 0, mono - 10, SCOPE_SHUTDOWN_EXIT,
                                     NULL)) < 0)
            goto out;
        st->last_f = f;
        st->last_mono = mono;

        /* The file is appended to, so its size before a close is where that
         * frame will begin. */
        struct stat sb;
        if (fstat(fd, &sb) < 0) {
            rc = -errno;
            goto out;
        }
        if (frame_offsets)
            frame_offsets[i] = (uint64_t)sb.st_size;
        long n = scope_log_writer_close_frame(w, last ? SCOPE_FRAME_EXIT : SCOPE_FRAME_PERIODIC,
                                              mono, start_wall + (f + 1) * frame_ns);
        if (n < 0) {
            rc = (int)n;
            goto out;
        }
        f++;
    }
    if (file_size) {
        struct stat sb;
        if (fstat(fd, &sb) < 0) {
            rc = -errno;
            goto out;
        }
        *file_size = (uint64_t)sb.st_size;
    }
    rc = 0;
out:
    scope_log_writer_free(w);
    free(st);
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

/* ---- format 1.0 bodies ------------------------------------------------- */

/* LEB128, as docs/format.md section 4 gives it, written independently of the
 * codec so that the test does not check the codec against itself. */
static size_t put_uvar(uint8_t *buf, size_t cap, size_t at, uint64_t v) {
    do {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (at < cap)
            buf[at] = byte | (v ? 0x80 : 0);
        at++;
    } while (v);
    return at;
}

size_t log_sample_mark_1_0(uint8_t *buf, size_t cap, uint32_t kind, uint32_t thread,
                           uint64_t mono_ns, int64_t value, const char *text) {
    size_t at = 0, len = strlen(text);
    at = put_uvar(buf, cap, at, kind);
    at = put_uvar(buf, cap, at, thread);
    at = put_uvar(buf, cap, at, mono_ns);
    at = put_uvar(buf, cap, at, ((uint64_t)value << 1) ^ (uint64_t)(value >> 63)); /* zigzag */
    at = put_uvar(buf, cap, at, len);
    if (at + len <= cap)
        memcpy(buf + at, text, len);
    return at + len;
}

/* ---- whole-log dumps -------------------------------------------------- */

static int blob_append(log_sample_frame *f, size_t *cap, const void *p, size_t n) {
    if (SCOPE_VEC_RESERVE(f->blob, *cap, f->bloblen + n) < 0)
        return -ENOMEM;
    if (n)
        memcpy(f->blob + f->bloblen, p, n);
    f->bloblen += n;
    return 0;
}

/* Copies out everything an opened reader gives (see log_sample_dump_mem),
 * then closes it. */
static int dump_reader(scope_log_reader *r, size_t max_frames, log_sample_dump *d) {
    /* records as written: a RESOURCE_BATCH counts as one */
    scope_log_reader_whole_batches(r, 1);
    d->info = *scope_log_reader_info(r);
    d->frames = calloc(max_frames ? max_frames : 1, sizeof *d->frames);
    if (!d->frames)
        goto nomem;

    scope_rec_frame fr;
    uint64_t off;
    while (scope_log_reader_next_frame(r, &fr, &off) == 1) {
        if (d->nframes == max_frames) {
            d->runaway = 1;
            break;
        }
        log_sample_frame *f = &d->frames[d->nframes++];
        size_t cap = 0;
        f->offset = off;
        f->frame = fr;
        scope_record rec;
        while (scope_log_reader_next_record(r, &rec) == 1) {
            if (f->nrecords++ == 1000000) {
                d->runaway = 1;
                break;
            }
            uint64_t len = rec.raw.len;
            if (blob_append(f, &cap, &rec.type, sizeof rec.type) < 0 ||
                blob_append(f, &cap, &len, sizeof len) < 0 ||
                blob_append(f, &cap, rec.raw.ptr, rec.raw.len) < 0)
                goto nomem;
        }
        if (d->runaway)
            break;
    }
    d->ndamage = scope_log_reader_damage_count(r);
    if (d->ndamage) {
        d->damage = calloc(d->ndamage, sizeof *d->damage);
        if (!d->damage)
            goto nomem;
        for (size_t i = 0; i < d->ndamage; i++)
            d->damage[i] = *scope_log_reader_damage(r, i);
    }
    scope_log_reader_close(r);
    return 0;
nomem:
    scope_log_reader_close(r);
    log_sample_dump_free(d);
    return -ENOMEM;
}

int log_sample_dump_mem(const void *data, size_t size, size_t max_frames, log_sample_dump *d) {
    memset(d, 0, sizeof *d);
    scope_log_reader *r = NULL;
    d->rc = scope_log_reader_open_mem(&r, data, size, d->msg, sizeof d->msg);
    return d->rc < 0 ? 0 : dump_reader(r, max_frames, d);
}

int log_sample_dump_file(const char *path, size_t max_frames, log_sample_dump *d) {
    memset(d, 0, sizeof *d);
    scope_log_reader *r = NULL;
    d->rc = scope_log_reader_open(&r, path, d->msg, sizeof d->msg);
    return d->rc < 0 ? 0 : dump_reader(r, max_frames, d);
}

int log_sample_frame_equal(const log_sample_frame *a, const log_sample_frame *b) {
    return a->offset == b->offset && a->frame.seq == b->frame.seq &&
           a->frame.mono_ns == b->frame.mono_ns && a->frame.wall_ns == b->frame.wall_ns &&
           a->frame.reason == b->frame.reason && a->nrecords == b->nrecords &&
           a->bloblen == b->bloblen && (!a->bloblen || memcmp(a->blob, b->blob, a->bloblen) == 0);
}

void log_sample_dump_free(log_sample_dump *d) {
    for (size_t i = 0; i < d->nframes; i++)
        free(d->frames[i].blob);
    free(d->frames);
    free(d->damage);
    d->frames = NULL;
    d->damage = NULL;
    d->nframes = d->ndamage = 0;
}

int log_sample_read_file(const char *path, uint8_t **data, size_t *size) {
    *data = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat sb;
    if (fstat(fd, &sb) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    /* One spare byte so an empty file still yields a real allocation. */
    uint8_t *buf = malloc((size_t)sb.st_size + 1);
    if (!buf) {
        close(fd);
        return -ENOMEM;
    }
    size_t got = 0;
    while (got < (size_t)sb.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            free(buf);
            close(fd);
            return -e;
        }
        got += (size_t)n;
    }
    close(fd);
    *data = buf;
    *size = got;
    return 0;
}

int log_sample_write_file(const char *path, const void *data, size_t size) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    size_t put = 0;
    while (put < size) {
        ssize_t n = write(fd, (const uint8_t *)data + put, size - put);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return -e;
        }
        put += (size_t)n;
    }
    return close(fd) < 0 ? -errno : 0;
}
