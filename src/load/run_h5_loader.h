/*
 * The loader of scope's own HDF5 layout ("scope-run", written by
 * `scope-tui export --format hdf5`): each process of the file becomes a
 * process of the model, with the figures it was loaded with, so the model
 * is the one the run directory gave.
 */
#ifndef SCOPE_RUN_H5_LOADER_H
#define SCOPE_RUN_H5_LOADER_H

#include "run_loader.h"

extern const run_loader run_h5_loader;

#endif
