/*
 * Line sampling, the public side: SCOPE_LINES=1 (the whole life of the
 * process), scope_lines_begin / scope_lines_end (a stretch, nestable, from
 * any thread), the in-process tables, and what keeps every thread sampled:
 * libscope's pthread_create, which registers each new thread (and arms its
 * timer while sampling is on), a thread-exit destructor that stops it, the
 * fork handlers, and the drainer thread that empties the threads' rings
 * into the store every DRAIN_NS.
 *
 * The signal side is sampler.c, the memory lines_store.c, the log's
 * records source_lines.c.  Symbolizing is not done here: the tables are
 * drawn by SCOPE_LINES_RENDER_LIB (scope/lines_render.h), loaded on the
 * first print, so a program that never prints pays nothing for it.
 */
#define _GNU_SOURCE
#include "clock.h"
#include "lifecycle.h"
#include "lines_store.h"
#include "own_thread.h"
#include "sampler.h"
#include "sources.h"
#include "state.h"
#include "thread.h"
#include "warn.h"

#include <scope/lines_render.h>
#include <scope/scope.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DRAIN_NS 20000000ull /* rings of 128 last 128 ms at 1,000 samples/s */
/* 997 a second of each thread's CPU time: a 0.4 s run gets some 400
 * samples (±2.5 % on a 50 % share) where 99 gave 40, at well under 1 % of
 * the CPU (bench/bench_lines.sh; docs/recorder.md 16.6).  A prime, so the
 * samples do not fall in step with work that repeats every 1 or 10 ms. */
#define DEFAULT_HZ   997u
#define MAX_HZ       10000u
#define FORK_WAIT_NS 1000000000ull

/* The public side's state: one place to read. */
static struct lines_state {
    /* Under the sampler's lock. */
    int whole_life;      /* SCOPE_LINES=1 */
    uint32_t depth;      /* open scope_lines_begin calls */
    int drainer_running; /* the drainer thread exists */
    int settings_read;
    /* The key whose destructor sees a sampled thread end. */
    pthread_key_t exit_key;
    pthread_once_t exit_key_once;
    /* The in-process tables' renderer, loaded on the first print, or why
     * it could not be. */
    scope_lines_render_fn renderer;
    char renderer_error[600];
} state = {.exit_key_once = PTHREAD_ONCE_INIT};

/* ---- settings ------------------------------------------------------------ */

/* rec_warn honours SCOPE_QUIET once the recorder has started; the sampler
 * also runs without it.  with: rec_warn, or rec_warn_setting for a setting
 * that does not parse (once per run). */
#define lines_warn_with(with, ...)                                                                 \
    do {                                                                                           \
        const char *q_ = getenv("SCOPE_QUIET");                                                    \
        if (!q_ || !*q_ || !strcmp(q_, "0"))                                                       \
            with(__VA_ARGS__);                                                                     \
    } while (0)
#define lines_warn(...)         lines_warn_with(rec_warn, __VA_ARGS__)
#define lines_warn_setting(...) lines_warn_with(rec_warn_setting, __VA_ARGS__)

static int env_on(const char *v) {
    return v && (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
                 !strcasecmp(v, "on"));
}

/* The git root of the working directory (the nearest folder above it that
 * holds .git), else the working directory. */
static void default_project(char *out, size_t cap) {
    char dir[PATH_MAX];
    if (!getcwd(dir, sizeof dir)) {
        snprintf(out, cap, ".");
        return;
    }
    snprintf(out, cap, "%s", dir);
    for (;;) {
        char probe[PATH_MAX + 8];
        snprintf(probe, sizeof probe, "%s/.git", dir);
        if (access(probe, F_OK) == 0) {
            snprintf(out, cap, "%s", dir);
            return;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return;
        *slash = '\0';
    }
}

static void set_project(const char *dir) {
    char real[PATH_MAX];
    if (dir && *dir) {
        snprintf(rec_lines_cfg.project, sizeof rec_lines_cfg.project, "%s",
                 realpath(dir, real) ? real : dir);
        return;
    }
    const char *env = getenv("SCOPE_LINES_PROJECT");
    if (env && *env)
        set_project(env);
    else
        default_project(rec_lines_cfg.project, sizeof rec_lines_cfg.project);
}

/* The rate and clock, once: they are fixed while any timer runs. */
static void read_settings(void) {
    if (state.settings_read)
        return;
    state.settings_read = 1;
    const char *v = getenv("SCOPE_LINES_HZ");
    uint32_t hz = DEFAULT_HZ;
    if (v && *v) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(v, &end, 10);
        if (errno || end == v || *end || n < 1 || n > MAX_HZ)
            lines_warn_setting(
                "SCOPE_LINES_HZ='%.40s' is not a rate in 1..%u per second; sampling at %u", v,
                MAX_HZ, DEFAULT_HZ);
        else
            hz = (uint32_t)n;
    }
    rec_lines_cfg.hz = hz;
    rec_lines_cfg.period_ns = 1000000000ull / hz;
    rec_lines_cfg.clock = SCOPE_LINES_CLOCK_CPU;
    v = getenv("SCOPE_LINES_CLOCK");
    if (v && *v) {
        if (!strcmp(v, "wall"))
            rec_lines_cfg.clock = SCOPE_LINES_CLOCK_WALL;
        else if (strcmp(v, "cpu") != 0)
            lines_warn_setting("SCOPE_LINES_CLOCK='%.40s' is not cpu or wall; sampling CPU time",
                               v);
    }
}

