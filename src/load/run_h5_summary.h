/*
 * A file's /summary group (run_h5_layout.h, docs/hdf5.md "The summary")
 * read as one partial model: the processes' identity rows, the roles'
 * trees with each phase's sums, extremes, histogram and per-process
 * figures, the caveats and the resources, checked row by row (every count
 * bounded by the file's size, every row naming what exists), so that
 * run_builder_finish_parts merges it as it merges scope-reduce's parts.
 * Nothing of the processes' own logs is in it: the model it gives has no
 * processes' tables (run_model_has_logs is 0).
 */
#ifndef SCOPE_RUN_H5_SUMMARY_H
#define SCOPE_RUN_H5_SUMMARY_H

#include "run_builder.h"
#include "run_h5_load_priv.h"

/* /summary of the open file l->f into a partial model handed to b
 * (run_builder_own_parts), which run_builder_finish then merges.  Returns
 * 0, or -1 with the load failed (bad(): one line naming the file and what
 * is wrong). */
int run_h5_load_summary(h5_load *l, run_model_builder *b, const run_options *opt);

#endif
