/*
 * Record bodies: one encoder and one decoder per kind, field by field, in the
 * order docs/format.md lists them.  Encoders and decoders sit next to each
 * other so that a field added to one is seen missing from the other.
 *
 * The asserts state what the encoders may take for granted once encodable()
 * has passed a record, and what the decoders' own checks guarantee before
 * they write into a scratch array; never what a body's bytes say, which
 * decoding judges and reports as malformed.
 */
#include "record_codec.h"

#include "varint.h"

#include <assert.h>
#include <scope/log_hist.h>
#include <scope/vec.h>
#include <stdlib.h>

/* ---- encoding ---------------------------------------------------------- */

static void put_bytes(enc_buf *b, scope_bytes s) {
    enc_bytes(b, s.ptr, s.len);
}

static void enc_frame(enc_buf *b, const scope_rec_frame *r) {
    enc_u64(b, r->seq);
    enc_u64(b, r->mono_ns);
    enc_u64(b, r->wall_ns);
    enc_u64(b, r->reason);
    enc_u64(b, r->flags);
    enc_u64(b, r->last_snapshot);
}

static void enc_process(enc_buf *b, const scope_rec_process *r) {
    put_bytes(b, r->run_id);
    put_bytes(b, r->uuid);
    put_bytes(b, r->host);
    put_bytes(b, r->role);
    put_bytes(b, r->job_id);
    put_bytes(b, r->step_id);
    put_bytes(b, r->exe);
    put_bytes(b, r->cwd);
    put_bytes(b, r->recorder_version);
    enc_i64(b, r->pid);
    enc_i64(b, r->ppid);
    enc_i64(b, r->rank);
    enc_i64(b, r->local_rank);
    enc_i64(b, r->node_rank);
    enc_i64(b, r->world_size);
    enc_u64(b, r->start_wall_ns);
    enc_u64(b, r->start_mono_ns);
    enc_u64(b, r->argc);
    for (uint32_t i = 0; i < r->argc; i++)
        put_bytes(b, r->argv[i]);
    enc_u64(b, r->nsettings);
    for (uint32_t i = 0; i < r->nsettings; i++) {
        put_bytes(b, r->settings[i].key);
        put_bytes(b, r->settings[i].value);
    }
    put_bytes(b, r->launcher);
    put_bytes(b, r->array_job_id);
    enc_i64(b, r->array_task);
    enc_i64(b, r->restarts);
}

static void enc_phase_agg(enc_buf *b, const scope_rec_phase_agg *r) {
    enc_u64(b, r->node);
    enc_u64(b, r->count);
    enc_u64(b, r->wall_ns);
    enc_u64(b, r->min_ns);
    enc_u64(b, r->max_ns);
    enc_u64(b, r->cpu_count);
    enc_u64(b, r->cpu_wall_ns);
    enc_u64(b, r->cpu_ns);
    enc_u64(b, r->io_flags);
    enc_u64(b, r->io_count);
    enc_u64(b, r->io_failed);
    enc_u64(b, r->disk_read);
    enc_u64(b, r->disk_write);
    enc_u64(b, r->char_read);
    enc_u64(b, r->char_write);
    enc_u64(b, r->nbins);
    /* Buckets as gaps from the previous one: sparse histograms of nearby
     * buckets then cost one byte per bucket index. */
    uint32_t next = 0;
    for (uint32_t i = 0; i < r->nbins; i++) {
        /* encodable(): buckets ascend and stay below SCOPE_HIST_BUCKETS */
        assert(r->bins[i].bucket >= next && r->bins[i].bucket < SCOPE_HIST_BUCKETS);
        enc_u64(b, r->bins[i].bucket - next);
        enc_u64(b, r->bins[i].count);
        next = r->bins[i].bucket + 1;
    }
    /* Only where measured: a body that ends after the bins reads as not
     * measured, as every body before 1.9 does. */
    if (r->delay_count || r->delay_wall_ns || r->delay_ns) {
        enc_u64(b, r->delay_count);
        enc_u64(b, r->delay_wall_ns);
        enc_u64(b, r->delay_ns);
    }
}

static void enc_resource(enc_buf *b, const scope_rec_resource *r) {
    enc_u64(b, r->mono_ns);
    enc_u64(b, r->interval_ns);
    enc_u64(b, r->node);
    enc_u64(b, r->present);
    enc_u64(b, r->rss);
    enc_u64(b, r->cpu_user_ns);
    enc_u64(b, r->cpu_sys_ns);
    enc_u64(b, r->disk_read);
    enc_u64(b, r->disk_write);
    enc_u64(b, r->char_read);
    enc_u64(b, r->char_write);
    enc_u64(b, r->ngpus);
    for (uint32_t i = 0; i < r->ngpus; i++) {
        const scope_gpu_figures *g = &r->gpus[i];
        enc_u64(b, g->index);
        enc_u64(b, g->present);
        enc_u64(b, g->busy_permyriad);
        enc_u64(b, g->run_permyriad);
        enc_u64(b, g->mem_used);
        enc_u64(b, g->mem_run);
        enc_u64(b, g->mem_total);
    }
    enc_u64(b, r->thread);
    enc_u64(b, r->rss_peak);
    enc_u64(b, r->dropped);
}

static void enc_lines(enc_buf *b, const scope_rec_lines *r) {
    put_bytes(b, r->project);
    enc_u64(b, r->hz);
    enc_u64(b, r->clock);
    enc_u64(b, r->period_ns);
    enc_u64(b, r->samples);
    enc_u64(b, r->dropped);
    enc_u64(b, r->truncated);
    enc_u64(b, r->threads);
    enc_u64(b, r->threads_failed);
    enc_u64(b, r->flags);
    enc_u64(b, r->signals);
}

