/*
 * A process that writes its own line samples, through the real log writer,
 * before any recorder samples: its modules as dl_iterate_phdr sees them
 * (path, build-id, where file offset 0 is mapped), and stacks made of real
 * addresses of its own code, each on a line known here (__LINE__), so the
 * symbolizer's answer can be checked against the truth:
 *
 *   stack 1: kernel_a at LINE_A <- main         node compute/inner  30 samples
 *   stack 2: libm's exp <- calls_libm at LINE_L <- main   node compute  10
 *   stack 3: kernel_b at LINE_B <- main         node other          60
 *   stack 4: an address in no module           no phase             5
 *
 * Usage: lines_selfrec RUN PROJECT [--no-lines] [--bad-build-id] [--bad-module PATH]...
 *   --no-lines          writes the phases only: a run without line samples
 *   --bad-build-id      records the executable with a build-id it does not have
 *   --bad-module PATH   adds a module at PATH (a FIFO, a huge file, not ELF...)
 *                       and a stack of 7 samples whose leaf lies in it, called
 *                       from kernel_b
 * Prints "LINE_A=n LINE_B=n LINE_L=n" on stdout.
 *
 * Built with -O0 -g: each captured return address lies on the line of its
 * call, both as it is (a leaf) and less one (a caller).
 */
#define _GNU_SOURCE
#include "self_modules.h"

#include <scope/log_format.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_MODULES 64

typedef struct pcs {
    void *pc, *ret;
} pcs;

static volatile double sink;

__attribute__((noinline)) static void *here(void) {
    return __builtin_return_address(0);
}

enum { LINE_A = __LINE__ + 3 };
__attribute__((noinline)) static pcs kernel_a(void) {
    pcs p;
    p.pc = here();
    sink += 1.0;
    p.ret = __builtin_return_address(0);
    return p;
}

enum { LINE_B = __LINE__ + 3 };
__attribute__((noinline)) static pcs kernel_b(void) {
    pcs p;
    p.pc = here();
    sink *= 0.5;
    p.ret = __builtin_return_address(0);
    return p;
}

__attribute__((noinline)) static void capture_return(pcs *p) {
    p->pc = __builtin_return_address(0);
}

/* The call to capture_return ends line LINE_L: its return address is the
 * first instruction of the next line, so only a caller's address less one
 * lies on LINE_L. */
enum { LINE_L = __LINE__ + 3 };
__attribute__((noinline)) static pcs calls_libm(double x) {
    pcs p;
    sink = exp(x), capture_return(&p);
    sink += x;
    p.ret = __builtin_return_address(0);
    return p;
}

static self_module mods[MAX_MODULES];
static size_t nmods;

static scope_frame_addr where(const void *addr) {
    return self_where(mods, nmods, addr);
}

/* ---- the log ----------------------------------------------------------------- */

static scope_log_writer *w;

static void add(scope_record r) {
    if (scope_log_writer_add(w, &r) != 0) {
        fprintf(stderr, "lines_selfrec: writer refused a record\n");
        exit(1);
    }
}

#define B(s) ((scope_bytes){(const uint8_t *)(s), strlen(s)})