/* ---- the drainer ------------------------------------------------------------ */

static int sampling_on(void) {
    return atomic_load(&rec_lines_active);
}

static void stop_locked(void);

static void *drainer_main(void *arg) {
    (void)arg;
    for (;;) {
        struct timespec ts = {0, (long)DRAIN_NS};
        nanosleep(&ts, NULL);
        rec_lines_store_scan_modules(1);
        rec_sampler_lock();
        rec_lines_store_drain();
        if (sampling_on() && !rec_sampler_handler_ours()) {
            /* The program put its own SIGPROF handler in: our timers would
             * feed it signals it did not ask for.  Sampling ends here. */
            atomic_fetch_or(&rec_lines_flags, SCOPE_LINES_F_FOREIGN);
            lines_warn("the program installed its own SIGPROF handler: line sampling stops");
            stop_locked();
        }
        if (!sampling_on()) {
            state.drainer_running = 0;
            rec_sampler_unlock();
            return NULL;
        }
        rec_sampler_unlock();
    }
}

static void start_drainer_locked(void) {
    if (state.drainer_running)
        return;
    pthread_t th;
    /* Like the writer, it takes no signal of the program's, and it is
     * libscope's own: not a thread the sampler follows. */
    if (rec_own_thread_start(&th, 1, drainer_main, NULL) == 0)
        state.drainer_running = 1;
}

/* ---- threads ---------------------------------------------------------------- */

/* The slot is free at once when its ring holds nothing (always, while
 * nothing samples), else once the drainer has emptied it. */
static void on_thread_exit(void *arg) {
    rec_sampler_lock();
    rec_sampler_thread_ended(arg);
    rec_sampler_recycle(arg);
    rec_sampler_unlock();
}

static void make_exit_key(void) {
    (void)pthread_key_create(&state.exit_key, on_thread_exit);
}

/* The calling thread's slot, armed while sampling is on.  Lock held. */
static rec_lines_slot *join_locked(void) {
    pthread_once(&state.exit_key_once, make_exit_key);
    rec_lines_slot *s = rec_sampler_slot_self();
    if (!s)
        return NULL;
    (void)pthread_setspecific(state.exit_key, s);
    if (sampling_on()) {
        sigset_t mask;
        if (pthread_sigmask(SIG_BLOCK, NULL, &mask) == 0 && sigismember(&mask, REC_LINES_SIGNAL))
            atomic_fetch_or(&rec_lines_flags, SCOPE_LINES_F_BLOCKED);
        rec_sampler_arm(s);
    }
    return s;
}

/* A sampled thread gets a thread index of its own, so its samples are its
 * own even if it never enters a phase.  Like a phase, this starts the
 * recorder when the environment asks for it (SCOPE_PROFILE=1). */
static void attach_to_recorder(void) {
    if (rec_state_get() == REC_UNKNOWN)
        rec_first_use();
    if (rec_state_get() == REC_ON && !rec_attached(rec_self))
        (void)rec_sources_attach_self();
}

#if !defined(__SANITIZE_THREAD__)
typedef struct thread_start {
    void *(*fn)(void *);
    void *arg;
} thread_start;

static void *start_thread(void *p) {
    thread_start st = *(thread_start *)p;
    free(p);
    rec_sampler_lock();
    join_locked();
    int on = sampling_on();
    rec_sampler_unlock();
    if (on)
        attach_to_recorder();
    return st.fn(st.arg);
}

/* Every thread the program starts passes here, so the sampler knows it
 * from its first instruction, whether it ever calls libscope or not.
 * Not in a ThreadSanitizer build: its runtime's pthread_create calls this
 * one, and start_thread would then run before the runtime has set the new
 * thread up.  There a thread is sampled once it calls scope_lines_begin. */
SCOPE_API int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                             void *arg) {
    rec_pthread_create_fn real = rec_pthread_create_real();
    if (!real)
        return EAGAIN;
    thread_start *st = malloc(sizeof *st);
    if (!st)
        return real(th, attr, fn, arg);
    *st = (thread_start){fn, arg};
    int rc = real(th, attr, start_thread, st);
    if (rc != 0)
        free(st);
    return rc;
}
#endif

