/*
 * Starting and stopping the recorder: scope_init, the environment-driven
 * start on first use, scope_shutdown, scope_flush, exit, and fork.
 *
 * States: UNKNOWN until the first call reads the environment; ON while
 * recording; OFF when not asked to record; FAILED when asked but unable
 * (one line on stderr, the program runs on unrecorded); CHILD in a forked
 * child, which starts its own log on its first call; STOPPED after
 * scope_shutdown, or in a child forked while the recorder was busy, for
 * good (state.h).
 *
 * This file writes the process's settings (rec_cfg), identity (rec_id) and
 * state, holding `life` (in a forked child's fork handler, as its only
 * thread).
 */
#define _GNU_SOURCE
#include "lifecycle.h"

#include "alloc.h"
#include "clock.h"
#include "config.h"
#include "cpu_share.h"
#include "exit_line.h"
#include "identity.h"
#include "lock.h"
#include "names.h"
#include "run_delay.h"
#include "signals.h"
#include "source_process.h"
#include "sources.h"
#include "state.h"
#include "thread.h"
#include "thread_io.h"
#include "trace.h"
#include "warn.h"
#include "writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Serializes starting and stopping; never taken on the hot path.  Taken
 * with the program's signals held (life_take): starting and stopping
 * allocate on the program's thread, and a handler there must find neither
 * the allocator nor this lock in the middle of a change (alloc.h). */
static rec_lock life = REC_LOCK_INIT;

static void life_take(sigset_t *sigs) {
    rec_signals_hold(sigs);
    rec_lock_take(&life);
}

static void life_give(const sigset_t *sigs) {
    rec_lock_give(&life);
    rec_signals_release(sigs);
}
static int hooks_installed;
/* A forked child whose fork handler could not take every lock (fork_child). */
static int forked_unrecordable;
/* This process started the run and records it: it says where the run went
 * as it exits (exit_line.h).  A forked child, or a process that joined a
 * run (an exec'd child, a launcher's other ranks), leaves that to it. */
static int announce_at_exit;

static int env_true(const char *v) {
    return v && (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
                 !strcasecmp(v, "on"));
}

static void at_exit(void);
static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

/* How long one thread-CPU-time read costs here, for the adaptive rule. */
static uint64_t cpu_read_cost_ns(void) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t a = rec_mono_ns();
        (void)rec_thread_cpu_ns();
        uint64_t d = rec_mono_ns() - a;
        best = d < best ? d : best;
    }
    return best;
}

static int start_locked(const char *run_dir, const char *role) {
    char err[512] = "";
    if (rec_config_from_env(&rec_cfg, run_dir, role, err, sizeof err) < 0) {
        /* The same settings fail the same way in every process of the run:
         * said once (warn.h). */
        rec_warn_setting("not recording: %s (the program runs on unrecorded)", err);
        rec_state_set(REC_FAILED);
        return -1;
    }
    rec_clock_calibrate();
    rec_names_set_limit(rec_cfg.names_max);
    rec_trace_from_env(); /* a bad SCOPE_TRACE is warned about and ignored */
    rec_hot.cpu_mode = rec_cfg.cpu_mode;
    /* Two reads per read entry at 2% of the phase: 100 reads of its time
     * per read entry (phase.c).  A read is CPU time and the run delay
     * beside it (run_delay.h); only the first is inside the CPU window. */
    rec_hot.cpu_read_ns = cpu_read_cost_ns();
    rec_hot.cpu_share_ns = rec_cpu_share_at_start();
    rec_hot.cpu_min_ns = rec_cfg.cpu_min_ns ? rec_cfg.cpu_min_ns
                                            : 100 * (rec_hot.cpu_read_ns + rec_run_delay_cost_ns());
    if (rec_identity_init(&rec_id, &rec_cfg, err, sizeof err) < 0)
        goto fail;
    if (rec_writer_start(err, sizeof err) < 0)
        goto fail;
    rec_export_env(&rec_id, &rec_cfg);
    announce_at_exit = rec_id.run_started;
    if (!hooks_installed) {
        hooks_installed = 1;
        pthread_atfork(fork_prepare, fork_parent, fork_child);
        atexit(at_exit);
        rec_signals_install();
    }
    rec_state_set(REC_ON);
    return 0;
fail:
    rec_warn("not recording: %s (the program runs on unrecorded)", err);
    rec_state_set(REC_FAILED);
    return -1;
}

