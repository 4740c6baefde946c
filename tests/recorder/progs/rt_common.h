/* Numbers and names shared by the recorder's test programs and the drivers
 * that check their logs: the drivers compute every expected count from the
 * same definitions the programs ran with, so the two cannot drift apart. */
#ifndef SCOPE_TESTS_RT_COMMON_H
#define SCOPE_TESTS_RT_COMMON_H

#include <stdint.h>

/* ---- rt_threads: 8 threads nesting phases ------------------------------ */

#define RT_THREADS     8
#define RT_THREAD_NAME "rt-worker-%d" /* pthread name of worker i, 0-based */

/* Different per thread, so a count that lands on the wrong thread shows. */
static inline uint64_t rt_thread_iterations(int i) {
    return 3000u + 37u * (uint64_t)i;
}

/* Iterations it (0-based) with it % RT_TRAIN_EVERY == 0 open "train". */
#define RT_TRAIN_EVERY 5
#define RT_MCTS_PER_IT 3
#define RT_MCTS_SIMS   64
#define RT_SAMPLES     256

static inline uint64_t rt_thread_trains(int i) {
    return (rt_thread_iterations(i) + RT_TRAIN_EVERY - 1) / RT_TRAIN_EVERY;
}

/* ---- rt_thread_exit: a thread that ends before its process ------------- */

#define RT_TRACE_WORKERS 3  /* rt_trace: threads entering "work" without pause */
#define RT_TRACE_STEPS   20 /* rt_trace: entries of "step" by the main thread */
/* rt_trace api: scope_trace_window("step", FIRST, LAST) before step AFTER
 * (0-based), WAIT_MS after the previous one; entries count from the call. */
#define RT_TRACE_API_AFTER   3
#define RT_TRACE_API_WAIT_MS 300
#define RT_TRACE_API_FIRST   4
#define RT_TRACE_API_LAST    12

#define RT_EXIT_THREAD  "rt-exiting" /* its pthread name */
#define RT_EXIT_STEPS   12           /* entries of "step" */
#define RT_EXIT_STEP_MS 40           /* apart by this much */

/* ---- rt_open: phases open while frames are written ---------------------- */

#define RT_OPEN_HOLDER   "rt-holder" /* its pthread name: holds "hold" { "inner" } */
#define RT_OPEN_CHURNERS 2           /* threads entering "a" { "b" { "c" } } nonstop */
#define RT_OPEN_MS       1000        /* how long they run at least */
#define RT_OPEN_FRAMES   8           /* and until this many frames were written after it */

/* ---- rt_basic names: bytes a name may hold ------------------------------ */

/* Control characters, an escape sequence and invalid UTF-8 (a lone
 * continuation byte, a truncated sequence, an overlong form, 0xff): all must
 * be stored exactly as given.  A C string cannot hold NUL, so none here. */
static const char *const rt_odd_names[] = {
    "\x1b[31mred\x1b[0m",    "bell\a",      "tab\there\nnewline\r", "\x01\x02\x1f\x7f",
    "lone\x80 continuation", "cut\xe2\x82", "overlong\xc0\xaf",     "\xff\xfe\xfd",
    "caf\xc3\xa9 ok",        "\xc3\x28",
};
#define RT_ODD_NAMES (sizeof rt_odd_names / sizeof rt_odd_names[0])

/* ---- rt_signals ---------------------------------------------------------- */

#define RT_SIG_ITERS 1000 /* "work" entries before the program reports ready */
#define RT_SIG_MORE  250  /* more entries after its own SIGUSR1 handler ran */

/* ---- rt_hostsig: the host program's own signals ------------------------- */

#define RT_FORKS       300 /* forks from the timer's handler before it ends */
#define RT_EXIT_STATUS 3   /* what its exit() handler exits with */

/* ---- rt_forksig: a timer handler that forks and reaps -------------------- */

#define RT_FORKSIG_LIMIT_S 60 /* it gives up after this long: far past any deadline */

/* ---- rt_churn: threads that come and go, names that never repeat ---------- */

#define RT_CHURN_AT_ONCE 16 /* threads running at once */

/* ---- rt_exits: ways out of a SCOPE_PHASE block -------------------------- */

#define RT_EXIT_LOOPS 10

/* ---- rt_io: exact I/O phases --------------------------------------------- */

#define RT_IO_BIG   (8u << 20) /* the I/O phase's fsync'd write, bytes */
#define RT_IO_NOISE (3u << 20) /* what the other thread writes meanwhile */
#define RT_IO_FILE  (1u << 20) /* the file read cold, then warm */
#define RT_IO_OUTER 300000u    /* nested phases: the outer one's own read */
#define RT_IO_INNER 70000u     /* and the inner one's */
#define RT_IO_SHM   (2u << 20) /* written to tmpfs: a measured zero on disk */

/* ---- rt_sample: the resource sampler ------------------------------------ */

#define RT_S_PHASE (6u << 20) /* written inside a phase */
#define RT_S_LOOSE (1u << 20) /* written with no phase open */
#define RT_S_READ  (2u << 20) /* read from the page cache inside a phase */
#define RT_S_MARK  4096u      /* written once counters can be read again */

/* ---- rt_gpu, rt_sync: GPU figures and sync phases ----------------------- */

#define RT_GPU_MS        300   /* rt_gpu's phase, with the sampler every 20 ms */
#define RT_SYNC_ENTRIES  5     /* entries of the sync phase */
#define RT_SYNC_DRAIN_US 20000 /* what the stand-in runtime's synchronize takes */

/* ---- rt_snap: snapshot frames ------------------------------------------------ */

#define RT_SNAP_WORKERS  3  /* threads nesting "outer" { "inner" } */
#define RT_SNAP_ROUNDS   40 /* rounds of work, RT_SNAP_ROUND_MS apart */
#define RT_SNAP_ROUND_MS 10
#define RT_SNAP_CHURN    1100 /* rt_snap churn: threads that saturate a counter each */

/* ---- rt_fds: a program that closes or reuses the recorder's descriptors - */

#define RT_FDS_BEFORE  50 /* "before" entries, before it closes every descriptor */
#define RT_FDS_FILES   16 /* files it opens after that (onto the numbers freed), and writes */
#define RT_FDS_STEPS   12 /* "after" entries: each writes one line into every file */
#define RT_FDS_STEP_MS 25 /* apart by this much (frames every 50 ms fall between) */
#define RT_FDS_TRIES   13 /* count: the files it tries to open under ulimit -n 16 */
#define RT_FDS_LIMIT   16 /* that ulimit -n */
#define RT_FDS_LINE    "rt_fds file %d step %d\n"

#endif
