/*
 * Data source: the resource sampler (source_resources.h).
 *
 * The writer thread samples, on wake-ups of its own every
 * SCOPE_SAMPLE_INTERVAL (source.h, tick): it already wakes for frames, it
 * blocks every signal, and it is the one thread whose I/O is the
 * recorder's own, so no thread is added for this.  Each interval gives
 *
 *   - one record for the process (thread 0): RSS and its peak
 *     (/proc/self/status), user and system CPU time (getrusage), the I/O
 *     counters of /proc/self/io less the writer thread's own (its
 *     /proc/thread-self/io, read right after: the log's writes and the
 *     sampler's reads are excluded as measured, not estimated), and one
 *     entry per GPU (gpu_nvml.h); its node is the innermost phase open on
 *     the first thread at the interval's start;
 *   - one record per recorded thread that moved bytes in the interval
 *     (/proc/self/task/TID/io), whose node is the innermost phase open on
 *     that thread at the interval's start: the bytes go to the phase of
 *     the thread that moved them.
 *
 * A counter that cannot be read at either end of an interval drops the
 * interval: no record, never a difference across the failure, and the
 * next record of the same thread (or of the process) counts it in
 * `dropped`.  Frames closed for a flush, the exit or a signal take a last,
 * shorter sample first, so the totals run to the end.  Records wait here
 * until the next frame.  Every /proc file is opened for each read and
 * closed at once, one at a time: the sampler keeps no descriptor between
 * samples, so a program near its descriptor limit, or one that closes
 * every descriptor it did not open, never finds one of its own taken, or
 * one of its files read.
 *
 * Every process record handed to a frame is also folded into a series per
 * figure (res_series.h), and per figure of each GPU: snapshot frames carry
 * those (RESOURCE_SERIES) and no RESOURCE records, which wait for the frame
 * after.  So the series of a snapshot hold exactly the intervals of the
 * frames before it.  Thread records have no series: what they add, the
 * bytes under each phase, a series of time buckets cannot keep.  Instead
 * every record, of a thread or the process, is folded into a table of the
 * bytes under each phase node (res_node_io.h), which snapshots carry as
 * NODE_IO records: a reader starting at one still puts every interval's
 * bytes before it under the phase they were moved in.
 */
#define _GNU_SOURCE
#include "source_resources.h"

#include "clock.h"
#include "config.h"
#include "cuda_sync.h"
#include "frame.h"
#include "gpu_nvml.h"
#include "io_counters.h"
#include "res_node_io.h"
#include "res_phase_time.h"
#include "res_series.h"
#include "thread.h"
#include "thread_io.h"

#include <fcntl.h>
#include <scope/vec.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Records held before the writer is asked for a frame (a short interval
 * with frames far apart). */
#define PENDING_FRAME 2048u

/* Sample times and CPU times are kept to 2^20 ns (about a millisecond):
 * their last digits are noise in a figure of a second (the sample's own
 * reads take a tenth of that), and they are most of what a record costs
 * after compression.  Kept as multiples of it, the intervals still tile
 * exactly and the CPU times still add up to the process's own, to a
 * millisecond.  The byte counts are exact. */
#define GRAIN_NS (1ull << 20)

static uint64_t grain(uint64_t ns) {
    return ns & ~(GRAIN_NS - 1);
}

#define IO_BITS                                                                                    \
    (SCOPE_RES_DISK_READ | SCOPE_RES_DISK_WRITE | SCOPE_RES_CHAR_READ | SCOPE_RES_CHAR_WRITE)

#define PROC_FIGURES 8u /* SCOPE_SERIES_RSS .. SCOPE_SERIES_RSS_PEAK */
#define GPU_FIGURES  5u /* SCOPE_SERIES_GPU_BUSY .. SCOPE_SERIES_GPU_MEM_TOTAL */

/* One device's series, by NVML index. */
typedef struct gpu_series {
    uint32_t index;
    rec_series *fig[GPU_FIGURES];
} gpu_series;

/* What the sampler keeps of one recorded thread. */
typedef struct thread_io {
    uint32_t index; /* the thread's index in the log (its slot's) */
    uint32_t gen;   /* the slot's holder_gen when its holder was met */
    int ok;         /* io0 was read at t0 */
    rec_io_counters io0;
    uint64_t t0;      /* start of its interval */
    uint32_t node0;   /* its innermost phase then */
    uint64_t dropped; /* intervals dropped since its last record */
    int seen;         /* met in the current walk of the registry */
    /* Its phases' times at t0 (res_phase_time.h), when `timed`: the
     * interval's bytes are shared out over the phases open in it. */
    rec_phase_clock clock0;
    int timed;
} thread_io;