static uint64_t now(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The line-sampling records: modules, the four stacks (and one per bad
 * module), their counts, the LINES record. */
static void write_lines(const char *project, int bad_build_id, const char *const *bad, size_t nbad,
                        pcs a, pcs b, pcs l, const void *exp_addr) {
    if (bad_build_id && mods[0].build_id_len)
        mods[0].build_id[0] ^= 0xff; /* as if the file was rebuilt since */
    for (size_t i = 0; i < nmods; i++)
        add((scope_record){.type = SCOPE_REC_MODULE, .u.module = self_module_record(&mods[i], i)});
    static const uint8_t fake_id[] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (size_t i = 0; i < nbad; i++)
        add((scope_record){.type = SCOPE_REC_MODULE,
                           .u.module = {(uint32_t)(100 + i),
                                        B(bad[i]),
                                        {fake_id, sizeof fake_id},
                                        0x10000000ull * (i + 1),
                                        0x1000}});

    scope_frame_addr s1[] = {where(a.pc), where(a.ret)};
    scope_frame_addr s2[] = {where((const char *)exp_addr + 1), where(l.pc), where(l.ret)};
    scope_frame_addr s3[] = {where(b.pc), where(b.ret)};
    scope_frame_addr s4[] = {{0, 0x10}};
    add((scope_record){.type = SCOPE_REC_STACK, .u.stack = {1, 2, s1}});
    add((scope_record){.type = SCOPE_REC_STACK, .u.stack = {2, 3, s2}});
    add((scope_record){.type = SCOPE_REC_STACK, .u.stack = {3, 2, s3}});
    add((scope_record){.type = SCOPE_REC_STACK, .u.stack = {4, 1, s4}});
    const uint64_t period = 10000000; /* 100 Hz */
    /* An older count first: the newest value of a key wins, it is never added. */
    scope_stack_count old[] = {{1, 3}};
    add((scope_record){.type = SCOPE_REC_STACK_SAMPLES, .u.stack_samples = {1, 2, period, 1, old}});
    scope_log_writer_close_frame(w, SCOPE_FRAME_PERIODIC, now(CLOCK_MONOTONIC),
                                 now(CLOCK_REALTIME));

    scope_stack_count c1[] = {{1, 30}}, c2[] = {{2, 10}}, c3[] = {{3, 60}}, c4[] = {{4, 5}};
    add((scope_record){.type = SCOPE_REC_STACK_SAMPLES, .u.stack_samples = {1, 2, period, 1, c1}});
    add((scope_record){.type = SCOPE_REC_STACK_SAMPLES, .u.stack_samples = {1, 1, period, 1, c2}});
    add((scope_record){.type = SCOPE_REC_STACK_SAMPLES, .u.stack_samples = {1, 3, period, 1, c3}});
    add((scope_record){.type = SCOPE_REC_STACK_SAMPLES, .u.stack_samples = {1, 0, period, 1, c4}});
    for (size_t i = 0; i < nbad; i++) {
        scope_frame_addr sb[] = {{(uint32_t)(100 + i), 0x10}, where(b.pc)};
        scope_stack_count cb[] = {{(uint32_t)(10 + i), 7}};
        add((scope_record){.type = SCOPE_REC_STACK, .u.stack = {(uint32_t)(10 + i), 2, sb}});
        add((scope_record){.type = SCOPE_REC_STACK_SAMPLES,
                           .u.stack_samples = {1, 3, period, 1, cb}});
    }
    add((scope_record){.type = SCOPE_REC_LINES,
                       .u.lines = {.project = B(project),
                                   .hz = 100,
                                   .period_ns = period,
                                   .samples = 105 + 7 * nbad,
                                   .threads = 1,
                                   .flags = SCOPE_LINES_F_ACTIVE}});
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr,
                "usage: lines_selfrec RUN PROJECT [--bad-build-id] [--bad-module PATH]...\n");
        return 2;
    }
    const char *run = argv[1], *project = argv[2];
    int bad_build_id = 0, no_lines = 0;
    const char *bad[8];
    size_t nbad = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--no-lines"))
            no_lines = 1;
        else if (!strcmp(argv[i], "--bad-build-id"))
            bad_build_id = 1;
        else if (!strcmp(argv[i], "--bad-module") && i + 1 < argc && nbad < 8)
            bad[nbad++] = argv[++i];
        else {
            fprintf(stderr, "lines_selfrec: bad argument %s\n", argv[i]);
            return 2;
        }
    }
    pcs a = kernel_a(), b = kernel_b(), l = calls_libm(0.5);
    void *exp_addr = dlsym(RTLD_DEFAULT, "exp");
    if (!exp_addr) {
        fprintf(stderr, "lines_selfrec: no exp: %s\n", dlerror());
        return 1;
    }
    nmods = self_modules(mods, MAX_MODULES);

    char dir[4200], path[4400];
    snprintf(dir, sizeof dir, "%s/workers", run);
    mkdir(run, 0755);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/workers/testhost", run);
    mkdir(dir, 0755);
    int pid = (int)getpid();
    snprintf(path, sizeof path, "%s/w_20261201T1200-abcdef_%d_abcd1234.scope", dir, pid);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (fd < 0 || scope_log_writer_open(&w, fd, NULL) != 0) {
        perror(path);
        return 1;
    }
    uint64_t mono0 = now(CLOCK_MONOTONIC), wall0 = now(CLOCK_REALTIME);
    scope_bytes args[] = {B(argv[0])};
    add((scope_record){.type = SCOPE_REC_PROCESS,
                       .u.process = {.run_id = B("20261201T1200-abcdef"),
                                     .uuid = B("abcd1234"),
                                     .host = B("testhost"),
                                     .role = B("selfrec"),
                                     .exe = B(mods[0].path),
                                     .cwd = B(project),
                                     .recorder_version = B("test"),
                                     .pid = pid,
                                     .ppid = getppid(),
                                     .rank = -1,
                                     .local_rank = -1,
                                     .node_rank = -1,
                                     .world_size = -1,
                                     .start_wall_ns = wall0,
                                     .start_mono_ns = mono0,
                                     .argc = 1,
                                     .argv = args}});
    add((scope_record){.type = SCOPE_REC_THREAD, .u.thread = {1, pid, mono0, B("main")}});
    add((scope_record){.type = SCOPE_REC_STRING, .u.string = {1, B("compute")}});
    add((scope_record){.type = SCOPE_REC_STRING, .u.string = {2, B("inner")}});
    add((scope_record){.type = SCOPE_REC_STRING, .u.string = {3, B("other")}});
    add((scope_record){.type = SCOPE_REC_PHASE_NODE, .u.phase_node = {1, 0, 1, 1, 0, 0, 0}});
    add((scope_record){.type = SCOPE_REC_PHASE_NODE, .u.phase_node = {2, 1, 2, 1, 0, 0, 0}});
    add((scope_record){.type = SCOPE_REC_PHASE_NODE, .u.phase_node = {3, 0, 3, 1, 0, 0, 0}});
    for (uint32_t n = 1; n <= 3; n++)
        add((scope_record){.type = SCOPE_REC_PHASE_AGG,
                           .u.phase_agg = {.node = n,
                                           .count = 1,
                                           .wall_ns = 1000000000ull / n,
                                           .min_ns = 1000000000ull / n,
                                           .max_ns = 1000000000ull / n}});
    if (!no_lines)
        write_lines(project, bad_build_id, bad, nbad, a, b, l, exp_addr);
    add((scope_record){.type = SCOPE_REC_MARK,
                       .u.mark = {SCOPE_MARK_SHUTDOWN, 1, now(CLOCK_MONOTONIC), 0, B("")}});
    scope_log_writer_close_frame(w, SCOPE_FRAME_EXIT, now(CLOCK_MONOTONIC), now(CLOCK_REALTIME));
    scope_log_writer_free(w);
    if (close(fd) != 0)
        return 1;
    printf("LINE_A=%d LINE_B=%d LINE_L=%d\n", LINE_A, LINE_B, LINE_L);
    return 0;
}
