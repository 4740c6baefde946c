/*
 * Data source: the MARK_STATE records of a snapshot frame, copies of the
 * marks written before it (mark_copies.h).
 */
#ifndef SCOPE_REC_SOURCE_MARKS_H
#define SCOPE_REC_SOURCE_MARKS_H

#include "source.h"

extern const rec_source rec_source_marks;

#endif