/* The writer thread's alone (and the fork handler's, in the child). */
static struct {
    int started;       /* the first reads are taken (in a forked child: the fork's zeros) */
    int parent_series; /* a forked child's series are still its parent's (fork_child) */
    int gpus_started;  /* gpu_nvml has looked for devices */
    uint64_t next;     /* the next tick */
    uint64_t t0;       /* start of the process's interval */
    uint32_t node0;
    int io_ok; /* io0 (the process less the writer thread) was read at t0 */
    rec_io_counters io0;
    uint64_t children0; /* children_mark() at t0 */
    int cpu_ok;
    uint64_t user0, sys0;
    uint64_t dropped;
    unsigned ngpus;
    thread_io *threads;
    unsigned nthreads, cap_threads;
    /* records for the next frame; their GPU entries in order in gpus */
    scope_rec_resource *pending;
    unsigned npending, cap_pending;
    scope_gpu_figures *gpus;
    unsigned npending_gpus, cap_gpus;
    /* the same records, each thread's together, for the frame's batch */
    scope_rec_resource *by_thread;
    unsigned cap_by_thread;
    uint64_t sync_missed0; /* rec_cuda_sync_missed() when this process's log began */
    int sync_caveat_written;
    /* The process's figures over its life, SCOPE_SERIES_* 1..8 at index
     * figure - 1, and each GPU's five; allocated when first measured. */
    rec_series *series[PROC_FIGURES];
    gpu_series *gpu_series;
    unsigned ngpu_series;
    int series_nomem; /* a series could not be allocated: none is written */
    /* Every record's bytes by phase node, thread and process records apart. */
    rec_node_io node_io;
    /* Scratch for sharing a thread's interval out over its phases. */
    rec_phase_clock clock_now;
    rec_phase_shares shares;
} smp;

/* ---- reading the counters ---------------------------------------------------- */

/* The process's counters less the recorder's own I/O: the writer
 * thread's counters, read right after (the read of the process's file is
 * in the writer's rchar by then, and is taken back out), and what the
 * program's threads' reads of their own counters returned. */
static int read_process_io(rec_io_counters *out, int on_writer) {
    rec_io_counters p, w = {0};
    /* Another thread's read of its own counters may end between this load
     * and the read below: then this interval holds its bytes and the next
     * one gives them back, so the totals stay exact. */
    uint64_t own_read = rec_thread_io_own_total();
    long np = rec_io_read_path("/proc/self/io", &p);
    if (np < 0)
        return -1;
    if (on_writer) {
        if (rec_io_read_path("/proc/thread-self/io", &w) < 0 || w.rchar < (uint64_t)np)
            return -1;
        w.rchar -= (uint64_t)np;
    } else {
        /* The writer is not started yet (its counters start at 0): the
         * read is the calling thread's, counted as the recorder's from
         * now on. */
        rec_thread_io_own_read((uint64_t)np);
    }
    w.rchar += own_read;
    w.wchar += rec_thread_io_own_written();
    if (p.rchar < w.rchar || p.wchar < w.wchar || p.read_bytes < w.read_bytes ||
        p.write_bytes < w.write_bytes)
        return -1;
    *out = (rec_io_counters){p.rchar - w.rchar, p.wchar - w.wchar, p.read_bytes - w.read_bytes,
                             p.write_bytes - w.write_bytes};
    return 0;
}

static int kib_field(const char *buf, const char *key, uint64_t *bytes) {
    const char *p = strstr(buf, key);
    if (!p)
        return -1;
    p += strlen(key);
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    *bytes = strtoull(p, NULL, 10) * 1024;
    return 0;
}

/* RSS and its peak, in bytes. */
static int read_rss(uint64_t *rss, uint64_t *peak) {
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return kib_field(buf, "\nVmRSS:", rss) < 0 || kib_field(buf, "\nVmHWM:", peak) < 0 ? -1 : 0;
}

/* A figure that changes whenever the process reaps a child that ran: the
 * kernel then adds the child's I/O counters to the process's own
 * (/proc/self/io), which would count a recorded child's bytes twice.
 * Every process that ran has page faults and context switches. */
