/*
 * The writer thread (writer.h).  Each frame walks the table of data sources
 * (sources.h): every source adds what changed since the last frame, as full
 * values, and the writer adds the marks of the frame itself (signal,
 * shutdown, failed writes) and closes it.
 *
 * It is the only thread that writes to the log.  It blocks every signal:
 * the ones we flush on are delivered to a thread that can wait for us,
 * SIGXFSZ makes a write past a file-size limit fail with EFBIG instead of
 * killing the program, and the program's own handlers never run on a thread
 * it does not know, in the middle of a frame (a handler that forks would
 * wait on the lock the writer holds; one that calls exit() would wait for
 * the writer to finish its last frame).  Requests arrive through a futex
 * word: a counter bumped and woken with FUTEX_WAKE, which a signal handler
 * may do, and which holds no descriptor of the program's.
 */
#define _GNU_SOURCE
#include "writer.h"

#include "clock.h"
#include "config.h"
#include "frame.h"
#include "identity.h"
#include "lock.h"
#include "logfile.h"
#include "own_fd.h"
#include "own_thread.h"
#include "sources.h"
#include "thread.h"
#include "warn.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Past this much unwritten data (a full disk for a long time) the frame is
 * dropped and everything is sent again in full once writes succeed. */
#define PENDING_LIMIT (8u << 20)

const int rec_flush_signal_list[REC_NFLUSH_SIGNALS] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1};

static struct writer {
    /* The log.  Opened and closed by the lifecycle while no writer thread
     * runs (rec_writer_start, rec_writer_stop, the fork child); written by
     * the writer thread only. */
    rec_log log;
    /* In a forked child until it starts: the parent's codec writer. */
    scope_log_writer *parent_w;

    /* Frames: the writer thread's, under `work`. */
    uint64_t last_hist_frame_ns;
    uint64_t failed_writes, last_errno;
    int failed_mark_added; /* one FLUSH_FAILED mark per streak of failures */
    int resend_all;        /* the frames before were dropped: every aggregate again */

    /* Snapshots (the schedule below): the writer thread's, under `work`. */
    uint64_t snap_end;  /* the log's size after the newest snapshot; 0: none yet */
    uint64_t snap_size; /* that snapshot's compressed size */
    int snap_owed;      /* one was due and could not be written: at the next chance */
    int snap_off;       /* this file's state is too large for one frame: none */

    /* The thread.  `thread` and `running` are the lifecycle's, `thread`
     * set before `running` publishes it; signal handlers read them. */
    pthread_t thread;
    _Atomic int running;
    _Atomic uint32_t wake; /* futex word: bumped by each request, also from signal handlers */
    _Atomic uint64_t flush_requested, flush_done; /* requesters; the writer thread */
    _Atomic int flush_reason;      /* enum scope_frame_reason of the pending request */
    _Atomic int stop;              /* lifecycle: end after this request */
    _Atomic int last_flush_failed; /* writer thread */
    rec_lock work; /* held by the writer while it works; fork waits on it, bounded */

    /* Marks raised outside the writer thread for its next frames. */
    _Atomic int signal_seen;     /* a signal handler: the signal its frame is closed for */
    _Atomic int shutdown_reason; /* lifecycle: enum scope_shutdown_reason for SHUTDOWN */
} wr = {.log = {.fd = {-1, 0, 0}}, .work = REC_LOCK_INIT};

void rec_writer_lock(void) {
    rec_lock_take(&wr.work);
}

void rec_writer_unlock(void) {
    rec_lock_give(&wr.work);
}

int rec_writer_lock_for_fork(uint64_t deadline_ns) {
    return rec_lock_for_fork(&wr.work, deadline_ns);
}

/* ---- one frame ------------------------------------------------------------ */

/* A new file, or a discarded frame: every source writes everything again. */
static void reset_sent_state(void) {
    rec_sources_reset_sent();
    wr.resend_all = 1;
}

