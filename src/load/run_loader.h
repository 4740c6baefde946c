/*
 * Loaders: where a model's processes come from.  Each loader reads one kind
 * of source (a run directory of scope logs; an imported trace file) into a
 * run_model_builder.  run_load (run_load.h) asks the loaders of its table
 * in order whether they read a path, and hands it to the first that does.
 */
#ifndef SCOPE_RUN_LOADER_H
#define SCOPE_RUN_LOADER_H

#include "run_builder.h"

typedef struct run_loader {
    const char *name; /* "run directory", ... */
    /* 1 when this loader reads path, judged cheaply (a stat, a file's first
     * bytes); 0 otherwise. */
    int (*probe)(const char *path);
    /* Adds every process of path to b (run_builder_add_workers) and fills
     * them.  Returns RUN_OK, or an error with one plain line in msg naming
     * the path; b is then abandoned by the caller. */
    enum run_load_error (*load)(run_model_builder *b, const char *path, const run_options *opt,
                                char *msg, size_t msglen);
} run_loader;

#endif
