/*
 * scope_gen_run --lines: line samples of the generator's own code in every
 * process, so the hot lines and the stacks (Lines, Flame, lines --folded)
 * can be measured on runs of any size.  The module is this very binary
 * (path, build-id and load address from dl_iterate_phdr), so the
 * symbolizer reads real debug info; the stacks are paths through a call
 * tree of GEN_LINES_FUNCTIONS functions of gen_lines.c, the same set in
 * every process (as a program's are), and each (thread, phase node) gets
 * samples of a few dozen of them, drawn from the process's seed.
 */
#ifndef SCOPE_GEN_LINES_H
#define SCOPE_GEN_LINES_H

#include <scope/log_format.h>

#include <stdint.h>

#define GEN_LINES_FUNCTIONS 48
#define GEN_LINES_STACKS    400

/* Finds this binary and builds the stacks.  Returns 0, or -1 with a line on
 * stderr. */
int gen_lines_init(void);

/* Adds MODULE, STACK, STACK_SAMPLES and LINES records to the frame being
 * written: samples of the threads threads[0..nthreads) (their indexes),
 * each with none and under each of its phase nodes nodes[t][0..nnodes[t])
 * (ids), about `per_node` samples each.  seed picks which stacks and how
 * many.  Returns 0 or a negative errno. */
int gen_lines_add(scope_log_writer *w, uint32_t nthreads, const uint32_t *threads,
                  const uint32_t *const *nodes, const int *nnodes, uint64_t per_node,
                  uint64_t seed);

#endif