/* The marks that belong to this frame rather than to a source. */
static void add_frame_marks(const rec_frame_ctx *f) {
    /* The signal's mark goes in the frame closed for it, not in a periodic
     * frame that happened to start between the handler and its request. */
    int sig = f->reason == SCOPE_FRAME_SIGNAL ? atomic_exchange(&wr.signal_seen, 0) : 0;
    if (sig)
        rec_frame_mark(f, SCOPE_MARK_SIGNAL, 0, sig, strsignal(sig));
    if (f->reason == SCOPE_FRAME_EXIT)
        rec_frame_mark(f, SCOPE_MARK_SHUTDOWN, 0, atomic_load(&wr.shutdown_reason), "");
    /* Failed frames stay pending, this mark with them: add it once. */
    if (wr.failed_writes && !wr.failed_mark_added) {
        char text[160];
        snprintf(text, sizeof text, "writing frames failed (%s); what they held follows",
                 strerror((int)wr.last_errno));
        rec_frame_mark(f, SCOPE_MARK_FLUSH_FAILED, 0, (int64_t)wr.last_errno, text);
        wr.failed_mark_added = 1;
    }
}

/* Room for the last frame of a process whose disk is full.  On a full
 * filesystem: kept allocated past the end of the log (the file's size does
 * not change), so that a frame cut back after a failed write frees at least
 * this much.  Under a file-size limit: kept free below the limit. */
#define LAST_WORDS_RESERVE 4096

static void keep_reserve(void) {
    (void)fallocate(wr.log.fd.fd, FALLOC_FL_KEEP_SIZE, (off_t)scope_log_writer_bytes(wr.log.w),
                    LAST_WORDS_RESERVE);
}

/* The log is complete: a file system keeps blocks allocated past the end
 * until the file is cut to its size. */
static void release_reserve(void) {
    struct stat st;
    if (rec_log_usable(&wr.log) == 0 && fstat(wr.log.fd.fd, &st) == 0 &&
        ftruncate(wr.log.fd.fd, st.st_size) != 0)
        (void)0; /* the reserve stays: 4 KiB of disk, nothing of the log */
}

/* Under a file-size limit the reserve is the last bytes below the limit,
 * and no frame may reach into them: one that might is not written, as if
 * the write had failed, and waits like one.  Its size is not known before
 * it is compressed; its records' size, plus what compression and the frame
 * record can add, bounds it. */
static long close_frame_below_reserve(int reason, uint32_t flags) {
    struct rlimit rl;
    struct stat st;
    size_t raw = scope_log_writer_pending(wr.log.w);
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        fstat(wr.log.fd.fd, &st) == 0 &&
        (uint64_t)st.st_size + raw + raw / 128 + 512 + LAST_WORDS_RESERVE > rl.rlim_cur)
        return -EFBIG;
    return scope_log_writer_close_frame_flags(wr.log.w, (uint32_t)reason, flags, rec_mono_ns(),
                                              rec_wall_ns());
}

/* The process's last frame could not be written (err, a negative errno):
 * its figures are lost, but a reader must still learn why the log ends
 * here rather than take the process for killed.  A frame of two marks
 * (writes failed, the process shut down) fits in the reserve. */
static long write_last_words(long err) {
    scope_log_writer_discard(wr.log.w);
    char text[160];
    snprintf(text, sizeof text,
             "writing frames failed (%s) until the process ended; its last figures are lost",
             strerror((int)-err));
    rec_frame_ctx f = {.w = wr.log.w, .reason = SCOPE_FRAME_EXIT};
    rec_frame_mark(&f, SCOPE_MARK_FLUSH_FAILED, 0, -err, text);
    rec_frame_mark(&f, SCOPE_MARK_SHUTDOWN, 0, atomic_load(&wr.shutdown_reason), "");
    /* Written or not, the frame asked for is lost: the error stands. */
    (void)scope_log_writer_close_frame(wr.log.w, SCOPE_FRAME_EXIT, rec_mono_ns(), rec_wall_ns());
    return err;
}

/* Collects and writes one frame, or with `snapshot` a snapshot frame
 * (docs/format.md 5.2.1): every definition and aggregate again, histograms
 * included, the marks as MARK_STATE copies, and no event.  Called with
 * `work` held. */