static void enc_trace(enc_buf *b, const scope_rec_trace *r) {
    enc_u64(b, r->thread);
    enc_u64(b, r->n);
    /* Starts as signed gaps from the previous event: events arrive in start
     * order from one thread, so gaps are small, but any order survives. */
    uint64_t prev = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        enc_u64(b, r->events[i].node);
        enc_i64(b, (int64_t)(r->events[i].start_ns - prev));
        enc_u64(b, r->events[i].dur_ns);
        prev = r->events[i].start_ns;
    }
}

static void enc_open(enc_buf *b, const scope_rec_open *r) {
    enc_u64(b, r->thread);
    enc_u64(b, r->n);
    /* Starts as signed gaps, as TRACE's: an inner phase began after its
     * parent, so the gaps are small and positive, but any order survives. */
    uint64_t prev = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        enc_u64(b, r->phases[i].node);
        enc_i64(b, (int64_t)(r->phases[i].start_ns - prev));
        prev = r->phases[i].start_ns;
    }
}

static void enc_trace_window(enc_buf *b, const scope_rec_trace_window *r) {
    enc_u64(b, r->phase);
    enc_u64(b, r->first);
    enc_u64(b, r->last);
    enc_u64(b, r->state);
    enc_u64(b, r->start_mono_ns);
    enc_u64(b, r->end_mono_ns);
    enc_u64(b, r->events);
    enc_u64(b, r->cap);
    enc_u64(b, r->lost);
}

static void enc_io_sums(enc_buf *b, const scope_io_sums *r) {
    enc_u64(b, r->intervals);
    enc_u64(b, r->disk_read);
    enc_u64(b, r->disk_write);
    enc_u64(b, r->char_read);
    enc_u64(b, r->char_write);
}

static void enc_node_io(enc_buf *b, const scope_rec_node_io *r) {
    enc_u64(b, r->node);
    enc_io_sums(b, &r->thread);
    enc_io_sums(b, &r->process);
}

static void enc_trace_counts(enc_buf *b, const scope_rec_trace_counts *r) {
    enc_u64(b, r->thread);
    enc_u64(b, r->n);
    /* Times as signed gaps from the previous event, as TRACE stores starts. */
    uint64_t prev = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        enc_u64(b, r->events[i].name);
        enc_i64(b, (int64_t)(r->events[i].mono_ns - prev));
        enc_i64(b, r->events[i].value);
        prev = r->events[i].mono_ns;
    }
}

static void enc_string(enc_buf *b, const scope_rec_string *r) {
    enc_u64(b, r->id);
    put_bytes(b, r->value);
}

static void enc_thread(enc_buf *b, const scope_rec_thread *r) {
    enc_u64(b, r->index);
    enc_i64(b, r->tid);
    enc_u64(b, r->start_mono_ns);
    put_bytes(b, r->name);
}

static void enc_phase_node(enc_buf *b, const scope_rec_phase_node *r) {
    enc_u64(b, r->id);
    enc_u64(b, r->parent);
    enc_u64(b, r->name);
    enc_u64(b, r->thread);
    enc_u64(b, r->flags);
    enc_u64(b, r->file);
    enc_u64(b, r->line);
}

static void enc_counter(enc_buf *b, const scope_rec_counter *r) {
    enc_u64(b, r->id);
    enc_u64(b, r->name);
    enc_u64(b, r->node);
    enc_u64(b, r->thread);
    enc_u64(b, r->calls);
    enc_i64(b, r->total);
}

static void enc_module(enc_buf *b, const scope_rec_module *r) {
    enc_u64(b, r->id);
    put_bytes(b, r->path);
    put_bytes(b, r->build_id);
    enc_u64(b, r->base);
    enc_u64(b, r->size);
}

static void enc_stack(enc_buf *b, const scope_rec_stack *r) {
    enc_u64(b, r->id);
    enc_u64(b, r->nframes);
    for (uint32_t i = 0; i < r->nframes; i++) {
        enc_u64(b, r->frames[i].module);
        enc_u64(b, r->frames[i].offset);
    }
}

/* The pairs that end STACK_SAMPLES and OFFCPU_SAMPLES. */
static void enc_sample_counts(enc_buf *b, const scope_rec_stack_samples *r) {
    enc_u64(b, r->period_ns);
    enc_u64(b, r->n);
    for (uint32_t i = 0; i < r->n; i++) {
        enc_u64(b, r->counts[i].stack);
        enc_u64(b, r->counts[i].count);
    }
}

static void enc_stack_samples(enc_buf *b, const scope_rec_stack_samples *r) {
    enc_u64(b, r->thread);
    enc_u64(b, r->node);
    enc_sample_counts(b, r);
}

/* The same body with the state after the node: a 1.9 reader skips the
 * kind, and so never adds off-CPU counts to the on-CPU ones of a key. */
static void enc_offcpu_samples(enc_buf *b, const scope_rec_offcpu_samples *r) {
    enc_u64(b, r->thread);
    enc_u64(b, r->node);
    enc_u64(b, r->state);
    enc_sample_counts(b, r);
}

static void enc_mark(enc_buf *b, const scope_rec_mark *r) {
    enc_u64(b, r->kind);
    enc_u64(b, r->thread);
    enc_u64(b, r->mono_ns);
    enc_i64(b, r->value);
    put_bytes(b, r->text);
    /* Only kinds with subkinds have the fields of 1.1, so that every other
     * mark is written as in 1.0. */
    if (scope_mark_has_subkind(r->kind)) {
        enc_u64(b, r->subkind);
        enc_i64(b, r->value2);
    } else {
        assert(!r->subkind && !r->value2); /* encodable(): nowhere to write them */
    }
}