/* A forked child's first call: a log of its own, same run, new writer. */
static void restart_child_locked(void) {
    char err[512] = "";
    rec_identity_self(&rec_id);
    /* The thread that forked, attached anew before the writer starts: the
     * bytes that start writes on it are the recorder's (thread_io.h). */
    if (rec_thread_forked_self()) {
        rec_thread *t = rec_sources_attach_self();
        if (t) {
            rec_thread_fork_adopt(t);
            /* The kernel started the child's I/O counters at 0 at the
             * fork, which starts its first sampled interval. */
            rec_attach_io_set(t, &(rec_io_counters){0}, 1);
        }
    }
    if (rec_writer_start(err, sizeof err) < 0) {
        rec_warn("not recording in child %d: %s", (int)rec_id.pid, err);
        rec_state_set(REC_FAILED);
        return;
    }
    rec_state_set(REC_ON);
}

void rec_first_use(void) {
    sigset_t sigs;
    life_take(&sigs);
    int st = rec_state_get();
    if (st == REC_UNKNOWN) {
        if (env_true(getenv("SCOPE_PROFILE")))
            start_locked(NULL, NULL);
        else
            rec_state_set(REC_OFF);
    } else if (st == REC_CHILD) {
        restart_child_locked();
    }
    life_give(&sigs);
}

static int env_false(const char *v) {
    return v && (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
                 !strcasecmp(v, "off"));
}

int scope_init(const char *run_dir, const char *role) {
    /* SCOPE_PROFILE=0 switches off even a program that asks to record. */
    if (env_false(getenv("SCOPE_PROFILE"))) {
        if (rec_state_get() == REC_UNKNOWN)
            rec_state_set(REC_OFF);
        return 0;
    }
    sigset_t sigs;
    life_take(&sigs);
    int st = rec_state_get();
    /* Started from the environment by an earlier call: the program's own
     * role still applies.  The next frame carries a new PROCESS record, which
     * supersedes the first (docs/format.md 5.3). */
    if (st == REC_ON && role && *role && strcmp(role, rec_cfg.role) != 0) {
        rec_writer_lock();
        snprintf(rec_cfg.role, sizeof rec_cfg.role, "%s", role);
        rec_source_process_changed();
        rec_writer_unlock();
    }
    if (st == REC_CHILD) {
        /* A forked worker naming its own role ("actor") gets it. */
        if (role && *role)
            snprintf(rec_cfg.role, sizeof rec_cfg.role, "%s", role);
        restart_child_locked();
        st = rec_state_get();
    }
    int rc = 0;
    if (st == REC_STOPPED) {
        /* Recording again would start a second log repeating the first
         * one's totals, which a reader would count twice. */
        if (forked_unrecordable)
            rec_warn("scope_init in a child forked while the recorder was busy (from a signal "
                     "handler?): its state may be half changed; not recording");
        else
            rec_warn("scope_init after scope_shutdown: a process records one log; not recording");
        rc = -1;
    } else if (st != REC_ON) {
        rc = start_locked(run_dir, role);
    }
    life_give(&sigs);
    return rc;
}

static void stop_locked(int reason) {
    if (rec_state_get() != REC_ON)
        return;
    rec_state_set(REC_STOPPED);
    rec_writer_stop(reason);
}

void scope_shutdown(void) {
    sigset_t sigs;
    life_take(&sigs);
    stop_locked(SCOPE_SHUTDOWN_CALL);
    life_give(&sigs);
}

int scope_flush(void) {
    int st = rec_state_get();
    if (st == REC_UNKNOWN || st == REC_CHILD)
        rec_first_use();
    if (rec_state_get() != REC_ON)
        return 0; /* nothing to write is not a failure */
    return rec_request_flush(SCOPE_FRAME_FLUSH, 10000);
}

