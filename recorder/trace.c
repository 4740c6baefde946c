/*
 * The trace window (trace.h): its settings, its state and its events.
 *
 * The window's state moves one way: waiting -> open -> closed or capped.
 * Only the transitions write rec_trace_hot, and each is one compare-and-
 * swap on `state`, so two threads ending it at once end it once.
 *
 * A window may be asked for while the writer thread and the program's
 * threads run (scope_trace_window after scope_init).  `phase` publishes it:
 * every other field is written first and `phase` is stored last, with
 * release; whoever reads a field loads `phase` with acquire first and
 * finds the window whole, or sees 0 and no window.  The recording threads
 * reach the fields only through `state`, which the thread that opened the
 * window changed after its own acquire of `phase`.
 */
#include "trace.h"

#include "clock.h"
#include "names.h"
#include "thread.h"
#include "warn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

uint8_t rec_trace_hot;

static struct {
    _Atomic uint32_t phase;  /* name id; 0: no window asked for (or one being set) */
    _Atomic uint32_t arming; /* 1 while a thread sets the window's fields */
    _Atomic uint64_t first, last;
    _Atomic uint32_t state; /* enum scope_trace_state */
    _Atomic uint64_t entries;
    _Atomic uint64_t start_ns, end_ns;
    _Atomic uint64_t next; /* slots claimed, also past the cap */
    _Atomic uint64_t lost;
    int every_entry;  /* waiting, every entry is tested: the phase may have older nodes */
    uint64_t cap;     /* fixed once slots exist */
    rec_trace_ev *ev; /* cap slots, mapped once, untouched until used */
} win;

static int set_hot(int on) {
    __atomic_store_n(&rec_trace_hot, (uint8_t)on, __ATOMIC_RELEASE);
    return on;
}

/* ---- settings -------------------------------------------------------------- */

int rec_trace_parse(const char *s, char *phase, size_t cap, uint64_t *first, uint64_t *last) {
    /* The last ':' splits, so a phase name may hold ':' itself. */
    const char *colon = s ? strrchr(s, ':') : NULL;
    if (!colon || colon == s || (size_t)(colon - s) >= cap)
        return -1;
    const char *p = colon + 1;
    char *end;
    if (*p < '0' || *p > '9')
        return -1;
    errno = 0;
    unsigned long long a = strtoull(p, &end, 10);
    if (errno || *end != '-' || end[1] < '0' || end[1] > '9')
        return -1;
    unsigned long long b = strtoull(end + 1, &end, 10);
    if (errno || *end || a == 0 || b < a)
        return -1;
    memcpy(phase, s, (size_t)(colon - s));
    phase[colon - s] = '\0';
    *first = a;
    *last = b;
    return 0;
}

static uint64_t cap_from_env(void) {
    const char *v = getenv("SCOPE_TRACE_EVENTS");
    if (!v || !*v)
        return REC_TRACE_DEFAULT_CAP;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || *end || n == 0 || n > REC_TRACE_MAX_CAP || *v < '0' || *v > '9') {
        rec_warn("SCOPE_TRACE_EVENTS='%.40s' is not a number of events in 1..%u: using %u", v,
                 REC_TRACE_MAX_CAP, REC_TRACE_DEFAULT_CAP);
        return REC_TRACE_DEFAULT_CAP;
    }
    return n;
}

/* rec_trace_set's work, by one thread at a time (`arming`). */
static int set_fields(const char *phase, uint64_t first, uint64_t last, char *err, size_t errlen) {
    uint32_t st = atomic_load(&win.state);
    if (atomic_load(&win.phase) && st != SCOPE_TRACE_WAITING) {
        snprintf(err, errlen, "this process's trace window has already opened");
        return -1;
    }
    if (!win.ev) {
        uint64_t cap = cap_from_env();
        void *p = mmap(NULL, cap * sizeof(rec_trace_ev), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            snprintf(err, errlen, "no memory for %llu trace events", (unsigned long long)cap);
            return -1;
        }
        win.cap = cap;
        win.ev = p;
    }
    uint32_t known = rec_name_count();
    uint32_t id = rec_name_intern_kept(phase, strlen(phase));
    if (!id) {
        snprintf(err, errlen, "the name table is full");
        return -1;
    }
    /* A window asked for again before it opened: withdrawn while its
     * bounds change, so no entry counts against bounds half set. */
    atomic_store(&win.phase, 0);
    atomic_store(&win.first, first);
    atomic_store(&win.last, last);
    atomic_store(&win.entries, 0);
    /* Nodes of the phase created from now on count their own entries; a
     * name met before may have nodes already, which only the test on every
     * entry sees until the window opens. */
    atomic_store(&rec_trace_watch_name, id);
    win.every_entry = id <= known;
    set_hot(win.every_entry);
    /* Last: the window is whole for whoever sees its phase. */
    atomic_store_explicit(&win.phase, id, memory_order_release);
    return 0;
}

