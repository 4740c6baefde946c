/*
 * The writer thread: every frame interval, and whenever asked (scope_flush,
 * exit, a signal), it snapshots every thread's nodes and counters, encodes
 * what changed since the last frame as full values, and closes a frame.
 *
 * It is the only thread that writes to the log.  It blocks the signals we
 * flush on (so they are delivered to a thread that can wait for us) and
 * SIGXFSZ (so a file-size limit makes our write fail with EFBIG instead of
 * killing the program).  Requests arrive through an eventfd, which a signal
 * handler may write to.
 */
#define _GNU_SOURCE
#include "recorder.h"

#include <errno.h>
#include <poll.h>
#include <scope/log_hist.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* Past this much unwritten data (a full disk for a long time) the frame is
 * dropped and everything is sent again in full once writes succeed. */
#define PENDING_LIMIT (8u << 20)

#define B(s, n) ((scope_bytes){(const uint8_t *)(s), (n)})
#define BS(s)   B(s, strlen(s))

static scope_hist_bin bins[SCOPE_HIST_BUCKETS];
/* Whether this frame carries histograms (see rec_write_frame), and whether
 * it is closed for a signal. */
static int with_hist, signal_frame;
static uint64_t last_hist_frame_ns;
static uint64_t failed_writes, last_errno;
static int failed_mark_added; /* one FLUSH_FAILED mark per streak of failures */
static int resend_all;
static uint32_t names_written;

/* Adds a record to the open frame.  A frame that would pass the format's
 * size limit (a process with hundreds of thousands of phase nodes) is closed
 * as a periodic frame first, and the record goes into the next one. */
static int add(const scope_record *r) {
    int rc = scope_log_writer_add(rec_proc.w, r);
    if (rc == -E2BIG && scope_log_writer_close_frame(rec_proc.w, SCOPE_FRAME_PERIODIC,
                                                     rec_mono_ns(), rec_wall_ns()) >= 0)
        rc = scope_log_writer_add(rec_proc.w, r);
    return rc;
}

/* A mark with a subkind and a second figure (docs/format.md, MARK). */
static void add_mark_sub(uint32_t kind, uint32_t subkind, uint32_t thread, int64_t value,
                         int64_t value2, const char *text) {
    scope_record r = {.type = SCOPE_REC_MARK};
    r.u.mark = (scope_rec_mark){.kind = kind,
                                .thread = thread,
                                .mono_ns = rec_mono_ns(),
                                .value = value,
                                .text = BS(text ? text : ""),
                                .subkind = subkind,
                                .value2 = value2};
    add(&r);
}

static void add_mark(uint32_t kind, uint32_t thread, int64_t value, const char *text) {
    add_mark_sub(kind, 0, thread, value, 0, text);
}

/* ---- the process record --------------------------------------------------- */

