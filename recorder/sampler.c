/*
 * The line sampler's signal side (sampler.h): the SIGPROF handler, the
 * per-thread timers and the slot table.
 *
 * The handler is async-signal-safe: it reads the pc from the ucontext,
 * unwinds with libunwind from that ucontext (CFI, so a leaf built without
 * frame pointers, libm's, still reaches its caller), reads the thread's
 * innermost phase from its phase stack, and stores all of it in the slot's
 * preallocated ring.  No malloc, lock or stdio; errno is kept.
 *
 * The unwinder looks a pc's module up with dl_iterate_phdr when its caches
 * miss, and the real one takes the dynamic loader's lock.  A handler that
 * waits for that lock while its own thread was interrupted holding
 * something the lock's holder needs (malloc's lock, inside a dlopen on
 * another thread, say) would never return.  So libscope defines
 * dl_iterate_phdr: outside the handler it is the C library's; inside, it
 * walks a copy of the module list taken outside any handler (at install
 * and whenever the loader's counters change), and takes no lock.  The copy
 * holds the program headers themselves, not pointers into modules, so a
 * module unloaded since is at worst not found.  Copies are swapped with an
 * atomic pointer; an old one is freed once no handler is inside a walk.
 */
#define _GNU_SOURCE
#include "sampler.h"

#include "clock.h"
#include "lock.h"
#include "own_fd.h"
#include "run_delay.h"
#include "thread.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <scope/log_format.h>
#include <scope/vec.h>

#ifdef SCOPE_HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

rec_lines_settings rec_lines_cfg = {.hz = 997, .period_ns = 1000000000ull / 997};
_Atomic int rec_lines_active, rec_lines_began;
_Atomic uint32_t rec_lines_flags;
_Atomic uint32_t rec_lines_threads, rec_lines_threads_failed;

/* The sampler's state, one place to read: what the handler reads is
 * atomic, the rest is under `lock`. */
static struct sampler_state {
    rec_lock lock;
    _Atomic(rec_lines_slot *) slots[REC_LINES_MAX_THREADS];
    _Atomic uint32_t nslots;
    _Atomic int installed;
    _Atomic int handlers_active; /* handlers unwinding now */
    _Atomic int forking;         /* a fork is under way: handlers do not unwind */
    /* The module list the handler walks (below): the loader's own
     * dl_iterate_phdr, the list now, and lists retired. */
    int (*real_iterate)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
    _Atomic(struct phdr_list *) phdr_now;
    struct phdr_list *phdr_retired;
    /* libunwind's pipe (pipe2 below): its ends, and each end's file. */
    _Atomic int pipe_fd[2];
    _Atomic uint64_t pipe_dev[2], pipe_ino[2];
    /* One handler at a time may have libunwind make the pipe: libunwind
     * closes both ends before it makes a new pair, and two threads doing
     * so at once closed each other's read end under a write, which raised
     * SIGPIPE and ended the program (test_recorder_fork_lines, under ASan
     * and load). */
    atomic_flag pipe_making;
} sampler = {
    .lock = REC_LOCK_INIT,
    .pipe_fd = {-1, -1},
    .pipe_making = ATOMIC_FLAG_INIT,
};

static __thread int in_handler __attribute__((tls_model("initial-exec")));
/* Inside libunwind on libscope's behalf: in the handler, or warming up. */
static __thread int in_unwinder __attribute__((tls_model("initial-exec")));

static pid_t self_tid(void) {
    return (pid_t)syscall(SYS_gettid);
}

void rec_sampler_lock(void) {
    rec_lock_take(&sampler.lock);
}

void rec_sampler_unlock(void) {
    rec_lock_give(&sampler.lock);
}

int rec_sampler_lock_for_fork(uint64_t deadline_ns) {
    return rec_lock_for_fork(&sampler.lock, deadline_ns);
}

void rec_sampler_reset_lock(void) {
    rec_lock_reset(&sampler.lock);
}

/* ---- the handler -------------------------------------------------------- */