static int collect_and_write(int reason, int snapshot) {
    if (!wr.log.w)
        return -1;
    /* Histograms are most of a frame's bytes.  Periodic frames carry the
     * scalars of every changed phase and, every hist_interval, the
     * histograms too; flushes, exits and signals always carry everything.
     * A PHASE_AGG without bins leaves the node's histogram as the last
     * one written (docs/format.md). */
    uint64_t now = rec_mono_ns();
    rec_frame_ctx f = {
        .w = wr.log.w,
        .reason = reason,
        .with_hist = reason != SCOPE_FRAME_PERIODIC || wr.resend_all || snapshot ||
                     now - wr.last_hist_frame_ns >= rec_cfg.hist_interval_ns,
        .stuck_ok = reason == SCOPE_FRAME_SIGNAL,
        .resend_all = wr.resend_all || snapshot,
        .snapshot = snapshot,
    };
    if (f.with_hist && !snapshot)
        wr.last_hist_frame_ns = now;
    for (unsigned i = rec_nsources; i-- > 0;)
        if (rec_sources[i]->select)
            rec_sources[i]->select(&f);
    for (unsigned i = 0; i < rec_nsources; i++)
        if (rec_sources[i]->encode)
            rec_sources[i]->encode(&f);
    if (snapshot && rec_frame_snapshot_overflowed()) {
        /* Past the format's frame size: readers of this file read it from
         * the start.  What the snapshot had taken as written is not. */
        scope_log_writer_discard(wr.log.w);
        reset_sent_state();
        wr.snap_off = 1;
        rec_warn("%s: the process's state is too large for one snapshot frame; its log is "
                 "written without snapshots",
                 wr.log.path);
        return -1;
    }
    if (!snapshot)
        add_frame_marks(&f);

    /* The descriptor is checked right before the write: the program may
     * have taken it (logfile.h). */
    long rc = rec_log_usable(&wr.log);
    int lost = rc < 0;
    if (wr.log.gone) {
        /* Nothing reaches the file any more: the frame goes as if written,
         * so that nothing piles up for it. */
        scope_log_writer_discard(wr.log.w);
        for (unsigned i = 0; i < rec_nsources; i++)
            if (rec_sources[i]->frame_written)
                rec_sources[i]->frame_written(&f);
        atomic_store(&wr.last_flush_failed, 1);
        return -1;
    }
    if (!lost)
        rc = close_frame_below_reserve(reason, snapshot ? SCOPE_FRAME_F_SNAPSHOT : 0);
    if (rc < 0 && reason == SCOPE_FRAME_EXIT && !snapshot)
        rc = write_last_words(rc);
    if (rc < 0) {
        if (!wr.failed_writes++ && !lost) /* a lost log has said so */
            rec_warn("cannot write %s: %s (recording continues in memory)", wr.log.path,
                     strerror((int)-rc));
        wr.last_errno = (uint64_t)-rc;
        /* A snapshot's records must not wait for the next frame, which is
         * no snapshot (MARK_STATE belongs in snapshots only): dropped, and
         * that frame sends everything again instead. */
        if (snapshot || scope_log_writer_pending(wr.log.w) > PENDING_LIMIT) {
            scope_log_writer_discard(wr.log.w);
            reset_sent_state();
            wr.failed_mark_added = 0; /* it was discarded with the rest */
        }
        atomic_store(&wr.last_flush_failed, 1);
        return -1;
    }
    wr.failed_writes = 0;
    wr.failed_mark_added = 0;
    wr.resend_all = 0;
    atomic_store(&wr.last_flush_failed, 0);
    if (snapshot) {
        wr.snap_end = scope_log_writer_bytes(wr.log.w);
        wr.snap_size = (uint64_t)rc;
        wr.snap_owed = 0;
    }
    keep_reserve();
    for (unsigned i = 0; i < rec_nsources; i++)
        if (rec_sources[i]->frame_written)
            rec_sources[i]->frame_written(&f);
    return 0;
}

/* Whether a snapshot follows the frame just written for `reason`.  After a
 * flush, an exit or a signal always: a reader of the log as it stands then
 * starts at the snapshot.  After a periodic frame once the log has grown
 * since the newest snapshot by that snapshot's own size: snapshots are then
 * at most about half of the log, and a reader starting at the newest reads
 * at most about twice its size.  A log's first frame is followed by one at
 * once, so its identity never rests on one frame. */
static int snapshot_due(int reason) {
    if (wr.snap_off)
        return 0;
    if (reason != SCOPE_FRAME_PERIODIC || wr.snap_owed || !wr.snap_end)
        return 1;
    return scope_log_writer_bytes(wr.log.w) - wr.snap_end >=
           SCOPE_LOG_SNAPSHOT_SPACING * wr.snap_size;
}

