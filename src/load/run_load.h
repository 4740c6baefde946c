/*
 * The loaders run_load knows (run_model.h), in the order it asks them.
 */
#ifndef SCOPE_RUN_LOAD_H
#define SCOPE_RUN_LOAD_H

#include "run_loader.h"

/* Every loader, NULL-terminated.  The first, the run-directory loader, also
 * reads any path no loader claims, so that a wrong path is worded as a
 * wrong run directory. */
extern const run_loader *const run_loaders[];

#endif
