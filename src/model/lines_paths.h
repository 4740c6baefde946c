/*
 * What the hot lines give the stacks (run_stacks.h): the whole call paths
 * of the samples a query selects, as nodes of the run's stack tree
 * (stack_tree.h), and what each location of a path names.  Kept apart from
 * run_lines.h because only the model's stack queries need it: the rest of
 * the product reads stacks through run_stacks.h.
 */
#ifndef SCOPE_LINES_PATHS_H
#define SCOPE_LINES_PATHS_H

#include "run_model.h"
#include "stack_tree.h"

/* run_lines.h's, which includes nothing of this: run_lines.c implements both. */
struct run_lines_query;
struct run_line;

/* Samples that ended at one node of the tree, in one role. */
typedef struct lines_path_count {
    size_t role; /* run_model.roles index */
    uint32_t node;
    uint64_t count;
    double seconds; /* count x the period of the processes that took them */
} lines_path_count;

typedef struct lines_paths {
    const stack_tree *tree; /* the model's; valid while it is */
    lines_path_count *v;    /* one per (role, node) with samples selected */
    size_t n;
    uint64_t samples;
    double seconds;
    double period_ns;  /* as run_lines_result's: NAN unless every process shares one */
    double per_signal; /* run_lines_info.per_signal: a share's sd rests on samples / it */
} lines_paths;

/* The sampled paths the query selects (its function and attribution are
 * not used: a path is every frame).  Measured lines have none.  Returns 0,
 * or -1 with one plain line in msg, as run_lines_select. */
int lines_paths_select(run_model *m, const struct run_lines_query *q, lines_paths *out, char *msg,
                       size_t msglen);
void lines_paths_free(lines_paths *p);

/* A location of the tree as a row names it, into *out (file, line,
 * function, module, approximate; no figures), and whether its file lies
 * under a process's project folder. */
void lines_paths_frame(run_model *m, uint32_t loc, struct run_line *out, int *in_project);

#endif