static void enc_mark_state(enc_buf *b, const scope_rec_mark_state *r) {
    enc_mark(b, r);
}

/* Columns of differences (RESOURCE_SERIES' buckets, RESOURCE_BATCH's
 * intervals): each column states how many trailing zero bits all its
 * differences share, then the differences without them (docs/format.md
 * 5.19, 5.21). */
/* Trailing zero bits shared by every difference, 0 when all are 0. */
static unsigned common_shift(unsigned shift, uint64_t diff) {
    if (!diff)
        return shift;
    unsigned tz = (unsigned)__builtin_ctzll(diff);
    return tz < shift ? tz : shift;
}

static void enc_diff(enc_buf *b, uint64_t diff, unsigned shift) {
    /* common_shift() chose a shift every difference of the column shares */
    assert(shift < 64 && (diff & ((UINT64_C(1) << shift) - 1)) == 0);
    enc_i64(b, (int64_t)diff >> shift); /* exact: the low bits are 0 */
}

/* A series' buckets column by column, each value its difference from the
 * bucket before (docs/format.md 5.19): neighbouring buckets hold about as
 * many samples over about as long, and levels move little. */
enum series_column { SC_SAMPLES, SC_COVERED, SC_MIN, SC_SPREAD, SC_SUM, SERIES_COLUMNS };

static uint64_t series_get(const scope_series_bucket *k, int col) {
    switch (col) {
    case SC_SAMPLES:
        return k->samples;
    case SC_COVERED:
        return k->covered_ns;
    case SC_MIN:
        return k->min;
    case SC_SPREAD:
        return k->max - k->min;
    default:
        return k->sum;
    }
}

/* Bucket i's value of a column against bucket i - 1's (0 for the first). */
static uint64_t series_diff(const scope_rec_resource_series *r, uint32_t i, int col) {
    return series_get(&r->buckets[i], col) - (i ? series_get(&r->buckets[i - 1], col) : 0);
}

static void enc_resource_series(enc_buf *b, const scope_rec_resource_series *r) {
    enc_u64(b, r->thread);
    enc_u64(b, r->figure);
    enc_u64(b, r->device);
    enc_u64(b, r->start_mono_ns);
    enc_u64(b, r->bucket_ns);
    enc_u64(b, r->samples_total);
    enc_u64(b, r->nbuckets);
    for (int col = 0; col < SERIES_COLUMNS; col++) {
        unsigned shift = 64;
        for (uint32_t i = 0; i < r->nbuckets; i++)
            shift = common_shift(shift, series_diff(r, i, col));
        shift = shift == 64 ? 0 : shift;
        enc_u64(b, shift);
        for (uint32_t i = 0; i < r->nbuckets; i++)
            enc_diff(b, series_diff(r, i, col), shift);
    }
}

/* ---- RESOURCE_BATCH (docs/format.md 5.21) ---------------------------------
 * Column by column, each value written as its difference from the same
 * field of the record before it in the batch when that one is of the same
 * thread (from 0 otherwise), and a start as its difference from that
 * record's end: a sampler's intervals follow each other, and most figures
 * move little from one second to the next.  Each column first states how
 * many trailing zero bits all its differences share (times kept to a grain,
 * memory counted in KiB) and leaves them out. */

enum batch_column {
    BC_THREAD, /* from the record before, whatever its thread */
    BC_INTERVAL,
    BC_MONO, /* from the end of the same thread's record before */
    BC_NODE,
    BC_PRESENT,
    BC_RSS,
    BC_CPU_USER,
    BC_CPU_SYS,
    BC_DISK_READ,
    BC_DISK_WRITE,
    BC_CHAR_READ,
    BC_CHAR_WRITE,
    BC_RSS_PEAK,
    BC_DROPPED,
    BC_NGPUS,
    BATCH_COLUMNS
};

/* Columns of the GPU entries, all records' entries in order. */
enum gpu_column {
    GC_INDEX,
    GC_PRESENT,
    GC_BUSY,
    GC_RUN,
    GC_MEM_USED,
    GC_MEM_RUN,
    GC_MEM_TOTAL,
    GPU_COLUMNS
};

/* Whether a column holds a u32 field: a value past it does not decode. */
static int batch_column_u32(int col) {
    return col == BC_THREAD || col == BC_NODE || col == BC_PRESENT || col == BC_NGPUS;
}

static int gpu_column_u32(int col) {
    return col <= GC_RUN;
}

static uint64_t batch_get(const scope_rec_resource *r, int col) {
    switch (col) {
    case BC_THREAD:
        return r->thread;
    case BC_INTERVAL:
        return r->interval_ns;
    case BC_MONO:
        return r->mono_ns;
    case BC_NODE:
        return r->node;
    case BC_PRESENT:
        return r->present;
    case BC_RSS:
        return r->rss;
    case BC_CPU_USER:
        return r->cpu_user_ns;
    case BC_CPU_SYS:
        return r->cpu_sys_ns;
    case BC_DISK_READ:
        return r->disk_read;
    case BC_DISK_WRITE:
        return r->disk_write;
    case BC_CHAR_READ:
        return r->char_read;
    case BC_CHAR_WRITE:
        return r->char_write;
    case BC_RSS_PEAK:
        return r->rss_peak;
    case BC_DROPPED:
        return r->dropped;
    default:
        return r->ngpus;
    }
}