static size_t read_file(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static void add_process(void) {
    rec_process *p = &rec_proc;
    static char cmdline[8192], exe[4096], cwd[4096];
    static scope_bytes argv[64];
    size_t n = read_file("/proc/self/cmdline", cmdline, sizeof cmdline);
    uint32_t argc = 0;
    for (size_t i = 0; i < n && argc < 64;) {
        size_t len = strnlen(cmdline + i, n - i);
        argv[argc++] = B(cmdline + i, len);
        i += len + 1;
    }
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[el > 0 ? el : 0] = '\0';
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';

    char interval[32], cpu_min[32];
    if (p->cfg.frame_interval_ns)
        snprintf(interval, sizeof interval, "%.3f", (double)p->cfg.frame_interval_ns / 1e9);
    else
        snprintf(interval, sizeof interval, "auto");
    snprintf(cpu_min, sizeof cpu_min, "%.1f", (double)rec_hot.cpu_min_ns / 1e3);
    static const char *const cpu_names[] = {"off", "adaptive", "always"};
    scope_kv settings[] = {
        {BS("frame_interval_s"), BS(interval)},
        {BS("cpu_time"), BS(cpu_names[p->cfg.cpu_mode])},
        {BS("cpu_min_us"), BS(cpu_min)},
        {BS("clock"), BS(rec_clk.use_tsc ? "tsc" : "monotonic")},
    };
    scope_record r = {.type = SCOPE_REC_PROCESS};
    r.u.process = (scope_rec_process){
        .run_id = BS(p->run_id),
        .uuid = BS(p->uuid),
        .host = BS(p->host),
        .role = BS(p->cfg.role),
        .job_id = BS(p->job_id),
        .step_id = BS(p->step_id),
        .exe = BS(exe),
        .cwd = BS(cwd),
        .recorder_version = BS(SCOPE_RECORDER_VERSION),
        .pid = p->pid,
        .ppid = p->ppid,
        .rank = p->rank,
        .local_rank = p->local_rank,
        .node_rank = p->node_rank,
        .world_size = p->world_size,
        .start_wall_ns = p->start_wall_ns,
        .start_mono_ns = p->start_mono_ns,
        .argc = argc,
        .argv = argv,
        .nsettings = sizeof settings / sizeof settings[0],
        .settings = settings,
    };
    add(&r);
}

/* ---- snapshots ---------------------------------------------------------- */

typedef struct node_snap {
    uint64_t count, wall_ns, min_ns, max_ns, cpu_count, cpu_wall_ns, cpu_ns;
    uint32_t nbins;
    uint64_t hist_total; /* entries in the copied buckets: at most count */
} node_snap;

static void copy_scalars(const rec_node *n, node_snap *s) {
    s->count = n->count;
    s->wall_ns = n->wall_ns;
    s->min_ns = n->min_ns;
    s->max_ns = n->max_ns;
    s->cpu_count = n->cpu_count;
    s->cpu_wall_ns = n->cpu_wall_ns;
    s->cpu_ns = n->cpu_ns;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* A copy of a node.  The scalars (count, sums, min, max) are copied under
 * the node's sequence counter, so they agree with each other exactly.  The
 * histogram is read first, without it: copying up to 976 buckets takes
 * longer than one entry of a hot phase, so a consistent copy could starve.
 * Because the owner bumps the count before the bucket, and the buckets are
 * read before the count, the buckets then sum to at most `count`: the
 * difference is the entries that ended while the copy was taken.  Returns 0
 * when the owner stayed inside one update (stopped there by a signal, say):
 * the next frame carries the node.  With `stuck_ok` (a frame closed for a
 * signal, whose handler may be what stopped the owner, which will then never
 * finish), the values are copied as they are instead: off by at most the one
 * entry being recorded, rather than missing from the process's last frame. */
static int snap_node(rec_node *n, node_snap *s, int stuck_ok) {
    s->nbins = 0;
    s->hist_total = 0;
    for (uint32_t o = 0; o < REC_HIST_OCTAVES; o++) {
        uint64_t *oct = __atomic_load_n(&n->hist[o], __ATOMIC_ACQUIRE);
        for (uint32_t k = 0; oct && k < 16; k++) {
            uint64_t c = __atomic_load_n(&oct[k], __ATOMIC_RELAXED);
            if (c) {
                bins[s->nbins++] = (scope_hist_bin){o * 16 + k, c};
                s->hist_total += c;
            }
        }
    }
    atomic_thread_fence(memory_order_acquire);
    for (int tries = 0; tries < 100000; tries++) {
        uint32_t s1 = atomic_load_explicit(&n->seq, memory_order_acquire);
        if (s1 & 1) {
            /* The owner is inside an update.  It may be off its CPU, even
             * waiting for this one: spin briefly, then give the CPU away. */
            if (tries % 64 == 63)
                sched_yield();
            else
                cpu_relax();
            continue;
        }
        copy_scalars(n, s);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&n->seq, memory_order_relaxed) == s1)
            return 1;
    }
    if (!stuck_ok)
        return 0;
    copy_scalars(n, s);
    return 1;
}

static int snap_counter(rec_counter *c, uint64_t *calls, int64_t *total, int stuck_ok) {
    for (int tries = 0; tries < 100000; tries++) {
        uint32_t s1 = atomic_load_explicit(&c->seq, memory_order_acquire);
        if (s1 & 1) {
            /* The owner is inside an update.  It may be off its CPU, even
             * waiting for this one: spin briefly, then give the CPU away. */
            if (tries % 64 == 63)
                sched_yield();
            else
                cpu_relax();
            continue;
        }
        *calls = c->calls;
        *total = c->total;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&c->seq, memory_order_relaxed) == s1)
            return 1;
    }
    if (!stuck_ok)
        return 0;
    *calls = c->calls; /* as snap_node: the signal's own frame takes what is there */
    *total = c->total;
    return 1;
}

/* ---- one frame ------------------------------------------------------------ */

static void add_names(void) {
    uint32_t n = rec_name_count();
    for (uint32_t id = names_written + 1; id <= n; id++) {
        size_t len;
        const char *s = rec_name_get(id, &len);
        scope_record r = {.type = SCOPE_REC_STRING};
        r.u.string = (scope_rec_string){id, B(s, len)};
        add(&r);
    }
    names_written = n;
}

