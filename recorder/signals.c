/*
 * Flushing on SIGTERM, SIGINT, SIGHUP and SIGUSR1 (preemption: Slurm's
 * --signal=USR1@120 terminates without running atexit), then letting the
 * program's own disposition act as if we were not there: its handler runs,
 * an ignored signal stays ignored, and a default action still kills the
 * process *by that signal*, so the exit status a launcher sees is unchanged.
 *
 * The handler only writes to an eventfd and polls an atomic counter with
 * nanosleep: all async-signal-safe.  The writer thread, which blocks these
 * signals, does the work.  If it cannot answer in time (it is stuck behind a
 * fork, say), the handler gives up waiting rather than hang the program.
 */
#define _GNU_SOURCE
#include "signals.h"

#include "identity.h"
#include "state.h"
#include "writer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define FLUSH_WAIT_MS 3000

/* The program's own dispositions, by slot in rec_flush_signal_list.
 * Written by rec_signals_install (lifecycle, once); read by the handler. */
static struct sigaction previous[REC_NFLUSH_SIGNALS];

static int slot_of(int sig) {
    for (unsigned i = 0; i < REC_NFLUSH_SIGNALS; i++)
        if (rec_flush_signal_list[i] == sig)
            return (int)i;
    return -1;
}

static void on_signal(int sig, siginfo_t *info, void *ctx) {
    int saved = errno;
    int slot = slot_of(sig);
    /* A forked child that has not started its own writer yet has only its
     * parent's identity: it flushes nothing. */
    if (rec_state_get() == REC_ON && getpid() == rec_id.pid)
        rec_request_signal_flush(sig, FLUSH_WAIT_MS);
    if (slot < 0)
        goto out;
    struct sigaction *old = &previous[slot];
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction)
            old->sa_sigaction(sig, info, ctx);
    } else if (old->sa_handler == SIG_IGN) {
        /* the program ignores it: so do we, after the flush */
    } else if (old->sa_handler == SIG_DFL) {
        /* The default action of all four is to terminate: do exactly that,
         * by this signal, with our handler out of the way. */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
        sigset_t unblock;
        sigemptyset(&unblock);
        sigaddset(&unblock, sig);
        pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
        raise(sig);
        /* Still alive (the signal is blocked elsewhere, say): put ours back. */
        struct sigaction ours;
        memset(&ours, 0, sizeof ours);
        ours.sa_sigaction = on_signal;
        ours.sa_flags = SA_SIGINFO;
        sigemptyset(&ours.sa_mask);
        sigaction(sig, &ours, NULL);
    } else {
        old->sa_handler(sig);
    }
out:
    errno = saved;
}

/* Installs our handler in front of whatever the program has now.  A
 * handler the program installs later replaces ours: its signal then runs
 * its handler and we flush only periodically and at exit (documented). */
void rec_signals_install(void) {
    for (unsigned i = 0; i < REC_NFLUSH_SIGNALS; i++) {
        struct sigaction cur;
        if (sigaction(rec_flush_signal_list[i], NULL, &cur) != 0)
            continue;
        /* A program that ignores SIGHUP (nohup) keeps ignoring it without
         * us in the way. */
        if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
            continue;
        previous[i] = cur;
        /* Keep the program's own handler's mask and flags: whether its
         * system calls restart, or run on an alternate stack, must not
         * change because we stand in front of it. */
        struct sigaction ours;
        memset(&ours, 0, sizeof ours);
        ours.sa_sigaction = on_signal;
        ours.sa_flags = SA_SIGINFO | (cur.sa_flags & (SA_RESTART | SA_ONSTACK | SA_NODEFER));
        ours.sa_mask = cur.sa_mask;
        sigaction(rec_flush_signal_list[i], &ours, NULL);
    }
}