static void batch_set(scope_rec_resource *r, int col, uint64_t v) {
    switch (col) {
    case BC_THREAD:
        r->thread = (uint32_t)v;
        break;
    case BC_INTERVAL:
        r->interval_ns = v;
        break;
    case BC_MONO:
        r->mono_ns = v;
        break;
    case BC_NODE:
        r->node = (uint32_t)v;
        break;
    case BC_PRESENT:
        r->present = (uint32_t)v;
        break;
    case BC_RSS:
        r->rss = v;
        break;
    case BC_CPU_USER:
        r->cpu_user_ns = v;
        break;
    case BC_CPU_SYS:
        r->cpu_sys_ns = v;
        break;
    case BC_DISK_READ:
        r->disk_read = v;
        break;
    case BC_DISK_WRITE:
        r->disk_write = v;
        break;
    case BC_CHAR_READ:
        r->char_read = v;
        break;
    case BC_CHAR_WRITE:
        r->char_write = v;
        break;
    case BC_RSS_PEAK:
        r->rss_peak = v;
        break;
    case BC_DROPPED:
        r->dropped = v;
        break;
    default:
        r->ngpus = (uint32_t)v;
        break;
    }
}

static uint64_t gpu_get(const scope_gpu_figures *g, int col) {
    switch (col) {
    case GC_INDEX:
        return g->index;
    case GC_PRESENT:
        return g->present;
    case GC_BUSY:
        return g->busy_permyriad;
    case GC_RUN:
        return g->run_permyriad;
    case GC_MEM_USED:
        return g->mem_used;
    case GC_MEM_RUN:
        return g->mem_run;
    default:
        return g->mem_total;
    }
}

static void gpu_set(scope_gpu_figures *g, int col, uint64_t v) {
    switch (col) {
    case GC_INDEX:
        g->index = (uint32_t)v;
        break;
    case GC_PRESENT:
        g->present = (uint32_t)v;
        break;
    case GC_BUSY:
        g->busy_permyriad = (uint32_t)v;
        break;
    case GC_RUN:
        g->run_permyriad = (uint32_t)v;
        break;
    case GC_MEM_USED:
        g->mem_used = v;
        break;
    case GC_MEM_RUN:
        g->mem_run = v;
        break;
    default:
        g->mem_total = v;
        break;
    }
}

/* The record a value of record i is written against: the one before it
 * when of the same thread, else none. */
static const scope_rec_resource *batch_prev(const scope_rec_resource *recs, uint32_t i) {
    return i > 0 && recs[i - 1].thread == recs[i].thread ? &recs[i - 1] : NULL;
}

/* What a value of column col of record i is written against. */
static uint64_t batch_base(const scope_rec_resource *recs, uint32_t i, int col) {
    if (col == BC_THREAD)
        return i > 0 ? recs[i - 1].thread : 0;
    const scope_rec_resource *p = batch_prev(recs, i);
    if (!p)
        return 0;
    return col == BC_MONO ? p->mono_ns + p->interval_ns : batch_get(p, col);
}

/* The same for GPU entry j of record i: entry j of the record before. */
static uint64_t gpu_base(const scope_rec_resource *recs, uint32_t i, uint32_t j, int col) {
    const scope_rec_resource *p = batch_prev(recs, i);
    return p && j < p->ngpus ? gpu_get(&p->gpus[j], col) : 0;
}

static void enc_resource_batch(enc_buf *b, const scope_rec_resource_batch *r) {
    const scope_rec_resource *recs = r->records;
    uint64_t ngpu = 0;
    for (uint32_t i = 0; i < r->n; i++)
        ngpu += recs[i].ngpus;
    enc_u64(b, r->n);
    enc_u64(b, ngpu);
    for (int col = 0; col < BATCH_COLUMNS; col++) {
        unsigned shift = 64;
        for (uint32_t i = 0; i < r->n; i++)
            shift = common_shift(shift, batch_get(&recs[i], col) - batch_base(recs, i, col));
        shift = shift == 64 ? 0 : shift;
        enc_u64(b, shift);
        for (uint32_t i = 0; i < r->n; i++)
            enc_diff(b, batch_get(&recs[i], col) - batch_base(recs, i, col), shift);
    }
    for (int col = 0; col < GPU_COLUMNS; col++) {
        unsigned shift = 64;
        for (uint32_t i = 0; i < r->n; i++)
            for (uint32_t j = 0; j < recs[i].ngpus; j++)
                shift =
                    common_shift(shift, gpu_get(&recs[i].gpus[j], col) - gpu_base(recs, i, j, col));
        shift = shift == 64 ? 0 : shift;
        enc_u64(b, shift);
        for (uint32_t i = 0; i < r->n; i++)
            for (uint32_t j = 0; j < recs[i].ngpus; j++)
                enc_diff(b, gpu_get(&recs[i].gpus[j], col) - gpu_base(recs, i, j, col), shift);
    }
}

