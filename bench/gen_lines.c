/* Line samples of the generator's own code; see gen_lines.h. */
#include "gen_lines.h"
#include "self_modules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERIOD_NS 10000000ull /* 100 Hz */
#define MAX_DEPTH 14

static self_module self; /* this binary: self_modules.h lists it first */

/* The functions the stacks run through: distinct bodies, never inlined, so
 * each has its own symbol and lines. */
static volatile uint64_t sink;
#define FN(k)                                                                                      \
    __attribute__((noinline)) static void gen_fn_##k(uint64_t n) {                                 \
        for (uint64_t i = 0; i < n; i++)                                                           \
            sink += i * (k + 3);                                                                   \
    }
/* clang-format off */
FN(0) FN(1) FN(2) FN(3) FN(4) FN(5) FN(6) FN(7) FN(8) FN(9) FN(10) FN(11) FN(12) FN(13) FN(14)
FN(15) FN(16) FN(17) FN(18) FN(19) FN(20) FN(21) FN(22) FN(23) FN(24) FN(25) FN(26) FN(27)
FN(28) FN(29) FN(30) FN(31) FN(32) FN(33) FN(34) FN(35) FN(36) FN(37) FN(38) FN(39) FN(40)
FN(41) FN(42) FN(43) FN(44) FN(45) FN(46) FN(47)
#define REF(k) gen_fn_##k,
static void (*const fns[GEN_LINES_FUNCTIONS])(uint64_t) = {
    REF(0) REF(1) REF(2) REF(3) REF(4) REF(5) REF(6) REF(7) REF(8) REF(9) REF(10) REF(11)
    REF(12) REF(13) REF(14) REF(15) REF(16) REF(17) REF(18) REF(19) REF(20) REF(21) REF(22)
    REF(23) REF(24) REF(25) REF(26) REF(27) REF(28) REF(29) REF(30) REF(31) REF(32) REF(33)
    REF(34) REF(35) REF(36) REF(37) REF(38) REF(39) REF(40) REF(41) REF(42) REF(43) REF(44)
    REF(45) REF(46) REF(47)};
/* clang-format on */

static scope_frame_addr frames[GEN_LINES_STACKS][MAX_DEPTH];
static uint32_t depth[GEN_LINES_STACKS];

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* A point inside function k: its entry plus a few bytes (a caller's frame
 * is a return address, one byte past its call). */
static scope_frame_addr at(int k, int caller) {
    return (scope_frame_addr){1, (uintptr_t)fns[k] - self.base + 4 + (caller ? 1 : 0)};
}

int gen_lines_init(void) {
    for (int k = 0; k < GEN_LINES_FUNCTIONS; k++)
        fns[k](1);
    if (!self_modules(&self, 1) || !self.path[0]) {
        fprintf(stderr, "scope_gen_run: cannot find this program's own module\n");
        return -1;
    }
    /* Paths from function 0 (main-like) down a tree: each level picks one
     * of a few children, so stacks share their callers as a program's do. */
    for (uint32_t s = 0; s < GEN_LINES_STACKS; s++) {
        uint64_t h = mix(s + 1);
        uint32_t d = 3 + (uint32_t)(h % (MAX_DEPTH - 2));
        int fn = 0;
        int path[MAX_DEPTH];
        for (uint32_t i = 0; i < d; i++) {
            path[i] = fn;
            h = mix(h);
            fn = (int)((fn * 3 + 1 + h % 4) % GEN_LINES_FUNCTIONS);
        }
        for (uint32_t i = 0; i < d; i++) /* innermost first */
            frames[s][i] = at(path[d - 1 - i], i > 0);
        depth[s] = d;
    }
    return 0;
}

int gen_lines_add(scope_log_writer *w, uint32_t nthreads, const uint32_t *threads,
                  const uint32_t *const *nodes, const int *nnodes, uint64_t per_node,
                  uint64_t seed) {
    scope_record r = {.type = SCOPE_REC_MODULE};
    r.u.module = self_module_record(&self, 0);
    int rc = scope_log_writer_add(w, &r);
    for (uint32_t s = 0; s < GEN_LINES_STACKS && rc >= 0; s++) {
        r = (scope_record){.type = SCOPE_REC_STACK};
        r.u.stack = (scope_rec_stack){s + 1, depth[s], frames[s]};
        rc = scope_log_writer_add(w, &r);
    }
    uint64_t total = 0;
    scope_stack_count counts[32];
    for (uint32_t t = 0; t < nthreads && rc >= 0; t++)
        for (int k = -1; k < nnodes[t] && rc >= 0; k++) {
            uint32_t node = k < 0 ? 0 : nodes[t][k];
            uint64_t h = mix(seed ^ ((uint64_t)t << 32) ^ (uint64_t)(k + 1));
            uint32_t n = 8 + (uint32_t)(h % 24);
            for (uint32_t i = 0; i < n; i++) {
                h = mix(h);
                /* Stacks near each other in the table: a phase runs related code. */
                uint32_t s = (uint32_t)((node * 37 + i * 7 + h % 5) % GEN_LINES_STACKS);
                counts[i] = (scope_stack_count){s + 1, 1 + h % (2 * per_node / n + 1)};
                for (uint32_t j = 0; j < i; j++)
                    if (counts[j].stack == counts[i].stack) {
                        counts[j].count += counts[i].count;
                        i--, n--;
                        break;
                    }
            }
            for (uint32_t i = 0; i < n; i++)
                total += counts[i].count;
            r = (scope_record){.type = SCOPE_REC_STACK_SAMPLES};
            r.u.stack_samples =
                (scope_rec_stack_samples){threads[t], node, PERIOD_NS, n, counts, SCOPE_CPU_ON};
            rc = scope_log_writer_add(w, &r);
        }
    if (rc < 0)
        return rc;
    /* The project folder: bench/, where these functions are. */
    const char *slash = strrchr(__FILE__, '/');
    size_t project_len = slash ? (size_t)(slash - __FILE__) : 0;
    r = (scope_record){.type = SCOPE_REC_LINES};
    r.u.lines = (scope_rec_lines){{(const uint8_t *)__FILE__, project_len},
                                  100,
                                  SCOPE_LINES_CLOCK_CPU,
                                  PERIOD_NS,
                                  total,
                                  0,
                                  0,
                                  nthreads,
                                  0,
                                  0,
                                  total}; /* generated: one sample a signal */
    return scope_log_writer_add(w, &r);
}
