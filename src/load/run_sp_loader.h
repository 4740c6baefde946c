/*
 * The scope-profiler loader: an HDF5 file written by scope-profiler (a
 * Python region profiler; formats/h5/sp_file.h reads its layouts), one
 * process per rank, its regions nested by containment (run_intervals.h).
 */
#ifndef SCOPE_RUN_SP_LOADER_H
#define SCOPE_RUN_SP_LOADER_H

#include "run_loader.h"

/* Claims every HDF5 file: it stands after the loader of scope's own HDF5
 * layout in run_loaders, and says so plainly of any other layout. */
extern const run_loader run_sp_loader;

#endif