/* Invariants the decoder enforces; the encoder refuses what would not decode. */
static int encodable(const scope_record *rec) {
    if (rec->type == SCOPE_REC_PHASE_AGG) {
        const scope_rec_phase_agg *a = &rec->u.phase_agg;
        if (a->nbins > 0 && !a->bins)
            return 0;
        for (uint32_t i = 0; i < a->nbins; i++) {
            if (a->bins[i].bucket >= SCOPE_HIST_BUCKETS)
                return 0;
            if (i > 0 && a->bins[i].bucket <= a->bins[i - 1].bucket)
                return 0;
        }
    }
    if (rec->type == SCOPE_REC_PROCESS && ((rec->u.process.argc && !rec->u.process.argv) ||
                                           (rec->u.process.nsettings && !rec->u.process.settings)))
        return 0;
    if (rec->type == SCOPE_REC_RESOURCE && rec->u.resource.ngpus && !rec->u.resource.gpus)
        return 0;
    if (rec->type == SCOPE_REC_RESOURCE_BATCH) {
        const scope_rec_resource_batch *t = &rec->u.resource_batch;
        if (t->n && !t->records)
            return 0;
        for (uint32_t i = 0; i < t->n; i++)
            if (t->records[i].ngpus && !t->records[i].gpus)
                return 0;
    }
    if (rec->type == SCOPE_REC_STACK && rec->u.stack.nframes && !rec->u.stack.frames)
        return 0;
    if ((rec->type == SCOPE_REC_STACK_SAMPLES || rec->type == SCOPE_REC_OFFCPU_SAMPLES) &&
        rec->u.stack_samples.n && !rec->u.stack_samples.counts)
        return 0;
    if (rec->type == SCOPE_REC_TRACE && rec->u.trace.n && !rec->u.trace.events)
        return 0;
    if (rec->type == SCOPE_REC_OPEN && rec->u.open.n && !rec->u.open.phases)
        return 0;
    if (rec->type == SCOPE_REC_TRACE_COUNTS && rec->u.trace_counts.n && !rec->u.trace_counts.events)
        return 0;
    if ((rec->type == SCOPE_REC_MARK || rec->type == SCOPE_REC_MARK_STATE) &&
        !scope_mark_has_subkind(rec->u.mark.kind) && (rec->u.mark.subkind || rec->u.mark.value2))
        return 0; /* there are no fields to write them in */
    if (rec->type == SCOPE_REC_RESOURCE_SERIES) {
        const scope_rec_resource_series *s = &rec->u.resource_series;
        if (s->nbuckets && !s->buckets)
            return 0;
        for (uint32_t i = 0; i < s->nbuckets; i++)
            if (s->buckets[i].max < s->buckets[i].min)
                return 0;
    }
    return 1;
}

size_t scope_record_encode(const scope_record *rec, uint8_t *buf, size_t cap) {
    enc_buf b = {buf, buf ? cap : 0, 0};
    if (!encodable(rec))
        return 0;
    switch (rec->type) {
#define ENCODE_ROW(name, number, member)                                                           \
    case SCOPE_REC_##name:                                                                         \
        enc_##member(&b, &rec->u.member);                                                          \
        break;
        SCOPE_REC_KINDS(ENCODE_ROW)
#undef ENCODE_ROW
    default:
        return 0; /* unknown kinds go through the raw path */
    }
    /* Every body has a field: 0 says "refused" to the writer. */
    assert(b.len > 0);
    return b.len;
}

/* ---- decoding ---------------------------------------------------------- */

/* One body being decoded: the bytes, the arrays it may fill, and whether
 * memory ran out (malformed bodies are b.bad). */
typedef struct dec_ctx {
    dec_buf b;
    scope_decode_scratch *scratch;
    int status; /* enum scope_decode_status */
} dec_ctx;

void scope_decode_scratch_free(scope_decode_scratch *s) {
    for (int i = 0; i < 2; i++) {
        free(s->slot[i]);
        s->slot[i] = NULL;
        s->cap[i] = 0;
    }
}

/* An array of n elements of `size` bytes in a scratch slot.  Each element
 * needs at least `min_wire` body bytes, so a count the body cannot hold is
 * malformed before anything is allocated: a corrupt count never turns into a
 * huge allocation. */
static void *scratch_array(dec_ctx *c, int slot, uint64_t n, size_t size, size_t min_wire) {
    dec_buf *b = &c->b;
    scope_decode_scratch *s = c->scratch;
    assert((slot == 0 || slot == 1) && size > 0 && min_wire > 0);
    if (b->bad || n > dec_remaining(b) / min_wire) {
        b->bad = 1;
        return NULL;
    }
    if (n == 0)
        return NULL;
    /* Capacity in bytes: a slot holds arrays of any element type. */
    /* n is at most the body's length: n * size cannot wrap */
    assert(n <= SIZE_MAX / size);
    void *p = scope_vec_grow(s->slot[slot], &s->cap[slot], (size_t)n * size, 1);
    if (!p) {
        c->status = SCOPE_DECODE_NOMEM;
        return NULL;
    }
    assert(s->cap[slot] >= (size_t)n * size);
    return s->slot[slot] = p;
}

static scope_bytes get_bytes(dec_buf *b) {
    scope_bytes s;
    dec_bytes(b, &s.ptr, &s.len);
    return s;
}

static void dec_process(dec_ctx *c, scope_rec_process *r) {
    dec_buf *b = &c->b;
    r->run_id = get_bytes(b);
    r->uuid = get_bytes(b);
    r->host = get_bytes(b);
    r->role = get_bytes(b);
    r->job_id = get_bytes(b);
    r->step_id = get_bytes(b);
    r->exe = get_bytes(b);
    r->cwd = get_bytes(b);
    r->recorder_version = get_bytes(b);
    r->pid = dec_i64(b);
    r->ppid = dec_i64(b);
    r->rank = dec_i32(b);
    r->local_rank = dec_i32(b);
    r->node_rank = dec_i32(b);
    r->world_size = dec_i32(b);
    r->start_wall_ns = dec_u64(b);
    r->start_mono_ns = dec_u64(b);
    r->argc = dec_u32(b);
    scope_bytes *argv = scratch_array(c, 0, r->argc, sizeof *argv, 1);
    for (uint32_t i = 0; argv && i < r->argc; i++)
        argv[i] = get_bytes(b);
    r->argv = argv;
    r->nsettings = dec_u32(b);
    scope_kv *kv = scratch_array(c, 1, r->nsettings, sizeof *kv, 2);
    for (uint32_t i = 0; kv && i < r->nsettings; i++) {
        kv[i].key = get_bytes(b);
        kv[i].value = get_bytes(b);
    }
    r->settings = kv;
    r->launcher = r->array_job_id = (scope_bytes){NULL, 0};
    r->array_task = r->restarts = -1;
    if (dec_remaining(b)) { /* a body before 1.5 ends here */
        r->launcher = get_bytes(b);
        r->array_job_id = get_bytes(b);
        r->array_task = dec_i32(b);
        r->restarts = dec_i32(b);
    }
}

