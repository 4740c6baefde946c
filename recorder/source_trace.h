/*
 * Data source: the trace window's record and its events.
 */
#ifndef SCOPE_REC_SOURCE_TRACE_H
#define SCOPE_REC_SOURCE_TRACE_H

#include "source.h"

extern const rec_source rec_source_trace;

#endif
