/*
 * Starting and stopping the recorder: scope_init, the environment-driven
 * start on first use, scope_shutdown, scope_flush, exit, and fork.
 *
 * States: UNKNOWN until the first call reads the environment; ON while
 * recording; OFF when not asked to record; FAILED when asked but unable
 * (one line on stderr, the program runs on unrecorded); CHILD in a forked
 * child, which starts its own log on its first call; STOPPED after
 * scope_shutdown, for good (state.h).
 *
 * This file writes the process's settings (rec_cfg), identity (rec_id) and
 * state, holding `life` (in a forked child's fork handler, as its only
 * thread).
 */
#define _GNU_SOURCE
#include "lifecycle.h"

#include "clock.h"
#include "config.h"
#include "identity.h"
#include "names.h"
#include "signals.h"
#include "source_process.h"
#include "sources.h"
#include "state.h"
#include "thread.h"
#include "warn.h"
#include "writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Serializes starting and stopping; never taken on the hot path. */
static pthread_mutex_t life = PTHREAD_MUTEX_INITIALIZER;
static int hooks_installed;

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
    if (rec_config_from_env(&rec_cfg, run_dir, role, err, sizeof err) < 0)
        goto fail;
    rec_clock_calibrate();
    rec_hot.cpu_mode = rec_cfg.cpu_mode;
    /* Two reads per entry at under 2% of the phase: mean >= 100 reads. */
    rec_hot.cpu_min_ns = rec_cfg.cpu_min_ns ? rec_cfg.cpu_min_ns : 100 * cpu_read_cost_ns();
    if (rec_identity_init(&rec_id, &rec_cfg, err, sizeof err) < 0)
        goto fail;
    if (rec_writer_start(err, sizeof err) < 0)
        goto fail;
    rec_export_env(&rec_id, &rec_cfg);
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
    if (rec_writer_start(err, sizeof err) < 0) {
        rec_warn("not recording in child %d: %s", (int)rec_id.pid, err);
        rec_state_set(REC_FAILED);
        return;
    }
    rec_state_set(REC_ON);
    rec_thread_adopt_survivor();
}

void rec_first_use(void) {
    pthread_mutex_lock(&life);
    int st = rec_state_get();
    if (st == REC_UNKNOWN) {
        if (env_true(getenv("SCOPE_PROFILE")))
            start_locked(NULL, NULL);
        else
            rec_state_set(REC_OFF);
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
        if (rec_state_get() == REC_UNKNOWN)
            rec_state_set(REC_OFF);
        return 0;
    }
    pthread_mutex_lock(&life);
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
        rec_warn("scope_init after scope_shutdown: a process records one log; not recording");
        rc = -1;
    } else if (st != REC_ON) {
        rc = start_locked(run_dir, role);
    }
    pthread_mutex_unlock(&life);
    return rc;
}

static void stop_locked(int reason) {
    if (rec_state_get() != REC_ON)
        return;
    rec_state_set(REC_STOPPED);
    rec_writer_stop(reason);
}

void scope_shutdown(void) {
    pthread_mutex_lock(&life);
    stop_locked(SCOPE_SHUTDOWN_CALL);
    pthread_mutex_unlock(&life);
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
    rec_writer_lock();
}

static void fork_parent(void) {
    rec_writer_unlock();
    rec_names_unlock();
    pthread_mutex_unlock(&life);
}

static void fork_child(void) {
    rec_writer_unlock();
    rec_names_unlock();
    pthread_mutex_unlock(&life);
    if (rec_state_get() != REC_ON)
        return;
    rec_writer_fork_child();
    rec_sources_fork_child();
    rec_state_set(REC_CHILD);
}