static void dec_phase_agg(dec_ctx *c, scope_rec_phase_agg *r) {
    dec_buf *b = &c->b;
    r->node = dec_u32(b);
    r->count = dec_u64(b);
    r->wall_ns = dec_u64(b);
    r->min_ns = dec_u64(b);
    r->max_ns = dec_u64(b);
    r->cpu_count = dec_u64(b);
    r->cpu_wall_ns = dec_u64(b);
    r->cpu_ns = dec_u64(b);
    r->io_flags = dec_u32(b);
    r->io_count = dec_u64(b);
    r->io_failed = dec_u64(b);
    r->disk_read = dec_u64(b);
    r->disk_write = dec_u64(b);
    r->char_read = dec_u64(b);
    r->char_write = dec_u64(b);
    r->nbins = dec_u32(b);
    scope_hist_bin *bins = scratch_array(c, 0, r->nbins, sizeof *bins, 2);
    uint64_t next = 0;
    for (uint32_t i = 0; bins && i < r->nbins; i++) {
        uint64_t gap = dec_u64(b);
        if (gap >= SCOPE_HIST_BUCKETS - next) { /* also stops a wrapping gap */
            b->bad = 1;
            break;
        }
        uint64_t bucket = next + gap;
        bins[i].bucket = (uint32_t)bucket;
        bins[i].count = dec_u64(b);
        next = bucket + 1;
    }
    r->bins = bins;
    r->delay_count = r->delay_wall_ns = r->delay_ns = 0;
    if (dec_remaining(b)) { /* a body before 1.9 ends here */
        r->delay_count = dec_u64(b);
        r->delay_wall_ns = dec_u64(b);
        r->delay_ns = dec_u64(b);
    }
}

static void dec_resource(dec_ctx *c, scope_rec_resource *r) {
    dec_buf *b = &c->b;
    r->mono_ns = dec_u64(b);
    r->interval_ns = dec_u64(b);
    r->node = dec_u32(b);
    r->present = dec_u32(b);
    r->rss = dec_u64(b);
    r->cpu_user_ns = dec_u64(b);
    r->cpu_sys_ns = dec_u64(b);
    r->disk_read = dec_u64(b);
    r->disk_write = dec_u64(b);
    r->char_read = dec_u64(b);
    r->char_write = dec_u64(b);
    r->ngpus = dec_u32(b);
    scope_gpu_figures *g = scratch_array(c, 0, r->ngpus, sizeof *g, 7);
    for (uint32_t i = 0; g && i < r->ngpus; i++) {
        g[i].index = dec_u32(b);
        g[i].present = dec_u32(b);
        g[i].busy_permyriad = dec_u32(b);
        g[i].run_permyriad = dec_u32(b);
        g[i].mem_used = dec_u64(b);
        g[i].mem_run = dec_u64(b);
        g[i].mem_total = dec_u64(b);
    }
    r->gpus = g;
    if (dec_remaining(b)) { /* a 1.2 body ends here */
        r->thread = dec_u32(b);
        r->rss_peak = dec_u64(b);
        r->dropped = dec_u64(b);
    }
}

static void dec_lines(dec_ctx *c, scope_rec_lines *r) {
    dec_buf *b = &c->b;
    r->project = get_bytes(b);
    r->hz = dec_u32(b);
    r->clock = dec_u32(b);
    r->period_ns = dec_u64(b);
    r->samples = dec_u64(b);
    r->dropped = dec_u64(b);
    r->truncated = dec_u64(b);
    r->threads = dec_u32(b);
    r->threads_failed = dec_u32(b);
    r->flags = dec_u32(b);
    r->signals = dec_remaining(b) ? dec_u64(b) : 0; /* a body before 1.9 ends here */
}

static void dec_stack(dec_ctx *c, scope_rec_stack *r) {
    dec_buf *b = &c->b;
    r->id = dec_u32(b);
    r->nframes = dec_u32(b);
    scope_frame_addr *f = scratch_array(c, 0, r->nframes, sizeof *f, 2);
    for (uint32_t i = 0; f && i < r->nframes; i++) {
        f[i].module = dec_u32(b);
        f[i].offset = dec_u64(b);
    }
    r->frames = f;
}

/* The period and pairs that end STACK_SAMPLES and OFFCPU_SAMPLES. */
static void dec_sample_counts(dec_ctx *c, scope_rec_stack_samples *r) {
    dec_buf *b = &c->b;
    r->period_ns = dec_u64(b);
    r->n = dec_u32(b);
    scope_stack_count *counts = scratch_array(c, 0, r->n, sizeof *counts, 2);
    for (uint32_t i = 0; counts && i < r->n; i++) {
        counts[i].stack = dec_u32(b);
        counts[i].count = dec_u64(b);
    }
    r->counts = counts;
}

static void dec_stack_samples(dec_ctx *c, scope_rec_stack_samples *r) {
    r->thread = dec_u32(&c->b);
    r->node = dec_u32(&c->b);
    dec_sample_counts(c, r);
}