int rec_trace_set(const char *phase, uint64_t first, uint64_t last, char *err, size_t errlen) {
    if (!phase || !*phase || first == 0 || last < first) {
        snprintf(err, errlen, "a trace window needs a phase name and entries 1 <= FIRST <= LAST");
        return -1;
    }
    uint32_t idle = 0;
    if (!atomic_compare_exchange_strong(&win.arming, &idle, 1)) {
        snprintf(err, errlen, "another thread is asking for a trace window at the same time");
        return -1;
    }
    int rc = set_fields(phase, first, last, err, errlen);
    atomic_store(&win.arming, 0);
    return rc;
}

void rec_trace_from_env(void) {
    const char *v = getenv("SCOPE_TRACE");
    if (!v || !*v || atomic_load(&win.phase))
        return; /* none, or the program asked for its own */
    char phase[256], err[160];
    uint64_t first, last;
    if (rec_trace_parse(v, phase, sizeof phase, &first, &last) < 0) {
        rec_warn("SCOPE_TRACE='%.80s' is not PHASE:FIRST-LAST (entries 1 <= FIRST <= LAST): "
                 "no trace window",
                 v);
        return;
    }
    if (rec_trace_set(phase, first, last, err, sizeof err) < 0)
        rec_warn("SCOPE_TRACE='%.80s': %s: no trace window", v, err);
}

int scope_trace_window(const char *phase, uint64_t first, uint64_t last) {
    char err[160];
    if (rec_trace_set(phase, first, last, err, sizeof err) < 0) {
        rec_warn("scope_trace_window: %s", err);
        return -1;
    }
    return 0;
}

/* ---- transitions ------------------------------------------------------------- */

/* The end is read from the clock after the state changed, not taken from
 * the caller's `now`: a thread that read its clock and then still saw the
 * window open (rec_trace_entered, rec_trace_counted) read it before this
 * change, so its event starts no later than the end.  The end is then a
 * few nanoseconds after the LAST-th entry's end, never before an event. */
static void end_window(uint32_t how, uint64_t now) {
    uint32_t open = SCOPE_TRACE_OPEN;
    if (atomic_compare_exchange_strong(&win.state, &open, how)) {
        uint64_t after = rec_mono_ns();
        atomic_store(&win.end_ns, after > now ? after : now);
        set_hot(0);
    }
}

/* Whether the window is still open now that the event's clock was read:
 * an event whose clock was read after the window ended is not in it. */
static int still_open(void) {
    return atomic_load(&win.state) == SCOPE_TRACE_OPEN;
}

/* A slot for one event, or NULL past the cap (which ends the window). */
static rec_trace_ev *claim(uint64_t now) {
    uint64_t i = atomic_fetch_add_explicit(&win.next, 1, memory_order_relaxed);
    if (i < win.cap)
        return &win.ev[i];
    atomic_fetch_add_explicit(&win.lost, 1, memory_order_relaxed);
    end_window(SCOPE_TRACE_CAPPED, now);
    return NULL;
}

static void publish(rec_trace_ev *e, uint32_t kind, uint32_t thread, uint32_t id, uint64_t t,
                    uint64_t v) {
    e->thread = thread;
    e->id = id;
    e->t = t;
    e->v = v;
    atomic_store_explicit(&e->kind, kind, memory_order_release);
}

/* ---- the hot path's cold side ------------------------------------------------- */

