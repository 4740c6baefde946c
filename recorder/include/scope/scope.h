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
 * looked up on each call (a hash), so prefer the block form in hot code. */
SCOPE_API void scope_phase_begin(const char *name);
SCOPE_API void scope_phase_end(void);

/* Adds n to the counter `name` of the phase open on this thread. */
SCOPE_API void scope_count(const char *name, int64_t n);
#define SCOPE_COUNT(name, n) scope_count_site_(SCOPE_SITE_(name, SCOPE_SITE_COUNT), (n))

/* ---- implementation details (not API) ----------------------------------- */

/* Nonzero while calls may record: before the first call (the environment is
 * not read yet) and while recording.  Zero once the recorder is known to be
 * off, so a disabled call is one load and one predictable branch. */
extern SCOPE_API volatile int scope_hot_;

SCOPE_API void scope_phase_enter_(scope_site *site);
SCOPE_API void scope_phase_exit_(void);
SCOPE_API void scope_count_slow_(scope_site *site, int64_t n);

static inline void scope_count_site_(scope_site *site, int64_t n) {
    if (__builtin_expect(scope_hot_, 1))
        scope_count_slow_(site, n);
}

static inline int scope_phase_open_(scope_site *site) {
    if (__builtin_expect(scope_hot_, 1)) {
        scope_phase_enter_(site);
        return 1;
    }
    return 2; /* not entered: the cleanup must not close anything */
}

static inline void scope_phase_close_(int *state) {
    if (*state == 1 || *state == 3)
        scope_phase_exit_();
}

#ifdef __cplusplus
/* C++: the guard object does what the cleanup attribute does in C. */
struct scope_phase_guard_ {
    int state;
    explicit scope_phase_guard_(scope_site *s) : state(scope_phase_open_(s)) {}
    ~scope_phase_guard_() {
        scope_phase_close_(&state);
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
         SCOPE_CAT_(scope_g_, __LINE__).state < 3; SCOPE_CAT_(scope_g_, __LINE__).state += 2)
#else
/* C: a statement expression gives each call site its own static descriptor,
 * and the cleanup attribute closes the phase on every way out of the block.
 * state: 1 entered, 2 not entered; +2 once the body ran (ends the loop). */
#define SCOPE_SITE_(nm, fl)                                                                        \
    (__extension__({                                                                               \
        static scope_site s_ = {nm, __FILE__, __LINE__, fl, 0u, 0u};                               \
        &s_;                                                                                       \
    }))
#define SCOPE_PHASE_FLAGS_(nm, fl)                                                                 \
    for (int SCOPE_CAT_(scope_g_, __LINE__) __attribute__((cleanup(scope_phase_close_))) =         \
             scope_phase_open_(SCOPE_SITE_(nm, fl));                                               \
         SCOPE_CAT_(scope_g_, __LINE__) < 3; SCOPE_CAT_(scope_g_, __LINE__) += 2)
#endif

#define SCOPE_CAT2_(a, b) a##b
#define SCOPE_CAT_(a, b)  SCOPE_CAT2_(a, b)

#ifdef __cplusplus
}
#endif
#endif /* SCOPE_SCOPE_H */