static void dec_offcpu_samples(dec_ctx *c, scope_rec_offcpu_samples *r) {
    r->thread = dec_u32(&c->b);
    r->node = dec_u32(&c->b);
    r->state = dec_u32(&c->b);
    if (r->state == SCOPE_CPU_ON)
        c->b.bad = 1; /* on-CPU counts are STACK_SAMPLES' */
    dec_sample_counts(c, r);
}

static void dec_trace(dec_ctx *c, scope_rec_trace *r) {
    dec_buf *b = &c->b;
    r->thread = dec_u32(b);
    r->n = dec_u32(b);
    scope_trace_event *e = scratch_array(c, 0, r->n, sizeof *e, 3);
    uint64_t prev = 0;
    for (uint32_t i = 0; e && i < r->n; i++) {
        e[i].node = dec_u32(b);
        e[i].start_ns = prev + (uint64_t)dec_i64(b);
        e[i].dur_ns = dec_u64(b);
        prev = e[i].start_ns;
    }
    r->events = e;
}

static void dec_open(dec_ctx *c, scope_rec_open *r) {
    dec_buf *b = &c->b;
    r->thread = dec_u32(b);
    r->n = dec_u32(b);
    scope_open_phase *p = scratch_array(c, 0, r->n, sizeof *p, 2);
    uint64_t prev = 0;
    for (uint32_t i = 0; p && i < r->n; i++) {
        p[i].node = dec_u32(b);
        p[i].start_ns = prev + (uint64_t)dec_i64(b);
        prev = p[i].start_ns;
    }
    r->phases = p;
}

static void dec_trace_window(dec_ctx *c, scope_rec_trace_window *r) {
    dec_buf *b = &c->b;
    r->phase = dec_u32(b);
    r->first = dec_u64(b);
    r->last = dec_u64(b);
    r->state = dec_u32(b);
    r->start_mono_ns = dec_u64(b);
    r->end_mono_ns = dec_u64(b);
    r->events = dec_u64(b);
    r->cap = dec_u64(b);
    r->lost = dec_u64(b);
}

static void dec_io_sums(dec_buf *b, scope_io_sums *r) {
    r->intervals = dec_u64(b);
    r->disk_read = dec_u64(b);
    r->disk_write = dec_u64(b);
    r->char_read = dec_u64(b);
    r->char_write = dec_u64(b);
}

static void dec_node_io(dec_ctx *c, scope_rec_node_io *r) {
    r->node = dec_u32(&c->b);
    dec_io_sums(&c->b, &r->thread);
    dec_io_sums(&c->b, &r->process);
}

static void dec_trace_counts(dec_ctx *c, scope_rec_trace_counts *r) {
    dec_buf *b = &c->b;
    r->thread = dec_u32(b);
    r->n = dec_u32(b);
    scope_trace_count *e = scratch_array(c, 0, r->n, sizeof *e, 3);
    uint64_t prev = 0;
    for (uint32_t i = 0; e && i < r->n; i++) {
        e[i].name = dec_u32(b);
        e[i].mono_ns = prev + (uint64_t)dec_i64(b);
        e[i].value = dec_i64(b);
        prev = e[i].mono_ns;
    }
    r->events = e;
}

static void dec_frame(dec_ctx *c, scope_rec_frame *r) {
    r->seq = dec_u64(&c->b);
    r->mono_ns = dec_u64(&c->b);
    r->wall_ns = dec_u64(&c->b);
    r->reason = dec_u32(&c->b);
    if (dec_remaining(&c->b)) { /* a body written before 1.7 ends here */
        r->flags = dec_u32(&c->b);
        r->last_snapshot = dec_u64(&c->b);
    }
}

static void dec_string(dec_ctx *c, scope_rec_string *r) {
    r->id = dec_u32(&c->b);
    r->value = get_bytes(&c->b);
}

static void dec_thread(dec_ctx *c, scope_rec_thread *r) {
    r->index = dec_u32(&c->b);
    r->tid = dec_i64(&c->b);
    r->start_mono_ns = dec_u64(&c->b);
    r->name = get_bytes(&c->b);
}

static void dec_phase_node(dec_ctx *c, scope_rec_phase_node *r) {
    r->id = dec_u32(&c->b);
    r->parent = dec_u32(&c->b);
    r->name = dec_u32(&c->b);
    r->thread = dec_u32(&c->b);
    r->flags = dec_u32(&c->b);
    r->file = dec_u32(&c->b);
    r->line = dec_u32(&c->b);
}

static void dec_counter(dec_ctx *c, scope_rec_counter *r) {
    r->id = dec_u32(&c->b);
    r->name = dec_u32(&c->b);
    r->node = dec_u32(&c->b);
    r->thread = dec_u32(&c->b);
    r->calls = dec_u64(&c->b);
    r->total = dec_i64(&c->b);
}

static void dec_module(dec_ctx *c, scope_rec_module *r) {
    r->id = dec_u32(&c->b);
    r->path = get_bytes(&c->b);
    r->build_id = get_bytes(&c->b);
    r->base = dec_u64(&c->b);
    r->size = dec_u64(&c->b);
}

static void dec_mark(dec_ctx *c, scope_rec_mark *r) {
    r->kind = dec_u32(&c->b);
    r->thread = dec_u32(&c->b);
    r->mono_ns = dec_u64(&c->b);
    r->value = dec_i64(&c->b);
    r->text = get_bytes(&c->b);
    if (scope_mark_has_subkind(r->kind) && dec_remaining(&c->b)) { /* a 1.0 body ends here */
        r->subkind = dec_u32(&c->b);
        r->value2 = dec_i64(&c->b);
    }
    if (!c->b.bad)
        scope_mark_classify_1_0(r);
}

