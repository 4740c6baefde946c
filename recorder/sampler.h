/*
 * The line sampler's signal side: per-thread timers that raise SIGPROF on
 * the thread that used the CPU, the handler that unwinds the interrupted
 * stack into the thread's ring, and the slots that hold the rings.
 *
 * One slot per thread the sampler knows (threads started through
 * pthread_create while libscope is loaded, the main thread, and any thread
 * that calls scope_lines_begin).  A slot is reached by the handler through
 * the timer's signal value, an index into a fixed table, so the handler
 * follows no pointer the program could have given it.  Slots are recycled,
 * never freed: a signal still pending for a thread that exited finds a slot
 * whose thread id is not its own and does nothing.
 *
 * The ring is single producer (the handler, on the slot's thread) and
 * single consumer (whoever holds the store's lock: lines_store.c).  A full
 * ring drops the sample and counts it.
 */
#ifndef SCOPE_REC_SAMPLER_H
#define SCOPE_REC_SAMPLER_H

#include "own_fd.h"
#include "recorder.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <time.h>

#define REC_LINES_MAX_FRAMES  64u   /* frames kept of one stack; deeper ones are cut, counted */
#define REC_LINES_RING        128u  /* samples a thread holds until they are drained */
#define REC_LINES_MAX_THREADS 4096u /* threads sampled at once; more are counted as failed */
#define REC_LINES_SIGNAL      SIGPROF

typedef struct rec_lines_sample {
    uint32_t thread;  /* the recorder's thread index, 0 when the thread is not recorded */
    uint32_t node;    /* PHASE_NODE id of the thread's innermost open phase, 0 for none */
    uint32_t weight;  /* 1 + the timer's overruns: periods this sample stands for */
    uint32_t state;   /* enum scope_cpu_state: always ON on the CPU-time clock */
    uint32_t nframes; /* pc[0] is where the thread was; pc[1..] are return addresses */
    uintptr_t pc[REC_LINES_MAX_FRAMES];
} rec_lines_sample;

typedef struct rec_lines_slot {
    /* Under the sampler's lock (rec_sampler_lock). */
    _Atomic pid_t tid; /* the thread's id; 0 while the slot is free */
    pthread_t thread;
    uint32_t no; /* index in the slot table: the timer's signal value is no + 1 */
    timer_t timer;
    int armed;   /* the timer exists */
    int counted; /* in rec_lines_threads since the thread took the slot */
    int dead;    /* the thread ended: free once its ring is drained */
    /* The blocked-signal check (lines_store.c): the thread's clock and
     * samples at its last window's start. */
    int check_started;
    uint64_t cpu_check, taken_check;
    uint64_t seen_taken, seen_dropped, seen_cut; /* the counters below, as last drained */
    rec_lines_sample *ring; /* REC_LINES_RING entries, allocated when first armed */
    /* Wall clock only: the thread's schedstat, opened when armed, and its
     * clocks at its previous sample (or when armed), from which the
     * handler tells on-CPU, blocked and queued apart (sampler.c). */
    rec_fd sched_fd;
    int sched_held;                           /* sched_fd is one of those run_delay.c bounds */
    uint64_t prev_mono, prev_cpu, prev_delay; /* prev_delay REC_DELAY_NONE: unknown */
    uint64_t prev_sleeps;                     /* voluntary context switches: UINT64_MAX unknown */
    /* The handler (producer) and the consumer. */
    _Atomic uint64_t head, tail;
    _Atomic uint64_t taken;     /* handler: periods sampled, overruns included */
    _Atomic uint64_t dropped;   /* handler: periods lost to a full ring */
    _Atomic uint64_t truncated; /* handler: stacks cut at REC_LINES_MAX_FRAMES or left unwound */
} rec_lines_slot;

/* What the sampler was asked for: written by lines.c under the sampler's
 * lock (the rate and clock once, before the first timer; the project by
 * any begin that names one), read under it or, for the rate and clock,
 * anywhere. */
typedef struct rec_lines_settings {
    uint32_t hz;
    uint32_t clock; /* enum scope_lines_clock */
    uint64_t period_ns;
    char project[4096];
} rec_lines_settings;
extern rec_lines_settings rec_lines_cfg;

/* Whether threads are being sampled now, and whether they ever were in
 * this process (then its log carries LINES records).  lines.c writes them. */
extern _Atomic int rec_lines_active, rec_lines_began;

/* Sampler-wide caveats: SCOPE_LINES_F_FOREIGN, _BLOCKED, _NO_UNWIND. */
extern _Atomic uint32_t rec_lines_flags;
extern _Atomic uint32_t rec_lines_threads, rec_lines_threads_failed;

/* The lock over the slot table and every slot's non-atomic fields. */
void rec_sampler_lock(void);
void rec_sampler_unlock(void);
int rec_sampler_lock_for_fork(uint64_t deadline_ns);
void rec_sampler_reset_lock(void);

/* Installs the SIGPROF handler, unless the program has one of its own
 * (then SCOPE_LINES_F_FOREIGN is set and -1 returned), and warms the
 * unwinder up outside any handler.  Idempotent. */
int rec_sampler_install(void);
/* Whether SIGPROF still runs our handler: 0 once the program replaced it. */
int rec_sampler_handler_ours(void);

/* The calling thread's slot, made when missing (-> NULL: table full or no
 * memory, counted).  Lock held. */
rec_lines_slot *rec_sampler_slot_self(void);
/* The slot of thread index i (0 .. rec_sampler_nslots()-1), or NULL. */
rec_lines_slot *rec_sampler_slot(uint32_t i);
uint32_t rec_sampler_nslots(void);

/* Starts or stops a slot's timer (lock held).  Arming sets the first expiry
 * at a random point of one period. */
int rec_sampler_arm(rec_lines_slot *s);
void rec_sampler_disarm(rec_lines_slot *s);
/* The thread of s ended (its own thread-exit destructor): no more samples;
 * the slot is freed once drained. */
void rec_sampler_thread_ended(rec_lines_slot *s);
/* A drained slot of an ended thread becomes free (lock held). */
void rec_sampler_recycle(rec_lines_slot *s);

/* Around fork (lines.c's fork handlers): prepare waits, until deadline_ns
 * at most, for the handlers inside the unwinder, and keeps new ones out of
 * it until done. */
void rec_sampler_fork_prepare(uint64_t deadline_ns);
void rec_sampler_fork_done(void);

/* In a forked child: the timers of the parent are gone, and so are its
 * other threads: every slot but the caller's becomes free. */
void rec_sampler_fork_child(void);

/* The loader's module list changed: the copy the handler walks is taken
 * again (lines_store.c calls it; it is also taken at install). */
void rec_sampler_modules_changed(void);

#endif
