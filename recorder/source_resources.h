/*
 * Data source: the resource sampler's RESOURCE records (RSS, CPU time, I/O
 * in both layers, GPU), and the caveat of sync phases that found no CUDA.
 */
#ifndef SCOPE_REC_SOURCE_RESOURCES_H
#define SCOPE_REC_SOURCE_RESOURCES_H

#include "source.h"

extern const rec_source rec_source_resources;

#endif