static void at_exit(void) {
    sigset_t sigs;
    life_take(&sigs);
    stop_locked(SCOPE_SHUTDOWN_EXIT);
    if (announce_at_exit) {
        announce_at_exit = 0;
        rec_exit_line(rec_cfg.run_dir);
    }
    life_give(&sigs);
}

/* How long leaving (_exit, exec) waits for the writer's last frame: it
 * takes milliseconds, unless the writer waits for a lock the leaving
 * thread holds (a signal handler that interrupted the recorder calls
 * _exit); then the process leaves without it, read as killed, as before. */
#define LEAVE_WAIT_MS 5000

void rec_end_before_leaving(int reason) {
    /* getpid is a system call (glibc caches no pid): a vfork child, which
     * runs no fork handler, differs from the pid the recorder started in. */
    if (rec_state_get() != REC_ON || getpid() != rec_id.pid)
        return;
    (void)rec_writer_last_frame(reason, LEAVE_WAIT_MS);
    /* The program that started the run says where it went, as at exit;
     * an exec'd program that joins the run leaves that to whoever waits
     * for it. */
    if (announce_at_exit && reason != SCOPE_SHUTDOWN_EXEC) {
        announce_at_exit = 0;
        rec_exit_line(rec_cfg.run_dir);
    }
}

/* A recorder preloaded into a program that never calls it (scope-tui
 * record -- CMD) has no first use: start here.  A linked recorder waits for
 * its first call, so that scope_init's arguments are the ones used. */
__attribute__((constructor)) static void preload_start(void) {
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "libscope") && env_true(getenv("SCOPE_PROFILE")))
        rec_first_use();
}

/* ---- fork ------------------------------------------------------------------ */

/* How long the fork handler waits for the recorder's locks, all three
 * together, at most.  The writer holds its lock for one frame
 * (milliseconds), the name lock is held for one insert, `life` while the
 * recorder starts or stops: a holder that takes longer is stuck (stopped in
 * a signal handler of its own, say).  The forking thread itself holding one
 * (its handler forks) is found at once, without waiting (lock.h). */
#define FORK_LOCK_WAIT_NS 1000000000ull

/* Which locks fork_prepare got, for the same thread's parent and child
 * handlers: each gives back only what it took, also when two threads fork
 * at once. */
static __thread struct {
    int life, names, work;
} fork_held __attribute__((tls_model("initial-exec")));

/* The writer finishes the frame it is writing and no thread holds the name
 * lock: the child then inherits no lock held by a thread it does not have.
 * No wait here is unbounded (lock.h): a lock not taken in time is left to
 * the child, which then does not record. */
static void fork_prepare(void) {
    uint64_t deadline = rec_mono_ns() + FORK_LOCK_WAIT_NS;
    fork_held.life = rec_lock_for_fork(&life, deadline);
    fork_held.names = rec_names_lock_for_fork(deadline);
    fork_held.work = rec_writer_lock_for_fork(deadline);
}

static void fork_parent(void) {
    if (fork_held.work)
        rec_writer_unlock();
    if (fork_held.names)
        rec_names_unlock();
    if (fork_held.life)
        rec_lock_give(&life);
}

/* The child's one thread: every lock starts free here, given back or reset.
 * What a lock not taken guarded may be half changed, so then the child drops
 * the parent's writer without freeing its state and does not record
 * (recording needs the names and the thread registry whole). */
static void fork_child(void) {
    int whole = fork_held.life && fork_held.names && fork_held.work;
    if (fork_held.work)
        rec_writer_unlock();
    if (fork_held.names)
        rec_names_unlock();
    else
        rec_names_reset_lock();
    if (fork_held.life)
        rec_lock_give(&life);
    else
        rec_lock_reset(&life);
    announce_at_exit = 0; /* the parent started the run: it says so */
    int recording = rec_state_get() == REC_ON;
    /* Also when not recording: it resets the writer's lock if not taken. */
    rec_writer_fork_child(fork_held.work);
    if (!recording)
        return;
    if (!whole) {
        forked_unrecordable = 1;
        rec_state_set(REC_STOPPED); /* for good: scope_init cannot restart it either */
        return;
    }
    rec_sources_fork_child();
    rec_state_set(REC_CHILD);
}