/* One frame and, when due, the snapshot after it.  Only after a frame that
 * reached the file: a frame whose write failed keeps its records pending,
 * events among them, and they must not go into a snapshot.  A snapshot that
 * fails is dropped, owed, and written after the next frame that succeeds.
 * Returns the frame's result, which is what a flush waits for. */
static int write_frame(int reason) {
    int rc = collect_and_write(reason, 0);
    if (rc == 0 && snapshot_due(reason) && collect_and_write(reason, 1) < 0) {
        wr.snap_owed = !wr.snap_off;
        atomic_store(&wr.last_flush_failed, 0); /* the frame asked for is written */
    }
    return rc;
}

/* ---- the thread ------------------------------------------------------------ */

/* How long until the next periodic frame.  Automatic: every 5 s for the
 * first 5 minutes, when a short run or a crash early on would otherwise
 * lose a large share of what it did, then every 30 s, which keeps a long run
 * near its target log size (bench/bench_recorder --log-size) while a SIGKILL
 * costs at most the last 30 s of hours.  Flushes, exit and signals write a
 * frame at once whatever the interval. */
static uint64_t frame_interval(uint64_t since_start_ns) {
    if (rec_cfg.frame_interval_ns)
        return rec_cfg.frame_interval_ns;
    return since_start_ns < 300000000000ull ? 5000000000ull : 30000000000ull;
}

/* When each source with a schedule of its own (source.h, tick) wants its
 * next call; 0 at the writer's start: at once. */
static uint64_t tick_at[16];
static_assert(sizeof tick_at / sizeof tick_at[0] >= 3, "room for the table's rows");

/* Calls the sources whose time has come; returns the earliest next call,
 * and whether one wants a frame written now. */
static uint64_t run_ticks(uint64_t now, int *want_frame) {
    uint64_t soonest = UINT64_MAX;
    for (unsigned i = 0; i < rec_nsources && i < sizeof tick_at / sizeof tick_at[0]; i++) {
        if (!rec_sources[i]->tick)
            continue;
        if (now >= tick_at[i])
            tick_at[i] = rec_sources[i]->tick(now, want_frame);
        if (tick_at[i] && tick_at[i] < soonest)
            soonest = tick_at[i];
    }
    return soonest;
}

/* ---- requests ------------------------------------------------------------- */