static void dec_mark_state(dec_ctx *c, scope_rec_mark_state *r) {
    dec_mark(c, r);
}

/* A column's differences back into values (enc_resource_series, enc_resource_batch). */
static uint64_t dec_diff(dec_buf *b, unsigned shift) {
    return (uint64_t)dec_i64(b) << shift;
}

static unsigned dec_shift(dec_buf *b) {
    uint64_t shift = dec_u64(b);
    if (shift > 63)
        b->bad = 1;
    unsigned s = shift > 63 ? 0 : (unsigned)shift;
    assert(s < 64); /* dec_diff shifts by it */
    return s;
}

static void dec_resource_series(dec_ctx *c, scope_rec_resource_series *r) {
    dec_buf *b = &c->b;
    r->thread = dec_u32(b);
    r->figure = dec_u32(b);
    r->device = dec_u32(b);
    r->start_mono_ns = dec_u64(b);
    r->bucket_ns = dec_u64(b);
    r->samples_total = dec_u64(b);
    r->nbuckets = dec_u32(b);
    /* a byte in each column at least */
    scope_series_bucket *k = scratch_array(c, 0, r->nbuckets, sizeof *k, SERIES_COLUMNS);
    for (int col = 0; k && col < SERIES_COLUMNS && !b->bad; col++) {
        unsigned shift = dec_shift(b);
        uint64_t v = 0;
        for (uint32_t i = 0; i < r->nbuckets && !b->bad; i++) {
            v += dec_diff(b, shift);
            switch (col) {
            case SC_SAMPLES:
                k[i].samples = v;
                break;
            case SC_COVERED:
                k[i].covered_ns = v;
                break;
            case SC_MIN:
                k[i].min = v;
                break;
            case SC_SPREAD:
                if (v > UINT64_MAX - k[i].min)
                    b->bad = 1; /* a max past 2^64 cannot have been written */
                k[i].max = k[i].min + v;
                break;
            default:
                k[i].sum = v;
                break;
            }
        }
    }
    r->buckets = k;
}

static void dec_resource_batch(dec_ctx *c, scope_rec_resource_batch *r) {
    dec_buf *b = &c->b;
    r->n = dec_u32(b);
    uint64_t ngpu = dec_u64(b);
    /* Every record takes a byte in each column at least, every GPU entry
     * one in each of its columns. */
    scope_rec_resource *recs = scratch_array(c, 0, r->n, sizeof *recs, BATCH_COLUMNS);
    scope_gpu_figures *gpus = scratch_array(c, 1, ngpu, sizeof *gpus, GPU_COLUMNS);
    if (b->bad || c->status != SCOPE_DECODE_OK)
        return;
    /* neither malformed nor short of memory: the arrays exist for what is claimed */
    assert((!r->n || recs) && (!ngpu || gpus));
    if (recs)
        memset(recs, 0, r->n * sizeof *recs);
    for (int col = 0; col < BATCH_COLUMNS && !b->bad; col++) {
        unsigned shift = dec_shift(b);
        for (uint32_t i = 0; i < r->n && !b->bad; i++) {
            uint64_t v = batch_base(recs, i, col) + dec_diff(b, shift);
            if (batch_column_u32(col) && v > UINT32_MAX)
                b->bad = 1;
            batch_set(&recs[i], col, v);
        }
    }
    /* The entries the records claim must be those stated: checked before
     * pointing into them, as there may be none (gpus NULL). */
    uint64_t total = 0;
    for (uint32_t i = 0; i < r->n && !b->bad; i++) {
        if (recs[i].ngpus > ngpu - total) {
            b->bad = 1;
            break;
        }
        recs[i].gpus = recs[i].ngpus ? gpus + total : NULL;
        total += recs[i].ngpus;
    }
    if (total != ngpu)
        b->bad = 1;
    for (int col = 0; col < GPU_COLUMNS && !b->bad; col++) {
        unsigned shift = dec_shift(b);
        scope_gpu_figures *g = gpus;
        for (uint32_t i = 0; i < r->n && !b->bad; i++)
            for (uint32_t j = 0; j < recs[i].ngpus && !b->bad; j++) {
                uint64_t v = gpu_base(recs, i, j, col) + dec_diff(b, shift);
                if (gpu_column_u32(col) && v > UINT32_MAX)
                    b->bad = 1;
                /* the records' entries add up to ngpu (checked above) */
                assert(g >= gpus && (uint64_t)(g - gpus) < ngpu);
                gpu_set(g++, col, v);
            }
    }
    r->records = recs;
}

int scope_record_decode(uint32_t type, const uint8_t *body, size_t len, scope_record *rec,
                        scope_decode_scratch *s) {
    dec_ctx c = {{body, len, 0, 0}, s, SCOPE_DECODE_OK};
    memset(&rec->u, 0, sizeof rec->u);
    rec->type = type;
    rec->raw.ptr = body;
    rec->raw.len = len;
    switch (type) {
#define DECODE_ROW(name, number, member)                                                           \
    case SCOPE_REC_##name:                                                                         \
        dec_##member(&c, &rec->u.member);                                                          \
        break;
        SCOPE_REC_KINDS(DECODE_ROW)
#undef DECODE_ROW
    default:
        return SCOPE_DECODE_OK; /* unknown kind: type and raw body only */
    }
    assert(c.b.pos <= c.b.len); /* no decoder read past the body */
    if (c.status != SCOPE_DECODE_OK)
        return c.status;
    if (c.b.bad) {
        memset(&rec->u, 0, sizeof rec->u);
        return SCOPE_DECODE_MALFORMED;
    }
    return SCOPE_DECODE_OK;
}
