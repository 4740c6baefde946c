/* What the recorder's end-to-end drivers share: running the test programs
 * for real (fork, exec, a clean environment, captured output, a deadline,
 * signals) and scratch directories.  The programs live in the directory
 * given as the driver's first argument (CTest passes it), never at a path
 * written here. */
#ifndef SCOPE_TESTS_RT_UTIL_H
#define SCOPE_TESTS_RT_UTIL_H

#include "run_reader.h"

#include <check.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads argv: PROGS_DIR [MPIRUN].  Exits with a usage message when the
 * directory is missing. */
void rt_args(int argc, char **argv);

/* Path of test program `name` in PROGS_DIR (a static buffer per call in a
 * small ring: valid for the next few calls). */
const char *rt_prog(const char *name);
int rt_prog_exists(const char *name);

/* The mpirun given on the command line, or NULL. */
const char *rt_mpirun(void);

/* Under a sanitizer build (ASan or TSan) things run several times slower:
 * drivers scale repetitions and deadlines with this. */
int rt_sanitized(void);

/* "LD_PRELOAD=" and lib into out, after the sanitizer runtime this driver
 * runs with when there is one (ASan's must come first in the list when
 * libscope is built with it). */
void rt_preload_env(char *out, size_t cap, const char *lib);

/* The scratch directory of a test case: made before its tests (in the
 * runner, so it is removed even when a test fails) and removed after them
 * unless SCOPE_RT_KEEP is set.  Add it with rt_fixture(tc). */
extern char rt_base[4096];
void rt_fixture(TCase *tc);

/* Sets TMPDIR to /dev/shm, before rt_run_suite, when whoever runs the driver
 * left TMPDIR unset and /dev/shm is a memory filesystem this process may
 * write.  For drivers that write and remove thousands of small logs and
 * test something other than the disk: on a disk filesystem each log's close
 * (its truncation to size) waits on the disk. */
void rt_prefer_memory_tmpdir(void);

/* Runs a suite as a test driver's main does; returns the exit status. */
int rt_run_suite(Suite *s);

/* A fresh directory under rt_base, named after tag. */
void rt_mkdir(char *out, size_t cap, const char *tag);
void rt_rmrf(const char *path);

typedef struct rt_opts {
    /* Changes to the environment: "K=V" sets, "K" alone unsets.  Before
     * them, every SCOPE_* variable and every launcher's rank variable is
     * removed, so a test never inherits a run from whoever runs it. */
    const char *const *env;
    const char *cwd;       /* NULL: stay */
    int stdout_pipe;       /* stdout to a pipe (rt_proc.out_fd) instead of a file */
    long long fsize_limit; /* RLIMIT_FSIZE in bytes, 0: unchanged */
    int one_cpu;           /* pin the process (all its threads) to one CPU */
} rt_opts;

typedef struct rt_proc {
    pid_t pid;
    int out_fd; /* the stdout pipe, or -1 */
    int status; /* waitpid status once it ended */
    char out_path[4300], err_path[4300];
} rt_proc;

/* Starts argv (argv[0] a path) in a process group of its own that dies
 * with the driver; stdout and stderr go to files in rt_base. */
void rt_spawn(rt_proc *p, char *const argv[], const rt_opts *o);

/* Waits up to timeout_s.  Returns 0 when it ended (p->status), or -1 after
 * killing its whole process group when it did not. */
int rt_wait(rt_proc *p, double timeout_s);

/* rt_spawn + rt_wait, failing the test when it does not end in time. */
void rt_run(rt_proc *p, char *const argv[], const rt_opts *o, double timeout_s);

/* Reads from fd until a line equal to `line` arrives.  Returns 0, or -1 on
 * end of file or timeout. */
int rt_wait_line(int fd, const char *line, double timeout_s);

/* The whole file, NUL-terminated; "" when it cannot be read.  Free it. */
char *rt_slurp(const char *path, size_t *len);

/* The process's stderr, less the warnings a sanitizer runtime prints about
 * its own limits (LeakSanitizer in a forked child of a threaded process);
 * its reports stay in.  Free it. */
char *rt_stderr(const rt_proc *p);

/* The last 1,500 bytes of s: Check cannot carry longer failure messages. */
const char *rt_tail(const char *s);

/* "exited 0", "killed by SIGTERM"... in a static buffer. */
const char *rt_status(int status);

double rt_now(void);
void rt_sleep(double s);

/* Fails the test with the log printed when it does not read back clean. */
void rt_assert_clean(const rr_log *log);

/* Fails the test (printing the log) unless node `path` of `thread` exists
 * with an aggregate of exactly `want` entries, all of them in its newest
 * histogram: for logs whose process ended with a flush (exit, signal). */
void rt_expect_count(const rr_log *log, uint32_t thread, const char *path, uint64_t want);

/* Fails the test unless counter `name`, counted while `path` was open on
 * `thread` ("" for no phase; thread 0 for all), has exactly these calls
 * and total. */
void rt_expect_counter(const rr_log *log, uint32_t thread, const char *path, const char *name,
                       uint64_t calls, int64_t total);

/* Prints a whole run to stderr (for failure messages). */
void rt_print_run(const rr_run *run);

/* The frames of the one log in dir as it is now (0 while there is none):
 * what a driver waits on, rather than a length of time, before it acts on
 * a program that is still recording. */
size_t rt_frames_on_disk(const char *dir);

/* Loads the run in dir, which must hold exactly one log (the run is printed
 * and the test fails otherwise); returns that log.  rr_free(run) after. */
const rr_log *rt_load_one(const char *dir, rr_run *run);

/* What one read of this thread's CPU clock costs here, ns: the fastest of
 * 1000, timed by the wall clock, whatever the load (a preempted read is
 * only slower). */
uint64_t rt_cpu_read_cost_ns(void);

#endif
