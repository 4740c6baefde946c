/*
 * Data source: every thread's THREAD record, phase nodes and aggregates,
 * counters, and the caveats counted on the hot path.
 */
#ifndef SCOPE_REC_SOURCE_PHASES_H
#define SCOPE_REC_SOURCE_PHASES_H

#include "source.h"

extern const rec_source rec_source_phases;

#endif