static void add_thread(rec_thread *t) {
    scope_record r;
    if (!t->w_defined) {
        r = (scope_record){.type = SCOPE_REC_THREAD};
        r.u.thread = (scope_rec_thread){t->index, t->tid, t->start_mono_ns, BS(t->name)};
        add(&r);
        t->w_defined = 1;
    }
    uint32_t nn = atomic_load_explicit(&t->nnodes, memory_order_acquire);
    for (uint32_t i = t->w_nodes + 1; i <= nn; i++) {
        rec_node *n = rec_node_at(t, i);
        r = (scope_record){.type = SCOPE_REC_PHASE_NODE};
        r.u.phase_node = (scope_rec_phase_node){n->id,    n->parent_id, n->name, t->index,
                                                n->flags, n->file,      n->line};
        add(&r);
    }
    t->w_nodes = nn;
    for (uint32_t i = 1; i <= nn; i++) {
        rec_node *n = rec_node_at(t, i);
        node_snap s;
        /* count only grows, so an unchanged count is an unchanged node; but a
         * frame that carries histograms also brings any histogram that is
         * older than its node's count (last sent in a frame without one). */
        if (!snap_node(n, &s, signal_frame) || s.count == 0)
            continue;
        int stale_hist = with_hist && n->w_hist_count != s.count;
        if (s.count == n->w_count && !resend_all && !stale_hist)
            continue;
        /* Its first entry ended while it was copied: no bucket yet.  The
         * next frame writes it whole. */
        if (s.nbins == 0)
            continue;
        r = (scope_record){.type = SCOPE_REC_PHASE_AGG};
        r.u.phase_agg = (scope_rec_phase_agg){
            .node = n->id,
            .count = s.count,
            .wall_ns = s.wall_ns,
            .min_ns = s.count ? s.min_ns : 0,
            .max_ns = s.max_ns,
            .cpu_count = s.cpu_count,
            .cpu_wall_ns = s.cpu_wall_ns,
            .cpu_ns = s.cpu_ns,
            .nbins = with_hist || !n->w_hist_count ? s.nbins : 0,
            .bins = bins,
        };
        if (r.u.phase_agg.nbins)
            n->w_hist_count = s.hist_total; /* may trail count: then it is resent */
        add(&r);
        /* Adaptive CPU time after the first entries: reads go on or off with
         * the mean of the last interval's entries, so a phase that turns
         * long (or short) is followed within a frame. */
        if (rec_hot.cpu_mode == REC_CPU_ADAPTIVE && n->w_count >= 4 && s.count > n->w_count)
            n->cpu_on = s.wall_ns - n->w_wall_ns >= (s.count - n->w_count) * rec_hot.cpu_min_ns;
        n->w_count = s.count;
        n->w_wall_ns = s.wall_ns;
    }
    uint32_t nc = atomic_load_explicit(&t->ncounters, memory_order_acquire);
    for (uint32_t i = 1; i <= nc; i++) {
        rec_counter *c = rec_counter_at(t, i);
        uint64_t calls;
        int64_t total;
        if (!snap_counter(c, &calls, &total, signal_frame) || (calls == c->w_calls && !resend_all))
            continue;
        r = (scope_record){.type = SCOPE_REC_COUNTER};
        r.u.counter = (scope_rec_counter){c->id, c->name, c->node_id, t->index, calls, total};
        add(&r);
        c->w_calls = calls;
    }
    /* Caveats counted on the hot path, written as they grow. */
    uint64_t ub = atomic_load_explicit(&t->unbalanced_end_empty, memory_order_relaxed);
    if (ub != t->w_unbalanced) {
        add_mark_sub(SCOPE_MARK_UNBALANCED, SCOPE_UNBALANCED_END_EMPTY, t->index, (int64_t)ub, 0,
                     "scope_phase_end() with no phase open");
        t->w_unbalanced = ub;
    }
    uint64_t dr = atomic_load_explicit(&t->dropped_count, memory_order_relaxed);
    if (dr != t->w_dropped) {
        add_mark(SCOPE_MARK_DROPPED, t->index, (int64_t)dr,
                 "entries or counts not recorded (nested too deep, past a per-thread limit, "
                 "name table full, or no memory)");
        t->w_dropped = dr;
    }
}

/* Phases still open when the process ends or a thread exits. */
static void add_open_phases(rec_thread *t, const char *when) {
    uint32_t depth = t->depth;
    if (depth <= t->inherited)
        return;
    char text[160];
    snprintf(text, sizeof text, "%u phase(s) still open %s", depth - t->inherited, when);
    rec_node *top = t->stack[depth < REC_MAX_DEPTH ? depth : REC_MAX_DEPTH - 1].node;
    add_mark_sub(SCOPE_MARK_UNBALANCED, SCOPE_UNBALANCED_LEFT_OPEN, t->index, (int64_t)top->id,
                 depth - t->inherited, text);
}