static uintptr_t context_pc(const ucontext_t *uc) {
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

enum { PIPE_UNSAFE, PIPE_INTACT, PIPE_TO_MAKE };
static int unwinder_pipe_state(void); /* libunwind's pipe, below */
static void unwinder_pipe_release(int state);

/* The interrupted stack, innermost first, into pc[0 .. max).  Returns the
 * number of frames; *cut is set when frames were left out. */
static uint32_t unwind(ucontext_t *uc, uintptr_t *pc, uint32_t max, int *cut) {
    pc[0] = context_pc(uc);
    *cut = 0;
#ifdef SCOPE_HAVE_LIBUNWIND
    atomic_fetch_add(&sampler.handlers_active, 1);
    if (atomic_load(&sampler.forking)) {
        atomic_fetch_sub(&sampler.handlers_active, 1);
        *cut = 1;
        return 1;
    }
    in_handler = in_unwinder = 1;
    unw_cursor_t c;
    uint32_t n = 1;
    int pipe_state = unwinder_pipe_state();
    if (pipe_state == PIPE_UNSAFE)
        *cut = 1; /* the program holds a file where libunwind's pipe was */
    /* unw_context_t is a ucontext_t on this target: the signal's own. */
    else if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
        int step;
        while ((step = unw_step(&c)) > 0) {
            unw_word_t ip;
            if (n == max) {
                *cut = 1;
                break;
            }
            if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
                break;
            pc[n++] = (uintptr_t)ip;
        }
    }
    in_handler = in_unwinder = 0;
    unwinder_pipe_release(pipe_state);
    atomic_fetch_sub(&sampler.handlers_active, 1);
    return n;
#else
    (void)max;
    return 1;
#endif
}

/* ---- on-CPU or off it (wall clock) --------------------------------------- */

/* Whether the signal woke the thread out of a blocking system call: the
 * kernel, delivering a handler's signal to a thread asleep in one, either
 * fails the call with EINTR (the pc just after the instruction that made
 * it) or, for a call SA_RESTART restarts, backs the pc up onto that
 * instruction.  A thread the timer found running is anywhere else, but
 * for the one instruction before a system call.  The instruction's bytes
 * are read only within the page the pc is on, which is mapped. */
static __attribute__((no_sanitize_address)) int woke_from_syscall(const ucontext_t *uc) {
#if defined(__x86_64__)
    const volatile uint8_t *pc = (const uint8_t *)uc->uc_mcontext.gregs[REG_RIP];
    long ret = (long)uc->uc_mcontext.gregs[REG_RAX];
    uintptr_t in_page = (uintptr_t)pc & 0xfff;
    if (ret == -EINTR && in_page >= 2 && pc[-2] == 0x0f && pc[-1] == 0x05)
        return 1; /* syscall: 0f 05 */
    return in_page <= 0xffe && pc[0] == 0x0f && pc[1] == 0x05;
#elif defined(__aarch64__)
    const volatile uint32_t *pc = (const uint32_t *)uc->uc_mcontext.pc;
    long ret = (long)uc->uc_mcontext.regs[0];
    uintptr_t in_page = (uintptr_t)pc & 0xfff;
    if (ret == -EINTR && in_page >= 4 && pc[-1] == 0xd4000001u)
        return 1; /* svc #0 */
    return pc[0] == 0xd4000001u;
#else
    (void)uc;
    return 0;
#endif
}

/* The thread's run delay (the time it waited, runnable, for a CPU), or
 * REC_DELAY_NONE.  Async-signal-safe: a check and a read. */
static uint64_t read_run_delay(rec_lines_slot *s) {
    return rec_fd_check(&s->sched_fd) ? rec_run_delay_read_fd(s->sched_fd.fd) : REC_DELAY_NONE;
}

/* How often the calling thread has gone to sleep: its voluntary context
 * switches (a thread that waits for a CPU is switched out involuntarily,
 * one that blocks switches itself out).  UINT64_MAX when unknown. */
static uint64_t thread_sleeps(void) {
    struct rusage ru;
    if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
        return UINT64_MAX;
    return (uint64_t)ru.ru_nvcsw;
}

