/* fuzz_tui: the browser's stage of the fuzz_run_load harness. */
#ifndef SCOPE_FUZZ_TUI_WALK_H
#define SCOPE_FUZZ_TUI_WALK_H

#include "lines_symbolize.h"
#include "run_model.h"

#include <stddef.h>

/* Browses m headless, as `scope-tui RUN --keys ... --size WxH` does: every
 * view drawn at a size, in UTF-8 or ASCII, and a walk of keys (moving,
 * expanding, sorting, searching, the process filter, resizes down to too
 * small), all chosen from `seed`.  Reloading, saving and the editor are
 * left out: they touch the disk or replace the model.  The model stays the
 * caller's. */
/* Returns the symbolizer the browser kept (NULL: none), which the caller
 * frees after the model, as scope-tui does (ui/tui.c). */
lines_symbolizer *fuzz_tui_walk(run_model *m, const char *run_dir, size_t seed);

#endif
