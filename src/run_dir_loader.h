/*
 * The run-directory loader: RUN/workers/HOST/NAME.scope, one scope log per
 * process, read in parallel (run_log.h).
 */
#ifndef SCOPE_RUN_DIR_LOADER_H
#define SCOPE_RUN_DIR_LOADER_H

#include "run_loader.h"

extern const run_loader run_dir_loader;

#endif