static uint64_t thread_cpu_ns(clockid_t clk) {
    struct timespec ts;
    if (clock_gettime(clk, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What a wall-clock sample found the thread doing.  Woken out of a
 * blocking system call: blocked, at that instant.  Else by its clocks
 * since its previous sample (one period, or a few with overruns): on a
 * CPU when it ran for at least half that wall time.  Off it otherwise, and
 * then blocked when it went to sleep (a wait the signal could not cut
 * short: a page read from disk, a call in uninterruptible sleep) and most
 * of its time off was not run delay; else queued: runnable, waiting for a
 * CPU, its kernel's (run delay) or, in a virtual machine, its host's
 * (steal time, which no clock of the thread's counts).  The sleeps and the
 * run delay are read only for such a sample (most are on a CPU or in a
 * system call), so they count since the previous such sample: a thread that slept
 * since then went to sleep at some point, and its run delay only adds
 * up.  Two system calls for a sample on a CPU, four for one off it, beside
 * the unwind (bench/bench_offcpu.sh). */
static uint32_t sample_state(rec_lines_slot *s, const ucontext_t *uc) {
    uint64_t mono = rec_mono_ns();
    uint64_t cpu = thread_cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    uint64_t wall = mono > s->prev_mono ? mono - s->prev_mono : 0;
    uint64_t ran = cpu > s->prev_cpu ? cpu - s->prev_cpu : 0;
    s->prev_mono = mono;
    s->prev_cpu = cpu;
    if (woke_from_syscall(uc))
        return SCOPE_CPU_BLOCKED;
    if (2 * ran >= wall)
        return SCOPE_CPU_ON;
    uint64_t off = wall - ran;
    uint64_t delay = read_run_delay(s);
    uint64_t sleeps = thread_sleeps();
    uint64_t queued =
        delay != REC_DELAY_NONE && s->prev_delay != REC_DELAY_NONE && delay >= s->prev_delay
            ? delay - s->prev_delay
            : 0;
    /* Unknown counts read as a sleep: the run delay alone decides. */
    int slept = sleeps == UINT64_MAX || s->prev_sleeps == UINT64_MAX || sleeps > s->prev_sleeps;
    s->prev_delay = delay;
    s->prev_sleeps = sleeps;
    return slept && 2 * queued < off ? SCOPE_CPU_BLOCKED : SCOPE_CPU_QUEUED;
}

static void on_sigprof(int sig, siginfo_t *si, void *ctx) {
    (void)sig;
    int saved = errno;
    if (si->si_code != SI_TIMER)
        goto out;
    uint32_t no = (uint32_t)si->si_value.sival_int - 1u;
    if (no >= REC_LINES_MAX_THREADS)
        goto out;
    rec_lines_slot *s = atomic_load_explicit(&sampler.slots[no], memory_order_acquire);
    if (!s || atomic_load_explicit(&s->tid, memory_order_relaxed) != self_tid() || !s->ring)
        goto out;
    int over = timer_getoverrun(s->timer);
    uint64_t w = 1 + (over > 0 ? (uint64_t)over : 0);
    atomic_fetch_add_explicit(&s->taken, w, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
    if (head - atomic_load_explicit(&s->tail, memory_order_acquire) >= REC_LINES_RING) {
        atomic_fetch_add_explicit(&s->dropped, w, memory_order_relaxed);
        goto out;
    }
    rec_lines_sample *e = &s->ring[head % REC_LINES_RING];
    e->weight = (uint32_t)(w < UINT32_MAX ? w : UINT32_MAX);
    e->state = rec_lines_cfg.clock == SCOPE_LINES_CLOCK_WALL ? sample_state(s, ctx) : SCOPE_CPU_ON;
    /* The phase stack as this thread left it: a push stores the frame's
     * node before the depth, a pop lowers the depth first, so stack[depth]
     * is always a node that was open (at worst the one just closing). */
    rec_thread *t = rec_self;
    e->thread = 0;
    e->node = 0;
    if (rec_attached(t)) {
        uint32_t d = rec_relaxed_load(&t->depth);
        if (d >= REC_MAX_DEPTH)
            d = REC_MAX_DEPTH - 1;
        rec_node *n = rec_relaxed_load(&t->stack[d].node);
        e->thread = t->index;
        e->node = n ? n->id : 0;
    }
    int cut;
    e->nframes = unwind((ucontext_t *)ctx, e->pc, REC_LINES_MAX_FRAMES, &cut);
    if (cut)
        atomic_fetch_add_explicit(&s->truncated, 1, memory_order_relaxed);
    atomic_store_explicit(&s->head, head + 1, memory_order_release);
out:
    errno = saved;
}

/* libunwind's caches are guarded by a mutex it takes with signals blocked;
 * a fork while another thread's handler holds it would leave it held in
 * the child, whose first unwind would then wait for ever.  So the fork
 * waits (boundedly) for the handlers unwinding now, and handlers that start
 * meanwhile keep the sampled pc alone. */
void rec_sampler_fork_prepare(uint64_t deadline_ns) {
    atomic_store(&sampler.forking, 1);
    while (atomic_load(&sampler.handlers_active) > 0 && rec_mono_ns() < deadline_ns)
        sched_yield();
}

void rec_sampler_fork_done(void) {
    atomic_store(&sampler.forking, 0);
}

/* ---- the module list the handler walks --------------------------------- */

typedef struct phdr_copy {
    struct dl_phdr_info info; /* dlpi_phdr points into phdrs below */
    ElfW(Phdr) * phdrs;
} phdr_copy;

typedef struct phdr_list {
    uint32_t n, cap;
    phdr_copy *mods;
    struct phdr_list *next_free; /* retired, waiting for no handler to be inside */
} phdr_list;

typedef int (*iterate_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);

/* The sanitizers' runtimes call dl_iterate_phdr while they start, before
 * their shadow memory exists: this path must not be instrumented. */
#define NO_SANITIZE __attribute__((no_sanitize_address, no_sanitize_thread, no_sanitize_undefined))

static NO_SANITIZE iterate_fn real_dl_iterate_phdr(void) {
    if (!sampler.real_iterate)
        sampler.real_iterate = (iterate_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
    return sampler.real_iterate;
}

static void free_list(phdr_list *l) {
    for (uint32_t i = 0; l && i < l->n; i++)
        free(l->mods[i].phdrs);
    if (l)
        free(l->mods);
    free(l);
}

static int copy_one(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    phdr_list *l = arg;
    if (SCOPE_VEC_RESERVE(l->mods, l->cap, (size_t)l->n + 1) < 0)
        return 1;
    phdr_copy *m = l->mods;
    ElfW(Phdr) *ph = malloc(info->dlpi_phnum * sizeof *ph);
    if (!ph)
        return 1;
    memcpy(ph, info->dlpi_phdr, info->dlpi_phnum * sizeof *ph);
    m[l->n].info = (struct dl_phdr_info){.dlpi_addr = info->dlpi_addr,
                                         .dlpi_name = "",
                                         .dlpi_phdr = ph,
                                         .dlpi_phnum = info->dlpi_phnum};
    m[l->n].phdrs = ph;
    l->n++;
    return 0;
}

void rec_sampler_modules_changed(void) {
    iterate_fn real = real_dl_iterate_phdr();
    phdr_list *l = calloc(1, sizeof *l);
    if (!real || !l) {
        free(l);
        return;
    }
    real(copy_one, l);
    phdr_list *old = atomic_exchange(&sampler.phdr_now, l);
    if (old) {
        old->next_free = sampler.phdr_retired;
        sampler.phdr_retired = old;
    }
    /* A handler that could hold a retired copy incremented handlers_active
     * before it loaded phdr_now. */
    if (atomic_load(&sampler.handlers_active) == 0) {
        while (sampler.phdr_retired) {
            phdr_list *next = sampler.phdr_retired->next_free;
            free_list(sampler.phdr_retired);
            sampler.phdr_retired = next;
        }
    }
}

SCOPE_API NO_SANITIZE int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *),
                                          void *data) {
    if (in_handler) {
        phdr_list *l = atomic_load(&sampler.phdr_now);
        int rc = 0;
        for (uint32_t i = 0; l && i < l->n && !rc; i++) {
            struct dl_phdr_info info = l->mods[i].info;
            rc = cb(&info, offsetof(struct dl_phdr_info, dlpi_adds), data);
        }
        return rc;
    }
    iterate_fn real = real_dl_iterate_phdr();
    return real ? real(cb, data) : 0;
}

/* ---- libunwind's pipe -------------------------------------------------------- */

/* libunwind tells whether it may read an address it is unsure of (a frame
 * without unwind information, libm's exp() for one, followed by its frame
 * pointer) by writing a byte from it into a pipe it keeps: two descriptors
 * it reads, writes, closes and makes again with no check that they are
 * still its own.  A program that closes every descriptor and opens files,
 * or dup2()s one over them, would get bytes of its memory written into its
 * files, and its descriptors closed.  So for libscope's unwinds the pipe
 * is libscope's (own_fd.h):
 *   - not made when libunwind starts (pipe2 fails then, EMFILE), but the
 *     first time a stack needs it, from the handler: a process whose
 *     stacks never leave code with unwind information holds none;
 *   - moved high when it is made;
 *   - checked before each unwind: each end must still be the pipe, or a
 *     number nobody holds (libunwind then finds it closed and makes a new
 *     one).  An end the program holds another file on leaves the sample
 *     without its stack (the pc alone, marked cut), until it is free again.
 * Everyone else's pipe2 is the system call itself, as the C library's is. */
SCOPE_API NO_SANITIZE int pipe2(int fds[2], int flags) {
    if (in_unwinder && !in_handler) {
        errno = EMFILE;
        return -1;
    }
    if (syscall(SYS_pipe2, fds, flags) != 0)
        return -1;
    if (in_handler) {
        for (int i = 0; i < 2; i++) {
            rec_fd own;
            if ((fds[i] = rec_fd_take(&own, fds[i])) < 0) {
                if (i == 1)
                    close(fds[0]);
                errno = EMFILE;
                return -1;
            }
            atomic_store(&sampler.pipe_fd[i], -1);
            atomic_store(&sampler.pipe_dev[i], (uint64_t)own.dev);
            atomic_store(&sampler.pipe_ino[i], (uint64_t)own.ino);
            atomic_store(&sampler.pipe_fd[i], own.fd);
        }
    }
    return 0;
}

/* Whether libunwind may use the pipe it has: PIPE_INTACT when both ends are
 * the pipe made for it; PIPE_TO_MAKE when both are free (none made yet, or
 * the program closed them: libunwind makes a new pair), and this handler
 * holds pipe_making; else PIPE_UNSAFE: an end holds another file, one end
 * alone is left (a write into a pipe with no reader raises SIGPIPE), or
 * another handler is making the pipe for longer than a few yields.  Two fstat calls once there is
 * one; none before. */
static int unwinder_pipe_state(void) {
    int free_ends = 0;
    for (int i = 0; i < 2; i++) {
        int fd = atomic_load(&sampler.pipe_fd[i]);
        struct stat st;
        if (fd < 0) {
            free_ends++;
            continue;
        }
        if (fstat(fd, &st) != 0) {
            if (errno != EBADF)
                return PIPE_UNSAFE;
            free_ends++;
            continue;
        }
        if ((uint64_t)st.st_dev != atomic_load(&sampler.pipe_dev[i]) ||
            (uint64_t)st.st_ino != atomic_load(&sampler.pipe_ino[i]))
            return PIPE_UNSAFE;
    }
    if (free_ends == 0)
        return PIPE_INTACT;
    if (free_ends == 1)
        return PIPE_UNSAFE;
    /* Another handler holds it for the length of one unwind: wait a little
     * (it may have been preempted), then keep this sample's pc alone. */
    for (int tries = 0; tries < 64; tries++) {
        if (!atomic_flag_test_and_set(&sampler.pipe_making))
            return PIPE_TO_MAKE;
        sched_yield();
    }
    return PIPE_UNSAFE;
}

static void unwinder_pipe_release(int state) {
    if (state == PIPE_TO_MAKE)
        atomic_flag_clear(&sampler.pipe_making);
}

/* ---- installing ----------------------------------------------------------- */

int rec_sampler_handler_ours(void) {
    struct sigaction cur;
    if (sigaction(REC_LINES_SIGNAL, NULL, &cur) != 0)
        return 0;
    return (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigprof;
}

/* One unwind of this thread, outside any handler: libunwind sets itself up
 * (and allocates) on its first use, which must not happen in a handler. */
static void warm_up(void) {
#ifdef SCOPE_HAVE_LIBUNWIND
    unw_context_t uc;
    unw_cursor_t c;
    in_unwinder = 1;
    if (unw_getcontext(&uc) == 0 && unw_init_local(&c, &uc) == 0)
        while (unw_step(&c) > 0)
            ;
    in_unwinder = 0;
#else
    atomic_fetch_or(&rec_lines_flags, SCOPE_LINES_F_NO_UNWIND);
#endif
}

int rec_sampler_install(void) {
    if (atomic_load(&sampler.installed))
        return rec_sampler_handler_ours() ? 0 : -1;
    struct sigaction cur;
    if (sigaction(REC_LINES_SIGNAL, NULL, &cur) == 0 &&
        ((cur.sa_flags & SA_SIGINFO) ? cur.sa_sigaction != NULL : cur.sa_handler != SIG_DFL)) {
        /* The program's own profiler (or an ignored SIGPROF): leave it be. */
        atomic_fetch_or(&rec_lines_flags, SCOPE_LINES_F_FOREIGN);
        return -1;
    }
    rec_sampler_modules_changed();
    warm_up();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigprof;
    /* SA_RESTART: a system call the sample interrupted goes on as if the
     * signal had not come. */
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(REC_LINES_SIGNAL, &sa, NULL) != 0)
        return -1;
    atomic_store(&sampler.installed, 1);
    return 0;
}

/* ---- slots and timers ------------------------------------------------------- */

rec_lines_slot *rec_sampler_slot(uint32_t i) {
    return i < REC_LINES_MAX_THREADS ? atomic_load_explicit(&sampler.slots[i], memory_order_acquire)
                                     : NULL;
}

uint32_t rec_sampler_nslots(void) {
    return atomic_load_explicit(&sampler.nslots, memory_order_acquire);
}

rec_lines_slot *rec_sampler_slot_self(void) {
    pid_t tid = self_tid();
    uint32_t n = rec_sampler_nslots();
    rec_lines_slot *free_slot = NULL;
    for (uint32_t i = 0; i < n; i++) {
        rec_lines_slot *s = sampler.slots[i];
        pid_t st = atomic_load_explicit(&s->tid, memory_order_relaxed);
        if (st == tid && !s->dead)
            return s;
        if (st == 0 && !free_slot)
            free_slot = s;
    }
    rec_lines_slot *s = free_slot;
    if (!s) {
        if (n >= REC_LINES_MAX_THREADS || !(s = calloc(1, sizeof *s))) {
            atomic_fetch_add(&rec_lines_threads_failed, 1);
            return NULL;
        }
        s->sched_fd = REC_FD_NONE;
        s->no = n;
        atomic_store_explicit(&sampler.slots[n], s, memory_order_release);
        atomic_store_explicit(&sampler.nslots, n + 1, memory_order_release);
    }
    s->thread = pthread_self();
    s->dead = 0;
    s->armed = 0;
    s->counted = 0;
    s->check_started = 0;
    atomic_store_explicit(&s->tid, tid, memory_order_release);
    return s;
}

/* A uniform point of (0, period]: short-lived threads get their share. */
static uint64_t first_expiry(uint64_t period) {
    static _Atomic uint64_t seed;
    uint64_t x = atomic_fetch_add(&seed, 0x9E3779B97F4A7C15ull) ^ (uint64_t)self_tid() ^
                 (uint64_t)(uintptr_t)&x;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    x ^= (uint64_t)ts.tv_nsec * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    return 1 + x % period;
}

static struct timespec ts_of(uint64_t ns) {
    return (struct timespec){(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
}

/* The thread's schedstat descriptor goes, and its place among those held
 * (run_delay.h) with it. */
static void drop_sched_fd(rec_lines_slot *s) {
    if (!s->sched_held)
        return;
    rec_fd_close(&s->sched_fd);
    rec_run_delay_release();
    s->sched_held = 0;
}

/* The thread's clocks before its first wall-clock sample, and its
 * schedstat held (own_fd.h) for the handler to read: one of the
 * descriptors run_delay.c bounds, else its samples off a CPU are told
 * blocked or queued without the run delay (sample_state). */
static void start_clocks(rec_lines_slot *s) {
    if (!s->sched_held && rec_run_delay_hold()) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)atomic_load(&s->tid));
        s->sched_held = 1;
        if (rec_fd_open(&s->sched_fd, path) < 0) {
            s->sched_fd = REC_FD_NONE;
            drop_sched_fd(s);
        }
    }
    clockid_t clk;
    s->prev_mono = rec_mono_ns();
    s->prev_cpu = pthread_getcpuclockid(s->thread, &clk) == 0 ? thread_cpu_ns(clk) : 0;
    s->prev_delay = read_run_delay(s);
    /* Another thread's context switches are not getrusage's to give: its
     * first sample has no count to compare with, and reads it as a sleep. */
    s->prev_sleeps = UINT64_MAX;
}

int rec_sampler_arm(rec_lines_slot *s) {
    if (s->armed || s->dead)
        return 0;
    if (!s->ring && !(s->ring = calloc(REC_LINES_RING, sizeof *s->ring)))
        goto fail;
    clockid_t clk = CLOCK_MONOTONIC;
    if (rec_lines_cfg.clock == SCOPE_LINES_CLOCK_CPU && pthread_getcpuclockid(s->thread, &clk) != 0)
        goto fail;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = REC_LINES_SIGNAL;
    ev.sigev_value.sival_int = (int)s->no + 1;
    ev._sigev_un._tid = atomic_load(&s->tid);
    if (timer_create(clk, &ev, &s->timer) != 0)
        goto fail;
    if (rec_lines_cfg.clock == SCOPE_LINES_CLOCK_WALL)
        start_clocks(s);
    uint64_t period = rec_lines_cfg.period_ns;
    struct itimerspec its = {ts_of(period), ts_of(first_expiry(period))};
    if (timer_settime(s->timer, 0, &its, NULL) != 0) {
        timer_delete(s->timer);
        goto fail;
    }
    s->armed = 1;
    if (!s->counted++)
        atomic_fetch_add(&rec_lines_threads, 1);
    return 0;
fail:
    atomic_fetch_add(&rec_lines_threads_failed, 1);
    return -1;
}

void rec_sampler_disarm(rec_lines_slot *s) {
    if (!s->armed)
        return;
    timer_delete(s->timer);
    s->armed = 0;
}

void rec_sampler_thread_ended(rec_lines_slot *s) {
    rec_sampler_disarm(s);
    /* On the thread itself (its exit destructor), after its timer is gone
     * and any signal it had pending handled: no handler reads it after. */
    drop_sched_fd(s);
    s->dead = 1;
}

void rec_sampler_recycle(rec_lines_slot *s) {
    if (s->dead && atomic_load(&s->head) == atomic_load(&s->tail)) {
        s->dead = 0;
        atomic_store_explicit(&s->tid, 0, memory_order_release);
    }
}

void rec_sampler_fork_child(void) {
    pid_t tid = self_tid();
    uint32_t n = rec_sampler_nslots();
    for (uint32_t i = 0; i < n; i++) {
        rec_lines_slot *s = sampler.slots[i];
        s->armed = 0; /* timers are not inherited */
        /* The parent's thread's schedstat: ours still, but not this
         * process's thread's (it is opened again when armed). */
        drop_sched_fd(s);
        s->counted = 0;
        s->dead = 0;
        atomic_store(&s->head, 0);
        atomic_store(&s->tail, 0);
        atomic_store(&s->taken, 0);
        atomic_store(&s->dropped, 0);
        atomic_store(&s->truncated, 0);
        s->check_started = 0;
        s->seen_taken = s->seen_dropped = s->seen_cut = 0;
        /* The forking thread keeps its pthread_t but not its thread id. */
        int mine = atomic_load(&s->tid) != 0 && pthread_equal(s->thread, pthread_self());
        atomic_store(&s->tid, mine ? tid : 0);
    }
    atomic_store(&sampler.handlers_active, 0);
    atomic_store(&sampler.forking, 0);
    atomic_store(&rec_lines_threads, 0);
    atomic_store(&rec_lines_threads_failed, 0);
}