void rec_trace_entered(rec_thread *t, uint32_t depth, uint32_t name) {
    uint32_t st = atomic_load_explicit(&win.state, memory_order_acquire);
    uint8_t mark = REC_TRACE_IN;
    uint64_t now = 0;
    /* Acquire: the window's fields, then its slots, are read below and by
     * the threads that see the state this thread opens. */
    if (name && name == atomic_load_explicit(&win.phase, memory_order_acquire)) {
        uint64_t k = atomic_fetch_add_explicit(&win.entries, 1, memory_order_relaxed) + 1;
        uint64_t first = atomic_load_explicit(&win.first, memory_order_relaxed);
        uint64_t last = atomic_load_explicit(&win.last, memory_order_relaxed);
        if (k < first || k > last)
            return; /* the window's own phase outside its bounds is never in it */
        if (k == first) {
            uint32_t waiting = SCOPE_TRACE_WAITING;
            now = rec_mono_ns();
            atomic_store(&win.start_ns, now);
            if (atomic_compare_exchange_strong(&win.state, &waiting, SCOPE_TRACE_OPEN)) {
                st = SCOPE_TRACE_OPEN;
                set_hot(1); /* from now on every entry and count is seen */
            }
        }
        if (k == last)
            mark = REC_TRACE_CLOSER;
    }
    if (st != SCOPE_TRACE_OPEN)
        return;
    if (!now) {
        now = rec_mono_ns();
        if (!still_open())
            return;
    }
    rec_frame *f = &t->stack[depth];
    if (f->node == &t->dropped) {
        if (mark == REC_TRACE_CLOSER)
            end_window(SCOPE_TRACE_CLOSED, now); /* no end of its own will come */
        return;
    }
    rec_trace_thread *tt = rec_trace_of(t);
    if (!tt)
        return;
    tt->t0[depth] = now;
    tt->mark[depth] = mark;
    if (f->node->cpu0 == 0)
        f->node->cpu0 = REC_CPU0_NONE; /* its exit takes the cold path, which records it */
}

void rec_trace_exited(rec_thread *t, uint32_t depth) {
    rec_trace_thread *tt = rec_trace_of(t);
    uint8_t mark = tt->mark[depth];
    tt->mark[depth] = REC_TRACE_NONE;
    uint64_t now = rec_mono_ns();
    uint64_t t0 = tt->t0[depth];
    rec_trace_ev *e = claim(now);
    if (e)
        publish(e, REC_TEV_PHASE, t->index, t->stack[depth].node->id, t0, now > t0 ? now - t0 : 0);
    if (mark == REC_TRACE_CLOSER)
        end_window(SCOPE_TRACE_CLOSED, now);
}

void rec_trace_counted(rec_thread *t, uint32_t name, int64_t value) {
    if (atomic_load_explicit(&win.state, memory_order_acquire) != SCOPE_TRACE_OPEN || !name)
        return;
    uint64_t now = rec_mono_ns();
    if (!still_open())
        return;
    rec_trace_ev *e = claim(now);
    if (e)
        publish(e, REC_TEV_COUNT, t->index, name, now, (uint64_t)value);
}

/* ---- the writer thread's side -------------------------------------------------- */

int rec_trace_window(scope_rec_trace_window *w) {
    uint32_t phase = atomic_load_explicit(&win.phase, memory_order_acquire);
    if (!phase)
        return 0;
    uint64_t next = atomic_load(&win.next);
    *w = (scope_rec_trace_window){
        .phase = phase,
        .first = atomic_load(&win.first),
        .last = atomic_load(&win.last),
        .state = atomic_load(&win.state),
        .start_mono_ns = atomic_load(&win.start_ns),
        .end_mono_ns = atomic_load(&win.end_ns),
        .events = next < win.cap ? next : win.cap,
        .cap = win.cap,
        .lost = atomic_load(&win.lost),
    };
    if (w->state == SCOPE_TRACE_WAITING)
        w->start_mono_ns = 0;
    return 1;
}

uint64_t rec_trace_ready(uint64_t from) {
    if (!atomic_load_explicit(&win.phase, memory_order_acquire))
        return from; /* none, or not whole yet: cap and slots are not to be read */
    uint64_t next = atomic_load_explicit(&win.next, memory_order_relaxed);
    uint64_t end = next < win.cap ? next : win.cap;
    while (from < end && atomic_load_explicit(&win.ev[from].kind, memory_order_acquire))
        from++;
    return from;
}

const rec_trace_ev *rec_trace_slot(uint64_t i) {
    return &win.ev[i];
}

void rec_trace_fork_child(void) {
    if (!atomic_load(&win.phase))
        return;
    /* Fresh slots: the parent's published ones must not read as the
     * child's, and clearing them would copy every page the parent used. */
    void *p = mmap(NULL, win.cap * sizeof(rec_trace_ev), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        atomic_store(&win.phase, 0); /* no window in this child */
        set_hot(0);
        return;
    }
    munmap(win.ev, win.cap * sizeof(rec_trace_ev));
    win.ev = p;
    atomic_store(&win.next, 0);
    atomic_store(&win.lost, 0);
    atomic_store(&win.entries, 0);
    atomic_store(&win.start_ns, 0);
    atomic_store(&win.end_ns, 0);
    atomic_store(&win.state, SCOPE_TRACE_WAITING);
    /* Every node of the child is new, so each knows whether to count. */
    win.every_entry = 0;
    set_hot(0);
    atomic_store(&win.arming, 0); /* a thread the fork left behind was setting it */
}