/* ---- starting and stopping ---------------------------------------------------- */

static int start_locked(const char *project) {
    read_settings();
    if (project || !rec_lines_cfg.project[0])
        set_project(project);
    if (sampling_on())
        return 0;
    if (rec_sampler_install() < 0) {
        /* The log still says why it holds no samples (LINES, FOREIGN). */
        static int said;
        if (!said++)
            lines_warn("SIGPROF has a handler of the program's: line sampling is off");
        atomic_store(&rec_lines_began, 1);
        return -1;
    }
    atomic_store(&rec_lines_began, 1);
    atomic_store(&rec_lines_active, 1);
    uint32_t n = rec_sampler_nslots();
    for (uint32_t i = 0; i < n; i++) {
        rec_lines_slot *s = rec_sampler_slot(i);
        if (atomic_load(&s->tid) && !s->dead)
            rec_sampler_arm(s);
    }
    join_locked();
    start_drainer_locked();
    return 0;
}

static void stop_locked(void) {
    atomic_store(&rec_lines_active, 0);
    uint32_t n = rec_sampler_nslots();
    for (uint32_t i = 0; i < n; i++)
        rec_sampler_disarm(rec_sampler_slot(i));
}

int scope_lines_begin(const char *project_dir) {
    rec_sampler_lock();
    int rc = 0;
    if (state.depth++ == 0 && !state.whole_life)
        rc = start_locked(project_dir);
    else if (project_dir)
        set_project(project_dir);
    rec_sampler_unlock();
    if (rc == 0)
        attach_to_recorder();
    return rc;
}

int scope_lines_end(void) {
    rec_sampler_lock();
    int rc = 0;
    if (state.depth == 0)
        rc = -1; /* no begin to end */
    else if (--state.depth == 0 && !state.whole_life)
        stop_locked();
    rec_sampler_unlock();
    return rc;
}

/* ---- fork ------------------------------------------------------------------------ */

static __thread int fork_held __attribute__((tls_model("initial-exec")));
static __thread int fork_walk_held __attribute__((tls_model("initial-exec")));

/* No module walk (it holds the loader's lock), no drain and no unwind is
 * under way across the fork, each waited for a bounded time. */
static void fork_prepare(void) {
    uint64_t deadline = rec_mono_ns() + FORK_WAIT_NS;
    fork_walk_held = rec_lines_store_fork_prepare(deadline);
    fork_held = rec_sampler_lock_for_fork(deadline);
    rec_sampler_fork_prepare(deadline);
}

static void fork_parent(void) {
    rec_sampler_fork_done();
    if (fork_held)
        rec_sampler_unlock();
    rec_lines_store_fork_parent(fork_walk_held);
}

/* The child's one thread samples on if the parent was sampling: its timer
 * again (timers are not inherited), a drainer of its own, and counts that
 * start from zero. */
static void fork_child(void) {
    if (fork_held)
        rec_sampler_unlock();
    else
        rec_sampler_reset_lock();
    rec_sampler_lock();
    state.drainer_running = 0;
    rec_sampler_fork_child();
    rec_lines_store_fork_child();
    if (sampling_on()) {
        join_locked();
        start_drainer_locked();
    }
    rec_sampler_unlock();
}

/* ---- the whole life: SCOPE_LINES=1 -------------------------------------------------- */

__attribute__((constructor)) static void lines_init(void) {
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    rec_sampler_lock();
    join_locked(); /* the main thread, known from the start */
    rec_sampler_unlock();
    if (!env_on(getenv("SCOPE_LINES")))
        return;
    /* Preloaded into a program that never calls libscope, the recorder
     * starts here (lifecycle.c does the same): its main thread then has
     * a thread index from the first sample on. */
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "libscope") && env_on(getenv("SCOPE_PROFILE")))
        rec_first_use();
    rec_sampler_lock();
    state.whole_life = 1;
    int rc = start_locked(NULL);
    rec_sampler_unlock();
    if (rc == 0) {
        attach_to_recorder();
        /* exec'd children attribute to the same folder */
        setenv("SCOPE_LINES_PROJECT", rec_lines_cfg.project, 0);
    }
}

/* ---- the in-process tables -------------------------------------------------------- */

