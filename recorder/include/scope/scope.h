/*
 * libscope: record where the time goes in a long, multi-process program.
 *
 *     #include <scope/scope.h>
 *
 *     scope_init("profile", "learner");       // or SCOPE_PROFILE=1 in the environment
 *     for (;;) {
 *         SCOPE_PHASE("iteration") {
 *             SCOPE_PHASE("train") { train(); }
 *             SCOPE_COUNT("samples", batch);
 *         }
 *     }
 *
 * Every call is safe before scope_init, after scope_shutdown, from any thread,
 * in a forked child and from C++.  Nothing here ever aborts, raises a signal or
 * returns garbage into the program: a failure becomes one line on stderr and a
 * caveat in the log.  The user guide is docs/recorder.md.
 */
#ifndef SCOPE_SCOPE_H
#define SCOPE_SCOPE_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SCOPE_API __attribute__((visibility("default")))
#else
#define SCOPE_API
#endif

/* ---- lifetime ---------------------------------------------------------- */

/* Starts recording into run_dir (NULL: $SCOPE_RUN_DIR, else "scope-run")
 * as role (NULL: $SCOPE_ROLE, else the program's name).  Returns 0, or -1
 * when recording could not start (the program runs on, unrecorded).  A
 * second call while recording returns 0 and changes nothing. */
SCOPE_API int scope_init(const char *run_dir, const char *role);

/* Writes everything recorded and stops.  Also runs at exit. */
SCOPE_API void scope_shutdown(void);

/* Writes everything recorded so far, now.  Returns 0, or -1 when the write
 * failed (the data stays queued for the next try). */
SCOPE_API int scope_flush(void);

/* ---- phases ------------------------------------------------------------ */

/* The static descriptor of one call site.  Filled by the macros; the
 * recorder assigns `id` on first use, so names are never hashed again. */
typedef struct scope_site {
    const char *name;
    const char *file;
    uint32_t line;
    uint32_t flags;   /* SCOPE_SITE_* */
    uint32_t id;      /* name id: 0 until first use, then set once by the recorder */
    uint32_t file_id; /* likewise for the file name */
} scope_site;

#define SCOPE_SITE_IO    0x1u /* exact per-phase I/O bytes */
#define SCOPE_SITE_SYNC  0x2u /* drain the GPU queue at both ends */
#define SCOPE_SITE_COUNT 0x4u /* a counter, not a phase */

/* Block form.  The phase ends however control leaves the block: falling
 * off its end, return, goto, break or continue.  The block is a one-trip
 * loop, so break and continue inside it leave the phase block itself, not an
 * enclosing loop (use goto or a flag to leave that loop). */
#define SCOPE_PHASE(name)      SCOPE_PHASE_FLAGS_(name, 0u)
#define SCOPE_PHASE_IO(name)   SCOPE_PHASE_FLAGS_(name, SCOPE_SITE_IO)
#define SCOPE_PHASE_SYNC(name) SCOPE_PHASE_FLAGS_(name, SCOPE_SITE_SYNC)

/* Explicit form: every begin needs one end on the same thread.  The name is
 * looked up on each call (a hash), so prefer the block form in hot code.
 * A block closes exactly its own phase: a begin left open inside it is
 * closed with it, and an end never closes a block's phase; either is
 * counted as unbalanced. */
SCOPE_API void scope_phase_begin(const char *name);
SCOPE_API void scope_phase_end(void);

/* Adds n to the counter `name` of the phase open on this thread. */
SCOPE_API void scope_count(const char *name, int64_t n);

/* The same two for a name of len bytes, which need not end with a NUL:
 * for bindings whose strings carry their length (the Fortran module). */
SCOPE_API void scope_phase_begin_n(const char *name, size_t len);
SCOPE_API void scope_count_n(const char *name, size_t len, int64_t n);
#define SCOPE_COUNT(name, n) scope_count_site_(SCOPE_SITE_(name, SCOPE_SITE_COUNT), (n))

/* ---- trace window ----------------------------------------------------------- */

/* Records every phase entry and exit and every count, with timestamps, on
 * every thread of this process, from the first-th to the last-th entry into
 * `phase` (1 = its first entry; the window ends when the last-th entry
 * ends).  The same as SCOPE_TRACE=phase:first-last, which this call
 * overrides.  A forked child counts its own entries from its first.  At
 * most $SCOPE_TRACE_EVENTS events (default 1048576) are kept; reaching that
 * ends the window early, and the log says so.  Callable before scope_init
 * and from any thread after it.  Returns 0, or -1 for a bad argument, once
 * this process's window has opened (one a process), or while another
 * thread is in this call. */
SCOPE_API int scope_trace_window(const char *phase, uint64_t first, uint64_t last);

/* ---- hot lines ------------------------------------------------------------ */

/* Statistical line sampling: every thread's stack, SCOPE_LINES_HZ times a
 * second of its CPU time (default 99), symbolized offline.  SCOPE_LINES=1
 * samples the whole life of the process; these sample a stretch of it (the
 * seed's `with profiler:`).  Nestable (sampling stops at the outermost end),
 * callable from any thread, and without scope_init or a run directory: the
 * samples are kept in memory for the tables below, and go into the log
 * too when the recorder is on.  project_dir: the folder whose lines the
 * time is charged to (NULL: $SCOPE_LINES_PROJECT, else the git root of the
 * working directory, else the working directory).  begin returns 0, or -1
 * when the program has a SIGPROF handler of its own (nothing is sampled);
 * end returns -1 when no begin is open. */
