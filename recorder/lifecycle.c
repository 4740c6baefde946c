/*
 * Starting and stopping the recorder: scope_init, the environment-driven
 * start on first use, scope_shutdown, scope_flush, exit, and fork.
 *
 * States: UNKNOWN until the first call reads the environment; ON while
 * recording; OFF when not asked to record; FAILED when asked but unable
 * (one line on stderr, the program runs on unrecorded); CHILD in a forked
 * child, which starts its own log on its first call; STOPPED after
 * scope_shutdown, for good.  scope_hot_ is nonzero
 * exactly when a call must look further than one branch.
 */
#define _GNU_SOURCE
#include "recorder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

rec_process rec_proc = {.fd = -1, .wake_fd = -1, .work = PTHREAD_MUTEX_INITIALIZER};
rec_thread *rec_fork_survivor;

/* Serializes starting and stopping; never taken on the hot path. */
static pthread_mutex_t life = PTHREAD_MUTEX_INITIALIZER;
static int hooks_installed;

void rec_warn(const char *fmt, ...) {
    if (rec_proc.cfg.quiet)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    fprintf(stderr, "scope: %s\n", line);
}

static int env_true(const char *v) {
    return v && (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
                 !strcasecmp(v, "on"));
}

static void set_state(int st) {
    atomic_store_explicit(&rec_proc.state, st, memory_order_release);
    scope_hot_ = st == REC_ON || st == REC_UNKNOWN || st == REC_CHILD;
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

/* Opens the log and starts the writer thread; identity and settings are in
 * rec_proc already.  Called with `life` held. */
static int open_and_run(char *err, size_t errlen) {
    if (rec_open_log(&rec_proc, err, errlen) < 0)
        return -1;
    if (rec_writer_start() < 0) {
        snprintf(err, errlen, "cannot start the writer thread");
        scope_log_writer_free(rec_proc.w);
        rec_proc.w = NULL;
        close(rec_proc.fd);
        rec_proc.fd = -1;
        unlink(rec_proc.path);
        return -1;
    }
    return 0;
}

static int start_locked(const char *run_dir, const char *role) {
    char err[512] = "";
    rec_process *p = &rec_proc;
    if (rec_config_from_env(&p->cfg, run_dir, role, err, sizeof err) < 0)
        goto fail;
    rec_clock_calibrate();
    rec_hot.cpu_mode = p->cfg.cpu_mode;
    /* Two reads per entry at under 2% of the phase: mean >= 100 reads. */
    rec_hot.cpu_min_ns = p->cfg.cpu_min_ns ? p->cfg.cpu_min_ns : 100 * cpu_read_cost_ns();
    if (rec_identity_init(p, err, sizeof err) < 0)
        goto fail;
    if (open_and_run(err, sizeof err) < 0)
        goto fail;
    rec_export_env(p);
    if (!hooks_installed) {
        hooks_installed = 1;
        pthread_atfork(fork_prepare, fork_parent, fork_child);
        atexit(at_exit);
        rec_signals_install();
    }
    p->shutdown_reason = SCOPE_SHUTDOWN_EXIT;
    set_state(REC_ON);
    return 0;
fail:
    rec_warn("not recording: %s (the program runs on unrecorded)", err);
    set_state(REC_FAILED);
    return -1;
}

/* A forked child's first call: a log of its own, same run, new writer. */
static void restart_child_locked(void) {
    char err[512] = "";
    rec_process *p = &rec_proc;
    rec_identity_self(p);
    if (open_and_run(err, sizeof err) < 0) {
        rec_warn("not recording in child %d: %s", (int)p->pid, err);
        set_state(REC_FAILED);
        return;
    }
    set_state(REC_ON);
    if (rec_fork_survivor) {
        rec_self = rec_fork_survivor;
        rec_fork_survivor = NULL;
    }
}

void rec_first_use(void) {
    pthread_mutex_lock(&life);
    int st = atomic_load(&rec_proc.state);
    if (st == REC_UNKNOWN) {
        if (env_true(getenv("SCOPE_PROFILE")))
            start_locked(NULL, NULL);
        else
            set_state(REC_OFF);
    } else if (st == REC_CHILD) {
        restart_child_locked();
    }
    pthread_mutex_unlock(&life);
}

static int env_false(const char *v) {
    return v && (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
                 !strcasecmp(v, "off"));
}

int scope_init(const char *run_dir, const char *role) {
    /* SCOPE_PROFILE=0 switches off even a program that asks to record. */
    if (env_false(getenv("SCOPE_PROFILE"))) {
        if (atomic_load(&rec_proc.state) == REC_UNKNOWN)
            set_state(REC_OFF);
        return 0;
    }
    pthread_mutex_lock(&life);
    int st = atomic_load(&rec_proc.state);
    /* Started from the environment by an earlier call: the program's own
     * role still applies.  The next frame carries a new PROCESS record, which
     * supersedes the first (docs/format.md 5.3). */
    if (st == REC_ON && role && *role && strcmp(role, rec_proc.cfg.role) != 0) {
        pthread_mutex_lock(&rec_proc.work);
        snprintf(rec_proc.cfg.role, sizeof rec_proc.cfg.role, "%s", role);
        rec_proc.process_written = 0;
        pthread_mutex_unlock(&rec_proc.work);
    }
    if (st == REC_CHILD) {
        /* A forked worker naming its own role ("actor") gets it. */
        if (role && *role)
            snprintf(rec_proc.cfg.role, sizeof rec_proc.cfg.role, "%s", role);
        restart_child_locked();
        st = atomic_load(&rec_proc.state);
    }
    int rc = 0;
    if (st == REC_STOPPED) {
        /* Recording again would start a second log repeating the first
         * one's totals, which a reader would count twice. */
        rec_warn("scope_init after scope_shutdown: a process records one log; not recording");
        rc = -1;
    } else if (st != REC_ON) {
        rc = start_locked(run_dir, role);
    }
    pthread_mutex_unlock(&life);
    return rc;
}

static void stop_locked(int reason) {
    if (atomic_load(&rec_proc.state) != REC_ON)
        return;
    rec_proc.shutdown_reason = reason;
    set_state(REC_STOPPED);
    rec_writer_stop(SCOPE_FRAME_EXIT);
    scope_log_writer_free(rec_proc.w);
    rec_proc.w = NULL;
    close(rec_proc.fd);
    rec_proc.fd = -1;
}

void scope_shutdown(void) {
    pthread_mutex_lock(&life);
    stop_locked(SCOPE_SHUTDOWN_CALL);
    pthread_mutex_unlock(&life);
}

int scope_flush(void) {
    int st = atomic_load(&rec_proc.state);
    if (st == REC_UNKNOWN || st == REC_CHILD)
        rec_first_use();
    if (atomic_load(&rec_proc.state) != REC_ON)
        return 0; /* nothing to write is not a failure */
    return rec_request_flush(SCOPE_FRAME_FLUSH, 10000);
}

static void at_exit(void) {
    pthread_mutex_lock(&life);
    stop_locked(SCOPE_SHUTDOWN_EXIT);
    pthread_mutex_unlock(&life);
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

/* The writer finishes the frame it is writing and no thread holds the name
 * lock: the child then inherits no lock held by a thread it does not have. */
static void fork_prepare(void) {
    pthread_mutex_lock(&life);
    rec_names_lock();
    pthread_mutex_lock(&rec_proc.work);
}

static void fork_parent(void) {
    pthread_mutex_unlock(&rec_proc.work);
    rec_names_unlock();
    pthread_mutex_unlock(&life);
}

static void fork_child(void) {
    pthread_mutex_unlock(&rec_proc.work);
    rec_names_unlock();
    pthread_mutex_unlock(&life);
    rec_process *p = &rec_proc;
    if (atomic_load(&p->state) != REC_ON)
        return;
    /* The parent's writer thread does not exist here, and its file is the
     * parent's: drop both without writing. */
    p->writer_running = 0;
    if (p->wake_fd >= 0)
        close(p->wake_fd);
    p->wake_fd = -1;
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    scope_log_writer_free(p->w);
    p->w = NULL;
    atomic_store(&p->flush_requested, 0);
    atomic_store(&p->flush_done, 0);
    atomic_store(&p->flush_reason, 0);
    atomic_store(&p->signal_seen, 0);
    rec_thread *me = rec_attached(rec_self) ? rec_self : NULL;
    uint32_t open = me ? me->depth : 0;
    rec_threads_forget_all_but(me);
    if (me)
        me->inherited = open;
    rec_fork_survivor = me;
    rec_self = &rec_unattached;
    set_state(REC_CHILD);
}