static scope_lines_render_fn load_renderer(void) {
    if (state.renderer || state.renderer_error[0])
        return state.renderer;
    void *h = NULL;
    Dl_info self;
    if (dladdr((void *)scope_lines_print_stats, &self) && self.dli_fname) {
        char path[PATH_MAX];
        const char *slash = strrchr(self.dli_fname, '/');
        int len = slash ? (int)(slash - self.dli_fname) : 1;
        snprintf(path, sizeof path, "%.*s/%s", len, slash ? self.dli_fname : ".",
                 SCOPE_LINES_RENDER_LIB);
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (!h)
        h = dlopen(SCOPE_LINES_RENDER_LIB, RTLD_NOW | RTLD_LOCAL);
    if (h)
        state.renderer = (scope_lines_render_fn)dlsym(h, SCOPE_LINES_RENDER_SYMBOL);
    if (!state.renderer) {
        const char *why = dlerror();
        snprintf(state.renderer_error, sizeof state.renderer_error,
                 "scope: cannot print line tables: %s not found beside libscope nor on the "
                 "library path (%.400s); `scope-tui lines RUN` prints them from a log",
                 SCOPE_LINES_RENDER_LIB, why ? why : "no such symbol");
    }
    return state.renderer;
}

/* The samples as records, counted since the last scope_lines_clear.  Lock
 * held; free_input after. */
static int build_input(scope_lines_input *in) {
    memset(in, 0, sizeof *in);
    uint32_t nm = rec_lines_store_nmodules(), ns = rec_lines_store_nstacks();
    uint32_t ng = rec_lines_store_ngroups();
    scope_rec_module *mods = calloc(nm + 1, sizeof *mods);
    scope_rec_stack *stacks = calloc(ns + 1, sizeof *stacks);
    scope_rec_stack_samples *samples = calloc(ng + 1, sizeof *samples);
    if (!mods || !stacks || !samples)
        goto fail;
    in->modules = mods;
    in->stacks = stacks;
    in->samples = samples;
    for (uint32_t id = 1; id <= nm; id++)
        mods[in->nmodules++] = *rec_lines_store_module(id);
    for (uint32_t id = 1; id <= ns; id++)
        stacks[in->nstacks++] = *rec_lines_store_stack(id);
    for (uint32_t gi = 0; gi < ng; gi++) {
        const rec_lines_group *g = rec_lines_store_group(gi);
        scope_stack_count *c = malloc((g->n + 1) * sizeof *c);
        if (!c)
            goto fail;
        uint32_t n = 0;
        for (uint32_t i = 0; i < g->n; i++)
            if (g->counts[i].count > g->cleared[i])
                c[n++] =
                    (scope_stack_count){g->counts[i].stack, g->counts[i].count - g->cleared[i]};
        samples[in->nsamples++] = (scope_rec_stack_samples){.thread = g->thread,
                                                            .node = g->node,
                                                            .period_ns = rec_lines_cfg.period_ns,
                                                            .n = n,
                                                            .counts = c,
                                                            .state = g->state};
    }
    in->project_dir = rec_lines_cfg.project;
    in->period_ns = rec_lines_cfg.period_ns;
    in->dropped = rec_lines_store_totals().dropped;
    return 0;
fail:
    free(mods);
    free(stacks);
    for (size_t i = 0; samples && i < in->nsamples; i++)
        free((void *)samples[i].counts);
    free(samples);
    memset(in, 0, sizeof *in);
    return -1;
}

static void free_input(scope_lines_input *in) {
    for (size_t i = 0; i < in->nsamples; i++)
        free((void *)in->samples[i].counts);
    free((void *)in->modules);
    free((void *)in->stacks);
    free((void *)in->samples);
}

static void print_table(FILE *out, enum scope_lines_table table, double min_time_us, int top_n,
                        const char *sort_by) {
    if (!out)
        out = stdout;
    if (!atomic_load(&rec_lines_began)) {
        fprintf(out, "scope: no line samples: call scope_lines_begin() or set SCOPE_LINES=1\n");
        return;
    }
    scope_lines_render_fn fn = load_renderer();
    if (!fn) {
        fprintf(out, "%s\n", state.renderer_error);
        return;
    }
    scope_lines_input in;
    rec_lines_store_scan_modules(0);
    rec_sampler_lock();
    rec_lines_store_drain();
    int rc = build_input(&in);
    rec_sampler_unlock();
    if (rc < 0) {
        fprintf(out, "scope: cannot print line tables: out of memory\n");
        return;
    }
    fn(out, &in, table, min_time_us, top_n, sort_by);
    free_input(&in);
}

void scope_lines_print_stats(FILE *out, double min_time_us, int top_n_lines, const char *sort_by) {
    print_table(out, SCOPE_LINES_TABLE_STATS, min_time_us, top_n_lines, sort_by);
}

void scope_lines_print_top(FILE *out, int top_n, double min_time_us, const char *sort_by) {
    print_table(out, SCOPE_LINES_TABLE_TOP, min_time_us, top_n, sort_by);
}

void scope_lines_clear(void) {
    rec_lines_store_scan_modules(0);
    rec_sampler_lock();
    rec_lines_store_drain();
    rec_lines_store_clear_tables();
    rec_sampler_unlock();
}