SCOPE_API int scope_lines_begin(const char *project_dir);
SCOPE_API int scope_lines_end(void);

/* The tables of `scope-tui lines`, printed from inside the program: per
 * function with its lines (print_stats), or the hottest lines of the
 * process (print_top).  Rows under min_time_us of estimated CPU time are
 * left out; top_n: at most that many lines (0: all); sort_by: "time",
 * "hits" (samples) or "line" (NULL: "time").  The symbolizer is loaded on
 * the first print (libscope-lines.so beside libscope); without it one line
 * says so.  out NULL: stdout. */
SCOPE_API void scope_lines_print_stats(FILE *out, double min_time_us, int top_n_lines,
                                       const char *sort_by);
SCOPE_API void scope_lines_print_top(FILE *out, int top_n, double min_time_us, const char *sort_by);
/* The tables start again from zero (the log keeps its totals). */
SCOPE_API void scope_lines_clear(void);

/* ---- implementation details (not API) ----------------------------------- */

/* Nonzero while calls may record: before the first call (the environment is
 * not read yet) and while recording.  Zero once the recorder is known to be
 * off, so a disabled call is one load and one predictable branch. */
extern SCOPE_API volatile int scope_hot_;

/* The calls every SCOPE_PHASE and SCOPE_COUNT makes go through the GOT
 * (GCC's noplt: one indirect call where the PLT adds a jump to each), as
 * -fno-plt would make them; the program links and loads as before.  Clang
 * has no such attribute. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define SCOPE_HOT_CALL_ __attribute__((noplt))
#else
#define SCOPE_HOT_CALL_
#endif

/* The block form's halves.  scope_block_enter_ returns the thread's depth
 * with the block's phase open (never 0), and the block hands it back to
 * scope_block_exit_, which closes exactly that phase: whatever the block
 * left open inside it is closed with it and counted as unbalanced, and a
 * phase the block no longer has open is not closed twice.  The older
 * scope_phase_enter_/scope_phase_exit_ pair (the innermost phase) stays for
 * programs built against it. */
SCOPE_API SCOPE_HOT_CALL_ uint32_t scope_block_enter_(scope_site *site);
SCOPE_API SCOPE_HOT_CALL_ void scope_block_exit_(uint32_t depth);
SCOPE_API void scope_phase_enter_(scope_site *site);
SCOPE_API void scope_phase_exit_(void);
SCOPE_API SCOPE_HOT_CALL_ void scope_count_slow_(scope_site *site, int64_t n);

static inline void scope_count_site_(scope_site *site, int64_t n) {
    if (__builtin_expect(scope_hot_, 1))
        scope_count_slow_(site, n);
}

/* 0: not entered, the cleanup must not close anything.  An entry never
 * returns 0, and saying so lets the compiler drop the cleanup's test on the
 * entered path. */
static inline uint32_t scope_phase_open_(scope_site *site) {
    if (__builtin_expect(scope_hot_, 1)) {
        uint32_t depth = scope_block_enter_(site);
        if (depth == 0)
            __builtin_unreachable();
        return depth;
    }
    return 0;
}

static inline void scope_phase_close_(uint32_t *depth) {
    if (*depth)
        scope_block_exit_(*depth);
}

#ifdef __cplusplus
/* C++: the guard object does what the cleanup attribute does in C. */
struct scope_phase_guard_ {
    uint32_t depth;
    int once;
    explicit scope_phase_guard_(scope_site *s) : depth(scope_phase_open_(s)), once(1) {}
    ~scope_phase_guard_() {
        scope_phase_close_(&depth);
    }
    scope_phase_guard_(const scope_phase_guard_ &) = delete;
    scope_phase_guard_ &operator=(const scope_phase_guard_ &) = delete;
};
#define SCOPE_SITE_(nm, fl)                                                                        \
    ([]() -> scope_site * {                                                                        \
        static scope_site s_ = {nm, __FILE__, __LINE__, fl, 0u, 0u};                               \
        return &s_;                                                                                \
    }())
#define SCOPE_PHASE_FLAGS_(nm, fl)                                                                 \
    for (scope_phase_guard_ SCOPE_CAT_(scope_g_, __LINE__)(SCOPE_SITE_(nm, fl));                   \
         SCOPE_CAT_(scope_g_, __LINE__).once; SCOPE_CAT_(scope_g_, __LINE__).once = 0)
#else
/* C: a statement expression gives each call site its own static descriptor,
 * and the cleanup attribute closes the phase on every way out of the block.
 * The first variable holds the depth scope_phase_open_ returned; the second
 * makes the loop run once. */
#define SCOPE_SITE_(nm, fl)                                                                        \
    (__extension__({                                                                               \
        static scope_site s_ = {nm, __FILE__, __LINE__, fl, 0u, 0u};                               \
        &s_;                                                                                       \
    }))
#define SCOPE_PHASE_FLAGS_(nm, fl)                                                                 \
    for (uint32_t SCOPE_CAT_(scope_g_, __LINE__) __attribute__((cleanup(scope_phase_close_))) =    \
             scope_phase_open_(SCOPE_SITE_(nm, fl)),                                               \
                                                 SCOPE_CAT_(scope_once_, __LINE__) = 1;            \
         SCOPE_CAT_(scope_once_, __LINE__); SCOPE_CAT_(scope_once_, __LINE__) = 0)
#endif

#define SCOPE_CAT2_(a, b) a##b
#define SCOPE_CAT_(a, b)  SCOPE_CAT2_(a, b)

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_SCOPE_H */