static void reset_sent_state(void) {
    rec_proc.process_written = 0;
    names_written = 0;
    for (rec_thread *t = rec_threads_head(); t; t = t->next) {
        t->w_defined = 0;
        t->w_nodes = 0;
    }
    resend_all = 1;
}

/* Collects and writes one frame.  Called with rec_proc.work held. */
int rec_write_frame(int reason) {
    rec_process *p = &rec_proc;
    if (!p->w)
        return -1;
    if (!p->process_written) {
        add_process();
        p->process_written = 1;
    }
    /* Histograms are most of a frame's bytes.  Periodic frames carry the
     * scalars of every changed phase and, every hist_interval, the
     * histograms too; flushes, exits and signals always carry everything.
     * A PHASE_AGG without bins leaves the node's histogram as the last
     * one written (docs/format.md). */
    uint64_t now = rec_mono_ns();
    signal_frame = reason == SCOPE_FRAME_SIGNAL;
    with_hist = reason != SCOPE_FRAME_PERIODIC || resend_all ||
                now - last_hist_frame_ns >= p->cfg.hist_interval_ns;
    if (with_hist)
        last_hist_frame_ns = now;
    add_names();
    for (rec_thread *t = rec_threads_head(); t; t = t->next) {
        if (atomic_load_explicit(&t->retired, memory_order_acquire))
            continue;
        /* Read before the copy: a thread that exits while it is copied has
         * values this frame may not hold, so it is retired a frame later. */
        t->w_final = atomic_load_explicit(&t->exited, memory_order_acquire);
        add_thread(t);
        if (t->w_final)
            add_open_phases(t, "when its thread exited");
    }
    /* The signal's mark goes in the frame closed for it, not in a periodic
     * frame that happened to start between the handler and its request. */
    int sig = reason == SCOPE_FRAME_SIGNAL ? atomic_exchange(&p->signal_seen, 0) : 0;
    if (sig)
        add_mark(SCOPE_MARK_SIGNAL, 0, sig, strsignal(sig));
    if (reason == SCOPE_FRAME_EXIT) {
        for (rec_thread *t = rec_threads_head(); t; t = t->next)
            if (!atomic_load_explicit(&t->retired, memory_order_acquire) &&
                !atomic_load_explicit(&t->exited, memory_order_acquire))
                add_open_phases(t, "at exit");
        add_mark(SCOPE_MARK_SHUTDOWN, 0, p->shutdown_reason, "");
    }
    /* Failed frames stay pending, this mark with them: add it once. */
    if (failed_writes && !failed_mark_added) {
        char text[160];
        snprintf(text, sizeof text, "writing frames failed (%s); what they held follows",
                 strerror((int)last_errno));
        add_mark(SCOPE_MARK_FLUSH_FAILED, 0, (int64_t)last_errno, text);
        failed_mark_added = 1;
    }

    long rc = scope_log_writer_close_frame(p->w, (uint32_t)reason, rec_mono_ns(), rec_wall_ns());
    if (rc < 0) {
        if (!failed_writes++)
            rec_warn("cannot write %s: %s (recording continues in memory)", p->path,
                     strerror((int)-rc));
        last_errno = (uint64_t)-rc;
        if (scope_log_writer_pending(p->w) > PENDING_LIMIT) {
            scope_log_writer_discard(p->w);
            reset_sent_state();
            failed_mark_added = 0; /* it was discarded with the rest */
        }
        atomic_store(&p->last_flush_failed, 1);
        return -1;
    }
    failed_writes = 0;
    failed_mark_added = 0;
    resend_all = 0;
    atomic_store(&p->last_flush_failed, 0);
    /* Threads that had exited before they were copied are now fully
     * written: free their nodes. */
    for (rec_thread *t = rec_threads_head(); t; t = t->next) {
        if (t->w_final && !atomic_load_explicit(&t->retired, memory_order_relaxed)) {
            rec_thread_free_nodes(t);
            atomic_store_explicit(&t->retired, 1, memory_order_release);
        }
    }
    rec_thread_unlink_retired();
    return 0;
}

/* ---- the thread ------------------------------------------------------------ */