static int children_mark(uint64_t *mark) {
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
        return -1;
    *mark = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt + (uint64_t)ru.ru_nvcsw +
            (uint64_t)ru.ru_nivcsw + (uint64_t)ru.ru_utime.tv_sec * 1000000u +
            (uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_sec * 1000000u +
            (uint64_t)ru.ru_stime.tv_usec;
    return 0;
}

static int read_cpu(uint64_t *user, uint64_t *sys) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    *user =
        grain((uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000u);
    *sys =
        grain((uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000u);
    return 0;
}

/* The innermost phase open on t now (0: none).  The depth and the frame's
 * node are one relaxed load each, as the owner may be changing them; the
 * node's fields were written before it was published (nnodes, release),
 * which the acquire load below makes visible. */
static uint32_t innermost(rec_thread *t) {
    uint32_t depth = rec_relaxed_load(&t->depth);
    rec_node *n =
        rec_relaxed_load(&t->stack[depth < REC_MAX_DEPTH ? depth : REC_MAX_DEPTH - 1].node);
    (void)atomic_load_explicit(&t->nnodes, memory_order_acquire);
    return n ? n->id : 0;
}

static int live(rec_thread *t) {
    return atomic_load_explicit(&t->held, memory_order_acquire);
}

/* The first recorded thread still running: the process record's phase. */
static rec_thread *first_thread(void) {
    rec_thread *first = NULL;
    for (rec_thread *t = rec_threads_head(); t; t = t->next)
        if (live(t) && (!first || t->index < first->index))
            first = t;
    return first;
}

/* ---- records ------------------------------------------------------------------- */

static scope_rec_resource *new_record(void) {
    if (SCOPE_VEC_RESERVE(smp.pending, smp.cap_pending, (size_t)smp.npending + 1) < 0)
        return NULL;
    scope_rec_resource *r = &smp.pending[smp.npending++];
    memset(r, 0, sizeof *r);
    return r;
}

static int add_gpus(const scope_gpu_figures *g, unsigned n) {
    if (SCOPE_VEC_RESERVE(smp.gpus, smp.cap_gpus, (size_t)smp.npending_gpus + n) < 0)
        return -1;
    memcpy(smp.gpus + smp.npending_gpus, g, n * sizeof *g);
    smp.npending_gpus += n;
    return 0;
}

static uint64_t grown(uint64_t then, uint64_t now) {
    return now > then ? now - then : 0;
}

static void set_io(scope_rec_resource *r, const rec_io_counters *now, const rec_io_counters *then) {
    r->present |= IO_BITS;
    r->disk_read = grown(then->read_bytes, now->read_bytes);
    r->disk_write = grown(then->write_bytes, now->write_bytes);
    r->char_read = grown(then->rchar, now->rchar);
    r->char_write = grown(then->wchar, now->wchar);
}

/* The base the process's next interval is differenced from: its counters
 * now, but never below the last base.  The recorder's own reads are taken
 * out of the process's counters a moment apart from reading them
 * (read_process_io), so a field can read a few bytes below the last: that
 * interval then reads 0 there (set_io), and the next one takes the bytes up
 * from the same base, so no figure goes below zero and the totals stay
 * exact.  (Before, such an interval wrote 2^64 - 25 bytes read.) */
static rec_io_counters io_base(const rec_io_counters *then, const rec_io_counters *now) {
    return (rec_io_counters){
        .rchar = now->rchar > then->rchar ? now->rchar : then->rchar,
        .wchar = now->wchar > then->wchar ? now->wchar : then->wchar,
        .read_bytes = now->read_bytes > then->read_bytes ? now->read_bytes : then->read_bytes,
        .write_bytes = now->write_bytes > then->write_bytes ? now->write_bytes : then->write_bytes};
}

/* ---- sampling ---------------------------------------------------------------------- */

static thread_io *thread_entry(uint32_t index) {
    for (unsigned i = 0; i < smp.nthreads; i++)
        if (smp.threads[i].index == index)
            return &smp.threads[i];
    if (SCOPE_VEC_RESERVE(smp.threads, smp.cap_threads, (size_t)smp.nthreads + 1) < 0)
        return NULL;
    thread_io *e = &smp.threads[smp.nthreads++];
    *e = (thread_io){.index = index};
    return e;
}

/* Of `moved` bytes, those of the share that runs from `before` to `upto`
 * of `total`: rounded at the running total, so every byte goes to exactly
 * one share and the shares add up to `moved`. */
static uint64_t share_of(uint64_t moved, uint64_t before, uint64_t upto, uint64_t total) {
    unsigned __int128 m = moved;
    return (uint64_t)(m * upto / total) - (uint64_t)(m * before / total);
}

/* Of `moved` bytes of figure f, row k's (of smp.shares, whose time adds up
 * to total_ns, the rows before it to before_ns, its exact bytes before it
 * to exact_before): its exact bytes, and its time's share of the rest.
 * When the exact bytes add up to more than moved (the thread's counters
 * and the phases' are read moments apart), moved is shared by them. */
static uint64_t part_of(uint64_t moved, int f, uint32_t k, uint64_t before_ns, uint64_t total_ns,
                        uint64_t exact_before) {
    const rec_phase_share *row = &smp.shares.rows[k];
    uint64_t exact = smp.shares.exact[f];
    if (exact >= moved)
        return exact ? share_of(moved, exact_before, exact_before + row->exact[f], exact) : 0;
    uint64_t rest = moved - exact;
    if (!total_ns) /* no time to share by: the rest is no phase's, the last row */
        return row->exact[f] + (k + 1 == smp.shares.n ? rest : 0);
    return row->exact[f] + share_of(rest, before_ns, before_ns + row->ns, total_ns);
}

/* The records of a thread's interval from e->t0 to now, when both ends'
 * phase times were taken (timed): one per phase that was the innermost
 * open during it or moved exact bytes in it, and one for no phase, each
 * with its exact bytes and its time's share of the rest (res_phase_time.h);
 * else one, under the phase open as it began. */
static void add_thread_records(rec_thread *t, thread_io *e, const rec_io_counters *c, uint64_t now,
                               int timed_now) {
    scope_rec_resource whole = {.mono_ns = e->t0,
                                .interval_ns = now - e->t0,
                                .node = e->node0,
                                .thread = t->index,
                                .dropped = e->dropped};
    set_io(&whole, c, &e->io0);
    e->dropped = 0;
    smp.shares.n = 0;
    uint64_t total_ns =
        e->timed && timed_now ? rec_phase_split(&e->clock0, &smp.clock_now, t, &smp.shares) : 0;
    const uint64_t *x = smp.shares.exact;
    if (!smp.shares.n || (!total_ns && !(x[0] | x[1] | x[2] | x[3]))) {
        scope_rec_resource *r = new_record();
        if (r)
            *r = whole;
        return;
    }
    uint64_t before_ns = 0, exact_before[REC_PT_FIGURES] = {0};
    int emitted = 0;
    for (uint32_t k = 0; k < smp.shares.n; k++) {
        const rec_phase_share *row = &smp.shares.rows[k];
        scope_rec_resource part = whole;
        part.node = row->node;
        uint64_t *fields[REC_PT_FIGURES] = {&part.disk_read, &part.disk_write, &part.char_read,
                                            &part.char_write};
        for (int f = 0; f < REC_PT_FIGURES; f++) {
            *fields[f] = part_of(*fields[f], f, k, before_ns, total_ns, exact_before[f]);
            exact_before[f] += row->exact[f];
        }
        before_ns += row->ns;
        if (!part.disk_read && !part.disk_write && !part.char_read && !part.char_write)
            continue; /* no byte of it in this share */
        scope_rec_resource *r = new_record();
        if (!r)
            return;
        *r = part;
        whole.dropped = 0; /* counted once */
        emitted = 1;
    }
    scope_rec_resource *r = emitted ? NULL : new_record();
    if (r)
        *r = whole; /* counters that moved, but no byte */
}

/* One thread's interval, ending now.  t's holder is the thread of gen
 * (thread.h): a read taken while the slot changed hands is no one's. */
static void sample_thread(rec_thread *t, uint32_t gen, thread_io *e, uint64_t now, int fresh,
                          int first) {
    if (!fresh && e->ok && now <= e->t0)
        return; /* no time has passed at this grain: the next sample takes it */
    int timed_now = rec_phase_clock_take(&smp.clock_now, t) == 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/io", (int)rec_relaxed_load(&t->holder_tid));
    rec_io_counters c = {0};
    int ok = rec_io_read_path(path, &c) >= 0;
    /* Its reads of its own counters, and the log header it wrote when it
     * opened the log, are the recorder's. */
    const rec_thread_io *tio = rec_thread_io_of(t);
    uint64_t own = atomic_load_explicit(&tio->own, memory_order_relaxed);
    uint64_t own_w = atomic_load_explicit(&tio->own_written, memory_order_relaxed);
    rec_io_counters attach;
    int attach_ok = rec_attach_io_get(t, &attach);
    uint64_t start_ns = rec_relaxed_load(&t->holder_start_ns);
    rec_seq_fence(memory_order_acquire);
    if (atomic_load_explicit(&t->holder_gen, memory_order_acquire) != gen)
        return; /* its thread exited meanwhile: the next sample meets the next one */
    if (ok && c.rchar >= own && c.wchar >= own_w) {
        c.rchar -= own;
        c.wchar -= own_w;
        if (timed_now) /* the bytes of its open I/O phases so far (res_phase_time.h) */
            rec_phase_clock_open_io(
                &smp.clock_now, (const uint64_t[4]){c.rchar, c.wchar, c.read_bytes, c.write_bytes});
    } else {
        ok = 0;
    }
    if (fresh && !first && attach_ok) {
        /* Its counters when it attached: its first interval starts there.
         * Not before the process's first sample, though, which no record
         * of the process would then cover.  A slot no thread held before
         * had no phase time then; one handed on keeps its last holder's,
         * which this interval cannot be shared against. */
        fresh = 0;
        e->ok = 1;
        e->io0 = attach;
        e->t0 = grain(start_ns);
        e->node0 = 0;
        e->clock0.n = 0;
        e->clock0.at_ns = start_ns;
        e->clock0.at_ticks = 0;
        e->timed = atomic_load_explicit(&t->exits, memory_order_acquire) == 0;
    }
    if (!fresh && ok && e->ok) {
        if (c.rchar < e->io0.rchar || c.wchar < e->io0.wchar || c.read_bytes < e->io0.read_bytes ||
            c.write_bytes < e->io0.write_bytes) {
            ok = 0; /* not this thread's counters any more */
        } else if (memcmp(&c, &e->io0, sizeof c) != 0) {
            add_thread_records(t, e, &c, now, timed_now);
        }
    }
    if (!fresh && !(ok && e->ok))
        e->dropped++;
    e->ok = ok;
    e->io0 = c;
    e->t0 = now;
    e->node0 = innermost(t);
    /* The times just taken start the next interval. */
    rec_phase_clock swap = e->clock0;
    e->clock0 = smp.clock_now;
    smp.clock_now = swap;
    e->timed = timed_now;
}

/* Each slot's thread: an entry per slot, which starts over when another
 * thread holds the slot.  A thread that exited between two samples is not
 * read a last time: its counters went with it. */
static void sample_threads(uint64_t now, int first) {
    for (unsigned i = 0; i < smp.nthreads; i++)
        smp.threads[i].seen = 0;
    for (rec_thread *t = rec_threads_head(); t; t = t->next) {
        uint32_t gen = atomic_load_explicit(&t->holder_gen, memory_order_acquire);
        if (!live(t) || (gen & 1))
            continue; /* free, or changing hands: its entry, if any, goes */
        unsigned before = smp.nthreads;
        thread_io *e = thread_entry(t->index);
        if (!e)
            continue;
        int fresh = first || smp.nthreads != before;
        if (!fresh && e->gen != gen) {
            rec_phase_clock_free(&e->clock0);
            *e = (thread_io){.index = t->index};
            fresh = 1;
        }
        e->gen = gen;
        sample_thread(t, gen, e, now, fresh, first);
        e->seen = 1;
    }
    /* Entries of threads that have exited go. */
    unsigned k = 0;
    for (unsigned i = 0; i < smp.nthreads; i++) {
        if (smp.threads[i].seen)
            smp.threads[k++] = smp.threads[i];
        else
            rec_phase_clock_free(&smp.threads[i].clock0);
    }
    smp.nthreads = k;
}

static void sample(uint64_t now) {
    int first = !smp.started;
    smp.started = 1;
    if (!smp.gpus_started) {
        smp.ngpus = rec_gpu_start();
        smp.gpus_started = 1;
    }
    rec_io_counters io = {0};
    uint64_t children = 0;
    int io_ok = read_process_io(&io, 1) == 0 && children_mark(&children) == 0;
    uint64_t user = 0, sys = 0, rss = 0, peak = 0;
    int cpu_ok = read_cpu(&user, &sys) == 0;
    int rss_ok = read_rss(&rss, &peak) == 0;
    scope_gpu_figures g[REC_MAX_GPUS];
    unsigned ng = smp.ngpus ? rec_gpu_sample(g, REC_MAX_GPUS, (int64_t)getpid()) : 0;
    if (!first) {
        scope_rec_resource *r = io_ok && smp.io_ok ? new_record() : NULL;
        if (r) {
            r->mono_ns = smp.t0;
            r->interval_ns = now - smp.t0;
            r->node = smp.node0;
            r->dropped = smp.dropped;
            /* An interval in which a child was reaped holds that child's
             * bytes too, which cannot be told apart: its I/O is not
             * measured (bits clear), which the process's own records and
             * the child's log keep apart. */
            if (children == smp.children0)
                set_io(r, &io, &smp.io0);
            if (rss_ok) {
                r->present |= SCOPE_RES_RSS | SCOPE_RES_RSS_PEAK;
                r->rss = rss;
                r->rss_peak = peak;
            }
            if (cpu_ok && smp.cpu_ok) {
                r->present |= SCOPE_RES_CPU_USER | SCOPE_RES_CPU_SYS;
                r->cpu_user_ns = user >= smp.user0 ? user - smp.user0 : 0;
                r->cpu_sys_ns = sys >= smp.sys0 ? sys - smp.sys0 : 0;
            }
            if (ng && add_gpus(g, ng) == 0)
                r->ngpus = ng;
            smp.dropped = 0;
        } else {
            smp.dropped++;
        }
    }
    sample_threads(now, first);
    smp.io0 = io_ok && smp.io_ok ? io_base(&smp.io0, &io) : io;
    smp.io_ok = io_ok;
    smp.children0 = children;
    smp.cpu_ok = cpu_ok;
    smp.user0 = user;
    smp.sys0 = sys;
    smp.t0 = now;
    rec_thread *t = first_thread();
    smp.node0 = t ? innermost(t) : 0;
}

/* ---- the source -------------------------------------------------------------------- */

/* A thread's first call: its counters now, the start of its first
 * interval, so the bytes of its first phases are not lost to a baseline
 * taken a second later. */
/* The process's first sample, before the writer thread exists: every
 * thread attaches after it, so each one's first interval (from its
 * attach) lies inside the process's. */
static void forget_series(void);

static void writer_start(void) {
    if (smp.parent_series) {
        smp.parent_series = 0;
        forget_series();
    }
    if (!rec_cfg.sample_interval_ns || smp.started)
        return; /* a forked child's starts at the fork */
    smp.started = 1;
    smp.t0 = grain(rec_mono_ns());
    smp.io_ok = read_process_io(&smp.io0, 0) == 0 && children_mark(&smp.children0) == 0;
    smp.cpu_ok = read_cpu(&smp.user0, &smp.sys0) == 0;
    rec_thread *t = first_thread();
    smp.node0 = t ? innermost(t) : 0;
}

static int thread_attach(rec_thread *t) {
    rec_thread_io_begin(t);
    if (rec_cfg.sample_interval_ns) {
        rec_io_counters c = {0};
        int ok = rec_thread_io_read_once(t, &c) == 0;
        rec_attach_io_set(t, &c, ok);
    }
    return 0;
}

static uint64_t tick(uint64_t now, int *want_frame) {
    uint64_t iv = rec_cfg.sample_interval_ns;
    if (!iv)
        return 0;
    if (grain(now) > smp.t0 || !smp.started)
        sample(grain(now));
    if (smp.npending >= PENDING_FRAME)
        *want_frame = 1;
    /* On the grid of the first sample, skipping ticks a busy writer
     * missed. */
    smp.next = smp.next ? smp.next + iv : now + iv;
    if (smp.next <= now)
        smp.next = now + iv - (now - smp.next) % iv;
    return smp.next;
}

/* A flush, the exit, a signal: the interval so far is written too.  Run
 * before the phases source counts its nodes (select runs in reverse table
 * order), so every phase a record names is defined in this frame. */
static void select_frame(const rec_frame_ctx *f) {
    /* Rounded up: a signal a moment after the last sample still gets its
     * interval. */
    uint64_t now = grain(rec_mono_ns() + GRAIN_NS - 1);
    if (!f->snapshot && f->reason != SCOPE_FRAME_PERIODIC && rec_cfg.sample_interval_ns &&
        smp.started && now > smp.t0)
        sample(now);
}

/* ---- series ------------------------------------------------------------------ */

/* Folds one measured figure into *sp, allocating it the first time.  When
 * that fails no series is written any more: one missing intervals would
 * pass for the whole truth. */
static void fold(rec_series **sp, const scope_rec_resource *r, uint64_t value) {
    if (!*sp) {
        *sp = malloc(sizeof **sp);
        if (!*sp) {
            smp.series_nomem = 1;
            return;
        }
        rec_series_init(*sp, rec_cfg.sample_interval_ns);
    }
    rec_series_add(*sp, r->mono_ns, r->interval_ns, value);
}

static gpu_series *gpu_series_of(uint32_t index) {
    for (unsigned i = 0; i < smp.ngpu_series; i++)
        if (smp.gpu_series[i].index == index)
            return &smp.gpu_series[i];
    if (smp.ngpu_series >= REC_MAX_GPUS)
        return NULL;
    /* Exactly one more: at most REC_MAX_GPUS, met once each. */
    if (SCOPE_VEC_RESIZE(smp.gpu_series, (size_t)smp.ngpu_series + 1) < 0) {
        smp.series_nomem = 1;
        return NULL;
    }
    gpu_series *p = &smp.gpu_series[smp.ngpu_series++];
    *p = (gpu_series){.index = index};
    return p;
}

/* A process record on its way into a frame, into the series. */
static void fold_record(const scope_rec_resource *r) {
    const uint64_t v[PROC_FIGURES] = {r->rss,        r->cpu_user_ns, r->cpu_sys_ns, r->disk_read,
                                      r->disk_write, r->char_read,   r->char_write, r->rss_peak};
    static const uint32_t bit[PROC_FIGURES] = {
        SCOPE_RES_RSS,        SCOPE_RES_CPU_USER,  SCOPE_RES_CPU_SYS,    SCOPE_RES_DISK_READ,
        SCOPE_RES_DISK_WRITE, SCOPE_RES_CHAR_READ, SCOPE_RES_CHAR_WRITE, SCOPE_RES_RSS_PEAK};
    for (unsigned k = 0; k < PROC_FIGURES; k++)
        if (r->present & bit[k])
            fold(&smp.series[k], r, v[k]);
    for (uint32_t i = 0; i < r->ngpus; i++) {
        const scope_gpu_figures *g = &r->gpus[i];
        gpu_series *gs = gpu_series_of(g->index);
        if (!gs)
            continue;
        const uint64_t gv[GPU_FIGURES] = {g->busy_permyriad, g->run_permyriad, g->mem_used,
                                          g->mem_run, g->mem_total};
        static const uint32_t gbit[GPU_FIGURES] = {SCOPE_GPU_BUSY, SCOPE_GPU_RUN,
                                                   SCOPE_GPU_MEM_USED, SCOPE_GPU_MEM_RUN,
                                                   SCOPE_GPU_MEM_TOTAL};
        for (unsigned k = 0; k < GPU_FIGURES; k++)
            if (g->present & gbit[k])
                fold(&gs->fig[k], r, gv[k]);
    }
}

static void add_series(const rec_frame_ctx *f, const rec_series *s, uint32_t figure,
                       uint32_t device) {
    if (!s || !s->samples_total)
        return;
    scope_record rec = {.type = SCOPE_REC_RESOURCE_SERIES};
    rec.u.resource_series = rec_series_record(s, 0, figure, device);
    rec_frame_add(f, &rec);
}

/* A snapshot's records: every series, then the bytes under each phase
 * node, and none of the pending intervals, which go into the next frame.
 * A table short of some intervals is not written: its rows would pass for
 * the whole truth. */
static void encode_snapshot(const rec_frame_ctx *f) {
    if (smp.series_nomem)
        return;
    for (unsigned k = 0; k < PROC_FIGURES; k++)
        add_series(f, smp.series[k], SCOPE_SERIES_RSS + k, 0);
    for (unsigned i = 0; i < smp.ngpu_series; i++)
        for (unsigned k = 0; k < GPU_FIGURES; k++)
            add_series(f, smp.gpu_series[i].fig[k], SCOPE_SERIES_GPU_BUSY + k,
                       smp.gpu_series[i].index);
    if (smp.node_io.nomem)
        return;
    for (uint32_t i = 0; i < smp.node_io.n; i++) {
        scope_record rec = {.type = SCOPE_REC_NODE_IO};
        rec.u.node_io = smp.node_io.rows[i];
        rec_frame_add(f, &rec);
    }
}

/* Emptied, not freed: a forked child resets them from the fork handler. */
static void forget_series(void) {
    smp.series_nomem = 0;
    rec_node_io_clear(&smp.node_io);
    for (unsigned k = 0; k < PROC_FIGURES; k++)
        if (smp.series[k])
            rec_series_init(smp.series[k], rec_cfg.sample_interval_ns);
    for (unsigned i = 0; i < smp.ngpu_series; i++)
        for (unsigned k = 0; k < GPU_FIGURES; k++)
            if (smp.gpu_series[i].fig[k])
                rec_series_init(smp.gpu_series[i].fig[k], rec_cfg.sample_interval_ns);
}

/* Each thread's intervals in the order they follow each other. */
static int by_thread_then_time(const void *a, const void *b) {
    const scope_rec_resource *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->mono_ns < y->mono_ns ? -1 : x->mono_ns > y->mono_ns;
}

/* The frame's intervals in one RESOURCE_BATCH (docs/format.md 5.21), which
 * writes each against the one before it of the same thread: so each
 * thread's go together.  Without memory for the sorted copy they go in the
 * order taken, as correct and less compact. */
static void encode_batch(const rec_frame_ctx *f) {
    unsigned g = 0;
    for (unsigned i = 0; i < smp.npending; i++) {
        scope_rec_resource *r = &smp.pending[i];
        r->gpus = r->ngpus ? smp.gpus + g : NULL;
        g += r->ngpus;
        if (!r->thread)
            fold_record(r);
        rec_node_io_add(&smp.node_io, r);
    }
    scope_rec_resource *recs = smp.pending;
    (void)SCOPE_VEC_RESERVE(smp.by_thread, smp.cap_by_thread, smp.npending);
    if (smp.cap_by_thread >= smp.npending && smp.npending) {
        memcpy(smp.by_thread, smp.pending, smp.npending * sizeof *recs);
        qsort(smp.by_thread, smp.npending, sizeof *recs, by_thread_then_time);
        recs = smp.by_thread;
    }
    scope_record rec = {.type = SCOPE_REC_RESOURCE_BATCH};
    rec.u.resource_batch = (scope_rec_resource_batch){.n = smp.npending, .records = recs};
    rec_frame_add(f, &rec);
}

static void encode(const rec_frame_ctx *f) {
    if (f->snapshot) {
        encode_snapshot(f);
        return;
    }
    if (smp.npending)
        encode_batch(f);
    smp.npending = 0;
    smp.npending_gpus = 0;
    uint64_t missed = rec_cuda_sync_missed() - smp.sync_missed0;
    if (missed && !smp.sync_caveat_written) {
        rec_frame_mark(f, SCOPE_MARK_CAVEAT, 0, (int64_t)missed,
                       "SCOPE_PHASE_SYNC asked to synchronize the GPU, but the program had loaded "
                       "no CUDA runtime or driver: those phases were not synchronized");
        smp.sync_caveat_written = 1;
    }
}

static void reset_sent(void) {
    smp.sync_caveat_written = 0; /* the mark was in what was dropped, or in another file */
}

/* The child's counters are its own: every descriptor named the parent, and
 * its records were the parent's. */
static void fork_child(void) {
    for (unsigned i = 0; i < smp.nthreads; i++)
        rec_phase_clock_free(&smp.threads[i].clock0);
    smp.nthreads = 0;
    smp.npending = 0;
    smp.npending_gpus = 0;
    smp.next = 0;
    smp.dropped = 0;
    /* A new process starts with every counter at 0 (the kernel zeroes a
     * child's I/O accounting and CPU times): its first interval starts at
     * the fork, whenever its writer comes to take the first sample. */
    smp.started = 1;
    smp.t0 = grain(rec_mono_ns());
    smp.node0 = 0;
    smp.io_ok = smp.cpu_ok = 1;
    memset(&smp.io0, 0, sizeof smp.io0);
    smp.user0 = smp.sys0 = 0;
    smp.children0 = 0;
    smp.sync_missed0 = rec_cuda_sync_missed();
    rec_thread_io_fork_child();
    smp.sync_caveat_written = 0;
    /* The parent's intervals are in the parent's log: its series are
     * cleared when the child starts (writer_start), not here, where
     * clearing them would copy their pages in every child that exits at
     * once. */
    smp.parent_series = 1;
    rec_gpu_fork_child();
}

const rec_source rec_source_resources = {
    .name = "resources",
    .thread_size = sizeof(rec_thread_io),
    .thread_attach = thread_attach,
    .thread_exit = rec_thread_io_end,
    .writer_start = writer_start,
    .fork_child = fork_child,
    .reset_sent = reset_sent,
    .select = select_frame,
    .encode = encode,
    .tick = tick,
};
