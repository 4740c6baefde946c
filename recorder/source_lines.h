/*
 * Data source: line samples.  MODULE and STACK definitions as they appear,
 * STACK_SAMPLES for the (thread, node, stack) counts that changed, and the
 * LINES record of the sampler's settings and totals, in every frame once
 * sampling has begun.
 */
#ifndef SCOPE_REC_SOURCE_LINES_H
#define SCOPE_REC_SOURCE_LINES_H

#include "source.h"

extern const rec_source rec_source_lines;

#endif