/* Sleeps until a request bumps the word past `seen`, or wait_ms pass. */
static void wait_for_request(uint32_t seen, int wait_ms) {
    struct timespec ts = {wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L};
    /* EAGAIN (the word moved already), EINTR, ETIMEDOUT: all end the wait. */
    (void)syscall(SYS_futex, (uint32_t *)&wr.wake, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
}

/* Wakes the writer thread.  Async-signal-safe: an atomic add and one system
 * call, no descriptor. */
static void wake_writer(void) {
    atomic_fetch_add(&wr.wake, 1);
    (void)syscall(SYS_futex, (uint32_t *)&wr.wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *writer_main(void *arg) {
    (void)arg;
    /* A first frame at once: the process's identity is on disk even if it
     * ends by _exit() or SIGKILL before the first interval (a shell's exit
     * builtin calls _exit, for one). */
    uint64_t next = rec_mono_ns(), next_tick = 0;
    uint32_t seen = atomic_load(&wr.wake);
    memset(tick_at, 0, sizeof tick_at);
    for (;;) {
        uint64_t now = rec_mono_ns();
        uint64_t wake = next_tick < next ? next_tick : next;
        int wait_ms = now >= wake ? 0 : (int)((wake - now + 999999) / 1000000);
        if (wait_ms > 0)
            wait_for_request(seen, wait_ms);
        /* Loaded before the requests are looked at: one that comes after
         * this bumps the word past it, and the next wait returns at once. */
        seen = atomic_load(&wr.wake);
        rec_lock_take(&wr.work);
        uint64_t req = atomic_load(&wr.flush_requested);
        int stop = atomic_load(&wr.stop);
        now = rec_mono_ns();
        if (req > atomic_load(&wr.flush_done)) {
            write_frame(atomic_exchange(&wr.flush_reason, SCOPE_FRAME_FLUSH));
            atomic_store(&wr.flush_done, req);
            next = now + frame_interval(now - rec_id.start_mono_ns);
        } else if (now >= next) {
            write_frame(SCOPE_FRAME_PERIODIC);
            next = now + frame_interval(now - rec_id.start_mono_ns);
        }
        if (!stop) {
            int want_frame = 0;
            next_tick = run_ticks(rec_mono_ns(), &want_frame);
            if (want_frame)
                write_frame(SCOPE_FRAME_PERIODIC);
        }
        rec_lock_give(&wr.work);
        if (stop)
            break;
    }
    return NULL;
}

int rec_writer_start(char *err, size_t errlen) {
    scope_log_writer_free(wr.parent_w); /* a forked child's: its parent's */
    wr.parent_w = NULL;
    if (rec_log_open(&wr.log, &rec_cfg, &rec_id, err, errlen) < 0)
        return -1;
    /* A new file (first start, a forked child): every definition and
     * aggregate goes into it again. */
    reset_sent_state();
    wr.failed_writes = 0;
    wr.failed_mark_added = 0;
    wr.last_hist_frame_ns = 0;
    wr.snap_end = wr.snap_size = 0;
    wr.snap_owed = wr.snap_off = 0;
    atomic_store(&wr.shutdown_reason, SCOPE_SHUTDOWN_EXIT);
    for (unsigned i = 0; i < rec_nsources; i++)
        if (rec_sources[i]->writer_start)
            rec_sources[i]->writer_start();
    /* The writer takes no signal (see the top of this file): it is born
     * with all of them blocked (own_thread.h). */
    int rc = rec_own_thread_start(&wr.thread, 0, writer_main, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the writer thread");
        rec_log_remove(&wr.log);
        return -1;
    }
    atomic_store(&wr.running, 1);
    return 0;
}

/* Async-signal-safe: atomics, a futex wake and nanosleep. */
int rec_request_flush(int reason, int wait_ms) {
    if (!atomic_load(&wr.running))
        return -1;
    /* The strongest reason wins when requests pile up. */
    int cur = atomic_load(&wr.flush_reason);
    while (reason > cur && !atomic_compare_exchange_weak(&wr.flush_reason, &cur, reason))
        ;
    uint64_t mine = atomic_fetch_add(&wr.flush_requested, 1) + 1;
    wake_writer();
    for (int waited = 0; atomic_load(&wr.flush_done) < mine; waited++) {
        if (waited >= wait_ms)
            return -1;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return atomic_load(&wr.last_flush_failed) ? -1 : 0;
}

void rec_request_signal_flush(int sig, int wait_ms) {
    if (!atomic_load(&wr.running) || pthread_equal(pthread_self(), wr.thread))
        return;
    atomic_store(&wr.signal_seen, sig);
    rec_request_flush(SCOPE_FRAME_SIGNAL, wait_ms);
}

int rec_writer_last_frame(int shutdown_reason, int wait_ms) {
    if (!atomic_load(&wr.running) || pthread_equal(pthread_self(), wr.thread))
        return -1;
    atomic_store(&wr.shutdown_reason, shutdown_reason);
    return rec_request_flush(SCOPE_FRAME_EXIT, wait_ms);
}

void rec_writer_stop(int shutdown_reason) {
    if (!atomic_load(&wr.running))
        return;
    atomic_store(&wr.shutdown_reason, shutdown_reason);
    rec_request_flush(SCOPE_FRAME_EXIT, 10000);
    atomic_store(&wr.stop, 1);
    wake_writer();
    pthread_join(wr.thread, NULL);
    atomic_store(&wr.running, 0);
    atomic_store(&wr.stop, 0);
    release_reserve();
    rec_log_close(&wr.log);
}

/* Kept small, as every fork handler (lifecycle.c): the parent's codec
 * writer is freed by the child's own start, if it ever records, and not
 * here, where freeing its buffers would cost every child that exits at
 * once.  Half changed when the lock was not taken: then never freed. */
void rec_writer_fork_child(int locked) {
    atomic_store(&wr.running, 0);
    /* The parent's descriptor, closed only while it is still the log's:
     * the program may have taken it before it forked. */
    rec_fd_close(&wr.log.fd);
    wr.log.gone = 0;
    wr.parent_w = locked ? wr.log.w : NULL;
    wr.log.w = NULL;
    if (!locked)
        rec_lock_reset(&wr.work);
    atomic_store(&wr.flush_requested, 0);
    atomic_store(&wr.flush_done, 0);
    atomic_store(&wr.flush_reason, 0);
    atomic_store(&wr.signal_seen, 0);
}