/* How long until the next periodic frame.  Automatic: every 5 s for the
 * first 5 minutes, when a short run or a crash early on would otherwise
 * lose a large share of what it did, then every 30 s, which keeps a long run
 * near its target log size (bench/bench_recorder --log-size) while a SIGKILL
 * costs at most the last 30 s of hours.  Flushes, exit and signals write a
 * frame at once whatever the interval. */
uint64_t rec_frame_interval(uint64_t since_start_ns) {
    if (rec_proc.cfg.frame_interval_ns)
        return rec_proc.cfg.frame_interval_ns;
    return since_start_ns < 300000000000ull ? 5000000000ull : 30000000000ull;
}

/* The signals the writer thread never takes: the ones we flush on, and
 * SIGXFSZ. */
static void writer_signals(sigset_t *set) {
    rec_flush_signals(set);
    sigaddset(set, SIGXFSZ);
}

static void *writer_main(void *arg) {
    (void)arg;
    rec_process *p = &rec_proc;
    /* A first frame at once: the process's identity is on disk even if it
     * ends by _exit() or SIGKILL before the first interval (a shell's exit
     * builtin calls _exit, for one). */
    uint64_t next = rec_mono_ns();
    for (;;) {
        uint64_t now = rec_mono_ns();
        int wait_ms = now >= next ? 0 : (int)((next - now + 999999) / 1000000);
        struct pollfd pfd = {p->wake_fd, POLLIN, 0};
        if (poll(&pfd, 1, wait_ms) > 0) {
            uint64_t drain;
            if (read(p->wake_fd, &drain, sizeof drain) < 0)
                (void)0; /* EAGAIN: another read drained it */
        }
        pthread_mutex_lock(&p->work);
        uint64_t req = atomic_load(&p->flush_requested);
        int stop = atomic_load(&p->stop);
        now = rec_mono_ns();
        if (req > atomic_load(&p->flush_done)) {
            rec_write_frame(atomic_exchange(&p->flush_reason, SCOPE_FRAME_FLUSH));
            atomic_store(&p->flush_done, req);
            next = now + rec_frame_interval(now - p->start_mono_ns);
        } else if (now >= next) {
            rec_write_frame(SCOPE_FRAME_PERIODIC);
            next = now + rec_frame_interval(now - p->start_mono_ns);
        }
        pthread_mutex_unlock(&p->work);
        if (stop)
            break;
    }
    return NULL;
}

int rec_writer_start(void) {
    rec_process *p = &rec_proc;
    /* A new file (first start, a restart after scope_shutdown, a forked
     * child): every definition and aggregate goes into it again. */
    reset_sent_state();
    failed_writes = 0;
    failed_mark_added = 0;
    last_hist_frame_ns = 0;
    p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (p->wake_fd < 0)
        return -1;
    /* The writer must never take a flush signal (its handler would wait for
     * the writer itself) nor SIGXFSZ: it is born with them blocked, since a
     * signal pending for the process could otherwise land on it before its
     * first instruction. */
    sigset_t block, old;
    writer_signals(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(&p->writer, NULL, writer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        close(p->wake_fd);
        p->wake_fd = -1;
        return -1;
    }
    p->writer_running = 1;
    return 0;
}

/* Asks the writer thread for a frame and waits up to wait_ms for it.
 * Async-signal-safe: an eventfd write, atomics and nanosleep. */
int rec_request_flush(int reason, int wait_ms) {
    rec_process *p = &rec_proc;
    if (!p->writer_running)
        return -1;
    /* The strongest reason wins when requests pile up. */
    int cur = atomic_load(&p->flush_reason);
    while (reason > cur && !atomic_compare_exchange_weak(&p->flush_reason, &cur, reason))
        ;
    uint64_t mine = atomic_fetch_add(&p->flush_requested, 1) + 1;
    uint64_t one = 1;
    if (write(p->wake_fd, &one, sizeof one) < 0)
        (void)0; /* EAGAIN: the counter is already non-zero, the writer will wake */
    for (int waited = 0; atomic_load(&p->flush_done) < mine; waited++) {
        if (waited >= wait_ms)
            return -1;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return atomic_load(&p->last_flush_failed) ? -1 : 0;
}

void rec_writer_stop(int reason) {
    rec_process *p = &rec_proc;
    if (!p->writer_running)
        return;
    rec_request_flush(reason, 10000);
    atomic_store(&p->stop, 1);
    uint64_t one = 1;
    if (write(p->wake_fd, &one, sizeof one) < 0)
        (void)0;
    pthread_join(p->writer, NULL);
    p->writer_running = 0;
    atomic_store(&p->stop, 0);
    close(p->wake_fd);
    p->wake_fd = -1;
}
